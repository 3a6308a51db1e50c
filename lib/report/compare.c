/* compare.c: the comparison of powercut run's configurations: the table,
 * its JSON and its page. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "replay/crash.h"
#include "report/compare.h"
#include "report/reportint.h"
#include "report/html.h"
#include "report/report.h"

/* Distinct failing paths of a check. */
static size_t
files_affected (const struct pc_check_result *res)
{
  size_t n;

  free (pc_report_paths (res, -1, &n));
  return n;
}

void
pc_outcome_set (struct pc_outcome *o, struct pc_check_result *res)
{
  o->ok = true;
  o->res = res;
  o->points = res->npoints;
  o->unique = res->unique;
  memcpy (o->count, res->count, sizeof o->count);
  o->files = files_affected (res);
  o->promises = res->promises;
  o->program = res->program_promises;
  o->exposures = res->exposures;
  o->recovery = res->recovery_differs;
  pc_windows_summary (res, &o->win);
}

/* Seconds for the table: "-" for none. */
static const char *
secs (char *buf, size_t len, bool have, uint64_t ns)
{
  if (have)
    snprintf (buf, len, "%.1f s", (double) ns / 1e9);
  else
    snprintf (buf, len, "-");
  return buf;
}

/* The windows' columns: the longest (with "+": some version was still at
 * risk at the last crash point, for that long), the median, and how long
 * acknowledged data stayed lost, and whose doing that was where it was
 * the program's (it gave the version up). */
static void
window_cols (FILE *f, const struct pc_window_summary *s)
{
  char a[32], b[32], c[48];

  if (s->never && s->open_ns >= s->longest_ns)
    snprintf (a, sizeof a, ">%.1f s", (double) s->open_ns / 1e9);
  else
    secs (a, sizeof a, s->longest != SIZE_MAX, s->longest_ns);
  secs (c, sizeof c, s->ack_exposed != SIZE_MAX, s->ack_exposed_ns);
  if (s->ack_exposed != SIZE_MAX && s->ack_fault == PC_FAULT_PROGRAM)
    strcat (c, " program");
  fprintf (f, "  | %14s  %6s  %10s", a, secs (b, sizeof b, s->longest != SIZE_MAX, s->median_ns), c);
}

/* The verdicts the first table gives a column: ok; app-invalid with
 * app (--verify); any other that some configuration has.  The others
 * that have a column when they occur go in *absent.  Returns how many. */
static size_t
verdict_cols (const struct pc_outcome *cf, size_t n, bool app, int *cols, int *absent,
              size_t *ret_nabsent)
{
  size_t ncols = 0, nabsent = 0;

  for (int v = 0; v < PC_V_COUNT; v++) {
    bool some = false;
    if (!pc_verdict_info (v)->column || (v == PC_V_APP_INVALID && !app))
      continue;
    for (size_t i = 0; i < n; i++)
      some |= cf[i].ok && cf[i].count[v] > 0;
    if (some || v == PC_V_OK || v == PC_V_APP_INVALID)
      cols[ncols++] = v;
    else if (v != PC_V_ACK_LOST)        /* most workloads acknowledge nothing */
      absent[nabsent++] = v;
  }
  *ret_nabsent = nabsent;
  return ncols;
}

/* The comparison, in two tables that fit 100 columns: the crash points
 * by verdict and the files; then whose fault and the windows. */
