/* gen.h: the workloads powercut explore runs (after CrashMonkey's ACE):
 * short sequences of file operations over a fixed small set of files,
 * each operation followed by a persistence call, enumerated in a fixed
 * order (every sequence of a length) or sampled from a seed.
 *
 * The files: f0 and f1 in the root, f0 and f1 in each of the directories
 * d0 and d1, f2 in the root, and the nested directory d0/n; before its
 * operations, every workload makes them (each file 16 KiB of data with
 * the extended attribute user.pc, f2 14,000 bytes: its last block partly
 * used; d0 has the attribute too) and syncs.  Two more, new and d0/new, are the
 * workload's own: an operation that needs one makes it first (touch, not
 * synced).  An operation names a kind (its argument class:
 * "write.append", "falloc.punch.inside", "rename.dir.up", ...) and a
 * target file; the persistence call after it (enum pc_gen_persist) syncs
 * what it changed, its directory, the root, an unrelated file, or all,
 * or nothing, and the last one is never none.  An operation that needs
 * what an earlier one removed (a write to a file unlinked before), or a
 * call that repeats another (fsync.root of a file in the root), makes the
 * sequence invalid: it is not generated.
 *
 * A workload is written for people and back as one line of text:
 *   "write.append f0 fsync; unlink d0/f1 sync"
 * and for a shell as commands of coreutils, xfs_io (xfsprogs) and
 * setfattr (attr), run in the directory the files are in.
 */
#ifndef POWERCUT_GEN_H
#define POWERCUT_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

#define PC_GEN_MAX_OPS 3
#define PC_GEN_FILES 9              /* f0 f1 d0/f0 d0/f1 d1/f0 d1/f1 f2, and
                                     * new d0/new: not made by the setup */
#define PC_GEN_TEXT_MAX 256         /* a workload as text, with its NUL */

/* After an operation: nothing; an fsync or fdatasync of what it changed
 * (for a name it removed, of its directory); sync; an fsync of the
 * directory of what it changed, of the root, or of a file it did not
 * touch (d1/f1, or f1 for d1/f1). */
enum pc_gen_persist { PC_GEN_NONE, PC_GEN_FSYNC, PC_GEN_FDATASYNC, PC_GEN_SYNC,
                      PC_GEN_FSYNC_PARENT, PC_GEN_FSYNC_ROOT, PC_GEN_FSYNC_OTHER,
                      PC_GEN_NPERSIST };

struct pc_gen_step {
  uint8_t kind;                     /* an index of the kinds (pc_gen_kind_name) */
  uint8_t target;                   /* a file, 0 .. PC_GEN_FILES - 1 */
  uint8_t persist;                  /* enum pc_gen_persist */
};

struct pc_gen_workload {
  unsigned nsteps;                  /* 1 .. PC_GEN_MAX_OPS */
  struct pc_gen_step step[PC_GEN_MAX_OPS];
};

/* The kinds of operation, by index (NULL past the last). */
const char *pc_gen_kind_name (unsigned kind);

/* The argument classes beyond ACE's that some kinds belong to (each kind
 * to one, or to none: 0): size (a file truncated to 0; 1, 511, 4095,
 * 4096, 4097 bytes and three blocks appended), unaligned (an overwrite
 * across a block boundary), dsync (RWF_DSYNC, O_DSYNC's promise for one
 * write: buffered, and O_DIRECT),
 * append (O_APPEND), dirxattr (an extended attribute set on and removed
 * from a directory), large (4 MiB appended) and deep (a file made in
 * d0/n, a third level). */
#define PC_GEN_NCLASSES 8

/* A kind's class, 1 .. PC_GEN_NCLASSES - 1, or 0 if none. */
unsigned pc_gen_kind_class (unsigned kind);

/* A class's name ("size", ...); NULL for 0 and past the last. */
const char *pc_gen_class_name (unsigned cls);

/* Is every operation of w possible where it comes (its file there, its new
 * name free), and is the last persistence call not none? */
