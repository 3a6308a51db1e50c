/* cmd-run.c: powercut run: record a workload on a fresh filesystem for each
 * configuration, check every crash point, and compare. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "fs/fs.h"
#include "run/plan.h"
#include "run/repeated.h"
#include "util/args.h"
#include "util/proc.h"
#include "util/util.h"


static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut run [OPTION]... [--workload NAME | -- COMMAND [ARG]...]\n"
"\n"
"Record a workload on a freshly made filesystem through powercut's recorder,\n"
"then check every crash point and report.  Several --fs or --mount-opts\n"
"give several configurations (every --fs with every --mount-opts), as does\n"
"each --config; they are recorded and checked one after the other and\n"
"compared in one table.\n"
"\n"
"With no arguments: replace-rename on ext4 with default options,\n"
"noauto_da_alloc, data=writeback and data=journal, and on ext3.\n"
"\n"
"  -w, --workload NAME   a built-in workload (see --list-workloads)\n"
"      --list-workloads  list the built-in workloads\n"
"  -t, --fs FS           %s (default ext4;\n"
"                        repeatable)\n"
"      --mkfs-opts S     mkfs options (default: -b 4096, eager inode tables)\n"
"  -o, --mount-opts S    mount options ('' for defaults; repeatable); unless\n"
"                        they say, a built-in workload adds the commit= it\n"
"                        wants (1; 300 for random; none for steady)\n"
"  -c, --config SPEC     one configuration: 'FS [MOUNT-OPTS] [vm.dirty_K=V]...'\n"
"                        (repeatable), e.g. 'ext4 noauto_da_alloc' or\n"
"                        'ext4 vm.dirty_expire_centisecs=500': writeback knobs\n"
"                        are set in the guest with --attach vm, else on this\n"
"                        machine while recording, and put back afterwards\n"
"                        (shared with runs beside it: see powercut-run(1))\n"
"  -s, --size SIZE       device size (default: the filesystem's, 128M for\n"
"                        ext2/3/4, btrfs and f2fs, 320M for xfs)\n"
"      --base IMAGE      the device starts as a copy of IMAGE, a filesystem\n"
"                        of the configuration made already (what explore's\n"
"                        bases/cK.img holds): no mkfs, the log starts from it\n"
"                        (check and replay it with --base IMAGE)\n"
"      --device NAME:SIZE[:FS[:MKFS-OPTS]]  several devices, one power cut\n"
"                        (repeatable): each recorded into DIR/set/NAME.pclog,\n"
"                        attached, made (FS and MKFS-OPTS: the configuration's\n"
"                        unless given) and mounted; the COMMAND (not traced)\n"
"                        gets POWERCUT_MNT_NAME and POWERCUT_CONTROL_NAME for\n"
"                        each, and every instant is checked as by 'powercut\n"
"                        check DIR/set' (see powercut-run(1))\n"
"      --attach HOW      auto (default), nbd (nbd-client, /dev/nbdX), fuse\n"
"                        (nbdfuse and a loop device) or vm (a qemu guest whose\n"
"                        kernel attaches /dev/nbd0 itself: real FUA, any kernel)\n"
"      --kernel FILE     with vm or --judge guest: the kernel to boot (default: the\n"
"                        newest in /boot)\n"
"      --modules DIR     with vm or --judge guest: its modules (default\n"
"                        /lib/modules/VERSION)\n"
"      --program PROG    with vm: copy this program (name in PATH, or path) and its\n"
"                        libraries into the guest, for the workload (repeatable)\n"
"      --connections N   with vm: NBD connections the guest opens (default 1)\n"
"  -m, --model MODEL     crash model for the check (default flush)\n"
"      --seed N          seed of the random workload and of sampled models\n"
"      --files N         files the workload uses (default 20)\n"
"      --seconds N       how long a timed workload writes (steady: default 60,\n"
"                        rename-over: 20)\n"
"  -j, --jobs N          checking processes (default: the number of CPUs)\n"
"  -O, --out DIR         output directory (default powercut-out)\n"
"      --repeat N        record and check each configuration N times (1 to\n"
"                        100, default 1): one run is one sample of the\n"
"                        kernel's timing; each run in DIR/run-K, and a report\n"
"                        over them (each finding 'seen in K of N runs')\n"
"      --timeout S       the workload's time limit in seconds (default 300)\n"
"      --settle S        how long the filesystem stays mounted after the\n"
"                        workload, before powercut's own sync and unmount, so\n"
"                        that the kernel's writeback of a machine that runs on\n"
"                        is recorded (seconds; default: after a COMMAND, the\n"
"                        journal commit interval plus one, 6 with ext4's\n"
"                        default commit=5; after a built-in workload, 0)\n"
"      --verify CMD      check the application's data too: see powercut-check(1)\n"
"      --trace, --no-trace  run the workload under powercut trace, so that its\n"
"                        calls are in the log (default: a COMMAND is traced, a\n"
"                        built-in workload, which places its own marks, is not)\n"
"      --acks WHICH      which lines a traced COMMAND prints acknowledge:\n"
"                        stdout (every one, the default), none, or those an\n"
"                        extended regular expression matches\n"
"      --all-cpus        a traced workload may run on every CPU (default: the\n"
"                        tracer's, where each traced call costs least)\n"
"      --judge WHO       who recovers and reads each crash state: auto (default),\n"
"                        ext2fs, kernel, both or guest (the check in a qemu\n"
"                        guest, by its kernel: see powercut-check(1))\n"
"      --recovery-crashes\n"
"                        also cut the power during the kernel's recovery of\n"
"                        each state (see powercut-check(1))\n"
"      --fail-on WHAT    exposure (default: any lost data fails), program (the\n"
"                        program's fault or the filesystem's: a durable version\n"
"                        given up, or a broken promise) or promises (only the\n"
"                        filesystem's: durable data lost, corrupt)\n"
"  -q, --quiet           no progress lines on stderr\n"
"  -h, --help            show this help\n"
"\n"
"A COMMAND runs in the mounted filesystem with POWERCUT_MNT (the mount\n"
"point), POWERCUT_CONTROL (the control socket) and POWERCUT (this program)\n"
"in its environment, and may call 'powercut mark' itself.  Needs root.\n"
"Output: DIR/powercut.log, report.txt, report.json, report.html, workload.txt (one\n"
"directory per configuration when there are several, and the comparison\n"
"in DIR/report.txt).  Exit status: 0 no problem, 1 problems found (in any\n"
"run), 2 error (in any run).\n",
           pc_fs_names (false));
}

static void
status_line (void *ctx, const char *line)
{
  const char *label = ctx;

  fprintf (stderr, "powercut run: %s: %s\n", label, line);
}

static void
check_progress (void *ctx, size_t done, size_t total, double secs)
{
  (void) ctx;
  fprintf (stderr, "\rchecking %zu/%zu crash states (%.0f s) ", done, total, secs);
  if (done == total)
    fputc ('\n', stderr);
}

/* run.h's sysctl_waiting: one line on stderr, even with --quiet (the run
 * seems to hang otherwise). */
