/* check_recnbd.c: the recorder's NBD input path, end to end in one process:
 * writes of every size class (received whole into the input buffer and
 * logged from there, or received into their own buffer), with FUA and
 * flushes among them, sent in pieces cut anywhere, are each answered
 * without error, logged byte for byte in the order sent, and read back. */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "format/log.h"
#include "format/nbd-proto.h"
#include "record/recorder.h"
#include "util/util.h"
#include "unit.h"

#define DISK_SIZE   (64u << 20)
#define NREQ        440
#define MAX_WRITE   (3u << 20)

enum kind { K_WRITE, K_FLUSH, K_READ };

struct request {
  enum kind kind;
  bool fua;
  uint64_t off;
  uint32_t len;
  uint8_t *data;              /* a write's payload */
};

struct session {
  int fd;                     /* the client's end */
  uint64_t rng;
  struct request req[NREQ];
  size_t nreq, nread;         /* writes and flushes, then reads */
  uint8_t *model;             /* what the disk holds after the writes */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  size_t answered;            /* replies seen */
  bool failed;
  char fail_msg[256];
};

static uint64_t
rnd (struct session *s)
{
  s->rng ^= s->rng << 13;
  s->rng ^= s->rng >> 7;
  s->rng ^= s->rng << 17;
  return s->rng;
}

/* Sizes on both sides of what is logged from the input buffer; now and
 * then one far larger. */
static uint32_t
pick_len (struct session *s)
{
  static const uint32_t lens[] = {
    512, 4096, 16384 - 512, 16384, 65536, 65536 + 512, (256u << 10) - 512,
    256u << 10, (256u << 10) + 512
  };
  if (rnd (s) % 20 == 0)
    return rnd (s) % 2 ? 1u << 20 : MAX_WRITE;
  return lens[rnd (s) % (sizeof lens / sizeof lens[0])];
}

static void
build (struct session *s)
{
  s->model = calloc (1, DISK_SIZE);
  ck_assert (s->model != NULL);
  for (size_t i = 0; i < NREQ - 40; i++) {
    struct request *q = &s->req[s->nreq++];
    if (rnd (s) % 8 == 0) {
      q->kind = K_FLUSH;
      continue;
    }
    q->kind = K_WRITE;
    q->fua = rnd (s) % 4 == 0;
    q->len = pick_len (s);
    q->off = rnd (s) % ((DISK_SIZE - q->len) / 512 + 1) * 512;
    q->data = malloc (q->len);
    ck_assert (q->data != NULL);
    for (uint32_t j = 0; j < q->len; j++)
      q->data[j] = (uint8_t) rnd (s);
    memcpy (s->model + q->off, q->data, q->len);
  }
  /* Then reads of where the last writes went: read back from the log. */
  for (size_t i = s->nreq; i-- > 0 && s->nread < 40;)
    if (s->req[i].kind == K_WRITE && s->req[i].len <= (1u << 20)) {
      struct request *q = &s->req[s->nreq + s->nread++];
      q->kind = K_READ;
      q->off = s->req[i].off;
      q->len = s->req[i].len;
    }
}

static void
session_fail (struct session *s, const char *msg, size_t i)
{
  pthread_mutex_lock (&s->lock);
  if (!s->failed)
    snprintf (s->fail_msg, sizeof s->fail_msg, "%s (request %zu)", msg, i);
  s->failed = true;
  pthread_cond_broadcast (&s->cond);
  pthread_mutex_unlock (&s->lock);
}

/* Sends len bytes in pieces of random size, down to one byte. */
static bool
send_cut (struct session *s, const uint8_t *p, size_t len)
{
  while (len > 0) {
    size_t n = rnd (s) % 3 == 0 ? 1 + rnd (s) % 64 : 1 + rnd (s) % (300u << 10);
    ssize_t k;
    if (n > len)
      n = len;
    k = send (s->fd, p, n, MSG_NOSIGNAL);
    if (k <= 0)
      return false;
    p += k;
    len -= (size_t) k;
  }
  return true;
}

