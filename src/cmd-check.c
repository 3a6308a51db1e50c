/* cmd-check.c: powercut check and powercut merge. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "check/checker.h"
#include "check/devcheck.h"
#include "oracle/oracle.h"
#include "replay/devset.h"
#include "report/outputs.h"
#include "run/gjudge.h"
#include "util/args.h"
#include "util/util.h"

static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut check LOG [OPTION]...\n"
"       powercut check DIR [OPTION]...\n"
"\n"
"Rebuild the disk at every crash point of LOG, recover its journal as a\n"
"reboot would, check it with e2fsck, and report the points where the\n"
"filesystem did not survive.  With a directory of logs (NAME.pclog each,\n"
"devices recorded in one boot), check every device's filesystem at every\n"
"instant one power cut may take them all (see powercut-log(5)).\n"
"\n"
"  -m, --model MODEL     the crash model (default %s; K <= %d, default %d):\n",
           pc_model_name (PC_MODEL_FLUSH), PC_MODEL_MAX_K, PC_MODEL_DEFAULT_K);
  pc_model_help (f, "                          ");
  fprintf (f,
"      --seed N          seed of the sampled reorder/torn states (default 0)\n"
"  -F, --from MARK       check from this mark on (default: the first mark)\n"
"  -j, --jobs N          checking processes (default: the number of CPUs)\n"
"      --json OUT        write the JSON report to OUT ('-': stdout)\n"
"      --html OUT        write the HTML report (a timeline) to OUT\n"
"      --shard I/N       check the I-th of N shares of the crash points (0-based;\n"
"                        also from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT,\n"
"                        or JOB_COMPLETION_INDEX with POWERCUT_SHARDS)\n"
"  -k, --keep DIR        save the images of failing states in DIR\n"
"  -b, --base IMAGE      the base image the recording started from\n"
"      --keep-trimmed    trimmed ranges keep their old data (default: zeros)\n"
"      --timeout S       time limit per program run on a state (default 60)\n"
"      --workdir DIR     scratch directory (default: $TMPDIR, /dev/shm or /tmp)\n"
"      --judge WHO       who recovers and reads each state: auto (default:\n"
"                        libext2fs and e2fsck, the kernel for what only it\n"
"                        replays as a reboot would: ext4 fast commits), ext2fs,\n"
"                        kernel (every state mounted from a loop device by\n"
"                        this machine's kernel; needs root), both (each\n"
"                        state both ways: where they disagree, the point is\n"
"                        recovery-differs; needs root), or guest (the whole\n"
"                        check in a qemu guest, each state mounted by its\n"
"                        kernel: nothing crashed is mounted here)\n"
"      --kernel FILE     guest: the kernel to boot (default: the newest\n"
"                        /boot/vmlinuz-*)\n"
"      --modules DIR     guest: its modules (default: /lib/modules/VERSION)\n"
"      --recovery-crashes\n"
"                        also cut the power during the kernel's recovery of\n"
"                        each state that needs one: its writes recorded in\n"
"                        LOG.recovery/, each of their flush points a state\n"
"                        ID/recovery:K (needs root; not with --judge ext2fs)\n"
"      --plain           the plain method, to compare with: e2fsck replays every\n"
"                        journal and checks every distinct image, every file is read\n"
"      --verify CMD      run CMD (sh -c) in the tree of every state whose filesystem\n"
"                        passes; failing, it makes the point app-invalid\n"
"      --acks WHICH      which lines a traced program printed acknowledge:\n"
"                        stdout (every one, the default), none, or those an\n"
"                        extended regular expression matches\n"
"      --ignore-events   judge files by the marks alone, not by a traced\n"
"                        program's calls\n"
"      --ignore-marks    judge files by a traced program's calls alone: of the\n"
"                        marks, only the first manifest (the tree before it)\n"
"      --fail-on WHAT    what fails the check: exposure (default: any crash\n"
"                        point that lost data, made durable or not), program\n"
"                        (the program's fault or the filesystem's: it gave up\n"
"                        a durable version before the new one was durable) or\n"
"                        promises (only the filesystem's: lost what was made\n"
"                        durable, corrupt, unmountable, or app-invalid where an\n"
"                        acknowledged update was lost)\n"
"  -q, --quiet           no text report on stdout\n"
"  -h, --help            show this help\n"
"\n"
"Exit status: 0 every crash point survived, 1 some did not, 2 error or some\n"
"point could not be checked.\n");
}

struct progress {
  uint64_t t0;
};

static void
show_progress (void *ctx, size_t done, size_t total)
{
  struct progress *p = ctx;
  double secs = (pc_now_mono_ns () - p->t0) / 1e9, rate = secs > 0 ? done / secs : 0;
  int width = 30, fill = total ? (int) ((double) done / total * width) : width;
  double eta = rate > 0 ? (total - done) / rate : 0;

  fprintf (stderr, "\r[%.*s%*s] %zu/%zu  %.1f/s  ETA %.0fs ",
           fill, "##############################", width - fill, "", done, total, rate, eta);
  if (done == total)
    fputc ('\n', stderr);
}

/* What the command line gives. */
struct args {
  struct pc_check_config cfg;
  struct pc_guest_judge guest;  /* --judge guest */
  struct pc_outputs out;
  bool shard_given;
  char verify[8192];            /* --verify, its program named from here */
  struct pc_acksel acks;        /* --acks */
};

