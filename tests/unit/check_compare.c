/* check_compare.c: unit tests of run's comparison table (report/compare)
 * and of a configuration's reports over its runs (report/repeat): the
 * five default configurations of replace-rename fit 100 columns, the
 * verdicts no configuration has named below the first table, and whose
 * fault and the windows in the second; with --repeat, a column of the
 * runs that failed; the findings of three runs grouped by path, verdict
 * and fault, each "seen in K of 3 runs", in text and JSON. */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report/compare.h"
#include "report/repeat.h"
#include "unit.h"

/* An outcome checked with points crash points, of which zl zero-length
 * and zf zero-filled (the program's fault), files files lost, and
 * windows of longest and median seconds (acknowledged data lost for
 * acked seconds, the program's doing, if not 0). */
static void
outcome (struct pc_outcome *o, const char *label, size_t points, size_t zl, size_t zf,
         size_t files, double longest, double median, double acked)
{
  memset (o, 0, sizeof *o);
  snprintf (o->label, sizeof o->label, "%s", label);
  o->ok = true;
  o->points = points;
  o->count[PC_V_OK] = points - zl - zf;
  o->count[PC_V_ZERO_LENGTH] = zl;
  o->count[PC_V_ZERO_FILLED] = zf;
  o->files = files;
  o->program = zl + zf;
  o->win.n = 40;
  o->win.longest = 0;
  o->win.longest_ns = (uint64_t) (longest * 1e9);
  o->win.median_ns = (uint64_t) (median * 1e9);
  o->win.ack_exposed = acked > 0 ? 0 : SIZE_MAX;
  o->win.ack_exposed_ns = (uint64_t) (acked * 1e9);
  o->win.ack_fault = PC_FAULT_PROGRAM;
}

/* The table of v, malloc'd. */
static char *
table (const struct pc_outcome *v, size_t n, bool app)
{
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&out, &len);

  ck_assert_ptr_nonnull (f);
  pc_compare_table (f, v, n, app);
  ck_assert_int_eq (fclose (f), 0);
  return out;
}

/* No line of text is wider than 100 columns. */
static void
assert_narrow (const char *text)
{
  for (const char *l = text, *nl; *l; l = nl + 1) {
    nl = strchr (l, '\n');
    ck_assert_ptr_nonnull (nl);
    ck_assert_msg (nl - l <= 100, "a line of %d columns: %.*s\nin:\n%s", (int) (nl - l),
                   (int) (nl - l), l, text);
  }
}

START_TEST (test_defaults_fit)
{
  struct pc_outcome v[5];
  char *t;

  outcome (&v[0], "ext4", 18, 0, 0, 0, 1.3, 0.7, 0);
  outcome (&v[1], "ext4 noauto_da_alloc", 23, 2, 2, 20, 2.0, 2.0, 2.0);
  outcome (&v[2], "ext4 data=writeback", 18, 0, 0, 0, 2.0, 1.0, 0);
  outcome (&v[3], "ext4 data=journal", 19, 0, 0, 0, 1.8, 0.9, 0);
  outcome (&v[4], "ext3", 18, 0, 0, 0, 1.6, 0.8, 0);
  t = table (v, 5, false);
  assert_narrow (t);
  /* the verdicts some configuration has, and the files */
  ck_assert_msg (strncmp (t, "configuration         points  ok  zero-length  zero-filled  files\n"
                             "ext4                      18  18            0            0      0\n"
                             "ext4 noauto_da_alloc      23  19            2            2     20\n",
                          190) == 0, "%s", t);
  ck_assert_msg (strstr (t, "\n(no configuration has fs-corrupt, unmountable, missing, mismatch "
                            "or durable-lost)\n") != NULL, "%s", t);
  /* whose fault and the windows below */
  ck_assert_msg (strstr (t, "\n\nconfiguration         fault: filesystem  program  none  | "
                            "longest window  median  acked lost\n") != NULL, "%s", t);
  ck_assert_msg (strstr (t, "\next4 noauto_da_alloc                  0        4     0  |  "
                            "        2.0 s   2.0 s  2.0 s program\n") != NULL, "%s", t);
  free (t);

  /* an error in the first table only; a checker's column with --verify */
  v[2].ok = false;
  snprintf (v[2].error, sizeof v[2].error, "mkfs.ext4: not found");
  t = table (v, 5, true);
  assert_narrow (t);
  ck_assert_msg (strstr (t, "\next4 data=writeback   error: mkfs.ext4: not found\n") != NULL, "%s", t);
  ck_assert_int_eq (strstr (strstr (t, "\n\n"), "ext4 data=writeback") == NULL, 1);
  ck_assert_msg (strstr (t, "  app-invalid  files\n") != NULL, "%s", t);
  free (t);
}
END_TEST

