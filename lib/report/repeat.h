/* repeat.h: the reports of one configuration recorded and checked
 * several times (powercut run --repeat N).  One run is one sample of the
 * kernel's timing: whether writeback wrote a file's data before the
 * journal committed its rename changes from run to run, and so does what
 * a crash loses.  The findings of the runs are grouped across them by
 * path, verdict and whose fault (their crash points differ from run to
 * run), each with the runs it was seen in; and the configuration's
 * outcome, for run's comparison, is the runs' together.  Each run's own
 * reports are written as any configuration's (run/configs.h); this is
 * only the configuration's, over what its runs gave.  Nothing here
 * records or checks.
 */
#ifndef POWERCUT_REPEAT_H
#define POWERCUT_REPEAT_H

#include <stddef.h>
#include <stdio.h>

#include "report/compare.h"
#include "result/result.h"

/* A finding across the runs: a path with one verdict and one fault. */
struct pc_repeat_finding {
  const struct pc_finding *first;       /* the first of them, in the first run
                                         * that has it: its path and cause */
  int kind;                             /* its verdict */
  enum pc_fault fault;
  size_t runs_seen;                     /* the runs it was found in */
  size_t *points;                       /* [n]: at how many crash points of
                                         * each run (0: not found there) */
};

/* The findings that fail a point in the n runs (those ok, with a result:
 * runs[k].res), grouped by path, verdict and fault, and a failing point's
 * verdict where no path fails (fs-corrupt, app-invalid: a finding of the
 * whole state, its path "", its cause not known); the recovery's and the
 * filesystem's first, then the program's, then nobody's, each in path
 * and verdict order.  A malloc'd array of *ret_n, pointing into the runs' results,
 * for pc_repeat_findings_free.  Returns 0 or -ENOMEM. */
int pc_repeat_findings (const struct pc_outcome *runs, size_t n,
                        struct pc_repeat_finding **ret, size_t *ret_n);
void pc_repeat_findings_free (struct pc_repeat_finding *v, size_t nf);

/* Makes o (named: its label and directory set; its result NULL) the
 * outcome of its n runs together: ok if any run was; repeated n;
 * runs_failed, those with a failing point; the crash points, verdicts
 * and faults summed over the runs; the files, the distinct paths lost in
 * any; the windows of the run whose longest is longest; without a run
 * ok, the first run's error.  Returns the run whose result the
 * comparison's page shows (the first with a failing point, else the first
 * ok with a result), or n if none: once its reports are written, the
 * caller may move that result to o->res. */
size_t pc_repeat_outcome (struct pc_outcome *o, const struct pc_outcome *runs, size_t n);

/* The configuration's text report: its first line what was lost in how
 * many runs and whose fault; its second that title ran on o->label
 * "repeated N times"; then each run's first line (or why it could not
 * run), and each finding across the runs with "seen in K of N runs" and
 * its crash points in each, and its cause in the first run it was seen
 * in (its rule, call and fix); findings alike but for their path (the
 * same verdict and fault at as many points of the same runs, on the same
 * rule) in one line, their paths named as files.c names a group.  o is
 * pc_repeat_outcome's; runs[k] is run k + 1 (in o->dir/run-K). */
void pc_repeat_text (FILE *f, const char *title, const struct pc_outcome *o,
                     const struct pc_outcome *runs, size_t n);

/* The same as JSON (powercut-report(5): "repeated", "runs", "findings"
 * with "runs_seen"), to path.  Returns 0 or -errno. */
int pc_repeat_json (const char *path, const char *title, const struct pc_outcome *o,
                    const struct pc_outcome *runs, size_t n);

/* One page with every run's timeline, to path.  Returns 0 or -errno. */
int pc_repeat_html (const char *path, const char *title, const struct pc_outcome *o,
                    const struct pc_outcome *runs, size_t n);

#endif