enum { OPT_SEED = 256, OPT_JSON, OPT_HTML, OPT_SHARD, OPT_KEEP_TRIMMED, OPT_TIMEOUT,
       OPT_WORKDIR, OPT_PLAIN, OPT_VERIFY, OPT_FAIL_ON, OPT_IGNORE_EVENTS, OPT_IGNORE_MARKS,
       OPT_JUDGE, OPT_RECOVERY_CRASHES, OPT_KERNEL, OPT_MODULES, OPT_ACKS };

/* The options with a number or a model: -1 to go on, or an exit status. */
static int
value_option (int c, const char *arg, struct args *a)
{
  struct pc_check_config *cfg = &a->cfg;
  struct pc_err err;
  unsigned long v;
  uint64_t seed = cfg->model.seed;

  switch (c) {
  case 'm':
    if (pc_model_spec_parse (arg, &cfg->model, &err) < 0) {
      cmd_err ("check", "--model %s: %s", arg, err.msg);
      return EXIT_ERROR;
    }
    cfg->model.seed = seed;
    break;
  case OPT_SEED:
    if (pc_parse_uint (arg, ~0ul, &v) < 0) {
      cmd_err ("check", "--seed %s: not a number", arg);
      return EXIT_ERROR;
    }
    cfg->model.seed = v;
    break;
  case 'j':
    if (pc_parse_uint (arg, 1024, &v) < 0 || v == 0) {
      cmd_err ("check", "--jobs %s: not a number from 1 to 1024", arg);
      return EXIT_ERROR;
    }
    cfg->jobs = (unsigned) v;
    break;
  case OPT_SHARD:
    if (pc_parse_shard (arg, &cfg->shard, &cfg->nshards) < 0) {
      cmd_err ("check", "--shard %s: not I/N with 0 <= I < N", arg);
      return EXIT_ERROR;
    }
    a->shard_given = true;
    break;
  case OPT_TIMEOUT:
    if (pc_parse_uint (arg, 86400, &v) < 0 || v == 0) {
      cmd_err ("check", "--timeout %s: not a number of seconds", arg);
      return EXIT_ERROR;
    }
    cfg->timeout_s = (int) v;
    break;
  }
  return -1;
}