void
pc_compare_table (FILE *f, const struct pc_outcome *cf, size_t n, bool app)
{
  int cols[PC_V_COUNT], absent[PC_V_COUNT], cw[PC_V_COUNT];
  size_t nabsent, ncols = verdict_cols (cf, n, app, cols, absent, &nabsent);
  size_t w = strlen ("configuration");
  bool unchecked = false, windows = false, recovery = false, any = false;
  size_t repeated = 0;

  for (size_t i = 0; i < n; i++) {
    if (strlen (cf[i].label) > w)
      w = strlen (cf[i].label);
    /* States powercut could not check are no verdict: a column apart,
     * there only when some configuration has them. */
    unchecked |= cf[i].ok && cf[i].count[PC_V_NOT_CHECKED] > 0;
    windows |= cf[i].ok && cf[i].win.n > 0;
    recovery |= cf[i].ok && cf[i].recovery > 0;
    if (cf[i].repeated > repeated)
      repeated = cf[i].repeated;
  }
  /* Each column as wide as its name or its widest number. */
  for (size_t k = 0; k < ncols; k++) {
    cw[k] = (int) strlen (pc_verdict_name (cols[k]));
    for (size_t i = 0; i < n; i++) {
      char num[32];
      int len = snprintf (num, sizeof num, "%zu", cf[i].count[cols[k]]);
      if (cf[i].ok && len > cw[k])
        cw[k] = len;
    }
  }
  fprintf (f, "%-*s  %6s", (int) w, "configuration", "points");
  for (size_t k = 0; k < ncols; k++)
    fprintf (f, "  %*s", cw[k], pc_verdict_name (cols[k]));
  fprintf (f, "%s  files%s\n", unchecked ? "  not checked" : "", repeated > 1 ? "     runs" : "");
  for (size_t i = 0; i < n; i++) {
    fprintf (f, "%-*s  ", (int) w, cf[i].label);
    if (!cf[i].ok) {
      fprintf (f, "error: %s\n", cf[i].error);
      continue;
    }
    fprintf (f, "%6zu", cf[i].points);
    for (size_t k = 0; k < ncols; k++)
      fprintf (f, "  %*zu", cw[k], cf[i].count[cols[k]]);
    if (unchecked)
      fprintf (f, "  %11zu", cf[i].count[PC_V_NOT_CHECKED]);
    fprintf (f, "  %5zu", cf[i].files);
    if (repeated > 1) {
      char runs[48];
      snprintf (runs, sizeof runs, "%zu/%zu", cf[i].runs_failed, cf[i].repeated);
      fprintf (f, "  %7s", runs);
    }
    fputc ('\n', f);
  }
  if (repeated > 1)
    pc_put_wrapped (f, "(", "each configuration run several times (--repeat): its numbers are "
                    "its runs' together, runs how many of them had a failing crash point, "
                    "the windows those of its run with the longest)", PC_TEXT_WIDTH);
  if (nabsent > 0) {
    char none[512];
    size_t l = (size_t) snprintf (none, sizeof none, "no configuration has ");
    for (size_t k = 0; k < nabsent && l < sizeof none; k++)
      l += (size_t) snprintf (none + l, sizeof none - l, "%s%s",
                              k == 0 ? "" : k + 1 < nabsent ? ", " : " or ",
                              pc_verdict_name (absent[k]));
    if (l + 1 < sizeof none)
      strcat (none, ")");
    pc_put_wrapped (f, "(", none, PC_TEXT_WIDTH);
  }

  /* whose fault the failing points are, and the windows */
  for (size_t i = 0; i < n && !any; i++)
    any = cf[i].ok;
  if (!any)
    return;
  fprintf (f, "\n%-*s  fault: filesystem  program  none%s%s\n", (int) w, "configuration",
           recovery ? "  recovery" : "", windows ? "  | longest window  median  acked lost" : "");
  for (size_t i = 0; i < n; i++) {
    if (!cf[i].ok)
      continue;
    fprintf (f, "%-*s  %17zu  %7zu  %4zu", (int) w, cf[i].label, cf[i].promises, cf[i].program,
             cf[i].exposures);
    if (recovery)
      fprintf (f, "  %8zu", cf[i].recovery);
    if (windows)
      window_cols (f, &cf[i].win);
    fputc ('\n', f);
  }
}

