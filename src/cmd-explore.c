/* cmd-explore.c: powercut explore: many small generated workloads on each
 * configuration, every failure shrunk into a script (explore.h). */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "explore/explore.h"
#include "explore/gen.h"
#include "fs/fs.h"
#include "report/report.h"
#include "util/args.h"
#include "util/util.h"

static const char *const default_configs[] = {
  "ext4", "ext4 noauto_da_alloc", "ext4 data=journal", "ext3",
};

static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut explore (--seq N | --random [--budget TIME] [--seed S] | --corpus DIR)\n"
"                        [--config SPEC]... [--model MODEL] [--jobs N] [--out DIR]\n"
"                        [--shard I/N] [--resume] [--limit N] [--only TEXT] [--skip TEXT]\n"
"                        [--fail-on promises|exposure] [--judge WHO] [--no-shrink] [--batch N]\n"
"                        [--shared] [--attach auto|vm [--kernel FILE] [--modules DIR]]\n"
"                        [--quiet]\n"
"       powercut explore --merge [--out DIR] SHARD-DIR...\n"
"       powercut explore --list --seq N\n"
"\n"
"Run many small generated workloads (after CrashMonkey's ACE: up to three\n"
"file operations over a few files, each followed by fsync, fdatasync, sync\n"
"or nothing), each recorded on a real kernel filesystem and checked at every\n"
"crash point, and shrink every failure to the smallest workload that still\n"
"fails, as a script powercut run reproduces.  Needs root.\n"
"\n"
"  -n, --seq N           every workload of N operations (1 to %d)\n"
"      --random          workloads sampled at random, for --budget (default 10m)\n"
"      --budget TIME     seconds, or a number with s, m or h\n"
"      --seed S          the sample's seed, of --random and --limit (default 0)\n"
"      --corpus DIR      rerun the workloads of DIR/explore.json and say which\n"
"                        verdicts changed\n"
"  -c, --config SPEC     a configuration, as for powercut run (repeatable; default:\n"
"                        ext4, ext4 noauto_da_alloc, ext4 data=journal, ext3)\n"
"  -m, --model MODEL     the crash model (default flush)\n"
"  -j, --jobs N          recordings at once (default: the number of CPUs)\n"
"  -O, --out DIR         output directory (default powercut-explore)\n"
"      --shard I/N       the I-th of N shares of the workloads (0-based; also from\n"
"                        SLURM_ARRAY_TASK_ID/_COUNT or JOB_COMPLETION_INDEX with\n"
"                        POWERCUT_SHARDS)\n"
"      --resume          keep what DIR has done, and go on\n"
"      --limit N         at most N workloads (with --seq: sampled evenly over all of\n"
"                        them by --seed)\n"
"      --only TEXT       only the workloads whose text holds TEXT (\"rename\")\n"
"      --skip TEXT       none of the workloads whose text holds TEXT (a known bug's)\n"
"      --judge WHO       who recovers and reads each crash state: auto (default),\n"
"                        ext2fs, kernel, both or guest (see powercut-check(1))\n"
"      --attach HOW      auto (default: here, but in a guest for a filesystem\n"
"                        this machine's kernel cannot mount) or vm: the whole\n"
"                        exploration in one qemu guest, its workloads recorded\n"
"                        and judged by the guest's kernel (no root needed)\n"
"      --kernel FILE     with vm: the kernel to boot (default: the newest in /boot)\n"
"      --modules DIR     with vm: its modules (default /lib/modules/VERSION)\n"
"      --fail-on WHAT    promises (default: only a broken promise fails) or\n"
"                        exposure (any lost data fails)\n"
"      --no-shrink       write failures as found\n"
"      --batch N         workloads a process runs in turn (default 4; 25 with\n"
"                        --shared, where they are one recording)\n"
"      --shared          the workloads of a batch share one recording and one\n"
"                        filesystem, one after another (faster; each starts where\n"
"                        the last ended); by default each starts from the same\n"
"                        fresh filesystem\n"
"      --merge           join the results of explorations (the shards of one) in\n"
"                        the SHARD-DIRs into DIR, running nothing\n"
"      --list            with --seq 1 or 2: count its workloads, those of no\n"
"                        argument class and those of each class, running\n"
"                        nothing (no root needed)\n"
"  -q, --quiet           no progress on stderr\n"
"  -h, --help            show this help\n"
"\n"
"Writes DIR/summary.txt, DIR/explore.json, DIR/failures/N.sh.  Exit status:\n"
"0 no failure, 1 failures (with --corpus: verdicts changed), 2 error or some\n"
"workload could not be run or checked.\n", PC_GEN_MAX_OPS);
}

