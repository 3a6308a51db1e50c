/* run.c: one recording, from an empty device to a stopped log. */
#include <config.h>

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/control.h"
#include "record/serve.h"
#include "util/proc.h"
#include "run/run.h"
#include "run/traced.h"
#include "util/util.h"
#include "run/vm.h"
#include "util/err.h"

#define CMD_TIMEOUT_S 120
#define OUT_MAX 4096

struct run {
  const struct pc_run_config *cfg;
  char rt[80];                  /* private runtime directory */
  char sock[128], ctl[128], fusedir[128], mnt[128], pidfile[128];
  pid_t recorder, nbdfuse;
  char dev[64];
  bool loop, nbd, mounted;
  struct pc_err why;            /* the first reason (fail) */
  char out[OUT_MAX];
  char *const *command;         /* cfg->command, its program named absolutely
                                 * (in the workload's child) */
};

static void
status (struct run *r, const char *fmt, ...)
{
  char line[512];
  va_list ap;

  if (r->cfg->status == NULL)
    return;
  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  r->cfg->status (r->cfg->status_ctx, line);
}

/* Sets the reason (first one wins) and returns -err. */
static int
fail (struct run *r, int err, const char *fmt, ...)
{
  va_list ap;

  if (r->why.msg[0] == '\0') {
    va_start (ap, fmt);
    vsnprintf (r->why.msg, sizeof r->why.msg, fmt, ap);
    va_end (ap);
  }
  return -err;
}

/* The first line of a program's output, for error messages. */
static const char *
first_line (char *out)
{
  char *nl = strchr (out, '\n');

  if (nl)
    *nl = '\0';
  return out[0] ? out : "(no output)";
}

static int
run_cmd (struct run *r, char *const argv[])
{
  int s = pc_proc_run (argv, CMD_TIMEOUT_S, r->out, sizeof r->out);

  if (s == 0)
    return 0;
  if (s == -EINTR)
    return fail (r, EINTR, "interrupted");
  if (s == 127)
    return fail (r, ENOENT, "%s: not found (is it installed?)", argv[0]);
  if (s == -ETIME)
    return fail (r, ETIME, "%s: no answer within %d s", argv[0], CMD_TIMEOUT_S);
  return fail (r, EIO, "%s: %s", argv[0], first_line (r->out));
}

static bool
interrupted (void)
{
  return pc_interrupted ();
}

static void
msleep (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
  nanosleep (&ts, NULL);
}

/* Waits for a child, killing it after timeout_s. Returns its wait status. */
static int
reap (pid_t pid, int timeout_s, int sig)
{
  int st = 0;

  for (int i = 0; i < timeout_s * 20; i++) {
    pid_t p = waitpid (pid, &st, WNOHANG);
    if (p == pid || (p < 0 && errno == ECHILD))
      return st;
    msleep (50);
  }
  kill (pid, sig);
  msleep (200);
  kill (pid, SIGKILL);
  waitpid (pid, &st, 0);
  return st;
}

enum pc_attach
pc_run_pick_attach (void)
{
  struct stat st;

  if (stat ("/sys/module/nbd", &st) == 0 && stat ("/dev/nbd0", &st) == 0 &&
      access ("/sbin/nbd-client", X_OK) == 0)
    return PC_ATTACH_NBD;
  return PC_ATTACH_FUSE;
}

/* The recorder, in a child process of this one (serve.h): the parent
 * stops it at teardown. */
static int
start_recorder (struct run *r)
{
  struct pc_recorder_config rc = {
    .log_path = r->cfg->log_path, .force = true, .size = r->cfg->size,
    .socket_path = r->sock, .control_path = r->ctl,
  };
  struct pc_err err;
  int e = pc_recorder_spawn (&rc, r->pidfile, &r->recorder, &err);

  if (e < 0)
    return fail (r, -e, "recorder: %s", err.msg);
  return 0;
}

