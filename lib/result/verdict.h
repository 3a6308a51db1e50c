/* verdict.h: the verdicts a crash point can get, in one table.
 *
 * Every output (text, JSON, the HTML page, run's comparison, merge) takes
 * a verdict's name, its place in the order of precedence, its colour and
 * its meaning from this table; adding a verdict is one entry here (and
 * the logic that gives it).  Names are stable: tests, scripts and users
 * depend on them.
 *
 * A crash point gets the worst verdict of what was found there; the rank
 * orders them (higher is worse).  PC_V_NOT_CHECKED is not a verdict on
 * the filesystem: powercut could not check the state (a program timed out
 * or crashed, a worker died, no memory); reports keep it apart, and it
 * makes a check exit 2.
 */
#ifndef POWERCUT_VERDICT_H
#define POWERCUT_VERDICT_H

#include <stdbool.h>

enum pc_verdict {
  PC_V_OK,
  PC_V_FS_CORRUPT,
  PC_V_UNMOUNTABLE,
  PC_V_ZERO_LENGTH,
  PC_V_ZERO_FILLED,
  PC_V_MISSING,
  PC_V_MISMATCH,
  PC_V_DURABLE_LOST,
  PC_V_APP_INVALID,           /* check --verify: the application's checker failed */
  PC_V_NOT_CHECKED,
  PC_V_COUNT,
};

struct pc_verdict_info {
  const char *name;           /* "zero-length" */
  int rank;                   /* precedence: the worst verdict of a point wins */
  const char *colour;         /* on the HTML page, as CSS */
  bool column;                /* a column of run's comparison (app-invalid:
                               * only when the run has a checker) */
  bool path;                  /* a verdict the oracle gives a path */
  const char *meaning;        /* one line, for people */
};

/* The table entry of v, or NULL if v is not a verdict. */
const struct pc_verdict_info *pc_verdict_info (int v);

/* "ok", "fs-corrupt", ... as the spec names them; "unknown" otherwise. */
const char *pc_verdict_name (int v);
/* Inverse of pc_verdict_name; -1 if unknown. */
int pc_verdict_parse (const char *name);
/* v's rank in the order of precedence (0 for ok and for no verdict). */
int pc_verdict_rank (int v);
/* The worse of two verdicts. */
int pc_verdict_worse (int a, int b);

#endif