/* One option: -1 to go on, or an exit status. */
static int
option (int c, const char *arg, struct args *a)
{
  struct pc_check_config *cfg = &a->cfg;

  switch (c) {
  case 'F': cfg->from_mark = arg; break;
  case OPT_JSON: a->out.json = arg; break;
  case OPT_HTML: a->out.html = arg; break;
  case 'k': cfg->keep_dir = arg; break;
  case OPT_VERIFY:
    if (*arg == '\0') {
      cmd_err ("check", "--verify: an empty command");
      return EXIT_ERROR;
    }
    cfg->verify = pc_command_here (arg, a->verify, sizeof a->verify);
    break;
  case 'b': cfg->base_path = arg; break;
  case OPT_ACKS: {
    struct pc_err err;
    pc_acksel_free (&a->acks);
    if (pc_acksel_parse (arg, &a->acks, &err) < 0) {
      cmd_err ("check", "%s", err.msg);
      return pc_usage_error ("check");
    }
    cfg->acks = &a->acks;
    break;
  }
  case OPT_IGNORE_EVENTS: cfg->oracle_flags |= PC_ORACLE_NO_EVENTS; break;
  case OPT_IGNORE_MARKS: cfg->oracle_flags |= PC_ORACLE_NO_MARKS; break;
  case OPT_FAIL_ON:
    if (pc_fail_on_parse (arg, &a->out.fail_on) < 0) {
      cmd_err ("check", "--fail-on %s: not exposure, program or promises", arg);
      return pc_usage_error ("check");
    }
    break;
  case OPT_JUDGE: {
    int m = pc_judge_mode_parse (arg);
    if (m < 0) {
      cmd_err ("check", "--judge %s: not auto, ext2fs, kernel, both or guest", arg);
      return pc_usage_error ("check");
    }
    cfg->judge = (enum pc_judge_mode) m;
    break;
  }
  case OPT_KERNEL: a->guest.kernel = arg; break;
  case OPT_MODULES: a->guest.modules = arg; break;
  case OPT_KEEP_TRIMMED: cfg->keep_trimmed = true; break;
  case OPT_RECOVERY_CRASHES: cfg->recovery_crashes = true; break;
  case OPT_WORKDIR: cfg->work_dir = arg; break;
  case OPT_PLAIN: cfg->plain = true; break;
  case 'q': a->out.text = NULL; break;
  case 'h': usage (stdout); return EXIT_OK;
  case 'm': case 'j': case OPT_SEED: case OPT_SHARD: case OPT_TIMEOUT:
    return value_option (c, arg, a);
  default: return pc_usage_error ("check");
  }
  return -1;
}

