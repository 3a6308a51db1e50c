/* kmount.h: letting this machine's kernel mount a filesystem image: a loop
 * device over the image file, a mount namespace of its own so that what a
 * process mounts goes away with it, and what the kernel said of the device
 * meanwhile.  All of it needs root (CAP_SYS_ADMIN) and loop devices.
 */
#ifndef POWERCUT_KMOUNT_H
#define POWERCUT_KMOUNT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* Attaches the file at path to a free loop device that detaches itself
 * once nothing holds it (autoclear): the last close of the returned
 * descriptor, or the unmount of what was mounted from it after that.  Its
 * name (/dev/loopN) into name (len bytes).  The device is writable unless
 * read_only: a filesystem's log is replayed through it even by a
 * read-only mount.  Returns the device's descriptor (close it once the
 * filesystem is mounted), or -errno with a one-line reason in err. */
int pc_loop_attach (const char *path, bool read_only, char *name, size_t len,
                    struct pc_err *err);

/* Unmounts whatever is mounted on dir, if anything: tried again for
 * about 5 s while the filesystem is busy (the kernel's own work settling:
 * a walk of the tree has closed everything), then lazily (it leaves the
 * namespace at once and goes when its last user does; a loop device
 * under it, autoclear, with it).  Not interruptible: it is how a failed
 * or interrupted part cleans up, so that nothing is left mounted.  out
 * (outlen bytes; NULL: not wanted) gets why the plain unmount failed.
 * Returns 0 if nothing is mounted on dir now (detached lazily, too), or
 * -EBUSY. */
int pc_unmount (const char *dir, char *out, size_t outlen);

/* Moves this process into a mount namespace of its own, its mounts
 * private: what it mounts is seen by no other process and is unmounted
 * by the kernel when the process (and its children) end, however they
 * end.  Returns 0 or -errno with a reason in err. */
int pc_mount_ns_private (struct pc_err *err);

/* The kernel's log (/dev/kmsg) from now on, to read what it says of a
 * device; -errno if it cannot be read (not fatal: there is just no
 * evidence).  pc_kmsg_read appends to buf (len bytes, NUL-terminated) the
 * text of the lines since pc_kmsg_open that name dev ("loop3"), one a
 * line, and closes fd. */
int pc_kmsg_open (void);
void pc_kmsg_read (int fd, const char *dev, char *buf, size_t len);

#endif
