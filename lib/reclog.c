/* reclog.c: the recorder's log writer: requests written to the log in
 * batches, made durable when they need it, applied, then answered. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <liburing.h>

#include "disk.h"
#include "log.h"
#include "recint.h"
#include "util.h"

/* -------------------------------------------------------------------------
 * Requests and the log writer */

struct req *
rec_req_new (struct conn *c, uint64_t handle, enum pc_rec_type type, uint16_t flags,
         uint64_t off, uint32_t len)
{
  struct req *r = calloc (1, sizeof *r);

  if (r == NULL)
    return NULL;
  r->conn = c;
  r->handle = handle;
  r->rec.type = type;
  r->rec.flags = flags;
  r->rec.offset = off;
  r->rec.length = len;
  r->rec.conn = c ? c->id : 0;
  r->needs_sync = type == PC_REC_FLUSH || type == PC_REC_MARK ||
                  type == PC_REC_END || (flags & PC_REC_F_FUA);
  return r;
}

/* Appends r to the queue from *head to *tail. */
static void
enqueue (struct req **head, struct req **tail, struct req *r)
{
  r->next = NULL;
  if (*tail)
    (*tail)->next = r;
  else
    *head = r;
  *tail = r;
}

void
rec_req_submit (struct pc_recorder *rec, struct req *r)
{
  if (r->conn)
    r->conn->pending++;
  enqueue (&rec->lq_head, &rec->lq_tail, r);
}

/* Answers a request whose record is written (err 0) or failed (err > 0). */
static void
req_finish (struct pc_recorder *rec, struct req *r, int err)
{
  struct conn *c = r->conn;

  if (r->rec.type == PC_REC_END) {
    if (err == 0)
      rec->ended = true;
    else
      rec->fatal = -err;
  }
  if (c != NULL) {
    c->pending--;
    if (!c->shut) {
      if (c->phase == PH_CONTROL)
        rec_ctl_reply (c, -err, r->rec.seq);
      else
        rec_reply_simple (c, r->handle, (uint32_t) err);
    }
    if (!c->closing && !c->recv_armed)
      rec_conn_arm_recv (c);
    rec_conn_maybe_free (c);
  }
  free (r->data);
  free (r);
}

static void
apply (struct pc_recorder *rec, const struct req *r)
{
  switch (r->rec.type) {
  case PC_REC_WRITE:
    pc_disk_write (&rec->disk, r->rec.offset, r->data, r->rec.length);
    break;
  case PC_REC_TRIM:
  case PC_REC_WRITE_ZEROES:
    pc_disk_zero (&rec->disk, r->rec.offset, r->rec.length);
    break;
  default:
    break;
  }
}

/* The NBD error for a failure of the log's file. */
static uint32_t
log_nbd_err (int e)
{
  return e == ENOSPC || e == EDQUOT ? NBD_ENOSPC : NBD_EIO;
}

static void
sync_kick (struct pc_recorder *rec)
{
  struct io_uring_sqe *sqe;

  if (rec->sync_busy || rec->sync_wait == NULL)
    return;
  rec->sync_run = rec->sync_wait;
  rec->sync_wait = rec->sync_wait_tail = NULL;
  sqe = rec_get_sqe (rec);
  io_uring_prep_fsync (sqe, rec->log_fd, IORING_FSYNC_DATASYNC);
  io_uring_sqe_set_data (sqe, &rec->sync_op);
  rec->sync_busy = true;
}

void
rec_on_sync (struct pc_recorder *rec, int res)
{
  struct req *r = rec->sync_run;

  rec->sync_busy = false;
  rec->sync_run = NULL;
  /* A failed fdatasync may have lost any record written before it, and a
   * later one can succeed without bringing them back: from now on no
   * request is acknowledged. */
  if (res < 0 && rec->log_err == 0)
    rec->log_err = -res;
  while (r) {
    struct req *next = r->next;
    req_finish (rec, r, rec->log_err ? log_nbd_err (rec->log_err) : 0);
    r = next;
  }
  sync_kick (rec);
}

