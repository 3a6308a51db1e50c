/* cmd-check.c: powercut check and powercut merge. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/checker.h"
#include "cmd.h"
#include "report/html.h"
#include "report/report.h"
#include "util/util.h"

static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut check LOG [OPTION]...\n"
"\n"
"Rebuild the disk at every crash point of LOG, recover its journal as a\n"
"reboot would, check it with e2fsck, and report the points where the\n"
"filesystem did not survive.\n"
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
"      --plain           the plain method, to compare with: e2fsck replays every\n"
"                        journal and checks every distinct image, every file is read\n"
"      --verify CMD      run CMD (sh -c) in the tree of every state whose filesystem\n"
"                        passes; failing, it makes the point app-invalid\n"
"  -q, --quiet           no text report on stdout\n"
"  -h, --help            show this help\n"
"\n"
"Exit status: 0 every crash point survived, 1 some did not, 2 error or some\n"
"point could not be checked.\n");
}

static int
parse_uint (const char *s, unsigned long max, unsigned long *ret)
{
  char *end;
  unsigned long v;

  if (*s < '0' || *s > '9')
    return -EINVAL;
  errno = 0;
  v = strtoul (s, &end, 10);
  if (errno || *end || v > max)
    return -EINVAL;
  *ret = v;
  return 0;
}

static int
parse_shard (const char *s, unsigned *i, unsigned *n)
{
  const char *slash = strchr (s, '/');
  unsigned long a, b;
  char buf[64];

  if (slash == NULL || (size_t) (slash - s) >= sizeof buf)
    return -EINVAL;
  memcpy (buf, s, (size_t) (slash - s));
  buf[slash - s] = '\0';
  if (parse_uint (buf, 1u << 20, &a) < 0 || parse_uint (slash + 1, 1u << 20, &b) < 0 ||
      b == 0 || a >= b)
    return -EINVAL;
  *i = (unsigned) a;
  *n = (unsigned) b;
  return 0;
}

/* Shards from a batch system's environment, if any.  Slurm's task ids
 * start at SLURM_ARRAY_TASK_MIN (an array may be --array=1-N). */