enum { OPT_RANDOM = 256, OPT_BUDGET, OPT_SEED, OPT_CORPUS, OPT_SHARD, OPT_RESUME, OPT_LIMIT,
       OPT_ONLY, OPT_SKIP, OPT_FAIL_ON, OPT_NO_SHRINK, OPT_BATCH, OPT_MERGE, OPT_SHARED, OPT_JUDGE,
       OPT_ATTACH, OPT_KERNEL, OPT_MODULES, OPT_LIST };

#define MAX_GUEST_ARGS 96

struct args {
  struct pc_explore_config cfg;
  bool quiet, shard_given, budget_given, merge, list;
  char sysdir[4096];
  /* --attach vm: the guest, and the exploration's arguments there */
  bool vm, attach_given;
  struct pc_explore_guest guest;
  char *gargs[MAX_GUEST_ARGS];
  size_t ngargs;
  char corpus[4096], corpus_in[4200], shard[64];
  char *gcopies[2];
  char *gfs[PC_MAX_CONFIGS + 1];
};

/* explore --list --seq n: how many workloads, and of each argument
 * class (gen.h). */
static int
list (unsigned n)
{
  struct pc_gen_counts c;

  pc_gen_count (n, &c);
  printf ("workloads: %" PRIu64 "\n", c.workloads);
  printf ("without argument classes: %" PRIu64 "\n", c.plain);
  for (unsigned k = 1; k < PC_GEN_NCLASSES; k++)
    printf ("class %s: %" PRIu64 "\n", pc_gen_class_name (k), c.in_class[k]);
  printf ("places in the order: %" PRIu64 "\n", c.places);
  return fflush (stdout) == 0 && !ferror (stdout) ? EXIT_OK : EXIT_ERROR;
}

/* An option for the exploration in a guest, as given. */
static void
keep (struct args *a, const char *opt, const char *arg)
{
  if (a->ngargs + 3 > MAX_GUEST_ARGS)
    return;
  a->gargs[a->ngargs++] = (char *) opt;
  if (arg)
    a->gargs[a->ngargs++] = (char *) arg;
  a->gargs[a->ngargs] = NULL;
}

/* "90", "90s", "10m", "2h": seconds; -1 if not one. */
static double
duration (const char *s)
{
  char *end;
  double v = strtod (s, &end);

  if (end == s || v < 0)
    return -1;
  if (*end == '\0' || strcmp (end, "s") == 0)
    return v;
  if (strcmp (end, "m") == 0)
    return v * 60;
  if (strcmp (end, "h") == 0)
    return v * 3600;
  return -1;
}

