/* unit.h: what the Check unit tests share: running a suite. */
#ifndef POWERCUT_UNIT_H
#define POWERCUT_UNIT_H

#include <check.h>
#include <stdlib.h>

/* Runs suite s; returns the process's exit status. */
static inline int
pc_unit_run (Suite *s)
{
  SRunner *sr = srunner_create (s);
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
