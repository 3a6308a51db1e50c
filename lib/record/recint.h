/* recint.h: the recorder's insides, shared by its parts, each calling
 * only those below it:
 *   recorder.c  sockets, accepting, the io_uring event loop, setup;
 *   recnbd.c    the NBD handshake and transmission, and its replies;
 *   recctl.c    the control server (marks, stop), in control.h's format;
 *   recconn.c   connections: input buffers, requests into the log
 *               writer, output queued and sent in rounds, their end;
 * and the log writer of logwriter.h, through which every request goes:
 * written to the log, made durable when it needs it, applied to the
 * in-memory disk, and only then answered.
 * Everything runs on one thread; ops carry their owner to the loop. */
#ifndef POWERCUT_RECINT_H
#define POWERCUT_RECINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <liburing.h>
#ifdef HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void) (addr), (void) (len))
#endif

#include "util/disk.h"
#include "format/log.h"
#include "record/logwriter.h"
#include "format/nbd-proto.h"
#include "record/recorder.h"

#define RING_ENTRIES      256
#define IBUF_SIZE         (1u << 20)      /* a connection's input buffer */
#define MAX_OPTION_LEN    (64u << 10)
#define INPLACE_MAX       (256u << 10)    /* writes logged from the input buffer */
#define RECV_MIN          (16u << 10)     /* the least room a receive is given */
#define MAX_SPARES        8               /* idle input buffers kept for reuse */
#define MAX_PENDING       256             /* requests in flight per connection */
#define SEND_IOV_MAX      64
#define EXPORT_FLAGS      (NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_FLUSH | NBD_FLAG_SEND_FUA | \
                           NBD_FLAG_SEND_TRIM | NBD_FLAG_SEND_WRITE_ZEROES | \
                           NBD_FLAG_CAN_MULTI_CONN)

enum op_kind { OP_ACCEPT, OP_RECV, OP_SEND, OP_LOG_SYNC, OP_LOG_WRITEBACK, OP_SIGNAL };

struct op {
  enum op_kind kind;
  void *owner;
};

struct conn;

/* A connection's input buffer.  Writes up to INPLACE_MAX are received
 * whole into it and logged from there, so each holds a reference; the
 * connection holds one too while it receives into it. */
struct inbuf {
  struct pc_recorder *rec;
  unsigned refs;
  struct inbuf *next_spare;
  uint8_t data[IBUF_SIZE];
};

/* A request on its way through the log: an NBD request or a control one. */
struct req {
  struct pc_logw_rec lw;      /* first: the log writer hands it back */
  struct conn *conn;          /* NULL once the connection is gone */
  uint64_t handle;
  struct inbuf *in;           /* lw.data is in it (else malloc'd) */
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
  struct inbuf *in;           /* its [ipos, ilen) is not parsed yet */
  size_t ipos, ilen;
  size_t need;                /* bytes from ipos the next message needs */
  struct req *cur;            /* request whose payload is being received */
  size_t cur_have;
  struct iovec riov[2];       /* its rest, then what follows, in one recv */
  struct msghdr rmsg;
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
  struct pc_logw logw;
  struct listener nbd_l, ctl_l;
  char *socket_path, *control_path;
  int sig_fd;
  struct op sig_op;
  struct signalfd_siginfo sig_info;
  uint32_t next_conn_id;
  struct conn *conns;
  struct conn *doomed;        /* released after the current completions */
  struct conn *to_send;       /* have output: sent after the current completions */
  struct op sync_op;          /* the log writer's fdatasync */
  struct op wb_op;            /* ...and its writeback hint */
  /* stopping */
  bool stopping;              /* END queued: no new requests */
  bool ended;                 /* END on stable storage */
  struct conn *stop_conn;
  int fatal;
  char **mark_names;          /* names in use: marks are unique */
  size_t nmark_names;
  struct inbuf *spares;
  unsigned nspares;
};

/* recconn.c: connections, below the protocols and the loop */
struct io_uring_sqe *rec_get_sqe (struct pc_recorder *rec);
/* An input buffer (one reference), from the spares or new; NULL: no
 * memory.  rec_inbuf_put drops a reference. */
struct inbuf *rec_inbuf_get (struct pc_recorder *rec);
void rec_inbuf_put (struct inbuf *b);
/* Makes room in c's input buffer for c->need bytes from ipos and at
 * least RECV_MIN after ilen: what is not parsed moves to the buffer's
 * start, or to another buffer while requests hold this one.  0 or
 * -ENOMEM. */
int rec_conn_make_room (struct conn *c);
struct req *rec_req_new (struct conn *c, uint64_t handle, enum pc_rec_type type, uint16_t flags, uint64_t off, uint32_t len);
void rec_req_submit (struct pc_recorder *rec, struct req *r);
/* Lets r's data go: its share of an input buffer, or its own. */
void rec_req_drop_data (struct req *r);
void rec_req_free (struct req *r);
struct outbuf *rec_out_new (struct conn *c, size_t hlen);
void rec_conn_queue (struct conn *c, struct outbuf *o);
void rec_flush_round (struct pc_recorder *rec);
void rec_on_send (struct conn *c, int res);
/* r's len bytes of data come next on c: received into r->lw.data. */
void rec_expect_payload (struct conn *c, struct req *r, uint32_t len);
void rec_conn_arm_recv (struct conn *c);
void rec_conn_close (struct conn *c);
void rec_conn_maybe_free (struct conn *c);
/* Frees the connections closed and done with (after a round of
 * completions), and one connection at once (at the recorder's end). */
void rec_release_doomed (struct pc_recorder *rec);
void rec_conn_release (struct conn *c);

/* recnbd.c: the NBD protocol */
void rec_on_recv (struct conn *c, int res);
void rec_reply_simple (struct conn *c, uint64_t handle, uint32_t err);

/* recctl.c: the control server.  rec_ctl_request handles a request's
 * header (false: stop reading this connection); rec_ctl_payload checks a
 * whole payload (false: answered and freed, not to be logged). */
bool rec_ctl_request (struct conn *c, const uint8_t *p);
bool rec_ctl_payload (struct conn *c, struct req *r);
void rec_ctl_reply (struct conn *c, int status, uint64_t seq);

#endif
