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

#include "format/acksel.h"
#include "replay/crash.h"
#include "result/finding.h"
#include "judge/fsck.h"
#include "judge/judge.h"
#include "result/result.h"
#include "util/err.h"

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
  bool no_start_state;          /* no state at the start (crash.h,
                                 * pc_states_add_start): a device set's
                                 * instants begin at the mark */
  bool plain;                   /* the plain method (judge.h), for comparison */
  int timeout_s;                /* per program run on a state */
  const char *verify;           /* the application's checker (sh -c), or NULL */
  const struct pc_acksel *acks; /* which ACK events of a traced program are its
                                 * acknowledgements (format/acksel.h; NULL:
                                 * every one) */
  unsigned oracle_flags;        /* PC_ORACLE_NO_EVENTS, _NO_MARKS (oracle.h) */
  enum pc_judge_mode judge;     /* who recovers and reads the states (judge.h):
                                 * the kernel needs root; not PC_JUDGE_GUEST
                                 * (run/gjudge.h runs this check in a guest) */
  bool recovery_crashes;        /* also a power cut during each state's
                                 * recovery by the kernel (recrash.h): the
                                 * recordings next to the log, in
                                 * LOG.recovery/; needs root */
  /* Called now and then from the checking process. */
  void (*progress) (void *ctx, size_t done, size_t total);
  void *progress_ctx;
};

/* Runs the check.  Returns 0 with *ret filled, or -errno with a one-line
 * reason in why; -ENODEV: the log's filesystem is one this machine's
 * kernel cannot mount, and libext2fs does not read (fs.h): a guest's
 * kernel can judge it (run/gjudge.h). */
int pc_check_run (const struct pc_check_config *cfg, struct pc_check_result **ret,
                  struct pc_err *why);

#endif
