/* recconn.c: the recorder's connections: their input buffers, their
 * requests on the way to the log writer, the replies queued and sent, the
 * receives armed, and their end.  The protocols above them (recnbd.c,
 * recctl.c) and the event loop (recorder.c) call in here; nothing here
 * calls up. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <liburing.h>

#include "format/log.h"
#include "format/nbd-proto.h"
#include "record/recint.h"
#include "util/util.h"

/* -------------------------------------------------------------------------
 * io_uring helpers */

struct io_uring_sqe *
rec_get_sqe (struct pc_recorder *rec)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (&rec->ring);

  if (sqe == NULL) {
    io_uring_submit (&rec->ring);
    sqe = io_uring_get_sqe (&rec->ring);
  }
  return sqe;   /* never NULL right after a submit with a free ring */
}

/* -------------------------------------------------------------------------
 * Input buffers */

struct inbuf *
rec_inbuf_get (struct pc_recorder *rec)
{
  struct inbuf *b = rec->spares;

  if (b) {
    rec->spares = b->next_spare;
    rec->nspares--;
  }
  else {
    b = malloc (sizeof *b);
    if (b == NULL)
      return NULL;
    b->rec = rec;
  }
  b->refs = 1;
  return b;
}

void
rec_inbuf_put (struct inbuf *b)
{
  struct pc_recorder *rec = b->rec;

  if (--b->refs > 0)
    return;
  if (rec->nspares < MAX_SPARES) {
    b->next_spare = rec->spares;
    rec->spares = b;
    rec->nspares++;
  }
  else
    free (b);
}

int
rec_conn_make_room (struct conn *c)
{
  size_t tail = c->ilen - c->ipos;
  size_t need = c->need > tail ? c->need : tail;

  if (tail == 0 && c->in->refs == 1)
    c->ipos = c->ilen = 0;      /* all parsed, nothing held: start over */
  if (c->ipos + need <= IBUF_SIZE && c->ilen + RECV_MIN <= IBUF_SIZE)
    return 0;
  if (c->in->refs == 1)
    memmove (c->in->data, c->in->data + c->ipos, tail);
  else {
    struct inbuf *b = rec_inbuf_get (c->rec);
    if (b == NULL)
      return -ENOMEM;
    memcpy (b->data, c->in->data + c->ipos, tail);
    rec_inbuf_put (c->in);
    c->in = b;
  }
  c->ipos = 0;
  c->ilen = tail;
  return 0;
}

/* -------------------------------------------------------------------------
 * Requests, into the log writer */

struct req *
rec_req_new (struct conn *c, uint64_t handle, enum pc_rec_type type, uint16_t flags,
             uint64_t off, uint32_t len)
{
  struct req *r = calloc (1, sizeof *r);

  if (r == NULL)
    return NULL;
  r->conn = c;
  r->handle = handle;
  r->lw.rec.type = type;
  r->lw.rec.flags = flags;
  r->lw.rec.offset = off;
  r->lw.rec.length = len;
  r->lw.rec.conn = c ? c->id : 0;
  return r;
}

void
rec_req_submit (struct pc_recorder *rec, struct req *r)
{
  if (r->conn)
    r->conn->pending++;
  pc_logw_append (&rec->logw, &r->lw);
}

/* Lets r's data go: its share of an input buffer, or its own. */
void
rec_req_drop_data (struct req *r)
{
  if (r->in)
    rec_inbuf_put (r->in);
  else
    free (r->lw.data);
  r->in = NULL;
  r->lw.data = NULL;
}

void
rec_req_free (struct req *r)
{
  rec_req_drop_data (r);
  free (r);
}

/* -------------------------------------------------------------------------
 * Output */

/* A new output buffer for c; on failure c is closed and NULL returned. */
struct outbuf *
rec_out_new (struct conn *c, size_t hlen)
{
  struct outbuf *o = calloc (1, sizeof *o);

  if (o)
    o->hlen = hlen;
  else
    c->closing = true;
  return o;
}

static void
conn_arm_send (struct conn *c)
{
  struct io_uring_sqe *sqe;
  struct outbuf *o;
  size_t skip = c->head_sent;
  int n = 0;

  if (c->send_armed || c->out_head == NULL || c->shut)
    return;
  for (o = c->out_head; o && n + 2 <= SEND_IOV_MAX; o = o->next) {
    if (skip < o->hlen) {
      c->siov[n].iov_base = o->hdr + skip;
      c->siov[n++].iov_len = o->hlen - skip;
      skip = 0;
    }
    else
      skip -= o->hlen;
    if (o->dlen > 0) {
      if (skip < o->dlen) {
        c->siov[n].iov_base = (uint8_t *) o->data + skip;
        c->siov[n++].iov_len = o->dlen - skip;
      }
      skip = skip > o->dlen ? skip - o->dlen : 0;
    }
  }
  memset (&c->smsg, 0, sizeof c->smsg);
  c->smsg.msg_iov = c->siov;
  c->smsg.msg_iovlen = n;
  sqe = rec_get_sqe (c->rec);
  io_uring_prep_sendmsg (sqe, c->fd, &c->smsg, MSG_NOSIGNAL);
  io_uring_sqe_set_data (sqe, &c->send_op);
  c->send_armed = true;
}

