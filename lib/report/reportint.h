/* reportint.h: what the report writers share inside report/: one JSON
 * writer per object, so that the JSON report, the HTML page and run's
 * comparison say the same thing the same way; and the text report's
 * parts that more than one file writes (cause.c, paths.c, files.c).
 *
 * Objects are written in one of two forms.  PC_JSON_EXACT is the JSON
 * report's: every path and text as its exact bytes (jsonio.h: UTF-8 as it
 * is, else a display form with the bytes in hex beside it), every finding
 * of a point.  PC_JSON_SHOWN is the page's: paths and texts as people see
 * them (finding.h's display forms), and only the findings that fail.
 * Every writer returns NULL only when out of memory.
 */
#ifndef POWERCUT_REPORTINT_H
#define POWERCUT_REPORTINT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <json-c/json.h>

#include "report/report.h"
#include "result/result.h"

enum pc_json_form { PC_JSON_EXACT, PC_JSON_SHOWN };

/* {"points": ..., "unique": ..., and a count per verdict, by name}. */
json_object *pc_json_totals (const size_t count[PC_V_COUNT], size_t points, size_t unique);

/* A cause: {"rule", "call", "pid", "time", "durable_at", "durable_by", "fix"}. */
json_object *pc_json_cause (const struct pc_cause *c, enum pc_json_form form);

/* {"verdict", "path", "found", "allowed"}, and with a cause "promise" and
 * "cause". */
json_object *pc_json_finding (const struct pc_finding *fd, enum pc_json_form form);

/* A point: id, record, time, dropped, torn, verdict, same_as,
 * fsck_same_as, evidence (its lines), findings and the replay command. */
json_object *pc_json_point (const struct pc_check_result *res, const struct pc_point *p,
                            enum pc_json_form form);

/* The indices of res's failing points, the most telling first: the
 * filesystem's faults, then the program's, then nobody's, each the first
 * point of each file and rule first (text.c).  A malloc'd array of *ret_n,
 * or NULL without memory. */
size_t *pc_report_ranked (const struct pc_check_result *res, size_t *ret_n);

/* Adds key: s in form (a path if path, else a line of text). */
void pc_json_add_text (json_object *o, const char *key, const char *s, bool path,
                       enum pc_json_form form);

/* A device set's reports (devreport.c), from its JSON object: the text
 * report, and the JSON written to path ("-": standard output).  The
 * merge of a set's shards (devmerge.c) writes them too. */
void pc_devset_text (FILE *f, json_object *o);
int pc_devset_json_write (const char *path, json_object *o);

/* "s" after a count other than 1: "%zu point%s", n, pc_s (n). */
static inline const char *
pc_s (uint64_t n)
{
  return n == 1 ? "" : "s";
}

/* Puts s through show (pc_display_name, _text or _line); "?" without
 * memory; a path "" (a finding of the whole state) as "(the whole state)". */
void pc_put_shown (FILE *f, char *(*show) (const char *), const char *s);

/* How wide the text report's lines of prose are folded: a why, a rule,
 * a cause. */
#define PC_TEXT_WIDTH 100

/* Puts head, then text (one line, shown) folded at its blanks into lines
 * of at most width columns (a UTF-8 character one column), each after the
 * first indented as far as head is long; a word longer than a line is
 * not cut, and the blanks between words are kept but where a line ends
 * (cause.c). */
void pc_put_wrapped (FILE *f, const char *head, const char *text, size_t width);

/* A finding's cause, in the lines under its file in the text report:
 * rule, cause (the call and its process), durable, acked, fix, each
 * folded (PC_TEXT_WIDTH); nothing for a cause not known (cause.c). */
void pc_report_cause_text (FILE *f, int kind, const struct pc_cause *c);

/* "zero-length at 2, zero-filled at 2" from a path's counts (paths.c). */
void pc_path_counts_text (FILE *f, const struct pc_path_sum *v);

/* Puts m names (m >= 1, in path order) for people: "f00 .. f19" where
 * they are one prefix, numbers of one width that count up by one and one
 * suffix (three or more), else "a, b, c and 5 more" (files.c). */
void pc_put_names (FILE *f, const char *const *name, size_t m);

/* The text report's "files affected" section (nothing if no path
 * fails; files.c). */
void pc_report_files_text (FILE *f, const struct pc_check_result *res);

#endif
