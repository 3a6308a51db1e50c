/* logwriter.c: the log writer: batches written at once, durability asked of
 * the caller's loop, records handed back only when their answer is true. */
#include <config.h>

#include <errno.h>
#include <unistd.h>

#include "record/logwriter.h"
#include "util/util.h"

void
pc_logw_init (struct pc_logw *w, int fd, uint64_t off, uint64_t first_seq,
              uint64_t start_mono, const struct pc_logw_ops *ops, void *opaque)
{
  *w = (struct pc_logw) {
    .fd = fd, .off = off, .next_seq = first_seq, .start_mono = start_mono,
    .ops = ops, .opaque = opaque, .wb_from = off,
  };
}

bool
pc_logw_needs_sync (const struct pc_record *rec)
{
  return rec->type == PC_REC_FLUSH || rec->type == PC_REC_MARK ||
         rec->type == PC_REC_END || (rec->flags & PC_REC_F_FUA);
}

/* Appends r to the list from *head to *tail. */
static void
enqueue (struct pc_logw_rec **head, struct pc_logw_rec **tail, struct pc_logw_rec *r)
{
  r->next = NULL;
  if (*tail)
    (*tail)->next = r;
  else
    *head = r;
  *tail = r;
}

void
pc_logw_append (struct pc_logw *w, struct pc_logw_rec *r)
{
  enqueue (&w->head, &w->tail, r);
}

bool
pc_logw_busy (const struct pc_logw *w)
{
  return w->head || w->sync_wait || w->sync_busy;
}

static void
sync_start (struct pc_logw *w)
{
  if (w->sync_busy || w->sync_wait == NULL)
    return;
  w->sync_run = w->sync_wait;
  w->sync_wait = w->sync_wait_tail = NULL;
  w->sync_busy = true;
  w->ops->start_sync (w->opaque, w->fd);
}

static void
writeback_start (struct pc_logw *w)
{
  uint64_t from = w->wb_from;

  if (w->ops->start_writeback == NULL || w->wb_busy || w->err ||
      w->off < from + PC_LOGW_WRITEBACK)
    return;
  w->wb_from = w->off;
  w->wb_busy = true;
  w->ops->start_writeback (w->opaque, w->fd, from, w->off - from);
}

void
pc_logw_writeback_done (struct pc_logw *w)
{
  w->wb_busy = false;
  writeback_start (w);
}

void
pc_logw_synced (struct pc_logw *w, int res)
{
  struct pc_logw_rec *r = w->sync_run;

  w->sync_busy = false;
  w->sync_run = NULL;
  /* A failed fdatasync may have lost any record written before it, and a
   * later one can succeed without bringing them back: from now on no
   * record is done without an error. */
  if (res < 0 && w->err == 0)
    w->err = -res;
  while (r) {
    struct pc_logw_rec *next = r->next;
    w->ops->done (w->opaque, r, w->err);
    r = next;
  }
  sync_start (w);
}

/* Writes the n records of the batch, bytes long in all, at w->off.
 * Returns the bytes that reached the file and sets *ret_err to the error
 * that stopped it, if any. */
static uint64_t
write_batch (struct pc_logw *w, size_t n, uint64_t bytes, int *ret_err)
{
  uint64_t done = 0;

  *ret_err = 0;
  while (done < bytes) {
    uint64_t skip = done;
    int niov = 0;
    ssize_t res;

    for (size_t i = 0; i < n; i++) {
      struct pc_logw_rec *r = w->batch[i];
      uint8_t *parts[2] = { r->hdr, r->data };
      uint64_t lens[2] = { PC_REC_HEADER_SIZE, r->rec.datalen };
      for (int k = 0; k < 2; k++) {
        if (skip >= lens[k]) {
          skip -= lens[k];
          continue;
        }
        w->iov[niov].iov_base = parts[k] + skip;
        w->iov[niov++].iov_len = lens[k] - skip;
        skip = 0;
      }
    }
    res = pwritev (w->fd, w->iov, niov, (off_t) (w->off + done));
    if (res < 0 && errno == EINTR)
      continue;
    if (res <= 0) {
      *ret_err = res < 0 ? errno : EIO;
      break;
    }
    done += (uint64_t) res;   /* a short write: go on where it stopped */
  }
  return done;
}

/* Takes up to a batch from the queue, writes it and hands its records on. */
static void
write_one_batch (struct pc_logw *w)
{
  uint64_t now = pc_now_mono_ns () - w->start_mono;
  uint64_t bytes = 0, written, okbytes = 0, at;
  size_t n = 0, nok = 0, i;
  int err;

  while (w->head && n < PC_LOGW_BATCH) {
    struct pc_logw_rec *r = w->head;
    w->head = r->next;
    r->next = NULL;
    if (w->err) {
      w->ops->done (w->opaque, r, w->err);
      continue;
    }
    r->rec.seq = w->next_seq++;
    r->rec.time_ns = now;
    pc_rec_encode (&r->rec, r->data, r->hdr);
    w->batch[n++] = r;
    bytes += PC_REC_HEADER_SIZE + r->rec.datalen;
  }
  if (w->head == NULL)
    w->tail = NULL;
  if (n == 0)
    return;

  written = write_batch (w, n, bytes, &err);
  /* A full disk fails this batch only (space may come back); any other
   * error leaves the log in doubt. */
  if (err && err != ENOSPC && err != EDQUOT && w->err == 0)
    w->err = err;
  /* Which records are whole in the file?  In doubt: none of them. */
  for (i = 0; i < n && w->err == 0; i++) {
    uint64_t sz = PC_REC_HEADER_SIZE + w->batch[i]->rec.datalen;
    if (okbytes + sz > written)
      break;
    okbytes += sz;
    nok++;
  }
  if (nok < n) {
    /* Cut the partial record off so the log stays valid. */
    while (ftruncate (w->fd, (off_t) (w->off + okbytes)) < 0 && errno == EINTR)
      ;
    w->next_seq = w->batch[nok]->rec.seq;
    if (err == 0)
      err = w->err ? w->err : EIO;
  }
  at = w->off;
  w->off += okbytes;

  for (i = 0; i < n; i++) {
    struct pc_logw_rec *r = w->batch[i];
    if (i >= nok)
      w->ops->done (w->opaque, r, err);
    else {
      r->file_off = at;
      at += PC_REC_HEADER_SIZE + r->rec.datalen;
      w->ops->written (w->opaque, r);
      if (pc_logw_needs_sync (&r->rec))
        enqueue (&w->sync_wait, &w->sync_wait_tail, r);
      else
        w->ops->done (w->opaque, r, 0);
    }
  }
}

void
pc_logw_kick (struct pc_logw *w)
{
  if (w->kicking)
    return;           /* called from a callback: the loop below goes on */
  w->kicking = true;
  while (w->head) {
    write_one_batch (w);
    sync_start (w);   /* early: it runs while the next batch is written */
    writeback_start (w);
  }
  w->kicking = false;
  sync_start (w);
}

struct pc_logw_rec *
pc_logw_take_all (struct pc_logw *w)
{
  struct pc_logw_rec *lists[3] = { w->head, w->sync_wait, w->sync_run };
  struct pc_logw_rec *all = NULL, *tail = NULL;

  for (int l = 0; l < 3; l++)
    while (lists[l]) {
      struct pc_logw_rec *next = lists[l]->next;
      enqueue (&all, &tail, lists[l]);
      lists[l] = next;
    }
  w->head = w->tail = w->sync_wait = w->sync_wait_tail = w->sync_run = NULL;
  w->sync_busy = false;
  return all;
}
