/* check_compare.c: unit tests of run's comparison table (report/compare):
 * the five default configurations of replace-rename fit 100 columns, the
 * verdicts no configuration has named below the first table, and whose
 * fault and the windows in the second. */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
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

int
main (void)
{
  Suite *s = suite_create ("compare");
  TCase *tc = tcase_create ("table");

  tcase_add_test (tc, test_defaults_fit);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
