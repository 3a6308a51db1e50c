/* runcmd.c: the workload of one recording, run in a child process, and
 * the commands run.c runs on the way (runint.h). */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/runint.h"
#include "run/traced.h"
#include "util/proc.h"
#include "util/util.h"

/* The first line of a program's output, for error messages. */
const char *
pc_run_first_line (char *out)
{
  char *nl = strchr (out, '\n');

  if (nl)
    *nl = '\0';
  return out[0] ? out : "(no output)";
}

/* What a command's status s (pc_proc_run's) comes to: 0, or -errno
 * with its reason. */
int
pc_run_cmd_status (struct run *r, char *const argv[], int s)
{
  if (s == 0)
    return 0;
  if (s == -EINTR)
    return pc_run_fail (r, EINTR, "interrupted");
  if (s == 127)
    return pc_run_fail (r, ENOENT, "%s: not found (is it installed?)", argv[0]);
  if (s == -ETIME)
    return pc_run_fail (r, ETIME, "%s: no answer within %d s", argv[0], PC_RUN_CMD_TIMEOUT_S);
  return pc_run_fail (r, EIO, "%s: %s", argv[0], pc_run_first_line (r->out));
}

int
pc_run_cmd (struct run *r, char *const argv[])
{
  return pc_run_cmd_status (r, argv, pc_proc_run (argv, PC_RUN_CMD_TIMEOUT_S, r->out, sizeof r->out));
}

static void
trace_to_file (void *ctx, const char *line)
{
  FILE *f = ctx;

  fprintf (f, "%s\n", line);
  fflush (f);
}

/* In the workload's process: the environment a command gets. */
static void
command_env (struct run *r)
{
  char *path = NULL, *dir = strdup (r->cfg->self);
  const char *old = getenv ("PATH");

  if (dir && strrchr (dir, '/'))
    *strrchr (dir, '/') = '\0';
  if (dir && asprintf (&path, "%s:%s", dir, old ? old : "/usr/bin:/bin") > 0)
    setenv ("PATH", path, 1);
  setenv ("POWERCUT_MNT", r->mnt, 1);
  setenv ("POWERCUT_CONTROL", r->ctl, 1);
  setenv ("POWERCUT", r->cfg->self, 1);
  for (size_t i = 0; r->name && i < r->nset; i++) {
    char nm[128];
    snprintf (nm, sizeof nm, "POWERCUT_MNT_%s", r->set[i].name);
    setenv (nm, r->set[i].mnt, 1);
    snprintf (nm, sizeof nm, "POWERCUT_CONTROL_%s", r->set[i].name);
    setenv (nm, r->set[i].ctl, 1);
  }
}

/* What the workload's process tells the run when the workload could not
 * be run or traced, through a pipe closed on exec. */
struct child_word {
  int noexec;                   /* execvp's errno: the command cannot be run */
  char why[240];                /* why it could not be traced, or "" */
};

static void
tell_parent (int fd, int noexec, const char *why)
{
  struct child_word w = { .noexec = noexec };
  ssize_t n;

  if (why)
    memcpy (w.why, why, strnlen (why, sizeof w.why - 1));
  n = write (fd, &w, sizeof w);
  (void) n;
}

/* In the workload's process: the workload run under the tracer, a
 * built-in one as "powercut workload" (what a guest runs too).  Returns
 * the exit status for the process: the workload's, or TRACE_FAILED with
 * the reason told the parent.  The tracer's summary goes in the
 * workload's record (trace), if it has one. */
