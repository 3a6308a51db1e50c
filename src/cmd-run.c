/* cmd-run.c: powercut run: record a workload on a fresh filesystem for each
 * configuration, check every crash point, and compare. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "checker.h"
#include "cmd.h"
#include "html.h"
#include "proc.h"
#include "report.h"
#include "run.h"
#include "util.h"
#include "window.h"

#define MAX_CONFIGS 32


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
"  -t, --fs FS           ext2, ext3 or ext4 (default ext4; repeatable)\n"
"      --mkfs-opts S     mkfs options (default: -b 4096, eager inode tables)\n"
"  -o, --mount-opts S    mount options ('' for defaults; repeatable); unless\n"
"                        they say, a built-in workload adds the commit= it\n"
"                        wants (1; 300 for random; none for steady)\n"
"  -c, --config SPEC     one configuration: 'FS [MOUNT-OPTS] [vm.dirty_K=V]...'\n"
"                        (repeatable), e.g. 'ext4 noauto_da_alloc' or\n"
"                        'ext4 vm.dirty_expire_centisecs=500': writeback knobs\n"
"                        are set in the guest with --attach vm, else on this\n"
"                        machine while recording, and put back afterwards\n"
"  -s, --size SIZE       device size (default 128M)\n"
"      --attach HOW      auto (default), nbd (nbd-client, /dev/nbdX), fuse\n"
"                        (nbdfuse and a loop device) or vm (a qemu guest whose\n"
"                        kernel attaches /dev/nbd0 itself: real FUA, any kernel)\n"
"      --kernel FILE     with vm: the kernel to boot (default: the newest in /boot)\n"
"      --modules DIR     with vm: its modules (default /lib/modules/VERSION)\n"
"      --connections N   with vm: NBD connections the guest opens (default 1)\n"
"  -m, --model MODEL     crash model for the check (default flush)\n"
"      --seed N          seed of the random workload and of sampled models\n"
"      --files N         files the workload uses (default 20)\n"
"      --seconds N       how long a timed workload (steady) writes (default 60)\n"
"  -j, --jobs N          checking processes (default: the number of CPUs)\n"
"  -O, --out DIR         output directory (default powercut-out)\n"
"      --timeout S       the workload's time limit in seconds (default 300)\n"
"      --verify CMD      check the application's data too: see powercut-check(1)\n"
"  -q, --quiet           no progress lines on stderr\n"
"  -h, --help            show this help\n"
"\n"
"A COMMAND runs in the mounted filesystem with POWERCUT_MNT (the mount\n"
"point), POWERCUT_CONTROL (the control socket) and POWERCUT (this program)\n"
"in its environment, and calls 'powercut mark' itself.  Needs root.\n"
"Output: DIR/powercut.log, report.txt, report.json, report.html, workload.txt (one\n"
"directory per configuration when there are several, and the comparison\n"
"in DIR/report.txt).  Exit status: 0 no problem, 1 problems found, 2 error.\n");
}

#define MAX_SYSCTLS 8

struct config {
  struct pc_check_result *res;  /* kept for the comparison page */
  const char *fs;
  const char *mount_opts;
  char opts_buf[256];           /* mount_opts, from --config */
  struct pc_sysctl sysctls[MAX_SYSCTLS];
  size_t nsysctls;
  char label[128];
  char dir[PATH_MAX];
  /* results */
  bool ok;
  char error[1100];
  size_t points, unique, files;
  size_t count[PC_V_COUNT];
  struct pc_window_summary win;
};

static void
status_line (void *ctx, const char *line)
{
  const char *label = ctx;

  fprintf (stderr, "powercut run: %s: %s\n", label, line);
}

struct progress {
  uint64_t t0;
};

static void
check_progress (void *ctx, size_t done, size_t total)
{
  struct progress *p = ctx;
  double secs = (pc_now_mono_ns () - p->t0) / 1e9;

  fprintf (stderr, "\rchecking %zu/%zu crash states (%.0f s) ", done, total, secs);
  if (done == total)
    fputc ('\n', stderr);
}

