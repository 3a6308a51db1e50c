/* mnttree.h: reading the file tree of a mounted filesystem, as fstree.h
 * reads an ext2/3/4 image: the kernel's view of a crash state, for the
 * judges that let the kernel recover and read it.
 *
 * The tree is the same manifest (mark.h) fstree.h gives, entry for entry:
 * every path under the root (the root itself not), sorted by path, with
 * its type, mode, link count, inode number, size, content hash (XXH3-128
 * as marks hash, with the first bytes, the blocks all zeros and each
 * block's hash), symlink target and extended attributes (their values'
 * XXH3-64, a POSIX ACL by its meaning, acl.h).  The walk is bounded as
 * fstree's is: it never crosses into another filesystem mounted below,
 * stops at PC_FSTREE_MAX_DEPTH and PC_FSTREE_MAX_ENTRIES, hashes no file
 * beyond a limit, and a part it cannot read (an I/O error, a corrupt
 * directory the kernel refuses) becomes a line of problems, not a failure.
 */
#ifndef POWERCUT_MNTTREE_H
#define POWERCUT_MNTTREE_H

#include <stddef.h>
#include <stdint.h>

#include "format/mark.h"

/* Reads the tree under the directory dir (a mount point) into *ret
 * (entries only; free with pc_mark_free).  A regular file larger than
 * hash_limit bytes gets its size and first bytes but no content hash (it
 * stays zero).  Unreadable parts are described in problems (a few lines,
 * NUL-terminated).  Returns 0, -ENOMEM, or -errno if dir itself cannot be
 * opened. */
int pc_mnttree_read (const char *dir, uint64_t hash_limit, struct pc_mark *ret,
                     char *problems, size_t plen);

#endif
