/* recorder.c: the recording NBD server: handshake, transmission, control
 * socket and the log writer, as one io_uring event loop. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <liburing.h>
#ifdef HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void) (addr), (void) (len))
#endif

#include "control.h"
#include "disk.h"
#include "log.h"
#include "mark.h"
#include "nbd-proto.h"
#include "recorder.h"
#include "util.h"

#define RING_ENTRIES      256
#define IBUF_SIZE         (128u << 10)    /* handshake options up to 64 KiB fit */
#define MAX_OPTION_LEN    (64u << 10)
#define RECV_CHUNK        (16u << 10)     /* larger payloads are received in place */
#define MAX_PENDING       256             /* requests in flight per connection */
#define BATCH_MAX         256             /* records per log write */
#define SEND_IOV_MAX      64
#define EXPORT_FLAGS      (NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_FLUSH | NBD_FLAG_SEND_FUA | \
                           NBD_FLAG_SEND_TRIM | NBD_FLAG_SEND_WRITE_ZEROES | \
                           NBD_FLAG_CAN_MULTI_CONN)

enum op_kind { OP_ACCEPT, OP_RECV, OP_SEND, OP_LOG_WRITE, OP_LOG_SYNC, OP_SIGNAL };

struct op {
  enum op_kind kind;
  void *owner;
};

struct conn;

/* A request on its way through the log: an NBD request or a control one. */
struct req {
  struct req *next;
  struct conn *conn;          /* NULL once the connection is gone */
  uint64_t handle;
  struct pc_record rec;
  uint8_t *data;
  uint8_t hdr[PC_REC_HEADER_SIZE];
  bool needs_sync;
};

struct outbuf {
  struct outbuf *next;
  uint8_t hdr[40];
  size_t hlen;
  const void *data;
  size_t dlen;
  void *owned;                /* freed once sent */
};

enum phase { PH_CLIENT_FLAGS, PH_OPTIONS, PH_TRANSMISSION, PH_CONTROL };

struct conn {
  struct conn *prev, *next;
  struct pc_recorder *rec;
  struct op recv_op, send_op;
  int fd;
  uint32_t id;
  enum phase phase;
  bool no_zeroes, structured;
  uint8_t *ibuf;
  size_t ilen;
  struct req *cur;            /* request whose payload is being received */
  size_t cur_have;
  uint64_t discard;           /* payload bytes to drop after an error reply */
  struct outbuf *out_head, *out_tail;
  size_t head_sent;           /* bytes of out_head already sent */
  struct iovec siov[SEND_IOV_MAX];
  struct msghdr smsg;
  bool recv_armed, send_armed;
  unsigned pending;           /* requests in the log pipeline */
  bool closing, shut;
  bool doomed;                /* on the release list */
  struct conn *next_doomed;
  bool to_send;               /* on the send list */
  struct conn *next_to_send;
};

struct listener {
  struct op op;
  int fd;
  bool control;
};

struct pc_recorder {
  struct pc_recorder_config cfg;
  struct io_uring ring;
  bool ring_ok;
  struct pc_disk disk;
  int log_fd;
  uint64_t log_off;
  uint64_t next_seq;
  uint64_t start_mono;
  struct listener nbd_l, ctl_l;
  char *socket_path, *control_path;
  int sig_fd;
  struct op sig_op;
  struct signalfd_siginfo sig_info;
  uint32_t next_conn_id;
  struct conn *conns;
  struct conn *doomed;        /* released after the current completions */
  struct conn *to_send;       /* have output: sent after the current completions */
  /* the log writer */
  struct req *lq_head, *lq_tail;          /* waiting to be written */
  struct req *batch[BATCH_MAX];
  size_t nbatch;
  struct iovec biov[2 * BATCH_MAX];
  uint64_t batch_bytes, batch_done;
  bool write_busy, sync_busy;
  struct op write_op, sync_op;
  struct req *sync_wait, *sync_wait_tail; /* written, awaiting fdatasync */
  struct req *sync_run;                   /* covered by the fdatasync in flight */
  /* stopping */
  bool stopping;              /* END queued: no new requests */
  bool ended;                 /* END on stable storage */
  struct conn *stop_conn;
  int fatal;
  int log_err;              /* errno: the log could not be written or made
                             * durable; nothing is acknowledged after it */
  char **mark_names;          /* names in use: marks are unique */
  size_t nmark_names;
};

static void conn_arm_recv (struct conn *c);
static void conn_maybe_free (struct conn *c);
static void log_kick (struct pc_recorder *rec);

/* -------------------------------------------------------------------------
 * io_uring helpers */

static struct io_uring_sqe *
get_sqe (struct pc_recorder *rec)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (&rec->ring);

  if (sqe == NULL) {
    io_uring_submit (&rec->ring);
    sqe = io_uring_get_sqe (&rec->ring);
  }
  return sqe;   /* never NULL right after a submit with a free ring */
}

/* -------------------------------------------------------------------------
 * Output */

