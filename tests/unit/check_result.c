/* check_result.c: unit tests of lib/result/result: the counts of a check's
 * result (what breaks a promise and what does not) and its durability
 * windows, from states judged at their moments. */
#include <config.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "result/finding.h"
#include "result/result.h"
#include "unit.h"

#define S(x) ((uint64_t) ((x) * 1e9))

/* A point with one finding of kind (promise or not), or none (kind 0). */
static void
point (struct pc_point *p, enum pc_verdict v, int kind, bool promise)
{
  memset (p, 0, sizeof *p);
  p->verdict = v;
  p->same_as = p->fsck_as = -1;
  if (kind) {
    struct pc_cause c = { .known = true, .promise = promise, .durable_ns = -1 };
    ck_assert_int_eq (pc_findings_add (&p->findings, kind, "f", "found", "allowed"), 0);
    pc_findings_set_cause (&p->findings, &c);
  }
}

START_TEST (test_counts)
{
  struct pc_check_result res = { 0 };
  struct pc_point pts[10];

  point (&pts[0], PC_V_OK, 0, false);
  point (&pts[1], PC_V_MISMATCH, PC_V_MISMATCH, true);           /* durable data lost */
  point (&pts[2], PC_V_MISMATCH, PC_V_MISMATCH, false);          /* never durable */
  point (&pts[3], PC_V_FS_CORRUPT, 0, false);                    /* the filesystem */
  point (&pts[4], PC_V_APP_INVALID, 0, false);                   /* nothing acknowledged lost */
  point (&pts[5], PC_V_APP_INVALID, PC_F_OLDER, false);          /* acknowledged, never durable */
  point (&pts[6], PC_V_NOT_CHECKED, 0, false);
  point (&pts[7], PC_V_APP_INVALID, PC_F_OLDER, true);           /* acknowledged and durable */
  point (&pts[8], PC_V_ACK_LOST, PC_V_ACK_LOST, false);          /* no checker */
  point (&pts[9], PC_V_APP_INVALID, PC_F_OLDER, false);          /* given back, not needed */
  pts[5].findings.v[0].cause.program = true;                     /* needed, or untested */
  res.points = pts;
  res.npoints = 10;
  pc_check_result_recount (&res);
  ck_assert_uint_eq (res.count[PC_V_OK], 1);
  ck_assert_uint_eq (res.count[PC_V_APP_INVALID], 4);
  ck_assert_uint_eq (res.count[PC_V_NOT_CHECKED], 1);
  ck_assert (pc_point_broke_promise (&pts[1]));
  ck_assert (!pc_point_broke_promise (&pts[2]));
  ck_assert (pc_point_broke_promise (&pts[3]));
  ck_assert (!pc_point_broke_promise (&pts[4]));
  ck_assert (!pc_point_broke_promise (&pts[5]));
  ck_assert (!pc_point_broke_promise (&pts[6]));
  ck_assert (pc_point_broke_promise (&pts[7]));
  ck_assert (!pc_point_broke_promise (&pts[8]));
  ck_assert_int_eq (pc_point_fault (&pts[5]), PC_FAULT_PROGRAM);
  ck_assert_int_eq (pc_point_fault (&pts[8]), PC_FAULT_PROGRAM);
  ck_assert_uint_eq (res.promises, 3);
  ck_assert_uint_eq (res.program_promises, 2);
  ck_assert_uint_eq (res.acknowledged_lost, 3);
  ck_assert_int_eq (pc_point_fault (&pts[9]), PC_FAULT_NONE);
  ck_assert_uint_eq (res.exposures, 3);
  for (size_t i = 0; i < 10; i++)
    pc_findings_clear (&pts[i].findings);
}
END_TEST

/* A version written at 2 s, acknowledged at 3 s; states at 1, 4 and 6 s,
 * each on the disk until the next (the last until 7 s). */
START_TEST (test_windows)
{
  struct pc_check_result res = { 0 };
  struct pc_point pts[3];
  struct pc_window w = { 0 };

  for (size_t i = 0; i < 3; i++) {
    point (&pts[i], PC_V_OK, 0, false);
    pts[i].record = 10 * (i + 1);
    pts[i].time_ns = S (i == 0 ? 1 : i == 1 ? 4 : 6);
  }
  pts[0].moment = 15; pts[0].moment_ns = S (4);
  pts[1].moment = 25; pts[1].moment_ns = S (6);
  pts[2].moment = 35; pts[2].moment_ns = S (7);
  w.path = (char *) "f";
  strcpy (w.mark, "v");
  w.mark_record = 12;           /* after the first state's point, by its moment */
  w.written_ns = S (2);
  strcpy (w.ack, "v");
  w.ack_record = 13;
  w.ack_ns = S (3);
  res.points = pts;
  res.npoints = 3;
  res.windows = &w;
  res.nwindows = 1;
  /* lost by the first state: on the disk until 4 s, after the version's
   * mark and its acknowledgement */
  w.lost_until = 0;
  pc_windows_compute (&res);
  ck_assert_int_eq (w.durable_ns, (int64_t) S (4));
  ck_assert_uint_eq (w.window_ns, S (2));
  ck_assert_uint_eq (w.exposed_ns, S (2));
  ck_assert_uint_eq (w.ack_exposed_ns, S (1));
  /* lost by the second too: until 6 s */
  w.lost_until = 1;
  pc_windows_compute (&res);
  ck_assert_int_eq (w.durable_ns, (int64_t) S (6));
  ck_assert_uint_eq (w.exposed_ns, S (4));
  ck_assert_uint_eq (w.ack_exposed_ns, S (3));
  /* lost by the last: not durable by the end */
  w.lost_until = 2;
  pc_windows_compute (&res);
  ck_assert_int_eq (w.durable_ns, -1);
  /* a state whose moment ends before the mark loses nothing it owed */
  pts[0].moment = 11;
  w.lost_until = 0;
  pc_windows_compute (&res);
  ck_assert_uint_eq (w.exposed_ns, 0);
  ck_assert_uint_eq (w.ack_exposed_ns, 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("result");
  TCase *tc = tcase_create ("result");

  tcase_add_test (tc, test_counts);
  tcase_add_test (tc, test_windows);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
