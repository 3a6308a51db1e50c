/* oracle.h: what the workload expected, and whether a crash state has it.
 *
 * The oracle is built from a log's marks.  For a crash point c and a path P:
 * D is the last mark at or before c that made P durable (a synced mark, or
 * one naming P with --durable); N is the first mark after c (none: the last
 * mark).  P's allowed versions are the versions it had at the marks with a
 * manifest from D to N, absence counting as a version where P was absent;
 * with no D, P may also be absent (as before the first mark).  What the
 * image holds at P must be one of them, else (first that applies):
 *   not-judged    c is after the last manifest mark and P differs there
 *                 from what the end of the recording holds: the workload
 *                 changed P after its last mark and never said what P
 *                 should hold; listed, not failed (pc_oracle_set_end)
 *   missing       absent where every allowed version exists
 *   zero-length   an empty file where every allowed version that is a
 *                 file has data (absence may be allowed too)
 *   zero-filled   a file that is not empty and holds only zeros where
 *                 every allowed version that is a file has data that is
 *                 not all zeros (absence may be allowed too); a file only
 *                 partly zeros is a mismatch whose found says how many of
 *                 its blocks are all zeros (pc_entry.zero_blocks)
 *   durable-lost  a version from before D: rolled back
 *   mismatch      anything else (torn, stale, garbage)
 * Paths no manifest in the log mentions are listed ("unmentioned"), not
 * failed.  Versions compare by type, permission bits, size and content
 * hash (files) or target (symlinks).
 *
 * Durability windows (window.h) follow each version of a file or symlink:
 * a path's content at a manifest mark that differs from its content at
 * the mark before (or that was absent there); for the paths a traced
 * program's history follows, every version the program had instead (each
 * call's result, history.h: pc_history_versions and pc_history_lost).  A crash state at point c
 * holds version v of P when the newest mark up to N (c's first later mark,
 * or the last) whose P matches what the state has there (absence too) is
 * v's mark or later; otherwise it lost v (if v's mark is also up to N: a
 * version recorded later is not yet expected).  A path changed after the
 * last mark is not followed in the states after it.
 */
#ifndef POWERCUT_ORACLE_H
#define POWERCUT_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/crash.h"
#include "result/finding.h"
#include "result/verdict.h"
#include "format/mark.h"
#include "oracle/history.h"
#include "util/err.h"

struct pc_oracle;

/* What the oracle judges by (flags of pc_oracle_new): both by default. */
#define PC_ORACLE_NO_EVENTS 1u  /* the marks alone: a traced program's events
                                 * are ignored */
#define PC_ORACLE_NO_MARKS  2u  /* the events alone: of the marks, only the first
                                 * with a manifest (the tree before the program) */
#define PC_ORACLE_PLAIN     4u  /* every path judged anew at every point (the plain
                                 * method: no judgement kept, history.h) */

/* Decodes the marks of ix (and its events).  Returns 0, or -EBADMSG with
 * the record at fault in err, or -ENOMEM. */
int pc_oracle_new (const struct pc_index *ix, unsigned flags, struct pc_oracle **ret,
                   struct pc_err *err);
void pc_oracle_free (struct pc_oracle *o);

/* How many marks carry a manifest. */
size_t pc_oracle_manifests (const struct pc_oracle *o);

/* Does it judge anything: a manifest, or a traced program's events
 * (history.h, which then judges every path it follows)? */
bool pc_oracle_judges (const struct pc_oracle *o);

/* How many events of a traced program it follows (0: none). */
uint64_t pc_oracle_events (const struct pc_oracle *o);

/* The largest size of a regular file in any manifest, or that a traced
 * program gave a file (0 if none): larger files are not read whole. */
uint64_t pc_oracle_max_size (const struct pc_oracle *o);

/* Tells the oracle what the end of the recording holds (the tree of its
 * last state), or NULL if that could not be read: then every path counts
 * as changed after the last mark.  Until it is called, none does.  A
 * traced program's paths whose end is none of what it had there are not
 * judged (pc_history_set_end).  Returns 0 or -ENOMEM. */
int pc_oracle_set_end (struct pc_oracle *o, const struct pc_mark *end);
/* Tells the oracle that the filesystem has no journal
 * (pc_history_set_no_journal). */
void pc_oracle_set_no_journal (struct pc_oracle *o, bool no_journal);

/* The name of the last mark with a manifest, or NULL. */
const char *pc_oracle_last_mark (const struct pc_oracle *o);

/* A version of a file or symlink, as a manifest mark first recorded it,
 * or as a traced program's call made it. */
struct pc_oracle_version {
  const char *path;
  const char *mark;             /* the name of the mark that recorded it, or the
                                 * text of the call */
  uint64_t record;              /* that mark's record (the call's entry) */
  const char *ack;              /* the first mark from that one on, while the path
                                 * still had this version, that made it durable
                                 * (synced, or naming it with --durable), or what
                                 * first made the call's version durable; NULL:
                                 * nothing did */
  uint64_t ack_record;          /* its record (if ack) */
};

/* Every version, by path, then in mark order (*ret_n of them). */
const struct pc_oracle_version *pc_oracle_versions (const struct pc_oracle *o, size_t *ret_n);

/* Called for every version (an index into pc_oracle_versions) a state
 * does not hold. */
typedef void pc_oracle_lost_fn (void *ctx, size_t version);

/* Judges found (the tree of the crash state at point): appends a finding
 * for every path that is not allowed and for every path no manifest names
 * (finding.h), and sets *ret_verdict to the worst verdict (verdict.h's
 * rank), PC_V_OK if every path is allowed.  With lost, reports the
 * versions the state lost.  Returns 0 or -ENOMEM. */
int pc_oracle_judge (const struct pc_oracle *o, uint64_t point, const struct pc_mark *found,
                     struct pc_findings *out, pc_oracle_lost_fn *lost, void *lost_ctx,
                     enum pc_verdict *ret_verdict);

/* What a traced program's path held at record at (history.h,
 * pc_history_content_at); *ret all false if no program's history
 * follows it.  Returns 0 or -ENOMEM. */
int pc_oracle_content_at (const struct pc_oracle *o, uint64_t at, const char *path,
                          struct pc_history_content *ret);

/* An acknowledgement: a line a traced program printed (an ACK event), or
 * a mark after the first (the first is the tree before the program): what
 * it said, its record and its time. */
struct pc_oracle_ack {
  const char *text;
  uint64_t record;
  uint64_t time_ns;
};

/* What the state at point lost of what a traced program had by its last
 * acknowledgement ack (at or before point): appends to out (which holds
 * the point's findings) a finding of kind for every path it changed whose
 * state is older than what it had at ack and that has no finding yet,
 * with its cause (the call that wrote the version lost, the
 * acknowledgement, the fsync that would have kept it).  kind is
 * PC_V_ACK_LOST (no checker: the program's fault, for it acknowledged
 * what it had not made durable) or PC_F_OLDER (where an application's
 * checker failed: a note; with ack->text NULL, nothing acknowledged, ack
 * the state's moment: a note that says so).  *ret_n, if not NULL, gets how many were
 * appended.  Returns 0 or -ENOMEM. */
int pc_oracle_older (const struct pc_oracle *o, uint64_t point, const struct pc_oracle_ack *ack,
                     int kind, const struct pc_mark *found, struct pc_findings *out,
                     size_t *ret_n);

#endif
