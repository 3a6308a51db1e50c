/* oracle.h: what the workload expected, and whether a crash state has it.
 *
 * The oracle is built from a log's marks.  For a crash point c and a path P:
 * D is the last mark at or before c that made P durable (a synced mark, or
 * one naming P with --durable); N is the first mark after c (none: the last
 * mark).  P's allowed versions are the versions it had at the marks with a
 * manifest from D to N, absence counting as a version where P was absent;
 * with no D, P may also be absent (as before the first mark).  What the
 * image holds at P must be one of them, else (first that applies):
 *   missing       absent where every allowed version exists
 *   zero-length   an empty file where every allowed version has data
 *   durable-lost  a version from before D: rolled back
 *   mismatch      anything else (torn, stale, garbage)
 * Paths no manifest in the log mentions are listed, not failed.  Versions
 * compare by type, permission bits, size and content hash (files) or
 * target (symlinks).
 */
#ifndef POWERCUT_ORACLE_H
#define POWERCUT_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "crash.h"
#include "fsck.h"
#include "mark.h"

struct pc_oracle;

/* Decodes the marks of ix.  Returns 0, or -EBADMSG with the record at fault
 * in why, or -ENOMEM. */
int pc_oracle_new (const struct pc_index *ix, struct pc_oracle **ret, char *why, size_t len);
void pc_oracle_free (struct pc_oracle *o);

/* How many marks carry a manifest (none: the oracle judges nothing). */
size_t pc_oracle_manifests (const struct pc_oracle *o);

/* The largest size of a regular file in any manifest (0 if none). */
uint64_t pc_oracle_max_size (const struct pc_oracle *o);

/* Judges found (the tree of the crash state at point) and returns the worst
 * verdict, PC_V_OK if every path is allowed.  Findings, one per line:
 *   VERDICT TAB PATH TAB FOUND TAB ALLOWED
 * with VERDICT "unmentioned" for paths no manifest names (not failures). */
enum pc_verdict pc_oracle_judge (const struct pc_oracle *o, uint64_t point,
                                 const struct pc_mark *found, char *findings, size_t len);

#endif
