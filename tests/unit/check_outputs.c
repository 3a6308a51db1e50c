/* check_outputs.c: unit tests of lib/report/outputs: a check's reports go
 * where they are asked for, a report that cannot be written is an error
 * naming it, and the status says whether every point survived, some did
 * not, or some could not be checked; merging shards' JSON reports. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/outputs.h"
#include "report/report.h"
#include "unit.h"

static char dir[64];

static void
setup (void)
{
  strcpy (dir, "/tmp/check_outputs.XXXXXX");
  ck_assert_ptr_nonnull (mkdtemp (dir));
}

static void
teardown (void)
{
  char cmd[128];

  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq (system (cmd), 0);
}

/* A check's result with the given verdicts, one point each, of shard i
 * of n (the points of shard i are i, i + n, ...). */
static struct pc_check_result *
fake_result (const enum pc_verdict *v, size_t np, unsigned i, unsigned n)
{
  struct pc_check_result *res = calloc (1, sizeof *res);

  ck_assert_ptr_nonnull (res);
  res->log_path = strdup ("/nonexistent/powercut.log");
  res->shard = i;
  res->nshards = n;
  res->records = 100;
  res->points = calloc (np, sizeof *res->points);
  ck_assert_ptr_nonnull (res->points);
  res->npoints = res->unique = np;
  for (size_t k = 0; k < np; k++) {
    struct pc_point *p = &res->points[k];
    p->record = i + k * n;
    snprintf (p->id, sizeof p->id, "%llu", (unsigned long long) p->record);
    p->verdict = v[k];
    p->same_as = p->fsck_as = -1;
  }
  pc_check_result_recount (res);
  return res;
}

START_TEST (test_status)
{
  static const enum pc_verdict ok[] = { PC_V_OK, PC_V_OK },
    bad[] = { PC_V_OK, PC_V_FS_CORRUPT },
    unchecked[] = { PC_V_FS_CORRUPT, PC_V_NOT_CHECKED };
  struct pc_check_result *res;
  struct pc_outputs o = { .text = NULL };
  struct pc_err err = { "" };

  res = fake_result (ok, 2, 0, 1);
  ck_assert_int_eq (pc_outputs_write (&o, res, &err), PC_CHECK_SURVIVED);
  pc_check_result_free (res);
  res = fake_result (bad, 2, 0, 1);
  ck_assert_int_eq (pc_outputs_write (&o, res, &err), PC_CHECK_FAILED);
  pc_check_result_free (res);
  res = fake_result (unchecked, 2, 0, 1);
  ck_assert_int_eq (pc_outputs_write (&o, res, &err), PC_CHECK_UNFINISHED);
  ck_assert_str_eq (err.msg, "1 of 2 crash points could not be checked (see the report)");
  pc_check_result_free (res);
}
END_TEST

START_TEST (test_where)
{
  static const enum pc_verdict v[] = { PC_V_OK, PC_V_FS_CORRUPT };
  struct pc_check_result *res = fake_result (v, 2, 0, 1), *back = NULL;
  char json[128], html[128], want[256], *text = NULL;
  struct pc_err why;
  size_t len = 0;
  struct pc_outputs o = { .text = open_memstream (&text, &len), .json = json, .html = html };
  struct pc_err err = { "" };

  snprintf (json, sizeof json, "%s/r.json", dir);
  snprintf (html, sizeof html, "%s/r.html", dir);
  ck_assert_int_eq (pc_outputs_write (&o, res, &err), PC_CHECK_FAILED);
  fclose (o.text);
  ck_assert_msg (strstr (text, "fs-corrupt") != NULL, "%s", text);
  free (text);
  ck_assert_int_eq (pc_report_read_json (json, &back, &why), 0);
  ck_assert_uint_eq (back->npoints, 2);
  pc_check_result_free (back);
  ck_assert_int_eq (access (html, R_OK), 0);

  /* a report that cannot be written: its path and why */
  o.text = NULL;
  snprintf (json, sizeof json, "%s/no/r.json", dir);
  ck_assert_int_lt (pc_outputs_write (&o, res, &err), 0);
  snprintf (want, sizeof want, "%s: No such file or directory", json);
  ck_assert_str_eq (err.msg, want);
  o.json = NULL;
  snprintf (html, sizeof html, "%s/no/r.html", dir);
  ck_assert_int_lt (pc_outputs_write (&o, res, &err), 0);
  snprintf (want, sizeof want, "%s: No such file or directory", html);
  ck_assert_str_eq (err.msg, want);
  pc_check_result_free (res);
}
END_TEST

START_TEST (test_merge)
{
  static const enum pc_verdict a[] = { PC_V_OK, PC_V_OK }, b[] = { PC_V_FS_CORRUPT, PC_V_OK };
  struct pc_check_result *ra = fake_result (a, 2, 0, 2), *rb = fake_result (b, 2, 1, 2);
  struct pc_check_result *back = NULL;
  char pa[128], pb[128], out[128], *paths[2] = { pa, pb };
  struct pc_err why;
  struct pc_outputs o = { .json = out };
  struct pc_err err = { "" };

  snprintf (pa, sizeof pa, "%s/a.json", dir);
  snprintf (pb, sizeof pb, "%s/b.json", dir);
  snprintf (out, sizeof out, "%s/m.json", dir);
  ck_assert_int_eq (pc_report_json (pa, ra), 0);
  ck_assert_int_eq (pc_report_json (pb, rb), 0);
  ck_assert_msg (pc_merge_report (paths, 2, &o, &err) == PC_CHECK_FAILED, "%s", err.msg);
  ck_assert_int_eq (pc_report_read_json (out, &back, &why), 0);
  ck_assert_uint_eq (back->npoints, 4);
  ck_assert_uint_eq (back->nshards, 1);
  pc_check_result_free (back);
  /* one shard alone is not the whole check */
  ck_assert_int_lt (pc_merge_report (paths, 1, &o, &err), 0);
  ck_assert_str_ne (err.msg, "");
  /* a report that is not there */
  snprintf (pb, sizeof pb, "%s/none.json", dir);
  ck_assert_int_lt (pc_merge_report (paths, 2, &o, &err), 0);
  ck_assert_msg (strstr (err.msg, pb) != NULL, "%s", err.msg);
  pc_check_result_free (ra);
  pc_check_result_free (rb);
}
END_TEST

int
main (void)
{
  Suite *su = suite_create ("outputs");
  TCase *tc = tcase_create ("outputs");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_status);
  tcase_add_test (tc, test_where);
  tcase_add_test (tc, test_merge);
  suite_add_tcase (su, tc);
  return pc_unit_run (su);
}
