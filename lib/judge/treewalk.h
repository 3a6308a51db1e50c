/* treewalk.h: the one walk of a file tree behind both tree readers:
 * fstree.h feeds it from an ext2/3/4 image through libext2fs, mnttree.h
 * from a mounted directory.
 *
 * The walk owns what a tree means: every path under the root (the root
 * itself not), each directory entered once (a second reach is a loop, a
 * problem), at most PC_TREEWALK_MAX_DEPTH deep and PC_TREEWALK_MAX_ENTRIES
 * entries, a part that cannot be read a line of problems rather than a
 * failure, and the result a manifest (mark.h) sorted by path as bytes.
 * A source owns how a directory is listed and an inode, a file's content
 * and a symlink read, the walk which of them an entry needs; a source reports
 * what it cannot read with pc_treewalk_problem.  Memory is powercut's own
 * failure, never the tree's: a source that runs out says so with
 * pc_treewalk_no_memory and the whole walk fails with -ENOMEM.
 *
 * The helpers below keep an entry the same whoever read it: extended
 * attributes by name (a POSIX ACL by its meaning, acl.h), and a file not
 * read whole (beyond the hash limit, or an error) with no hash and no
 * block hashes.
 */
#ifndef POWERCUT_TREEWALK_H
#define POWERCUT_TREEWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/mark.h"

#define PC_TREEWALK_MAX_DEPTH    256
#define PC_TREEWALK_MAX_ENTRIES  1000000

struct pc_treewalk;

/* One name in a directory, as a source lists it. */
struct pc_treewalk_name {
  char *name;                   /* malloc'd; freed by the walk */
  uint64_t key;                 /* the source's own (an inode number) */
};

/* What stat gives back. */
enum {
  PC_TREEWALK_ENTRY = 0,        /* an entry, to be entered if a directory */
  PC_TREEWALK_SKIP = 1,         /* no entry (the source said why) */
  PC_TREEWALK_LEAF = 2,         /* an entry not to be entered (another filesystem) */
};

struct pc_treewalk_source {
  /* The names in the directory dir (not . and ..), at most
   * PC_TREEWALK_MAX_ENTRIES, into *ret (malloc'd) and *ret_n.  Returns 0
   * (what could not be read said with pc_treewalk_problem at path), or
   * -ENOMEM. */
  int (*list) (struct pc_treewalk *w, uint64_t dir, const char *path,
               struct pc_treewalk_name **ret, size_t *ret_n);
  /* Reads the inode of the entry nm of directory dir into ent (zeroed;
   * path set): mode, nlink, ino, size and xattrs.  Returns an enum value
   * above, or -ENOMEM. */
  int (*stat) (struct pc_treewalk *w, uint64_t dir, const struct pc_treewalk_name *nm,
               struct pc_entry *ent);
  /* Hashes the content of the regular file nm (pc_entry_hash_begin ...
   * pc_treewalk_hash_done); what cannot be read said with
   * pc_treewalk_problem at ent->path. */
  void (*hash) (struct pc_treewalk *w, uint64_t dir, const struct pc_treewalk_name *nm,
                struct pc_entry *ent);
  /* Reads the target of the symlink nm into ent->target (malloc'd); if
   * it cannot, leaves it NULL, said with pc_treewalk_problem. */
  void (*link) (struct pc_treewalk *w, uint64_t dir, const struct pc_treewalk_name *nm,
                struct pc_entry *ent);
  /* The handle of the directory nm in dir, to list, into *ret.  Returns 0,
   * or 1 if it cannot be entered (said with pc_treewalk_problem). */
  int (*enter) (struct pc_treewalk *w, uint64_t dir, const struct pc_treewalk_name *nm,
                const char *path, uint64_t *ret);
  /* Done with a handle enter gave (may be NULL). */
  void (*leave) (struct pc_treewalk *w, uint64_t dir);
};

/* Walks the tree from the directory root (a handle, as enter gives; its
 * inode number root_ino) into *ret, the manifest (entries only; free with
 * pc_mark_free), src being what the source's functions get from
 * pc_treewalk_source_data.  problems receives a few lines, NUL-terminated.
 * Returns 0 or -ENOMEM. */
int pc_treewalk (const struct pc_treewalk_source *s, void *src, uint64_t root,
                 uint64_t root_ino, struct pc_mark *ret, char *problems, size_t plen);

void *pc_treewalk_source_data (const struct pc_treewalk *w);

/* Adds a line "path: what[: why]" to the problems (the root said "/"). */
void pc_treewalk_problem (struct pc_treewalk *w, const char *path, const char *what,
                          const char *why);

/* The source ran out of memory: the walk fails. */
void pc_treewalk_no_memory (struct pc_treewalk *w);

/* Adds the extended attribute name with its value to ent: a POSIX ACL by
 * its meaning, one that only repeats the mode not at all; any other by its
 * value's XXH3-64.  Returns 0 or -ENOMEM. */
int pc_treewalk_add_xattr (struct pc_entry *ent, const char *name, const void *value,
                           size_t len);

/* Ends reading ent's attributes: sorted by name, or, if failed, none and
 * ent->xattrs_unknown. */
void pc_treewalk_xattrs_done (struct pc_entry *ent, bool failed);

/* Ends hashing ent's content (after pc_entry_hash_end): a file not read
 * whole (whole false, or failed) keeps its size and first bytes but no
 * hash (if not whole), nor zero blocks, nor block hashes. */
void pc_treewalk_hash_done (struct pc_entry *ent, bool whole, bool failed);

#endif
