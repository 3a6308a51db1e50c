/* plan.h: powercut run from its options to its exit status.
 *
 * The configurations the command line asks for (pc_run_plan_make): each
 * --config, in order, then every --fs with every --mount-opts; with none of
 * them and no workload or command named, the five defaults (ext4 with
 * default options, noauto_da_alloc, data=writeback and data=journal, and
 * ext3); at most PC_MAX_CONFIGS.  Then pc_run_all: the output directory
 * is locked (OUT/.lock: two runs at once must not write over each other),
 * the writeback knobs a run that did not finish still held go back
 * (sysctl.h), each configuration is recorded, checked and reported in
 * turn (configs.h), and with several their comparison is written
 * (OUT/report.txt, report.json, report.html).  Nothing here prints but
 * to the FILE the caller gives for the report; progress, status and
 * problems go to the caller's callbacks.
 */
#ifndef POWERCUT_PLAN_H
#define POWERCUT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/compare.h"
#include "report/report.h"
#include "run/configs.h"
#include "util/err.h"

/* What the command line says about the configurations. */
struct pc_run_options {
  const char *fs[PC_MAX_CONFIGS];               /* --fs, in order */
  size_t nfs;
  const char *mount_opts[PC_MAX_CONFIGS];       /* --mount-opts, in order */
  size_t nmount_opts;
  struct pc_config configs[PC_MAX_CONFIGS];     /* --config, parsed */
  size_t nconfigs;
  bool named;                   /* a workload or a command was named: no
                                 * default configurations */
  const char *out;              /* the output directory */
  unsigned repeat;              /* --repeat: each configuration's runs (0 is
                                 * 1; at most PC_MAX_REPEAT, run/repeated.h) */
};

/* Add a --fs (a name of fs.h's table), a --mount-opts (commas, no blanks) or a
 * --config (configs.h) to o.  Return 0, or -EINVAL with a reason in err:
 * "--fs FS: not ext2, ext3, ext4, xfs, btrfs or f2fs", "at most 32 configurations", ... */
int pc_run_opt_fs (struct pc_run_options *o, const char *fs, struct pc_err *err);
int pc_run_opt_mount_opts (struct pc_run_options *o, const char *opts, struct pc_err *err);
int pc_run_opt_config (struct pc_run_options *o, const char *spec, struct pc_err *err);

/* The configurations of a run, and what each gave. */
struct pc_run_plan {
  size_t n;
  struct pc_config cf[PC_MAX_CONFIGS];
  struct pc_outcome got[PC_MAX_CONFIGS];        /* named (pc_config_name) */
  const char *out;
  unsigned repeat;              /* each configuration's runs (1: one) */
};

/* The configurations o asks for, named, in a new plan.  Returns 0, or
 * -EINVAL ("at most 32 configurations") or -ENOMEM with a reason in err. */
int pc_run_plan_make (const struct pc_run_options *o, struct pc_run_plan **ret,
                      struct pc_err *err);
/* Frees the plan and the results it holds.  Accepts NULL. */
void pc_run_plan_free (struct pc_run_plan *plan);

/* Takes the lock of the output directory out (out/.lock, made if
 * missing; an flock, held until pc_run_unlock or the process ends).
 * Returns its file descriptor, or -errno with a reason in err: "OUT:
 * another run is writing there (choose another --out)". */
int pc_run_lock (const char *out, struct pc_err *err);
void pc_run_unlock (int fd);

/* Writes the comparison of plan's outcomes: on f a heading, the table
 * and where the reports are; in plan->out report.txt (the heading and the
 * table), report.json and report.html.  title names the workload; app:
 * --verify was given.  Returns 0, or -EIO with "OUT: cannot write the
 * comparison" in err (report.txt is written if it can be, silently). */
int pc_run_write_comparison (FILE *f, const struct pc_run_plan *plan, const char *title,
                             bool app, struct pc_err *err);

/* How a run goes. */
struct pc_run_job {
  struct pc_config_job each;    /* what every configuration records and is
                                 * checked with; each.title NULL: the
                                 * workload's name or the command's;
                                 * each.run.self NULL: this program */
  const char *run_dir;          /* the knobs' record in RUN_DIR/sysctl
                                 * ($POWERCUT_RUN_DIR, for tests), or NULL
                                 * for PC_SYSCTL_DIR */
  FILE *report;                 /* the text report of a single
                                 * configuration, or the comparison */
  enum pc_fail_on fail_on;      /* what makes a configuration fail (report.h) */
  /* The check's progress, with the seconds since its configuration began
   * (may be NULL: then each.check.progress, if any, is called). */
  void (*progress) (void *ctx, size_t done, size_t total, double secs);
  void *progress_ctx;
};

/* Runs the configurations o asks for (pc_run_plan_make): needs root
 * unless the guest attaches (PC_ATTACH_VM); makes and locks o->out, puts
 * back the knobs of runs that did not finish (said through each.problem),
 * records, checks and reports each configuration, o->repeat times with
 * --repeat (run/repeated.h: each run in the configuration's directory's
 * run-K, its reports over them all; with one configuration, its report
 * on job->report), and with several writes their comparison.  Stops at
 * pc_interrupted().  Returns 0 (no problem found), 1 (problems found, in
 * any run), 2 (a configuration, a run of it or a report failed: said
 * through each.problem), or -errno with a reason in err (-EINTR:
 * interrupted, what it started torn down). */
int pc_run_all (const struct pc_run_job *job, const struct pc_run_options *o,
                struct pc_err *err);

#endif
