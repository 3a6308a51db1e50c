/* gjudge.h: a check whose crash states the kernel of a qemu guest judges
 * (--judge guest): for bugs in that kernel's own recovery, for a
 * filesystem this machine's kernel cannot mount (fs.h), and so that
 * crashed images are never mounted on this machine's kernel.
 *
 * The whole check runs in one guest (vm.h, script mode): the log (and
 * its base image) is copied in, the guest's modules loop and the
 * filesystem's are loaded, the filesystem's own check (fs.h) is copied
 * into its /bin, and there `powercut check LOG --judge kernel` runs with
 * the check's model, seed, shard and options: each state a sparse copy
 * on a loop device of the guest, mounted by its kernel (judge/kjudge.h).
 * Its JSON report comes back through the guest's output port and is the
 * result, each point judged "guest" and the guest's kernel named
 * (result.h: kernel, kernel_guest); the result's log and base are the
 * paths given here.  A guest that fails, is stopped at its time limit
 * or brings back no report makes the check fail with a reason, never a
 * verdict on a state; states the check in the guest could not judge are
 * not checked, as anywhere.
 */
#ifndef POWERCUT_GJUDGE_H
#define POWERCUT_GJUDGE_H

#include <stddef.h>

#include "check/checker.h"
#include "result/result.h"
#include "util/err.h"

struct pc_guest_judge {
  const char *self;             /* the powercut program, copied into the guest */
  const char *kernel;           /* vmlinuz to boot; NULL: the newest /boot/vmlinuz-* */
  const char *modules;          /* its modules; NULL: /lib/modules/VERSION */
  const char *console_path;     /* the guest's console; NULL: a scratch file,
                                 * kept (and named in the reason) only if the
                                 * guest fails */
  int timeout_s;                /* the guest's time limit; 0: 900 s and 2 s
                                 * per record of the log */
  /* Told what it does, a line at a time (may be NULL). */
  void (*status) (void *ctx, const char *line);
  void *status_ctx;
};

/* Runs cfg's check in a guest as above (cfg->judge is not read; the
 * guest's own check judges with its kernel).  cfg->verify, keep_dir,
 * plain and recovery_crashes are refused (-EINVAL): they need this
 * machine.  Returns 0 with *ret filled (free with pc_check_result_free),
 * or -errno with a one-line reason in why: the log or the guest's failure
 * (-ETIME: its time limit; -EINTR: interrupted), or what the check in the
 * guest said when it gave no report. */
int pc_guest_check (const struct pc_check_config *cfg, const struct pc_guest_judge *g,
                    struct pc_check_result **ret, struct pc_err *why);

#endif