/* Distinct failing paths of a check. */
static size_t
files_affected (const struct pc_check_result *res)
{
  size_t n;

  free (pc_report_paths (res, -1, &n));
  return n;
}

/* Seconds for the table: "-" for none. */
static const char *
secs (char *buf, size_t len, bool have, uint64_t ns)
{
  if (have)
    snprintf (buf, len, "%.1f s", (double) ns / 1e9);
  else
    snprintf (buf, len, "-");
  return buf;
}

/* The windows' columns: the longest (with "+": some version was still at
 * risk at the last crash point, for that long), the median, and how long
 * acknowledged data stayed lost. */
static void
window_cols (FILE *f, const struct pc_window_summary *s)
{
  char a[32], b[32], c[32];

  if (s->never && s->open_ns >= s->longest_ns)
    snprintf (a, sizeof a, ">%.1f s", (double) s->open_ns / 1e9);
  else
    secs (a, sizeof a, s->longest != SIZE_MAX, s->longest_ns);
  fprintf (f, "  | %14s  %6s  %10s", a, secs (b, sizeof b, s->longest != SIZE_MAX, s->median_ns),
           secs (c, sizeof c, s->ack_exposed != SIZE_MAX, s->ack_exposed_ns));
}

/* The comparison; with app (--verify given), a column for app-invalid. */
static void
table (FILE *f, struct config *cf, size_t n, bool app)
{
  const int cols[] = { PC_V_OK, PC_V_FS_CORRUPT, PC_V_UNMOUNTABLE, PC_V_ZERO_LENGTH,
                       PC_V_MISSING, PC_V_MISMATCH, PC_V_DURABLE_LOST, PC_V_APP_INVALID };
  const size_t ncols = sizeof cols / sizeof cols[0] - !app;
  size_t w = strlen ("configuration");
  bool unchecked = false, windows = false;

  for (size_t i = 0; i < n; i++)
    if (strlen (cf[i].label) > w)
      w = strlen (cf[i].label);
  /* Each column as wide as its name or its widest number. */
  int cw[sizeof cols / sizeof cols[0]];
  for (size_t k = 0; k < ncols; k++) {
    cw[k] = (int) strlen (pc_verdict_name (cols[k]));
    for (size_t i = 0; i < n; i++) {
      char num[32];
      int len = snprintf (num, sizeof num, "%zu", cf[i].count[cols[k]]);
      if (cf[i].ok && len > cw[k])
        cw[k] = len;
    }
  }
  /* States powercut could not check are no verdict: a column apart, there
   * only when some configuration has them. */
  for (size_t i = 0; i < n; i++)
    unchecked |= cf[i].ok && cf[i].count[PC_V_NOT_CHECKED] > 0;
  fprintf (f, "%-*s  %6s", (int) w, "configuration", "points");
  for (size_t k = 0; k < ncols; k++)
    fprintf (f, "  %*s", cw[k], pc_verdict_name (cols[k]));
  for (size_t i = 0; i < n; i++)
    windows |= cf[i].ok && cf[i].win.n > 0;
  fprintf (f, "  files%s%s\n", unchecked ? "  | not checked" : "",
           windows ? "  | longest window  median  acked lost" : "");
  for (size_t i = 0; i < n; i++) {
    fprintf (f, "%-*s  ", (int) w, cf[i].label);
    if (!cf[i].ok) {
      fprintf (f, "error: %s\n", cf[i].error);
      continue;
    }
    fprintf (f, "%6zu", cf[i].points);
    for (size_t k = 0; k < ncols; k++)
      fprintf (f, "  %*zu", cw[k], cf[i].count[cols[k]]);
    fprintf (f, "  %5zu", cf[i].files);
    if (unchecked)
      fprintf (f, "  | %11zu", cf[i].count[PC_V_NOT_CHECKED]);
    if (windows)
      window_cols (f, &cf[i].win);
    fputc ('\n', f);
  }
}

