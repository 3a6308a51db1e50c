/* report.h: check reports: text for people, JSON for programs, and merging
 * shard reports.
 *
 * JSON schema (version 1), one object:
 *   { "powercut": VERSION, "schema": 1, "log": PATH, "log_start_ns": N,
 *     "base": PATH or null, "keep_trimmed": BOOL, "model": "flush",
 *     "k": K, "seed": SEED, "from": MARK, "from_record": N,
 *     "records": N, "device_size": BYTES, "log_torn": BOOL,
 *     "shard": I, "shards": N, "seconds": S, "manifests": N, "events": N,
 *     "last_mark": NAME or null, "work": { ... },
 *     "windows": { "versions": N, "longest": S, "median": S, ...,
 *                  "list": [ { "path": P, "mark": M, "written": S,
 *                              "durable": S, "window": S, ...,
 *                              "lost_until": ID or null } ... ] },
 *     "totals": { "points": N, "unique": N, "ok": N, "fs-corrupt": N, ...,
 *                 "not-checked": N },
 *     "points": [ { "id": ID, "record": N, "time": S, "dropped": N, "torn": BOOL,
 *                   "verdict": V, "same_as": ID or null,
 *                   "fsck_same_as": ID or null, "evidence": [LINE...],
 *                   "findings": [ { "verdict": KIND, "path": P, "found": S,
 *                                   "allowed": S, "promise": BOOL,
 *                                   "cause": { "class": S, "rule": S,
 *                                              "call": S, "pid": N, "time": S,
 *                                              "durable_at": S or null,
 *                                              "durable_by": S, "fix": S } }
 *                                 ... ],
 *                   "replay": COMMAND } ... ] }
 * Points are in crash-point order.  A string that is not UTF-8 (a path,
 * found, allowed, log, base, the evidence) is written for people, and its
 * exact bytes go in hex under the same key with "_hex" appended, which
 * pc_report_read_json() reads back.  powercut-check(1) documents it.
 */
#ifndef POWERCUT_REPORT_H
#define POWERCUT_REPORT_H

#include <stdio.h>

#include <json-c/json.h>

#include "result/result.h"
#include "util/err.h"

/* Writes the text report.  Its first line is the headline
 * (pc_report_headline's first); where a point lost data never made
 * durable (the program's fault or nobody's), the second says that one
 * run is one sample of the kernel's timing (PC_REPORT_SAMPLE); then the
 * headline's second. */
void pc_report_text (FILE *f, const struct pc_check_result *res);

#define PC_REPORT_SAMPLE "one run is one sample of the kernel's timing: " \
  "powercut run --repeat N records it N times"

/* The text report of run k of n (n > 1) of one configuration (powercut
 * run --repeat n, each run in a folder of the configuration's): its
 * second line says which run it is, and that the n together are in the
 * configuration's report (../report.txt), whatever the run lost. */
void pc_report_text_run (FILE *f, const struct pc_check_result *res, size_t k, size_t n);

/* Writes the JSON report to path ("-" for stdout).  Returns 0 or -errno. */
int pc_report_json (const char *path, const struct pc_check_result *res);

/* Reads a JSON report.  Returns 0, -errno, or -EBADMSG (with a reason in why). */
int pc_report_read_json (const char *path, struct pc_check_result **ret,
                         struct pc_err *why);

/* Joins shard reports of one log and model into the report one unsharded
 * run gives.  Returns 0 or -EINVAL with a reason in why. */
int pc_report_merge (struct pc_check_result **parts, size_t n,
                     struct pc_check_result **ret, struct pc_err *why);

/* Why a finding is one, in a line for people: its class and rule, the
 * call that wrote what was lost and when (if ever) it was durable, and the
 * fix.  A malloc'd string, or NULL (no memory). */
char *pc_report_why (int kind, const struct pc_cause *c);

