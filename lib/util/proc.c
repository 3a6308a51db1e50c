/* proc.c: running other programs with captured output and a time limit. */
#include <config.h>

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/proc.h"
#include "util/err.h"
#include "util/util.h"


#define SIDE_MAX_DEFAULT (64u << 20)

extern char **environ;

/* Is the "NAME=" of entry e one of the strings in set? */
static bool
env_named (const char *e, char *const *set)
{
  size_t n = strcspn (e, "=");

  for (; set && *set; set++)
    if (strncmp (*set, e, n) == 0 && (*set)[n] == '=')
      return true;
  return false;
}

/* The environment: ours, with extra and the fixed settings on top. */
static char **
make_env (const struct pc_proc_extra *x)
{
  static char *const fixed[] = { (char *) "E2FSCK_CONFIG=/dev/null", (char *) "LC_ALL=C", NULL };
  char *const *extra = x ? x->env : NULL;
  size_t n = 0, k = 0;
  char **env;

  for (char **e = environ; e && *e; e++)
    n++;
  for (char *const *e = extra; e && *e; e++)
    n++;
  env = malloc ((n + 3) * sizeof *env);
  if (env == NULL)
    return NULL;
  for (char **e = environ; e && *e; e++)
    if (!env_named (*e, fixed) && !env_named (*e, extra))
      env[k++] = *e;
  for (char *const *e = fixed; *e; e++)
    env[k++] = *e;
  for (char *const *e = extra; e && *e; e++)
    env[k++] = *e;
  env[k] = NULL;
  return env;
}

/* Starts argv with posix_spawn (no copy of this process's page tables,
 * which a checker's large image would make slow): standard input from
 * /dev/null, output and error into out_fd, side_fd as descriptor 3, in a
 * process group of its own.  Returns 0, 127 if the program is not found,
 * or -errno. */
