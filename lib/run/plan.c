/* plan.c: powercut run from its options to its exit status. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "report/report.h"
#include "run/configs.h"
#include "fs/fs.h"
#include "run/plan.h"
#include "run/repeated.h"
#include "util/util.h"

/* An earlier run's reports in out and in its configurations' folders
 * (those holding a powercut.log, or run-K folders of --repeat that do),
 * and in those of their runs: gone before this run writes its own. */
static void
forget_earlier (const char *out, int depth)
{
  DIR *d = opendir (out);
  struct dirent *de;

  pc_config_forget_reports (out);
  while (depth > 0 && d && (de = readdir (d)) != NULL) {
    char sub[PATH_MAX + 256], log[PATH_MAX + 272], run1[PATH_MAX + 288];
    if (de->d_name[0] == '.')
      continue;
    snprintf (sub, sizeof sub, "%s/%s", out, de->d_name);
    snprintf (log, sizeof log, "%s/powercut.log", sub);
    snprintf (run1, sizeof run1, "%s/run-1/powercut.log", sub);
    if (access (log, F_OK) == 0)
      pc_config_forget_reports (sub);
    else if (access (run1, F_OK) == 0)
      forget_earlier (sub, depth - 1);
  }
  if (d)
    closedir (d);
}

static int
too_many (struct pc_err *err)
{
  return pc_err_set (err, EINVAL, "at most %d configurations", PC_MAX_CONFIGS);
}

int
pc_run_opt_fs (struct pc_run_options *o, const char *fs, struct pc_err *err)
{
  if (pc_fs_find (fs) == NULL)
    return pc_err_set (err, EINVAL, "--fs %s: not %s", fs, pc_fs_names (false));
  if (o->nfs == PC_MAX_CONFIGS)
    return too_many (err);
  o->fs[o->nfs++] = fs;
  return 0;
}

int
pc_run_opt_mount_opts (struct pc_run_options *o, const char *opts, struct pc_err *err)
{
  if (o->nmount_opts == PC_MAX_CONFIGS)
    return too_many (err);
  if (strchr (opts, ' ') || strchr (opts, '\t'))
    return pc_err_set (err, EINVAL, "--mount-opts '%s': options are separated by commas, "
                       "not blanks", opts);
  o->mount_opts[o->nmount_opts++] = opts;
  return 0;
}

int
pc_run_opt_config (struct pc_run_options *o, const char *spec, struct pc_err *err)
{
  int r;

  if (o->nconfigs == PC_MAX_CONFIGS)
    return too_many (err);
  r = pc_config_parse (spec, &o->configs[o->nconfigs], err);
  if (r < 0)
    return r;
  o->nconfigs++;
  return 0;
}

/* Every --fs with every --mount-opts, after what p has (ext4 and the
 * default options for a list not given). */
static int
plan_product (const struct pc_run_options *o, struct pc_run_plan *p, struct pc_err *err)
{
  static const char *const ext4 = "ext4", *const none = "";
  size_t nfs = o->nfs ? o->nfs : 1, nmo = o->nmount_opts ? o->nmount_opts : 1;

  if (p->n + nfs * nmo > PC_MAX_CONFIGS)
    return too_many (err);
  for (size_t i = 0; i < nfs; i++)
    for (size_t j = 0; j < nmo; j++) {
      struct pc_config *c = &p->cf[p->n++];
      c->fs = o->nfs ? o->fs[i] : ext4;
      c->mount_opts = o->nmount_opts ? o->mount_opts[j] : none;
    }
  return 0;
}