/* A configuration's windows in the comparison JSON (seconds; null: none). */
static json_object *
window_json (const struct pc_window_summary *s)
{
  json_object *o = json_object_new_object ();

  json_object_object_add (o, "versions", json_object_new_int64 ((int64_t) s->n));
  json_object_object_add (o, "longest", s->longest != SIZE_MAX
                          ? json_object_new_double (s->longest_ns / 1e9) : NULL);
  json_object_object_add (o, "median", s->longest != SIZE_MAX
                          ? json_object_new_double (s->median_ns / 1e9) : NULL);
  json_object_object_add (o, "not_durable", json_object_new_int64 ((int64_t) s->never));
  json_object_object_add (o, "open", json_object_new_double (s->open_ns / 1e9));
  json_object_object_add (o, "acknowledged_exposed", json_object_new_double (s->ack_exposed_ns / 1e9));
  return o;
}

static int
write_comparison_json (const char *path, const char *workload, struct config *cf, size_t n)
{
  json_object *root = json_object_new_object (), *arr = json_object_new_array ();
  int r = 0;

  json_object_object_add (root, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (root, "workload", json_object_new_string (workload));
  for (size_t i = 0; i < n; i++) {
    json_object *o = json_object_new_object (), *t = json_object_new_object ();
    json_object_object_add (o, "configuration", json_object_new_string (cf[i].label));
    json_object_object_add (o, "fs", json_object_new_string (cf[i].fs));
    json_object_object_add (o, "mount_opts", json_object_new_string (cf[i].mount_opts));
    json_object_object_add (o, "dir", json_object_new_string (cf[i].dir));
    if (!cf[i].ok)
      json_object_object_add (o, "error", json_object_new_string (cf[i].error));
    else {
      json_object_object_add (t, "points", json_object_new_int64 ((int64_t) cf[i].points));
      for (int v = 0; v < PC_V_COUNT; v++)
        json_object_object_add (t, pc_verdict_name (v), json_object_new_int64 ((int64_t) cf[i].count[v]));
      json_object_object_add (o, "totals", t);
      json_object_object_add (o, "files_affected", json_object_new_int64 ((int64_t) cf[i].files));
      json_object_object_add (o, "windows", window_json (&cf[i].win));
    }
    json_object_array_add (arr, o);
  }
  json_object_object_add (root, "configurations", arr);
  if (json_object_to_file_ext (path, root, JSON_C_TO_STRING_PRETTY) < 0)
    r = -EIO;
  json_object_put (root);
  return r;
}

/* One page with every configuration's timeline, aligned, under the table. */
static void
write_comparison_html (const char *out, const char *workload, struct config *cf, size_t n)
{
  struct pc_html_config hc[MAX_CONFIGS];
  struct pc_index ix[MAX_CONFIGS];
  bool have[MAX_CONFIGS];
  char path[PATH_MAX + 32], title[256];
  size_t k = 0;

  for (size_t i = 0; i < n; i++) {
    char logp[PATH_MAX + 32];
    if (!cf[i].ok)
      continue;
    snprintf (logp, sizeof logp, "%s/powercut.log", cf[i].dir);
    have[k] = pc_index_load (logp, &ix[k]) == 0;
    hc[k].label = cf[i].label;
    hc[k].res = cf[i].res;
    hc[k].ix = have[k] ? &ix[k] : NULL;
    k++;
  }
  snprintf (path, sizeof path, "%s/report.html", out);
  snprintf (title, sizeof title, "powercut run: %s on %zu configurations", workload, n);
  if (pc_report_html (path, title, hc, k) < 0)
    pc_err ("run", "%s: cannot write", path);
  for (size_t i = 0; i < k; i++)
    if (have[i])
      pc_index_free (&ix[i]);
}

/* Parses a --config: "FS [MOUNT-OPTS] [vm.dirty_NAME=VALUE]...".  Returns
 * 0, or -EINVAL with a reason in why. */
static int
parse_config (const char *spec, struct config *c, char *why, size_t len)
{
  char buf[512], *save = NULL;
  bool have_opts = false;

  memset (c, 0, sizeof *c);
  snprintf (buf, sizeof buf, "%s", spec);
  c->mount_opts = "";
  for (char *w = strtok_r (buf, " \t", &save); w; w = strtok_r (NULL, " \t", &save)) {
    if (c->fs == NULL) {
      if (strcmp (w, "ext2") && strcmp (w, "ext3") && strcmp (w, "ext4")) {
        snprintf (why, len, "--config '%s': starts with %s, not ext2, ext3 or ext4", spec, w);
        return -EINVAL;
      }
      c->fs = strcmp (w, "ext2") == 0 ? "ext2" : strcmp (w, "ext3") == 0 ? "ext3" : "ext4";
    }
    else if (strchr (w, '.') && (!strchr (w, '=') || strchr (w, '.') < strchr (w, '='))) {
      /* a knob: a dotted name (mount options have none before '=') */
      char swhy[200];
      if (c->nsysctls == MAX_SYSCTLS) {
        snprintf (why, len, "--config '%s': at most %d knobs", spec, MAX_SYSCTLS);
        return -EINVAL;
      }
      if (pc_sysctl_parse (w, &c->sysctls[c->nsysctls++], swhy, sizeof swhy) < 0) {
        snprintf (why, len, "--config '%s': %s", spec, swhy);
        return -EINVAL;
      }
    }
    else if (!have_opts) {
      snprintf (c->opts_buf, sizeof c->opts_buf, "%s", w);
      c->mount_opts = c->opts_buf;
      have_opts = true;
    }
    else {
      snprintf (why, len, "--config '%s': '%s': mount options are one word, separated by "
                "commas", spec, w);
      return -EINVAL;
    }
  }
  if (c->fs == NULL) {
    snprintf (why, len, "--config '%s': no filesystem", spec);
    return -EINVAL;
  }
  return 0;
}

static void
label_and_dir (struct config *c, size_t idx, size_t n, const char *out)
{
  char slug[128];
  size_t k = 0, l;

  l = (size_t) snprintf (c->label, sizeof c->label, "%s%s%s", c->fs, c->mount_opts[0] ? " " : "",
                         c->mount_opts);
  for (size_t i = 0; i < c->nsysctls && l < sizeof c->label; i++)
    l += (size_t) snprintf (c->label + l, sizeof c->label - l, " %s=%s", c->sysctls[i].name,
                            c->sysctls[i].value);
  for (const char *p = c->label; *p && k + 1 < sizeof slug; p++)
    slug[k++] = (*p == ' ' || *p == '/' || *p == ',' || *p == '=') ? '-' : *p;
  slug[k] = '\0';
  if (n == 1)
    snprintf (c->dir, sizeof c->dir, "%s", out);
  else
    snprintf (c->dir, sizeof c->dir, "%s/%zu-%s", out, idx + 1, slug);
}

static int
mkdir_p (const char *path)
{
  char buf[PATH_MAX];

  snprintf (buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir (buf, 0755) < 0 && errno != EEXIST)
        return -errno;
      *p = '/';
    }
  if (mkdir (buf, 0755) < 0 && errno != EEXIST)
    return -errno;
  return 0;
}