static int
spawn (char *const argv[], const struct pc_proc_extra *x, int out_fd, int side_fd,
       pid_t *ret_pid)
{
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  sigset_t none, dfl;
  char **env = make_env (x);
  char path[64];
  int r;

  if (env == NULL)
    return -ENOMEM;
  posix_spawn_file_actions_init (&fa);
  posix_spawnattr_init (&at);
  posix_spawn_file_actions_addopen (&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2 (&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2 (&fa, out_fd, 2);
  if (side_fd >= 0)
    posix_spawn_file_actions_adddup2 (&fa, side_fd, 3);
  if (x && x->cwd)
    posix_spawn_file_actions_addchdir_np (&fa, x->cwd);
  sigemptyset (&none);
  sigemptyset (&dfl);
  sigaddset (&dfl, SIGINT);
  sigaddset (&dfl, SIGTERM);
  sigaddset (&dfl, SIGPIPE);
  posix_spawnattr_setsigmask (&at, &none);
  posix_spawnattr_setsigdefault (&at, &dfl);
  posix_spawnattr_setpgroup (&at, 0);
  posix_spawnattr_setflags (&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                 POSIX_SPAWN_SETSIGDEF);
  r = posix_spawnp (ret_pid, argv[0], &fa, &at, argv, env);
  if (r == ENOENT && strchr (argv[0], '/') == NULL) {
    /* Root's tools live in sbin, which a user's PATH may lack. */
    snprintf (path, sizeof path, "/sbin/%s", argv[0]);
    r = posix_spawn (ret_pid, path, &fa, &at, argv, env);
  }
  posix_spawn_file_actions_destroy (&fa);
  posix_spawnattr_destroy (&at);
  free (env);
  if (r == ENOENT || r == EACCES || r == ENOEXEC)
    return 127;
  return -r;
}

/* A pipe whose ends are above the standard descriptors and 3. */
static int
high_pipe (int p[2])
{
  int q[2];

  if (pipe2 (q, O_CLOEXEC) < 0)
    return -errno;
  for (int i = 0; i < 2; i++) {
    p[i] = fcntl (q[i], F_DUPFD_CLOEXEC, 10);
    if (p[i] < 0) {
      int r = -errno;
      if (i == 1)
        close (p[0]);
      close (q[0]);
      close (q[1]);
      return r;
    }
  }
  close (q[0]);
  close (q[1]);
  return 0;
}

/* Appends n bytes to the side buffer, within its limit. */
static void
side_add (struct pc_proc_extra *x, const char *buf, size_t n, size_t *cap)
{
  size_t max = x->side_max ? x->side_max : SIDE_MAX_DEFAULT;

  if (x->side_truncated)
    return;
  if (x->side_len + n > max) {
    x->side_truncated = true;
    return;
  }
  if (x->side_len + n + 1 > *cap) {
    size_t ncap = *cap ? *cap : 65536;
    char *p;
    while (ncap < x->side_len + n + 1)
      ncap *= 2;
    p = realloc (x->side_buf, ncap);
    if (p == NULL) {
      x->side_truncated = true;
      return;
    }
    x->side_buf = p;
    *cap = ncap;
  }
  memcpy (x->side_buf + x->side_len, buf, n);
  x->side_len += n;
  x->side_buf[x->side_len] = '\0';
}

int
pc_proc_run_extra (char *const argv[], struct pc_proc_extra *x, int timeout_s,
                   char *out, size_t outlen)
{
  int p[2], s[2] = { -1, -1 }, status, r;
  pid_t pid;
  size_t got = 0, cap = 0;
  uint64_t deadline = pc_now_mono_ns () + (uint64_t) timeout_s * 1000000000u;
  bool timed_out = false, interrupted = false;
  bool open_out = true, open_side;

  if (x) {
    x->side_buf = NULL;
    x->side_len = 0;
    x->side_truncated = false;
  }
  if ((r = high_pipe (p)) < 0)
    return r;
  if (x && x->side && (r = high_pipe (s)) < 0) {
    close (p[0]);
    close (p[1]);
    return r;
  }
  open_side = s[0] >= 0;
  r = spawn (argv, x, p[1], s[1], &pid);
  if (r != 0) {
    close (p[0]);
    close (p[1]);
    if (s[0] >= 0) {
      close (s[0]);
      close (s[1]);
    }
    return r;
  }
  close (p[1]);
  if (s[1] >= 0)
    close (s[1]);
  while (open_out || open_side) {
    struct pollfd pf[2] = {
      { .fd = open_out ? p[0] : -1, .events = POLLIN },
      { .fd = open_side ? s[0] : -1, .events = POLLIN },
    };
    uint64_t now = pc_now_mono_ns ();
    char buf[4096];
    ssize_t n;
    if (now >= deadline || pc_interrupted ()) {
      timed_out = now >= deadline;
      interrupted = !timed_out;
      kill (-pid, SIGKILL);
      kill (pid, SIGKILL);
      break;
    }
    r = poll (pf, 2, (int) ((deadline - now) / 1000000u) > 200 ? 200
                     : (int) ((deadline - now) / 1000000u) + 1);
    if (r < 0 && errno != EINTR)
      break;
    if (r <= 0)
      continue;
    for (int i = 0; i < 2; i++) {
      if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      n = read (pf[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        if (i == 0)
          open_out = false;
        else
          open_side = false;
        continue;
      }
      if (i == 1)
        side_add (x, buf, (size_t) n, &cap);
      else if (got < outlen - 1) {
        size_t k = (size_t) n < outlen - 1 - got ? (size_t) n : outlen - 1 - got;
        memcpy (out + got, buf, k);
        got += k;
      }
    }
  }
  out[got] = '\0';
  close (p[0]);
  if (s[0] >= 0)
    close (s[0]);
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

int
pc_proc_run (char *const argv[], int timeout_s, char *out, size_t outlen)
{
  return pc_proc_run_extra (argv, NULL, timeout_s, out, outlen);
}

int
pc_mount_point (const char *dir)
{
  struct stat m, up;
  char parent[PATH_MAX + 4];

  if ((size_t) snprintf (parent, sizeof parent, "%s/..", dir) >= sizeof parent)
    return -ENAMETOOLONG;
  if (stat (dir, &m) < 0 || stat (parent, &up) < 0)
    return -errno;
  return m.st_dev != up.st_dev;
}

int
pc_loop_of (const char *path, char *dev, size_t len)
{
  DIR *d = opendir ("/sys/block");
  struct dirent *e;
  int found = 0;

  if (d == NULL)
    return -errno;
  while (!found && (e = readdir (d)) != NULL) {
    char attr[PATH_MAX], back[PATH_MAX];
    ssize_t n;
    int fd;
    if (strncmp (e->d_name, "loop", 4) != 0)
      continue;
    snprintf (attr, sizeof attr, "/sys/block/%s/loop/backing_file", e->d_name);
    fd = open (attr, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;                 /* not attached */
    n = read (fd, back, sizeof back - 1);
    close (fd);
    if (n <= 0)
      continue;
    back[n] = '\0';
    back[strcspn (back, "\n")] = '\0';
    if (strcmp (back, path) == 0) {
      snprintf (dev, len, "/dev/%s", e->d_name);
      found = 1;
    }
  }
  closedir (d);
  return found;
}

char *
pc_which (const char *name)
{
  const char *path = getenv ("PATH");
  char *dirs, *save = NULL;

  if (strchr (name, '/'))
    return access (name, X_OK) == 0 ? strdup (name) : NULL;
  if (asprintf (&dirs, "%s:/usr/local/sbin:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin") < 0)
    return NULL;
  for (char *dir = strtok_r (dirs, ":", &save); dir; dir = strtok_r (NULL, ":", &save)) {
    char *p;
    if (*dir == '\0' || asprintf (&p, "%s/%s", dir, name) < 0)
      continue;
    if (access (p, X_OK) == 0) {
      free (dirs);
      return p;
    }
    free (p);
  }
  free (dirs);
  return NULL;
}

int
pc_proc_reap (pid_t pid, int timeout_s, int sig)
{
  int st = 0;

  /* short steps first: most children end within milliseconds */
  for (long waited = 0, step = 2; waited < timeout_s * 1000L; waited += step) {
    struct timespec ts;
    pid_t p = waitpid (pid, &st, WNOHANG);
    if (p == pid || (p < 0 && errno == ECHILD))
      return st;
    step = waited < 200 ? 2 : 50;
    ts = (struct timespec) { 0, step * 1000000L };
    nanosleep (&ts, NULL);
  }
  kill (pid, sig);
  nanosleep (&(struct timespec) { 0, 200 * 1000000L }, NULL);
  kill (pid, SIGKILL);
  waitpid (pid, &st, 0);
  return st;
}