void
rec_conn_queue (struct conn *c, struct outbuf *o)
{
  if (c->shut) {
    free (o->owned);
    free (o);
    return;
  }
  if (c->out_tail)
    c->out_tail->next = o;
  else
    c->out_head = o;
  c->out_tail = o;
  /* Sent once the current completions are handled: one sendmsg carries
   * every reply they produced. */
  if (!c->to_send && !c->send_armed) {
    c->to_send = true;
    c->next_to_send = c->rec->to_send;
    c->rec->to_send = c;
  }
}

/* After a round of completions: start the log write and the sends, so
 * that each carries as much as that round produced. */
void
rec_flush_round (struct pc_recorder *rec)
{
  /* The log write first: with the log failed, log_kick answers at once,
   * and those answers go out below with the rest. */
  pc_logw_kick (&rec->logw);
  while (rec->to_send) {
    struct conn *c = rec->to_send;
    rec->to_send = c->next_to_send;
    c->to_send = false;
    conn_arm_send (c);
  }
}

void
rec_on_send (struct conn *c, int res)
{
  size_t done;

  c->send_armed = false;
  if (res < 0) {
    c->closing = true;
    while (c->out_head) {
      struct outbuf *o = c->out_head;
      c->out_head = o->next;
      free (o->owned);
      free (o);
    }
    c->out_tail = NULL;
    rec_conn_maybe_free (c);
    return;
  }
  done = c->head_sent + (size_t) res;
  while (c->out_head && done >= c->out_head->hlen + c->out_head->dlen) {
    struct outbuf *o = c->out_head;
    done -= o->hlen + o->dlen;
    c->out_head = o->next;
    free (o->owned);
    free (o);
  }
  if (c->out_head == NULL)
    c->out_tail = NULL;
  c->head_sent = done;
  conn_arm_send (c);
  if (c->rec->ended && c == c->rec->stop_conn && c->out_head == NULL)
    c->rec->stop_conn = NULL;
  rec_conn_maybe_free (c);
}

/* -------------------------------------------------------------------------
 * Input */

void
rec_expect_payload (struct conn *c, struct req *r, uint32_t len)
{
  r->lw.rec.datalen = len;
  c->cur = r;
  c->cur_have = 0;
}

void
rec_conn_arm_recv (struct conn *c)
{
  struct io_uring_sqe *sqe;
  size_t room;

  if (c->recv_armed || c->closing || c->shut)
    return;
  if (rec_conn_make_room (c) < 0) {
    rec_conn_close (c);
    return;
  }
  room = IBUF_SIZE - c->ilen;
  if (c->cur) {
    /* The payload's rest, and (the input buffer being empty meanwhile) the
     * next requests behind it: one receive a request, not two. */
    c->riov[0].iov_base = c->cur->lw.data + c->cur_have;
    c->riov[0].iov_len = c->cur->lw.rec.datalen - c->cur_have;
    c->riov[1].iov_base = c->in->data + c->ilen;
    c->riov[1].iov_len = c->pending + 1 >= MAX_PENDING ? 0 : room;
    /* Behind a large payload, only the next header: its own payload then
     * comes in place with the next receive, not through c->in. */
    if (c->cur->lw.rec.datalen >= RECV_MIN && c->riov[1].iov_len > NBD_REQUEST_SIZE)
      c->riov[1].iov_len = NBD_REQUEST_SIZE;
    c->rmsg = (struct msghdr) { .msg_iov = c->riov, .msg_iovlen = 2 };
    sqe = rec_get_sqe (c->rec);
    io_uring_prep_recvmsg (sqe, c->fd, &c->rmsg, 0);
  }
  else {
    if (c->pending >= MAX_PENDING)
      return;                   /* resumed by req_finish */
    sqe = rec_get_sqe (c->rec);
    io_uring_prep_recv (sqe, c->fd, c->in->data + c->ilen, room, 0);
  }
  io_uring_sqe_set_data (sqe, &c->recv_op);
  c->recv_armed = true;
}

/* -------------------------------------------------------------------------
 * The end of a connection */

void
rec_conn_release (struct conn *c)
{
  struct pc_recorder *rec = c->rec;

  if (c->prev)
    c->prev->next = c->next;
  else
    rec->conns = c->next;
  if (c->next)
    c->next->prev = c->prev;
  if (c->fd >= 0)
    close (c->fd);
  while (c->out_head) {
    struct outbuf *o = c->out_head;
    c->out_head = o->next;
    free (o->owned);
    free (o);
  }
  if (c->cur)
    rec_req_free (c->cur);
  if (rec->stop_conn == c)
    rec->stop_conn = NULL;
  rec_inbuf_put (c->in);
  free (c);
}

/* A closing connection shuts its socket once everything owed is sent, and
 * is freed once no operation refers to it: after the completions being
 * handled, so that no handler is left holding a freed connection. */
void
rec_conn_maybe_free (struct conn *c)
{
  if (!c->closing)
    return;
  if (!c->shut && c->pending == 0 && c->out_head == NULL) {
    shutdown (c->fd, SHUT_RDWR);
    c->shut = true;
  }
  if (c->shut && !c->recv_armed && !c->send_armed && c->pending == 0 && !c->doomed) {
    c->doomed = true;
    c->next_doomed = c->rec->doomed;
    c->rec->doomed = c;
  }
}

void
rec_release_doomed (struct pc_recorder *rec)
{
  while (rec->doomed) {
    struct conn *c = rec->doomed;
    rec->doomed = c->next_doomed;
    rec_conn_release (c);
  }
}

void
rec_conn_close (struct conn *c)
{
  c->closing = true;
  rec_conn_maybe_free (c);
}