int
pc_compare_json (const char *path, const char *workload, const struct pc_outcome *cf, size_t n)
{
  json_object *root = json_object_new_object (), *arr = json_object_new_array ();
  int r = 0;

  json_object_object_add (root, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (root, "workload", json_object_new_string (workload));
  for (size_t i = 0; i < n; i++) {
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "configuration", json_object_new_string (cf[i].label));
    json_object_object_add (o, "fs", json_object_new_string (cf[i].fs));
    json_object_object_add (o, "mount_opts", json_object_new_string (cf[i].mount_opts));
    json_object_object_add (o, "dir", json_object_new_string (cf[i].dir));
    if (!cf[i].ok)
      json_object_object_add (o, "error", json_object_new_string (cf[i].error));
    else {
      json_object *t = pc_json_totals (cf[i].count, cf[i].points, cf[i].unique);
      json_object_object_del (t, "unique");   /* the comparison never said it */
      json_object_object_add (o, "totals", t);
      json_object_object_add (o, "files_affected", json_object_new_int64 ((int64_t) cf[i].files));
      json_object_object_add (t, "promises", json_object_new_int64 ((int64_t) cf[i].promises));
      json_object_object_add (t, "program_promises", json_object_new_int64 ((int64_t) cf[i].program));
      json_object_object_add (t, "exposures", json_object_new_int64 ((int64_t) cf[i].exposures));
      json_object_object_add (t, "recovery_differs", json_object_new_int64 ((int64_t) cf[i].recovery));
      json_object_object_add (o, "windows", pc_windows_summary_json (&cf[i].win));
      if (cf[i].repeated > 1) {
        json_object_object_add (o, "repeated", json_object_new_int64 ((int64_t) cf[i].repeated));
        json_object_object_add (o, "runs_failed",
                                json_object_new_int64 ((int64_t) cf[i].runs_failed));
      }
    }
    json_object_array_add (arr, o);
  }
  json_object_object_add (root, "configurations", arr);
  if (json_object_to_file_ext (path, root, JSON_C_TO_STRING_PRETTY) < 0)
    r = -EIO;
  json_object_put (root);
  return r;
}

/* One page with every configuration's timeline, aligned, under the table. */
int
pc_compare_html (const char *out, const char *workload, const struct pc_outcome *cf, size_t n)
{
  struct pc_html_config *hc = calloc (n ? n : 1, sizeof *hc);
  struct pc_index *ix = calloc (n ? n : 1, sizeof *ix);
  bool *have = calloc (n ? n : 1, sizeof *have);
  char (*label)[192] = calloc (n ? n : 1, sizeof *label);
  char path[PATH_MAX + 32], title[256];
  size_t k = 0;
  int r = -ENOMEM;

  if (hc == NULL || ix == NULL || have == NULL || label == NULL)
    goto out;
  for (size_t i = 0; i < n; i++) {
    char logp[PATH_MAX + 32];
    if (!cf[i].ok || cf[i].res == NULL)
      continue;                 /* failed, or a device set (no timeline) */
    if (cf[i].repeated > 1 && cf[i].res_run > 0) {
      /* a run of several: its log, and which it is */
      snprintf (logp, sizeof logp, "%s/run-%zu/powercut.log", cf[i].dir, cf[i].res_run);
      snprintf (label[k], sizeof label[k], "%s (run %zu of %zu)", cf[i].label, cf[i].res_run,
                cf[i].repeated);
    }
    else {
      snprintf (logp, sizeof logp, "%s/powercut.log", cf[i].dir);
      snprintf (label[k], sizeof label[k], "%s", cf[i].label);
    }
    have[k] = pc_index_load (logp, &ix[k]) == 0;
    hc[k].label = label[k];
    hc[k].res = cf[i].res;
    hc[k].ix = have[k] ? &ix[k] : NULL;
    k++;
  }
  snprintf (path, sizeof path, "%s/report.html", out);
  snprintf (title, sizeof title, "powercut run: %s on %zu configurations", workload, n);
  r = pc_report_html (path, title, hc, k);
  for (size_t i = 0; i < k; i++)
    if (have[i])
      pc_index_free (&ix[i]);
out:
  free (hc);
  free (ix);
  free (have);
  free (label);
  return r;
}