int
pc_run_plan_make (const struct pc_run_options *o, struct pc_run_plan **ret, struct pc_err *err)
{
  static const char *const dfs[] = { "ext4", "ext4", "ext4", "ext4", "ext3" };
  static const char *const dmo[] = { "", "noauto_da_alloc", "data=writeback", "data=journal",
                                     "" };
  struct pc_run_plan *p = calloc (1, sizeof *p);
  int r = 0;

  if (p == NULL)
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  p->out = o->out;
  p->repeat = o->repeat ? o->repeat : 1;
  if (p->repeat > PC_MAX_REPEAT) {
    free (p);
    return pc_err_set (err, EINVAL, "--repeat %u: at most %d", o->repeat, PC_MAX_REPEAT);
  }
  /* --config: these, then any --fs x --mount-opts */
  for (size_t i = 0; i < o->nconfigs; i++)
    pc_config_copy (&p->cf[p->n++], &o->configs[i]);
  if (o->nconfigs > 0 && o->nfs == 0 && o->nmount_opts == 0)
    ;
  else if (o->nfs == 0 && o->nmount_opts == 0 && !o->named) {
    for (size_t i = 0; i < PC_ARRAY_SIZE (dfs); i++) {
      p->cf[p->n].fs = dfs[i];
      p->cf[p->n++].mount_opts = dmo[i];
    }
  }
  else
    r = plan_product (o, p, err);
  if (r < 0) {
    free (p);
    return r;
  }
  for (size_t i = 0; i < p->n; i++)
    pc_config_name (&p->cf[i], i, p->n, p->out, &p->got[i]);
  *ret = p;
  return 0;
}

void
pc_run_plan_free (struct pc_run_plan *plan)
{
  if (plan == NULL)
    return;
  for (size_t i = 0; i < plan->n; i++)
    pc_check_result_free (plan->got[i].res);
  free (plan);
}

int
pc_run_lock (const char *out, struct pc_err *err)
{
  char path[PATH_MAX + 16];
  int fd;

  snprintf (path, sizeof path, "%s/.lock", out);
  fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return pc_err_set (err, errno, "%s: %s", out, strerror (errno));
  if (flock (fd, LOCK_EX | LOCK_NB) < 0) {
    int e = errno == EWOULDBLOCK ? EBUSY : errno;
    close (fd);
    return pc_err_set (err, e, "%s: another run is writing there (choose another --out)", out);
  }
  return fd;
}

void
pc_run_unlock (int fd)
{
  if (fd >= 0)
    close (fd);
}

/* The comparison's heading and table. */
static void
comparison_text (FILE *f, const struct pc_run_plan *plan, const char *title, bool app)
{
  fprintf (f, "powercut run: %s on %zu configurations\n\n", title, plan->n);
  pc_compare_table (f, plan->got, plan->n, app);
}

int
pc_run_write_comparison (FILE *f, const struct pc_run_plan *plan, const char *title, bool app,
                         struct pc_err *err)
{
  char path[PATH_MAX + 32];
  FILE *txt;

  comparison_text (f, plan, title, app);
  fprintf (f, "\nreports: %s/*/report.txt\n", plan->out);
  snprintf (path, sizeof path, "%s/report.txt", plan->out);
  txt = fopen (path, "we");
  if (txt) {
    comparison_text (txt, plan, title, app);
    fclose (txt);
  }
  snprintf (path, sizeof path, "%s/report.json", plan->out);
  if (pc_compare_json (path, title, plan->got, plan->n) < 0 ||
      pc_compare_html (plan->out, title, plan->got, plan->n) < 0)
    return pc_err_set (err, EIO, "%s: cannot write the comparison", plan->out);
  return 0;
}

/* The check's progress, timed from its configuration's beginning. */
struct timed {
  const struct pc_run_job *job;
  uint64_t t0;
};

static void
timed_progress (void *ctx, size_t done, size_t total)
{
  struct timed *t = ctx;

  t->job->progress (t->job->progress_ctx, done, total, (pc_now_mono_ns () - t->t0) / 1e9);
}

/* Puts back what runs that did not finish had set (only root can have
 * set any); says so through each.problem. */
static int
recover_knobs (const struct pc_config_job *each, struct pc_err *err)
{
  char done[512], line[600];
  int r;

  if (geteuid () != 0)
    return 0;
  r = pc_sysctl_recover (&each->run.sysctl_host, done, sizeof done, err);
  if (r < 0)
    return r;
  if (r > 0) {
    snprintf (line, sizeof line, "put back what an earlier run that did not finish had set: %s",
              done);
    each->problem (each->ctx, line);
  }
  return 0;
}

/* Before the first configuration: root, this program, the output
 * directory and its lock, the knobs' record.  Returns the lock or -errno. */