#define TRACE_FAILED 125
#define TRACE_LEFT 124          /* it left processes running: killed */
static int
run_traced (struct run *r, unsigned commit_s, FILE *trace, int word_fd)
{
  const struct pc_run_config *cfg = r->cfg;
  /* A built-in workload's lines tell what it does, and its marks what it
   * had: no acknowledgements. */
  struct pc_traced t = { .control = r->ctl, .root = r->mnt, .all_cpus = cfg->all_cpus,
                         .acks = cfg->workload == NULL &&
                                 (cfg->acks == NULL || cfg->acks->how != PC_ACKS_NONE),
                         .acksel = cfg->acks };
  char seed[24], files[16], commit[16], seconds[16];
  char *argv[] = { (char *) cfg->self, "workload",
                   (char *) (cfg->workload ? cfg->workload->name : ""), "--control",
                   r->ctl, "--dir", r->mnt, "--seed", seed, "--files", files, "--commit",
                   commit, "--seconds", seconds, NULL };
  struct pc_err err;
  int st;

  command_env (r);
  snprintf (seed, sizeof seed, "%llu", (unsigned long long) cfg->seed);
  snprintf (files, sizeof files, "%u", cfg->files);
  snprintf (commit, sizeof commit, "%u", commit_s);
  snprintf (seconds, sizeof seconds, "%u", cfg->seconds);
  if (trace) {
    dup2 (fileno (trace), 1);
    dup2 (fileno (trace), 2);
  }
  st = pc_traced_run (cfg->workload ? argv : r->command, &t, &err);
  if (st == -ENOENT || st == -EACCES) {
    tell_parent (word_fd, -st, NULL);
    return 127;                 /* as execvp: cannot run it */
  }
  if (st < 0) {
    tell_parent (word_fd, 0, err.msg);
    return TRACE_FAILED;
  }
  if (trace) {
    fprintf (trace, "powercut: traced: %llu events logged (%llu acknowledgements), %llu about "
             "other files left out; the tracer's peak memory %llu KiB\n",
             (unsigned long long) t.events, (unsigned long long) t.nacks,
             (unsigned long long) t.elsewhere, (unsigned long long) t.peak_kib);
    if (t.left[0])
      fprintf (trace, "powercut: the workload left processes running when it ended: %s "
               "(killed)\n", t.left);
    fflush (trace);
  }
  if (t.left[0])
    return TRACE_LEFT;
  return st >= 256 ? 128 + st - 256 : st;
}

/* The command runs in the mounted filesystem: a program named by a path
 * relative to where powercut was started is named from there (in the
 * child, before it changes directory). */
static void
command_absolute (struct run *r)
{
  char *const *argv = r->cfg->command;
  char *abs, **copy;
  size_t n = 0;

  r->command = argv;
  if (argv == NULL || argv[0][0] == '/' || strchr (argv[0], '/') == NULL ||
      (abs = realpath (argv[0], NULL)) == NULL)
    return;
  while (argv[n])
    n++;
  if ((copy = calloc (n + 1, sizeof *copy)) == NULL)
    return;
  memcpy (copy, argv, n * sizeof *copy);
  copy[0] = abs;
  r->command = copy;
}

/* Our children, as /proc lists them (at most max), with their names. */
#define MAX_KIDS 64
struct kid {
  pid_t pid;
  char name[32];
};

static size_t
children (struct kid *out, size_t max)
{
  DIR *d = opendir ("/proc");
  struct dirent *de;
  pid_t self = getpid ();
  size_t n = 0;

  while (d && n < max && (de = readdir (d)) != NULL) {
    char path[300], buf[512], *close_paren;
    FILE *f;
    size_t len;
    int ppid;
    if (!isdigit ((unsigned char) de->d_name[0]))
      continue;
    snprintf (path, sizeof path, "/proc/%s/stat", de->d_name);
    if ((f = fopen (path, "re")) == NULL)
      continue;
    len = fread (buf, 1, sizeof buf - 1, f);
    fclose (f);
    buf[len] = '\0';
    /* pid (name) state ppid ...: the name may hold anything but the last ')' */
    close_paren = strrchr (buf, ')');
    if (close_paren == NULL || sscanf (close_paren + 1, " %*c %d", &ppid) != 1 || ppid != self)
      continue;
    out[n].pid = (pid_t) atoi (de->d_name);
    {
      const char *op = strchr (buf, '(');
      size_t nl = op && close_paren > op ? (size_t) (close_paren - op - 1) : 0;
      if (nl >= sizeof out[n].name)
        nl = sizeof out[n].name - 1;
      if (nl)
        memcpy (out[n].name, op + 1, nl);
      out[n].name[nl] = '\0';
    }
    n++;
  }
  if (d)
    closedir (d);
  return n;
}

/* Processes the workload left running when its first process ended: they
 * became ours (we are their subreaper).  Kills them and whatever they
 * started, and says which in why.  Returns how many there were. */