static int
number_option (int c, const char *arg, struct args *a)
{
  unsigned long v;

  switch (c) {
  case 'n':
    if (pc_parse_uint (arg, PC_GEN_MAX_OPS, &v) < 0 || v == 0) {
      cmd_err ("explore", "--seq %s: not a number from 1 to %d", arg, PC_GEN_MAX_OPS);
      return EXIT_ERROR;
    }
    a->cfg.seq = (unsigned) v;
    break;
  case 'j':
    if (pc_parse_uint (arg, 64, &v) < 0 || v == 0) {
      cmd_err ("explore", "--jobs %s: not a number from 1 to 64", arg);
      return EXIT_ERROR;
    }
    a->cfg.jobs = (unsigned) v;
    break;
  case OPT_SEED:
    if (pc_parse_uint (arg, ~0ul, &v) < 0) {
      cmd_err ("explore", "--seed %s: not a number", arg);
      return EXIT_ERROR;
    }
    a->cfg.seed = v;
    break;
  case OPT_LIMIT:
  case OPT_BATCH:
    if (pc_parse_uint (arg, 1000000, &v) < 0 || v == 0) {
      cmd_err ("explore", "--%s %s: not a number from 1 to 1000000",
               c == OPT_LIMIT ? "limit" : "batch", arg);
      return EXIT_ERROR;
    }
    if (c == OPT_LIMIT)
      a->cfg.limit = v;
    else
      a->cfg.batch = (unsigned) v;
    break;
  case OPT_BUDGET:
    a->cfg.budget_s = duration (arg);
    if (a->cfg.budget_s <= 0) {
      cmd_err ("explore", "--budget %s: not a duration (90, 90s, 10m, 2h)", arg);
      return EXIT_ERROR;
    }
    a->budget_given = true;
    break;
  case OPT_SHARD:
    if (pc_parse_shard (arg, &a->cfg.shard, &a->cfg.nshards) < 0) {
      cmd_err ("explore", "--shard %s: not I/N with 0 <= I < N", arg);
      return EXIT_ERROR;
    }
    a->shard_given = true;
    break;
  }
  return -1;
}

/* What the exploration in a guest is given of option c: the same, but
 * --corpus as its copy in /host, and --judge guest as the guest's own
 * kernel. */
static void
guest_option (int c, const char *arg, struct args *a)
{
  switch (c) {
  case 'n': keep (a, "--seq", arg); break;
  case 'c': keep (a, "--config", arg); break;
  case 'm': keep (a, "--model", arg); break;
  case 'j': keep (a, "--jobs", arg); break;
  case OPT_RANDOM: keep (a, "--random", NULL); break;
  case OPT_BUDGET: keep (a, "--budget", arg); break;
  case OPT_SEED: keep (a, "--seed", arg); break;
  case OPT_SHARD: keep (a, "--shard", arg); break;
  case OPT_LIMIT: keep (a, "--limit", arg); break;
  case OPT_ONLY: keep (a, "--only", arg); break;
  case OPT_SKIP: keep (a, "--skip", arg); break;
  case OPT_BATCH: keep (a, "--batch", arg); break;
  case OPT_FAIL_ON: keep (a, "--fail-on", arg); break;
  case OPT_NO_SHRINK: keep (a, "--no-shrink", NULL); break;
  case OPT_SHARED: keep (a, "--shared", NULL); break;
  case OPT_JUDGE: keep (a, "--judge", strcmp (arg, "guest") == 0 ? "kernel" : arg); break;
  case OPT_CORPUS: {
    /* the corpus, copied in under its own name */
    const char *base;
    size_t n;
    if (realpath (arg, a->corpus) == NULL)
      snprintf (a->corpus, sizeof a->corpus, "%s", arg);
    for (n = strlen (a->corpus); n > 1 && a->corpus[n - 1] == '/'; n--)
      a->corpus[n - 1] = '\0';
    base = strrchr (a->corpus, '/') ? strrchr (a->corpus, '/') + 1 : a->corpus;
    snprintf (a->corpus_in, sizeof a->corpus_in, "/host/%s", base);
    a->gcopies[0] = a->corpus;
    keep (a, "--corpus", a->corpus_in);
    break;
  }
  default: break;
  }
}

