/* export.h: a crash state's file tree as an ordinary directory, for a
 * program that checks an application's data (check --verify).
 *
 * An export is a directory that holds the tree of one crash state after
 * another: each update changes only the paths whose type, mode, size,
 * content hash or target differ from the last state's (a file that was
 * not hashed is always written again).  Regular files, directories and
 * symbolic links are made; devices, fifos and sockets are left out, and a
 * hard link becomes a copy.  Write permission is taken away from
 * everything in it (the owner's too, and directories keep their owner's
 * search and read permission), so that a program running as its owner
 * cannot change it.  One running as root can: pc_export_verify() notices
 * any change, and the next update writes the tree again whole.
 */
#ifndef POWERCUT_EXPORT_H
#define POWERCUT_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "format/mark.h"
#include "util/err.h"

struct pc_export;

/* Makes the directory dir (it must not exist).  Returns 0 or -errno. */
int pc_export_new (const char *dir, struct pc_export **ret);
/* Removes the directory and everything in it. */
void pc_export_free (struct pc_export *x);
/* Removes an export's directory by its path (one whose owner died),
 * whatever its permissions.  Returns 0 or -errno. */
int pc_export_remove (const char *dir);

/* Brings the directory to hold tree, read (entries only, as fstree.h
 * gives it) from the ext2/3/4 image of size bytes at mem.  Returns 0, or
 * -errno with a reason in err (the directory is then written whole next
 * time). */
int pc_export_update (struct pc_export *x, const void *mem, uint64_t size,
                      const struct pc_mark *tree, struct pc_err *err);

/* The same, the files' contents read from the mounted tree at dir (a
 * state the kernel recovered, kjudge.h: any filesystem), tree as
 * mnttree.h reads it there. */
int pc_export_update_dir (struct pc_export *x, const char *dir, const struct pc_mark *tree,
                          struct pc_err *err);

/* Something else will change the directory (check --verify's restore
 * test): the next update writes it whole. */
void pc_export_touched (struct pc_export *x);

/* Did anything change the directory since the last update?  Returns 1
 * (the next update writes it whole), 0, or -errno. */
int pc_export_verify (struct pc_export *x);

#endif