static int
env_shard (unsigned *i, unsigned *n)
{
  const char *id = getenv ("SLURM_ARRAY_TASK_ID"), *cnt = getenv ("SLURM_ARRAY_TASK_COUNT");
  const char *min = getenv ("SLURM_ARRAY_TASK_MIN");
  unsigned long a, b, lo = 0;

  if (id && cnt) {
    if (min && parse_uint (min, 1u << 20, &lo) < 0)
      return -EINVAL;
    if (parse_uint (id, 1u << 20, &a) < 0 || a < lo || parse_uint (cnt, 1u << 20, &b) < 0 ||
        b == 0 || a - lo >= b)
      return -EINVAL;
    *i = (unsigned) (a - lo);
    *n = (unsigned) b;
    return 1;
  }
  if (!(id && cnt)) {
    id = getenv ("JOB_COMPLETION_INDEX");
    cnt = getenv ("POWERCUT_SHARDS");
  }
  if (!(id && cnt))
    return 0;
  if (parse_uint (id, 1u << 20, &a) < 0 || parse_uint (cnt, 1u << 20, &b) < 0 ||
      b == 0 || a >= b)
    return -EINVAL;
  *i = (unsigned) a;
  *n = (unsigned) b;
  return 1;
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

/* The HTML page of one check, with the log's marks and flushes. */
static int
write_html (const char *path, const struct pc_check_result *res)
{
  struct pc_index ix;
  struct pc_html_config hc = { res->log_path, res, NULL };
  char title[1024];
  int r, have = pc_index_load (res->log_path, &ix) == 0;

  if (have)
    hc.ix = &ix;
  snprintf (title, sizeof title, "powercut check %s", res->log_path);
  r = pc_report_html (path, title, &hc, 1);
  if (have)
    pc_index_free (&ix);
  return r;
}

/* 2 if some states could not be checked (the check did not finish: it
 * says so), else 1 if some failed, else 0. */
static int
exit_status (const char *cmd, const struct pc_check_result *res)
{
  if (res->count[PC_V_NOT_CHECKED] > 0) {
    cmd_err (cmd, "%zu of %zu crash points could not be checked (see the report)",
            res->count[PC_V_NOT_CHECKED], res->npoints);
    return EXIT_ERROR;
  }
  return pc_report_failed (res) ? EXIT_PROBLEMS : EXIT_OK;
}

int
cmd_check (int argc, char **argv)
{
  enum { OPT_SEED = 256, OPT_JSON, OPT_HTML, OPT_SHARD, OPT_KEEP_TRIMMED, OPT_TIMEOUT,
         OPT_WORKDIR, OPT_PLAIN, OPT_VERIFY };
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
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct pc_check_config cfg = { 0 };
  struct pc_check_result *res = NULL;
  struct progress prog = { pc_now_mono_ns () };
  const char *json = NULL, *html = NULL;
  bool quiet = false, shard_given = false;
  unsigned long v;
  char why[1024];
  struct pc_err err;
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  int c, r;

  cfg.jobs = ncpu > 0 ? (unsigned) ncpu : 1;
  cfg.nshards = 1;
  cfg.timeout_s = 60;
  cfg.model.kind = PC_MODEL_FLUSH;
  cfg.model.k = PC_MODEL_DEFAULT_K;
  while ((c = getopt_long (argc, argv, "m:F:j:k:b:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'm': {
      uint64_t seed = cfg.model.seed;
      if (pc_model_spec_parse (optarg, &cfg.model, &err) < 0) {
        cmd_err ("check", "--model %s: %s", optarg, err.msg);
        return EXIT_ERROR;
      }
      cfg.model.seed = seed;
      break;
    }
    case OPT_SEED:
      if (parse_uint (optarg, ~0ul, &v) < 0) {
        cmd_err ("check", "--seed %s: not a number", optarg);
        return EXIT_ERROR;
      }
      cfg.model.seed = v;
      break;
    case 'F': cfg.from_mark = optarg; break;
    case 'j':
      if (parse_uint (optarg, 1024, &v) < 0 || v == 0) {
        cmd_err ("check", "--jobs %s: not a number from 1 to 1024", optarg);
        return EXIT_ERROR;
      }
      cfg.jobs = (unsigned) v;
      break;
    case OPT_JSON: json = optarg; break;
    case OPT_HTML: html = optarg; break;
    case OPT_SHARD:
      if (parse_shard (optarg, &cfg.shard, &cfg.nshards) < 0) {
        cmd_err ("check", "--shard %s: not I/N with 0 <= I < N", optarg);
        return EXIT_ERROR;
      }
      shard_given = true;
      break;
    case 'k': cfg.keep_dir = optarg; break;
    case OPT_VERIFY:
      if (*optarg == '\0') {
        cmd_err ("check", "--verify: an empty command");
        return EXIT_ERROR;
      }
      cfg.verify = optarg;
      break;
    case 'b': cfg.base_path = optarg; break;
    case OPT_KEEP_TRIMMED: cfg.keep_trimmed = true; break;
    case OPT_TIMEOUT:
      if (parse_uint (optarg, 86400, &v) < 0 || v == 0) {
        cmd_err ("check", "--timeout %s: not a number of seconds", optarg);
        return EXIT_ERROR;
      }
      cfg.timeout_s = (int) v;
      break;
    case OPT_WORKDIR: cfg.work_dir = optarg; break;
    case OPT_PLAIN: cfg.plain = true; break;
    case 'q': quiet = true; break;
    case 'h': usage (stdout); return EXIT_OK;
    default: return pc_usage_error ("check");
    }
  }
  if (optind + 1 != argc) {
    cmd_err ("check", optind == argc ? "a LOG is required" : "only one LOG, please");
    return pc_usage_error ("check");
  }
  cfg.log_path = argv[optind];
  if (!shard_given && env_shard (&cfg.shard, &cfg.nshards) < 0) {
    cmd_err ("check", "the shard in the environment is not a valid index and count");
    return EXIT_ERROR;
  }
  if (cfg.keep_dir) {
    struct stat st;
    if (mkdir (cfg.keep_dir, 0755) < 0 && errno != EEXIST) {
      cmd_err ("check", "%s: %s", cfg.keep_dir, strerror (errno));
      return EXIT_ERROR;
    }
    if (stat (cfg.keep_dir, &st) < 0 || !S_ISDIR (st.st_mode)) {
      cmd_err ("check", "%s: not a directory", cfg.keep_dir);
      return EXIT_ERROR;
    }
  }
  if (isatty (2)) {
    cfg.progress = show_progress;
    cfg.progress_ctx = &prog;
  }
  /* Interrupted, the check stops its workers and removes its scratch files. */
  pc_catch_stop_signals ();
  cfg.interrupted = &pc_stop_requested;
  r = pc_check_run (&cfg, &res, why, sizeof why);
  if (r < 0) {
    cmd_err ("check", "%s", why);
    return EXIT_ERROR;
  }
  if (!quiet)
    pc_report_text (stdout, res);
  if (json && (r = pc_report_json (json, res)) < 0) {
    cmd_err ("check", "%s: %s", json, strerror (-r));
    pc_check_result_free (res);
    return EXIT_ERROR;
  }
  if (html && (r = write_html (html, res)) < 0) {
    cmd_err ("check", "%s: %s", html, strerror (-r));
    pc_check_result_free (res);
    return EXIT_ERROR;
  }
  r = exit_status ("check", res);
  pc_check_result_free (res);
  return r;
}

int
cmd_merge (int argc, char **argv)
{
  static const struct option opts[] = {
    { "json", required_argument, NULL, 'o' },
    { "html", required_argument, NULL, 'H' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct pc_check_result **parts, *m = NULL;
  const char *json = NULL, *html = NULL;
  bool quiet = false;
  char why[1024];
  int c, r, n, ret = EXIT_ERROR;

  while ((c = getopt_long (argc, argv, "o:H:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'o': json = optarg; break;
    case 'H': html = optarg; break;
    case 'q': quiet = true; break;
    case 'h':
      printf ("usage: powercut merge [--json OUT] [--html OUT] [--quiet] REPORT.json...\n"
              "\n"
              "Join the JSON reports of the shards of one check into the report an\n"
              "unsharded check gives: text on stdout, JSON or HTML to OUT.\n"
              "\n"
              "Exit status: 0 every crash point survived, 1 some did not, 2 error or some\n"
              "point could not be checked.\n");
      return EXIT_OK;
    default: return pc_usage_error ("merge");
    }
  }
  n = argc - optind;
  if (n < 1) {
    cmd_err ("merge", "at least one REPORT.json is required");
    return pc_usage_error ("merge");
  }
  parts = calloc ((size_t) n, sizeof *parts);
  if (parts == NULL)
    return EXIT_ERROR;
  for (int i = 0; i < n; i++) {
    r = pc_report_read_json (argv[optind + i], &parts[i], why, sizeof why);
    if (r < 0) {
      cmd_err ("merge", "%s", why);
      goto out;
    }
  }
  r = pc_report_merge (parts, (size_t) n, &m, why, sizeof why);
  if (r < 0) {
    cmd_err ("merge", "%s", why);
    goto out;
  }
  if (!quiet)
    pc_report_text (stdout, m);
  if (json && (r = pc_report_json (json, m)) < 0) {
    cmd_err ("merge", "%s: %s", json, strerror (-r));
    goto out;
  }
  if (html && (r = write_html (html, m)) < 0) {
    cmd_err ("merge", "%s: %s", html, strerror (-r));
    goto out;
  }
  ret = exit_status ("merge", m);
out:
  for (int i = 0; i < n; i++)
    pc_check_result_free (parts[i]);
  free (parts);
  pc_check_result_free (m);
  return ret;
}
