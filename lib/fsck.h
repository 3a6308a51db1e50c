/* fsck.h: judging one crash state's filesystem, as a reboot would find it.
 *
 * libblkid identifies the filesystem; if the journal needs recovery,
 * `e2fsck -y -E journal_only` replays it (with an undo file); `e2fsck -fn`
 * then checks the whole filesystem read-only; finally `e2undo` puts the
 * image back as it was, so the caller can reuse it.  Every program runs
 * under a time limit; its output is evidence.
 */
#ifndef POWERCUT_FSCK_H
#define POWERCUT_FSCK_H

#include <stdbool.h>
#include <stddef.h>

enum pc_verdict {
  PC_V_OK,
  PC_V_FS_CORRUPT,
  PC_V_UNMOUNTABLE,
  PC_V_ZERO_LENGTH,
  PC_V_MISSING,
  PC_V_MISMATCH,
  PC_V_DURABLE_LOST,
  PC_V_COUNT,
};

#define PC_EVIDENCE_MAX 1024

/* "ok", "fs-corrupt", ... as the spec names them. */
const char *pc_verdict_name (enum pc_verdict v);
/* Inverse of pc_verdict_name; -1 if unknown. */
int pc_verdict_parse (const char *name);

struct pc_fsck_result {
  enum pc_verdict verdict;
  char fstype[16];               /* "ext4", or "" */
  bool recovered;                /* the journal was replayed */
  bool image_dirty;              /* the image could not be put back */
  char evidence[PC_EVIDENCE_MAX];/* first lines of what went wrong */
};

/* The type of filesystem blkid finds at path ("ext4", ...) into type, ""
 * if none.  Returns 1 if it is ext2, ext3 or ext4, 0 if not, -errno if
 * path cannot be probed. */
int pc_fs_probe (const char *path, char *type, size_t len);

/* Checks the filesystem image at path (a regular file).  undo_path is a
 * scratch file name for the undo log.  timeout_s bounds each program.
 * inspect, if given, is called on the recovered image before it is put
 * back, unless the verdict is unmountable.
 * Returns 0 with *res filled (whatever the verdict), or -errno if the
 * checking itself could not run (e2fsck missing, fork failed). */
int pc_fsck_image (const char *path, const char *undo_path, int timeout_s,
                   int (*inspect) (const char *path, void *ctx), void *ctx,
                   struct pc_fsck_result *res);

#endif