static int
parse_args (int argc, char **argv, struct args *a)
{
  static const struct option opts[] = {
    { "model", required_argument, NULL, 'm' },
    { "seed", required_argument, NULL, OPT_SEED },
    { "from", required_argument, NULL, 'F' },
    { "jobs", required_argument, NULL, 'j' },
    { "json", required_argument, NULL, OPT_JSON },
    { "html", required_argument, NULL, OPT_HTML },
    { "shard", required_argument, NULL, OPT_SHARD },
    { "keep", required_argument, NULL, 'k' },
    { "base", required_argument, NULL, 'b' },
    { "keep-trimmed", no_argument, NULL, OPT_KEEP_TRIMMED },
    { "timeout", required_argument, NULL, OPT_TIMEOUT },
    { "workdir", required_argument, NULL, OPT_WORKDIR },
    { "plain", no_argument, NULL, OPT_PLAIN },
    { "verify", required_argument, NULL, OPT_VERIFY },
    { "fail-on", required_argument, NULL, OPT_FAIL_ON },
    { "acks", required_argument, NULL, OPT_ACKS },
    { "ignore-events", no_argument, NULL, OPT_IGNORE_EVENTS },
    { "ignore-marks", no_argument, NULL, OPT_IGNORE_MARKS },
    { "judge", required_argument, NULL, OPT_JUDGE },
    { "recovery-crashes", no_argument, NULL, OPT_RECOVERY_CRASHES },
    { "kernel", required_argument, NULL, OPT_KERNEL },
    { "modules", required_argument, NULL, OPT_MODULES },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c, r;

  while ((c = getopt_long (argc, argv, "m:F:j:k:b:qh", opts, NULL)) != -1)
    if ((r = option (c, optarg, a)) >= 0)
      return r;
  if (optind + 1 != argc) {
    cmd_err ("check", optind == argc ? "a LOG is required" : "only one LOG, please");
    return pc_usage_error ("check");
  }
  a->cfg.log_path = argv[optind];
  if ((a->guest.kernel || a->guest.modules) && a->cfg.judge != PC_JUDGE_GUEST) {
    cmd_err ("check", "%s: only with --judge guest", a->guest.kernel ? "--kernel" : "--modules");
    return pc_usage_error ("check");
  }
  if (!a->shard_given && pc_env_shard (&a->cfg.shard, &a->cfg.nshards) < 0) {
    cmd_err ("check", "the shard in the environment is not a valid index and count");
    return EXIT_ERROR;
  }
  return -1;
}

/* Says what the guest does (a line on standard error). */
/* powercut check: makes cfg->keep_dir if it is missing, checks
 * (checker.h) and writes the reports.  Returns as pc_outputs_write, or
 * -errno with the check's reason in err. */
static int
check_report (const struct pc_check_config *cfg, const struct pc_outputs *o, struct pc_err *err)
{
  struct pc_check_result *res = NULL;
  struct stat st;
  int r;

  if (cfg->keep_dir) {
    if (mkdir (cfg->keep_dir, 0755) < 0 && errno != EEXIST)
      return pc_err_set (err, errno, "%s: %s", cfg->keep_dir, strerror (errno));
    if (stat (cfg->keep_dir, &st) < 0 || !S_ISDIR (st.st_mode))
      return pc_err_set (err, ENOTDIR, "%s: not a directory", cfg->keep_dir);
  }
  r = pc_check_run (cfg, &res, err);
  if (r < 0)
    return r;
  r = pc_outputs_write (o, res, err);
  pc_check_result_free (res);
  return r;
}

/* powercut check DIR: checks the device set in dir with cfg's settings
 * and writes its text and JSON reports.  Returns as check_report. */
static int
devcheck_report (const struct pc_check_config *cfg, const char *dir, const struct pc_outputs *o,
                 struct pc_err *err)
{
  struct pc_devcheck_result *res;
  int r = pc_devcheck_run (cfg, dir, &res, err);

  if (r < 0)
    return r;
  r = pc_devcheck_write (res, o, err);
  pc_devcheck_free (res);
  return r;
}

static void
guest_status (void *ctx, const char *line)
{
  (void) ctx;
  fprintf (stderr, "powercut check: %s\n", line);
}

/* powercut check --judge guest: the check run in a guest (run/gjudge.h),
 * its reports written here.  Returns as check_report. */
static int
guest_report (struct args *a, struct pc_err *err)
{
  struct pc_check_result *res = NULL;
  char self[4096];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  int r;

  if (n <= 0)
    return pc_err_set (err, errno, "/proc/self/exe: %s", strerror (errno));
  self[n] = '\0';
  a->guest.self = self;
  if (a->out.text || isatty (2))
    a->guest.status = guest_status;
  r = pc_guest_check (&a->cfg, &a->guest, &res, err);
  if (r < 0)
    return r;
  r = pc_outputs_write (&a->out, res, err);
  pc_check_result_free (res);
  return r;
}

/* A device set (a directory of logs) takes the options of one log but
 * these: -1 to go on, or an exit status. */
static int
devset_args (const struct args *a)
{
  const char *no = a->out.html ? "--html" : a->cfg.base_path ? "--base (bases sit beside their logs)"
                   : a->cfg.keep_dir ? "--keep" : a->cfg.judge == PC_JUDGE_GUEST ? "--judge guest"
                   : NULL;

  if (no == NULL)
    return -1;
  cmd_err ("check", "%s: not for a device set, yet", no);
  return pc_usage_error ("check");
}

/* powercut check, its arguments in a (zeroed). */
static int
check_main (int argc, char **argv, struct args *a)
{
  struct progress prog = { pc_now_mono_ns () };
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  struct pc_err err;
  int r;

  a->cfg.jobs = ncpu > 0 ? (unsigned) ncpu : 1;
  a->cfg.nshards = 1;
  a->cfg.timeout_s = 60;
  a->cfg.model = (struct pc_model) { PC_MODEL_FLUSH, PC_MODEL_DEFAULT_K, 0 };
  a->out.text = stdout;
  if ((r = parse_args (argc, argv, a)) >= 0)
    return r;
  if (isatty (2)) {
    a->cfg.progress = show_progress;
    a->cfg.progress_ctx = &prog;
  }
  /* Interrupted, the check stops its workers and removes its scratch files. */
  pc_catch_stop_signals ();
  if (pc_devset_is (a->cfg.log_path)) {
    if ((r = devset_args (a)) >= 0)
      return r;
    r = devcheck_report (&a->cfg, a->cfg.log_path, &a->out, &err);
  }
  else if (a->cfg.judge == PC_JUDGE_GUEST)
    r = guest_report (a, &err);
  else {
    r = check_report (&a->cfg, &a->out, &err);
    if (r == -ENODEV && a->cfg.judge == PC_JUDGE_AUTO) {
      /* a filesystem this machine's kernel cannot mount: a guest's judges */
      fprintf (stderr, "powercut check: %s; judging it in a guest\n", err.msg);
      r = guest_report (a, &err);
    }
  }
  return cmd_report_status ("check", r, &err);
}

int
cmd_check (int argc, char **argv)
{
  static struct args a;         /* large: not on the stack */
  int r;

  memset (&a, 0, sizeof a);
  r = check_main (argc, argv, &a);
  pc_acksel_free (&a.acks);
  return r;
}