START_TEST (test_runs_column)
{
  struct pc_outcome v[2];
  char *t;

  outcome (&v[0], "ext4", 90, 0, 0, 0, 1.3, 0.7, 0);
  outcome (&v[1], "ext4 noauto_da_alloc", 100, 6, 2, 1, 2.0, 2.0, 2.0);
  v[0].repeated = v[1].repeated = 5;
  v[1].runs_failed = 3;
  t = table (v, 2, false);
  assert_narrow (t);
  ck_assert_msg (strstr (t, "  files     runs\n") != NULL, "%s", t);
  ck_assert_msg (strstr (t, "\next4                      90  90            0            0      0"
                            "      0/5\n") != NULL, "%s", t);
  ck_assert_msg (strstr (t, "      1      3/5\n") != NULL, "%s", t);
  ck_assert_msg (strstr (t, "\n(each configuration run several times (--repeat)") != NULL, "%s", t);
  free (t);
  /* none without --repeat */
  v[0].repeated = v[1].repeated = 0;
  t = table (v, 2, false);
  ck_assert_msg (strstr (t, "runs") == NULL, "%s", t);
  free (t);
}
END_TEST

/* A result of points crash points, of which the first nlost lost path
 * and path2, if not NULL (zero-length, the program's). */
static struct pc_check_result *
result (size_t points, size_t nlost, const char *path, const char *path2)
{
  struct pc_check_result *res = calloc (1, sizeof *res);

  ck_assert_ptr_nonnull (res);
  res->log_path = strdup ("powercut.log");
  res->nshards = 1;
  res->points = calloc (points, sizeof *res->points);
  ck_assert_ptr_nonnull (res->points);
  res->npoints = res->unique = points;
  for (size_t i = 0; i < points; i++) {
    struct pc_point *p = &res->points[i];
    snprintf (p->id, sizeof p->id, "%zu", 10 + i);
    p->same_as = p->fsck_as = -1;
    for (int k = 0; i < nlost && k < 2; k++) {
      struct pc_cause c = { .known = true, .program = true, .durable_ns = -1 };
      if (k == 1 && path2 == NULL)
        break;
      ck_assert_int_eq (pc_findings_add (&p->findings, PC_V_ZERO_LENGTH, k ? path2 : path,
                                         "empty file", "file 3 B"), 0);
      c.rule = strdup ("a durable version the program gave up");
      c.fix = strdup ("an fsync of the new version before the rename");
      pc_findings_set_cause (&p->findings, &c);
      p->verdict = PC_V_ZERO_LENGTH;
    }
  }
  pc_check_result_recount (res);
  return res;
}

