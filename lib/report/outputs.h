/* outputs.h: a check's reports, written where the command line says, and
 * what they come to as an exit status; the whole of powercut check
 * (checking, then reporting) and of powercut merge (joining shards'
 * reports, then reporting).
 */
#ifndef POWERCUT_OUTPUTS_H
#define POWERCUT_OUTPUTS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"
#include "report/report.h"
#include "result/result.h"
#include "util/err.h"

/* Where the reports go. */
struct pc_outputs {
  FILE *text;                   /* the text report, or NULL (--quiet) */
  const char *json;             /* the JSON report's path ("-": stdout), or NULL */
  const char *html;             /* the HTML page's path, or NULL */
  enum pc_fail_on fail_on;      /* what makes the check fail (report.h) */
};

/* What a check came to (the commands' exit status). */
enum pc_check_status {
  PC_CHECK_SURVIVED = 0,        /* every crash point survived */
  PC_CHECK_FAILED = 1,          /* some did not */
  PC_CHECK_UNFINISHED = 2,      /* some could not be checked (err says how many) */
};

/* Writes res's reports: the text, the JSON, the page (with the log's
 * marks and flushes when the log can be read).  Returns the status, with
 * PC_CHECK_UNFINISHED's "N of M crash points could not be checked (see
 * the report)" in err, or -errno with "PATH: REASON" in err (a report not
 * written). */
int pc_outputs_write (const struct pc_outputs *o, const struct pc_check_result *res,
                      struct pc_err *err);

/* A device set's check (check/devcheck.h): res's reports as o says
 * (o->html is not used), and the status its instants come to, as
 * pc_outputs_write's. */
struct pc_devcheck_result;
int pc_devcheck_write (const struct pc_devcheck_result *res, const struct pc_outputs *o,
                       struct pc_err *err);

/* Is path the JSON report of a device set (a shard's, to merge)? */
bool pc_devcheck_is_report (const char *path);

/* powercut merge of a device set's shards (devmerge.c): joins their JSON
 * reports into the report an unsharded check gives (text and JSON; no
 * page).  Returns as pc_outputs_write, or -errno with the reason. */
int pc_devcheck_merge (char *const *paths, size_t n, const struct pc_outputs *o,
                       struct pc_err *err);

/* powercut merge: reads the JSON reports of the shards of one check,
 * joins them into the report an unsharded check gives and writes it.
 * Returns as pc_outputs_write, or -errno with the reason in err. */
int pc_merge_report (char *const *paths, size_t n, const struct pc_outputs *o,
                     struct pc_err *err);

#endif
