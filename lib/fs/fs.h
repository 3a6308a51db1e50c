/* fs.h: what powercut knows of each filesystem it records and judges, one
 * entry each (fs.c): how it is made and mounted, how its own check reads
 * a crash state and what that check's exit status means, and who can
 * judge its states.  Adding a filesystem is one entry here and its
 * paragraph in powercut-run(1).
 *
 * ext2, ext3 and ext4 are judged by libext2fs and e2fsck (judge/judge.h)
 * or by the kernel; every other filesystem by the kernel alone
 * (judge/kjudge.h), which mounts a copy of the state, replaying its log as
 * a boot would, then runs the filesystem's own check on what it left.
 */
#ifndef POWERCUT_FS_H
#define POWERCUT_FS_H

#include <stdbool.h>
#include <stdint.h>

#include "result/verdict.h"

struct pc_fs {
  const char *name;             /* "ext4": --fs, --config, mount -t, mkfs.NAME,
                                 * and what blkid calls it */
  const char *module;           /* the kernel module that has it ("ext4" for
                                 * ext2 and ext3 too), for a guest to load */
  const char *mkfs_force;       /* mkfs.NAME's flag to write over what is there */
  const char *mkfs_default;     /* its options when none are given */
  uint64_t min_size;            /* the smallest device mkfs makes it on */
  uint64_t default_size;        /* run's device when --size is not given */
  bool commit;                  /* takes commit=SECONDS, its journal's timer */
  unsigned commit_s;            /* how often its journal or log is written
                                 * back by default, in seconds (run's
                                 * settle is one more) */
  const char *recovery;         /* what its mount after a crash does, for people:
                                 * "its journal replayed", "its log replayed" */
  bool libext2fs;               /* libext2fs reads it and e2fsck checks it */
  const char *mount_data;       /* options a mount of a copy of a state needs
                                 * beside others of the same filesystem
                                 * (xfs: "nouuid"), or "" */
  unsigned copies_since;        /* the first kernel (major << 8 | minor)
                                 * that mounts two copies of one filesystem
                                 * at once (btrfs: 6.7, temp_fsid), or 0:
                                 * every kernel */
  const char *const *check;     /* its own read-only check, the image's path
                                 * to be appended */
  const char *check_name;       /* it, for people: "xfs_repair -n" */
  const char *const *check_quick;       /* the same check quicker to start, or
                                         * NULL: xfs_repair with a small cache
                                         * (-m), not one sized to the host's
                                         * memory */
  const char *check_quick_short;        /* what the quick one says where its
                                         * cache is too small for the
                                         * filesystem: the check then runs as
                                         * check says */
  const char *const *check_noise;       /* lines of its output that say nothing
                                         * of the filesystem (xfs_repair on a
                                         * file: the host's geometry), left
                                         * out of the evidence; or NULL */
  /* What the check's exit status (0..255) says: PC_V_OK, PC_V_FS_CORRUPT,
   * or PC_V_NOT_CHECKED (the check itself failed). */
  enum pc_verdict (*check_verdict) (int status);
};

/* The entry named name (as --fs or blkid names it), or NULL. */
const struct pc_fs *pc_fs_find (const char *name);

/* The table's names as a list for messages ("ext2, ext3, ext4, xfs,
 * btrfs or f2fs"), or those libext2fs reads (ext: "ext2, ext3 or ext4").
 * The string is the library's (made on first use). */
const char *pc_fs_names (bool ext);

/* Can this machine's kernel mount fs: is it in /proc/filesystems, or a
 * module of the running kernel that a mount loads? */
bool pc_fs_kernel_has (const struct pc_fs *fs);

/* Can this machine's kernel mount copies of one fs (one base image, one
 * crash state) at once, as parallel jobs do?  False for btrfs before 6.7,
 * which takes a second device of one fsid for the first's: run them one
 * at a time. */
bool pc_fs_kernel_mounts_copies (const struct pc_fs *fs);

#endif
