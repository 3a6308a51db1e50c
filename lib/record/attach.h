/* attach.h: how a recorder's device (serve.h) appears to a kernel as a
 * block device.
 *
 * One entry a way, as nbdkit's backends and fio's ioengines are: the
 * kernel's nbd driver with nbd-client; nbdfuse serving the device as a
 * file with a loop device over it; a qemu guest's disk (guest/vm.h does
 * that one whole, in the guest).  powercut run attaches the device its
 * workload runs on (run.h); the recovery recorder the device a crash
 * state's mount replays its log on (judge/recrash.h).
 *
 * A way that works on this host attaches a device (attach) and undoes
 * it whatever part of it was done (detach), leaving nothing: no loop
 * device, no FUSE mount, no client.  The loop device over nbdfuse's file
 * detaches itself once nothing holds it (kmount.h), so a process that is
 * killed leaves none behind once its mount is gone.  All of it needs
 * root.
 */
#ifndef POWERCUT_ATTACH_H
#define POWERCUT_ATTACH_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

enum pc_attach { PC_ATTACH_AUTO, PC_ATTACH_NBD, PC_ATTACH_FUSE, PC_ATTACH_VM };

/* One device attached. */
struct pc_attachment {
  /* Set by the caller: */
  const char *sock;             /* the recorder's Unix socket */
  const char *fusedir;          /* FUSE: a directory that attach makes (and
                                 * the caller removes) for nbdfuse */
  unsigned block_size;          /* nbd: the device's sector size (0: 4096) */
  bool die_with_parent;         /* nbdfuse ends with the thread that attached */
  /* a device another attachment of the caller's holds (its client may
   * not show in sysfs yet), or NULL */
  bool (*taken) (const char *dev, void *arg);
  void *taken_arg;
  /* Set by attach, for detach: */
  char dev[64];                 /* the block device: /dev/nbdN, /dev/loopN */
  pid_t nbdfuse;                /* 0: none */
  int loop_fd;                  /* the loop device held open, if loop */
  bool loop, nbd;
};

struct pc_attach_way {
  enum pc_attach kind;
  const char *name;             /* for people */
  bool here;                    /* the device appears to this host's kernel */
  bool (*usable) (void);        /* this machine can (for --attach auto), or NULL */
  /* Attaches a->sock as a->dev.  Returns 0, or -errno with a reason in
   * err (-EINTR if pc_interrupted()); call detach either way. */
  int (*attach) (struct pc_attachment *a, struct pc_err *err);
  void (*detach) (struct pc_attachment *a);
};

/* The entry for kind, or NULL (PC_ATTACH_AUTO). */
const struct pc_attach_way *pc_attach_of (enum pc_attach kind);

/* What --attach auto takes: the first way here this machine can use. */
enum pc_attach pc_attach_pick (void);

#endif
