/* fuzz-nbd.c: the recorder's NBD handshake and transmission parsers, and
 * its control protocol, on any bytes a client may send: it must never
 * crash or hang, and its log must read back valid afterwards.  The first
 * byte picks the socket (even: NBD, odd: control); the rest is what the
 * client sends before it closes its side. */
#include <config.h>

#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "log.h"
#include "recorder.h"

static char dir[] = "/tmp/powercut-fuzz-nbd.XXXXXX";
static bool made;

struct client {
  int fd;
  const uint8_t *data;
  size_t size;
};

/* Sends the input, then closes the sending side. */
static void *
send_all (void *arg)
{
  struct client *c = arg;

  for (size_t off = 0; off < c->size;) {
    ssize_t n = send (c->fd, c->data + off, c->size - off, MSG_NOSIGNAL);
    if (n <= 0)
      break;
    off += (size_t) n;
  }
  shutdown (c->fd, SHUT_WR);
  return NULL;
}

/* Reads and drops the server's replies until it closes. */
static void *
drain (void *arg)
{
  int fd = *(int *) arg;
  char buf[65536];

  while (read (fd, buf, sizeof buf) > 0)
    ;
  return NULL;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char logp[64], sock[64], ctl[64];
  struct pc_recorder_config cfg = { 0 };
  struct pc_recorder *rec;
  const char *what;
  struct pc_log *log;
  struct pc_record r;
  pthread_t t, w;
  struct client cl;
  int sv[2];

  if (size == 0)
    return 0;
  signal (SIGPIPE, SIG_IGN);
  if (!made) {
    if (mkdtemp (dir) == NULL)
      abort ();
    made = true;
  }
  snprintf (logp, sizeof logp, "%s/log", dir);
  snprintf (sock, sizeof sock, "%s/nbd", dir);
  snprintf (ctl, sizeof ctl, "%s/ctl", dir);
  cfg.log_path = logp;
  cfg.force = true;
  cfg.size = 1 << 20;
  cfg.socket_path = sock;
  cfg.control_path = ctl;
  {
    int e = pc_recorder_new (&cfg, &rec, &what);
    if (e == 0)
      e = pc_recorder_start (rec);
    if (e < 0) {
      fprintf (stderr, "fuzz-nbd: setting up a recorder: %s: %s\n", what, strerror (-e));
      abort ();
    }
  }
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    abort ();
  pc_recorder_adopt (rec, sv[0], data[0] & 1);
  cl = (struct client) { sv[1], data + 1, size - 1 };
  pthread_create (&w, NULL, send_all, &cl);
  pthread_create (&t, NULL, drain, &sv[1]);
  if (pc_recorder_run_until_idle (rec) < 0)
    abort ();
  pthread_join (w, NULL);
  pc_recorder_free (rec);
  pthread_join (t, NULL);
  close (sv[1]);

  /* Whatever the client sent, the log holds only whole, valid records. */
  if (pc_log_open (logp, &log) < 0)
    abort ();
  while (pc_log_next (log, &r) == 1)
    ;
  if (pc_log_end_state (log, NULL, NULL, NULL) == PC_END_CORRUPT)
    abort ();
  pc_log_close (log);
  return 0;
}
