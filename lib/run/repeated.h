/* repeated.h: one configuration of powercut run recorded and checked
 * several times (--repeat N).  One run is one sample of the kernel's
 * timing: whether writeback wrote a file's data before the journal
 * committed its rename, and so what a crash loses, changes from run to
 * run.  Each run is a configuration's run (configs.h) in a folder of
 * its own; the configuration's reports are over them all
 * (report/repeat.h).  Nothing here prints: progress and problems go to
 * the job's callbacks.
 */
#ifndef POWERCUT_REPEATED_H
#define POWERCUT_REPEATED_H

#include <stddef.h>

#include "report/compare.h"
#include "run/configs.h"

#define PC_MAX_REPEAT 100

/* Records and checks configuration k n times (2 to PC_MAX_REPEAT), run
 * R in o->dir/run-R (named: its label is o's with ", run R of N"), each
 * with its own reports there, which say which run of n they are; then
 * writes the configuration's report.txt, report.json and report.html in
 * o->dir (report/repeat.h) and makes o the outcome of its runs together
 * (pc_repeat_outcome), o->res the result of the run its page shows (the
 * caller frees it).  At pc_interrupted() no further run is started.
 * Returns 0; 1 if some run failed or did not finish, or a report could
 * not be written (each said through job->problem); or -errno if no run
 * could be recorded and checked (o->error says why). */
int pc_config_run_repeated (const struct pc_config_job *job, struct pc_config *k,
                            struct pc_outcome *o, size_t n);

#endif
