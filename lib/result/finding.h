/* finding.h: what the oracle found at one path of one crash state, as data.
 *
 * A finding names a path (any bytes but NUL, as Linux allows), what the
 * crash state holds there and what the marks allowed.  The descriptions
 * may quote file contents, symlink targets and mark names, so they too are
 * any bytes but NUL.  Findings travel as these records from the oracle to
 * every report; nothing is parsed back out of text.  A list of findings
 * has no size limit.
 *
 * For people, names and texts are shown through pc_display_name() and
 * pc_display_text(), which make control characters and bytes that are not
 * UTF-8 visible; JSON keeps the exact bytes (report.h).
 */
#ifndef POWERCUT_FINDING_H
#define POWERCUT_FINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result/verdict.h"

/* What a finding says.  A finding's kind is either a failing verdict
 * (enum pc_verdict: PC_V_ZERO_LENGTH ... PC_V_ACK_LOST), the one name a
 * verdict has, or one of these notes, which fail nothing. */
enum pc_finding_kind {
  PC_F_UNMENTIONED = PC_V_COUNT,  /* no manifest names the path: listed */
  PC_F_NOT_JUDGED,                /* changed after the last mark: not judged */
  PC_F_OLDER,                     /* older than the program had at its last
                                   * acknowledgement, where its checker
                                   * fails: listed with the cause */
  PC_F_COUNT
};

/* Why a finding about a traced program's file is one (history.h): the rule
 * it rests on and the call behind the version lost.  Strings are NULL when
 * not known. */
struct pc_cause {
  bool known;                     /* a cause is given */
  bool promise;                   /* the version lost had been made durable: a
                                   * broken promise; else exposure of data
                                   * never made durable */
  bool program;                   /* (not a promise) the program gave up a
                                   * durable version: it replaced it (a rename
                                   * over it, a truncate) before the new data
                                   * was durable, and the state holds neither */
  bool recovery;                  /* (a recovery-differs finding) the kernel's
                                   * recovery of the state and e2fsck's disagree:
                                   * one of them is wrong, not the workload */
  char *rule;                     /* the rule, for people */
  char *call;                     /* the call that made the version lost, as
                                   * strace prints it */
  int32_t pid;
  uint64_t time_ns;               /* when, in the recording */
  int64_t durable_ns;             /* when it was made durable, or -1: never */
  char *durable_by;               /* the call or mark that made it durable */
  char *fix;                      /* the smallest change that keeps it */
  char *ack;                      /* the acknowledgement it was lost behind (a
                                   * line the program printed, a mark's name:
                                   * ack-lost, older-version), or NULL */
  uint64_t ack_ns;                /* when it was made (if ack) */
};

/* How a cause's durable_by starts where only powercut run's own sync after
 * the command made the version durable: the program never synced it. */
#define PC_CAUSE_AFTER_COMMAND "powercut's own sync after the command ended"

struct pc_finding {
  int kind;                       /* enum pc_finding_kind */
  char *path, *found, *allowed;
  struct pc_cause cause;
};

struct pc_findings {
  struct pc_finding *v;
  size_t n, cap;
};

/* "zero-length", ..., "unmentioned", "not-judged", "older-version"; "unknown"
 * otherwise. */
const char *pc_finding_name (int kind);
/* Inverse of pc_finding_name; -1 if unknown. */
int pc_finding_parse (const char *name);
/* The verdict a finding gives its crash point: its kind, or PC_V_OK for a note. */
enum pc_verdict pc_finding_verdict (int kind);

/* Appends a finding (the strings are copied).  Returns 0 or -ENOMEM. */
int pc_findings_add (struct pc_findings *l, int kind, const char *path,
                     const char *found, const char *allowed);
void pc_findings_clear (struct pc_findings *l);

/* Gives the last finding of l (appended just before) the cause c, whose
 * strings are taken over (freed if it cannot be). */
void pc_findings_set_cause (struct pc_findings *l, struct pc_cause *c);

/* The fault of a failing finding of cause c: the recovery's where c says
 * so, the filesystem's for a promise (or a cause not known), the
 * program's where c says so, else none.  This is the model of
 * doc/fault.md, and every fault a report gives goes through it (or
 * through pc_finding_fault, which asks it); the judges only find the
 * facts (promise: the version lost was durable and not given up since;
 * program: a durable version given up, or an acknowledged one lost). */
enum pc_fault pc_cause_fault (const struct pc_cause *c);

/* The fault of finding f: pc_cause_fault for a failing one; for an
 * older-version note (what the application lost where its checker
 * failed) the filesystem's where the version was durable, the program's
 * where it counts as acknowledged data lost, else none; none for the
 * other notes. */
enum pc_fault pc_finding_fault (const struct pc_finding *f);

/* What a finding of kind with cause c is, for people: "a broken promise",
 * "a durable version the program gave up", "exposure", (PC_V_ACK_LOST)
 * "acknowledged, not durable" or (PC_F_OLDER) "what the application
 * lost". */
const char *pc_cause_class (int kind, const struct pc_cause *c);

/* Frees a cause's strings and clears it. */
void pc_cause_clear (struct pc_cause *c);

/* Appends l to the byte buffer *buf (*len used, *cap allocated) in a form
 * pc_findings_unpack() reads back exactly.  Returns 0 or -ENOMEM. */
int pc_findings_pack (const struct pc_findings *l, uint8_t **buf, size_t *len, size_t *cap);
/* Reads what pc_findings_pack() wrote at p (len bytes available) into the
 * empty list l; *used gets the bytes read.  Returns 0, -EBADMSG if the
 * bytes are not such a list, or -ENOMEM. */
int pc_findings_unpack (const uint8_t *p, size_t len, size_t *used, struct pc_findings *l);

/* Is s (len bytes) valid UTF-8? */
bool pc_utf8_valid (const char *s, size_t len);

/* A path for people: as it is when it holds only printable UTF-8 and no
 * '"' or '\', else in double quotes with C escapes (\t, \n, \", \\, \xNN
 * for other control bytes and bytes that are not UTF-8), as git quotes
 * names.  Returns a malloc'd string, or NULL (no memory). */
char *pc_display_name (const char *s);
/* Evidence for people: control bytes (but newlines) and bytes that are
 * not UTF-8 as \xNN, the rest as it is.  Returns a malloc'd string, or NULL. */
char *pc_display_text (const char *s);
/* A description (one line) for people: the same, newlines as \x0a too. */
char *pc_display_line (const char *s);

#endif
