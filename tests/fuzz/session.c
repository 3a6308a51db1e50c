/* session.c: one client session against a fresh recorder, for the NBD and
 * control harnesses: the client's bytes go through a socket pair, then the
 * log must read back with only whole, valid records. */
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
#include "format/log.h"
#include "record/recorder.h"

static char dir[] = "/tmp/powercut-fuzz-nbd.XXXXXX";

/* The folder and what the sessions left in it, at exit. */
static void
remove_dir (void)
{
  static const char *const names[] = { "log", "nbd", "ctl", "base", NULL };
  char p[sizeof dir + 8];

  for (const char *const *n = names; *n; n++) {
    snprintf (p, sizeof p, "%s/%s", dir, *n);
    unlink (p);
  }
  rmdir (dir);
}
static bool made;

struct client {
  int fd;
  const uint8_t *pre, *data;
  size_t prelen, size;
};

static bool
send_buf (int fd, const uint8_t *p, size_t len)
{
  for (size_t off = 0; off < len;) {
    ssize_t n = send (fd, p + off, len - off, MSG_NOSIGNAL);
    if (n <= 0)
      return false;
    off += (size_t) n;
  }
  return true;
}

/* Sends the prefix and the input, then closes the sending side. */
static void *
send_all (void *arg)
{
  struct client *c = arg;

  if (send_buf (c->fd, c->pre, c->prelen))
    send_buf (c->fd, c->data, c->size);
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

/* A 1 MiB base image: data in every other 64 KiB (read on demand), zeros
 * in the rest (known at start). */
static void
make_base (const char *path)
{
  static uint8_t buf[1 << 20];
  FILE *f = fopen (path, "wb");

  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (i >> 16) & 1 ? 0 : (uint8_t) (i * 7 + 1);
  if (f == NULL || fwrite (buf, 1, sizeof buf, f) != sizeof buf || fclose (f) != 0)
    abort ();
}

void
fuzz_session (bool control, bool base, const uint8_t *pre, size_t prelen,
              const uint8_t *data, size_t size)
{
  char logp[64], sock[64], ctl[64], basep[64];
  struct pc_recorder_config cfg = { 0 };
  struct pc_recorder *rec;
  struct pc_err why;
  struct pc_log *log;
  struct pc_record r;
  pthread_t t, w;
  struct client cl;
  int sv[2], e;

  signal (SIGPIPE, SIG_IGN);
  if (!made) {
    if (mkdtemp (dir) == NULL)
      abort ();
    made = true;
    atexit (remove_dir);
  }
  snprintf (logp, sizeof logp, "%s/log", dir);
  snprintf (sock, sizeof sock, "%s/nbd", dir);
  snprintf (ctl, sizeof ctl, "%s/ctl", dir);
  snprintf (basep, sizeof basep, "%s/base", dir);
  cfg.log_path = logp;
  cfg.force = true;
  if (base) {
    if (access (basep, F_OK) != 0)
      make_base (basep);
    cfg.base_path = basep;
  }
  else
    cfg.size = 1 << 20;
  cfg.socket_path = sock;
  cfg.control_path = ctl;
  e = pc_recorder_new (&cfg, &rec, &why);
  if (e == 0 && (e = pc_recorder_start (rec)) < 0)
    pc_err_msg (&why, "starting it: %s", strerror (-e));
  if (e < 0) {
    fprintf (stderr, "fuzz: setting up a recorder: %s\n", why.msg);
    abort ();
  }
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    abort ();
  pc_recorder_adopt (rec, sv[0], control);
  cl = (struct client) { sv[1], pre, data, prelen, size };
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
}