static int
prepare (const struct pc_run_job *job, struct pc_config_job *each, const char *out,
         char *self, size_t selflen, char *sysdir, size_t sysdirlen, struct pc_err *err)
{
  ssize_t n;
  int lock, r;

  if (geteuid () != 0 && each->run.attach != PC_ATTACH_VM)
    return pc_err_set (err, EPERM, "needs root (to attach a block device, make and mount a "
                       "filesystem)");
  if (each->run.self == NULL) {
    n = readlink ("/proc/self/exe", self, selflen - 1);
    if (n <= 0)
      return pc_err_set (err, n < 0 ? errno : ENOENT, "/proc/self/exe: %s",
                         strerror (n < 0 ? errno : ENOENT));
    self[n] = '\0';
    each->run.self = self;
  }
  if (pc_mkdir_p (out) < 0)
    return pc_err_set (err, errno, "%s: %s", out, strerror (errno));
  lock = pc_run_lock (out, err);
  if (lock < 0)
    return lock;
  forget_earlier (out, 2);
  if (job->run_dir && *job->run_dir) {
    snprintf (sysdir, sysdirlen, "%s/sysctl", job->run_dir);
    each->run.sysctl_host.dir = sysdir;
  }
  r = recover_knobs (each, err);
  if (r < 0) {
    pc_run_unlock (lock);
    return r;
  }
  return lock;
}

/* A device set's text report (dir/report.txt) onto f. */
static void
copy_report (FILE *f, const char *dir)
{
  char path[PATH_MAX + 16], buf[8192];
  FILE *in;
  size_t n;

  snprintf (path, sizeof path, "%s/report.txt", dir);
  if ((in = fopen (path, "re")) == NULL)
    return;
  while ((n = fread (buf, 1, sizeof buf, in)) > 0)
    fwrite (buf, 1, n, f);
  fclose (in);
}

/* pc_run_all over plan.  Returns its status or -errno. */
static int
run_plan (const struct pc_run_job *job, struct pc_run_plan *plan, struct pc_err *err)
{
  struct pc_config_job each = job->each;
  struct timed timed = { job, 0 };
  const struct pc_run_config *rc = &job->each.run;
  char self[PATH_MAX], sysdir[PATH_MAX + 16];
  bool failed = false, error = false;
  int lock;

  if (each.title == NULL)
    each.title = rc->workload ? rc->workload->name : rc->command[0];
  if (job->progress) {
    each.check.progress = timed_progress;
    each.check.progress_ctx = &timed;
  }
  lock = prepare (job, &each, plan->out, self, sizeof self, sysdir, sizeof sysdir, err);
  if (lock < 0)
    return lock;
  for (size_t i = 0; i < plan->n && !pc_interrupted (); i++) {
    struct pc_outcome *o = &plan->got[i];
    timed.t0 = pc_now_mono_ns ();
    if (plan->repeat > 1) {
      /* the runs together: any run that fails fails the configuration */
      error |= pc_config_run_repeated (&each, &plan->cf[i], o, plan->repeat) != 0;
      failed |= o->ok && pc_fail_on_counts (job->fail_on, o->promises, o->program,
                                            o->exposures, o->recovery);
      if (o->ok && plan->n == 1)
        copy_report (job->report, o->dir);
      continue;
    }
    error |= pc_config_run (&each, &plan->cf[i], o) != 0;
    if (o->ok && o->set) {
      failed |= pc_fail_on_counts (job->fail_on, o->promises, o->program, o->exposures, 0);
      if (plan->n == 1)
        copy_report (job->report, o->dir);
    }
    else if (o->ok) {
      failed |= pc_report_failed_on (o->res, job->fail_on);
      if (plan->n == 1)
        pc_report_text (job->report, o->res);
    }
  }
  if (pc_interrupted ()) {
    pc_run_unlock (lock);
    return pc_err_set (err, EINTR, "interrupted: everything it started is torn down");
  }
  if (plan->n > 1) {
    struct pc_err werr;
    if (pc_run_write_comparison (job->report, plan, each.title, each.check.verify != NULL,
                                 &werr) < 0) {
      each.problem (each.ctx, werr.msg);
      error = true;
    }
  }
  pc_run_unlock (lock);
  return error ? 2 : failed ? 1 : 0;
}

int
pc_run_all (const struct pc_run_job *job, const struct pc_run_options *o, struct pc_err *err)
{
  struct pc_run_plan *plan;
  int r = pc_run_plan_make (o, &plan, err);

  if (r < 0)
    return r;
  r = run_plan (job, plan, err);
  pc_run_plan_free (plan);
  return r;
}