static int
attach_fuse (struct run *r)
{
  char nbdfile[160];
  pid_t pid;

  if (mkdir (r->fusedir, 0700) < 0)
    return fail (r, errno, "%s: %s", r->fusedir, strerror (errno));
  pid = fork ();
  if (pid < 0)
    return fail (r, errno, "fork: %s", strerror (errno));
  if (pid == 0) {
    int nul = open ("/dev/null", O_RDWR);
    if (nul >= 0) {
      dup2 (nul, 0);
      dup2 (nul, 1);
    }
    setpgid (0, 0);
    execlp ("nbdfuse", "nbdfuse", r->fusedir, "--unix", r->sock, (char *) NULL);
    /* not reached unless nbdfuse is missing */
    _exit (127);
  }
  r->nbdfuse = pid;
  snprintf (nbdfile, sizeof nbdfile, "%s/nbd", r->fusedir);
  for (int i = 0; i < 200 && access (nbdfile, F_OK) < 0; i++) {
    int st;
    if (waitpid (pid, &st, WNOHANG) == pid) {
      r->nbdfuse = 0;
      return fail (r, EIO, "nbdfuse exited (status %d): is it installed, and FUSE usable?",
                   WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st));
    }
    if (interrupted ())
      return fail (r, EINTR, "interrupted");
    msleep (50);
  }
  if (access (nbdfile, F_OK) < 0)
    return fail (r, ETIME, "nbdfuse: %s did not appear", nbdfile);
  {
    char *argv[] = { "losetup", "-f", "--show", nbdfile, NULL };
    int e = run_cmd (r, argv);
    if (e < 0)
      return e;
    const char *dev = first_line (r->out);
    size_t n = strnlen (dev, sizeof r->dev - 1);
    memcpy (r->dev, dev, n);
    r->dev[n] = '\0';
    r->loop = strncmp (r->dev, "/dev/loop", 9) == 0;
    if (!r->loop)
      return fail (r, EIO, "losetup: unexpected answer '%s'", r->dev);
  }
  return 0;
}

static int
attach_nbd (struct run *r)
{
  /* The first /dev/nbdN without a client. */
  for (int i = 0; i < 128; i++) {
    char pidf[64], dev[32];
    struct stat st;
    snprintf (dev, sizeof dev, "/dev/nbd%d", i);
    snprintf (pidf, sizeof pidf, "/sys/block/nbd%d/pid", i);
    if (stat (dev, &st) < 0)
      break;
    if (access (pidf, F_OK) == 0)
      continue;
    {
      char *argv[] = { "nbd-client", "-unix", r->sock, dev, "-b", "4096", "-N", "", NULL };
      int e = run_cmd (r, argv);
      if (e < 0)
        return e;
    }
    snprintf (r->dev, sizeof r->dev, "%s", dev);
    r->nbd = true;
    return 0;
  }
  return fail (r, ENODEV, "no free /dev/nbdN (is the nbd module loaded?)");
}

/* Splits s on blanks into argv (appending to *argv at *argc). */
static void
split (char *s, char **argv, int *argc, int max)
{
  for (char *t = strtok (s, " \t"); t && *argc < max - 1; t = strtok (NULL, " \t"))
    argv[(*argc)++] = t;
}

/* mkfs options: the user's, else 4 KiB blocks and (with a journal) inode
 * tables and journal written now rather than by the kernel later. */
static const char *
mkfs_options (const struct pc_run_config *cfg)
{
  if (cfg->mkfs_opts)
    return cfg->mkfs_opts;
  if (strcmp (cfg->fs, "ext2") == 0)
    return "-b 4096";
  return "-b 4096 -E lazy_itable_init=0,lazy_journal_init=0";
}

static int
make_fs (struct run *r)
{
  char prog[32], opts[512];
  char *argv[64];
  int argc = 0;

  snprintf (prog, sizeof prog, "mkfs.%s", r->cfg->fs);
  snprintf (opts, sizeof opts, "%s", mkfs_options (r->cfg));
  argv[argc++] = prog;
  argv[argc++] = "-q";
  argv[argc++] = "-F";
  split (opts, argv, &argc, 60);
  argv[argc++] = r->dev;
  argv[argc] = NULL;
  return run_cmd (r, argv);
}

/* The mount options: a built-in workload's commit= is added for a journal
 * when the options do not say. */
static void
mount_options (const struct pc_run_config *cfg, char *buf, size_t len, unsigned *commit_s)
{
  const char *o = cfg->mount_opts ? cfg->mount_opts : "";
  const char *c = strstr (o, "commit=");

  *commit_s = c ? (unsigned) atoi (c + 7) : 5;
  if (*commit_s == 0)
    *commit_s = 5;
  if (c || strcmp (cfg->fs, "ext2") == 0 || cfg->workload == NULL || cfg->workload->commit_s == 0)
    snprintf (buf, len, "%s", o);
  else {
    *commit_s = cfg->workload->commit_s;
    snprintf (buf, len, "%s%scommit=%u", o, o[0] ? "," : "", *commit_s);
  }
}

