/* configs.h: the configurations of powercut run: what each is (a
 * filesystem, its mount options, writeback knobs), how it is named, and
 * recording and checking one: recorded (run.h) in a directory of its own,
 * its crash points checked (checker.h) and its reports written there.
 * What each gave is a pc_outcome, which report/compare.h compares.
 * Nothing here prints: progress and problems go to the caller's callbacks.
 */
#ifndef POWERCUT_CONFIGS_H
#define POWERCUT_CONFIGS_H

#include <stddef.h>

#include "check/checker.h"
#include "report/compare.h"
#include "run/run.h"
#include "run/sysctl.h"
#include "util/err.h"

#define PC_MAX_CONFIGS 32
#define PC_MAX_SYSCTLS 8

/* One configuration. */
struct pc_config {
  const char *fs;
  const char *mount_opts;       /* "" for the defaults, or opts_buf */
  char opts_buf[256];           /* mount_opts, from --config */
  char mkfs_opts[256];          /* its mkfs options, "" for the run's */
  struct pc_sysctl sysctls[PC_MAX_SYSCTLS];
  size_t nsysctls;
};

/* Parses a --config, "FS [mkfs='MKFS-OPTS'] [MOUNT-OPTS]
 * [vm.dirty_NAME=VALUE]...", into c (cleared first): the words after FS
 * in any order, MKFS-OPTS the filesystem's own options, blanks and all
 * ("ext4 mkfs='-b 4096 -O fast_commit' noauto_da_alloc").  Returns 0, or
 * -EINVAL with a reason in err. */
int pc_config_parse (const char *spec, struct pc_config *c, struct pc_err *err);

/* Copies a configuration (mount_opts follows into the copy's opts_buf). */
void pc_config_copy (struct pc_config *dst, const struct pc_config *src);

/* Names configuration idx of n in o, which is cleared first: its label
 * ("ext4 noauto_da_alloc vm.dirty_expire_centisecs=500") and its
 * directory: out itself when n == 1, else out/IDX-LABEL with blanks,
 * slashes, commas and = as '-'; o->fs and o->mount_opts point into c. */
void pc_config_name (const struct pc_config *c, size_t idx, size_t n, const char *out,
                     struct pc_outcome *o);

/* What every configuration is recorded and checked with. */
struct pc_config_job {
  struct pc_run_config run;     /* its filesystem, knobs, paths and status_ctx
                                 * (the configuration's label) are set for each */
  struct pc_check_config check; /* its log_path is set for each; nshards 0
                                 * is 1, timeout_s 0 is 60 */
  const char *title;            /* the workload's name, for the pages */
  size_t run_k, run_n;          /* run K of N of the configuration
                                 * (--repeat, run/repeated.h): its text
                                 * report says so; 0 and 0 for one run */
  void (*problem) (void *ctx, const char *line);   /* what went wrong, one line */
  void *ctx;
};

/* Records configuration k in o->dir (named by pc_config_name), checks it
 * and writes its reports, report.txt, report.json and report.html (its
 * knobs get their old values, sysctl.h).  With job->check.judge
 * PC_JUDGE_GUEST, or PC_JUDGE_AUTO for a filesystem this machine's kernel
 * cannot mount (fs.h), the check runs in a guest (gjudge.h) booting
 * job->run.kernel, its console in o->dir/judge-console.txt.  With several devices
 * (job->run.devices), the set is recorded into o->dir/set (its old logs
 * removed first), checked at every instant (check/devcheck.h), and only
 * report.txt and report.json are written; o->res is NULL, o->set true.
 * Returns 0; 1 if it finished but not all of it (states not checked, a
 * report not written: said through job->problem); or -errno with
 * o->error set (and said).  o->res is the caller's to free. */
int pc_config_run (const struct pc_config_job *job, struct pc_config *k,
                   struct pc_outcome *o);

/* Removes the reports an earlier run left in dir (report.txt, .json,
 * .html), so that a run that fails or is interrupted leaves none that
 * reads as its own. */
void pc_config_forget_reports (const char *dir);

#endif
