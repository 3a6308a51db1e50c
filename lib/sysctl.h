/* sysctl.h: kernel knobs a run sets, and puts back whatever happens.
 *
 * Only the writeback knobs, vm.dirty_*: they decide how long dirty data
 * waits in memory, which is what a run measures; nothing else of the
 * machine is touched.  Before changing a value, the old ones are written
 * durably to a save file; pc_sysctl_restore() puts them back and removes
 * it, and pc_sysctl_recover() puts back what a save file left by a run
 * that was killed (SIGKILL, a power cut) holds.
 */
#ifndef POWERCUT_SYSCTL_H
#define POWERCUT_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>

struct pc_sysctl {
  char name[48];                /* vm.dirty_expire_centisecs */
  char value[32];               /* what to set */
  char old[32];                 /* what it was (pc_sysctl_apply) */
  bool set;                     /* changed, to be put back */
};

/* Parses NAME=VALUE (a vm.dirty_* knob, a number).  Returns 0, or -EINVAL
 * with a reason in why. */
int pc_sysctl_parse (const char *s, struct pc_sysctl *ret, char *why, size_t len);

/* Reads the old values into v, writes them to save_path (synced), then
 * sets the new ones.  Returns 0 or -errno with a reason in why; values set
 * before a failure are put back. */
int pc_sysctl_apply (struct pc_sysctl *v, size_t n, const char *save_path, char *why, size_t len);

/* Puts back what pc_sysctl_apply changed and removes save_path.  Returns 0,
 * or -errno (the first failure) with a reason in why; the save file stays
 * then, for pc_sysctl_recover. */
int pc_sysctl_restore (struct pc_sysctl *v, size_t n, const char *save_path, char *why, size_t len);

/* If save_path exists, sets the values it holds and removes it.  Returns
 * how many were put back (0: there was no file), or -errno with a reason
 * in why; what it put back is listed in done ("NAME=VALUE ..."). */
int pc_sysctl_recover (const char *save_path, char *done, size_t donelen, char *why, size_t len);

#endif
