/* run.h: recording a workload on a freshly made filesystem, end to end.
 *
 * pc_run_record() starts a recorder on private sockets, in a child process
 * (serve.h), attaches it as a block device (nbd-client and /dev/nbdX where
 * the kernel has nbd; else nbdfuse and a loop device), makes the
 * filesystem, mounts it, places the durable mark "mkfs", runs the
 * workload (a built-in one, or a command with POWERCUT_MNT,
 * POWERCUT_CONTROL and POWERCUT in its environment and the mount point as
 * its directory), places the mark of where it ended (PC_MARK_COMMAND_END,
 * format/mark.h: no sync, no manifest), waits the settle (settle_ms) and
 * places the mark of where powercut's own sync begins
 * (PC_MARK_SETTLE_END), then after a command the durable mark "end", and
 * tears everything down again, in reverse, whatever happened
 * (failure, time-out, interruption: pc_interrupted, err.h).
 * With PC_ATTACH_VM all of that between starting and stopping the recorder
 * happens in a qemu guest instead (guest/vm.h); PC_ATTACH_AUTO picks it for a
 * filesystem this machine's kernel cannot mount (fs.h, pc_fs_kernel_has),
 * which the other ways refuse.  With devices, each of them is set up so,
 * in order, and torn down in reverse.
 */
#ifndef POWERCUT_RUN_H
#define POWERCUT_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "format/acksel.h"
#include "record/attach.h"
#include "run/sysctl.h"
#include "run/workload.h"
#include "util/err.h"

#define PC_MAX_DEVICES 8
#define PC_RUN_SETTLE_DEFAULT (-1)
#define PC_RUN_SETTLE_MAX_S 3600

/* One device of a set (several devices, one power cut). */
struct pc_run_device {
  const char *name;             /* letters, digits and _ */
  uint64_t size;
  const char *fs;               /* NULL: the configuration's */
  const char *mkfs_opts;        /* NULL: the configuration's */
  const char *log_path;         /* its log: DIR/NAME.pclog of a device set */
};

/* Where a recording and its check spent their time, by phase: each run
 * that is given one adds its seconds to it (pc_run_config.phases). */
enum pc_phase {
  PC_PHASE_RECORDER,            /* the recorder started (its base image opened) */
  PC_PHASE_ATTACH,              /* knobs set, the device attached, the
                                 * filesystem made (unless a base image
                                 * has it) and mounted, the mark mkfs */
  PC_PHASE_WORKLOAD,            /* the workload (traced or not); with
                                 * PC_ATTACH_VM the whole guest's time */
  PC_PHASE_END,                 /* the settle, powercut's sync and the
                                 * mark end, unmount, detach, the recorder
                                 * stopped */
  PC_PHASE_CHECK,               /* every crash point checked (configs.h) */
  PC_NPHASES
};
struct pc_phases {
  double s[PC_NPHASES];
};
extern const char *const pc_phase_names[PC_NPHASES];  /* "recorder", "attach", ... */

struct pc_run_config {
  const char *self;             /* the powercut program (for a command, as
                                 * POWERCUT, and for the guest, vm.h) */
  const char *fs;               /* a filesystem fs.h knows: "ext4", "xfs", ... */
  const char *mkfs_opts;        /* NULL: its defaults (fs.h: ext's -b 4096 and
                                 * eager inode table init) */
  const char *mount_opts;       /* "" for defaults; a built-in workload's commit= is added if absent */
  uint64_t size;                /* device size; 0: the filesystem's default
                                 * (fs.h), or the base image's */
  const char *base_path;        /* or an image the device starts as, its
                                 * filesystem made already (and what it
                                 * holds): no mkfs, and the log starts from
                                 * it (record --base); not with devices */
  enum pc_attach attach;
  const char *kernel, *modules;         /* PC_ATTACH_VM: the guest's kernel (vm.h) */
  char *const *programs;                /* PC_ATTACH_VM: more programs for the guest's
                                         * /bin (NULL-terminated, or NULL) */
  unsigned connections;                 /* PC_ATTACH_VM: nbd-client -C */
  const struct pc_workload *workload;   /* or ... */
  char *const *command;         /* ... a command (argv, NULL-terminated) */
  bool traced;                  /* run it under the tracer (traced.h): its calls
                                 * about the filesystem go into the log */
  bool all_cpus;                /* traced: it may run on every CPU (traced.h) */
  const struct pc_acksel *acks; /* traced: which lines it prints acknowledge
                                 * (format/acksel.h; NULL: every one) */
  uint64_t seed;
  unsigned files;
  unsigned seconds;             /* how long a timed workload writes (0: its default) */
  struct pc_sysctl *sysctls;    /* writeback knobs set while recording (sysctl.h): */
  size_t nsysctls;              /* in the guest with PC_ATTACH_VM, else on this host, */
  struct pc_sysctl_host sysctl_host;    /* shared with other runs through this record */
  /* Told that a knob is held by another run with another value, and
   * that the recording waits for it (once a holder; may be NULL). */
  void (*sysctl_waiting) (void *ctx, const char *name, long pid);
  void *sysctl_waiting_ctx;
  int timeout_s;                /* the workload's time limit */
  /* How long the filesystem stays mounted after the workload ends, before
   * powercut's own sync and unmount (its settle: the kernel's writeback
   * and journal commits of a machine that runs on are recorded), in
   * milliseconds; not within timeout_s.  PC_RUN_SETTLE_DEFAULT: the
   * journal commit interval (commit=, else 5 s) plus one second after a
   * command, none after a built-in workload; 0 (as a zeroed config has
   * it): none. */
  long settle_ms;
  const char *log_path;         /* the log to write */
  /* Or several devices: each is recorded into its own log, attached (not
   * in a guest), made and mounted with the configuration's mount options
   * and marked as one device is; the command (not traced) runs in the
   * first one's mount point with POWERCUT_MNT_<NAME> and
   * POWERCUT_CONTROL_<NAME> for every device (POWERCUT_MNT and
   * POWERCUT_CONTROL: the first's); "end" goes into every log. */
  const struct pc_run_device *devices;
  size_t ndevices;
  const char *trace_path;       /* what the workload did, or NULL */
  const char *console_path;     /* PC_ATTACH_VM: the guest's console, or NULL */
  void (*status) (void *ctx, const char *line);   /* progress lines, or NULL */
  void *status_ctx;
  struct pc_phases *phases;     /* or NULL: where the time went, added to
                                 * (one device; not with devices) */
};

/* The options mkfs.FS gets: opts, or by default 4 KiB blocks and (with a
 * journal) inode tables and journal written now rather than by the
 * kernel later. */
const char *pc_run_mkfs_options (const char *fs, const char *opts);

/* Records one configuration.  Returns 0 or -errno with a one-line reason
 * in why.  Nothing it started is left running or mounted when it returns.
 * A guest (PC_ATTACH_VM) that dies without reporting is recorded again,
 * once, from scratch. */
int pc_run_record (const struct pc_run_config *cfg, struct pc_err *why);

#endif