START_TEST (test_repeat_reports)
{
  struct pc_outcome o, runs[3];
  char dir[] = "/tmp/check_compare.XXXXXX", path[64], *text = NULL;
  size_t len = 0, show;
  json_object *root, *fd, *x;
  FILE *f;

  ck_assert_ptr_nonnull (mkdtemp (dir));
  memset (&o, 0, sizeof o);
  memset (runs, 0, sizeof runs);
  snprintf (o.label, sizeof o.label, "ext4 noauto_da_alloc");
  snprintf (o.dir, sizeof o.dir, "%s", dir);
  /* run 1 loses etc/app.conf and etc/b.conf at 2 points, run 2 nothing,
   * run 3 fails */
  pc_outcome_set (&runs[0], result (20, 2, "etc/app.conf", "etc/b.conf"));
  pc_outcome_set (&runs[1], result (19, 0, NULL, NULL));
  snprintf (runs[2].error, sizeof runs[2].error, "the workload failed (exit status 1)");
  for (size_t r = 0; r < 3; r++)
    snprintf (runs[r].dir, sizeof runs[r].dir, "%s/run-%zu", dir, r + 1);
  show = pc_repeat_outcome (&o, runs, 3);
  ck_assert_uint_eq (show, 0);
  ck_assert (o.ok);
  ck_assert_uint_eq (o.repeated, 3);
  ck_assert_uint_eq (o.runs_failed, 1);
  ck_assert_uint_eq (o.points, 39);
  ck_assert_uint_eq (o.count[PC_V_ZERO_LENGTH], 2);
  ck_assert_uint_eq (o.program, 2);
  ck_assert_uint_eq (o.files, 2);

  f = open_memstream (&text, &len);
  ck_assert_ptr_nonnull (f);
  pc_repeat_text (f, "sed-i.sh", &o, runs, 3);
  ck_assert_int_eq (fclose (f), 0);
  ck_assert_msg (strncmp (text, "LOST in 1 of 3 runs; by the program's fault in 1; the filesystem "
                                "kept its promises in every run; 1 of the 3 could not be run or "
                                "checked\npowercut run: sed-i.sh on ext4 noauto_da_alloc, repeated "
                                "3 times: ", 190) == 0, "%s", text);
  ck_assert_msg (strstr (text, "\n  run-1: LOST at 2 of 20 crash points, ") != NULL, "%s", text);
  ck_assert_msg (strstr (text, "\n  run-2: nothing lost") != NULL, "%s", text);
  ck_assert_msg (strstr (text, "\n  run-3: error: the workload failed (exit status 1)\n") != NULL,
                 "%s", text);
  /* the two files lost alike in one line */
  ck_assert_msg (strstr (text, "\n  etc/app.conf and etc/b.conf (2 files): zero-length, the "
                               "program's: seen in 1 of 3 runs (run-1 at 2 crash points, each)\n"
                               "      rule:    a durable version the program gave up") != NULL,
                 "%s", text);
  ck_assert_msg (strstr (text, "\n      fix:     an fsync of the new version before the rename\n")
                 != NULL, "%s", text);
  free (text);

  snprintf (path, sizeof path, "%s/report.json", dir);
  ck_assert_int_eq (pc_repeat_json (path, "sed-i.sh", &o, runs, 3), 0);
  root = json_object_from_file (path);
  ck_assert_ptr_nonnull (root);
  ck_assert_int_eq (json_object_get_int (json_object_object_get (root, "repeated")), 3);
  ck_assert_int_eq (json_object_get_int (json_object_object_get (root, "runs_failed")), 1);
  ck_assert_int_eq (json_object_array_length (json_object_object_get (root, "runs")), 3);
  x = json_object_array_get_idx (json_object_object_get (root, "runs"), 2);
  ck_assert_str_eq (json_object_get_string (json_object_object_get (x, "error")),
                    "the workload failed (exit status 1)");
  ck_assert_int_eq (json_object_array_length (json_object_object_get (root, "findings")), 2);
  fd = json_object_array_get_idx (json_object_object_get (root, "findings"), 0);
  ck_assert_str_eq (json_object_get_string (json_object_object_get (fd, "path")), "etc/app.conf");
  ck_assert_str_eq (json_object_get_string (json_object_object_get (fd, "fault")), "program");
  ck_assert_int_eq (json_object_get_int (json_object_object_get (fd, "runs_seen")), 1);
  ck_assert_str_eq (json_object_to_json_string (json_object_object_get (fd, "points_per_run")),
                    "[ 2, 0, 0 ]");
  json_object_put (root);
  unlink (path);
  snprintf (path, sizeof path, "%s/report.html", dir);
  ck_assert_int_eq (pc_repeat_html (path, "sed-i.sh", &o, runs, 3), 0);
  unlink (path);
  ck_assert_int_eq (rmdir (dir), 0);
  pc_check_result_free (runs[0].res);
  pc_check_result_free (runs[1].res);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("compare");
  TCase *tc = tcase_create ("table");

  tcase_add_test (tc, test_defaults_fit);
  tcase_add_test (tc, test_runs_column);
  tcase_add_test (tc, test_repeat_reports);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
