/* logwriter.h: the log writer: records appended to an open powercut log in
 * batches, made durable when they need it, and handed back only when what
 * their answer promises is true.
 *
 * The contract, which the recorder's acknowledgements rest on:
 *   - records reach the file in the order they were appended, numbered and
 *     stamped as they go; "written" is called for each, in that order, once
 *     it is whole in the file (not yet durable), with its place set; the
 *     file is never cut back over a record that was written;
 *   - "done" with err 0 is called only for a record that is whole in the
 *     file and, if it needs to be durable (a flush, a FUA write, a mark, the
 *     end), only after an fdatasync that began after it was written has
 *     succeeded;
 *   - a record that could not be written is cut off the file again (so the
 *     log stays valid) and is done with its errno; a full disk (ENOSPC,
 *     EDQUOT) fails only the records it met, any other write error or a
 *     failed fdatasync leaves the log in doubt, and from then on every
 *     record is done with that error, never with 0.
 * The writer does no I/O of its own for durability: it asks for an
 * fdatasync through start_sync and is told its result with
 * pc_logw_synced(), so the caller's event loop runs it.  In the same way
 * it asks, every PC_LOGW_WRITEBACK bytes, that what it wrote begin to go
 * to the disk (start_writeback, one at a time): a flush then finds little
 * left to write, and the page cache does not fill with the log.  Writes are made
 * at once (pwritev): the page cache takes them faster than a worker thread
 * could be woken.  One thread; not reentrant except from the callbacks. */
#ifndef POWERCUT_LOGWRITER_H
#define POWERCUT_LOGWRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "format/log.h"

#define PC_LOGW_BATCH 256          /* records per write */
#define PC_LOGW_WRITEBACK (8u << 20)   /* bytes written per writeback hint */

/* A record on its way through the writer; the caller sets rec's type,
 * flags, offset, length, conn and datalen, and data; the writer sets its
 * seq and time_ns. */
struct pc_logw_rec {
  struct pc_logw_rec *next;
  struct pc_record rec;
  uint8_t *data;                   /* rec.datalen bytes, the caller's */
  uint64_t file_off;               /* set when written: where it begins */
  uint8_t hdr[PC_REC_HEADER_SIZE];
};

struct pc_logw_ops {
  /* r is whole in the log (in append order): apply it. */
  void (*written) (void *opaque, struct pc_logw_rec *r);
  /* Begin an fdatasync of fd, and call pc_logw_synced() with its result
   * (0 or -errno) later, from outside the writer's calls. */
  void (*start_sync) (void *opaque, int fd);
  /* r may be answered: err 0 (see the contract) or an errno.  r is the
   * caller's again. */
  void (*done) (void *opaque, struct pc_logw_rec *r, int err);
  /* If not NULL: begin writing [off, off + len) of fd back to the disk,
   * without waiting (sync_file_range's SYNC_FILE_RANGE_WRITE), and call
   * pc_logw_writeback_done() when it has been started, later, from outside
   * the writer's calls.  A hint only: nothing waits for it, its errors
   * are the next fdatasync's. */
  void (*start_writeback) (void *opaque, int fd, uint64_t off, uint64_t len);
};

struct pc_logw {
  int fd;
  uint64_t off;                    /* where the next record goes */
  uint64_t next_seq;
  uint64_t start_mono;             /* time_ns counts from here */
  int err;                         /* the log is in doubt: errno */
  const struct pc_logw_ops *ops;
  void *opaque;
  struct pc_logw_rec *head, *tail;             /* appended, not written */
  struct pc_logw_rec *sync_wait, *sync_wait_tail; /* written, need a sync */
  struct pc_logw_rec *sync_run;                /* covered by the sync running */
  bool sync_busy, kicking;
  uint64_t wb_from;                /* written, not yet hinted from here */
  bool wb_busy;
  struct pc_logw_rec *batch[PC_LOGW_BATCH];
  struct iovec iov[2 * PC_LOGW_BATCH];
};

/* Starts a writer on fd, whose records begin at off (after the header) and
 * are numbered from first_seq, timed from start_mono (pc_now_mono_ns). */
void pc_logw_init (struct pc_logw *w, int fd, uint64_t off, uint64_t first_seq,
                   uint64_t start_mono, const struct pc_logw_ops *ops, void *opaque);

/* Queues r; nothing is written before pc_logw_kick(). */
void pc_logw_append (struct pc_logw *w, struct pc_logw_rec *r);

/* Writes everything queued, calling written and done as it goes, and
 * begins an fdatasync if a written record needs one and none is running. */
void pc_logw_kick (struct pc_logw *w);

/* The fdatasync begun through start_sync has ended with res (0 or
 * -errno): the records it covers are done; a next one begins if needed. */
void pc_logw_synced (struct pc_logw *w, int res);

/* The writeback begun through start_writeback has been started. */
void pc_logw_writeback_done (struct pc_logw *w);

/* Whether records are queued or waiting for durability (a writeback hint
 * running is not waited for). */
bool pc_logw_busy (const struct pc_logw *w);

/* Whether a record of this kind must be durable before it is answered. */
bool pc_logw_needs_sync (const struct pc_record *rec);

/* Takes back every record the writer still holds (queued or waiting for a
 * sync), without calling done: for a caller tearing down.  Returns a list
 * linked by next. */
struct pc_logw_rec *pc_logw_take_all (struct pc_logw *w);

#endif