static size_t
kill_leftovers (const struct kid *before, size_t nbefore, char *why, size_t len)
{
  size_t total = 0, o = 0;

  why[0] = '\0';
  for (int round = 0; round < 20; round++) {
    struct kid now[MAX_KIDS];
    size_t n = children (now, MAX_KIDS), left = 0;
    for (size_t i = 0; i < n; i++) {
      bool known = false;
      pid_t pg;
      for (size_t k = 0; k < nbefore && !known; k++)
        known = before[k].pid == now[i].pid;
      if (known)
        continue;
      left++;
      if (total < 8 && o < len)
        o += (size_t) snprintf (why + o, len - o, "%s%d (%s)", total ? ", " : "",
                                (int) now[i].pid, now[i].name);
      total++;
      pg = getpgid (now[i].pid);
      if (pg > 1 && pg != getpgrp ())
        kill (-pg, SIGKILL);
      kill (now[i].pid, SIGKILL);
      waitpid (now[i].pid, NULL, 0);
    }
    if (left == 0)
      break;
  }
  if (total > 8 && o < len)
    snprintf (why + o, len - o, " and %zu more", total - 8);
  return total;
}

/* Did the recorder of r (or of a device of its set) end while the
 * workload ran?  Its process is a zombie or gone; it is reaped at
 * teardown.  Names the device (or "") in *ret_name. */
bool
pc_run_recorder_ended (const struct run *r, const char **ret_name)
{
  const struct run *set = r->set ? r->set : r;
  size_t n = r->nset ? r->nset : 1;

  for (size_t i = 0; i < n; i++) {
    char path[64], buf[256], *cp;
    FILE *f;
    size_t len;
    if (set[i].recorder <= 0)
      continue;
    snprintf (path, sizeof path, "/proc/%d/stat", (int) set[i].recorder);
    f = fopen (path, "re");
    len = f ? fread (buf, 1, sizeof buf - 1, f) : 0;
    if (f)
      fclose (f);
    buf[len] = '\0';
    cp = strrchr (buf, ')');
    if (f == NULL || cp == NULL || cp[1] == '\0' || cp[2] == 'Z' || cp[2] == 'X') {
      *ret_name = set[i].name ? set[i].name : "";
      return true;
    }
  }
  return false;
}

