/* outputs.c: a check's reports where they were asked for, and the whole
 * of powercut check and powercut merge. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/crash.h"
#include "report/html.h"
#include "report/outputs.h"
#include "report/report.h"
#include "report/reportint.h"

/* The HTML page of one check, with the log's marks and flushes. */
static int
write_html (const char *path, const struct pc_check_result *res)
{
  struct pc_index ix;
  struct pc_html_config hc = { res->log_path, res, NULL };
  char title[1024];
  int r, have = pc_index_load (res->log_path, &ix) == 0;

  if (have)
    hc.ix = &ix;
  snprintf (title, sizeof title, "powercut check %s", res->log_path);
  r = pc_report_html (path, title, &hc, 1);
  if (have)
    pc_index_free (&ix);
  return r;
}

int
pc_outputs_write (const struct pc_outputs *o, const struct pc_check_result *res,
                  struct pc_err *err)
{
  int r;

  if (o->text)
    pc_report_text (o->text, res);
  if (o->json && (r = pc_report_json (o->json, res)) < 0)
    return pc_err_set (err, -r, "%s: %s", o->json, strerror (-r));
  if (o->html && (r = write_html (o->html, res)) < 0)
    return pc_err_set (err, -r, "%s: %s", o->html, strerror (-r));
  /* States that could not be checked: the check did not finish. */
  if (res->count[PC_V_NOT_CHECKED] > 0) {
    pc_err_set (err, EAGAIN, "%zu of %zu crash point%s could not be checked (see the report)",
                res->count[PC_V_NOT_CHECKED], res->npoints, pc_s (res->npoints));
    return PC_CHECK_UNFINISHED;
  }
  return pc_report_failed_on (res, o->fail_on) ? PC_CHECK_FAILED : PC_CHECK_SURVIVED;
}

int
pc_merge_report (char *const *paths, size_t n, const struct pc_outputs *o, struct pc_err *err)
{
  struct pc_check_result **parts = calloc (n ? n : 1, sizeof *parts), *m = NULL;
  int r = 0;

  if (parts == NULL)
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  if (n > 0 && pc_devcheck_is_report (paths[0])) {
    free (parts);
    return pc_devcheck_merge (paths, n, o, err);
  }
  for (size_t i = 0; i < n && r == 0; i++)
    r = pc_report_read_json (paths[i], &parts[i], err);
  if (r == 0)
    r = pc_report_merge (parts, n, &m, err);
  if (r == 0)
    r = pc_outputs_write (o, m, err);
  for (size_t i = 0; i < n; i++)
    pc_check_result_free (parts[i]);
  free (parts);
  pc_check_result_free (m);
  return r;
}