static void
sysctl_waiting (void *ctx, const char *name, long pid)
{
  (void) ctx;
  cmd_err ("run", "%s is held by another run (pid %ld) with another value: waiting", name, pid);
}

/* The problem callback (configs.h): one line on stderr. */
static void
problem_line (void *ctx, const char *line)
{
  (void) ctx;
  cmd_err ("run", "%s", line);
}

enum { OPT_LIST = 256, OPT_MKFS, OPT_ATTACH, OPT_SEED, OPT_FILES, OPT_TIMEOUT, OPT_KERNEL,
       OPT_MODULES, OPT_CONNS, OPT_VERIFY, OPT_SECONDS, OPT_TRACE, OPT_NO_TRACE, OPT_FAIL_ON,
       OPT_ALL_CPUS, OPT_BASE, OPT_DEVICE, OPT_PROGRAM, OPT_SETTLE, OPT_JUDGE,
       OPT_RECOVERY_CRASHES, OPT_ACKS, OPT_REPEAT };
static const struct option opts[] = {
  { "workload", required_argument, NULL, 'w' },
  { "list-workloads", no_argument, NULL, OPT_LIST },
  { "fs", required_argument, NULL, 't' },
  { "mkfs-opts", required_argument, NULL, OPT_MKFS },
  { "mount-opts", required_argument, NULL, 'o' },
  { "config", required_argument, NULL, 'c' },
  { "seconds", required_argument, NULL, OPT_SECONDS },
  { "size", required_argument, NULL, 's' },
  { "base", required_argument, NULL, OPT_BASE },
  { "device", required_argument, NULL, OPT_DEVICE },
  { "attach", required_argument, NULL, OPT_ATTACH },
  { "kernel", required_argument, NULL, OPT_KERNEL },
  { "modules", required_argument, NULL, OPT_MODULES },
  { "program", required_argument, NULL, OPT_PROGRAM },
  { "connections", required_argument, NULL, OPT_CONNS },
  { "model", required_argument, NULL, 'm' },
  { "seed", required_argument, NULL, OPT_SEED },
  { "files", required_argument, NULL, OPT_FILES },
  { "jobs", required_argument, NULL, 'j' },
  { "out", required_argument, NULL, 'O' },
  { "repeat", required_argument, NULL, OPT_REPEAT },
  { "timeout", required_argument, NULL, OPT_TIMEOUT },
  { "settle", required_argument, NULL, OPT_SETTLE },
  { "judge", required_argument, NULL, OPT_JUDGE },
  { "recovery-crashes", no_argument, NULL, OPT_RECOVERY_CRASHES },
  { "verify", required_argument, NULL, OPT_VERIFY },
  { "trace", no_argument, NULL, OPT_TRACE },
  { "no-trace", no_argument, NULL, OPT_NO_TRACE },
  { "all-cpus", no_argument, NULL, OPT_ALL_CPUS },
  { "acks", required_argument, NULL, OPT_ACKS },
  { "fail-on", required_argument, NULL, OPT_FAIL_ON },
  { "quiet", no_argument, NULL, 'q' },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

/* What the command line gives. */
struct args {
  struct pc_run_options o;
  struct pc_run_job job;
  const char *wname;
  int trace;                    /* --trace 1, --no-trace 0, neither -1 */
  bool quiet;
  char verify[8192];            /* --verify, its program named from here */
  struct pc_acksel acks;        /* --acks */
  struct pc_run_device devices[PC_MAX_DEVICES];        /* --device */
  char devspec[PC_MAX_DEVICES][512];
  bool sized;                   /* --size given */
  char *progs[33];              /* --program, NULL-terminated */
  size_t nprogs;
};

/* A number option: --seed (any), --files, --timeout, --seconds, --jobs
 * (1 to 100000), --repeat (1 to PC_MAX_REPEAT). */
static int
number_option (int c, const char *arg, struct args *a)
{
  struct pc_run_config *rc = &a->job.each.run;
  unsigned long v;
  char *end;

  errno = 0;
  v = strtoul (arg, &end, 10);
  if (errno || *end || arg[0] < '0' || arg[0] > '9' ||
      (c != OPT_SEED && (v == 0 || v > 100000))) {
    cmd_err ("run", "%s: not a %snumber", arg, c == OPT_SEED ? "" : "positive ");
    return EXIT_ERROR;
  }
  if (c == OPT_REPEAT && v > PC_MAX_REPEAT) {
    cmd_err ("run", "--repeat %s: not a number from 1 to %d", arg, PC_MAX_REPEAT);
    return EXIT_ERROR;
  }
  if (c == OPT_SEED)
    rc->seed = a->job.each.check.model.seed = v;
  else if (c == OPT_FILES)
    rc->files = (unsigned) v;
  else if (c == OPT_TIMEOUT)
    rc->timeout_s = (int) v;
  else if (c == OPT_SECONDS)
    rc->seconds = (unsigned) v;
  else if (c == OPT_REPEAT)
    a->o.repeat = (unsigned) v;
  else
    a->job.each.check.jobs = (unsigned) v;
  return -1;
}

static int
attach_option (const char *arg, struct pc_run_config *rc)
{
  static const char *const names[] = { "auto", "nbd", "fuse", "vm" };
  static const enum pc_attach how[] = { PC_ATTACH_AUTO, PC_ATTACH_NBD, PC_ATTACH_FUSE,
                                        PC_ATTACH_VM };

  for (size_t i = 0; i < PC_ARRAY_SIZE (names); i++)
    if (strcmp (arg, names[i]) == 0) {
      rc->attach = how[i];
      return -1;
    }
  cmd_err ("run", "--attach %s: not auto, nbd, fuse or vm", arg);
  return EXIT_ERROR;
}

/* --device NAME:SIZE[:FS[:MKFS-OPTS]]: -1 to go on, or an exit status. */
static int
device_option (const char *arg, struct args *a)
{
  struct pc_run_config *rc = &a->job.each.run;
  size_t n = rc->ndevices;
  struct pc_run_device *d = &a->devices[n];
  char *s = a->devspec[n], *size, *fs, *mkfs;

  if (n >= PC_MAX_DEVICES) {
    cmd_err ("run", "--device: at most %d devices", PC_MAX_DEVICES);
    return EXIT_ERROR;
  }
  snprintf (s, sizeof a->devspec[n], "%s", arg);
  size = strchr (s, ':');
  if (size)
    *size++ = '\0';
  fs = size ? strchr (size, ':') : NULL;
  if (fs)
    *fs++ = '\0';
  mkfs = fs ? strchr (fs, ':') : NULL;
  if (mkfs)
    *mkfs++ = '\0';
  memset (d, 0, sizeof *d);
  if (size == NULL || *s == '\0' || strlen (s) > 32 ||
      strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen (s) ||
      pc_parse_size (size, &d->size) < 0 || d->size < (UINT64_C(16) << 20) ||
      d->size > (UINT64_C(1) << 40) || d->size % 4096 ||
      (fs && *fs && !(pc_fs_find (fs) && pc_fs_find (fs)->libext2fs))) {
    cmd_err ("run", "--device %s: not NAME:SIZE[:FS[:MKFS-OPTS]] (NAME letters, digits and _; "
             "SIZE from 16M to 1T in whole 4K blocks; FS %s)", arg, pc_fs_names (true));
    return EXIT_ERROR;
  }
  for (size_t i = 0; i < n; i++)
    if (strcmp (a->devices[i].name, s) == 0) {
      cmd_err ("run", "--device %s: %s named twice", arg, s);
      return EXIT_ERROR;
    }
  d->name = s;
  d->fs = fs && *fs ? fs : NULL;
  d->mkfs_opts = mkfs && *mkfs ? mkfs : NULL;
  rc->devices = a->devices;
  rc->ndevices = n + 1;
  return -1;
}

/* What --device rules out: -1 to go on, or an exit status. */
static int
devices_check (struct args *a)
{
  const struct pc_run_config *rc = &a->job.each.run;
  const char *bad = NULL;

  if (rc->ndevices == 0)
    return -1;
  if (rc->command == NULL)
    bad = "a built-in workload (give a command)";
  else if (rc->attach == PC_ATTACH_VM)
    bad = "--attach vm (see powercut vm)";
  else if (a->sized)
    bad = "--size (each device has its own)";
  else if (rc->base_path)
    bad = "--base (each device is made)";
  else if (a->trace == 1)
    bad = "--trace (the tracer follows one filesystem)";
  else if (a->job.each.check.judge == PC_JUDGE_GUEST)
    bad = "--judge guest (a guest checks one log)";
  if (bad == NULL)
    return -1;
  cmd_err ("run", "--device does not go with %s", bad);
  return pc_usage_error ("run");
}

/* Options that say how to record: -1 to go on, or an exit status. */
static int
record_option (int c, const char *arg, struct args *a)
{
  struct pc_run_config *rc = &a->job.each.run;
  struct pc_err err;
  char *end;
  double v;
  int r = 0;

  switch (c) {
  case 't': r = pc_run_opt_fs (&a->o, arg, &err); break;
  case 'o': r = pc_run_opt_mount_opts (&a->o, arg, &err); break;
  case 'c': r = pc_run_opt_config (&a->o, arg, &err); break;
  case OPT_MKFS: rc->mkfs_opts = arg; break;
  case OPT_BASE:
    if (access (arg, R_OK) < 0) {
      cmd_err ("run", "--base %s: %s", arg, strerror (errno));
      return EXIT_ERROR;
    }
    rc->base_path = arg;
    break;
  case OPT_KERNEL: rc->kernel = arg; break;
  case OPT_MODULES: rc->modules = arg; break;
  case OPT_PROGRAM:
    if (a->nprogs + 1 >= PC_ARRAY_SIZE (a->progs)) {
      cmd_err ("run", "--program %s: more than %zu programs", arg, PC_ARRAY_SIZE (a->progs) - 1);
      return EXIT_ERROR;
    }
    a->progs[a->nprogs++] = (char *) arg;
    rc->programs = a->progs;
    break;
  case OPT_ATTACH: return attach_option (arg, rc);
  case OPT_DEVICE: return device_option (arg, a);
  case 's':
    a->sized = true;
    /* check keeps the device, and a signature per 4K block, in memory:
     * past 1 TiB that is more than a machine is likely to have. */
    if (pc_parse_size (arg, &rc->size) < 0 || rc->size < (UINT64_C(16) << 20) ||
        rc->size > (UINT64_C(1) << 40) || rc->size % 4096) {
      cmd_err ("run", "--size %s: not a size from 16M to 1T in whole 4K blocks", arg);
      return EXIT_ERROR;
    }
    break;
  case OPT_SETTLE:
    /* seconds, to the millisecond: digits and a decimal point, no sign,
     * exponent or hex that strtod would take */
    if (arg[0] < '0' || arg[0] > '9' || strspn (arg, "0123456789.") != strlen (arg) ||
        (v = strtod (arg, &end), *end) || v > PC_RUN_SETTLE_MAX_S) {
      cmd_err ("run", "--settle %s: not a number of seconds from 0 to %d", arg,
               PC_RUN_SETTLE_MAX_S);
      return EXIT_ERROR;
    }
    rc->settle_ms = (long) (v * 1000 + 0.5);
    break;
  case OPT_CONNS:
    rc->connections = (unsigned) strtoul (arg, &end, 10);
    if (*end || rc->connections < 1 || rc->connections > 16) {
      cmd_err ("run", "--connections %s: not a number from 1 to 16", arg);
      return EXIT_ERROR;
    }
    break;
  default: return number_option (c, arg, a);
  }
  if (r < 0) {
    cmd_err ("run", "%s", err.msg);
    return EXIT_ERROR;
  }
  return -1;
}

/* One option: -1 to go on, or an exit status. */
static int
option (int c, const char *arg, struct args *a)
{
  struct pc_check_config *cc = &a->job.each.check;

  switch (c) {
  case 'w': a->wname = arg; break;
  case OPT_LIST: {
    size_t nw;
    const struct pc_workload *w = pc_workloads (&nw);
    for (size_t i = 0; i < nw; i++)
      printf ("%-24s %s\n", w[i].name, w[i].what);
    return EXIT_OK;
  }
  case OPT_VERIFY:
    if (*arg == '\0') {
      cmd_err ("run", "--verify: an empty command");
      return EXIT_ERROR;
    }
    cc->verify = pc_command_here (arg, a->verify, sizeof a->verify);
    break;
  case 'm':
    if (pc_model_spec_parse (arg, &cc->model, NULL) < 0) {
      char names[256];
      cmd_err ("run", "--model %s: not %s", arg, pc_model_names (names, sizeof names));
      return EXIT_ERROR;
    }
    break;
  case 'O': a->o.out = arg; break;
  case OPT_TRACE: a->trace = 1; break;
  case OPT_FAIL_ON:
    if (pc_fail_on_parse (arg, &a->job.fail_on) < 0) {
      cmd_err ("run", "--fail-on %s: not exposure, program or promises", arg);
      return pc_usage_error ("run");
    }
    break;
  case OPT_NO_TRACE: a->trace = 0; break;
  case OPT_JUDGE: {
    int m = pc_judge_mode_parse (arg);
    if (m < 0) {
      cmd_err ("run", "--judge %s: not auto, ext2fs, kernel, both or guest", arg);
      return pc_usage_error ("run");
    }
    cc->judge = (enum pc_judge_mode) m;
    break;
  }
  case OPT_RECOVERY_CRASHES: cc->recovery_crashes = true; break;
  case OPT_ALL_CPUS: a->job.each.run.all_cpus = true; break;
  case OPT_ACKS: {
    struct pc_err err;
    pc_acksel_free (&a->acks);
    if (pc_acksel_parse (arg, &a->acks, &err) < 0) {
      cmd_err ("run", "%s", err.msg);
      return pc_usage_error ("run");
    }
    a->job.each.run.acks = cc->acks = &a->acks;
    break;
  }
  case 'q': a->quiet = true; break;
  case 'h': usage (stdout); return EXIT_OK;
  case '?': return pc_usage_error ("run");
  default: return record_option (c, arg, a);
  }
  return -1;
}

/* The workload: a command, a built-in one by name, or replace-rename. */
static int
workload (int argc, char **argv, struct args *a)
{
  struct pc_run_config *rc = &a->job.each.run;

  a->o.named = optind < argc || a->wname;
  if (optind < argc) {
    if (a->wname) {
      cmd_err ("run", "give either --workload or a command, not both");
      return pc_usage_error ("run");
    }
    rc->command = argv + optind;
  }
  else {
    rc->workload = pc_workload_find (a->wname ? a->wname : "replace-rename");
    if (rc->workload == NULL) {
      cmd_err ("run", "--workload %s: no such workload (see --list-workloads)",
               a->wname ? a->wname : "replace-rename");
      return EXIT_ERROR;
    }
  }
  return -1;
}

/* powercut run, its arguments in a (zeroed). */
static int
run_main (int argc, char **argv, struct args *a)
{
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  const char *rd = getenv ("POWERCUT_RUN_DIR");
  struct pc_err err;
  int c, r;

  a->o.out = "powercut-out";
  a->trace = -1;
  a->job.each.run.size = 0;    /* the filesystem's default (fs.h) */
  a->job.each.run.timeout_s = 300;
  a->job.each.run.settle_ms = PC_RUN_SETTLE_DEFAULT;
  a->job.each.run.attach = PC_ATTACH_AUTO;
  a->job.each.check.model = (struct pc_model) { PC_MODEL_FLUSH, PC_MODEL_DEFAULT_K, 0 };
  a->job.each.check.jobs = ncpu > 0 ? (unsigned) ncpu : 1;
  while ((c = getopt_long (argc, argv, "+w:t:o:c:s:m:j:O:qh", opts, NULL)) != -1)
    if ((r = option (c, optarg, a)) >= 0)
      return r;
  a->job.each.check.model.seed = a->job.each.run.seed;
  if (a->nprogs && a->job.each.run.attach != PC_ATTACH_VM) {
    cmd_err ("run", "--program goes with --attach vm (on this machine the workload has its PATH)");
    return EXIT_ERROR;
  }
  if (a->job.each.run.base_path && (a->sized || a->job.each.run.mkfs_opts)) {
    cmd_err ("run", "--base does not go with %s", a->sized
             ? "--size (the image's is the device's)" : "--mkfs-opts (the image is made)");
    return EXIT_ERROR;
  }
  if ((r = workload (argc, argv, a)) >= 0 || (r = devices_check (a)) >= 0)
    return r;
  a->job.each.run.traced = a->trace >= 0 ? a->trace == 1 : a->job.each.run.command != NULL;
  a->job.each.run.status = a->quiet ? NULL : status_line;
  a->job.each.run.sysctl_waiting = sysctl_waiting;
  a->job.each.problem = problem_line;
  a->job.run_dir = rd;
  a->job.report = stdout;
  if (!a->quiet && isatty (2))
    a->job.progress = check_progress;
  pc_catch_stop_signals ();
  r = pc_run_all (&a->job, &a->o, &err);
  if (r < 0) {
    cmd_err ("run", "%s", err.msg);
    return EXIT_ERROR;
  }
  return r;
}

int
cmd_run (int argc, char **argv)
{
  static struct args a;         /* large: not on the stack */
  int r = run_main (argc, argv, &a);

  pc_acksel_free (&a.acks);
  return r;
}
