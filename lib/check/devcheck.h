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
 * one log).  Each device holds a filesystem of its own: an ext4 whose
 * journal is on another device of the set is not recovered with it here.
 */
#ifndef POWERCUT_DEVCHECK_H
#define POWERCUT_DEVCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/checker.h"
#include "result/result.h"
#include "util/err.h"

struct pc_instant {
  size_t dev;                   /* the device whose record it follows */
  uint64_t record;              /* that record */
  uint64_t time_ns;             /* since the set's earliest start */
  int64_t *point;               /* per device: its state's index in its
                                 * result's points, -1: not judged */
  enum pc_verdict verdict;      /* the worst of theirs */
  bool promise;                 /* failing, and one of them broke a promise */
};

struct pc_devcheck_result {
  char *dir;
  size_t ndev;
  char **names;                 /* sorted */
  struct pc_check_result **dev; /* each device checked alone */
  size_t ninst;
  struct pc_instant *inst;      /* judged instants, in time order */
  size_t count[PC_V_COUNT];
  size_t promises, exposures;   /* failing instants of each kind */
};

/* Checks the device set in dir with cfg's settings (its log_path, model,
 * shards and verify are not used).  Returns 0 with *ret, or -errno with a
 * one-line reason in err. */
int pc_devcheck_run (const struct pc_check_config *cfg, const char *dir,
                     struct pc_devcheck_result **ret, struct pc_err *err);
void pc_devcheck_free (struct pc_devcheck_result *res);

#endif