/* A new output buffer for c; on failure c is closed and NULL returned. */
static struct outbuf *
out_new (struct conn *c, size_t hlen)
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
  sqe = get_sqe (c->rec);
  io_uring_prep_sendmsg (sqe, c->fd, &c->smsg, MSG_NOSIGNAL);
  io_uring_sqe_set_data (sqe, &c->send_op);
  c->send_armed = true;
}

static void
conn_queue (struct conn *c, struct outbuf *o)
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
static void
flush_round (struct pc_recorder *rec)
{
  /* The log write first: with the log failed, log_kick answers at once,
   * and those answers go out below with the rest. */
  log_kick (rec);
  while (rec->to_send) {
    struct conn *c = rec->to_send;
    rec->to_send = c->next_to_send;
    c->to_send = false;
    conn_arm_send (c);
  }
}

static void
on_send (struct conn *c, int res)
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
    conn_maybe_free (c);
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
  conn_maybe_free (c);
}

/* Simple reply (also used for non-read commands under structured replies). */
static void
reply_simple (struct conn *c, uint64_t handle, uint32_t err)
{
  struct outbuf *o = out_new (c, NBD_SIMPLE_REPLY_SIZE);

  if (o == NULL)
    return;
  pc_put_be32 (o->hdr, NBD_SIMPLE_REPLY_MAGIC);
  pc_put_be32 (o->hdr + 4, err);
  pc_put_be64 (o->hdr + 8, handle);
  conn_queue (c, o);
}

static void
reply_error (struct conn *c, uint64_t handle, uint16_t type, uint32_t err)
{
  struct outbuf *o;

  if (!c->structured || type != NBD_CMD_READ) {
    reply_simple (c, handle, err);
    return;
  }
  o = out_new (c, NBD_STRUCTURED_HDR_SIZE + 6);
  if (o == NULL)
    return;
  pc_put_be32 (o->hdr, NBD_STRUCTURED_REPLY_MAGIC);
  pc_put_be16 (o->hdr + 4, NBD_REPLY_FLAG_DONE);
  pc_put_be16 (o->hdr + 6, NBD_REPLY_TYPE_ERROR);
  pc_put_be64 (o->hdr + 8, handle);
  pc_put_be32 (o->hdr + 16, 6);
  pc_put_be32 (o->hdr + 20, err);
  pc_put_be16 (o->hdr + 24, 0);
  conn_queue (c, o);
}

static void
reply_read (struct conn *c, uint64_t handle, uint64_t off, uint32_t len)
{
  struct outbuf *o;

  if (c->structured) {
    o = out_new (c, NBD_STRUCTURED_HDR_SIZE + 8);
    if (o == NULL)
      return;
    pc_put_be32 (o->hdr, NBD_STRUCTURED_REPLY_MAGIC);
    pc_put_be16 (o->hdr + 4, NBD_REPLY_FLAG_DONE);
    pc_put_be16 (o->hdr + 6, NBD_REPLY_TYPE_OFFSET_DATA);
    pc_put_be64 (o->hdr + 8, handle);
    pc_put_be32 (o->hdr + 16, 8 + len);
    pc_put_be64 (o->hdr + 20, off);
  }
  else {
    o = out_new (c, NBD_SIMPLE_REPLY_SIZE);
    if (o == NULL)
      return;
    pc_put_be32 (o->hdr, NBD_SIMPLE_REPLY_MAGIC);
    pc_put_be32 (o->hdr + 4, 0);
    pc_put_be64 (o->hdr + 8, handle);
  }
  /* Sent straight from the disk: a write that overlaps a read in flight may
   * show in it, as NBD allows for concurrent requests. */
  o->data = c->rec->disk.mem + off;
  o->dlen = len;
  conn_queue (c, o);
}

static void
opt_reply (struct conn *c, uint32_t opt, uint32_t type, const void *data, size_t len)
{
  struct outbuf *o = out_new (c, 20);

  if (o == NULL)
    return;
  if (len > 0 && (o->owned = malloc (len)) == NULL) {
    free (o);
    c->closing = true;
    return;
  }
  pc_put_be64 (o->hdr, NBD_REP_MAGIC);
  pc_put_be32 (o->hdr + 8, opt);
  pc_put_be32 (o->hdr + 12, type);
  pc_put_be32 (o->hdr + 16, (uint32_t) len);
  if (len > 0) {
    memcpy (o->owned, data, len);
    o->data = o->owned;
    o->dlen = len;
  }
  conn_queue (c, o);
}

static void
ctl_reply (struct conn *c, int status, uint64_t seq)
{
  struct outbuf *o = out_new (c, PC_CTL_REPLY_SIZE);

  if (o == NULL)
    return;
  pc_put_le32 (o->hdr, PC_CTL_REPLY_MAGIC);
  pc_put_le32 (o->hdr + 4, (uint32_t) status);
  pc_put_le64 (o->hdr + 8, seq);
  conn_queue (c, o);
}

/* -------------------------------------------------------------------------
 * Connections */

