/* acks.c: a traced program's standard output as its acknowledgements.
 *
 * The program's standard output is a pipe the tracer holds.  A thread
 * reads it as it fills (so that a program writing more than a pipe holds
 * never waits on the tracer) and copies every byte on to the tracer's own
 * standard output; the bytes stay in a buffer until the tracer takes the
 * whole lines out of it, at the exit of each write to the pipe (the
 * program is stopped then, so every line it completed is in the pipe or
 * the buffer) and at the end.  Reading and taking hold one lock: a line
 * is never taken before the bytes written ahead of it. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/traceint.h"
#include "util/util.h"

struct pc_acks {
  int rfd;                      /* the pipe's end we read, non-blocking */
  int wfd;                      /* the program's end, until it has it */
  int out;                      /* where the bytes are copied, or -1 */
  dev_t dev;
  ino_t ino;
  pthread_mutex_t lock;
  pthread_t thread;
  bool running;
  volatile int stopping;
  char *buf;                    /* read, not yet taken as lines */
  size_t len, cap;
};

/* Reads what the pipe holds into the buffer, copying it out.  Returns
 * false once every writer has closed it.  Under the lock. */
static bool
read_pipe (struct pc_acks *a)
{
  char tmp[1 << 16];

  for (;;) {
    ssize_t n = read (a->rfd, tmp, sizeof tmp);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 && errno == EAGAIN;
    if (a->out >= 0)
      (void) pc_write_all (a->out, tmp, (size_t) n);
    if (pc_grow (&a->buf, &a->cap, a->len + (size_t) n, 1, 4096) == 0) {
      memcpy (a->buf + a->len, tmp, (size_t) n);
      a->len += (size_t) n;
    }
  }
}

static void *
reader (void *arg)
{
  struct pc_acks *a = arg;
  struct pollfd p = { .fd = a->rfd, .events = POLLIN };

  while (!a->stopping) {
    bool open;
    if (poll (&p, 1, 50) <= 0)
      continue;
    pthread_mutex_lock (&a->lock);
    open = read_pipe (a);
    pthread_mutex_unlock (&a->lock);
    if (!open)
      break;
  }
  return NULL;
}

int
pc_acks_new (struct pc_acks **ret)
{
  struct pc_acks *a = calloc (1, sizeof *a);
  int fds[2];
  struct stat st;

  if (a == NULL)
    return -ENOMEM;
  if (pipe2 (fds, O_CLOEXEC) < 0 || fstat (fds[0], &st) < 0) {
    int e = errno;
    free (a);
    return -e;
  }
  a->rfd = fds[0];
  a->wfd = fds[1];
  a->dev = st.st_dev;
  a->ino = st.st_ino;
  a->out = fcntl (1, F_DUPFD_CLOEXEC, 3);
  fcntl (a->rfd, F_SETFL, O_NONBLOCK);
  pthread_mutex_init (&a->lock, NULL);
  *ret = a;
  return 0;
}

int
pc_acks_child_fd (const struct pc_acks *a)
{
  return a->wfd;
}

int
pc_acks_start (struct pc_acks *a)
{
  int r;

  close (a->wfd);
  a->wfd = -1;
  r = pthread_create (&a->thread, NULL, reader, a);
  if (r != 0)
    return -r;
  a->running = true;
  return 0;
}

bool
pc_acks_is_pipe (const struct pc_acks *a, const struct stat *st)
{
  return a && S_ISFIFO (st->st_mode) && st->st_dev == a->dev && st->st_ino == a->ino;
}

int
pc_acks_take (struct pc_acks *a, bool all, int (*fn) (void *, const char *, size_t),
              void *arg)
{
  size_t start = 0;
  int r = 0;

  pthread_mutex_lock (&a->lock);
  (void) read_pipe (a);
  for (size_t i = 0; i < a->len && r == 0; i++)
    if (a->buf[i] == '\n') {
      r = fn (arg, a->buf + start, i - start);
      start = i + 1;
    }
  if (r == 0 && all && start < a->len) {
    r = fn (arg, a->buf + start, a->len - start);
    start = a->len;
  }
  if (start > 0) {
    memmove (a->buf, a->buf + start, a->len - start);
    a->len -= start;
  }
  pthread_mutex_unlock (&a->lock);
  return r;
}

void
pc_acks_stop (struct pc_acks *a)
{
  if (a->running) {
    a->stopping = 1;
    pthread_join (a->thread, NULL);
    a->running = false;
  }
}

void
pc_acks_free (struct pc_acks *a)
{
  if (a == NULL)
    return;
  pc_acks_stop (a);
  if (a->wfd >= 0)
    close (a->wfd);
  close (a->rfd);
  if (a->out >= 0)
    close (a->out);
  pthread_mutex_destroy (&a->lock);
  free (a->buf);
  free (a);
}
