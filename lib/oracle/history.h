/* history.h: what a traced program did to every path, from the events of
 * a log (event.h), and whether a crash state holds what it really had.
 *
 * The history replays the events in log order.  It follows nodes (a file,
 * a directory, a symbolic link; a file known by its inode number) and the
 * names bound to them: a creation, rename, link or unlink changes a name
 * at its call's entry record (the call had started: any of its effects may
 * be in a crash state after it).  A file's content is its size and, per
 * 4 KiB block, the hash of what the block held after each call that
 * changed it (the exit event's hashes), stamped with the call's entry
 * record.  A file the first manifest mark names (the filesystem before the
 * program ran) starts with its size and blocks of unknown content, which
 * accept anything.
 *
 * Durable: a file's data and size, at the exit of fsync or fdatasync of
 * it; a byte range, at the exit of an O_SYNC/O_DSYNC or RWF_SYNC/RWF_DSYNC
 * write to it or of msync(MS_SYNC) of a range of it: its blocks, and a
 * size reaching its end (or the file's end then, or a smaller size a
 * later call gave it), not the file's size; a directory's
 * entries, at the exit of an fsync of it; everything, at the exit of sync
 * or syncfs, and at a synced mark; a path's name and data, at a mark that
 * names it durable.  sync_file_range and close make nothing durable.
 *
 * A file with a shared writable mapping: what the mapping wrote is seen
 * only when a call hashes the file (msync, munmap, the end of the process,
 * fsync, fdatasync, and the tracer's read at each acknowledgement:
 * snapshots).  A snapshot that shows a block as before
 * is no version; one that shows it changed means the mapping wrote it
 * after it was last seen: anything from then until the snapshot.
 *
 * The point judged at is the crash state's moment (crash.h): at point c,
 * path P may hold: any name state from the last point its directory's
 * entries were durable up to c; for a file, a size from
 * its last durable point up to c and, block by block, what the block held
 * then or after (the kernel writes back any subset of what is dirty).  The
 * judgement of what does not fit says which rule it rests on (a lost
 * version that had been made durable: a broken promise; else exposure of
 * data never made durable) and names the call behind the lost version.
 * A version made durable and lost is a broken promise whatever form the
 * loss takes (older content, zeros, an empty or shorter file) and
 * whatever changed the file since (an unsynced append or rewrite in
 * place): a file shorter than its durable size and than every size set
 * since, or a block holding what it held before its durable point (or
 * zeros) where it holds nothing written since; unless the program gave
 * it up since (a rename over it, an unlink and a new file, a truncate
 * to the block's start or below): the data lost then is the
 * replacement's, never made durable, and the program's fault
 * (doc/fault.md has the model).
 */
#ifndef POWERCUT_HISTORY_H
#define POWERCUT_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/mark.h"
#include "replay/crash.h"
#include "result/finding.h"
#include "util/err.h"

struct pc_history;

/* Builds the history of the events in ix, with its marks (or, marks false,
 * only the first with a manifest: the tree before the program).  Returns 0
 * (a log without events gives an empty history), -ENOMEM, or -EBADMSG
 * with the record at fault in err. */
int pc_history_new (const struct pc_index *ix, bool marks, struct pc_history **ret,
                    struct pc_err *err);
void pc_history_free (struct pc_history *h);

/* How many events it was built from (0: nothing is followed). */
uint64_t pc_history_events (const struct pc_history *h);

/* The largest size it saw a file have (0 if none). */
uint64_t pc_history_max_size (const struct pc_history *h);

/* The paths it follows (relative to the root, as manifests name them),
 * sorted; *ret_n of them. */
const char *const *pc_history_paths (const struct pc_history *h, size_t *ret_n);

/* Its judgement of one path. */
struct pc_history_verdict {
  int kind;                     /* 0: what the program had; else a finding kind:
                                 * PC_V_ZERO_LENGTH, _ZERO_FILLED, _MISSING,
                                 * _MISMATCH, _DURABLE_LOST, or PC_F_NOT_JUDGED */
  bool name;                    /* it is about what the name is bound to (a
                                 * rename, link, unlink or creation), not data */
  uint32_t call;                /* for a name: the call that bound it as lost
                                 * (UINT32_MAX: none known) */
  bool mapped;                  /* for data: a shared writable mapping stored the
                                 * version lost (msync keeps it, and the fix
                                 * says so) */
  struct pc_cause cause;        /* why (finding.h); the caller frees its strings */
};

/* Judges found (NULL: the path is absent) at path in the crash state at
 * point.  Returns 0 with *ret filled, or -ENOMEM.  A path found as it was
 * at an earlier point judged fine, with no event of its own (its names,
 * the nodes they were bound to, its directories' durable points) nor a
 * sync in between, is fine again without being judged anew (histmemo.c),
 * unless the history is plain. */
int pc_history_judge (const struct pc_history *h, uint64_t point, const char *path,
                      const struct pc_entry *found, struct pc_history_verdict *ret);

/* Judge every path at every point anew (the plain method, for
 * comparison). */
void pc_history_set_plain (struct pc_history *h, bool plain);

