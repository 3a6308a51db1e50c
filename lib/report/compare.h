/* compare.h: the comparison of powercut run's configurations: a table, its
 * JSON (the report.json of a run with several configurations,
 * powercut-run(1)) and one page with every configuration's timeline, over
 * what each configuration gave.  How a configuration is recorded and
 * checked is run's (run/configs.h); this is only its output.
 */
#ifndef POWERCUT_COMPARE_H
#define POWERCUT_COMPARE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result/result.h"

/* What one configuration gave. */
struct pc_outcome {
  char label[128];              /* "ext4 noauto_da_alloc vm.dirty_expire_centisecs=500" */
  char dir[PATH_MAX];           /* its directory: powercut.log and its reports */
  const char *fs;               /* "ext4" */
  const char *mount_opts;       /* "" for the defaults */
  bool ok;                      /* recorded and checked (pc_outcome_set); else */
  char error[PATH_MAX + 256];   /*   why not */
  size_t points, unique, files;
  size_t count[PC_V_COUNT];
  struct pc_window_summary win;
  struct pc_check_result *res;  /* the check's result, for the page (the
                                 * outcome's owner frees it); NULL for ... */
  bool set;                     /* ... a device set: its instants counted */
  size_t promises, program, exposures;  /* its failing points (instants) of each
                                        * fault (result.h) */
  size_t recovery;              /* ... and where two recoveries disagree */
  size_t repeated;              /* its runs (--repeat, report/repeat.h: the
                                 * numbers above are theirs together), or 0
                                 * for one run */
  size_t runs_failed;           /* ... of them with a failing point */
  size_t res_run;               /* ... and the run whose result res is (its
                                 * log in dir/run-K), from 1 */
};

/* o was recorded and checked, with the result res: takes its numbers and
 * keeps res, and o is ok. */
void pc_outcome_set (struct pc_outcome *o, struct pc_check_result *res);

/* The comparison table; with app (--verify), a column for app-invalid;
 * with configurations run several times (repeated), a column of how many
 * runs had a failing point, of how many (runs_failed/repeated). */
void pc_compare_table (FILE *f, const struct pc_outcome *v, size_t n, bool app);

/* The comparison as JSON (powercut-run(1)) to path, and as one page with
 * every configuration's timeline in out/report.html.  Return 0 or -errno. */
int pc_compare_json (const char *path, const char *workload, const struct pc_outcome *v,
                     size_t n);
int pc_compare_html (const char *out, const char *workload, const struct pc_outcome *v,
                     size_t n);

#endif
