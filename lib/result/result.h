/* result.h: what a check found, as data: its crash points with their
 * verdicts (verdict.h) and findings (finding.h), and the durability
 * windows of the versions its marks recorded.  The checker fills it,
 * reports read it (report/), a merge joins several; nothing here prints.
 *
 * Durability windows: for every version of a file or symlink that a
 * manifest mark recorded (oracle.h says which versions a crash state
 * holds), in seconds since the recording started:
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
#ifndef POWERCUT_RESULT_H
#define POWERCUT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/crash.h"
#include "result/finding.h"
#include "result/verdict.h"

#define PC_EVIDENCE_MAX 1024    /* room for a point's evidence */

/* What checking took: programs run and work shared. */
struct pc_check_work {
  uint64_t states;
  uint64_t fsck_runs;         /* e2fsck -fn run */
  uint64_t fsck_reused;       /* answers taken from an earlier state */
  uint64_t recover_here;      /* journals replayed in process (recover.h) */
  uint64_t recover_e2fsck;    /* journals replayed by e2fsck */
  uint64_t preened;           /* states without a journal e2fsck -p repaired */
  uint64_t by_hand;           /* states without a journal e2fsck -p stopped at,
                               * which e2fsck -fy repaired as a person does */
  uint64_t kernel;            /* states the kernel recovered and read (kjudge.h), */
  uint64_t kernel_ns[5];      /* and the time it took: the copy, the loop device
                               * and the mount (the log's replay), the tree read,
                               * the unmount, the filesystem's own check */
  uint64_t files_read, files_reused;
  uint64_t journal_dropped;   /* --judge both: states whose journal e2fsck dropped
                               * ("... while recovering journal") while the
                               * files it left are the kernel's: a note */
};

struct pc_point {
  char id[PC_ID_MAX];
  uint64_t record;              /* crash point (record number) */
  uint64_t time_ns;             /* its time, since the recording started */
  uint64_t moment;              /* the last record the disk may still hold this
                                 * state at (crash.h): what the workload had done
                                 * by then is what it is judged against */
  uint64_t moment_ns;           /* when that stretch ends: the time of the record
                                 * after the moment (of the last, if none) */
  uint32_t ndrop;               /* reorder: in-flight records lost */
  bool torn;
  bool kernel;                  /* judged by a kernel (judge/kjudge.h): this
                                 * machine's, or a guest's (the result's
                                 * kernel_guest), not libext2fs and e2fsck's replay */
  bool recovery;                /* a power cut during the kernel's recovery of the
                                 * point before it (judge/recrash.h), after
                                 * record recovery_record of that recovery's log;
                                 * record and moment are its parent's */
  uint64_t recovery_record;
  enum pc_verdict verdict;
  int64_t same_as;              /* index of the point whose identical image was checked, or -1 */
  int64_t fsck_as;              /* index of the point whose e2fsck answer it took, or -1 */
  char evidence[PC_EVIDENCE_MAX];
  struct pc_findings findings;  /* the oracle's (oracle.h), in path order */
};

