/* recrash.h: a power cut during recovery.
 *
 * The kernel's mount of a crash state replays its journal or log, writing;
 * a second power cut during that replay leaves the disk part-way through
 * it.  pc_recrash_record records that mount: the state is the base of a
 * recorder (record/serve.h) that the kernel reaches through nbdfuse and a
 * loop device (record/attach.h's way, as powercut run's), so the replay's writes
 * and flushes are logged, in a log of their own whose base is the state.
 * Each crash point of that log (the flush model: each FLUSH and FUA write)
 * is a state of its own, named N/recovery:K after the state N and the
 * recovery log's record K (crash.h), its log LOG.recovery/N.pclog; what state N must hold, it must hold too.
 *
 * It needs root, FUSE, nbdfuse and loop devices, and the caller in a mount
 * namespace of its own (kmount.h): everything it starts (the recorder,
 * nbdfuse) ends with the process that called it.
 */
#ifndef POWERCUT_RECRASH_H
#define POWERCUT_RECRASH_H

#include <stdbool.h>

#include "fs/fs.h"
#include "util/err.h"

/* Records the kernel's mount and unmount of the filesystem fs in the
 * image file base (never changed) into the new log log_path (its base:
 * base), working in the empty directory dir (removed of what it made).
 * *ret_wrote: whether the mount wrote anything (a replay, an orphan
 * released, a superblock stamped).  Returns 0, or -errno with a reason in
 * err (the mount refused: -EIO). */
int pc_recrash_record (const char *base, const struct pc_fs *fs, const char *dir,
                       const char *log_path, int timeout_s, bool *ret_wrote,
                       struct pc_err *err);

#endif
