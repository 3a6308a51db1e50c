/* kjudge.h: a crash state judged by this machine's kernel, as a reboot
 * finds it.
 *
 * After a power cut it is the kernel, not e2fsck, that replays a journal
 * when the filesystem is mounted (ext4's fast commits only the kernel
 * replays as a reboot would).  The kernel judge gives the state's bytes
 * to the kernel: a private sparse copy of the image (never the recording,
 * the image, its overlays or its mirror file, which the kernel's writes
 * must not reach) on a loop device, mounted as a boot mounts a filesystem
 * from fstab (writable: the mount replays the journal), its tree read
 * (mnttree.h), unmounted; then the filesystem's own check of what the
 * kernel left (fs.h: `e2fsck -fn`, `xfs_repair -n`, `btrfs check
 * --readonly` of the copy).  What the kernel logged of the
 * device is the evidence.  An ext2/3/4 without a journal is first
 * preened as a boot does (e2fsck -p; where it stops for a person,
 * pc_judge_by_hand), and mounted only where that let the boot go on.
 *
 * The caller runs in a mount namespace of its own (kmount.h), so that a
 * mount it cannot undo goes away with it, and needs root and loop
 * devices.
 */
#ifndef POWERCUT_KJUDGE_H
#define POWERCUT_KJUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "judge/export.h"
#include "judge/judge.h"
#include "fs/fs.h"
#include "replay/image.h"
#include "util/err.h"

struct pc_kjudge_config {
  const char *copy_path;      /* the state's copy: a file of this judge's own */
  const char *mnt_dir;        /* an empty directory of its own to mount on */
  const struct pc_fs *fs;     /* the filesystem (fs.h): how to mount it, its check */
  int timeout_s;              /* the check's time limit */
  uint64_t hash_limit;        /* mnttree.h */
  bool read_tree;             /* read the tree of a state the check passes */
  bool plain;                 /* the filesystem's check as it is (fs.h: not
                               * its quick form) */
  struct pc_export *export;   /* if not NULL (read_tree must be set), the tree
                               * read is written there while it is mounted
                               * (export.h), for the application's checker:
                               * jm->export_error and export_err say how */
};

/* Judges the state im holds, filling jm as pc_judge_state does: PC_V_OK
 * (the tree in jm->tree if read_tree), PC_V_UNMOUNTABLE (the kernel
 * refused to mount it: its words as evidence), PC_V_FS_CORRUPT (the kernel
 * reported an error in it, or the check of what it left fails; without a
 * journal, also where the boot's e2fsck stops and no repair by hand
 * does: pc_judge_by_hand), or PC_V_NOT_CHECKED (the check did not
 * finish; memory); jm->by_hand where e2fsck -fy repaired it.  The copy is
 * removed and nothing stays mounted or attached.  Returns 0, or -errno
 * with a reason in err where the kernel cannot judge here at all (no
 * loop device, not allowed to mount: powercut's failure, not the
 * state's; -ENOENT: e2fsck is missing). */
int pc_kjudge_state (const struct pc_kjudge_config *cfg, const struct pc_image *im,
                     struct pc_judgement *jm, struct pc_err *err);

#endif