struct pc_check_result {
  char *log_path;
  char *base_path;              /* --base given to the check, or NULL */
  bool keep_trimmed;
  uint64_t log_start_ns;        /* the log's identity: its start time ... */
  struct pc_model model;
  char from[PC_ID_MAX];         /* the mark checking started at ("" for record 0) */
  char fs[16];                  /* the filesystem at the end of the log ("ext4") */
  char kernel[65];              /* the release of the kernel that judged states
                                 * (uname -r: "6.12.118+deb12-amd64"), "" if none */
  bool kernel_guest;            /* it was a qemu guest's (run/gjudge.h), not
                                 * this machine's */
  uint64_t from_record;
  uint64_t records;             /* records in the log */
  uint64_t device_size;
  bool log_torn;                /* the log did not end cleanly */
  unsigned shard, nshards;
  size_t npoints;
  struct pc_point *points;
  size_t unique;                /* distinct images checked */
  size_t manifests;             /* marks with a manifest (0: no oracle) */
  uint64_t events;              /* a traced program's events the oracle follows */
  char *verify;                 /* the application's checker given, or NULL */
  char last_mark[PC_ID_MAX];    /* the last of them ("" if none) */
  /* Where powercut run's command ended and where the filesystem's time
   * after it (the settle) ended, powercut's own sync and unmount
   * following: the records of its marks PC_MARK_COMMAND_END and
   * PC_MARK_SETTLE_END (format/mark.h), 0 where the log has none (a
   * command that did not end, a recording made otherwise), and their
   * times since the recording started.  They judge nothing; they say
   * where a point is (pc_point_after). */
  uint64_t command_end_record, command_end_ns;
  uint64_t settle_end_record, settle_end_ns;
  size_t count[PC_V_COUNT];
  size_t promises;              /* failing points that broke a promise (below):
                                 * the filesystem's fault */
  size_t program_promises;      /* ... where the program gave up a durable
                                 * version or lost what it acknowledged
                                 * (pc_point_fault) */
  size_t acknowledged_lost;     /* points (failing or not) with an ack-lost
                                 * finding or, where the checker failed, an
                                 * older-version note: acknowledged data lost */
  size_t recovery_differs;      /* ... where two recoveries disagree */
  size_t exposures;             /* ... and those that only exposed data never
                                 * made durable */
  size_t recovery_points;       /* points of a second power cut during the
                                 * kernel's recovery (--recovery-crashes), */
  size_t recovery_repeats;      /* ... and of them those with their parent
                                 * state's verdict and findings: the same
                                 * loss seen again, counted in no total
                                 * above (count[] neither) */
  struct pc_check_work work;    /* what checking took (zero in a merged report) */
  struct pc_window *windows;    /* every version a mark recorded (below) */
  size_t nwindows;
  double seconds;
};

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
  size_t ack_exposed;           /* whose index (SIZE_MAX if none), */
  enum pc_fault ack_fault;      /* whose fault the last state that lost it
                                 * was (its finding at the path: the
                                 * program's where it gave the version up) */
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

void pc_check_result_free (struct pc_check_result *res);

/* Recounts res->count, promises, exposures and the recovery points from
 * the points.  A recovery point that repeats its parent state
 * (pc_point_repeats_parent) is counted in recovery_repeats alone. */
void pc_check_result_recount (struct pc_check_result *res);

/* Is point i a recovery point (its id PARENT/recovery:K) whose verdict and
 * findings (paths, kinds, faults) are its parent state's? */
bool pc_point_repeats_parent (const struct pc_check_result *res, size_t i);

/* The points a report counts: all but the recovery points that repeat
 * their parent. */
static inline size_t
pc_check_result_counted (const struct pc_check_result *res)
{
  return res->npoints - res->recovery_repeats;
}

/* Did failing point p break a promise: the filesystem corrupt or
 * unmountable, a finding (or, where the application's checker failed, an
 * older-version note) whose lost version had been made durable, or a
 * finding whose cause is not known?  Else it only exposed data never
 * made durable, which a crash may lose, or lost what the program had
 * acknowledged before making it durable (the program's fault), or the
 * application's checker failed with nothing acknowledged lost (its data
 * was not consistent at a point it never vouched for). */
bool pc_point_broke_promise (const struct pc_point *p);

/* Whose fault failing point p is (finding.h): the recovery's where its
 * two recoveries disagree (recovery-differs), the filesystem's where it
 * broke a promise, else the program's where a finding says the program
 * gave up a durable version or lost what it acknowledged (ack-lost; an
 * older-version note where its checker failed), else nobody's.  PC_FAULT_NONE for a point
 * that does not fail. */
enum pc_fault pc_point_fault (const struct pc_point *p);

/* Did point p lose what the program had acknowledged (an ack-lost
 * finding; where the application's checker failed, an older-version
 * note that counts: cause.program, its path not restore-tested)? */
bool pc_point_acked_lost (const struct pc_point *p);

/* Where crash point p is against powercut run's command: before its
 * end (or the log does not say), after it during the settle, or after
 * the settle, in powercut's own sync and unmount.  A point after the
 * command's end mark with no settle end mark is in the settle. */
enum pc_after { PC_AFTER_NONE, PC_AFTER_SETTLE, PC_AFTER_SYNC };
enum pc_after pc_point_after (const struct pc_check_result *res, const struct pc_point *p);

/* The name reports give it: NULL, "settle" or "sync". */
const char *pc_after_name (enum pc_after a);

/* Fills the derived fields of res->windows from lost_until and the
 * points' times. */
void pc_windows_compute (struct pc_check_result *res);

/* Sums up res->windows. */
void pc_windows_summary (const struct pc_check_result *res, struct pc_window_summary *ret);

void pc_windows_free (struct pc_check_result *res);

#endif
