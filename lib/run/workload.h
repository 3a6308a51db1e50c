/* workload.h: the built-in workloads of powercut run.
 *
 * A workload runs in the mounted filesystem's root (its current directory)
 * and places its own marks through the control socket.  Each is a pattern
 * applications use to save data, with and without the fsync() that makes
 * it safe:
 *   replace-rename          write NAME.tmp, rename over NAME, no fsync
 *   replace-rename-fsync    the same with fsync(tmp) and fsync(dir)
 *   truncate-rewrite        truncate NAME and write it again, no fsync
 *   truncate-rewrite-fsync  the same with fsync
 *   append                  append records to a log file, fdatasync now and then
 *   random                  a seeded, bounded mix of creates, writes,
 *                           truncates, renames, links, unlinks, mkdir/rmdir
 *                           and fsync/fdatasync/syncfs, with a mark after each
 *                           persistence call
 *   steady                  in real time: every second, one file in each of
 *                           five directories rewritten the way it names
 *                           (rename/, truncate/, new/ files, the first two
 *                           again with EXT4_IOC_ALLOC_DA_BLKS before the
 *                           rename or close), a mark after each second;
 *                           idle until the kernel wrote everything back on
 *                           its own timers (vm.dirty_expire +
 *                           dirty_writeback + commit); then, alone (an
 *                           fsync commits the journal for everyone), up to
 *                           10 s of the same in rename-fsync/ with fsync
 *   rename-over             in real time: rounds of rewriting every file by
 *                           write-temp-then-rename without fsync, each 1 s
 *                           and a seeded fraction of a second after the
 *                           last, a mark after each; idle as steady is
 * Workloads that rewrite without fsync want a short journal commit interval
 * (commit=1) and wait commit_s + 1 seconds before the final sync, so the
 * journal commits on its own timer first.  The random workload wants a long
 * one (commit=300), so that only its own sync calls reach the disk and the
 * same seed gives the same crash points.  steady wants the kernel's own
 * timing (commit_s 0: no commit= is added): it measures durability windows;
 * so does rename-over, where ext4's own timing decides what a crash finds.
 * Every sync a workload does is syncfs() of its root, the recorded
 * filesystem alone: never sync(), which writes back the whole machine and
 * disturbs another recording running beside it.
 */
#ifndef POWERCUT_WORKLOAD_H
#define POWERCUT_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

struct pc_workload_env {
  const char *control;          /* the recorder's control socket */
  const char *root;             /* the mount point (also the current directory) */
  uint64_t seed;
  unsigned files;               /* how many files (default 20) */
  unsigned commit_s;            /* the journal commit interval the mount uses */
  unsigned seconds;             /* how long a timed workload writes (0: its default) */
  /* Receives what the workload does, one line at a time (may be NULL). */
  void (*trace) (void *ctx, const char *line);
  void *trace_ctx;
};

struct pc_workload {
  const char *name;
  const char *what;
  int (*run) (const struct pc_workload_env *env);
  unsigned commit_s;            /* the journal commit interval it wants (commit=;
                                 * 0: the filesystem's own) */
};

/* The built-in workloads, and one by name (NULL if unknown). */
const struct pc_workload *pc_workloads (size_t *ret_n);
const struct pc_workload *pc_workload_find (const char *name);

#endif
