/* window.h: durability windows, how long each version a mark recorded
 * stayed at risk.
 *
 * For every version of a file or symlink that a manifest mark recorded
 * (oracle.h says which versions a crash state holds), in seconds since the
 * recording started:
 *   written   the time of the mark that recorded it;
 *   durable   the time of the first crash state from which every later
 *             crash state holds it or a later version of its path (none:
 *             some state lost it up to the last crash state checked);
 *   window    durable - written, 0 if it was durable by its mark;
 *   exposed   how long after written crash states still lost it: the time
 *             of the last crash state at or after its mark that did not
 *             hold it, minus written (0: none did);
 *   acknowledged_exposed   the same after the mark that made it durable
 *             (a synced mark, or --durable naming it): acknowledged data
 *             a crash still lost (0 on a filesystem that keeps its word).
 * Crash states whose files could not be read (fs-corrupt, unmountable, not
 * checked) hold no opinion: they are left out.  A version checked in
 * shards is joined by pc_windows_merge from each shard's last state that
 * lost it.
 */
#ifndef POWERCUT_WINDOW_H
#define POWERCUT_WINDOW_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "check/checker.h"

struct pc_window {
  char *path;
  char mark[PC_ID_MAX];         /* the mark that recorded it */
  uint64_t mark_record;
  uint64_t written_ns;          /* that mark's time */
  char ack[PC_ID_MAX];          /* the mark that made it durable, or "" */
  uint64_t ack_record;
  uint64_t ack_ns;
  int64_t lost_until;           /* the index of the last point that lost it, or -1 */
  /* pc_windows_compute */
  int64_t durable_ns;           /* -1: not durable at the last point */
  uint64_t window_ns, exposed_ns, ack_exposed_ns;
};

/* What a configuration's windows come to. */
struct pc_window_summary {
  size_t n;                     /* versions */
  size_t never;                 /* ... not durable at the last point */
  size_t exposed;               /* ... that crash states lost after their mark */
  uint64_t longest_ns;          /* the longest window of a version made durable, */
  size_t longest;               /* whose index (SIZE_MAX if none) */
  uint64_t median_ns;           /* the median window of those */
  uint64_t ack_exposed_ns;      /* the longest acknowledged exposure, */
  size_t ack_exposed;           /* whose index (SIZE_MAX if none) */
  uint64_t open_ns;             /* the longest time a version not durable at
                                 * the last point had been at risk by then */
};

/* A record's time as reports keep it: to the microsecond, so that windows
 * computed again from a JSON report (merge) are the same to the last digit. */
static inline uint64_t
pc_window_time (uint64_t ns)
{
  return (ns + 500) / 1000 * 1000;
}

/* Fills the derived fields of res->windows from lost_until and the
 * points' times. */
void pc_windows_compute (struct pc_check_result *res);

void pc_windows_summary (const struct pc_check_result *res, struct pc_window_summary *ret);

/* The text report's section (nothing if there are no versions). */
void pc_windows_text (FILE *f, const struct pc_check_result *res);

/* The summary as JSON: versions, longest, median, not_durable, open,
 * exposed_versions, acknowledged_lost and acknowledged_exposed (seconds;
 * null where there is none), or NULL without memory. */
json_object *pc_windows_summary_json (const struct pc_window_summary *s);

/* The JSON report's "windows" object (report.h): the summary and the
 * "list" of every version, or NULL without memory. */
json_object *pc_windows_json (const struct pc_check_result *res);

/* Reads o (a "windows" object) into res, whose points are read.  Returns
 * 0, -ENOMEM, or -EBADMSG with a reason in why. */
int pc_windows_read_json (json_object *o, struct pc_check_result *res, char *why, size_t len);

/* Joins the shards' windows into res, whose points are the shards' in
 * order.  Returns 0, -ENOMEM, or -EINVAL (the shards follow different
 * versions) with a reason in why. */
int pc_windows_merge (struct pc_check_result **parts, size_t n, struct pc_check_result *res,
                      char *why, size_t len);

void pc_windows_free (struct pc_check_result *res);

#endif