static void
trace_to_file (void *ctx, const char *line)
{
  FILE *f = ctx;

  fprintf (f, "%s\n", line);
  fflush (f);
}

/* Runs the workload in a child process in the mount point. */
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
  struct pc_traced t = { .control = r->ctl, .root = r->mnt, .all_cpus = cfg->all_cpus };
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
  fprintf (stderr, "powercut: traced: %llu events logged, %llu about other files left out; "
           "the tracer's peak memory %llu KiB\n", (unsigned long long) t.events,
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

static int
run_workload (struct run *r, unsigned commit_s)
{
  const struct pc_run_config *cfg = r->cfg;
  uint64_t deadline = pc_now_mono_ns () + (uint64_t) cfg->timeout_s * 1000000000u;
  FILE *trace = NULL;
  pid_t pid;
  int st = 0;

  if (cfg->trace_path && (trace = fopen (cfg->trace_path, "we")) == NULL)
    return fail (r, errno, "%s: %s", cfg->trace_path, strerror (errno));
  pid = fork ();
  if (pid < 0) {
    if (trace)
      fclose (trace);
    return fail (r, errno, "fork: %s", strerror (errno));
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
    if (interrupted () || pc_now_mono_ns () > deadline) {
      kill (-pid, SIGKILL);
      kill (pid, SIGKILL);
      waitpid (pid, &st, 0);
      return interrupted () ? fail (r, EINTR, "interrupted")
                            : fail (r, ETIME, "the workload did not finish within %d s",
                                    cfg->timeout_s);
    }
    msleep (20);
  }
  if (WIFEXITED (st) && WEXITSTATUS (st) == 0)
    return 0;
  if (WIFEXITED (st) && WEXITSTATUS (st) == 127)
    return fail (r, ENOENT, "%s: cannot run it", cfg->command ? cfg->command[0] : "workload");
  if (cfg->traced && WIFEXITED (st) && WEXITSTATUS (st) == TRACE_FAILED)
    return fail (r, EIO, "the workload could not be traced%s%s",
                 cfg->trace_path ? ": see " : "", cfg->trace_path ? cfg->trace_path : "");
  return fail (r, EIO, "the workload failed (%s %d)%s%s",
               WIFEXITED (st) ? "exit status" : "signal",
               WIFEXITED (st) ? WEXITSTATUS (st) : WTERMSIG (st),
               cfg->trace_path ? ": see " : "", cfg->trace_path ? cfg->trace_path : "");
}

/* Undoes whatever was set up, in reverse; never gives up half-way. */
static void
teardown (struct run *r)
{
  char *umount_argv[] = { "umount", r->mnt, NULL };
  char *lazy_argv[] = { "umount", "-l", r->mnt, NULL };
  char *detach_argv[] = { "losetup", "-d", r->dev, NULL };
  char *nbd_argv[] = { "nbd-client", "-d", r->dev, NULL };
  char *fuse_argv[] = { "fusermount3", "-u", r->fusedir, NULL };
  volatile sig_atomic_t *saved;

  saved = pc_interrupt_flag (NULL);   /* cleaning up is not interruptible */
  if (r->mounted) {
    for (int i = 0; i < 25 && r->mounted; i++) {
      if (pc_proc_run (umount_argv, 30, r->out, sizeof r->out) == 0)
        r->mounted = false;
      else
        msleep (200);
    }
    if (r->mounted)
      pc_proc_run (lazy_argv, 30, r->out, sizeof r->out);
  }
  if (r->loop)
    pc_proc_run (detach_argv, 30, r->out, sizeof r->out);
  if (r->nbd)
    pc_proc_run (nbd_argv, 30, r->out, sizeof r->out);
  if (r->nbdfuse > 0) {
    /* The loop device may let go of the file a moment after losetup -d. */
    for (int i = 0; i < 50; i++) {
      if (pc_proc_run (fuse_argv, 30, r->out, sizeof r->out) == 0)
        break;
      msleep (100);
    }
    reap (r->nbdfuse, 10, SIGTERM);
  }
  if (r->recorder > 0) {
    /* Stopped, it ends its log; killed only if it does not. */
    if (pc_control_call (r->ctl, PC_CTL_STOP, NULL, 0, 30000, NULL) < 0)
      kill (r->recorder, SIGTERM);
    reap (r->recorder, 10, SIGKILL);
    r->recorder = 0;
  }
  rmdir (r->mnt);
  rmdir (r->fusedir);
  unlink (r->pidfile);
  unlink (r->sock);
  unlink (r->ctl);
  rmdir (r->rt);
  pc_interrupt_flag (saved);
}

/* Everything between starting and stopping the recorder, in a guest. */
static int
run_vm (struct run *r)
{
  const struct pc_run_config *cfg = r->cfg;
  struct pc_vm_config vc;
  char opts[512];
  const char *console = cfg->console_path ? cfg->console_path : "/dev/null";
  unsigned commit_s;

  mount_options (cfg, opts, sizeof opts, &commit_s);
  memset (&vc, 0, sizeof vc);
  vc.self = cfg->self;
  vc.kernel = cfg->kernel;
  vc.modules = cfg->modules;
  vc.nbd_sock = r->sock;
  vc.ctl_sock = r->ctl;
  vc.fs = cfg->fs;
  vc.mkfs_opts = mkfs_options (cfg);
  vc.mount_opts = opts;
  vc.workload = cfg->workload ? cfg->workload->name : NULL;
  vc.script = cfg->workload ? NULL : cfg->command[0];
  vc.script_args = cfg->workload ? NULL : cfg->command + 1;
  vc.traced = cfg->traced;
  vc.seed = cfg->seed;
  vc.files = cfg->files;
  vc.commit_s = commit_s;
  vc.seconds = cfg->seconds;
  vc.sysctls = cfg->sysctls;
  vc.nsysctls = cfg->nsysctls;
  vc.connections = cfg->connections;
  vc.timeout_s = cfg->timeout_s;
  vc.work_dir = r->rt;
  vc.console_path = console;
  status (r, "booting %s in qemu (its console: %s)", cfg->kernel ? cfg->kernel : "the newest kernel",
          console);
  return pc_vm_run (&vc, &r->why);
}

/* Keeps this process on the CPU it runs on; false if it cannot. */
static bool
pin_here (void)
{
  cpu_set_t one;
  int cpu = sched_getcpu ();

  if (cpu < 0)
    return false;
  CPU_ZERO (&one);
  CPU_SET (cpu, &one);
  return sched_setaffinity (0, sizeof one, &one) == 0;
}

static int
record_once (const struct pc_run_config *cfg, struct pc_err *why)
{
  struct run r;
  char opts[512];
  unsigned commit_s;
  enum pc_attach attach;
  cpu_set_t cpus;
  bool pinned;
  int e;

  memset (&r, 0, sizeof r);
  r.cfg = cfg;
  r.why.msg[0] = '\0';
  {
    /* $TMPDIR if socket paths under it stay short enough, else /tmp. */
    const char *t = getenv ("TMPDIR");
    if (t == NULL || *t != '/' || strlen (t) > 48)
      t = "/tmp";
    snprintf (r.rt, sizeof r.rt, "%s/powercut-run.XXXXXX", t);
  }
  if (mkdtemp (r.rt) == NULL)
    return fail (&r, errno, "%s: %s", r.rt, strerror (errno));
  snprintf (r.sock, sizeof r.sock, "%s/nbd.sock", r.rt);
  snprintf (r.ctl, sizeof r.ctl, "%s/control.sock", r.rt);
  snprintf (r.fusedir, sizeof r.fusedir, "%s/fuse", r.rt);
  snprintf (r.mnt, sizeof r.mnt, "%s/mnt", r.rt);
  snprintf (r.pidfile, sizeof r.pidfile, "%s/record.pid", r.rt);

  status (&r, "recording to %s", cfg->log_path);
  attach = cfg->attach == PC_ATTACH_AUTO ? pc_run_pick_attach () : cfg->attach;
  /* A traced workload here: it, the tracer, the recorder and nbdfuse on
   * one CPU, where every event's round trip is a context switch, not a
   * wake-up of another CPU (traced.h); they inherit it from this process,
   * which gets its own CPUs back at the end. */
  pinned = cfg->traced && !cfg->all_cpus && attach != PC_ATTACH_VM &&
           sched_getaffinity (0, sizeof cpus, &cpus) == 0 && pin_here ();
  e = start_recorder (&r);
  if (e < 0)
    goto out;
  if (attach == PC_ATTACH_VM) {
    e = run_vm (&r);
    goto out;
  }
  e = attach == PC_ATTACH_NBD ? attach_nbd (&r) : attach_fuse (&r);
  if (e < 0)
    goto out;
  status (&r, "attached as %s (%s)", r.dev, attach == PC_ATTACH_NBD ? "nbd" : "nbdfuse + loop");
  e = make_fs (&r);
  if (e < 0)
    goto out;
  if (mkdir (r.mnt, 0700) < 0) {
    e = fail (&r, errno, "%s: %s", r.mnt, strerror (errno));
    goto out;
  }
  mount_options (cfg, opts, sizeof opts, &commit_s);
  if (cfg->nsysctls > 0) {
    /* The writeback knobs are the machine's: put back in any case below. */
    struct pc_err swhy;
    e = pc_sysctl_apply (cfg->sysctls, cfg->nsysctls, &cfg->sysctl_host, cfg->sysctl_waiting,
                         cfg->sysctl_waiting_ctx, &swhy);
    if (e == -EINTR) {
      e = fail (&r, EINTR, "interrupted");
      goto out;
    }
    if (e < 0) {
      e = fail (&r, -e, "setting %s", swhy.msg);
      goto out;
    }
    for (size_t i = 0; i < cfg->nsysctls; i++)
      status (&r, "%s=%s (was %s, put back afterwards)", cfg->sysctls[i].name,
              cfg->sysctls[i].value, cfg->sysctls[i].old);
  }
  {
    char *argv[] = { "mount", "-t", (char *) cfg->fs, "-o", opts, r.dev, r.mnt, NULL };
    if (opts[0] == '\0') {
      argv[3] = r.dev;
      argv[4] = r.mnt;
      argv[5] = NULL;
    }
    e = run_cmd (&r, argv);
    if (e < 0)
      goto out;
    r.mounted = true;
  }
  status (&r, "mkfs.%s, mounted with %s", cfg->fs, opts[0] ? opts : "defaults");
  {
    struct pc_err mwhy;
    e = pc_control_mark (r.ctl, "mkfs", r.mnt, true, NULL, 0, 120000, &mwhy);
    if (e < 0) {
      e = fail (&r, -e, "mark mkfs: %s", mwhy.msg);
      goto out;
    }
  }
  status (&r, "running %s", cfg->workload ? cfg->workload->name : cfg->command[0]);
  e = run_workload (&r, commit_s);
  if (e < 0)
    goto out;
  if (!cfg->workload) {
    struct pc_err mwhy;
    e = pc_control_mark (r.ctl, "end", r.mnt, true, NULL, 0, 120000, &mwhy);
    if (e < 0) {
      e = fail (&r, -e, "mark end: %s", mwhy.msg);
      goto out;
    }
  }
  e = 0;
out:
  teardown (&r);
  if (pinned)
    sched_setaffinity (0, sizeof cpus, &cpus);
  if (cfg->nsysctls > 0) {
    struct pc_err swhy;
    int se = pc_sysctl_release (cfg->sysctls, cfg->nsysctls, &cfg->sysctl_host, &swhy);
    if (se < 0 && e == 0)
      e = fail (&r, -se, "%s (recorded in %s)", swhy.msg,
                cfg->sysctl_host.dir ? cfg->sysctl_host.dir : PC_SYSCTL_DIR);
  }
  if (e == 0 && interrupted ())
    e = fail (&r, EINTR, "interrupted");
  if (e < 0)
    pc_err_set (why, -e, "%s", r.why.msg[0] ? r.why.msg : strerror (-e));
  return e;
}

int
pc_run_record (const struct pc_run_config *cfg, struct pc_err *why)
{
  int e = record_once (cfg, why);

  /* A guest that died without a word (an emulator or guest kernel crash,
   * not the workload) left a partial recording: record once more, anew. */
  if (e == -ECHILD && !interrupted ()) {
    if (cfg->status)
      cfg->status (cfg->status_ctx, "the guest stopped without reporting; recording again");
    e = record_once (cfg, why);
  }
  return e;
}
