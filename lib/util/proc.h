/* proc.h: running other programs (e2fsck, mkfs, mount, losetup ...).
 *
 * pc_proc_run() runs argv (looked up in PATH, then in /sbin) in its own
 * process group with standard input from /dev/null and standard output and
 * error captured, under a time limit, in the C locale.  If the program
 * running powercut asks to stop (pc_interrupted(), err.h), the program is
 * killed.
 *
 * And what those programs leave on the host: mount points, and loop
 * devices over a file.
 */
#ifndef POWERCUT_PROC_H
#define POWERCUT_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Runs argv; out receives the first outlen - 1 bytes of its output.
 * Returns the exit status (0..255; 127: not found), 256 + signal if a
 * signal killed it, -ETIME on timeout, -EINTR if interrupted, or -errno. */
int pc_proc_run (char *const argv[], int timeout_s, char *out, size_t outlen);

/* Waits for the child pid; after timeout_s sends it sig, and SIGKILL
 * 200 ms later.  Returns its wait status. */
int pc_proc_reap (pid_t pid, int timeout_s, int sig);

/* What else a run can take and give. */
struct pc_proc_extra {
  char *const *env;         /* "NAME=VALUE" strings added to its environment */
  const char *cwd;          /* its current directory (NULL: this one's) */
  bool side;                /* its file descriptor 3 is a pipe, collected here: */
  size_t side_max;          /*   at most this many bytes (0: 64 MiB) */
  char *side_buf;           /*   malloc'd, NUL-terminated (free it), or NULL */
  size_t side_len;
  bool side_truncated;      /*   it wrote more than side_max */
};

/* pc_proc_run with extra (which may be NULL). */
int pc_proc_run_extra (char *const argv[], struct pc_proc_extra *extra, int timeout_s,
                       char *out, size_t outlen);

/* name as an absolute path: as given if it holds a '/', else found in
 * PATH and the sbin directories.  Returns NULL if there is none. (malloc'd) */
char *pc_which (const char *name);

/* Is dir a mount point (on another device than the folder it is in)?
 * Returns 1, 0, or -errno if it cannot be told. */
int pc_mount_point (const char *dir);

/* The loop device (/dev/loopN, into dev, len bytes) whose backing file is
 * path (absolute, as the kernel names it), for one that losetup or
 * mount -o loop attached but was killed before saying which.  Returns 1
 * if found, 0 if none, or -errno. */
int pc_loop_of (const char *path, char *dev, size_t len);

#endif
