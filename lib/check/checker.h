/* checker.h: checking every crash state of a log.
 *
 * The checker enumerates the crash states of a model (crash.h), computes
 * each state's image signature and checks each distinct image once, in
 * worker processes (one image each, brought from one state to the next by
 * applying only what differs), with judge.h.  A worker that dies takes only
 * its current state with it: another tries it again, and if that one dies
 * too the state is reported as not checked (PC_V_NOT_CHECKED), as is a
 * state whose programs time out or crash: a failure of powercut is never
 * a verdict on the filesystem.
 */
#ifndef POWERCUT_CHECKER_H
#define POWERCUT_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include "replay/crash.h"
#include "result/finding.h"
#include "check/fsck.h"
#include "check/judge.h"

struct pc_window;

struct pc_check_config {
  const char *log_path;
  const char *base_path;        /* needed when the log starts from a base image */
  struct pc_model model;
  const char *from_mark;        /* NULL: the log's first mark */
  unsigned jobs;                /* worker processes (>= 1) */
  unsigned shard, nshards;      /* this run checks shard of nshards (0 <= shard < nshards) */
  const char *keep_dir;         /* save failing states' images here, or NULL */
  const char *work_dir;         /* scratch directory, or NULL for a default */
  bool keep_trimmed;
  bool plain;                   /* the plain method (judge.h), for comparison */
  int timeout_s;                /* per program run on a state */
  const char *verify;           /* the application's checker (sh -c), or NULL */
  volatile sig_atomic_t *interrupted;   /* set by a signal handler: stop, clean up */
  /* Called now and then from the checking process. */
  void (*progress) (void *ctx, size_t done, size_t total);
  void *progress_ctx;
};

struct pc_point {
  char id[PC_ID_MAX];
  uint64_t record;              /* crash point (record number) */
  uint64_t time_ns;             /* its time, since the recording started */
  uint32_t ndrop;               /* reorder: in-flight records lost */
  bool torn;
  enum pc_verdict verdict;
  int64_t same_as;              /* index of the point whose identical image was checked, or -1 */
  int64_t fsck_as;              /* index of the point whose e2fsck answer it took, or -1 */
  char evidence[PC_EVIDENCE_MAX];
  struct pc_findings findings;  /* the oracle's (oracle.h), in path order */
};

struct pc_check_result {
  char *log_path;
  char *base_path;              /* --base given to the check, or NULL */
  bool keep_trimmed;
  uint64_t log_start_ns;        /* the log's identity: its start time ... */
  struct pc_model model;
  char from[PC_ID_MAX];         /* the mark checking started at ("" for record 0) */
  uint64_t from_record;
  uint64_t records;             /* records in the log */
  uint64_t device_size;
  bool log_torn;                /* the log did not end cleanly */
  unsigned shard, nshards;
  size_t npoints;
  struct pc_point *points;
  size_t unique;                /* distinct images checked */
  size_t manifests;             /* marks with a manifest (0: no oracle) */
  char *verify;                 /* the application's checker given, or NULL */
  char last_mark[PC_ID_MAX];    /* the last of them ("" if none) */
  size_t count[PC_V_COUNT];
  struct pc_judge_stats work;   /* what checking took (zero in a merged report) */
  struct pc_window *windows;    /* every version a mark recorded (window.h) */
  size_t nwindows;
  double seconds;
};

/* Runs the check.  Returns 0 with *ret filled, or -errno with a one-line
 * reason in why. */
int pc_check_run (const struct pc_check_config *cfg, struct pc_check_result **ret,
                  char *why, size_t whylen);

void pc_check_result_free (struct pc_check_result *res);

/* Recounts res->count from the points. */
void pc_check_result_recount (struct pc_check_result *res);

#endif
