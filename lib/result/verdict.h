/* verdict.h: the verdicts a crash point can get, in one table.
 *
 * Every output (text, JSON, the HTML page, run's comparison, merge) takes
 * a verdict's name, its place in the order of precedence, its colour and
 * its meaning from this table (PC_VERDICTS below).  Names are stable: tests, scripts and users
 * depend on them.
 *
 * A crash point gets the worst verdict of what was found there; the rank
 * orders them (higher is worse): ok, then not checked (it hides no
 * failure, but shows above ok on a timeline), then a filesystem without
 * a journal that only e2fsck by hand repaired (nobody's fault by itself:
 * its files say more), then the path verdicts from
 * the mildest to acknowledged data lost and a rolled-back durable version,
 * then an application's
 * checker failing, then whole-filesystem failures, then the two recoveries
 * of one state disagreeing (--judge both).  PC_V_NOT_CHECKED is not a verdict on
 * the filesystem: powercut could not check the state (a program timed out
 * or crashed, a worker died, no memory); reports keep it apart, and it
 * makes a check exit 2.
 */
#ifndef POWERCUT_VERDICT_H
#define POWERCUT_VERDICT_H

#include <stdbool.h>

/* Whose fault a loss is, in one table (doc/fault.md has the model): the
 * filesystem's (it lost what it had promised: a version made durable, a
 * durable mark; the filesystem broken), the program's (it gave up a
 * durable version before the new one was durable, or acknowledged what
 * it had not made durable), or nobody's (only data never made durable
 * lost: exposure, which a crash may do); or, where two recoveries of one
 * state disagree (--judge both), the recovery's: the kernel's or
 * e2fsck's, not the workload's.  In order of weight: a point's fault is
 * its heaviest finding's.  Names are stable (the JSON's "fault").
 *   X (ID, name, whose (for people), what it means) */
#define PC_FAULTS(X) \
  X (NONE, "none", "nobody's", \
     "only data never made durable lost, which a crash may lose") \
  X (PROGRAM, "program", "the program's", \
     "it gave a durable version up before the new one was durable, or acknowledged " \
     "what it had not made durable") \
  X (FILESYSTEM, "filesystem", "the filesystem's", \
     "a broken promise: what was made durable lost, or the filesystem broken") \
  X (RECOVERY, "recovery", "the recovery's", \
     "the kernel's recovery of the state and e2fsck's disagree: one of them is wrong")

enum pc_fault {
#define PC_FAULT_ENUM(id, name, whose, meaning) PC_FAULT_##id,
  PC_FAULTS (PC_FAULT_ENUM)
#undef PC_FAULT_ENUM
  PC_FAULT_COUNT
};

/* "none", "program", "filesystem", "recovery" ("unknown" otherwise). */
const char *pc_fault_name (enum pc_fault f);
/* Inverse of pc_fault_name; -1 if unknown. */
int pc_fault_parse (const char *name);
/* "nobody's", "the program's", ... and what the fault means, for people. */
const char *pc_fault_whose (enum pc_fault f);
const char *pc_fault_meaning (enum pc_fault f);

/* The verdicts, in the order reports list them: one line each, and the
 * enum, the table and every output follow.  A new verdict is a line here,
 * the logic that gives it (for a path: both oracles, oracle.c for marks
 * and histjudge.c for a traced program) and its paragraph in
 * powercut-check(1).
 *   X (ID, name, rank, colour, column, path, fault, meaning), see
 *   pc_verdict_info; fault: whose fault a point with it is by the verdict
 *   alone (a whole-state verdict), or -1: by its findings */
#define PC_VERDICTS(X) \
  X (OK, "ok", 0, "#3a3", true, false, PC_FAULT_NONE, \
     "consistent: every path holds one of its allowed versions") \
  X (FS_CORRUPT, "fs-corrupt", 10, "#d33", true, false, PC_FAULT_FILESYSTEM, \
     "e2fsck must repair the filesystem after journal recovery") \
  X (UNMOUNTABLE, "unmountable", 11, "#800", true, false, PC_FAULT_FILESYSTEM, \
     "no filesystem is found, or its journal cannot be recovered") \
  X (ZERO_LENGTH, "zero-length", 6, "#f80", true, true, -1, \
     "a file is empty where every allowed version had data") \
  X (ZERO_FILLED, "zero-filled", 5, "#e0457b", true, true, -1, \
     "a file has its size but reads as zeros where every allowed version " \
     "had non-zero data") \
  X (MISSING, "missing", 4, "#a0f", true, true, -1, \
     "a path that every allowed version has is gone") \
  X (MISMATCH, "mismatch", 3, "#c9a800", true, true, -1, \
     "content or size matches no allowed version (torn, stale, garbage)") \
  X (DURABLE_LOST, "durable-lost", 8, "#06c", true, true, -1, \
     "a path's durable version was rolled back") \
  /* what the program had acknowledged, never made durable, is lost */ \
  X (ACK_LOST, "ack-lost", 7, "#e6550d", true, true, -1, \
     "a file holds less than the program had when it acknowledged (a line it " \
     "printed), and that was never made durable") \
  /* check --verify: the application's checker failed */ \
  X (APP_INVALID, "app-invalid", 9, "#c0c", true, false, -1, \
     "the application's own checker (--verify) failed") \
  /* not a verdict on the filesystem (see above) */ \
  X (NOT_CHECKED, "not-checked", 1, "#999", false, false, PC_FAULT_NONE, \
     "powercut could not check the state: no verdict") \
  /* check --judge both: the two ways of recovering a state disagree */ \
  X (RECOVERY_DIFFERS, "recovery-differs", 12, "#555", false, false, PC_FAULT_RECOVERY, \
     "the kernel's recovery and e2fsck's disagree on the same bytes: one of them is wrong") \
  /* no journal: the boot's e2fsck -p stopped for a person, e2fsck -fy \
   * repaired it; its files are judged as repaired */ \
  X (FSCK_BY_HAND, "fsck-by-hand", 2, "#7a7a52", false, false, -1, \
     "no journal: the boot's e2fsck -p stops for a person; e2fsck -fy repairs it, " \
     "which a filesystem without a journal may need after a crash")

enum pc_verdict {
#define PC_VERDICT_ENUM(id, name, rank, colour, column, path, fault, meaning) PC_V_##id,
  PC_VERDICTS (PC_VERDICT_ENUM)
#undef PC_VERDICT_ENUM
  PC_V_COUNT,
};

struct pc_verdict_info {
  const char *name;           /* "zero-length" */
  int rank;                   /* precedence: the worst verdict of a point wins */
  const char *colour;         /* on the HTML page, as CSS */
  bool column;                /* a column of run's comparison (app-invalid:
                               * only when the run has a checker) */
  bool path;                  /* a verdict the oracle gives a path */
  int fault;                  /* enum pc_fault of a point with it, or -1: its
                               * findings say */
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
