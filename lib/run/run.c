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
#include "format/mark.h"
#include "record/serve.h"
#include "util/kmount.h"
#include "util/proc.h"
#include "fs/fs.h"
#include "guest/initramfs.h"
#include "run/run.h"
#include "run/runint.h"
#include "run/traced.h"
#include "util/util.h"
#include "guest/vm.h"
#include "util/err.h"



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

/* The recorder, in a child process of this one (serve.h): the parent
 * stops it at teardown. */
static int
start_recorder (struct run *r)
{
  const struct pc_fs *fs = pc_fs_find (r->cfg->fs);
  struct pc_recorder_config rc = {
    .log_path = r->cfg->log_path, .force = true,
    .size = r->cfg->size || r->cfg->base_path || fs == NULL ? r->cfg->size : fs->default_size,
    .base_path = r->name ? NULL : r->cfg->base_path,
    .socket_path = r->sock, .control_path = r->ctl,
  };
  struct pc_err err;
  int e = pc_recorder_spawn (&rc, r->pidfile, &r->recorder, &err);

  if (e < 0)
    return pc_run_fail (r, -e, "recorder: %s", err.msg);
  return 0;
}

/* Splits s on blanks into argv (appending to *argv at *argc). */
static void
split (char *s, char **argv, int *argc, int max)
{
  for (char *t = strtok (s, " \t"); t && *argc < max - 1; t = strtok (NULL, " \t"))
    argv[(*argc)++] = t;
}

const char *
pc_run_mkfs_options (const char *fs, const char *opts)
{
  const struct pc_fs *f = pc_fs_find (fs);

  if (opts)
    return opts;
  return f ? f->mkfs_default : "";
}

static const char *
mkfs_options (const struct pc_run_config *cfg)
{
  return pc_run_mkfs_options (cfg->fs, cfg->mkfs_opts);
}

static int
make_fs (struct run *r)
{
  char prog[32], opts[512];
  char *argv[64];
  int argc = 0;

  const struct pc_fs *fs = pc_fs_find (r->cfg->fs);

  snprintf (prog, sizeof prog, "mkfs.%s", r->cfg->fs);
  snprintf (opts, sizeof opts, "%s", mkfs_options (r->cfg));
  argv[argc++] = prog;
  argv[argc++] = "-q";
  argv[argc++] = (char *) (fs ? fs->mkfs_force : "-F");
  split (opts, argv, &argc, 60);
  argv[argc++] = r->at.dev;
  argv[argc] = NULL;
  return pc_run_cmd (r, argv);
}

/* The mount options: a built-in workload's commit= is added for a journal
 * when the options do not say. */
static void
mount_options (const struct pc_run_config *cfg, char *buf, size_t len, unsigned *commit_s)
{
  const char *o = cfg->mount_opts ? cfg->mount_opts : "";
  const char *c = strstr (o, "commit=");
  const struct pc_fs *fs = pc_fs_find (cfg->fs);
  unsigned dflt = fs ? fs->commit_s : 5;

  *commit_s = c ? (unsigned) atoi (c + 7) : dflt;
  if (*commit_s == 0)
    *commit_s = dflt;
  if (c || (fs && !fs->commit) || cfg->workload == NULL || cfg->workload->commit_s == 0)
    snprintf (buf, len, "%s", o);
  else {
    *commit_s = cfg->workload->commit_s;
    snprintf (buf, len, "%s%scommit=%u", o, o[0] ? "," : "", *commit_s);
  }
  /* what mounting copies of one filesystem side by side needs (explore's
   * recordings start from one base image) */
  if (fs && fs->mount_data[0] && strstr (buf, fs->mount_data) == NULL) {
    size_t n = strlen (buf);
    snprintf (buf + n, len - n, "%s%s", n ? "," : "", fs->mount_data);
  }
}

/* The settle in milliseconds: cfg's, or by default the journal commit
 * interval commit_s plus a second after a command, none after a
 * built-in workload (which syncs at its own end mark). */
