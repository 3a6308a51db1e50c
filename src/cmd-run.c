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

#include "check/checker.h"
#include "cmd.h"
#include "report/compare.h"
#include "util/proc.h"
#include "report/report.h"
#include "run/configs.h"
#include "run/run.h"
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
"                        (shared with runs beside it: see powercut-run(1))\n"
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
"      --seconds N       how long a timed workload writes (steady: default 60,\n"
"                        rename-over: 20)\n"
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

/* run.h's sysctl_waiting: one line on stderr, even with --quiet (the run
 * seems to hang otherwise). */
static void
sysctl_waiting (void *ctx, const char *name, long pid)
{
  (void) ctx;
  cmd_err ("run", "%s is held by another run (pid %ld) with another value: waiting", name, pid);
}

/* compare.h's problem callback: one line on stderr. */
static void
problem_line (void *ctx, const char *line)
{
  (void) ctx;
  cmd_err ("run", "%s", line);
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
  const char *fss[PC_MAX_CONFIGS], *mos[PC_MAX_CONFIGS], *out = "powercut-out", *wname = NULL;
  const char *verify = NULL;
  size_t nfs = 0, nmo = 0, ncf = 0, nspec = 0;
  static struct pc_config specs[PC_MAX_CONFIGS];
  static struct pc_config cf[PC_MAX_CONFIGS];
  static struct pc_outcome got[PC_MAX_CONFIGS];
  struct pc_run_config rc = { 0 };
  struct pc_err err;
  struct pc_model model = { PC_MODEL_FLUSH, PC_MODEL_DEFAULT_K, 0 };
  char self[PATH_MAX], why[1024], path[PATH_MAX + 64];
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  unsigned jobs = ncpu > 0 ? (unsigned) ncpu : 1;
  bool quiet = false, failed = false, error = false;
  unsigned long v;
  char *end;
  ssize_t n;
  int c;

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
        cmd_err ("run", "--fs %s: not ext2, ext3 or ext4", optarg);
        return EXIT_ERROR;
      }
      if (nfs == PC_MAX_CONFIGS)
        goto too_many;
      fss[nfs++] = optarg;
      break;
    case OPT_MKFS: rc.mkfs_opts = optarg; break;
    case 'c':
      if (nspec == PC_MAX_CONFIGS)
        goto too_many;
      if (pc_config_parse (optarg, &specs[nspec], &err) < 0) {
        cmd_err ("run", "%s", err.msg);
        return EXIT_ERROR;
      }
      nspec++;
      break;
    case 'o':
      if (nmo == PC_MAX_CONFIGS)
        goto too_many;
      if (strchr (optarg, ' ') || strchr (optarg, '\t')) {
        cmd_err ("run", "--mount-opts '%s': options are separated by commas, not blanks", optarg);
        return EXIT_ERROR;
      }
      mos[nmo++] = optarg;
      break;
    case 's':
      /* check keeps the device, and a signature per 4K block, in memory:
       * past 1 TiB that is more than a machine is likely to have. */
      if (pc_parse_size (optarg, &rc.size) < 0 || rc.size < (UINT64_C(16) << 20) ||
          rc.size > (UINT64_C(1) << 40) || rc.size % 4096) {
        cmd_err ("run", "--size %s: not a size from 16M to 1T in whole 4K blocks", optarg);
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
        cmd_err ("run", "--attach %s: not auto, nbd, fuse or vm", optarg);
        return EXIT_ERROR;
      }
      break;
    case OPT_KERNEL: rc.kernel = optarg; break;
    case OPT_VERIFY:
      if (*optarg == '\0') {
        cmd_err ("run", "--verify: an empty command");
        return EXIT_ERROR;
      }
      verify = optarg;
      break;
    case OPT_MODULES: rc.modules = optarg; break;
    case OPT_CONNS:
      rc.connections = (unsigned) strtoul (optarg, &end, 10);
      if (*end || rc.connections < 1 || rc.connections > 16) {
        cmd_err ("run", "--connections %s: not a number from 1 to 16", optarg);
        return EXIT_ERROR;
      }
      break;
    case 'm':
      if (pc_model_spec_parse (optarg, &model, NULL) < 0) {
        char names[256];
        cmd_err ("run", "--model %s: not %s", optarg, pc_model_names (names, sizeof names));
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
        cmd_err ("run", "%s: not a %snumber", optarg, c == OPT_SEED ? "" : "positive ");
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
      cmd_err ("run", "give either --workload or a command, not both");
      return pc_usage_error ("run");
    }
    rc.command = argv + optind;
  }
  else if (wname) {
    rc.workload = pc_workload_find (wname);
    if (rc.workload == NULL) {
      cmd_err ("run", "--workload %s: no such workload (see --list-workloads)", wname);
      return EXIT_ERROR;
    }
  }
  else
    rc.workload = pc_workload_find ("replace-rename");

  /* The configurations. */
  if (nspec > 0) {
    /* --config: these, then any --fs x --mount-opts */
    for (size_t i = 0; i < nspec; i++)
      pc_config_copy (&cf[ncf++], &specs[i]);
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
    if (ncf + nfs * nmo > PC_MAX_CONFIGS)
      goto too_many;
    for (size_t i = 0; i < nfs; i++)
      for (size_t j = 0; j < nmo; j++) {
        cf[ncf].fs = fss[i];
        cf[ncf].nsysctls = 0;
        cf[ncf++].mount_opts = mos[j];
      }
  }
  for (size_t i = 0; i < ncf; i++)
    pc_config_name (&cf[i], i, ncf, out, &got[i]);

  if (geteuid () != 0 && rc.attach != PC_ATTACH_VM) {
    cmd_err ("run", "needs root (to attach a block device, make and mount a filesystem)");
    return EXIT_ERROR;
  }
  n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    cmd_err ("run", "/proc/self/exe: %s", strerror (errno));
    return EXIT_ERROR;
  }
  self[n] = '\0';
  rc.self = self;
  if (pc_mkdir_p (out) < 0) {
    cmd_err ("run", "%s: %s", out, strerror (errno));
    return EXIT_ERROR;
  }
  /* Two runs at once must not write over each other's output. */
  {
    char lockp[PATH_MAX + 16];
    int lfd;
    snprintf (lockp, sizeof lockp, "%s/.lock", out);
    lfd = open (lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lfd < 0 || flock (lfd, LOCK_EX | LOCK_NB) < 0) {
      cmd_err ("run", "%s: %s", out, lfd < 0 ? strerror (errno)
              : "another run is writing there (choose another --out)");
      return EXIT_ERROR;
    }
    /* held until exit */
  }
  /* The writeback knobs are shared with other runs through one record on
   * this machine ($POWERCUT_RUN_DIR/sysctl, for tests; else
   * PC_SYSCTL_DIR).  Those a run that was killed still held go back
   * first (only root can have set any). */
  {
    static char dirp[PATH_MAX + 16];
    const char *rd = getenv ("POWERCUT_RUN_DIR");
    char done[512];
    int r;
    if (rd && *rd) {
      snprintf (dirp, sizeof dirp, "%s/sysctl", rd);
      rc.sysctl_host.dir = dirp;
    }
    rc.sysctl_waiting = sysctl_waiting;
    if (geteuid () == 0) {
      r = pc_sysctl_recover (&rc.sysctl_host, done, sizeof done, why, sizeof why);
      if (r < 0) {
        cmd_err ("run", "%s", why);
        return EXIT_ERROR;
      }
      if (r > 0)
        cmd_err ("run", "put back what an earlier run that did not finish had set: %s", done);
    }
  }
  pc_catch_stop_signals ();
  pc_proc_interrupted = &pc_stop_requested;

  {
    struct pc_config_job job = { 0 };
    struct progress prog;
    job.run = rc;
    job.run.status = quiet ? NULL : status_line;
    job.check.model = model;
    job.check.jobs = jobs;
    job.check.verify = verify;
    job.title = rc.workload ? rc.workload->name : rc.command[0];
    job.check.interrupted = &pc_stop_requested;
    if (!quiet && isatty (2)) {
      job.check.progress = check_progress;
      job.check.progress_ctx = &prog;
    }
    job.problem = problem_line;
    for (size_t i = 0; i < ncf && !pc_stop_requested; i++) {
      int r;
      prog.t0 = pc_now_mono_ns ();
      r = pc_config_run (&job, &cf[i], &got[i]);
      error |= r != 0;
      if (got[i].ok) {
        failed |= pc_report_failed (got[i].res);
        if (ncf == 1)
          pc_report_text (stdout, got[i].res);
      }
    }
  }
  if (pc_stop_requested) {
    cmd_err ("run", "interrupted: everything it started is torn down");
    return EXIT_ERROR;
  }
  if (ncf > 1) {
    FILE *f;
    printf ("powercut run: %s on %zu configurations\n\n",
            rc.workload ? rc.workload->name : rc.command[0], ncf);
    pc_compare_table (stdout, got, ncf, verify != NULL);
    printf ("\nreports: %s/*/report.txt\n", out);
    snprintf (path, sizeof path, "%s/report.txt", out);
    f = fopen (path, "we");
    if (f) {
      fprintf (f, "powercut run: %s on %zu configurations\n\n",
               rc.workload ? rc.workload->name : rc.command[0], ncf);
      pc_compare_table (f, got, ncf, verify != NULL);
      fclose (f);
    }
    snprintf (path, sizeof path, "%s/report.json", out);
    if (pc_compare_json (path, rc.workload ? rc.workload->name : rc.command[0], got, ncf) < 0 ||
        pc_compare_html (out, rc.workload ? rc.workload->name : rc.command[0], got, ncf) < 0) {
      cmd_err ("run", "%s: cannot write the comparison", out);
      error = true;
    }
  }
  for (size_t i = 0; i < ncf; i++)
    pc_check_result_free (got[i].res);
  return error ? EXIT_ERROR : failed ? EXIT_PROBLEMS : EXIT_OK;

too_many:
  cmd_err ("run", "at most %d configurations", PC_MAX_CONFIGS);
  return EXIT_ERROR;
}
