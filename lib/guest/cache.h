/* cache.h: the caller's own folder of files kept between runs.
 *
 * The qemu guest's initramfs base is slow to build and worth keeping; it
 * is also booted as it is found, so the folder that holds it must be
 * beyond the reach of other users.  The folder is $XDG_CACHE_HOME/powercut,
 * else $HOME/.cache/powercut, else (for root, with no HOME)
 * /var/cache/powercut.  pc_cache_open makes it, mode 0700, if it is
 * missing, and refuses it unless it is a real directory (not a symbolic
 * link) owned by the effective user with no permission for group or
 * others.  Its files are then reached only through the descriptor it
 * returns, never by path, never through a symbolic link, and only when
 * they are regular files of the same owner that nobody else may write.
 */
#ifndef POWERCUT_CACHE_H
#define POWERCUT_CACHE_H

#include <stddef.h>

#include "util/err.h"

/* Opens the cache folder (making it and, with mode 0700, the folders
 * above it that are missing) and puts its path in path (for messages).
 * Returns a directory descriptor (O_CLOEXEC), -ENOENT when there is no
 * place for one (no HOME, not root), or another -errno, with the reason
 * in why. */
int pc_cache_open (char *path, size_t len, struct pc_err *why);

/* Opens the file name of the cache folder dirfd (whose path is dir) for
 * reading.  Returns a descriptor, -ENOENT (why untouched) when there is
 * none, or -errno with the reason in why: a symbolic link, something not
 * a regular file, a file of another owner or that group or others may
 * write. */
int pc_cache_read (int dirfd, const char *dir, const char *name, struct pc_err *why);

/* Creates a new file for writing in the cache folder, under a name of
 * its own that nobody else can have made (name with a suffix; put in tmp),
 * mode 0600, without following a symbolic link.  Returns its descriptor
 * or -errno with the reason in why.  pc_cache_commit gives it its name. */
int pc_cache_create (int dirfd, const char *dir, const char *name, char *tmp, size_t tlen,
                     struct pc_err *why);

/* Flushes the new file tmp and renames it to name, replacing what name
 * was (a file or a link: never what a link points to).  Returns 0 or
 * -errno with the reason in why; on failure tmp is removed. */
int pc_cache_commit (int dirfd, const char *dir, int fd, const char *tmp, const char *name,
                     struct pc_err *why);

#endif
