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
#include "result/devresult.h"
#include "result/result.h"
#include "util/err.h"

/* Checks the device set in dir with cfg's settings (its log_path is not
 * used).  Returns 0 with *ret, or -errno with a one-line
 * reason in err. */
int pc_devcheck_run (const struct pc_check_config *cfg, const char *dir,
                     struct pc_devcheck_result **ret, struct pc_err *err);

#endif