int
pc_run_workload (struct run *r, unsigned commit_s)
{
  const struct pc_run_config *cfg = r->cfg;
  uint64_t deadline = pc_now_mono_ns () + (uint64_t) cfg->timeout_s * 1000000000u;
  FILE *trace = NULL;
  pid_t pid;
  int st = 0;

  struct kid before[MAX_KIDS];
  size_t nbefore, nleft;
  char left[512];
  int cannot[2];
  struct child_word word = { 0 };

  if (cfg->trace_path && (trace = fopen (cfg->trace_path, "we")) == NULL)
    return pc_run_fail (r, errno, "%s: %s", cfg->trace_path, strerror (errno));
  /* What the workload leaves running when it ends (a daemon started with
   * setsid, say) becomes ours, to be found and stopped: it must not write
   * on after the recording ends, nor keep the filesystem mounted. */
  /* Why the command could not be run, if it could not (a status of 127
   * alone may be a command inside the workload that is missing). */
  if (pipe2 (cannot, O_CLOEXEC) < 0) {
    int e = errno;
    if (trace)
      fclose (trace);
    return pc_run_fail (r, e, "pipe: %s", strerror (e));
  }
  nbefore = children (before, MAX_KIDS);
  prctl (PR_SET_CHILD_SUBREAPER, 1);
  pid = fork ();
  if (pid < 0) {
    int e = errno;
    close (cannot[0]);
    close (cannot[1]);
    prctl (PR_SET_CHILD_SUBREAPER, 0);
    if (trace)
      fclose (trace);
    return pc_run_fail (r, e, "fork: %s", strerror (e));
  }
  if (pid == 0) {
    setpgid (0, 0);
    signal (SIGINT, SIG_DFL);
    signal (SIGTERM, SIG_DFL);
    command_absolute (r);
    if (chdir (r->mnt) < 0)
      _exit (126);
    if (cfg->traced)
      _exit (run_traced (r, commit_s, trace, cannot[1]));
    if (cfg->workload) {
      struct pc_workload_env env = {
        .control = r->ctl, .root = r->mnt, .seed = cfg->seed, .files = cfg->files,
        .commit_s = commit_s, .seconds = cfg->seconds, .trace = trace ? trace_to_file : NULL, .trace_ctx = trace,
      };
      int e = cfg->workload->run (&env);
      if (e < 0 && trace)
        fprintf (trace, "failed: %s\n", strerror (-e));
      _exit (e < 0 ? 1 : 0);
    }
    else {
      command_env (r);
      if (trace) {
        dup2 (fileno (trace), 1);
        dup2 (fileno (trace), 2);
      }
      execvp (r->command[0], r->command);
      tell_parent (cannot[1], errno, NULL);
      _exit (127);
    }
  }
  close (cannot[1]);
  fcntl (cannot[0], F_SETFL, O_NONBLOCK);
  if (trace)
    fclose (trace);
  for (;;) {
    pid_t p = waitpid (pid, &st, WNOHANG);
    if (p == pid)
      break;
    if (pc_interrupted () || pc_now_mono_ns () > deadline) {
      kill (-pid, SIGKILL);
      kill (pid, SIGKILL);
      waitpid (pid, &st, 0);
      nleft = kill_leftovers (before, nbefore, left, sizeof left);
      prctl (PR_SET_CHILD_SUBREAPER, 0);
      close (cannot[0]);
      if (pc_interrupted ())
        return pc_run_fail (r, EINTR, "interrupted");
      return pc_run_fail (r, ETIME, "the workload did not finish within %d s%s%s%s",
                          cfg->timeout_s, nleft ? " (processes it started were still " : "",
                          nleft ? "running: " : "", nleft ? left : "");
    }
    pc_run_msleep (5);
  }
  nleft = kill_leftovers (before, nbefore, left, sizeof left);
  prctl (PR_SET_CHILD_SUBREAPER, 0);
  if (read (cannot[0], &word, sizeof word) != (ssize_t) sizeof word)
    memset (&word, 0, sizeof word);
  word.why[sizeof word.why - 1] = '\0';
  close (cannot[0]);
  if (nleft > 0)
    return pc_run_fail (r, EBUSY, "the workload left %zu process%s running when it ended: "
                        "%s (killed; what they would have done is not in the recording)",
                        nleft, nleft == 1 ? "" : "es", left);
  if (WIFEXITED (st) && WEXITSTATUS (st) == 0) {
    const char *dev;
    if (pc_run_recorder_ended (r, &dev))
      return pc_run_fail (r, EIO, "the recorder%s%s ended while the workload ran: the "
                          "recording stops there", dev[0] ? " of " : "", dev);
    return 0;
  }
  {
    /* not the workload's fault, nor the tracer's */
    const char *dev;
    if (pc_run_recorder_ended (r, &dev))
      return pc_run_fail (r, EIO, "the recorder%s%s ended while the workload ran: the recording "
                          "stops there, and the workload failed with it", dev[0] ? " of " : "",
                          dev);
  }
  if (WIFEXITED (st) && WEXITSTATUS (st) == 127 && word.noexec > 0)
    return pc_run_fail (r, word.noexec, "%s: cannot run it: %s",
                        cfg->command ? cfg->command[0] : "workload", strerror (word.noexec));
  if (cfg->traced && WIFEXITED (st) && WEXITSTATUS (st) == TRACE_LEFT)
    return pc_run_fail (r, EBUSY, "the workload left processes running when it ended "
                        "(killed; what they would have done is not in the recording)%s%s",
                        cfg->trace_path ? ": see " : "", cfg->trace_path ? cfg->trace_path : "");
  if (cfg->traced && WIFEXITED (st) && WEXITSTATUS (st) == TRACE_FAILED)
    return pc_run_fail (r, EIO, "the workload could not be traced: %s",
                        word.why[0] ? word.why : "the tracer failed");
  return pc_run_fail (r, EIO, "the workload failed (%s %d)%s%s",
               WIFEXITED (st) ? "exit status" : "signal",
               WIFEXITED (st) ? WEXITSTATUS (st) : WTERMSIG (st),
               cfg->trace_path ? ": see " : "", cfg->trace_path ? cfg->trace_path : "");
}
