/* devresult.h: what the check of a device set found (check/devcheck.h
 * checks it; report/ presents it): each device's own result, and the
 * instants one power cut may take them all at, with their verdicts. */
#ifndef POWERCUT_DEVRESULT_H
#define POWERCUT_DEVRESULT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/crash.h"
#include "result/result.h"

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

/* Frees res and all it holds.  Accepts NULL. */
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
