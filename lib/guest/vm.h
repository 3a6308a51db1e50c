/* vm.h: running a workload in a qemu guest whose disk is the recorder,
 * attached through the guest kernel's own NBD client (/dev/nbd0).
 *
 * The guest boots the given kernel with a small initramfs that powercut
 * builds from the kernel's modules (e1000, nbd, ext4 and what they need),
 * busybox, nbd-client, mke2fs and powercut itself (with the shared
 * libraries each needs); the part that does not change is cached.  qemu's
 * user network forwards two addresses that exist only inside the guest to
 * the recorder's Unix sockets: 10.0.2.100:10809 (NBD) and 10.0.2.100:10810
 * (control).  The guest attaches /dev/nbd0 (nbd-client -C connections),
 * makes and mounts the filesystem, places the durable mark "mkfs", runs the
 * workload (a built-in one through `powercut workload`, or a script copied
 * in), places the marks after it with the settle between them (run.h)
 * and "end" after a script,
 * unmounts, detaches, prints its status
 * on the console and powers off.  KVM is used when it works, else TCG.
 * A kernel that stops before the guest's init has run (nothing of the
 * workload ran, no disk was attached) is booted once more; the first
 * boot's console is added at the end of the second's.
 *
 * In script mode (powercut vm) no filesystem is made: each of the disks
 * is attached as /dev/nbdI, in order, over 10.0.2.100:10811+2I (its
 * control socket over 10812+2I), and the script runs in /host, where the
 * copies are, with POWERCUT_DEV_<name>, POWERCUT_CONTROL_<name> and
 * POWERCUT in its environment, the extra programs in /bin and the extra
 * modules loaded.  What it prints reaches the console as lines
 * "POWERCUT-OUT <line>"; its exit status is returned.  What it writes to
 * $POWERCUT_OUT (the guest's second serial port, raw: a channel of its
 * own, where the kernel never writes) reaches out_path byte for byte.
 */
#ifndef POWERCUT_VM_H
#define POWERCUT_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* A disk of a script-mode guest. */
struct pc_vm_disk {
  const char *name;             /* [A-Za-z0-9_]+ */
  const char *nbd_sock;
  const char *ctl_sock;         /* or NULL */
};

struct pc_vm_config {
  const char *self;             /* the powercut program (copied into the guest) */
  const char *kernel;           /* vmlinuz; NULL: the newest /boot/vmlinuz-* */
  const char *modules;          /* its /lib/modules/VERSION; NULL: derived */
  const char *nbd_sock, *ctl_sock;
  const char *fs, *mkfs_opts, *mount_opts;
  bool made;                    /* the device starts as a base image of fs
                                 * (made on a file: 512-byte sectors): no mkfs */
  const char *workload;         /* a built-in workload's name, or ... */
  const char *script;           /* ... a script to run in the mount point */
  char *const *script_args;     /* its arguments (NULL-terminated), or NULL */
  bool traced;                  /* run it under powercut trace in the guest */
  const char *acks;             /* traced: which lines acknowledge (trace's
                                 * --acks; NULL: every line) */
  uint64_t seed;
  unsigned files, commit_s, connections;
  long settle_ms;               /* how long the guest waits between the marks
                                 * after the workload (run.h) */
  unsigned seconds;                     /* a timed workload's length (0: default) */
  char *const *knobs;           /* writeback knobs to set in the guest,
                                 * "vm.NAME=VALUE" each */
  size_t nknobs;
  int timeout_s;
  const char *work_dir;         /* for the initramfs of this run */
  const char *console_path;     /* the guest's console goes here */
  unsigned memory_mb;           /* 0: 768 */
  /* Script mode: */
  bool script_mode;
  const struct pc_vm_disk *disks;
  size_t ndisks;
  char *const *extra_modules;   /* NULL-terminated, or NULL */
  char *const *filesystems;     /* the filesystems (fs.h names) whose module,
                                 * mkfs and own check the guest has too
                                 * (NULL-terminated, or NULL); in run mode,
                                 * fs's, always */
  char *const *programs;        /* names or paths, NULL-terminated, or NULL */
  char *const *copies;          /* host files or trees for /host, or NULL */
  int *script_status;           /* where the script's exit status goes */
  const char *out_path;         /* what it writes to $POWERCUT_OUT goes to this
                                 * file (made anew), or NULL: no $POWERCUT_OUT */
};

/* Boots the guest and waits for it.  Returns 0 when the workload ran and
 * reported success (in script mode: when the script ran, whatever its
 * status), -ECHILD when the guest stopped without reporting at
 * all (it crashed: the recording is incomplete), or -errno; with a
 * one-line reason in why. */
int pc_vm_run (const struct pc_vm_config *cfg, struct pc_err *why);

/* The newest installed kernel image, or NULL. (malloc'd) */
char *pc_vm_default_kernel (void);

#endif