static void
write_submit (struct pc_recorder *rec)
{
  struct io_uring_sqe *sqe;
  uint64_t skip = rec->batch_done;
  size_t n = 0;

  for (size_t i = 0; i < rec->nbatch; i++) {
    struct req *r = rec->batch[i];
    void *parts[2] = { r->hdr, r->data };
    size_t lens[2] = { PC_REC_HEADER_SIZE, r->rec.datalen };
    for (int k = 0; k < 2; k++) {
      if (lens[k] == 0)
        continue;
      if (skip >= lens[k]) {
        skip -= lens[k];
        continue;
      }
      rec->biov[n].iov_base = (uint8_t *) parts[k] + skip;
      rec->biov[n++].iov_len = lens[k] - skip;
      skip = 0;
    }
  }
  sqe = rec_get_sqe (rec);
  io_uring_prep_writev (sqe, rec->log_fd, rec->biov, (unsigned) n,
                        rec->log_off + rec->batch_done);
  io_uring_sqe_set_data (sqe, &rec->write_op);
  rec->write_busy = true;
}

void
rec_log_kick (struct pc_recorder *rec)
{
  uint64_t now;

  if (rec->write_busy || rec->lq_head == NULL)
    return;
  now = pc_now_mono_ns () - rec->start_mono;
  rec->nbatch = 0;
  rec->batch_bytes = rec->batch_done = 0;
  while (rec->lq_head && rec->nbatch < BATCH_MAX) {
    struct req *r = rec->lq_head;
    rec->lq_head = r->next;
    r->next = NULL;
    if (rec->log_err) {
      req_finish (rec, r, log_nbd_err (rec->log_err));
      continue;
    }
    r->rec.seq = rec->next_seq++;
    r->rec.time_ns = now;
    pc_rec_encode (&r->rec, r->data, r->hdr);
    rec->batch[rec->nbatch++] = r;
    rec->batch_bytes += PC_REC_HEADER_SIZE + r->rec.datalen;
  }
  if (rec->lq_head == NULL)
    rec->lq_tail = NULL;
  if (rec->nbatch > 0)
    write_submit (rec);
}

void
rec_on_write (struct pc_recorder *rec, int res)
{
  size_t nok = 0, i;
  uint64_t okbytes = 0;
  int err = 0;

  rec->write_busy = false;
  if (res > 0) {
    rec->batch_done += (uint64_t) res;
    if (rec->batch_done < rec->batch_bytes) {
      write_submit (rec);       /* a short write: continue where it stopped */
      return;
    }
  }
  else
    err = res < 0 ? -res : EIO;
  /* A full disk fails this batch only (space may come back); any other
   * error leaves the log in doubt. */
  if (err && err != ENOSPC && err != EDQUOT && rec->log_err == 0)
    rec->log_err = err;

  /* Which records are whole in the file? */
  for (i = 0; i < rec->nbatch; i++) {
    uint64_t sz = PC_REC_HEADER_SIZE + rec->batch[i]->rec.datalen;
    if (okbytes + sz > rec->batch_done)
      break;
    okbytes += sz;
    nok++;
  }
  if (rec->log_err) {
    /* In doubt: none of this batch is claimed by the log. */
    nok = 0;
    okbytes = 0;
  }
  if (nok < rec->nbatch) {
    /* Cut the partial record off so the log stays valid; the records that
     * did not make it are not acknowledged. */
    while (ftruncate (rec->log_fd, (off_t) (rec->log_off + okbytes)) < 0 &&
           errno == EINTR)
      ;
    rec->next_seq = rec->batch[nok]->rec.seq;
    if (err == 0)
      err = rec->log_err ? rec->log_err : EIO;
  }
  rec->log_off += okbytes;

  for (i = 0; i < rec->nbatch; i++) {
    struct req *r = rec->batch[i];
    if (i >= nok) {
      req_finish (rec, r, log_nbd_err (err));
      continue;
    }
    apply (rec, r);
    if (r->needs_sync)
      enqueue (&rec->sync_wait, &rec->sync_wait_tail, r);
    else
      req_finish (rec, r, 0);
  }
  rec->nbatch = 0;
  sync_kick (rec);
  rec_log_kick (rec);
}
