/* logsum.h: what a log holds, in numbers: its header, its records by
 * type (and how many with FUA), the bytes written, its connections, flush
 * epochs and marks, and how it ends.  powercut log prints it.
 */
#ifndef POWERCUT_LOGSUM_H
#define POWERCUT_LOGSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/log.h"
#include "format/mark.h"
#include "util/err.h"

/* How a log ends, after nrec valid records. */
struct pc_log_ending {
  enum pc_log_end end;
  uint64_t records;             /* the valid records before it */
  uint64_t offset;              /* PC_END_TORN: where the partial record starts */
  uint64_t file_size;
  char reason[160];             /* PC_END_TORN: why it is not a whole record */
  char corrupt[256];            /* PC_END_CORRUPT: pc_log_corrupt_message() */
};

/* How log, read through (pc_log_next until it gave no record: nrec
 * records), ends. */
void pc_log_ending (const struct pc_log *log, uint64_t nrec, struct pc_log_ending *ret);

/* A mark record, as a summary lists it. */
struct pc_log_mark {
  uint64_t seq, time_ns;
  bool bad;                     /* its payload does not decode; then only
                                 * seq and time_ns are set */
  char name[PC_MARK_NAME_MAX + 1];
  size_t nentries, ndurable;    /* paths in its manifest, durable ones */
  bool sync;                    /* the manifest was synced */
};

/* Decodes the mark record r into *ret.  Returns 0, or -EBADMSG (ret->bad)
 * with why its payload does not decode in err. */
int pc_log_mark_read (const struct pc_record *r, struct pc_log_mark *ret, struct pc_err *err);

struct pc_log_summary {
  struct pc_log_header hdr;
  uint64_t records;
  uint64_t count[PC_REC_LAST + 1];      /* by type */
  uint64_t fua[PC_REC_LAST + 1];        /* by type, with FUA */
  uint64_t newer;               /* records of types this reader does not know */
  uint64_t bytes;               /* written by WRITE records */
  uint64_t last_ns;             /* the last record's time */
  uint64_t conns;               /* distinct connections (conn > 0) */
  uint64_t epochs;              /* flush epochs: FLUSH records + 1 */
  struct pc_log_mark *marks;    /* every mark record, in order */
  size_t nmarks;
  struct pc_log_ending ending;
  bool bad_mark;                /* a mark does not decode: the first one's */
  uint64_t bad_mark_seq;        /*   record */
  char bad_mark_why[PC_ERR_MAX]; /*   and why */
};

/* Reads the log at path through into *ret (free it with
 * pc_log_summary_free): a log that ends torn or corrupt is summarised too
 * (ret->ending says), as is one whose marks do not decode.  Returns 0, or
 * -errno with a reason in err: "PATH: REASON" if it cannot be read as a
 * log, "PATH: record N: out of memory" if memory ran out (nothing is
 * returned then). */
int pc_log_summarize (const char *path, struct pc_log_summary *ret, struct pc_err *err);
void pc_log_summary_free (struct pc_log_summary *s);

#endif
