/* recorder.c: the recording NBD server: its sockets, connections and
 * io_uring event loop, and its requests' way through the log writer (the
 * NBD protocol: recnbd.c; the control server: recctl.c; the log writer:
 * logwriter.c). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <liburing.h>

#include "format/control.h"
#include "util/disk.h"
#include "format/log.h"
#include "format/nbd-proto.h"
#include "record/recint.h"
#include "record/recorder.h"
#include "util/util.h"

/* -------------------------------------------------------------------------
 * The log writer's way back */

/* The log writer's callbacks.  written: the record is in the log, in order:
 * the disk follows it (a write's data is read back from the log), and its
 * data is let go at once (a FUA write, say, still waits for its sync). */
static void
log_written (void *opaque, struct pc_logw_rec *lw)
{
  struct pc_recorder *rec = opaque;
  struct req *r = (struct req *) lw;

  switch (lw->rec.type) {
  case PC_REC_WRITE:
    pc_disk_write_logged (&rec->disk, lw->rec.offset, lw->rec.length,
                          lw->file_off + PC_REC_HEADER_SIZE);
    break;
  case PC_REC_TRIM:
  case PC_REC_WRITE_ZEROES:
    pc_disk_zero (&rec->disk, lw->rec.offset, lw->rec.length);
    break;
  default:
    break;
  }
  rec_req_drop_data (r);
}

static void
log_start_sync (void *opaque, int fd)
{
  struct pc_recorder *rec = opaque;
  struct io_uring_sqe *sqe = rec_get_sqe (rec);

  io_uring_prep_fsync (sqe, fd, IORING_FSYNC_DATASYNC);
  io_uring_sqe_set_data (sqe, &rec->sync_op);
}

static void
log_start_writeback (void *opaque, int fd, uint64_t off, uint64_t len)
{
  struct pc_recorder *rec = opaque;
  struct io_uring_sqe *sqe = rec_get_sqe (rec);

  /* Run by the kernel's workers, so the loop never waits for the disk's
   * queue; a length of 0 is "to the end of the file". */
  io_uring_prep_sync_file_range (sqe, fd, len > UINT32_MAX ? 0 : (unsigned) len,
                                 off, SYNC_FILE_RANGE_WRITE);
  io_uring_sqe_set_data (sqe, &rec->wb_op);
}

/* done: answers the request, 0 or the NBD error for the log's errno. */
static void
log_done (void *opaque, struct pc_logw_rec *lw, int err)
{
  struct pc_recorder *rec = opaque;
  struct req *r = (struct req *) lw;
  struct conn *c = r->conn;
  uint32_t nbd_err = err == 0 ? 0 : err == ENOSPC || err == EDQUOT ? NBD_ENOSPC : NBD_EIO;

  if (lw->rec.type == PC_REC_END) {
    if (err == 0)
      rec->ended = true;
    else
      rec->fatal = -err;
  }
  if (err == 0 && !rec->stopping &&
      (lw->rec.type == PC_REC_FLUSH || (lw->rec.type == PC_REC_WRITE && (lw->rec.flags & PC_REC_F_FUA)))) {
    /* Answered now: logged before the answer goes, so that whatever is
     * logged after the request and before this happened while the disk
     * could still lose what it made durable.  Without memory, none: the
     * request reads as done at its own record. */
    struct req *d = rec_req_new (NULL, 0, PC_REC_DONE, 0, lw->rec.seq, 0);
    if (d) {
      d->lw.rec.conn = lw->rec.conn;
      rec_req_submit (rec, d);
    }
  }
  if (c != NULL) {
    c->pending--;
    if (!c->shut) {
      if (c->phase == PH_CONTROL)
        rec_ctl_reply (c, -(int) nbd_err, lw->rec.seq);
      else
        rec_reply_simple (c, r->handle, nbd_err);
    }
    if (!c->closing && !c->recv_armed)
      rec_conn_arm_recv (c);
    rec_conn_maybe_free (c);
  }
  rec_req_free (r);
}

static const struct pc_logw_ops log_ops = {
  log_written, log_start_sync, log_done, log_start_writeback
};

/* -------------------------------------------------------------------------
 * Connections */

