/* fstree.h: reading the file tree of an ext2/3/4 image with libext2fs,
 * without mounting it.
 *
 * The tree comes back as a manifest (mark.h): every path under the root
 * with its type, mode, size, content hash (XXH3-128, as marks hash) and
 * symlink target, sorted by path, by the one walk treewalk.h owns: it
 * never follows a directory twice, stops at PC_TREEWALK_MAX_DEPTH and
 * PC_TREEWALK_MAX_ENTRIES, hashes no file beyond a limit, and a part it
 * cannot read becomes a line of problems, not a failure.
 *
 * A cache lets a walk of one crash state after another read only what
 * changed: a regular file whose inode (every byte of it) and every block
 * it maps (data, extent tree and indirect blocks, by their hashes in the
 * image) are what they were when it was last hashed is not read again;
 * its hash is taken from then.  A walk with a cache gives the same tree
 * and problems as one without (a file whose reading met a problem is never
 * cached).
 */
#ifndef POWERCUT_FSTREE_H
#define POWERCUT_FSTREE_H

#include <stddef.h>
#include <stdint.h>

#include "replay/image.h"
#include "format/mark.h"

/* Reads the tree of the filesystem image at path into *ret (entries only;
 * free with pc_mark_free).  A regular file larger than hash_limit bytes
 * gets its size and first bytes but no content hash (it stays zero), so a
 * damaged size cannot make the walk read terabytes: pass the largest size
 * a file may rightly have (UINT64_MAX: no limit).  Unreadable parts are
 * described in problems (a few lines, NUL-terminated).
 * Returns 0, or -errno if the filesystem cannot be opened at all. */
int pc_fstree_read (const char *path, uint64_t hash_limit, struct pc_mark *ret,
                    char *problems, size_t plen);

/* The same for an image in memory, size bytes at mem. */
int pc_fstree_read_mem (const void *mem, uint64_t size, uint64_t hash_limit,
                        struct pc_mark *ret, char *problems, size_t plen);

struct pc_fstree_cache;

int pc_fstree_cache_new (struct pc_fstree_cache **ret);
void pc_fstree_cache_free (struct pc_fstree_cache *c);

/* How many files the last walk with this cache hashed, and took from it. */
void pc_fstree_cache_stats (const struct pc_fstree_cache *c, size_t *ret_read,
                            size_t *ret_reused);

/* The same for an image being rebuilt (with PC_IMAGE_HASH), reusing and
 * updating cache (which may be NULL).  A cache serves one image's states:
 * give each image its own. */
int pc_fstree_read_image (const struct pc_image *im, struct pc_fstree_cache *cache,
                          uint64_t hash_limit, struct pc_mark *ret,
                          char *problems, size_t plen);

#endif