static bool
send_request (struct session *s, size_t i)
{
  struct request *q = &s->req[i];
  uint8_t h[NBD_REQUEST_SIZE];
  uint16_t type = q->kind == K_WRITE ? NBD_CMD_WRITE : q->kind == K_FLUSH ? NBD_CMD_FLUSH
                  : NBD_CMD_READ;

  pc_put_be32 (h, NBD_REQUEST_MAGIC);
  pc_put_be16 (h + 4, q->fua ? NBD_CMD_FLAG_FUA : 0);
  pc_put_be16 (h + 6, type);
  pc_put_be64 (h + 8, i);
  pc_put_be64 (h + 16, q->off);
  pc_put_be32 (h + 24, q->len);
  /* A header and the start of its payload often share a piece. */
  if (q->kind != K_WRITE)
    return send_cut (s, h, sizeof h);
  if (rnd (s) % 2 == 0) {
    uint8_t *both = malloc (sizeof h + q->len);
    bool ok;
    ck_assert (both != NULL);
    memcpy (both, h, sizeof h);
    memcpy (both + sizeof h, q->data, q->len);
    ok = send_cut (s, both, sizeof h + q->len);
    free (both);
    return ok;
  }
  return send_cut (s, h, sizeof h) && send_cut (s, q->data, q->len);
}

static void *
sender (void *arg)
{
  struct session *s = arg;
  uint8_t pre[4 + 16 + 6] = { 0 };
  uint8_t disc[NBD_REQUEST_SIZE] = { 0 };

  pc_put_be32 (pre, NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES);
  pc_put_be64 (pre + 4, NBD_IHAVEOPT);
  pc_put_be32 (pre + 12, NBD_OPT_GO);
  pc_put_be32 (pre + 16, 6);        /* an empty name, no information requests */
  if (!send_cut (s, pre, sizeof pre))
    goto out;
  for (size_t i = 0; i < s->nreq; i++)
    if (!send_request (s, i))
      goto out;
  /* Reads once every write is answered, so that they see all of them. */
  pthread_mutex_lock (&s->lock);
  while (s->answered < s->nreq && !s->failed)
    pthread_cond_wait (&s->cond, &s->lock);
  pthread_mutex_unlock (&s->lock);
  for (size_t i = s->nreq; i < s->nreq + s->nread; i++)
    if (!send_request (s, i))
      goto out;
  pthread_mutex_lock (&s->lock);
  while (s->answered < s->nreq + s->nread && !s->failed)
    pthread_cond_wait (&s->cond, &s->lock);
  pthread_mutex_unlock (&s->lock);
  pc_put_be32 (disc, NBD_REQUEST_MAGIC);
  pc_put_be16 (disc + 6, NBD_CMD_DISC);
  send_cut (s, disc, sizeof disc);
 out:
  shutdown (s->fd, SHUT_WR);
  return NULL;
}

static bool
read_full (int fd, void *buf, size_t len)
{
  for (size_t off = 0; off < len;) {
    ssize_t n = read (fd, (uint8_t *) buf + off, len - off);
    if (n <= 0)
      return false;
    off += (size_t) n;
  }
  return true;
}

/* Reads the handshake's answers, then a simple reply for every request. */
static void *
receiver (void *arg)
{
  struct session *s = arg;
  uint8_t b[20], *data = malloc (1u << 20);
  bool *seen = calloc (NREQ, sizeof *seen);

  ck_assert (data != NULL && seen != NULL);
  if (!read_full (s->fd, b, 18)) {  /* magic, IHAVEOPT, handshake flags */
    session_fail (s, "no greeting", 0);
    goto out;
  }
  do {
    uint32_t len;
    if (!read_full (s->fd, b, 20) || pc_get_be64 (b) != NBD_REP_MAGIC ||
        (len = pc_get_be32 (b + 16)) > (1u << 20) || !read_full (s->fd, data, len)) {
      session_fail (s, "bad option reply", 0);
      goto out;
    }
  } while (pc_get_be32 (b + 12) != NBD_REP_ACK);
  for (size_t k = 0; k < s->nreq + s->nread; k++) {
    uint64_t i;
    if (!read_full (s->fd, b, 16) || pc_get_be32 (b) != NBD_SIMPLE_REPLY_MAGIC ||
        (i = pc_get_be64 (b + 8)) >= s->nreq + s->nread || seen[i]) {
      session_fail (s, "bad reply", k);
      goto out;
    }
    seen[i] = true;
    if (pc_get_be32 (b + 4) != 0) {
      session_fail (s, "request answered with an error", i);
      goto out;
    }
    if (s->req[i].kind == K_READ) {
      if (!read_full (s->fd, data, s->req[i].len) ||
          memcmp (data, s->model + s->req[i].off, s->req[i].len) != 0) {
        session_fail (s, "read back other data than written", i);
        goto out;
      }
    }
    pthread_mutex_lock (&s->lock);
    s->answered++;
    pthread_cond_broadcast (&s->cond);
    pthread_mutex_unlock (&s->lock);
  }
 out:
  free (seen);
  free (data);
  return NULL;
}

