/* recovered.h: a crash state written as a reboot leaves it (powercut
 * replay --recovered): the judge's own recovery (judge.h) kept in the
 * image, so that e2fsck -fn and a read-only mount show what a user would
 * find after the reboot.
 *
 * What a reboot does, and so what is done here, by filesystem:
 *
 *  - ext3/ext4 with its journal in an inode: the journal replayed, as the
 *    kernel's mount replays it, and the orphans released (inodes unlinked
 *    while open, truncates in progress), as the mount then does: by
 *    powercut's own replay (recover.h), or `e2fsck -E journal_only` where
 *    that does not (which releases the orphans in its superblock step).
 *    Nothing else is repaired: a state that e2fsck -fn finds corrupt
 *    stays corrupt.
 *  - a journal that needs recovery and may hold fast commits: only the
 *    kernel replays those as a mount would (e2fsck's replay differs), so
 *    the kernel does, as root (kmount.h: a loop device, a writable mount
 *    and its unmount, in a mount namespace of its own); not root, no image
 *    is written (-EPERM).
 *  - ext2/3/4 without a journal: the boot's `e2fsck -p` (preen) repairs
 *    what e2fsck -fn finds, as pc_judge_state judges it.
 *  - a filesystem whose journal is on another device, that device itself,
 *    or anything but ext2/3/4: refused (-ENOTSUP), no image written.
 */
#ifndef POWERCUT_RECOVERED_H
#define POWERCUT_RECOVERED_H

#include <stddef.h>

#include "replay/replay.h"
#include "util/err.h"

/* Each e2fsck run's time limit. */
#define PC_RECOVERED_TIMEOUT 600

/* pc_replay_write or, for a device set (devset.h), pc_replay_devset_write
 * (their cfg, whose finish must be NULL), with each image recovered as
 * above before it is given its name.  Returns 0, with note (notelen
 * bytes) "" or one line for the user: the image (or the devices' images,
 * "device NAME: ...; device NAME: ...") that e2fsck -fn finds errors in,
 * or cannot check, as a reboot leaves it; or -errno with the reason in
 * err, and no image written: -ENOTSUP (a state that powercut does not
 * recover: which, and why), -EIO (its journal cannot be replayed: a mount
 * would fail), -ETIME (an e2fsck did not finish), -ENOENT (e2fsck is
 * missing), or replay.h's. */
int pc_replay_recovered (const struct pc_replay_config *cfg, char *note, size_t notelen,
                         struct pc_err *err);

#endif