static void
conn_release (struct conn *c)
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
  if (c->cur) {
    free (c->cur->data);
    free (c->cur);
  }
  if (rec->stop_conn == c)
    rec->stop_conn = NULL;
  free (c->ibuf);
  free (c);
}

/* A closing connection shuts its socket once everything owed is sent, and
 * is freed once no operation refers to it: after the completions being
 * handled, so that no handler is left holding a freed connection. */
static void
conn_maybe_free (struct conn *c)
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

static void
release_doomed (struct pc_recorder *rec)
{
  while (rec->doomed) {
    struct conn *c = rec->doomed;
    rec->doomed = c->next_doomed;
    conn_release (c);
  }
}

static void
conn_close (struct conn *c)
{
  c->closing = true;
  conn_maybe_free (c);
}

static struct conn *
conn_new (struct pc_recorder *rec, int fd, bool control)
{
  struct conn *c = calloc (1, sizeof *c);

  if (c == NULL)
    return NULL;
  c->ibuf = malloc (IBUF_SIZE);
  if (c->ibuf == NULL) {
    free (c);
    return NULL;
  }
  c->rec = rec;
  c->fd = fd;
  c->recv_op.kind = OP_RECV;
  c->recv_op.owner = c;
  c->send_op.kind = OP_SEND;
  c->send_op.owner = c;
  c->phase = control ? PH_CONTROL : PH_CLIENT_FLAGS;
  c->id = control ? 0 : ++rec->next_conn_id;
  c->next = rec->conns;
  if (rec->conns)
    rec->conns->prev = c;
  rec->conns = c;
  return c;
}

/* -------------------------------------------------------------------------
 * Requests and the log writer */

static struct req *
req_new (struct conn *c, uint64_t handle, enum pc_rec_type type, uint16_t flags,
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

static void
req_submit (struct pc_recorder *rec, struct req *r)
{
  if (r->conn)
    r->conn->pending++;
  r->next = NULL;
  if (rec->lq_tail)
    rec->lq_tail->next = r;
  else
    rec->lq_head = r;
  rec->lq_tail = r;
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
        ctl_reply (c, -err, r->rec.seq);
      else
        reply_simple (c, r->handle, (uint32_t) err);
    }
    if (!c->closing && !c->recv_armed)
      conn_arm_recv (c);
    conn_maybe_free (c);
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
  sqe = get_sqe (rec);
  io_uring_prep_fsync (sqe, rec->log_fd, IORING_FSYNC_DATASYNC);
  io_uring_sqe_set_data (sqe, &rec->sync_op);
  rec->sync_busy = true;
}

static void
on_sync (struct pc_recorder *rec, int res)
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
  sqe = get_sqe (rec);
  io_uring_prep_writev (sqe, rec->log_fd, rec->biov, (unsigned) n,
                        rec->log_off + rec->batch_done);
  io_uring_sqe_set_data (sqe, &rec->write_op);
  rec->write_busy = true;
}

static void
log_kick (struct pc_recorder *rec)
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

static void
on_write (struct pc_recorder *rec, int res)
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
    if (r->needs_sync) {
      r->next = NULL;
      if (rec->sync_wait_tail)
        rec->sync_wait_tail->next = r;
      else
        rec->sync_wait = r;
      rec->sync_wait_tail = r;
    }
    else
      req_finish (rec, r, 0);
  }
  rec->nbatch = 0;
  sync_kick (rec);
  log_kick (rec);
}

/* -------------------------------------------------------------------------
 * Handshake */

static void
send_export_info (struct conn *c, uint32_t opt)
{
  uint8_t buf[14];

  pc_put_be16 (buf, NBD_INFO_EXPORT);
  pc_put_be64 (buf + 2, c->rec->disk.size);
  pc_put_be16 (buf + 10, EXPORT_FLAGS);
  opt_reply (c, opt, NBD_REP_INFO, buf, 12);
  pc_put_be16 (buf, NBD_INFO_BLOCK_SIZE);
  pc_put_be32 (buf + 2, PC_NBD_MIN_BLOCK);
  pc_put_be32 (buf + 6, PC_NBD_PREF_BLOCK);
  pc_put_be32 (buf + 10, PC_NBD_MAX_BLOCK);
  opt_reply (c, opt, NBD_REP_INFO, buf, 14);
}