static struct conn *
conn_new (struct pc_recorder *rec, int fd, bool control)
{
  struct conn *c = calloc (1, sizeof *c);

  if (c == NULL)
    return NULL;
  c->in = rec_inbuf_get (rec);
  if (c->in == NULL) {
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
 * Accepting */

static void
arm_accept (struct pc_recorder *rec, struct listener *l)
{
  struct io_uring_sqe *sqe = rec_get_sqe (rec);

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
    struct outbuf *o = rec_out_new (c, 18);
    int one = 1;
    setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (o == NULL) {
      rec_conn_close (c);
      return -ENOMEM;
    }
    pc_put_be64 (o->hdr, NBD_MAGIC);
    pc_put_be64 (o->hdr + 8, NBD_IHAVEOPT);
    pc_put_be16 (o->hdr + 16, NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES);
    rec_conn_queue (c, o);
  }
  rec_conn_arm_recv (c);
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

  rec_flush_round (rec);
  return r;
}

static void
arm_signal (struct pc_recorder *rec)
{
  struct io_uring_sqe *sqe = rec_get_sqe (rec);

  io_uring_prep_read (sqe, rec->sig_fd, &rec->sig_info, sizeof rec->sig_info, 0);
  io_uring_sqe_set_data (sqe, &rec->sig_op);
}

static void
begin_stop (struct pc_recorder *rec)
{
  struct req *r;

  if (rec->stopping)
    return;
  r = rec_req_new (NULL, 0, PC_REC_END, 0, 0, 0);
  if (r == NULL) {
    rec->fatal = -ENOMEM;
    return;
  }
  rec->stopping = true;
  rec_req_submit (rec, r);
}

/* -------------------------------------------------------------------------
 * Setup */

static int
tcp_listen (const char *spec)
{
  char host[256], port[8];
  struct addrinfo hints, *res = NULL, *ai;
  int fd = -1, r, one = 1;

  if (pc_parse_host_port (spec, "127.0.0.1", host, sizeof host, port, sizeof port) < 0)
    return -EINVAL;
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
  int flags = O_RDWR | O_CREAT | O_CLOEXEC | (rec->cfg.force ? O_TRUNC : O_EXCL);
  int r, dfd;

  rec->log_fd = open (rec->cfg.log_path, flags, 0600);
  if (rec->log_fd < 0)
    return -errno;
  memset (&h, 0, sizeof h);
  h.version = PC_LOG_VERSION;
  h.devsize = rec->disk.size;
  h.sector = PC_NBD_MIN_BLOCK;
  h.compat = PC_LOG_COMPAT_HDRSUM | PC_LOG_COMPAT_EVENTS | PC_LOG_COMPAT_DONE;
  h.start_ns = pc_now_real_ns ();
  h.start_mono = pc_now_mono_ns ();
  if (pc_boot_id (h.boot_id) == 0)
    h.compat |= PC_LOG_COMPAT_CLOCK;
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
  pc_logw_init (&rec->logw, rec->log_fd, PC_LOG_HEADER_SIZE, 0, h.start_mono, &log_ops, rec);
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

/* Why pc_recorder_new failed at what (the path or address it was setting
 * up, or a word), for people. */
static void
new_failed (const char *what, bool base, int r, struct pc_err *why)
{
  if (r == -EEXIST)
    pc_err_msg (why, "%s: file exists (use --force to replace it)", what);
  else if (r == -EADDRINUSE)
    pc_err_msg (why, "%s: a server is already listening there", what);
  else if (r == -EINVAL && base)
    pc_err_msg (why, "%s: not a regular file whose size is a positive multiple of %u "
                "bytes", what, PC_NBD_MIN_BLOCK);
  else
    pc_err_msg (why, "%s: %s", what, strerror (-r));
}

int
pc_recorder_new (const struct pc_recorder_config *cfg, struct pc_recorder **ret_rec,
                 struct pc_err *why)
{
  struct pc_recorder *rec;
  const char *what = "recorder";
  int r;

  rec = calloc (1, sizeof *rec);
  if (rec == NULL) {
    new_failed (what, false, -ENOMEM, why);
    return -ENOMEM;
  }
  rec->cfg = *cfg;
  rec->log_fd = rec->nbd_l.fd = rec->ctl_l.fd = rec->sig_fd = -1;

  if (cfg->base_path) {
    what = cfg->base_path;
    r = pc_disk_open_base (&rec->disk, cfg->base_path);
  }
  else {
    what = "size";
    r = (cfg->size == 0 || cfg->size % PC_NBD_MIN_BLOCK) ? -EINVAL
        : pc_disk_open_zero (&rec->disk, cfg->size);
  }
  if (r < 0)
    goto fail;

  what = cfg->listen_addr ? cfg->listen_addr : cfg->socket_path;
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

  what = cfg->control_path;
  r = pc_unix_listen (cfg->control_path);
  if (r < 0)
    goto fail;
  rec->ctl_l.fd = r;
  rec->control_path = strdup (cfg->control_path);
  if (rec->control_path == NULL) {
    r = -ENOMEM;
    goto fail;
  }

  what = cfg->log_path;
  r = create_log (rec);
  if (r == 0)             /* written data is read back from the log */
    r = pc_disk_use_log (&rec->disk, rec->log_fd);
  if (r < 0)
    goto fail;

  *ret_rec = rec;
  return 0;

fail:
  new_failed (what, cfg->base_path && what == cfg->base_path, r, why);
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
  return rec->conns == NULL && !pc_logw_busy (&rec->logw);
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
  if (rec->logw.start_mono == 0)
    rec->logw.start_mono = pc_now_mono_ns ();

  rec->nbd_l.op = (struct op) { OP_ACCEPT, &rec->nbd_l };
  rec->ctl_l.op = (struct op) { OP_ACCEPT, &rec->ctl_l };
  rec->ctl_l.control = true;
  rec->sig_op = (struct op) { OP_SIGNAL, rec };
  rec->sync_op = (struct op) { OP_LOG_SYNC, rec };
  rec->wb_op = (struct op) { OP_LOG_WRITEBACK, rec };
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
      case OP_RECV: rec_on_recv (op->owner, res); break;
      case OP_SEND: rec_on_send (op->owner, res); break;
      case OP_LOG_SYNC: pc_logw_synced (&rec->logw, res); break;
      case OP_LOG_WRITEBACK: pc_logw_writeback_done (&rec->logw); break;
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
    rec_flush_round (rec);
    rec_release_doomed (rec);
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
    rec_conn_release (c);
  }
  if (rec->ring_ok)
    io_uring_queue_exit (&rec->ring);
  /* Requests still in the log writer belong to no connection any more. */
  for (struct pc_logw_rec *lw = pc_logw_take_all (&rec->logw), *next; lw; lw = next) {
    next = lw->next;
    rec_req_free ((struct req *) lw);
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
  while (rec->spares) {
    struct inbuf *b = rec->spares;
    rec->spares = b->next_spare;
    free (b);
  }
  for (size_t i = 0; i < rec->nmark_names; i++)
    free (rec->mark_names[i]);
  free (rec->mark_names);
  free (rec->socket_path);
  free (rec->control_path);
  free (rec);
}
