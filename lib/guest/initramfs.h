/* initramfs.h: writing the qemu guest's initramfs: a cpio "newc" archive
 * as the kernel's unpacker reads it, with programs (and the shared
 * libraries ldd names), kernel modules (decompressed, with what
 * modules.dep says they need) and host files or trees.
 *
 * Archives may be concatenated (the kernel unpacks them in turn, a later
 * file replacing an earlier one of the same name); only the last ends
 * with pc_cpio_end.  Every writer returns 0 or -errno and, once one
 * failed, the archive is bad: c->err stays set.  Names in the archive
 * have no leading '/'.
 */
#ifndef POWERCUT_INITRAMFS_H
#define POWERCUT_INITRAMFS_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

struct cpio {
  FILE *f;
  unsigned ino;                 /* the last inode number used */
  char **dirs;                  /* directories already in the archive */
  size_t ndirs;
  int err;
};

/* One entry: mode holds the type bits (0100644, 040755, 0120777 with the
 * link target as data). */
void pc_cpio_entry (struct cpio *c, const char *name, unsigned mode,
                    const void *data, size_t len);

/* The host file src as dst, with the directories above it. */
int pc_cpio_copy (struct cpio *c, const char *src, const char *dst, unsigned mode);

/* The host file or directory src (recursively; regular files, directories
 * and symbolic links) as dst. */
int pc_cpio_tree (struct cpio *c, const char *src, const char *dst, struct pc_err *why);

/* The program path as dst and every shared library ldd says it needs. */
int pc_cpio_program (struct cpio *c, const char *path, const char *dst, struct pc_err *why);

/* Module name (of moddir, whose modules.dep is dep) as lib/modules/NAME.ko,
 * after what it needs (modules.dep) and what modprobe loads before it
 * (modules.softdep's "pre:", through modules.alias: the crypto algorithms
 * a filesystem asks for by name), unless order (" a b ") has it already;
 * appends what it added to order in load order.  A module the kernel has
 * built in (moddir's modules.builtin names it) adds nothing: a kernel
 * built with its drivers and filesystems in needs no module. */
int pc_cpio_module (struct cpio *c, const char *moddir, const char *dep, const char *name,
                    char *order, size_t olen, int depth, struct pc_err *why);

/* A name for the kernel whose modules folder is moddir, where the
 * kernel's file name tells no version (a bzImage built here): from the
 * folder's path and when its modules.dep was made, into out.  Returns
 * out. */
const char *pc_modules_id (const char *moddir, char *out, size_t len);

/* The trailer; then closes c->f.  Returns c->err or -EIO. */
int pc_cpio_end (struct cpio *c);

/* Frees what c holds (not c->f). */
void pc_cpio_free (struct cpio *c);

/* A whole file, NUL-terminated. (*ret malloc'd) */
int pc_read_file (const char *path, char **ret, size_t *ret_len);

/* The first of cands that is executable, or NULL. */
const char *pc_find_program (const char *const *cands);


#endif