/* Handles one option; the option's data is complete in buf. */
static void
handle_option (struct conn *c, uint32_t opt, const uint8_t *buf, uint32_t len)
{
  switch (opt) {
  case NBD_OPT_EXPORT_NAME: {
    /* Any export name is accepted: there is one export. */
    struct outbuf *o = out_new (c, c->no_zeroes ? 10 : 134);
    if (o == NULL)
      return;
    pc_put_be64 (o->hdr, c->rec->disk.size);
    pc_put_be16 (o->hdr + 8, EXPORT_FLAGS);
    if (!c->no_zeroes) {
      o->owned = calloc (1, 124);
      o->data = o->owned;
      o->dlen = o->owned ? 124 : 0;
      o->hlen = 10;
    }
    conn_queue (c, o);
    c->phase = PH_TRANSMISSION;
    return;
  }
  case NBD_OPT_ABORT:
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    c->closing = true;
    return;
  case NBD_OPT_LIST: {
    uint8_t name[4] = { 0, 0, 0, 0 };
    if (len != 0) {
      opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
      return;
    }
    opt_reply (c, opt, NBD_REP_SERVER, name, 4);
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    return;
  }
  case NBD_OPT_INFO:
  case NBD_OPT_GO: {
    uint32_t nlen;
    uint16_t nreq;
    if (len < 6 || (nlen = pc_get_be32 (buf)) > len - 6 ||
        (nreq = pc_get_be16 (buf + 4 + nlen), 4u + nlen + 2u + 2u * nreq != len)) {
      opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
      return;
    }
    if (c->rec->stopping) {
      opt_reply (c, opt, NBD_REP_ERR_SHUTDOWN, NULL, 0);
      return;
    }
    send_export_info (c, opt);
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    if (opt == NBD_OPT_GO)
      c->phase = PH_TRANSMISSION;
    return;
  }
  case NBD_OPT_STRUCTURED_REPLY:
    if (len != 0) {
      opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
      return;
    }
    c->structured = true;
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    return;
  default:
    opt_reply (c, opt, NBD_REP_ERR_UNSUP, NULL, 0);
    return;
  }
}

/* -------------------------------------------------------------------------
 * Transmission */

static uint32_t
check_range (struct conn *c, uint64_t off, uint32_t len)
{
  if (len == 0 || off > c->rec->disk.size || len > c->rec->disk.size - off)
    return NBD_EINVAL;
  if (off % PC_NBD_MIN_BLOCK != 0 || len % PC_NBD_MIN_BLOCK != 0)
    return NBD_EINVAL;
  return 0;
}

/* Parses one request header; returns false to stop parsing for now. */
static bool
handle_request (struct conn *c, const uint8_t *p)
{
  struct pc_recorder *rec = c->rec;
  uint16_t flags = pc_get_be16 (p + 4), type = pc_get_be16 (p + 6);
  uint64_t handle = pc_get_be64 (p + 8), off = pc_get_be64 (p + 16);
  uint32_t len = pc_get_be32 (p + 24), err;
  uint16_t rflags = (flags & NBD_CMD_FLAG_FUA) ? PC_REC_F_FUA : 0;
  struct req *r;

  if (pc_get_be32 (p) != NBD_REQUEST_MAGIC) {
    conn_close (c);
    return false;
  }
  switch (type) {
  case NBD_CMD_READ:
    err = check_range (c, off, len);
    if (err == 0 && len > PC_NBD_MAX_BLOCK)
      err = NBD_EOVERFLOW;
    /* A base image that fails to read now is an error for this request,
     * not for the server. */
    if (err == 0 && pc_disk_load (&rec->disk, off, len) < 0)
      err = NBD_EIO;
    if (err)
      reply_error (c, handle, type, err);
    else
      reply_read (c, handle, off, len);
    return true;

  case NBD_CMD_WRITE:
    if (len > PC_NBD_MAX_BLOCK) {
      conn_close (c);             /* beyond the advertised maximum: no resync */
      return false;
    }
    err = rec->stopping ? NBD_ESHUTDOWN : check_range (c, off, len);
    if (err) {
      reply_simple (c, handle, err);
      c->discard = len;
      return true;
    }
    r = req_new (c, handle, PC_REC_WRITE, rflags, off, len);
    if (r)
      r->data = malloc (len);
    if (r == NULL || r->data == NULL) {
      free (r);
      reply_simple (c, handle, NBD_ENOMEM);
      c->discard = len;
      return true;
    }
    r->rec.datalen = len;
    c->cur = r;
    c->cur_have = 0;
    return true;

  case NBD_CMD_FLUSH:
  case NBD_CMD_TRIM:
  case NBD_CMD_WRITE_ZEROES:
    if (rec->stopping)
      err = NBD_ESHUTDOWN;
    else if (type == NBD_CMD_FLUSH)
      err = 0;
    else
      err = check_range (c, off, len);
    if (err) {
      reply_simple (c, handle, err);
      return true;
    }
    if (type == NBD_CMD_FLUSH)
      r = req_new (c, handle, PC_REC_FLUSH, 0, 0, 0);
    else if (type == NBD_CMD_TRIM)
      r = req_new (c, handle, PC_REC_TRIM, rflags, off, len);
    else
      r = req_new (c, handle, PC_REC_WRITE_ZEROES,
                   rflags | ((flags & NBD_CMD_FLAG_NO_HOLE) ? PC_REC_F_NO_HOLE : 0),
                   off, len);
    if (r == NULL) {
      reply_simple (c, handle, NBD_ENOMEM);
      return true;
    }
    req_submit (rec, r);
    return true;

  case NBD_CMD_DISC:
    c->closing = true;            /* finish what is in flight, then close */
    conn_maybe_free (c);
    return false;

  default:
    reply_error (c, handle, type, NBD_EINVAL);
    return true;
  }
}

