/* runcmd.c: the workload of one recording, run in a child process. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/runint.h"
#include "run/traced.h"
#include "util/util.h"

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

/* In the workload's process: the workload run under the tracer, a
 * built-in one as "powercut workload" (what a guest runs too).  Returns
 * the exit status for the process: the workload's, or TRACE_FAILED with
 * the reason in its trace file. */
#define TRACE_FAILED 125
static int
run_traced (struct run *r, unsigned commit_s, FILE *trace)
{
  const struct pc_run_config *cfg = r->cfg;
  struct pc_traced t = { .control = r->ctl, .root = r->mnt, .all_cpus = cfg->all_cpus,
                         .acks = true };
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
  if (st == -ENOENT || st == -EACCES)
    return 127;                 /* as execvp: cannot run it */
  if (st < 0) {
    fprintf (stderr, "powercut: tracing the workload: %s\n", err.msg);
    return TRACE_FAILED;
  }
  fprintf (stderr, "powercut: traced: %llu events logged (%llu acknowledgements), %llu about "
           "other files left out; the tracer's peak memory %llu KiB\n",
           (unsigned long long) t.events, (unsigned long long) t.nacks,
           (unsigned long long) t.elsewhere, (unsigned long long) t.peak_kib);
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

int
pc_run_workload (struct run *r, unsigned commit_s)
{
  const struct pc_run_config *cfg = r->cfg;
  uint64_t deadline = pc_now_mono_ns () + (uint64_t) cfg->timeout_s * 1000000000u;
  FILE *trace = NULL;
  pid_t pid;
  int st = 0;

  if (cfg->trace_path && (trace = fopen (cfg->trace_path, "we")) == NULL)
    return pc_run_fail (r, errno, "%s: %s", cfg->trace_path, strerror (errno));
  pid = fork ();
  if (pid < 0) {
    if (trace)
      fclose (trace);
    return pc_run_fail (r, errno, "fork: %s", strerror (errno));
  }
  if (pid == 0) {
    setpgid (0, 0);
    signal (SIGINT, SIG_DFL);
    signal (SIGTERM, SIG_DFL);
    command_absolute (r);
    if (chdir (r->mnt) < 0)
      _exit (126);
    if (cfg->traced)
      _exit (run_traced (r, commit_s, trace));
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
      _exit (127);
    }
  }
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
      return pc_interrupted () ? pc_run_fail (r, EINTR, "interrupted")
                            : pc_run_fail (r, ETIME, "the workload did not finish within %d s",
                                    cfg->timeout_s);
    }
    pc_run_msleep (20);
  }
  if (WIFEXITED (st) && WEXITSTATUS (st) == 0)
    return 0;
  if (WIFEXITED (st) && WEXITSTATUS (st) == 127)
    return pc_run_fail (r, ENOENT, "%s: cannot run it", cfg->command ? cfg->command[0] : "workload");
  if (cfg->traced && WIFEXITED (st) && WEXITSTATUS (st) == TRACE_FAILED)
    return pc_run_fail (r, EIO, "the workload could not be traced%s%s",
                 cfg->trace_path ? ": see " : "", cfg->trace_path ? cfg->trace_path : "");
  return pc_run_fail (r, EIO, "the workload failed (%s %d)%s%s",
               WIFEXITED (st) ? "exit status" : "signal",
               WIFEXITED (st) ? WEXITSTATUS (st) : WTERMSIG (st),
               cfg->trace_path ? ": see " : "", cfg->trace_path ? cfg->trace_path : "");
}