int
cmd_run (int argc, char **argv)
{
  enum { OPT_LIST = 256, OPT_MKFS, OPT_ATTACH, OPT_SEED, OPT_FILES, OPT_TIMEOUT, OPT_KERNEL,
         OPT_MODULES, OPT_CONNS, OPT_VERIFY, OPT_SECONDS };
  static const struct option opts[] = {
    { "workload", required_argument, NULL, 'w' },
    { "list-workloads", no_argument, NULL, OPT_LIST },
    { "fs", required_argument, NULL, 't' },
    { "mkfs-opts", required_argument, NULL, OPT_MKFS },
    { "mount-opts", required_argument, NULL, 'o' },
    { "config", required_argument, NULL, 'c' },
    { "seconds", required_argument, NULL, OPT_SECONDS },
    { "size", required_argument, NULL, 's' },
    { "attach", required_argument, NULL, OPT_ATTACH },
    { "kernel", required_argument, NULL, OPT_KERNEL },
    { "modules", required_argument, NULL, OPT_MODULES },
    { "connections", required_argument, NULL, OPT_CONNS },
    { "model", required_argument, NULL, 'm' },
    { "seed", required_argument, NULL, OPT_SEED },
    { "files", required_argument, NULL, OPT_FILES },
    { "jobs", required_argument, NULL, 'j' },
    { "out", required_argument, NULL, 'O' },
    { "timeout", required_argument, NULL, OPT_TIMEOUT },
    { "verify", required_argument, NULL, OPT_VERIFY },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *fss[MAX_CONFIGS], *mos[MAX_CONFIGS], *out = "powercut-out", *wname = NULL;
  const char *verify = NULL;
  size_t nfs = 0, nmo = 0, ncf = 0, nspec = 0;
  static struct config specs[MAX_CONFIGS];
  struct config cf[MAX_CONFIGS];
  struct pc_run_config rc = { 0 };
  struct pc_model model = { PC_MODEL_FLUSH, PC_MODEL_DEFAULT_K, 0 };
  char self[PATH_MAX], why[1024], path[PATH_MAX + 64];
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  unsigned jobs = ncpu > 0 ? (unsigned) ncpu : 1;
  bool quiet = false, failed = false, error = false;
  unsigned long v;
  char *end;
  ssize_t n;
  int c;

  memset (cf, 0, sizeof cf);
  rc.size = UINT64_C(128) << 20;
  rc.timeout_s = 300;
  rc.attach = PC_ATTACH_AUTO;
  while ((c = getopt_long (argc, argv, "+w:t:o:c:s:m:j:O:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'w': wname = optarg; break;
    case OPT_LIST: {
      size_t nw;
      const struct pc_workload *w = pc_workloads (&nw);
      for (size_t i = 0; i < nw; i++)
        printf ("%-24s %s\n", w[i].name, w[i].what);
      return EXIT_OK;
    }
    case 't':
      if (strcmp (optarg, "ext2") && strcmp (optarg, "ext3") && strcmp (optarg, "ext4")) {
        pc_err ("run", "--fs %s: not ext2, ext3 or ext4", optarg);
        return EXIT_ERROR;
      }
      if (nfs == MAX_CONFIGS)
        goto too_many;
      fss[nfs++] = optarg;
      break;
    case OPT_MKFS: rc.mkfs_opts = optarg; break;
    case 'c':
      if (nspec == MAX_CONFIGS)
        goto too_many;
      if (parse_config (optarg, &specs[nspec], why, sizeof why) < 0) {
        pc_err ("run", "%s", why);
        return EXIT_ERROR;
      }
      nspec++;
      break;
    case 'o':
      if (nmo == MAX_CONFIGS)
        goto too_many;
      if (strchr (optarg, ' ') || strchr (optarg, '\t')) {
        pc_err ("run", "--mount-opts '%s': options are separated by commas, not blanks", optarg);
        return EXIT_ERROR;
      }
      mos[nmo++] = optarg;
      break;
    case 's':
      /* check keeps the device, and a signature per 4K block, in memory:
       * past 1 TiB that is more than a machine is likely to have. */
      if (pc_parse_size (optarg, &rc.size) < 0 || rc.size < (UINT64_C(16) << 20) ||
          rc.size > (UINT64_C(1) << 40) || rc.size % 4096) {
        pc_err ("run", "--size %s: not a size from 16M to 1T in whole 4K blocks", optarg);
        return EXIT_ERROR;
      }
      break;
    case OPT_ATTACH:
      if (strcmp (optarg, "auto") == 0)
        rc.attach = PC_ATTACH_AUTO;
      else if (strcmp (optarg, "nbd") == 0)
        rc.attach = PC_ATTACH_NBD;
      else if (strcmp (optarg, "fuse") == 0)
        rc.attach = PC_ATTACH_FUSE;
      else if (strcmp (optarg, "vm") == 0)
        rc.attach = PC_ATTACH_VM;
      else {
        pc_err ("run", "--attach %s: not auto, nbd, fuse or vm", optarg);
        return EXIT_ERROR;
      }
      break;
    case OPT_KERNEL: rc.kernel = optarg; break;
    case OPT_VERIFY:
      if (*optarg == '\0') {
        pc_err ("run", "--verify: an empty command");
        return EXIT_ERROR;
      }
      verify = optarg;
      break;
    case OPT_MODULES: rc.modules = optarg; break;
    case OPT_CONNS:
      rc.connections = (unsigned) strtoul (optarg, &end, 10);
      if (*end || rc.connections < 1 || rc.connections > 16) {
        pc_err ("run", "--connections %s: not a number from 1 to 16", optarg);
        return EXIT_ERROR;
      }
      break;
    case 'm':
      if (pc_model_parse (optarg, &model) < 0) {
        pc_err ("run", "--model %s: not flush, write, reorder[:K] or torn[:K]", optarg);
        return EXIT_ERROR;
      }
      break;
    case OPT_SEED:
    case OPT_FILES:
    case OPT_TIMEOUT:
    case OPT_SECONDS:
    case 'j':
      errno = 0;
      v = strtoul (optarg, &end, 10);
      if (errno || *end || optarg[0] < '0' || optarg[0] > '9' ||
          (c != OPT_SEED && (v == 0 || v > 100000))) {
        pc_err ("run", "%s: not a %snumber", optarg, c == OPT_SEED ? "" : "positive ");
        return EXIT_ERROR;
      }
      if (c == OPT_SEED)
        rc.seed = model.seed = v;
      else if (c == OPT_FILES)
        rc.files = (unsigned) v;
      else if (c == OPT_TIMEOUT)
        rc.timeout_s = (int) v;
      else if (c == OPT_SECONDS)
        rc.seconds = (unsigned) v;
      else
        jobs = (unsigned) v;
      break;
    case 'O': out = optarg; break;
    case 'q': quiet = true; break;
    case 'h': usage (stdout); return EXIT_OK;
    default: return pc_usage_error ("run");
    }
  }
  model.seed = rc.seed;
  if (optind < argc) {
    if (wname) {
      pc_err ("run", "give either --workload or a command, not both");
      return pc_usage_error ("run");
    }
    rc.command = argv + optind;
  }
  else if (wname) {
    rc.workload = pc_workload_find (wname);
    if (rc.workload == NULL) {
      pc_err ("run", "--workload %s: no such workload (see --list-workloads)", wname);
      return EXIT_ERROR;
    }
  }
  else
    rc.workload = pc_workload_find ("replace-rename");

  /* The configurations. */
  if (nspec > 0) {
    /* --config: these, then any --fs x --mount-opts */
    for (size_t i = 0; i < nspec; i++) {
      cf[ncf] = specs[i];
      cf[ncf].mount_opts = cf[ncf].opts_buf;
      ncf++;
    }
  }
  if (nspec > 0 && nfs == 0 && nmo == 0)
    ;
  else if (nfs == 0 && nmo == 0 && wname == NULL && rc.command == NULL) {
    static const char *const dfs[] = { "ext4", "ext4", "ext4", "ext4", "ext3" };
    static const char *const dmo[] = { "", "noauto_da_alloc", "data=writeback",
                                       "data=journal", "" };
    for (size_t i = 0; i < 5; i++) {
      cf[ncf].fs = dfs[i];
      cf[ncf++].mount_opts = dmo[i];
    }
  }
  else {
    if (nfs == 0)
      fss[nfs++] = "ext4";
    if (nmo == 0)
      mos[nmo++] = "";
    if (ncf + nfs * nmo > MAX_CONFIGS)
      goto too_many;
    for (size_t i = 0; i < nfs; i++)
      for (size_t j = 0; j < nmo; j++) {
        cf[ncf].fs = fss[i];
        cf[ncf].nsysctls = 0;
        cf[ncf++].mount_opts = mos[j];
      }
  }
  for (size_t i = 0; i < ncf; i++) {
    cf[i].res = NULL;
    memset (cf[i].count, 0, sizeof cf[i].count);
    cf[i].ok = false;
    cf[i].error[0] = '\0';
    label_and_dir (&cf[i], i, ncf, out);
  }

  if (geteuid () != 0 && rc.attach != PC_ATTACH_VM) {
    pc_err ("run", "needs root (to attach a block device, make and mount a filesystem)");
    return EXIT_ERROR;
  }
  n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    pc_err ("run", "/proc/self/exe: %s", strerror (errno));
    return EXIT_ERROR;
  }
  self[n] = '\0';
  rc.self = self;
  if (mkdir_p (out) < 0) {
    pc_err ("run", "%s: %s", out, strerror (errno));
    return EXIT_ERROR;
  }
  /* Two runs at once must not write over each other's output. */
  {
    char lockp[PATH_MAX + 16];
    int lfd;
    snprintf (lockp, sizeof lockp, "%s/.lock", out);
    lfd = open (lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lfd < 0 || flock (lfd, LOCK_EX | LOCK_NB) < 0) {
      pc_err ("run", "%s: %s", out, lfd < 0 ? strerror (errno)
              : "another run is writing there (choose another --out)");
      return EXIT_ERROR;
    }
    /* held until exit */
  }
  /* Writeback knobs an earlier run here set and could not put back (it
   * was killed): back first. */
  {
    static char savep[PATH_MAX + 32];
    char done[512];
    int r;
    snprintf (savep, sizeof savep, "%s/.sysctl-saved", out);
    rc.sysctl_save = savep;
    r = pc_sysctl_recover (savep, done, sizeof done, why, sizeof why);
    if (r < 0) {
      pc_err ("run", "%s", why);
      return EXIT_ERROR;
    }
    if (r > 0)
      pc_err ("run", "put back what an earlier run that did not finish had set: %s", done);
  }
  pc_catch_stop_signals ();
  pc_proc_interrupted = &pc_stop_requested;

  for (size_t i = 0; i < ncf && !pc_stop_requested; i++) {
    struct config *k = &cf[i];
    struct pc_check_config cc = { 0 };
    struct pc_check_result *res = NULL;
    struct progress prog = { pc_now_mono_ns () };
    char logp[PATH_MAX + 32], tracep[PATH_MAX + 32], consolep[PATH_MAX + 32];
    FILE *f;
    int r;

    if (mkdir_p (k->dir) < 0) {
      snprintf (k->error, sizeof k->error, "%s: %s", k->dir, strerror (errno));
      error = true;
      continue;
    }
    snprintf (logp, sizeof logp, "%s/powercut.log", k->dir);
    snprintf (tracep, sizeof tracep, "%s/workload.txt", k->dir);
    snprintf (consolep, sizeof consolep, "%s/console.txt", k->dir);
    rc.console_path = consolep;
    rc.fs = k->fs;
    rc.mount_opts = k->mount_opts;
    rc.sysctls = k->sysctls;
    rc.nsysctls = k->nsysctls;
    rc.log_path = logp;
    rc.trace_path = tracep;
    rc.status = quiet ? NULL : status_line;
    rc.status_ctx = k->label;
    r = pc_run_record (&rc, why, sizeof why);
    if (r < 0) {
      snprintf (k->error, sizeof k->error, "%s", why);
      pc_err ("run", "%s: %s", k->label, why);
      error = true;
      continue;
    }
    cc.log_path = logp;
    cc.model = model;
    cc.jobs = jobs;
    cc.verify = verify;
    cc.nshards = 1;
    cc.timeout_s = 60;
    cc.interrupted = &pc_stop_requested;
    if (!quiet && isatty (2)) {
      cc.progress = check_progress;
      cc.progress_ctx = &prog;
    }
    if (!quiet)
      status_line (k->label, "checking every crash point");
    r = pc_check_run (&cc, &res, why, sizeof why);
    if (r < 0) {
      snprintf (k->error, sizeof k->error, "check: %s", why);
      pc_err ("run", "%s: check: %s", k->label, why);
      error = true;
      continue;
    }
    k->ok = true;
    k->points = res->npoints;
    k->unique = res->unique;
    memcpy (k->count, res->count, sizeof k->count);
    k->files = files_affected (res);
    pc_windows_summary (res, &k->win);
    failed |= pc_report_failed (res);
    if (res->count[PC_V_NOT_CHECKED] > 0) {
      /* Some states could not be checked: the run could not finish. */
      pc_err ("run", "%s: %zu crash points could not be checked (see %s/report.txt)",
              k->label, res->count[PC_V_NOT_CHECKED], k->dir);
      error = true;
    }
    snprintf (path, sizeof path, "%s/report.txt", k->dir);
    f = fopen (path, "we");
    if (f) {
      pc_report_text (f, res);
      fclose (f);
    }
    snprintf (path, sizeof path, "%s/report.json", k->dir);
    if (pc_report_json (path, res) < 0) {
      pc_err ("run", "%s: cannot write", path);
      error = true;
    }
    if (ncf == 1)
      pc_report_text (stdout, res);
    snprintf (path, sizeof path, "%s/report.html", k->dir);
    {
      struct pc_index ix;
      struct pc_html_config hc = { k->label, res, NULL };
      char title[256];
      int have = pc_index_load (logp, &ix) == 0;
      if (have)
        hc.ix = &ix;
      snprintf (title, sizeof title, "powercut run: %s on %s",
                rc.workload ? rc.workload->name : rc.command[0], k->label);
      if (pc_report_html (path, title, &hc, 1) < 0) {
        pc_err ("run", "%s: cannot write", path);
        error = true;
      }
      if (have)
        pc_index_free (&ix);
    }
    k->res = res;
  }
  if (pc_stop_requested) {
    pc_err ("run", "interrupted: everything it started is torn down");
    return EXIT_ERROR;
  }
  if (ncf > 1) {
    FILE *f;
    printf ("powercut run: %s on %zu configurations\n\n",
            rc.workload ? rc.workload->name : rc.command[0], ncf);
    table (stdout, cf, ncf, verify != NULL);
    printf ("\nreports: %s/*/report.txt\n", out);
    snprintf (path, sizeof path, "%s/report.txt", out);
    f = fopen (path, "we");
    if (f) {
      fprintf (f, "powercut run: %s on %zu configurations\n\n",
               rc.workload ? rc.workload->name : rc.command[0], ncf);
      table (f, cf, ncf, verify != NULL);
      fclose (f);
    }
    snprintf (path, sizeof path, "%s/report.json", out);
    write_comparison_json (path, rc.workload ? rc.workload->name : rc.command[0], cf, ncf);
    write_comparison_html (out, rc.workload ? rc.workload->name : rc.command[0], cf, ncf);
  }
  for (size_t i = 0; i < ncf; i++)
    pc_check_result_free (cf[i].res);
  return error ? EXIT_ERROR : failed ? EXIT_PROBLEMS : EXIT_OK;

too_many:
  pc_err ("run", "at most %d configurations", MAX_CONFIGS);
  return EXIT_ERROR;
}
