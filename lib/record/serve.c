/* serve.c: a recorder serving until stopped, here or in a child process. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/serve.h"
#include "util/util.h"

static int
write_pidfile (const char *path)
{
  char buf[32];
  int fd, r;

  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  snprintf (buf, sizeof buf, "%ld\n", (long) getpid ());
  r = pc_write_all (fd, buf, strlen (buf));
  if (close (fd) < 0 && r == 0)
    r = -errno;
  return r;
}

int
pc_recorder_serve (const struct pc_recorder_config *cfg, const char *pidfile,
                   void (*ready) (void *ctx), void *ctx, struct pc_err *err)
{
  struct pc_recorder *rec = NULL;
  int r;

  r = pc_recorder_new (cfg, &rec, err);
  if (r < 0)
    return r;
  if (pidfile && (r = write_pidfile (pidfile)) < 0) {
    pc_recorder_free (rec);
    return pc_err_set (err, -r, "%s: %s", pidfile, strerror (-r));
  }
  r = pc_recorder_start (rec);
  if (r < 0) {
    if (pidfile)
      unlink (pidfile);
    pc_recorder_free (rec);
    return pc_err_set (err, -r, "io_uring: %s", strerror (-r));
  }
  if (ready)
    ready (ctx);
  r = pc_recorder_run (rec);
  pc_recorder_free (rec);
  if (pidfile)
    unlink (pidfile);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", cfg->log_path, strerror (-r));
  return 0;
}

/* The child tells its parent how starting went, once, through a pipe: an
 * int, 0 (it serves) or -errno, then with -errno the reason (NUL-ended). */
static void
tell (int fd, int r, const char *msg)
{
  if (pc_write_all (fd, &r, sizeof r) == 0 && r < 0)
    pc_write_all (fd, msg, strlen (msg) + 1);
  close (fd);
}

static void
tell_ready (void *ctx)
{
  int *fd = ctx;

  tell (*fd, 0, "");
  *fd = -1;
}

/* Closes every file descriptor from 4 up. */
static void
close_from_4 (void)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *e;

  if (d == NULL) {
    for (int i = 4; i < 1024; i++)
      close (i);
    return;
  }
  while ((e = readdir (d)) != NULL) {
    int fd = atoi (e->d_name);
    if (fd >= 4 && fd != dirfd (d))
      close (fd);
  }
  closedir (d);
}

/* In the child: a session of its own, default signals, /dev/null as
 * standard input, output and error, and no file open but fd (the pipe,
 * moved to 3, which is returned). */
static int
detach (int fd)
{
  int high = fcntl (fd, F_DUPFD, 3), nul;

  setsid ();
  signal (SIGINT, SIG_DFL);
  signal (SIGTERM, SIG_DFL);
  signal (SIGHUP, SIG_DFL);
  nul = open ("/dev/null", O_RDWR);
  if (nul >= 0) {
    dup2 (nul, 0);
    dup2 (nul, 1);
    dup2 (nul, 2);
  }
  if (high < 0)
    return -1;
  if (high != 3 && dup2 (high, 3) < 0)   /* without O_CLOEXEC: no exec follows */
    return -1;
  close_from_4 ();                      /* what was open past the pipe */
  return 3;
}

int
pc_recorder_spawn (const struct pc_recorder_config *cfg, const char *pidfile,
                   pid_t *ret_pid, struct pc_err *err)
{
  char msg[PC_ERR_MAX] = "";
  int p[2], r, got = 0, st;
  ssize_t n;
  pid_t pid;

  pid_t parent = getpid ();

  if (pipe2 (p, O_CLOEXEC) < 0)
    return pc_err_set (err, errno, "pipe: %s", strerror (errno));
  pid = fork ();
  if (pid < 0) {
    r = errno;
    close (p[0]);
    close (p[1]);
    return pc_err_set (err, r, "fork: %s", strerror (r));
  }
  if (pid == 0) {
    struct pc_err cerr;
    int fd;
    close (p[0]);
    if (cfg->die_with_parent && (prctl (PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid () != parent))
      _exit (2);
    fd = detach (p[1]);
    if (fd < 0)
      _exit (2);
    r = pc_recorder_serve (cfg, pidfile, tell_ready, &fd, &cerr);
    if (fd >= 0 && r < 0)
      tell (fd, r, cerr.msg);         /* a failure before it served */
    _exit (r < 0 ? 2 : 0);
  }
  close (p[1]);
  if (pc_read_all (p[0], &got, sizeof got) < 0)
    got = -ECHILD;
  else if (got < 0) {
    size_t len = 0;
    while (len + 1 < sizeof msg && (n = read (p[0], msg + len, sizeof msg - 1 - len)) > 0)
      len += (size_t) n;
    msg[len] = '\0';
  }
  close (p[0]);
  if (got == 0) {
    *ret_pid = pid;
    return 0;
  }
  while (waitpid (pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (got == -ECHILD && msg[0] == '\0')
    snprintf (msg, sizeof msg, "the recorder ended before it served (%s %d)",
              WIFEXITED (st) ? "exit status" : "signal",
              WIFEXITED (st) ? WEXITSTATUS (st) : WTERMSIG (st));
  return pc_err_set (err, -got, "%s", msg);
}

char *
pc_recorder_control_for (const char *socket_path, const char *dflt_socket,
                         const char *dflt_control)
{
  size_t n;
  char *c;

  if (socket_path == NULL || strcmp (socket_path, dflt_socket) == 0)
    return strdup (dflt_control);
  n = strlen (socket_path);
  c = malloc (n + 5);
  if (c == NULL)
    return NULL;
  memcpy (c, socket_path, n);
  if (n > 5 && strcmp (socket_path + n - 5, ".sock") == 0)
    n -= 5;
  strcpy (c + n, ".ctl");
  return c;
}