static int
option (int c, const char *arg, struct args *a)
{
  struct pc_err err;

  switch (c) {
  case 'c':
    if (a->cfg.nconfigs == PC_MAX_CONFIGS) {
      cmd_err ("explore", "at most %d configurations", PC_MAX_CONFIGS);
      return EXIT_ERROR;
    }
    if (pc_config_parse (arg, &a->cfg.configs[a->cfg.nconfigs], &err) < 0) {
      cmd_err ("explore", "--config %s: %s", arg, err.msg);
      return EXIT_ERROR;
    }
    a->cfg.nconfigs++;
    break;
  case 'm':
    if (pc_model_spec_parse (arg, &a->cfg.model, &err) < 0) {
      cmd_err ("explore", "--model %s: %s", arg, err.msg);
      return EXIT_ERROR;
    }
    break;
  case 'O': a->cfg.out = arg; break;
  case OPT_RANDOM: a->cfg.random = true; break;
  case OPT_CORPUS: a->cfg.corpus = arg; break;
  case OPT_RESUME: a->cfg.resume = true; break;
  case OPT_ONLY: a->cfg.only = arg; break;
  case OPT_SKIP: a->cfg.skip = arg; break;
  case OPT_NO_SHRINK: a->cfg.no_shrink = true; break;
  case OPT_SHARED: a->cfg.shared = true; break;
  case OPT_MERGE: a->merge = true; break;
  case OPT_LIST: a->list = true; break;
  case OPT_JUDGE: {
    int m = pc_judge_mode_parse (arg);
    if (m < 0) {
      cmd_err ("explore", "--judge %s: not auto, ext2fs, kernel, both or guest", arg);
      return pc_usage_error ("explore");
    }
    a->cfg.judge = (enum pc_judge_mode) m;
    break;
  }
  case OPT_FAIL_ON: {
    enum pc_fail_on fo;
    if (pc_fail_on_parse (arg, &fo) < 0 || fo == PC_FAIL_ON_PROGRAM) {
      cmd_err ("explore", "--fail-on %s: not promises or exposure", arg);
      return pc_usage_error ("explore");
    }
    a->cfg.fail_on_exposure = fo == PC_FAIL_ON_EXPOSURE;
    break;
  }
  case 'q': a->quiet = true; break;
  case 'h': usage (stdout); return EXIT_OK;
  case OPT_ATTACH:
    if (strcmp (arg, "auto") != 0 && strcmp (arg, "vm") != 0) {
      cmd_err ("explore", "--attach %s: not auto or vm", arg);
      return pc_usage_error ("explore");
    }
    a->vm = strcmp (arg, "vm") == 0;
    a->attach_given = true;
    return -1;
  case OPT_KERNEL: a->guest.kernel = arg; return -1;
  case OPT_MODULES: a->guest.modules = arg; return -1;
  default: {
    int r = number_option (c, arg, a);
    if (r >= 0)
      return r;
    break;
  }
  }
  guest_option (c, arg, a);
  return -1;
}

