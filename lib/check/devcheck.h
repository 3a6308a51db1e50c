/* devcheck.h: checking a device set (replay/devset.h): the filesystem on
 * each device, at every instant one power cut may take them all.
 *
 * Each device's log is checked alone (checker.h) with the write model: a
 * state after each of its records, so that whatever number of its records
 * an instant leaves it, that state is checked once, however many instants
 * share it.  The instants are the flush model's across the set: right
 * after each FLUSH and each FUA write of any device, in time order; at
 * each, every device holds what it had logged by then.  An instant's
 * verdict is the worst of its devices' states; a device is not judged at
 * an instant before its own check starts (its log's first mark, as for
 * one log).  With cfg->from_mark, the devices that have that mark start
 * there, and so do the instants (from its earliest instant).  A device
 * holds a filesystem of its own, or the external journal of one on
 * another device of the set: that filesystem is judged at each instant
 * (from its first mark on) with the journal of that same instant, by
 * e2fsck on image files (recovery with -j, then -fn must find it clean),
 * and the journal's device is not judged alone.
 *
 * cfg->model says which instants: flush (above), write (right after every
 * record of any device that tells what a disk holds), or reorder:K or
 * torn:K: the flush model's, and besides, for each device that holds a
 * filesystem of its own, each of its states of that model that is not a
 * prefix of its log (writes of its open epoch lost, or torn), with every
 * other device as it had logged by then.  Such an instant is named after
 * that state ("a:120/drop:117,119").
 *
 * Sharded (cfg->nshards > 1), a shard's result has every instant of the
 * flush model (or the write model) and its own finer ones, with the
 * states of other shards unknown (point -2); pc_devcheck_merge (report
 * outputs.h) joins the shards' JSON reports into the unsharded one.
 *
 * With cfg->verify, the application's checker runs at every instant where
 * every device is judged and its filesystem sound (neither corrupt nor
 * unmountable, as for one log), once per distinct set of states, with each
 * device's tree, its journal recovered, in a directory of its own:
 * POWERCUT_ROOT_<NAME>, and POWERCUT_MARKS_<NAME> and
 * POWERCUT_LAST_MARK_<NAME> the marks that device had logged by then
 * (NAME with every character but letters and digits made "_"), and
 * POWERCUT_INSTANT the instant's id; its failing is a broken promise.  A
 * filesystem with its journal elsewhere gives the tree e2fsck recovers
 * with that instant's journal (where the pair is judged clean); the
 * journal's device gives none.
 */
#ifndef POWERCUT_DEVCHECK_H
#define POWERCUT_DEVCHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check/checker.h"
#include "result/result.h"
#include "util/err.h"

struct pc_instant {
  size_t dev;                   /* the device whose record it follows */
  uint64_t record;              /* that record */
  int64_t fine;                 /* reorder or torn: dev's state, an index in
                                 * fine[dev]'s points (not point[dev]'s); else -1 */
  uint64_t time_ns;             /* since the set's earliest start */
  int64_t *point;               /* per device: its state's index in its
                                 * result's points, -1: not judged, -2: a
                                 * state another shard checks */
  uint64_t *state;              /* per device: that state's record (its id
                                 * in the write model), where point != -1 */
  bool owned;                   /* this shard judges its journal pairs and
                                 * runs --verify here (always, unsharded) */
  enum pc_verdict verdict;      /* the worst of theirs (and of app) */
  bool promise;                 /* failing, and one of them broke a promise */
  bool program;                 /* ... or (not promise) one is the program's
                                 * fault (pc_point_fault) */
  enum pc_verdict *pair;        /* per device: a filesystem judged with its
                                 * journal's device (see above), else PC_V_COUNT */
  char pair_note[1024];         /* what e2fsck found, for the first failing one */
  enum pc_verdict app;          /* with --verify: ok, app-invalid or not-checked;
                                 * PC_V_COUNT: not run (a device not judged) */
  char evidence[PC_EVIDENCE_MAX]; /* what the checker said */
};

struct pc_devcheck_result {
  char *dir;
  size_t ndev;
  char **names;                 /* sorted */
  int64_t *journal_of;          /* per device: the device its journal is on, or -1 */
  bool *is_journal;             /* per device: it is another's journal */
  struct pc_check_result **dev; /* each device checked alone */
  struct pc_check_result **fine; /* reorder or torn: each device checked
                                 * with that model (NULL: not) */
  struct pc_model model;
  unsigned shard, nshards;      /* cfg's: each device's states are split
                                 * among the shards as for one log; the
                                 * flush model's instants are every shard's
                                 * and the n-th is owned by shard n % nshards;
                                 * a finer state's instant is its shard's */
  size_t ninst;
  struct pc_instant *inst;      /* judged instants, in time order */
  size_t count[PC_V_COUNT];
  size_t promises, program_promises, exposures;  /* failing instants of each
                                                * fault (result.h) */
};

/* Checks the device set in dir with cfg's settings (its log_path is not
 * used).  Returns 0 with *ret, or -errno with a one-line
 * reason in err. */
int pc_devcheck_run (const struct pc_check_config *cfg, const char *dir,
                     struct pc_devcheck_result **ret, struct pc_err *err);
void pc_devcheck_free (struct pc_devcheck_result *res);

/* Device j's state at instant in, or NULL where it is not judged alone. */
static inline const struct pc_point *
pc_instant_point (const struct pc_devcheck_result *res, const struct pc_instant *in, size_t j)
{
  if (j == in->dev && in->fine >= 0)
    return &res->fine[j]->points[in->fine];
  return in->point[j] < 0 ? NULL : &res->dev[j]->points[in->point[j]];
}

/* The instant's id, "NAME:STATE", as powercut replay DIR --at takes it. */
static inline void
pc_instant_id (const struct pc_devcheck_result *res, const struct pc_instant *in, char *buf,
               size_t len)
{
  if (in->fine >= 0)
    snprintf (buf, len, "%s:%s", res->names[in->dev], res->fine[in->dev]->points[in->fine].id);
  else
    snprintf (buf, len, "%s:%" PRIu64, res->names[in->dev], in->record);
}

#endif