/* What a person reads first: line 1, what was lost and whose fault (the
 * filesystem's, the program's, nobody's: only data never made durable),
 * or that nothing was; line 2, which files, or what was checked.  Two
 * malloc'd strings (NULL without memory; the caller frees both). */
void pc_report_headline (const struct pc_check_result *res, char **ret_line1, char **ret_line2);

/* The command that rebuilds a point's image: as a reboot leaves it
 * (replay --recovered), as the check judged it, if the check recovered
 * it (pc_report_replay_recovered), else the raw state. */
void pc_report_replay_cmd (const struct pc_check_result *res, const struct pc_point *p,
                           char *buf, size_t len);

/* Did the check recover a state of verdict v (so that replay --recovered
 * rebuilds it)?  Not one unmountable (no ext2/3/4, a journal that cannot
 * be replayed) or not checked (fast commits, an e2fsck that did not
 * finish). */
bool pc_report_replay_recovered (enum pc_verdict v);

/* A path of the findings: the first finding of it (in crash-point order),
 * at how many points it was found, the first and the last; the one whose
 * fault weighs most (the filesystem's, the program's, nobody's: the first
 * of those), and at how many points each failing verdict and each fault
 * was found. */
struct pc_path_sum {
  const struct pc_finding *first;
  size_t npoints;
  const char *first_id, *last_id;
  const struct pc_finding *worst;
  const char *worst_id;
  size_t count[PC_V_COUNT];
  size_t faults[PC_FAULT_COUNT];
};

/* The distinct paths of res's findings of kind (a finding kind, or -1:
 * every kind that fails a point), sorted by path, in a malloc'd array
 * (*ret_n of them; NULL if none or without memory).  It points into res. */
struct pc_path_sum *pc_report_paths (const struct pc_check_result *res, int kind,
                                     size_t *ret_n);

/* Does any point fail? */
int pc_report_failed (const struct pc_check_result *res);

/* What makes a check fail (its exit status 1): any failing crash point
 * (exposure, the default), only one that broke a promise (promises: the
 * filesystem's fault, pc_point_broke_promise), or one that is the
 * filesystem's or the program's fault (program: pc_point_fault). */
enum pc_fail_on { PC_FAIL_ON_EXPOSURE, PC_FAIL_ON_PROMISES, PC_FAIL_ON_PROGRAM };

/* Parses "promises", "program" or "exposure".  Returns 0 or -EINVAL. */
int pc_fail_on_parse (const char *s, enum pc_fail_on *ret);

/* Did res fail, as on says? */
int pc_report_failed_on (const struct pc_check_result *res, enum pc_fail_on on);

/* Would failing points of each fault fail, as on says (the counts of
 * points that broke a promise, the program's, exposures; and where two
 * recoveries disagree, which fail under every on)? */
bool pc_fail_on_counts (enum pc_fail_on on, size_t promises, size_t program, size_t exposures,
                        size_t recovery);

/* Durability windows (result.h) in the reports. */

/* The text report's section (nothing if there are no versions). */
void pc_windows_text (FILE *f, const struct pc_check_result *res);

/* The summary as JSON: versions, longest, median, not_durable, open,
 * exposed_versions, acknowledged_lost and acknowledged_exposed (seconds;
 * null where there is none), or NULL without memory. */
json_object *pc_windows_summary_json (const struct pc_window_summary *s);

/* The JSON report's "windows" object: the summary and the "list" of every
 * version, or NULL without memory. */
json_object *pc_windows_json (const struct pc_check_result *res);

/* Reads o (a "windows" object) into res, whose points are read.  Returns
 * 0, -ENOMEM, or -EBADMSG with a reason in err. */
int pc_windows_read_json (json_object *o, struct pc_check_result *res, struct pc_err *err);

/* Joins the shards' windows into res, whose points are the shards' in
 * order.  Returns 0, -ENOMEM, or -EINVAL (the shards follow different
 * versions) with a reason in err. */
int pc_windows_merge (struct pc_check_result **parts, size_t n, struct pc_check_result *res,
                      struct pc_err *err);

#endif