/* A request's payload is complete. */
static void
payload_done (struct conn *c)
{
  struct req *r = c->cur;
  struct pc_mark m = { 0 };   /* untouched by a failed decode */
  int err;

  c->cur = NULL;
  if (c->rec->stopping) {
    /* Its header came before the stop, its data after: too late. */
    if (c->phase == PH_CONTROL)
      ctl_reply (c, -ESHUTDOWN, 0);
    else
      reply_simple (c, r->handle, NBD_ESHUTDOWN);
    free (r->data);
    free (r);
    return;
  }
  if (c->phase == PH_CONTROL && r->rec.type == PC_REC_MARK) {
    struct pc_recorder *rec = c->rec;
    char **names;
    err = pc_mark_decode (r->data, r->rec.datalen, &m, NULL, 0);
    for (size_t i = 0; err == 0 && i < rec->nmark_names; i++)
      if (strcmp (rec->mark_names[i], m.name) == 0)
        err = -EEXIST;
    if (err == 0) {
      names = realloc (rec->mark_names, (rec->nmark_names + 1) * sizeof *names);
      if (names == NULL)
        err = -ENOMEM;
      else {
        rec->mark_names = names;
        names[rec->nmark_names++] = m.name;
        m.name = NULL;
      }
    }
    pc_mark_free (&m);
    if (err < 0) {
      ctl_reply (c, err, 0);
      free (r->data);
      free (r);
      return;
    }
  }
  req_submit (c->rec, r);
}

static bool
handle_control (struct conn *c, const uint8_t *p)
{
  struct pc_recorder *rec = c->rec;
  uint32_t cmd = pc_get_le32 (p + 4), len = pc_get_le32 (p + 8);
  struct req *r;

  if (pc_get_le32 (p) != PC_CTL_MAGIC || len > PC_CTL_MAX_PAYLOAD) {
    conn_close (c);
    return false;
  }
  if (rec->stopping) {
    ctl_reply (c, -ESHUTDOWN, 0);
    c->discard = len;
    return true;
  }
  switch (cmd) {
  case PC_CTL_MARK:
    r = req_new (c, 0, PC_REC_MARK, 0, 0, 0);
    if (r && len > 0)
      r->data = malloc (len);
    if (r == NULL || r->data == NULL || len == 0) {
      ctl_reply (c, r && len == 0 ? -EBADMSG : -ENOMEM, 0);
      if (r)
        free (r->data);
      free (r);
      c->discard = len;
      return true;
    }
    r->rec.datalen = len;
    c->cur = r;
    c->cur_have = 0;
    return true;
  case PC_CTL_STOP:
    c->discard = len;
    r = req_new (c, 0, PC_REC_END, 0, 0, 0);
    if (r == NULL) {
      ctl_reply (c, -ENOMEM, 0);
      return true;
    }
    rec->stopping = true;
    rec->stop_conn = c;
    req_submit (rec, r);
    return true;
  default:
    ctl_reply (c, -EOPNOTSUPP, 0);
    c->discard = len;
    return true;
  }
}

/* Consumes whole messages from the input buffer. */
static void
conn_parse (struct conn *c)
{
  size_t pos = 0;

  while (!c->closing && c->cur == NULL) {
    uint8_t *p = c->ibuf + pos;
    size_t avail = c->ilen - pos;

    if (c->discard > 0) {
      size_t n = avail < c->discard ? avail : (size_t) c->discard;
      c->discard -= n;
      pos += n;
      if (c->discard > 0)
        break;
      continue;
    }
    if (c->phase == PH_CLIENT_FLAGS) {
      uint32_t flags;
      if (avail < 4)
        break;
      flags = pc_get_be32 (p);
      pos += 4;
      if (!(flags & NBD_FLAG_C_FIXED_NEWSTYLE) ||
          (flags & ~(NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES))) {
        conn_close (c);
        break;
      }
      c->no_zeroes = flags & NBD_FLAG_C_NO_ZEROES;
      c->phase = PH_OPTIONS;
    }
    else if (c->phase == PH_OPTIONS) {
      uint32_t opt, olen;
      if (avail < NBD_OPT_HEADER_SIZE)
        break;
      if (pc_get_be64 (p) != NBD_IHAVEOPT) {
        conn_close (c);
        break;
      }
      opt = pc_get_be32 (p + 8);
      olen = pc_get_be32 (p + 12);
      if (olen > MAX_OPTION_LEN) {
        pos += NBD_OPT_HEADER_SIZE;
        if (opt == NBD_OPT_EXPORT_NAME) {
          conn_close (c);
          break;
        }
        opt_reply (c, opt, NBD_REP_ERR_TOO_BIG, NULL, 0);
        c->discard = olen;
        continue;
      }
      if (avail < NBD_OPT_HEADER_SIZE + olen)
        break;
      pos += NBD_OPT_HEADER_SIZE + olen;
      handle_option (c, opt, p + NBD_OPT_HEADER_SIZE, olen);
    }
    else if (c->phase == PH_TRANSMISSION || c->phase == PH_CONTROL) {
      size_t hsz = c->phase == PH_CONTROL ? PC_CTL_HEADER_SIZE : NBD_REQUEST_SIZE;
      bool more;
      if (avail < hsz)
        break;
      pos += hsz;
      more = c->phase == PH_CONTROL ? handle_control (c, p) : handle_request (c, p);
      if (c->cur) {
        /* Take what already arrived of the payload. */
        size_t n = c->ilen - pos;
        if (n > c->cur->rec.datalen)
          n = c->cur->rec.datalen;
        memcpy (c->cur->data, c->ibuf + pos, n);
        c->cur_have = n;
        pos += n;
        if (c->cur_have == c->cur->rec.datalen)
          payload_done (c);
      }
      if (!more)
        break;
    }
  }
  if (pos > 0) {
    memmove (c->ibuf, c->ibuf + pos, c->ilen - pos);
    c->ilen -= pos;
  }
}

