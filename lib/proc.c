/* proc.c: running other programs with captured output and a time limit. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

volatile sig_atomic_t *pc_proc_interrupted;


int
pc_proc_run (char *const argv[], int timeout_s, char *out, size_t outlen)
{
  int p[2], status, r;
  pid_t pid;
  size_t got = 0;
  uint64_t deadline = pc_now_mono_ns () + (uint64_t) timeout_s * 1000000000u;
  bool timed_out = false, interrupted = false;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return -errno;
  pid = fork ();
  if (pid < 0) {
    r = -errno;
    close (p[0]);
    close (p[1]);
    return r;
  }
  if (pid == 0) {
    int nul = open ("/dev/null", O_RDONLY);
    if (nul >= 0)
      dup2 (nul, 0);
    dup2 (p[1], 1);
    dup2 (p[1], 2);
    setenv ("E2FSCK_CONFIG", "/dev/null", 1);
    setenv ("LC_ALL", "C", 1);
    setpgid (0, 0);
    execvp (argv[0], argv);
    /* Root's tools live in sbin, which a user's PATH may lack. */
    char path[64];
    snprintf (path, sizeof path, "/sbin/%s", argv[0]);
    execv (path, argv);
    _exit (127);
  }
  close (p[1]);
  for (;;) {
    struct pollfd pf = { .fd = p[0], .events = POLLIN };
    uint64_t now = pc_now_mono_ns ();
    char buf[4096];
    ssize_t n;
    if (now >= deadline || (pc_proc_interrupted && *pc_proc_interrupted)) {
      timed_out = now >= deadline;
      interrupted = !timed_out;
      kill (-pid, SIGKILL);
      kill (pid, SIGKILL);
      break;
    }
    r = poll (&pf, 1, (int) ((deadline - now) / 1000000u) > 200 ? 200
                      : (int) ((deadline - now) / 1000000u) + 1);
    if (r < 0 && errno != EINTR)
      break;
    if (r <= 0)
      continue;
    n = read (p[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    if (got < outlen - 1) {
      size_t k = (size_t) n < outlen - 1 - got ? (size_t) n : outlen - 1 - got;
      memcpy (out + got, buf, k);
      got += k;
    }
  }
  out[got] = '\0';
  close (p[0]);
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -errno;
  if (timed_out)
    return -ETIME;
  if (interrupted)
    return -EINTR;
  if (WIFSIGNALED (status))
    return 256 + WTERMSIG (status);
  return WEXITSTATUS (status);
}

