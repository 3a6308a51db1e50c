/* sysctl.h: kernel knobs a run sets, shared with other runs, and put back
 * whatever happens.
 *
 * Only the writeback knobs, vm.dirty_*: they decide how long dirty data
 * waits in memory, which is what a run measures; nothing else of the
 * machine is touched.
 *
 * The knobs are the machine's, and two runs at once may both want them:
 * one host-wide record says who set what.  It lives in a directory
 * (PC_SYSCTL_DIR, on /run: a reboot clears it, as it clears the values)
 * made 0700, and is read and written under an flock of DIR/lock, held
 * only for that.  For each knob a run changed it holds the machine's
 * original value, the value set, and the holders: the runs using that
 * value, each a PID with that process's start time (/proc/PID/stat field
 * 22), so that a PID used again by another process is not taken for the
 * holder.  The first run to want a knob writes its original value to the
 * record durably (a temporary file, synced, renamed, the directory
 * synced) before setting it; a run that wants the value already set
 * shares it; a run that wants another value waits until no one holds it.
 * When a run lets go, every knob no live run holds any more gets its
 * original value back and leaves the record; the record file goes with
 * the last knob.  A holder that died without letting go (SIGKILL, a
 * crash) is dropped by whoever takes the lock next (a run setting knobs,
 * letting go, or starting: pc_sysctl_recover), who puts back what no live
 * run holds then.
 */
#ifndef POWERCUT_SYSCTL_H
#define POWERCUT_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* The record's directory on this machine. */
#define PC_SYSCTL_DIR "/run/powercut/sysctl"

struct pc_sysctl {
  char name[48];                /* vm.dirty_expire_centisecs */
  char value[32];               /* what to set */
  char old[32];                 /* the machine's own value (pc_sysctl_take) */
  bool set;                     /* held by this process, to be let go */
};

/* Where the record and the knobs are. */
struct pc_sysctl_host {
  const char *dir;              /* the record's directory (made 0700, as is
                                 * its parent if missing): NULL for PC_SYSCTL_DIR */
  const char *proc;             /* the knobs: NULL for /proc/sys (a test's
                                 * directory holding vm/dirty_...) */
};

/* Who holds a knob another value of which was asked for. */
struct pc_sysctl_busy {
  char name[48];
  long pid;
};

/* Parses NAME=VALUE (a vm.dirty_* knob, a number).  Returns 0, or -EINVAL
 * with a reason in why. */
int pc_sysctl_parse (const char *s, struct pc_sysctl *ret, struct pc_err *why);

/* One attempt at setting the knobs of v for this process, all or none.
 * Under the lock, first drops dead holders (as pc_sysctl_recover).
 * Returns 0 when this process holds every knob of v at the value asked
 * (v[i].old: the machine's own value; v[i].set), 1 when one of them is
 * held by another live process with another value (which, and by whom,
 * in busy; nothing taken), or -errno with a reason in why (nothing taken
 * or changed).  A knob given twice ends with its last value. */
int pc_sysctl_take (struct pc_sysctl *v, size_t n, const struct pc_sysctl_host *h,
                    struct pc_sysctl_busy *busy, struct pc_err *why);

/* pc_sysctl_take until it returns other than 1, polling with the lock
 * released; waiting (if not NULL) is called once for each holder waited
 * for.  Interrupted (pc_interrupted, err.h): -EINTR.  Returns 0 or
 * -errno with a reason in why. */
int pc_sysctl_apply (struct pc_sysctl *v, size_t n, const struct pc_sysctl_host *h,
                     void (*waiting) (void *ctx, const char *name, long pid), void *ctx,
                     struct pc_err *why);

/* Lets go of the knobs of v this process holds (v[i].set), and drops dead
 * holders: each knob no live process holds any more is put back.  Returns
 * 0, or -errno (the first failure) with a reason in why; a knob that could
 * not be put back stays in the record, held by no one, for whoever takes
 * the lock next to try again. */
int pc_sysctl_release (struct pc_sysctl *v, size_t n, const struct pc_sysctl_host *h,
                       struct pc_err *why);

/* Drops the holders that died and puts back the knobs no live process
 * holds.  Returns how many were put back, listed in done ("NAME=VALUE
 * ..."), or -errno with a reason in why. */
int pc_sysctl_recover (const struct pc_sysctl_host *h, char *done, size_t donelen,
                       struct pc_err *why);

#endif