static void
conn_arm_recv (struct conn *c)
{
  struct io_uring_sqe *sqe;
  void *buf;
  size_t len;

  if (c->recv_armed || c->closing || c->shut)
    return;
  if (c->cur) {
    buf = c->cur->data + c->cur_have;
    len = c->cur->rec.datalen - c->cur_have;
  }
  else {
    if (c->pending >= MAX_PENDING)
      return;                   /* resumed by req_finish */
    buf = c->ibuf + c->ilen;
    len = IBUF_SIZE - c->ilen;
    if (c->phase == PH_TRANSMISSION && len > RECV_CHUNK)
      len = RECV_CHUNK;
    if (len == 0) {             /* cannot happen: options are bounded */
      conn_close (c);
      return;
    }
  }
  sqe = get_sqe (c->rec);
  io_uring_prep_recv (sqe, c->fd, buf, len, 0);
  io_uring_sqe_set_data (sqe, &c->recv_op);
  c->recv_armed = true;
}

static void
on_recv (struct conn *c, int res)
{
  c->recv_armed = false;
  if (res <= 0 || c->shut) {
    if (c->cur) {
      free (c->cur->data);
      free (c->cur);
      c->cur = NULL;
    }
    conn_close (c);
    return;
  }
  if (c->cur) {
    VALGRIND_MAKE_MEM_DEFINED (c->cur->data + c->cur_have, (size_t) res);
    c->cur_have += (size_t) res;
    if (c->cur_have == c->cur->rec.datalen)
      payload_done (c);
  }
  else {
    VALGRIND_MAKE_MEM_DEFINED (c->ibuf + c->ilen, (size_t) res);
    c->ilen += (size_t) res;
  }
  conn_parse (c);
  conn_arm_recv (c);
  conn_maybe_free (c);
}

/* -------------------------------------------------------------------------
 * Accepting */

static void
arm_accept (struct pc_recorder *rec, struct listener *l)
{
  struct io_uring_sqe *sqe = get_sqe (rec);

  io_uring_prep_accept (sqe, l->fd, NULL, NULL, SOCK_CLOEXEC);
  io_uring_sqe_set_data (sqe, &l->op);
}

/* Serves a connected socket: the greeting for NBD, then requests. */
static int
adopt (struct pc_recorder *rec, int fd, bool control)
{
  struct conn *c = conn_new (rec, fd, control);

  if (c == NULL) {
    close (fd);
    return -ENOMEM;
  }
  if (!control) {
    struct outbuf *o = out_new (c, 18);
    int one = 1;
    setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (o == NULL) {
      conn_close (c);
      return -ENOMEM;
    }
    pc_put_be64 (o->hdr, NBD_MAGIC);
    pc_put_be64 (o->hdr + 8, NBD_IHAVEOPT);
    pc_put_be16 (o->hdr + 16, NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES);
    conn_queue (c, o);
  }
  conn_arm_recv (c);
  return 0;
}

static void
on_accept (struct pc_recorder *rec, struct listener *l, int res)
{
  if (rec->stopping) {
    if (res >= 0)
      close (res);
    return;
  }
  arm_accept (rec, l);
  if (res >= 0)
    adopt (rec, res, l->control);
}

int
pc_recorder_adopt (struct pc_recorder *rec, int fd, bool control)
{
  int r = adopt (rec, fd, control);

  flush_round (rec);
  return r;
}

static void
arm_signal (struct pc_recorder *rec)
{
  struct io_uring_sqe *sqe = get_sqe (rec);

  io_uring_prep_read (sqe, rec->sig_fd, &rec->sig_info, sizeof rec->sig_info, 0);
  io_uring_sqe_set_data (sqe, &rec->sig_op);
}

static void
begin_stop (struct pc_recorder *rec)
{
  struct req *r;

  if (rec->stopping)
    return;
  r = req_new (NULL, 0, PC_REC_END, 0, 0, 0);
  if (r == NULL) {
    rec->fatal = -ENOMEM;
    return;
  }
  rec->stopping = true;
  req_submit (rec, r);
}

/* -------------------------------------------------------------------------
 * Setup */

