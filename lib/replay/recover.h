/* recover.h: replaying an ext3/ext4 journal in process, as e2fsck does.
 *
 * pc_recover() does to an image what `e2fsck -y -E journal_only` does to
 * it (with E2FSCK_TIME set to now), for the journals and filesystems it
 * knows, and refuses the rest, so that the caller can let e2fsck do it:
 *
 *  - it finds the end of the log as JBD2's recovery does (descriptor,
 *    revoke and commit blocks in sequence; 32- and 64-bit block numbers;
 *    checksums v2 and v3, escaped blocks, wrapping) and writes every block
 *    of the committed transactions home, unless a revoke of the same or a
 *    later transaction covers it;
 *  - it marks the journal empty (s_start 0, the next sequence number) and
 *    clears the filesystem's needs_recovery flag, with e2fsck's
 *    last-write time and checksums.
 *
 * It refuses (-ENOTSUP, saying why) whatever would make e2fsck do more or
 * something else: a checksum that does not match, an asynchronous commit,
 * fast commits, an external or v1 journal, a superblock or group
 * descriptors e2fsck would repair, orphans to release, quotas, and so on.
 * Then nothing is changed.
 *
 * One difference is kept on purpose: e2fsck adds to the superblock's
 * s_kbytes_written what its block cache happened to write; powercut leaves
 * the count as the journal had it.
 */
#ifndef POWERCUT_RECOVER_H
#define POWERCUT_RECOVER_H

#include <stddef.h>
#include <stdint.h>

#include "replay/image.h"
#include "util/err.h"

struct pc_recover_cache;

/* A memory of the checksums already verified, for one image (with
 * PC_IMAGE_HASH) whose states are recovered one after another: a journal
 * block whose content is unchanged is not summed again. */
int pc_recover_cache_new (struct pc_recover_cache **ret);
void pc_recover_cache_free (struct pc_recover_cache *c);

/* Replays the journal of the filesystem in im, writing through im (so an
 * overlay open on it undoes the replay).  now is the time e2fsck would be
 * told it is.  cache may be NULL.  Returns 1 if the journal was replayed,
 * 0 if the filesystem needs no recovery, -ENOTSUP if e2fsck must do it
 * (err says what this code does not handle; the image is unchanged), or
 * -errno (-ENOMEM). */
int pc_recover (struct pc_image *im, int64_t now, struct pc_recover_cache *cache,
                struct pc_err *err);

#endif