/* Tells the history whether the filesystem has no journal (ext2, ext4
 * -O ^has_journal): then a directory's fsync makes its names durable,
 * not the files they name, and a file, directory or symbolic link made
 * (a directory also moved) in the recording, never synced itself (nor by
 * a sync), found missing with its name is nobody's fault; nor, as nothing orders
 * its metadata writes, is a durable name changed since (renamed over,
 * unlinked), the change not yet durable, found missing or holding
 * another file's data (doc/fault.md).  Off until it is called. */
void pc_history_set_no_journal (struct pc_history *h, bool no_journal);

/* Tells the history what the end of the recording (its last point, point)
 * holds: a file that holds there data (not zeros) the program never wrote
 * was changed by something the tracer does not see (a process outside
 * the traced tree), and is not judged at any point (PC_F_NOT_JUDGED, with
 * that rule); a loss (zeros, an empty file, a name gone) is still judged.  end NULL (unreadable): nothing changes.  Returns 0 or -ENOMEM. */
int pc_history_set_end (struct pc_history *h, uint64_t point, const struct pc_mark *end);

/* What the state lost of what the program had at floor (a point at or
 * before point: its last acknowledgement, a mark): 0 in ret->kind if found
 * is what the program had at floor or since, or a version made durable
 * after; else PC_F_OLDER with the cause: the call that made the version
 * lost, when it became durable if it did, and the fsync that would have
 * kept it.  For the points an application's checker fails (--verify),
 * and for the acknowledged data a state lost (without one).  With kept,
 * only what the program kept at the name counts: a path absent at floor
 * (whatever the state holds there is more than the program had), or
 * bound to a file the program moves from the name later or deletes by
 * point (a temporary name), loses nothing; without, every path older
 * than at floor is named (a checker's restore test tells which
 * mattered: a journal a state still holds may be what it lost).  A
 * path found as it was, with no event of its own nor a sync between, at
 * or before both floor and point, as when it was last judged not older,
 * is not judged anew (histmemo.c), unless the history is plain.  Returns
 * 0 or -ENOMEM. */
int pc_history_older (const struct pc_history *h, uint64_t point, uint64_t floor, bool kept,
                      const char *path, const struct pc_entry *found,
                      struct pc_history_verdict *ret);

/* Does the program treat path as durable data: did it sync a file bound
 * to it at least once (fsync, fdatasync, a synchronous write,
 * msync(MS_SYNC), sync_file_range waiting for the writes, a mark naming
 * it durable), or everything (sync, syncfs, a synced mark, before its
 * command ended) while a file was bound to it?  A file it never syncs
 * (an index it rebuilds, a lock, a log, a pid file) is not what its
 * acknowledgements promise. */
bool pc_history_synced (const struct pc_history *h, const char *path);

/* What path held at record at (a point), for restoring it: absent, or a
 * file of size bytes whose block b (of PC_EVENT_BLOCK bytes, the last
 * one as far as the file goes) held data of hashes[b] (XXH3-64, as the
 * events hash it), or zeros where zero[b].  *ret_known false where some
 * block's content was never hashed (a file there before the program, a
 * call not hashed, what a mapping wrote unseen), or the path was a
 * directory or a link then: it cannot be restored.  The arrays are
 * malloc'd (NULL for an absent or empty file).  Returns 0 or -ENOMEM. */
struct pc_history_content {
  bool known, present;
  uint64_t size;
  uint64_t *hashes;
  bool *zero;
};
int pc_history_content_at (const struct pc_history *h, uint64_t at, const char *path,
                           struct pc_history_content *ret);
void pc_history_content_free (struct pc_history_content *c);

/* A version of a path: what it held after a call that changed it (a
 * creation, rename, link or unlink of the name; a change of the data or
 * size of the file bound to it).  The durability windows of a traced
 * program follow them. */
struct pc_history_version {
  const char *path;
  const char *call;             /* the call's text (NULL: none known) */
  uint64_t record;              /* its entry record */
  const char *durable_by;       /* what first made its data and name durable (a
                                 * call's text, "the mark NAME ..."), or NULL: never */
  uint64_t durable_record;      /* then (if durable_by) */
};

/* Every version that mattered (the last of a path, and each that it held
 * at a sync, a mark, or a sync of its file or directory: not every write),
 * by path (pc_history_paths' order) then record; at most 512 of a path,
 * evenly spaced.  *ret_n of them; valid while h is. */
const struct pc_history_version *pc_history_versions (const struct pc_history *h,
                                                      size_t *ret_n);

/* Calls fn with the index of every version of the path pc_history_paths
 * lists at index (its order), up to point, that a
 * crash state holding found there (NULL: absent) lost: the versions after
 * the newest one it holds (or a later state of it: a file holds a version
 * when its size reaches the version's, or is the version's after a call
 * that made it smaller, and its blocks hold what they held then or
 * since).  Nothing for a path not followed or not judged. */
typedef void pc_history_lost_fn (void *ctx, size_t version);
void pc_history_lost (const struct pc_history *h, uint64_t point, size_t index,
                      const struct pc_entry *found, pc_history_lost_fn *fn, void *ctx);

#endif
