/* memio.h: libext2fs reading a filesystem image that is in memory.
 *
 * An io_manager (as unix_io is one) whose reads copy from a range of
 * memory: a crash state being checked is read where it is built, with no
 * file and no system call.  Read-only: writes fail with EROFS.  A read
 * beyond the end gets zeros for the missing part and EXT2_ET_SHORT_READ,
 * as a file would.
 */
#ifndef POWERCUT_MEMIO_H
#define POWERCUT_MEMIO_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "util/err.h"

/* Readies libext2fs's error messages (error_message() names its codes). */
void pc_ext2fs_init (void);

/* Opens the ext2/3/4 filesystem in [mem, mem+size) read-only, with
 * ext2fs_open2's flags (EXT2_FLAG_RW is refused: -EROFS).  The memory
 * must stay mapped until ext2fs_close_free().  Returns 0, -ENOMEM, or
 * -EIO with libext2fs's reason in err ("libext2fs cannot open the
 * filesystem: ..."); libext2fs's errcode_t stays behind this call. */
int pc_memio_open (const void *mem, uint64_t size, int flags, ext2_filsys *ret_fs,
                   struct pc_err *err);

/* A libext2fs error as a negative errno: -ENOMEM for no memory, else
 * -EIO (the reason is error_message (e)). */
int pc_ext2fs_errno (errcode_t e);

#endif