static int
parse_args (int argc, char **argv, struct args *a)
{
  static const struct option opts[] = {
    { "seq", required_argument, NULL, 'n' },
    { "random", no_argument, NULL, OPT_RANDOM },
    { "budget", required_argument, NULL, OPT_BUDGET },
    { "seed", required_argument, NULL, OPT_SEED },
    { "corpus", required_argument, NULL, OPT_CORPUS },
    { "config", required_argument, NULL, 'c' },
    { "model", required_argument, NULL, 'm' },
    { "jobs", required_argument, NULL, 'j' },
    { "out", required_argument, NULL, 'O' },
    { "shard", required_argument, NULL, OPT_SHARD },
    { "resume", no_argument, NULL, OPT_RESUME },
    { "limit", required_argument, NULL, OPT_LIMIT },
    { "only", required_argument, NULL, OPT_ONLY },
    { "skip", required_argument, NULL, OPT_SKIP },
    { "batch", required_argument, NULL, OPT_BATCH },
    { "fail-on", required_argument, NULL, OPT_FAIL_ON },
    { "judge", required_argument, NULL, OPT_JUDGE },
    { "no-shrink", no_argument, NULL, OPT_NO_SHRINK },
    { "shared", no_argument, NULL, OPT_SHARED },
    { "attach", required_argument, NULL, OPT_ATTACH },
    { "kernel", required_argument, NULL, OPT_KERNEL },
    { "modules", required_argument, NULL, OPT_MODULES },
    { "merge", no_argument, NULL, OPT_MERGE },
    { "list", no_argument, NULL, OPT_LIST },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c, r;

  while ((c = getopt_long (argc, argv, "n:c:m:j:O:qh", opts, NULL)) != -1) {
    if (c == '?')
      return pc_usage_error ("explore");
    if ((r = option (c, optarg, a)) >= 0)
      return r;
  }
  if (a->merge) {
    if (optind == argc || a->cfg.seq || a->cfg.random || a->cfg.corpus) {
      cmd_err ("explore", "--merge takes the explorations' directories, and nothing to run");
      return pc_usage_error ("explore");
    }
    a->cfg.merge = (const char *const *) argv + optind;
    a->cfg.nmerge = (size_t) (argc - optind);
    a->cfg.no_shrink = true;
    return -1;
  }
  if (optind != argc) {
    cmd_err ("explore", "unexpected argument '%s'", argv[optind]);
    return pc_usage_error ("explore");
  }
  if (a->list) {
    if (a->cfg.seq == 0 || a->cfg.seq > 2 || a->cfg.random || a->cfg.corpus) {
      cmd_err ("explore", "--list counts the workloads of --seq 1 or 2 (those of 3 are too "
               "many to count), and runs nothing");
      return pc_usage_error ("explore");
    }
    return list (a->cfg.seq);
  }
  if ((a->cfg.seq != 0) + a->cfg.random + (a->cfg.corpus != NULL) != 1) {
    cmd_err ("explore", "give one of --seq N, --random or --corpus DIR");
    return pc_usage_error ("explore");
  }
  if (a->budget_given && !a->cfg.random) {
    cmd_err ("explore", "--budget goes with --random");
    return pc_usage_error ("explore");
  }
  if (!a->shard_given && pc_env_shard (&a->cfg.shard, &a->cfg.nshards) < 0) {
    cmd_err ("explore", "the shard in the environment is not a valid index and count");
    return EXIT_ERROR;
  }
  return -1;
}

static void
progress (void *ctx, const struct pc_explore_progress *p)
{
  bool tty = isatty (2);

  (void) ctx;
  if (p->total)
    fprintf (stderr, "%spowercut explore: %s: %zu/%zu workload runs, %zu failing (%zu broken "
             "promises), %.1f s, %.2f a second%s", tty ? "\r" : "", p->phase, p->done, p->total,
             p->failing, p->promises, p->seconds, p->seconds > 0 ? p->done / p->seconds : 0.0,
             tty ? "\033[K" : "\n");
  else
    fprintf (stderr, "%spowercut explore: %s: %zu workload runs, %zu failing (%zu broken "
             "promises), %.1f s, %.2f a second%s", tty ? "\r" : "", p->phase, p->done,
             p->failing, p->promises, p->seconds, p->seconds > 0 ? p->done / p->seconds : 0.0,
             tty ? "\033[K" : "\n");
}

static void
problem (void *ctx, const char *line)
{
  (void) ctx;
  cmd_err ("explore", "%s", line);
}

/* --attach: in a guest when asked, or when this machine's kernel cannot
 * mount a configuration's filesystem (said, unless quiet); the guest's
 * filesystems and what it is given.  Returns -1 to go on, or an exit
 * status. */
static int
attach (struct args *a)
{
  size_t nfs = 0;

  if (!a->vm && (a->guest.kernel || a->guest.modules)) {
    cmd_err ("explore", "%s: only with --attach vm", a->guest.kernel ? "--kernel" : "--modules");
    return pc_usage_error ("explore");
  }
  for (size_t k = 0; k < a->cfg.nconfigs; k++) {
    const struct pc_fs *fs = pc_fs_find (a->cfg.configs[k].fs);
    bool seen = false;
    for (size_t i = 0; i < nfs; i++)
      seen |= strcmp (a->gfs[i], fs->name) == 0;
    if (!seen)
      a->gfs[nfs++] = (char *) fs->name;
    if (!a->attach_given && !a->vm && !a->merge && !pc_fs_kernel_has (fs)) {
      a->vm = true;
      if (!a->quiet)
        fprintf (stderr, "powercut explore: this machine's kernel has no %s (/proc/filesystems): "
                 "exploring in a qemu guest, as --attach vm does\n", fs->name);
    }
  }
  a->gfs[nfs] = NULL;
  if (a->vm && a->merge) {
    cmd_err ("explore", "--merge runs nothing: not with --attach vm");
    return pc_usage_error ("explore");
  }
  if (a->vm && !a->shard_given && a->cfg.nshards > 1) {
    snprintf (a->shard, sizeof a->shard, "%u/%u", a->cfg.shard, a->cfg.nshards);
    keep (a, "--shard", a->shard);
  }
  return -1;
}

/* Says what the guest does. */
static void
guest_status (void *ctx, const char *line)
{
  (void) ctx;
  fprintf (stderr, "powercut explore: %s\n", line);
}

/* powercut explore --attach vm (explore.h). */
static int
explore_in_guest (struct args *a)
{
  char self[4096];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  struct pc_err err;
  int r;

  if (n <= 0) {
    cmd_err ("explore", "/proc/self/exe: %s", strerror (errno));
    return EXIT_ERROR;
  }
  self[n] = '\0';
  a->guest.self = self;
  a->guest.out = a->cfg.out;
  a->guest.resume = a->cfg.resume;
  a->gargs[a->ngargs] = NULL;
  a->guest.args = a->gargs;
  a->guest.copies = a->gcopies;
  a->guest.filesystems = a->gfs;
  a->guest.nconfigs = a->cfg.nconfigs;
  a->guest.status = a->quiet ? NULL : guest_status;
  a->guest.problem = problem;
  r = pc_explore_guest (&a->guest, stdout, &err);
  if (r < 0) {
    cmd_err ("explore", "%s", err.msg);
    return EXIT_ERROR;
  }
  return r;
}

int
cmd_explore (int argc, char **argv)
{
  static struct args a;
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  const char *rd = getenv ("POWERCUT_RUN_DIR");
  struct pc_err err;
  int r;

  a.cfg.out = "powercut-explore";
  a.cfg.model = (struct pc_model) { PC_MODEL_FLUSH, PC_MODEL_DEFAULT_K, 0 };
  a.cfg.jobs = ncpu > 0 ? (unsigned) ncpu : 1;
  a.cfg.nshards = 1;
  a.cfg.budget_s = 600;
  if ((r = parse_args (argc, argv, &a)) >= 0)
    return r;
  if (a.cfg.nconfigs == 0) {
    for (size_t i = 0; i < PC_ARRAY_SIZE (default_configs); i++)
      pc_config_parse (default_configs[i], &a.cfg.configs[i], &err);
    a.cfg.nconfigs = PC_ARRAY_SIZE (default_configs);
  }
  if ((r = attach (&a)) >= 0)
    return r;
  if (a.vm) {
    pc_catch_stop_signals ();
    return explore_in_guest (&a);
  }
  if (rd && *rd) {
    snprintf (a.sysdir, sizeof a.sysdir, "%s/sysctl", rd);
    a.cfg.sysctl_dir = a.sysdir;
  }
  a.cfg.progress = a.quiet ? NULL : progress;
  a.cfg.problem = problem;
  pc_catch_stop_signals ();
  r = pc_explore_run (&a.cfg, stdout, &err);
  if (!a.quiet && isatty (2))
    fputc ('\n', stderr);
  if (r < 0) {
    cmd_err ("explore", "%s", err.msg);
    return EXIT_ERROR;
  }
  return r;
}
