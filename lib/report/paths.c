/* paths.c: the failing paths of a check, each with its points, verdicts
 * and faults summed up, for every report. */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/reportint.h"
#include "result/result.h"
#include "util/util.h"

struct pc_path_sum *
pc_report_paths (const struct pc_check_result *res, int kind, size_t *ret_n)
{
  struct pc_path_sum *v = NULL;
  size_t n = 0, cap = 0;

  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    for (size_t k = 0; k < p->findings.n; k++) {
      const struct pc_finding *fd = &p->findings.v[k];
      size_t lo = 0, hi = n;
      if (kind >= 0 ? fd->kind != kind : pc_finding_verdict (fd->kind) == PC_V_OK)
        continue;
      /* v is kept sorted by path: find it, or where it goes. */
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp (v[mid].first->path, fd->path);
        if (c == 0)
          lo = hi = mid;
        else if (c < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == n || strcmp (v[lo].first->path, fd->path) != 0) {
        if (pc_grow (&v, &cap, n + 1, sizeof *v, 16) < 0) {
          free (v);
          *ret_n = 0;
          return NULL;
        }
        memmove (v + lo + 1, v + lo, (n - lo) * sizeof *v);
        v[lo] = (struct pc_path_sum) { fd, 0, p->id, p->id, fd, p->id, { 0 }, { 0 } };
        n++;
      }
      v[lo].npoints++;
      v[lo].last_id = p->id;
      if (pc_finding_verdict (fd->kind) != PC_V_OK) {
        enum pc_fault ft = pc_cause_fault (&fd->cause);
        v[lo].count[fd->kind]++;
        v[lo].faults[ft]++;
        if (ft > pc_cause_fault (&v[lo].worst->cause)) {
          v[lo].worst = fd;
          v[lo].worst_id = p->id;
        }
      }
    }
  }
  *ret_n = n;
  return v;
}

/* "zero-length at 2, zero-filled at 2" from a path's counts. */
void
pc_path_counts_text (FILE *f, const struct pc_path_sum *v)
{
  const char *sep = "";

  for (int k = 0; k < PC_V_COUNT; k++)
    if (v->count[k]) {
      fprintf (f, "%s%s at %zu", sep, pc_finding_name (k), v->count[k]);
      sep = ", ";
    }
}
