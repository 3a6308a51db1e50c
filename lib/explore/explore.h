/* explore.h: powercut explore: many small generated workloads (gen.h),
 * recorded and checked in batches on each configuration, a verdict for
 * each, every failure shrunk to the smallest workload that still fails the
 * same way and written as a script that reproduces it.
 *
 * A batch is one recording (run.h, traced) of a shell script that runs
 * its workloads one after another, each in a directory of its own (wN,
 * N the workload's number in the exploration) made and synced first,
 * between the marks "wN" and "wN-end"; one check of that log; and for each
 * workload the worst verdict of the crash points between its marks and
 * of every finding under its directory, whether one broke a promise, and
 * whether the filesystem refused one of its operations (then it is
 * "unsupported", never "ok").  Batches run in child processes, up to
 * jobs at once, each on a CPU of its own.
 *
 * In the output directory:
 *   results.jsonl      a line per workload and configuration, appended as
 *                      each batch ends (what --resume reads)
 *   explore.json       every workload, its operations, its verdict on each
 *                      configuration, and the failures found
 *   summary.txt        the table, and the failures by operation and verdict
 *   batches/C-B/       a batch's script, log (kept when it failed) and reports
 *   failures/N.sh      a failure, shrunk, as a script for powercut run; N.txt
 *                      what it shows and the replay command of its first
 *                      failing state
 * Nothing here prints: progress and problems go to the caller's callbacks.
 */
#ifndef POWERCUT_EXPLORE_H
#define POWERCUT_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explore/gen.h"
#include "replay/crash.h"
#include "run/configs.h"
#include "util/err.h"

/* A workload's outcome on a configuration: a verdict (verdict.h), or one
 * of these. */
enum {
  PC_XV_UNSUPPORTED = PC_V_COUNT,       /* the filesystem refused an operation */
  PC_XV_ERROR,                          /* its batch could not be recorded */
  PC_XV_COUNT
};
const char *pc_explore_outcome_name (int v);

struct pc_explore_progress {
  size_t done, total;           /* workload runs (workloads x configurations); total 0:
                                 * not known (--random) */
  size_t failing, promises;     /* ... failing, and breaking a promise */
  double seconds;
  const char *phase;            /* "exploring", "shrinking" */
};

struct pc_explore_config {
  unsigned seq;                 /* every workload of this many operations, or */
  bool random;                  /* ... sampled from seed for budget_s seconds */
  uint64_t seed;
  double budget_s;
  const char *corpus;           /* ... or the workloads of CORPUS/explore.json,
                                 * compared with their verdicts there, or */
  const char *const *merge;     /* ... the results of these explorations (the
                                 * shards of one) joined, nothing run */
  size_t nmerge;
  size_t limit;                 /* at most this many workloads (0: all) */
  const char *only;             /* only workloads whose text has this (NULL: all) */
  const char *skip;             /* no workload whose text has this (NULL: none) */
  struct pc_config configs[PC_MAX_CONFIGS];
  size_t nconfigs;
  struct pc_model model;
  enum pc_judge_mode judge;     /* who judges the states (judge/judge.h) */
  unsigned jobs;                /* batches at once (>= 1) */
  unsigned shard, nshards;      /* this exploration's share of the workloads */
  unsigned batch;               /* workloads per batch (0: 25) */
  bool shared;                  /* a batch's workloads share one recording
                                 * and one filesystem, one after another;
                                 * else each has its own, fresh from the
                                 * same base image */
  bool resume;                  /* keep what results.jsonl has */
  bool no_shrink;
  bool fail_on_exposure;        /* exposure fails too (default: only broken promises) */
  const char *out;
  const char *self;             /* this program */
  const char *sysctl_dir;       /* the knobs' record (sysctl.h), or NULL */
  void (*progress) (void *ctx, const struct pc_explore_progress *p);
  void (*problem) (void *ctx, const char *line);
  void *ctx;
};

/* powercut explore --attach vm: the whole exploration in a qemu guest
 * (guest/vm.h, script mode) booting kernel, each workload recorded through
 * the guest kernel's own NBD driver and judged there (by its kernel, for
 * what libext2fs does not read), so that many workloads run per boot:
 * the guest has loop, the filesystems' modules, mkfs and checks,
 * xfs_io and setfattr; there `powercut explore ARGS --out OUT` runs in a
 * directory of the same path as out here (the paths its scripts and
 * replay commands name are out's), stopped as an interruption is two
 * minutes before the guest's time limit; what it left comes back through
 * the guest's output port as a tar archive, each of its entries put in
 * out over the one of the same name (the failures' scripts then
 * reproduce them in a guest of kernel), and its summary is printed on
 * report.
 * With resume, out is carried into the guest first and the exploration
 * goes on from its results.jsonl.  out is locked meanwhile.  Needs no
 * root here. */
struct pc_explore_guest {
  const char *self;             /* this program, copied into the guest */
  const char *kernel;           /* vmlinuz; NULL: the newest /boot/vmlinuz-* */
  const char *modules;          /* its modules; NULL: /lib/modules/VERSION */
  const char *out;              /* the exploration's directory here */
  bool resume;
  char *const *args;            /* explore's arguments in the guest (not --out,
                                 * --resume, --quiet), NULL-terminated */
  char *const *copies;          /* host files they name, copied into the guest's
                                 * /host (a corpus), or NULL */
  char *const *filesystems;     /* the configurations' filesystems (fs.h names) */
  size_t nconfigs;              /* how many configurations (for its memory) */
  unsigned memory_mb;           /* 0: 1 GiB and 384 MiB a configuration, at most
                                 * half of this machine's */
  int timeout_s;                /* the guest's time limit; 0: a day */
  void (*status) (void *ctx, const char *line);   /* what it does (or NULL) */
  void (*problem) (void *ctx, const char *line);  /* what the exploration said */
  void *ctx;
};

/* Returns the exploration's status, as pc_explore_run (2 also when the
 * guest stopped it at its time limit), or -errno with a reason in err: a
 * guest that failed or brought nothing back (its console kept and named),
 * -EINTR interrupted here (what the guest explored is lost). */
int pc_explore_guest (const struct pc_explore_guest *g, FILE *report, struct pc_err *err);

/* Runs the exploration: needs root.  Writes the summary table to report
 * (NULL: none).  Returns 0 (no failure), 1 (failures: broken promises, or
 * any with fail_on_exposure; with a corpus, verdicts that changed), 2
 * (some workload could not be run or checked), or -errno with a reason in
 * err (-EINTR: interrupted; --resume goes on from there). */
int pc_explore_run (const struct pc_explore_config *cfg, FILE *report, struct pc_err *err);

#endif