static long
settle_ms (const struct pc_run_config *cfg, unsigned commit_s)
{
  if (cfg->settle_ms != PC_RUN_SETTLE_DEFAULT)
    return cfg->settle_ms > 0 ? cfg->settle_ms : 0;
  return cfg->workload ? 0 : (commit_s + 1) * 1000L;
}

/* Is r's filesystem still mounted where it was (a workload may unmount
 * it)? */
static bool
still_mounted (struct run *r)
{
  if (!r->mounted || pc_mount_point (r->mnt) != 0)
    return true;                /* mounted, or nothing to tell */
  r->mounted = false;
  return false;
}

/* The workload's filesystem must be mounted when it ends: one that
 * unmounted it recorded nothing after that (and an end mark would be of
 * an empty folder).  Returns 0 or -ENXIO with r's reason set. */
static int
check_mounted (struct run *r)
{
  if (still_mounted (r))
    return 0;
  return pc_run_fail (r, ENXIO, "the workload unmounted its filesystem (%s): nothing it did "
                      "after that is in the recording", r->mnt);
}

static void
teardown (struct run *r)
{
  volatile sig_atomic_t *saved;

  saved = pc_interrupt_flag (NULL);   /* cleaning up is not interruptible */
  /* Whatever is mounted there: also a mount that failed late (mount(8)
   * killed at its time limit or interrupted once the kernel had mounted). */
  if (r->mnt[0])
    pc_unmount (r->mnt, r->out, sizeof r->out);
  r->mounted = false;
  if (r->attach && r->attach->detach)
    r->attach->detach (&r->at);
  if (r->recorder > 0) {
    /* Stopped, it ends its log; killed only if it does not. */
    if (pc_control_call (r->ctl, PC_CTL_STOP, NULL, 0, 30000, NULL) < 0)
      kill (r->recorder, SIGTERM);
    pc_proc_reap (r->recorder, 10, SIGKILL);
    r->recorder = 0;
  }
  rmdir (r->mnt);
  rmdir (r->fusedir);
  unlink (r->pidfile);
  unlink (r->sock);
  unlink (r->ctl);
  if (r->rt[0]) {
    char scratch[sizeof r->rt + 16];
    snprintf (scratch, sizeof scratch, "%s/console.txt", r->rt);
    unlink (scratch);
  }
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
  char scratch[sizeof r->rt + 16], knob[16][128], *knobs[16];
  unsigned commit_s;

  /* the guest's status is read from its console: a scratch file if the
   * caller keeps none (removed with the run's folder) */
  snprintf (scratch, sizeof scratch, "%s/console.txt", r->rt);
  const char *console = cfg->console_path ? cfg->console_path : scratch;

  mount_options (cfg, opts, sizeof opts, &commit_s);
  memset (&vc, 0, sizeof vc);
  for (size_t i = 0; i < cfg->nsysctls && i < 16; i++) {
    snprintf (knob[i], sizeof knob[i], "%s=%s", cfg->sysctls[i].name, cfg->sysctls[i].value);
    knobs[i] = knob[i];
  }
  vc.knobs = knobs;
  vc.nknobs = cfg->nsysctls < 16 ? cfg->nsysctls : 16;
  vc.self = cfg->self;
  vc.kernel = cfg->kernel;
  vc.modules = cfg->modules;
  vc.programs = cfg->programs;
  vc.nbd_sock = r->sock;
  vc.ctl_sock = r->ctl;
  vc.fs = cfg->fs;
  vc.mkfs_opts = mkfs_options (cfg);
  vc.made = cfg->base_path != NULL;
  vc.mount_opts = opts;
  vc.workload = cfg->workload ? cfg->workload->name : NULL;
  vc.script = cfg->workload ? NULL : cfg->command[0];
  vc.script_args = cfg->workload ? NULL : cfg->command + 1;
  vc.traced = cfg->traced;
  vc.acks = cfg->workload ? "none" : cfg->acks ? cfg->acks->spec : NULL;
  vc.seed = cfg->seed;
  vc.files = cfg->files;
  vc.commit_s = commit_s;
  vc.settle_ms = settle_ms (cfg, commit_s);
  vc.seconds = cfg->seconds;
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

/* r's private directory and the paths in it.  r->cfg is set. */
static int
init_dir (struct run *r)
{
  /* $TMPDIR if socket paths under it stay short enough, else /tmp. */
  const char *t = getenv ("TMPDIR");

  if (t == NULL || *t != '/' || strlen (t) > 48)
    t = "/tmp";
  snprintf (r->rt, sizeof r->rt, "%s/powercut-run.XXXXXX", t);
  if (mkdtemp (r->rt) == NULL) {
    int e = errno;
    r->rt[0] = '\0';
    return pc_run_fail (r, e, "%s: %s", t, strerror (e));
  }
  /* others may pass through to the mount point (a command that drops
   * privileges, as a database server's does), not list what is here */
  chmod (r->rt, 0711);
  snprintf (r->sock, sizeof r->sock, "%s/nbd.sock", r->rt);
  snprintf (r->ctl, sizeof r->ctl, "%s/control.sock", r->rt);
  snprintf (r->fusedir, sizeof r->fusedir, "%s/fuse", r->rt);
  snprintf (r->mnt, sizeof r->mnt, "%s/mnt", r->rt);
  snprintf (r->pidfile, sizeof r->pidfile, "%s/record.pid", r->rt);
  return 0;
}

/* Has another device of r's set attached dev (its client may not have
 * shown in sysfs yet)? */
static bool
taken (const char *dev, void *arg)
{
  const struct run *r = arg;

  for (size_t i = 0; i < r->nset; i++)
    if (&r->set[i] != r && strcmp (r->set[i].at.dev, dev) == 0)
      return true;
  return false;
}

/* The recorder started (already, with started), the device attached, its
 * filesystem made and mounted with opts, and the mark "mkfs" placed. */
static int
setup_device (struct run *r, enum pc_attach attach, bool started, const char *opts)
{
  const struct pc_run_config *cfg = r->cfg;
  struct pc_err err;
  int e;

  if (pc_fs_find (cfg->fs) && !pc_fs_kernel_has (pc_fs_find (cfg->fs)))
    return pc_run_fail (r, ENODEV, "this machine's kernel has no %s (/proc/filesystems): "
                        "record it in a qemu guest (--attach vm)", cfg->fs);
  e = started ? 0 : start_recorder (r);
  if (e < 0)
    return e;
  r->attach = pc_attach_of (attach);
  if (r->attach == NULL || !r->attach->here)
    return pc_run_fail (r, EINVAL, "a device attached here, not as %s",
                        r->attach ? r->attach->name : "that");
  r->at.sock = r->sock;
  r->at.fusedir = r->fusedir;
  /* a base image was made on a file, whose sectors are 512 bytes (XFS
   * then has 512-byte sectors, which a device of 4 KiB blocks refuses to
   * mount: "Function not implemented") */
  r->at.block_size = cfg->base_path ? 512 : 4096;
  r->at.taken = taken;
  r->at.taken_arg = r;
  e = r->attach->attach (&r->at, &err);
  if (e < 0)
    return pc_run_fail (r, -e, "%s", err.msg);
  status (r, "%s%sattached as %s (%s)", r->name ? r->name : "", r->name ? ": " : "", r->at.dev,
          r->attach->name);
  e = cfg->base_path && !r->name ? 0 : make_fs (r);
  if (e < 0)
    return e;
  if (mkdir (r->mnt, 0700) < 0)
    return pc_run_fail (r, errno, "%s: %s", r->mnt, strerror (errno));
  {
    char *argv[] = { "mount", "-t", (char *) cfg->fs, "-o", (char *) opts, r->at.dev, r->mnt, NULL };
    if (opts[0] == '\0') {
      argv[3] = r->at.dev;
      argv[4] = r->mnt;
      argv[5] = NULL;
    }
    e = pc_run_cmd (r, argv);
    if (e < 0)
      return e;
    r->mounted = true;
  }
  status (r, "%s%smkfs.%s, mounted with %s", r->name ? r->name : "", r->name ? ": " : "", cfg->fs,
          opts[0] ? opts : "defaults");
  {
    struct pc_err mwhy;
    e = pc_control_mark (r->ctl, "mkfs", r->mnt, true, NULL, 0, 120000, &mwhy);
    if (e < 0)
      return pc_run_fail (r, -e, "mark mkfs: %s", mwhy.msg);
  }
  return 0;
}

/* Sets the writeback knobs (first) or puts them back (last). */
static int
knobs (struct run *r, bool set)
{
  const struct pc_run_config *cfg = r->cfg;
  struct pc_err swhy;
  int e;

  if (cfg->nsysctls == 0)
    return 0;
  if (!set) {
    e = pc_sysctl_release (cfg->sysctls, cfg->nsysctls, &cfg->sysctl_host, &swhy);
    return e < 0 ? pc_run_fail (r, -e, "%s (recorded in %s)", swhy.msg,
                         cfg->sysctl_host.dir ? cfg->sysctl_host.dir : PC_SYSCTL_DIR) : 0;
  }
  /* The writeback knobs are the machine's: put back in any case. */
  e = pc_sysctl_apply (cfg->sysctls, cfg->nsysctls, &cfg->sysctl_host, cfg->sysctl_waiting,
                       cfg->sysctl_waiting_ctx, &swhy);
  if (e == -EINTR)
    return pc_run_fail (r, EINTR, "interrupted");
  if (e < 0)
    return pc_run_fail (r, -e, "setting %s", swhy.msg);
  for (size_t i = 0; i < cfg->nsysctls; i++)
    status (r, "%s=%s (was %s, put back afterwards)", cfg->sysctls[i].name,
            cfg->sysctls[i].value, cfg->sysctls[i].old);
  return 0;
}

/* The mark name in every log of the set: with sync, synced with the
 * manifest of its mount point (as "end"), else alone. */
static int
mark_each (struct run *rs, size_t n, const char *name, bool sync)
{
  for (size_t i = 0; i < n; i++) {
    struct pc_err mwhy;
    int e = pc_control_mark (rs[i].ctl, name, sync ? rs[i].mnt : NULL, sync, NULL, 0, 120000,
                             &mwhy);
    if (e < 0)
      return pc_run_fail (&rs[0], -e, "mark %s%s%s: %s", name, rs[i].name ? " in " : "",
                          rs[i].name ? rs[i].name : "", mwhy.msg);
  }
  return 0;
}

/* After the workload, in every log of the set: where it ended, then the
 * settle (the filesystem left to the kernel, as on a machine that runs
 * on), and where powercut's own sync and unmount begin (format/mark.h),
 * so that a check can tell the crash points after the command from the
 * command's.  Interruptible. */
static int
after_workload (struct run *rs, size_t n, long ms)
{
  uint64_t until;
  int e = mark_each (rs, n, PC_MARK_COMMAND_END, false);

  if (e < 0)
    return e;
  if (ms > 0)
    status (&rs[0], "settling %.1f s after the workload, before powercut's own sync",
            ms / 1000.0);
  until = pc_now_mono_ns () + (uint64_t) ms * 1000000u;
  for (uint64_t now = pc_now_mono_ns (); now < until; now = pc_now_mono_ns ()) {
    long left = (long) ((until - now + 999999) / 1000000);
    if (pc_interrupted ())
      return pc_run_fail (&rs[0], EINTR, "interrupted");
    pc_run_msleep (left < 50 ? left : 50);
  }
  return mark_each (rs, n, PC_MARK_SETTLE_END, false);
}

const char *const pc_phase_names[PC_NPHASES] = {
  "recorder", "attach", "workload", "end", "check",
};

/* Adds the time since *t to phase p of cfg's phases (if it has them),
 * and restarts *t. */
static void
lap (const struct pc_run_config *cfg, enum pc_phase p, uint64_t *t)
{
  uint64_t now = pc_now_mono_ns ();

  if (cfg->phases)
    cfg->phases->s[p] += (double) (now - *t) / 1e9;
  *t = now;
}

static int
record_once (const struct pc_run_config *cfg, struct pc_err *why)
{
  uint64_t t = pc_now_mono_ns ();
  struct run r;
  char opts[512];
  unsigned commit_s;
  enum pc_attach attach;
  cpu_set_t cpus;
  bool pinned = false, knobs_set = false;
  int e;

  memset (&r, 0, sizeof r);
  r.cfg = cfg;
  r.set = &r;
  r.nset = 1;
  r.why.msg[0] = '\0';
  e = init_dir (&r);
  if (e < 0)
    goto out;
  status (&r, "recording to %s", cfg->log_path);
  attach = cfg->attach == PC_ATTACH_AUTO ? pc_attach_pick () : cfg->attach;
  if (cfg->attach == PC_ATTACH_AUTO && !cfg->base_path && pc_fs_find (cfg->fs) &&
      !pc_fs_kernel_has (pc_fs_find (cfg->fs))) {
    attach = PC_ATTACH_VM;
    status (&r, "this machine's kernel has no %s (/proc/filesystems): recording in a qemu "
            "guest, as --attach vm does", cfg->fs);
  }
  if (attach != PC_ATTACH_VM && pc_fs_find (cfg->fs) && !pc_fs_kernel_has (pc_fs_find (cfg->fs))) {
    e = pc_run_fail (&r, ENODEV, "this machine's kernel has no %s (/proc/filesystems): record "
                     "it in a qemu guest (--attach vm)", cfg->fs);
    goto out;
  }
  r.attach = pc_attach_of (attach);
  if (r.attach == NULL) {
    e = pc_run_fail (&r, EINVAL, "no way to attach the device");
    goto out;
  }
  /* A traced workload here: it, the tracer, the recorder and nbdfuse on
   * one CPU, where every event's round trip is a context switch, not a
   * wake-up of another CPU (traced.h); they inherit it from this process,
   * which gets its own CPUs back at the end. */
  pinned = cfg->traced && !cfg->all_cpus && r.attach->here &&
           sched_getaffinity (0, sizeof cpus, &cpus) == 0 && pin_here ();
  e = start_recorder (&r);
  lap (cfg, PC_PHASE_RECORDER, &t);
  if (e < 0)
    goto out;
  if (!r.attach->here) {
    e = run_vm (&r);
    lap (cfg, PC_PHASE_WORKLOAD, &t);
    goto out;
  }
  mount_options (cfg, opts, sizeof opts, &commit_s);
  e = knobs (&r, true);
  knobs_set = e == 0;
  if (e == 0)
    e = setup_device (&r, attach, true, opts);
  lap (cfg, PC_PHASE_ATTACH, &t);
  if (e == 0) {
    status (&r, "running %s", cfg->workload ? cfg->workload->name : cfg->command[0]);
    e = pc_run_workload (&r, commit_s);
  }
  if (e == 0)
    e = check_mounted (&r);
  lap (cfg, PC_PHASE_WORKLOAD, &t);
  if (e == 0)
    e = after_workload (&r, 1, settle_ms (cfg, commit_s));
  if (e == 0 && !cfg->workload)
    e = mark_each (&r, 1, "end", true);
out:
  if (r.rt[0])
    teardown (&r);
  if (pinned)
    sched_setaffinity (0, sizeof cpus, &cpus);
  if (knobs_set) {
    int se = knobs (&r, false);
    e = e ? e : se;
  }
  lap (cfg, PC_PHASE_END, &t);
  if (e == 0 && pc_interrupted ())
    e = pc_run_fail (&r, EINTR, "interrupted");
  if (e < 0)
    pc_err_set (why, -e, "%s", r.why.msg[0] ? r.why.msg : strerror (-e));
  return e;
}

/* Several devices, one power cut: each set up as one device is, in
 * order, the command run with every mount point and control socket, and
 * all torn down again in reverse. */
static int
record_set (const struct pc_run_config *cfg, struct pc_err *why)
{
  size_t n = cfg->ndevices, up = 0, bad = cfg->ndevices;  /* the device that failed */
  struct run *rs = calloc (n, sizeof *rs);
  struct pc_run_config *dc = calloc (n, sizeof *dc);
  enum pc_attach attach = cfg->attach == PC_ATTACH_AUTO ? pc_attach_pick () : cfg->attach;
  char opts[512];
  unsigned commit_s;
  bool knobs_set = false;
  int e = 0;

  if (rs == NULL || dc == NULL) {
    free (rs);
    free (dc);
    return pc_err_set (why, ENOMEM, "%s", strerror (ENOMEM));
  }
  for (size_t i = 0; i < n; i++) {
    const struct pc_run_device *d = &cfg->devices[i];
    dc[i] = *cfg;
    dc[i].size = d->size;
    dc[i].log_path = d->log_path;
    dc[i].fs = d->fs ? d->fs : cfg->fs;
    dc[i].mkfs_opts = d->mkfs_opts ? d->mkfs_opts : cfg->mkfs_opts;
    dc[i].traced = false;       /* the tracer follows one filesystem */
    rs[i].cfg = &dc[i];
    rs[i].name = d->name;
    rs[i].set = rs;
    rs[i].nset = n;
  }
  mount_options (cfg, opts, sizeof opts, &commit_s);
  status (&rs[0], "recording %zu devices to %s, ...", n, cfg->devices[0].log_path);
  e = knobs (&rs[0], true);
  knobs_set = e == 0;
  for (; e == 0 && up < n; up++) {
    e = init_dir (&rs[up]);
    if (e == 0)
      e = setup_device (&rs[up], attach, false, opts);
    if (e < 0)
      bad = up;
  }
  if (e == 0) {
    status (&rs[0], "running %s", cfg->command[0]);
    e = pc_run_workload (&rs[0], commit_s);
  }
  for (size_t i = 0; e == 0 && i < n; i++)
    if ((e = check_mounted (&rs[i])) < 0)
      bad = i;
  if (e == 0)
    e = after_workload (rs, n, settle_ms (cfg, commit_s));
  if (e == 0)
    e = mark_each (rs, n, "end", true);
  while (up-- > 0)
    if (rs[up].rt[0])
      teardown (&rs[up]);
  if (knobs_set) {
    int se = knobs (&rs[0], false);
    e = e ? e : se;
  }
  if (e == 0 && pc_interrupted ())
    e = pc_run_fail (&rs[0], EINTR, "interrupted");
  if (e < 0 && bad < n)
    pc_err_set (why, -e, "%s: %s", rs[bad].name, rs[bad].why.msg[0] ? rs[bad].why.msg
                                                                    : strerror (-e));
  else if (e < 0)
    pc_err_set (why, -e, "%s", rs[0].why.msg[0] ? rs[0].why.msg : strerror (-e));
  free (rs);
  free (dc);
  return e;
}

int
pc_run_record (const struct pc_run_config *cfg, struct pc_err *why)
{
  int e;

  if (cfg->ndevices > 0)
    return record_set (cfg, why);
  e = record_once (cfg, why);

  /* A guest that died without a word (an emulator or guest kernel crash,
   * not the workload) left a partial recording: record once more, anew. */
  if (e == -ECHILD && !pc_interrupted ()) {
    if (cfg->status)
      cfg->status (cfg->status_ctx, "the guest stopped without reporting; recording again");
    e = record_once (cfg, why);
  }
  return e;
}