static void
run_session (uint64_t seed)
{
  char dir[] = "/tmp/pc-check-recnbd.XXXXXX", logp[64], sock[64], ctl[64];
  struct pc_err why;
  struct pc_recorder_config cfg = { 0 };
  struct pc_recorder *rec;
  struct session *s = calloc (1, sizeof *s);
  struct pc_log *log;
  struct pc_record r;
  pthread_t ts, tr;
  size_t i = 0;
  int sv[2];

  ck_assert (s != NULL);
  signal (SIGPIPE, SIG_IGN);
  s->rng = seed;
  pthread_mutex_init (&s->lock, NULL);
  pthread_cond_init (&s->cond, NULL);
  build (s);
  ck_assert (mkdtemp (dir) != NULL);
  snprintf (logp, sizeof logp, "%s/log", dir);
  snprintf (sock, sizeof sock, "%s/nbd", dir);
  snprintf (ctl, sizeof ctl, "%s/ctl", dir);
  cfg.log_path = logp;
  cfg.size = DISK_SIZE;
  cfg.socket_path = sock;
  cfg.control_path = ctl;
  ck_assert_int_eq (pc_recorder_new (&cfg, &rec, &why), 0);
  ck_assert_int_eq (pc_recorder_start (rec), 0);
  ck_assert_int_eq (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  s->fd = sv[1];
  ck_assert_int_eq (pc_recorder_adopt (rec, sv[0], false), 0);
  pthread_create (&ts, NULL, sender, s);
  pthread_create (&tr, NULL, receiver, s);
  ck_assert_int_eq (pc_recorder_run_until_idle (rec), 0);
  pthread_join (ts, NULL);
  pthread_join (tr, NULL);
  pc_recorder_free (rec);
  close (sv[1]);
  ck_assert_msg (!s->failed, "%s", s->fail_msg);
  ck_assert_uint_eq (s->answered, s->nreq + s->nread);

  /* The log: each write and flush, in the order sent, with its bytes. */
  ck_assert_int_eq (pc_log_open (logp, &log), 0);
  while (pc_log_next (log, &r) == 1) {
    struct request *q;
    if (r.type == PC_REC_DONE) {
      /* answered: after its request, naming it */
      ck_assert_uint_lt (r.offset, r.seq);
      continue;
    }
    while (i < s->nreq && s->req[i].kind == K_READ)
      i++;
    ck_assert_uint_lt (i, s->nreq);
    q = &s->req[i++];
    if (q->kind == K_FLUSH) {
      ck_assert_int_eq (r.type, PC_REC_FLUSH);
      continue;
    }
    ck_assert_int_eq (r.type, PC_REC_WRITE);
    ck_assert_uint_eq (r.offset, q->off);
    ck_assert_uint_eq (r.length, q->len);
    ck_assert_uint_eq (r.datalen, q->len);
    ck_assert_int_eq (!!(r.flags & PC_REC_F_FUA), q->fua);
    ck_assert_msg (memcmp (r.data, q->data, q->len) == 0, "write %zu: other bytes logged", i - 1);
  }
  ck_assert_uint_eq (i, s->nreq);
  pc_log_close (log);

  unlink (logp);
  rmdir (dir);
  for (size_t k = 0; k < s->nreq; k++)
    free (s->req[k].data);
  free (s->model);
  free (s);
}

START_TEST (test_cut_anywhere)
{
  run_session (0x9e3779b97f4a7c15ull + (uint64_t) _i);
}
END_TEST

static Suite *
suite (void)
{
  Suite *s = suite_create ("recnbd");
  TCase *tc = tcase_create ("input");

  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_cut_anywhere, 0, 3);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return pc_unit_run (suite ());
}