bool pc_gen_valid (const struct pc_gen_workload *w);

/* The workloads of n operations (1 .. PC_GEN_MAX_OPS) are the positions
 * 0 .. pc_gen_positions (n) - 1 of a fixed order (the first step varies
 * slowest), valid or not; 0 for another n.  Length 1 tries five targets
 * (f0, d0/f0, f2, new and d0/new) and no "none"; longer ones every target
 * and every call. */
uint64_t pc_gen_positions (unsigned n);

/* How many workloads of n operations there are: places in the order,
 * valid workloads, those of no argument class, and those with an
 * operation of each class (a workload may count in several). */
struct pc_gen_counts {
  uint64_t places, workloads, plain;
  uint64_t in_class[PC_GEN_NCLASSES];   /* [0] unused */
};

/* Counts them by enumerating every place: seconds for n = 2; n = 3 has
 * too many places to count (hours). */
void pc_gen_count (unsigned n, struct pc_gen_counts *c);

/* The workload at position pos into *w; true if it is valid. */
bool pc_gen_at (unsigned n, uint64_t pos, struct pc_gen_workload *w);

/* Every valid workload of n operations in that order: *pos starts at 0;
 * each call puts the next one in *w, leaves *pos just past its position
 * and returns true, or false after the last. */
bool pc_gen_next (unsigned n, uint64_t *pos, struct pc_gen_workload *w);

/* The i-th of count workloads of n operations sampled evenly over the
 * whole order: the positions are cut into count equal stretches (fewer if
 * there are fewer positions), and stretch i gives the first valid workload
 * that want (if not NULL) accepts, at or after a place seed picks in it,
 * looking round to the stretch's start.  Puts it in *w and its position
 * in *pos and returns true; false if the stretch has none (or i is past
 * the last).  The same for the same arguments. */
bool pc_gen_sample (unsigned n, uint64_t seed, uint64_t i, uint64_t count,
                    bool (*want) (const struct pc_gen_workload *, void *), void *arg,
                    uint64_t *pos, struct pc_gen_workload *w);

/* The i-th workload sampled from seed: 1 to PC_GEN_MAX_OPS operations, the
 * same for the same seed and i. */
void pc_gen_random (uint64_t seed, uint64_t i, struct pc_gen_workload *w);

/* w as one line of text into buf (PC_GEN_TEXT_MAX bytes). */
void pc_gen_format (const struct pc_gen_workload *w, char *buf);

/* Reads what pc_gen_format wrote.  Returns 0, or -EINVAL with why in err
 * (also for a workload that is not valid). */
int pc_gen_parse (const char *s, struct pc_gen_workload *w, struct pc_err *err);

/* Writes w's shell commands to f, in a directory the files are made in:
 * its setup (the files, then sync), and each operation and persistence
 * call.  With prefix, every operation and call is preceded by it and its
 * number ("PREFIX 2 xfs_io ..."), so that a wrapper can note one that
 * fails; without, they are plain commands.  Between setup and operations
 * it writes the line start (if not NULL). */
void pc_gen_script (const struct pc_gen_workload *w, FILE *f, const char *prefix,
                    const char *start);

/* The two halves of pc_gen_script: the setup (without its sync), and the
 * operations with their persistence calls. */
void pc_gen_setup_script (FILE *f, const char *prefix);

/* The line a workload on a freshly mounted base image starts with: the
 * root's times touched and the filesystem synced, so that its journal
 * has committed once since the mount, as it had after the setup in the
 * same mount.  ext4 makes no fast commit before the first full commit
 * of a mount (jbd2_fc_begin_commit): without it, every fsync of an
 * explored workload was a full commit, and a fast commit's bug could
 * not show. */
void pc_gen_prime_script (FILE *f);
void pc_gen_ops_script (const struct pc_gen_workload *w, FILE *f, const char *prefix);

/* How many operations and persistence calls (not none) w has: what
 * shrinking makes smaller. */
unsigned pc_gen_calls (const struct pc_gen_workload *w);

#endif