static int
tcp_listen (const char *spec)
{
  char host[256] = "127.0.0.1";
  const char *port = spec, *colon = strrchr (spec, ':');
  struct addrinfo hints, *res = NULL, *ai;
  int fd = -1, r, one = 1;

  if (colon) {
    size_t n = (size_t) (colon - spec);
    if (n >= sizeof host)
      return -ENAMETOOLONG;
    if (n > 0) {
      memcpy (host, spec, n);
      host[n] = '\0';
      if (host[0] == '[' && n > 2 && host[n - 1] == ']') {
        memmove (host, host + 1, n - 2);
        host[n - 2] = '\0';
      }
    }
    port = colon + 1;
  }
  memset (&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  if (getaddrinfo (host, port, &hints, &res) != 0)
    return -EADDRNOTAVAIL;
  r = -EADDRNOTAVAIL;
  for (ai = res; ai; ai = ai->ai_next) {
    fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      r = -errno;
      continue;
    }
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind (fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen (fd, 128) == 0)
      break;
    r = -errno;
    close (fd);
    fd = -1;
  }
  freeaddrinfo (res);
  return fd >= 0 ? fd : r;
}

static int
create_log (struct pc_recorder *rec)
{
  struct pc_log_header h;
  uint8_t buf[PC_LOG_HEADER_SIZE];
  char *dir, *copy;
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (rec->cfg.force ? O_TRUNC : O_EXCL);
  int r, dfd;

  rec->log_fd = open (rec->cfg.log_path, flags, 0644);
  if (rec->log_fd < 0)
    return -errno;
  memset (&h, 0, sizeof h);
  h.version = PC_LOG_VERSION;
  h.devsize = rec->disk.size;
  h.sector = PC_NBD_MIN_BLOCK;
  h.compat = PC_LOG_COMPAT_HDRSUM;
  h.start_ns = pc_now_real_ns ();
  if (rec->disk.has_base) {
    h.flags |= PC_LOG_F_BASE;
    memcpy (h.basehash, rec->disk.basehash, 16);
    h.basesize = rec->disk.size;
    copy = strdup (rec->cfg.base_path);
    if (copy == NULL)
      return -ENOMEM;
    strncpy (h.basename, basename (copy), sizeof h.basename - 1);
    free (copy);
  }
  pc_log_header_encode (&h, buf);
  r = pc_write_all (rec->log_fd, buf, sizeof buf);
  if (r < 0)
    return r;
  if (fdatasync (rec->log_fd) < 0)
    return -errno;
  rec->log_off = PC_LOG_HEADER_SIZE;
  /* Make the file's name durable too. */
  copy = strdup (rec->cfg.log_path);
  if (copy == NULL)
    return -ENOMEM;
  dir = dirname (copy);
  dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync (dfd);
    close (dfd);
  }
  free (copy);
  return 0;
}

int
pc_recorder_new (const struct pc_recorder_config *cfg,
                 struct pc_recorder **ret_rec, const char **ret_what)
{
  struct pc_recorder *rec;
  const char *what = "recorder";
  int r;

  rec = calloc (1, sizeof *rec);
  if (rec == NULL)
    return -ENOMEM;
  rec->cfg = *cfg;
  rec->log_fd = rec->nbd_l.fd = rec->ctl_l.fd = rec->sig_fd = -1;

  if (cfg->base_path) {
    what = "base image";
    r = pc_disk_open_base (&rec->disk, cfg->base_path);
  }
  else {
    what = "size";
    r = (cfg->size == 0 || cfg->size % PC_NBD_MIN_BLOCK) ? -EINVAL
        : pc_disk_open_zero (&rec->disk, cfg->size);
  }
  if (r < 0)
    goto fail;

  what = "socket";
  if (cfg->listen_addr)
    r = tcp_listen (cfg->listen_addr);
  else
    r = pc_unix_listen (cfg->socket_path);
  if (r < 0)
    goto fail;
  rec->nbd_l.fd = r;
  if (!cfg->listen_addr && (rec->socket_path = strdup (cfg->socket_path)) == NULL) {
    r = -ENOMEM;
    goto fail;
  }

  what = "control socket";
  r = pc_unix_listen (cfg->control_path);
  if (r < 0)
    goto fail;
  rec->ctl_l.fd = r;
  rec->control_path = strdup (cfg->control_path);
  if (rec->control_path == NULL) {
    r = -ENOMEM;
    goto fail;
  }

  what = "log";
  r = create_log (rec);
  if (r < 0)
    goto fail;

  *ret_rec = rec;
  return 0;

fail:
  *ret_what = what;
  pc_recorder_free (rec);
  return r;
}

