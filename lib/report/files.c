/* files.c: the text report's "files affected": each failing path with
 * its points, verdicts and faults, and at the point where it weighs most
 * what was found, what was allowed and why. */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/reportint.h"
#include "result/result.h"

#define MAX_LISTED 20

/* "the program's at 4, nobody's at 2" from a path's faults. */
static void
faults_text (FILE *f, const struct pc_path_sum *v)
{
  static const char *const whose[] = { "nobody's (never made durable)", "the program's",
                                       "the filesystem's", "the recovery's (kernel or e2fsck)" };
  const char *sep = "";

  for (int k = PC_FAULT_COUNT - 1; k >= PC_FAULT_NONE; k--)
    if (v->faults[k]) {
      fprintf (f, "%s%s at %zu", sep, whose[k], v->faults[k]);
      sep = ", ";
    }
}

void
pc_report_files_text (FILE *f, const struct pc_check_result *res)
{
  size_t n, shown = 0;
  struct pc_path_sum *v = pc_report_paths (res, -1, &n);

  if (n == 0)
    goto out;
  fprintf (f, "\nfiles affected: %zu\n", n);
  for (size_t j = 0; j < n && shown < MAX_LISTED; j++, shown++) {
    const struct pc_finding *fd = v[j].worst;
    fputs ("  ", f);
    pc_put_shown (f, pc_display_name, v[j].first->path);
    fprintf (f, ": %zu point%s (%s .. %s): ", v[j].npoints, v[j].npoints == 1 ? "" : "s",
             v[j].first_id, v[j].last_id);
    pc_path_counts_text (f, &v[j]);
    fputs ("; fault: ", f);
    faults_text (f, &v[j]);
    fprintf (f, "\n      at %s: %s, found ", v[j].worst_id, pc_finding_name (fd->kind));
    pc_put_shown (f, pc_display_line, fd->found);
    fputs ("\n      allowed: ", f);
    pc_put_shown (f, pc_display_line, fd->allowed);
    fputc ('\n', f);
    pc_report_cause_text (f, fd->kind, &fd->cause);
  }
  if (n > shown)
    fprintf (f, "  ... and %zu more file%s (see the JSON report)\n", n - shown, pc_s (n - shown));
out:
  free (v);
}
