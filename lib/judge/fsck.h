/* fsck.h: what e2fsprogs says of one crash state's filesystem.
 *
 * libblkid identifies the filesystem; `e2fsck -y -E journal_only` replays
 * its journal where powercut does not (jbd2.h); `e2fsck -fn` checks the
 * whole filesystem read-only.  Every program runs under a time limit, with
 * a fixed "now" (E2FSCK_TIME), and its output is evidence.
 *
 * Each run can also say which blocks e2fsck read and wrote: e2fsprogs'
 * test_io manager logs every block request (TEST_IO_FLAGS) into a pipe.
 * An e2fsck is a function of the bytes it reads (with the same device
 * size, time and configuration): a second image that holds the same bytes
 * in every block the first run read gets the same answer, and that is how
 * the checker avoids running it again (powercut-check(1)).  A build of
 * e2fsprogs without test_io leaves io.known false: nothing is taken for
 * granted then.
 */
#ifndef POWERCUT_FSCK_H
#define POWERCUT_FSCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result/result.h"

/* e2fsck's exit statuses (e2fsck(8)), as flags. */
#define PC_E2FSCK_CORRECTED    1
#define PC_E2FSCK_REBOOT       2
#define PC_E2FSCK_UNCORRECTED  4
#define PC_E2FSCK_ERROR        8
#define PC_E2FSCK_USAGE        16    /* and above: not an answer about the filesystem */
#define PC_E2FSCK_NOT_FOUND    127   /* the shell's, when it cannot run */

struct pc_fsck_result {
  enum pc_verdict verdict;
  char evidence[PC_EVIDENCE_MAX];/* first lines of what went wrong */
  bool repaired;                /* pc_fsck_preen: it fixed something */
};

/* Ranges of PC_IMAGE_BLOCK blocks, ascending, not touching. */
struct pc_blocks {
  uint64_t *first, *count;
  size_t n, cap;
};

void pc_blocks_free (struct pc_blocks *b);
/* How many blocks in all. */
uint64_t pc_blocks_total (const struct pc_blocks *b);

/* What one e2fsck run read and wrote. */
struct pc_fsck_io {
  bool known;                   /* false: e2fsck could not tell */
  struct pc_blocks read, written;
};

void pc_fsck_io_free (struct pc_fsck_io *io);

/* The type of filesystem blkid finds at path ("ext4", ...) into type, ""
 * if none.  Returns 1 if it is ext2, ext3 or ext4, 0 if not, -errno if
 * path cannot be probed. */
int pc_ext_probe (const char *path, char *type, size_t len);

/* Does the ext2/3/4 superblock in sb (the 1024 bytes at offset 1024) say
 * its journal needs recovery? */
bool pc_ext_needs_recovery (const uint8_t *sb);

/* Does it have the fast_commit feature (a journal that may hold fast
 * commits, which only the kernel replays as a reboot would)? */
bool pc_ext_fast_commit (const uint8_t *sb);

/* Does it have a journal (has_journal)?  One without is checked at boot
 * by `e2fsck -p`, which repairs what a crash leaves. */
bool pc_ext_has_journal (const uint8_t *sb);

/* Replays the journal of the image at path with `e2fsck -y -E
 * journal_only`, the time being now.  res->verdict is PC_V_OK, or
 * PC_V_UNMOUNTABLE if recovery failed (why in res->evidence); io (if not
 * NULL) says what e2fsck wrote.  Returns 0, or -errno if e2fsck could not
 * be run (-ENOENT: not installed). */
int pc_fsck_recover (const char *path, int timeout_s, int64_t now,
                     struct pc_fsck_result *res, struct pc_fsck_io *io);

/* Checks the image at path with `e2fsck -fn`: res->verdict is PC_V_OK,
 * PC_V_FS_CORRUPT or PC_V_UNMOUNTABLE (e2fsck's operational error), with
 * its output as evidence; io (if not NULL) says what it read.  Returns 0,
 * or -errno if e2fsck could not be run. */
int pc_fsck_check (const char *path, int timeout_s, int64_t now,
                   struct pc_fsck_result *res, struct pc_fsck_io *io);

/* Repairs the image at path as a boot does, with `e2fsck -p` (preen:
 * what a crash leaves, such as counts and bitmaps, fixed without asking;
 * a filesystem its superblock calls clean is left alone).  res->verdict
 * is PC_V_OK if it ended with nothing left to fix (its output, what it
 * fixed, is the evidence), PC_V_FS_CORRUPT if it stopped for a person to
 * run e2fsck by hand, PC_V_UNMOUNTABLE on e2fsck's operational error, or
 * PC_V_NOT_CHECKED; res->repaired says whether it changed anything; io
 * (if not NULL) says what it wrote.  Returns 0, or -errno if e2fsck could
 * not be run. */
int pc_fsck_preen (const char *path, int timeout_s, int64_t now,
                   struct pc_fsck_result *res, struct pc_fsck_io *io);

/* Repairs the image at path as a person does where e2fsck -p stopped,
 * with `e2fsck -fy` (every question answered yes).  res->verdict is
 * PC_V_OK if it ended with the filesystem repaired (its output is the
 * evidence), PC_V_FS_CORRUPT if errors are left, PC_V_UNMOUNTABLE on
 * e2fsck's operational error, or PC_V_NOT_CHECKED; io (if not NULL) says
 * what it wrote.  Returns 0, or -errno if e2fsck could not be run. */
int pc_fsck_repair (const char *path, int timeout_s, int64_t now,
                    struct pc_fsck_result *res, struct pc_fsck_io *io);

/* Parses a test_io log (exposed for tests).  Returns 0, or -EPROTO if a
 * line that moves data cannot be read (then io->known is false). */
int pc_fsck_parse_io_log (const char *log, struct pc_fsck_io *io);

#endif