int
pc_recorder_start (struct pc_recorder *rec)
{
  sigset_t mask;
  int r;

  /* One thread submits and reaps: completions can wait for it (fewer
   * wake-ups); older kernels without these flags get a plain ring. */
  {
    struct io_uring_params p;
    memset (&p, 0, sizeof p);
    p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    r = io_uring_queue_init_params (RING_ENTRIES, &rec->ring, &p);
    if (r == -EINVAL)
      r = io_uring_queue_init (RING_ENTRIES, &rec->ring, 0);
  }
  if (r < 0)
    return r;
  rec->ring_ok = true;

  sigemptyset (&mask);
  sigaddset (&mask, SIGINT);
  sigaddset (&mask, SIGTERM);
  sigaddset (&mask, SIGHUP);
  sigprocmask (SIG_BLOCK, &mask, NULL);
  signal (SIGPIPE, SIG_IGN);
  rec->sig_fd = signalfd (-1, &mask, SFD_CLOEXEC);
  if (rec->sig_fd < 0)
    return -errno;
  return 0;
}

static bool
idle (const struct pc_recorder *rec)
{
  return rec->conns == NULL && rec->lq_head == NULL && !rec->write_busy && !rec->sync_busy;
}

static int run_loop (struct pc_recorder *rec, bool until_idle);

int
pc_recorder_run (struct pc_recorder *rec)
{
  return run_loop (rec, false);
}

int
pc_recorder_run_until_idle (struct pc_recorder *rec)
{
  return run_loop (rec, true);
}

static int
run_loop (struct pc_recorder *rec, bool until_idle)
{
  int r;

  if (!rec->ring_ok)
    return -EINVAL;
  if (rec->start_mono == 0)
    rec->start_mono = pc_now_mono_ns ();

  rec->nbd_l.op = (struct op) { OP_ACCEPT, &rec->nbd_l };
  rec->ctl_l.op = (struct op) { OP_ACCEPT, &rec->ctl_l };
  rec->ctl_l.control = true;
  rec->sig_op = (struct op) { OP_SIGNAL, rec };
  rec->write_op = (struct op) { OP_LOG_WRITE, rec };
  rec->sync_op = (struct op) { OP_LOG_SYNC, rec };
  arm_accept (rec, &rec->nbd_l);
  arm_accept (rec, &rec->ctl_l);
  arm_signal (rec);

  /* Runs until the END record is durable and the stop request answered. */
  while (!(rec->ended && rec->stop_conn == NULL) && rec->fatal == 0 &&
         !(until_idle && idle (rec))) {
    struct io_uring_cqe *cqe;
    unsigned head, n = 0;

    r = io_uring_submit_and_wait (&rec->ring, 1);
    if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
      return r;
    io_uring_for_each_cqe (&rec->ring, head, cqe) {
      struct op *op = io_uring_cqe_get_data (cqe);
      int res = cqe->res;
      n++;
      if (op == NULL)
        continue;
      switch (op->kind) {
      case OP_ACCEPT: on_accept (rec, op->owner, res); break;
      case OP_RECV: on_recv (op->owner, res); break;
      case OP_SEND: on_send (op->owner, res); break;
      case OP_LOG_WRITE: on_write (rec, res); break;
      case OP_LOG_SYNC: on_sync (rec, res); break;
      case OP_SIGNAL:
        if (res > 0) {
          VALGRIND_MAKE_MEM_DEFINED (&rec->sig_info, sizeof rec->sig_info);
          begin_stop (rec);
        }
        else
          arm_signal (rec);
        break;
      }
    }
    io_uring_cq_advance (&rec->ring, n);
    flush_round (rec);
    release_doomed (rec);
  }
  /* Let the last replies go out before the sockets close. */
  io_uring_submit (&rec->ring);
  return rec->fatal;
}

void
pc_recorder_free (struct pc_recorder *rec)
{
  if (rec == NULL)
    return;
  rec->doomed = NULL;
  rec->to_send = NULL;
  while (rec->conns) {
    struct conn *c = rec->conns;
    c->recv_armed = c->send_armed = false;
    c->pending = 0;
    conn_release (c);
  }
  if (rec->ring_ok)
    io_uring_queue_exit (&rec->ring);
  /* Requests still queued belong to no connection any more. */
  for (struct req *lists[3] = { rec->lq_head, rec->sync_wait, rec->sync_run }, **l = lists;
       l < lists + 3; l++)
    while (*l) {
      struct req *next = (*l)->next;
      free ((*l)->data);
      free (*l);
      *l = next;
    }
  for (size_t i = 0; i < rec->nbatch; i++) {
    free (rec->batch[i]->data);
    free (rec->batch[i]);
  }
  if (rec->nbd_l.fd >= 0)
    close (rec->nbd_l.fd);
  if (rec->ctl_l.fd >= 0)
    close (rec->ctl_l.fd);
  if (rec->socket_path)
    unlink (rec->socket_path);
  if (rec->control_path)
    unlink (rec->control_path);
  if (rec->sig_fd >= 0)
    close (rec->sig_fd);
  if (rec->log_fd >= 0)
    close (rec->log_fd);
  pc_disk_close (&rec->disk);
  for (size_t i = 0; i < rec->nmark_names; i++)
    free (rec->mark_names[i]);
  free (rec->mark_names);
  free (rec->socket_path);
  free (rec->control_path);
  free (rec);
}
