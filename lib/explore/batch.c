/* batch.c: a batch of generated workloads: its script, its recording and
 * check (configs.h, traced), and each workload's outcome. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explore/exploreint.h"
#include "format/log.h"
#include "format/mark.h"
#include "run/run.h"
#include "util/kmount.h"
#include "util/proc.h"
#include "util/util.h"


void
pc_x_batch_script (const struct xitem *it, size_t n, FILE *f)
{
  fprintf (f, "#!/bin/sh\n"
           "# powercut explore: a batch of generated workloads, each in its directory\n"
           "# wN between the marks wN and wN-end; a command that fails, or complains\n"
           "# (xfs_io exits 0 after some refused calls), is noted in $1\n"
           "R=$1\n"
           "op () { n=$1; shift; e=$(\"$@\" 2>&1 >/dev/null); s=$?; "
           "if [ $s != 0 ] || [ -n \"$e\" ]; then printf '%%s %%s %%s\\n' \"$W\" \"$n\" "
           "\"$(printf '%%s' \"${e:-exit status $s}\" | head -n 1)\" >>\"$R\"; fi; }\n"
           "cd \"$POWERCUT_MNT\" || exit 1\n");
  for (size_t i = 0; i < n; i++) {
    char text[PC_GEN_TEXT_MAX], start[64];
    pc_gen_format (&it[i].w, text);
    fprintf (f, "\n# %s\nW=%" PRIu64 "\nmkdir w%" PRIu64 " && cd w%" PRIu64 " || exit 1\n", text,
             it[i].index, it[i].index, it[i].index);
    snprintf (start, sizeof start, "\"$POWERCUT\" mark w%" PRIu64 " || exit 1", it[i].index);
    pc_gen_script (&it[i].w, f, "op", start);
    fprintf (f, "sync\n\"$POWERCUT\" mark w%" PRIu64 "-end || exit 1\ncd ..\n", it[i].index);
  }
}

/* The script of one workload on a fresh filesystem (the setup is in its
 * base image): its operations in the root, each failed command noted. */
static void
fresh_script (const struct xitem *it, FILE *f)
{
  char text[PC_GEN_TEXT_MAX];

  pc_gen_format (&it->w, text);
  fprintf (f, "#!/bin/sh\n"
           "# powercut explore: workload %" PRIu64 " on a fresh filesystem: %s\n"
           "R=$1\n"
           "op () { n=$1; shift; e=$(\"$@\" 2>&1 >/dev/null); s=$?; "
           "if [ $s != 0 ] || [ -n \"$e\" ]; then printf '%%s %%s %%s\\n' \"$W\" \"$n\" "
           "\"$(printf '%%s' \"${e:-exit status $s}\" | head -n 1)\" >>\"$R\"; fi; }\n"
           "W=%" PRIu64 "\n"
           "cd \"$POWERCUT_MNT\" || exit 1\n", it->index, text, it->index);
  pc_gen_prime_script (f);
  pc_gen_ops_script (&it->w, f, "op");
}

int
pc_x_make_base (const struct pc_config *k, const char *path, struct pc_err *err)
{
  char mnt[PATH_MAX + 8], script[PATH_MAX + 16], out[512], out2[512], opts[256];
  char *mkfs[40], *sh[] = { "/bin/sh", script, NULL };
  char *mount[] = { "mount", "-t", (char *) k->fs, "-o", "loop", (char *) path, mnt, NULL };
  char prog[32];
  struct pc_proc_extra extra = { .cwd = mnt };
  int argc = 0, fd, st;
  FILE *f;

  snprintf (mnt, sizeof mnt, "%s.mnt", path);
  snprintf (script, sizeof script, "%s.setup.sh", path);
  unlink (path);
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return pc_err_set (err, errno, "%s: %s", path, strerror (errno));
  if (ftruncate (fd, (off_t) pc_x_device_size (k->fs)) < 0) {
    int e = errno;
    close (fd);
    return pc_err_set (err, e, "%s: %s", path, strerror (e));
  }
  close (fd);
  snprintf (prog, sizeof prog, "mkfs.%s", k->fs);
  snprintf (opts, sizeof opts, "%s", pc_run_mkfs_options (k->fs, k->mkfs_opts[0] ? k->mkfs_opts
                                                                              : NULL));
  mkfs[argc++] = prog;
  mkfs[argc++] = "-q";
  mkfs[argc++] = (char *) (pc_fs_find (k->fs) ? pc_fs_find (k->fs)->mkfs_force : "-F");
  for (char *t = strtok (opts, " "); t && argc < 36; t = strtok (NULL, " "))
    mkfs[argc++] = t;
  mkfs[argc++] = (char *) path;
  mkfs[argc] = NULL;
  st = pc_proc_run (mkfs, 120, out, sizeof out);
  if (st == -EINTR)
    return pc_err_set (err, EINTR, "interrupted");
  if (st != 0)
    return pc_err_set (err, EIO, "%s: %s failed: %s", path, prog, out);
  f = fopen (script, "we");
  if (f == NULL)
    return pc_err_set (err, errno, "%s: %s", script, strerror (errno));
  fprintf (f, "set -e\n");
  pc_gen_setup_script (f, NULL);
  fprintf (f, "sync\n");
  if (fclose (f) != 0)
    return pc_err_set (err, EIO, "%s: cannot write it", script);
  rmdir (mnt);
  if (mkdir (mnt, 0700) < 0)
    return pc_err_set (err, errno, "%s: %s", mnt, strerror (errno));
  st = pc_proc_run (mount, 60, out, sizeof out);
  if (st != 0) {
    /* killed (interrupted, timed out) once the kernel had mounted, or
     * once it had attached the loop device */
    char real[PATH_MAX], dev[64];
    pc_unmount (mnt, out2, sizeof out2);
    if (realpath (path, real) && pc_loop_of (real, dev, sizeof dev) == 1) {
      char *detach[] = { "losetup", "-d", dev, NULL };
      volatile sig_atomic_t *saved = pc_interrupt_flag (NULL);
      pc_proc_run (detach, 30, out2, sizeof out2);
      pc_interrupt_flag (saved);
    }
    rmdir (mnt);
    unlink (script);
    return st == -EINTR ? pc_err_set (err, EINTR, "interrupted")
                        : pc_err_set (err, EIO, "%s: mount failed: %s", path, out);
  }
  st = pc_proc_run_extra (sh, &extra, 120, out, sizeof out);
  if (pc_unmount (mnt, out2, sizeof out2) < 0 && st == 0)
    st = -EBUSY;
  rmdir (mnt);
  unlink (script);
  if (st == -EINTR)
    return pc_err_set (err, EINTR, "interrupted");
  if (st != 0)
    return pc_err_set (err, EIO, "%s: the setup of the files failed: %s", path,
                       st == -EBUSY ? "cannot unmount it" : out);
  return 0;
}

bool
pc_x_fails (int outcome, bool promise, bool exposure)
{
  if (outcome == PC_V_OK || outcome == PC_V_NOT_CHECKED || outcome == PC_XV_UNSUPPORTED ||
      outcome == PC_XV_ERROR)
    return false;
  /* two recoveries that disagree: one of them is wrong, whatever --fail-on */
  if (outcome == PC_V_RECOVERY_DIFFERS)
    return true;
  return promise || exposure;
}

/* The item a workload number names, or NULL. */
static struct xitem *
item_of (struct xitem *it, size_t n, uint64_t index)
{
  for (size_t i = 0; i < n; i++)
    if (it[i].index == index)
      return &it[i];
  return NULL;
}

/* The workload a path lies under ("w12/d0/f1": 12), or NULL. */
static struct xitem *
item_of_path (struct xitem *it, size_t n, const char *path)
{
  char *end;
  unsigned long long v;

  if (path[0] != 'w' || path[1] < '0' || path[1] > '9')
    return NULL;
  v = strtoull (path + 1, &end, 10);
  return *end == '/' || *end == '\0' ? item_of (it, n, v) : NULL;
}

/* Each item's marks' records into start[] and end[] (UINT64_MAX: not
 * found). */
static int
marks_of (const char *log_path, struct xitem *it, size_t n, uint64_t *start, uint64_t *end,
          struct pc_err *err)
{
  struct pc_log *log;
  struct pc_record rec;
  int r = pc_log_open (log_path, &log);

  for (size_t i = 0; i < n; i++)
    start[i] = end[i] = UINT64_MAX;
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", log_path, pc_log_strerror (r));
  while (pc_log_next (log, &rec) == 1) {
    struct pc_mark m;
    unsigned long long v;
    if (rec.type != PC_REC_MARK || pc_mark_decode (rec.data, rec.datalen, &m, NULL) < 0)
      continue;
    if (m.name[0] == 'w' && m.name[1] >= '0' && m.name[1] <= '9') {
      char *rest;
      v = strtoull (m.name + 1, &rest, 10);
      for (size_t i = 0; i < n; i++)
        if (it[i].index == v && *rest == '\0')
          start[i] = rec.seq;
        else if (it[i].index == v && strcmp (rest, "-end") == 0)
          end[i] = rec.seq;
    }
    pc_mark_free (&m);
  }
  pc_log_close (log);
  return 0;
}

/* The item whose operations were running at record r (between its marks),
 * or NULL (a setup, or between workloads); *ret_setup: the item whose
 * setup it is, if any. */
static struct xitem *
item_at (struct xitem *it, size_t n, const uint64_t *start, const uint64_t *end, uint64_t r,
         struct xitem **ret_setup)
{
  uint64_t next = UINT64_MAX;

  *ret_setup = NULL;
  for (size_t i = 0; i < n; i++) {
    if (start[i] != UINT64_MAX && start[i] <= r && r <= end[i])
      return &it[i];
    if (start[i] != UINT64_MAX && start[i] > r && start[i] < next) {
      next = start[i];
      *ret_setup = &it[i];
    }
  }
  return NULL;
}

/* The refused operations: "W N MESSAGE" lines. */
static void
refusals (const char *path, struct xitem *it, size_t n)
{
  FILE *f = fopen (path, "re");
  char line[512];

  if (f == NULL)
    return;
  while (fgets (line, sizeof line, f)) {
    unsigned long long w;
    unsigned op;
    int used = 0;
    struct xitem *x;
    line[strcspn (line, "\n")] = '\0';
    if (sscanf (line, "%llu %u %n", &w, &op, &used) < 2 || (x = item_of (it, n, w)) == NULL ||
        x->why[0])
      continue;
    if (op == 0) {
      x->outcome = PC_XV_ERROR;
      snprintf (x->why, sizeof x->why, "its setup failed: %s", line + used);
    }
    else
      snprintf (x->why, sizeof x->why, "operation %u: %s", op, line + used);
  }
  fclose (f);
}

static void
fail_at (struct xitem *x, const struct pc_point *p, int v, bool promise, size_t *last, size_t pi,
         bool later)
{
  x->outcome = (int) pc_verdict_worse ((enum pc_verdict) x->outcome, (enum pc_verdict) v);
  x->promise |= promise;
  if (*last != pi) {
    *last = pi;
    if (x->failing + x->later == 0) {
      snprintf (x->first, sizeof x->first, "%s", p->id);
      x->first_verdict = p->verdict;
    }
    if (later)
      x->later++;
    else
      x->failing++;
  }
}

/* Does a point's verdict fail the state as a whole (not by its files)?
 * And is that a broken promise?  A filesystem without a journal that
 * only e2fsck by hand repaired is a failure nobody promised against. */
static bool
state_failed (int v)
{
  return v == PC_V_FS_CORRUPT || v == PC_V_UNMOUNTABLE || v == PC_V_NOT_CHECKED ||
         v == PC_V_APP_INVALID || v == PC_V_FSCK_BY_HAND;
}

static bool
state_promise (int v)
{
  return v != PC_V_NOT_CHECKED && v != PC_V_FSCK_BY_HAND;
}

/* One workload alone on its filesystem: every crash point and every
 * finding is its own. */
static void
judge_fresh (const char *refused, const struct pc_check_result *res, struct xitem *x)
{
  size_t last = SIZE_MAX;

  x->outcome = PC_V_OK;
  x->promise = false;
  x->why[0] = x->first[0] = '\0';
  x->points = x->failing = x->later = x->setup_failing = 0;
  for (size_t pi = 0; pi < res->npoints; pi++) {
    const struct pc_point *p = &res->points[pi];
    bool fs_failed = state_failed (p->verdict);
    x->points++;
    if (fs_failed)
      fail_at (x, p, p->verdict, state_promise (p->verdict), &last, pi, false);
    for (size_t k = 0; k < p->findings.n; k++) {
      const struct pc_finding *fd = &p->findings.v[k];
      if (pc_finding_verdict (fd->kind) != PC_V_OK)
        fail_at (x, p, (int) pc_finding_verdict (fd->kind), fd->cause.known && fd->cause.promise,
                 &last, pi, false);
    }
  }
  refusals (refused, x, 1);
  if (x->why[0] && x->outcome != PC_XV_ERROR && (x->outcome == PC_V_OK ||
                                                 x->outcome == PC_V_NOT_CHECKED))
    x->outcome = PC_XV_UNSUPPORTED;
}

int
pc_x_judge (const char *log_path, const char *refused, const struct pc_check_result *res,
            struct xitem *it, size_t n, struct pc_err *err)
{
  uint64_t *start = calloc (n ? n : 1, sizeof *start);
  uint64_t *end = calloc (n ? n : 1, sizeof *end);
  size_t *last = malloc ((n ? n : 1) * sizeof *last);
  int r;

  if (start == NULL || end == NULL || last == NULL) {
    free (start);
    free (end);
    free (last);
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  }
  r = marks_of (log_path, it, n, start, end, err);
  for (size_t i = 0; i < n; i++) {
    it[i].outcome = PC_V_OK;
    it[i].promise = false;
    it[i].why[0] = it[i].first[0] = '\0';
    it[i].points = it[i].failing = it[i].later = it[i].setup_failing = 0;
    last[i] = SIZE_MAX;
  }
  for (size_t pi = 0; r == 0 && pi < res->npoints; pi++) {
    const struct pc_point *p = &res->points[pi];
    struct xitem *setup, *x = item_at (it, n, start, end, p->record, &setup);
    bool fs_failed = state_failed (p->verdict);
    if (x)
      x->points++;
    /* the filesystem broken in a workload's operations; in its setup, the
     * configuration's (counted apart) */
    if (fs_failed && x)
      fail_at (x, p, p->verdict, state_promise (p->verdict), &last[x - it], pi, false);
    else if (fs_failed && setup && p->verdict != PC_V_NOT_CHECKED)
      setup->setup_failing++;
    else if (fs_failed && setup)
      fail_at (setup, p, p->verdict, false, &last[setup - it], pi, true);
    for (size_t k = 0; k < p->findings.n; k++) {
      const struct pc_finding *fd = &p->findings.v[k];
      struct xitem *y = item_of_path (it, n, fd->path);
      /* a workload's files from its operations on (its setup is not
       * synced until they start) */
      if (y == NULL || pc_finding_verdict (fd->kind) == PC_V_OK ||
          start[y - it] == UINT64_MAX || p->record < start[y - it])
        continue;
      fail_at (y, p, (int) pc_finding_verdict (fd->kind), fd->cause.known && fd->cause.promise,
               &last[y - it], pi, y != x);
    }
  }
  for (size_t i = 0; r == 0 && i < n; i++)
    if (start[i] == UINT64_MAX) {
      it[i].outcome = PC_XV_ERROR;
      snprintf (it[i].why, sizeof it[i].why, "its mark is not in the log (the batch stopped "
                "before it)");
    }
  if (r == 0) {
    refusals (refused, it, n);
    for (size_t i = 0; i < n; i++)
      if (it[i].why[0] && it[i].outcome != PC_XV_ERROR &&
          (it[i].outcome == PC_V_OK || it[i].outcome == PC_V_NOT_CHECKED))
        it[i].outcome = PC_XV_UNSUPPORTED;
  }
  free (start);
  free (end);
  free (last);
  return r;
}

struct problems {
  FILE *f;
};

static void
problem_line (void *ctx, const char *line)
{
  struct problems *p = ctx;

  if (p->f)
    fprintf (p->f, "%s\n", line);
}

static void
all_error (struct xitem *it, size_t n, const char *why)
{
  for (size_t i = 0; i < n; i++) {
    size_t l = strnlen (why, sizeof it[i].why - 1);
    it[i].outcome = PC_XV_ERROR;
    memcpy (it[i].why, why, l);
    it[i].why[l] = '\0';
  }
}

/* Records the script (traced, its refusals noted in refused) on
 * configuration k in dir, from base (NULL: a device of its own, made with
 * mkfs), and checks it: 0 with o->res set (the caller's to free), or
 * -errno with why in err; what went wrong goes to dir/problems.txt. */
static int
record_script (const struct pc_explore_config *cfg, const struct pc_config *k, const char *base,
               const char *dir, char *script, char *refused, struct pc_outcome *o,
               struct pc_phases *ph, struct pc_err *err)
{
  char probs[PATH_MAX + 16];
  char *argv[] = { (char *) "/bin/sh", script, refused, NULL };
  struct pc_config_job job;
  struct pc_config kc;
  struct problems pr = { NULL };
  int r;

  snprintf (probs, sizeof probs, "%s/problems.txt", dir);
  pr.f = fopen (probs, "we");
  memset (&job, 0, sizeof job);
  job.run.self = cfg->self;
  job.run.base_path = base;
  job.run.size = base ? 0 : pc_x_device_size (k->fs);
  job.run.command = argv;
  job.run.traced = true;
  job.run.timeout_s = base ? 300 : 900;         /* one workload, or a batch */
  job.run.phases = ph;
  job.run.sysctl_host.dir = cfg->sysctl_dir;
  job.check.model = cfg->model;
  job.check.judge = cfg->judge;
  job.check.jobs = 1;
  job.title = "powercut explore";
  job.problem = problem_line;
  job.ctx = &pr;
  pc_config_copy (&kc, k);
  pc_config_name (&kc, 0, 1, dir, o);
  r = pc_config_run (&job, &kc, o);
  if (pr.f)
    fclose (pr.f);
  if (r < 0 || !o->ok || o->res == NULL) {
    pc_err_set (err, r < 0 ? -r : EIO, "%s", o->error[0] ? o->error : "its run failed");
    pc_check_result_free (o->res);
    o->res = NULL;
    return r < 0 ? r : -EIO;
  }
  return 0;
}

/* One workload recorded alone from the base image in dir (made) and
 * judged.  Returns 0, or -errno with why in err (its outcome is then
 * PC_XV_ERROR with it). */
static int
run_fresh (const struct pc_explore_config *cfg, const struct pc_config *k, const char *base,
           const char *dir, struct xitem *it, bool keep_log, struct pc_err *err)
{
  char script[PATH_MAX + 16], refused[PATH_MAX + 16], logp[PATH_MAX + 32];
  struct pc_outcome o;
  FILE *f;
  int r;

  if (pc_mkdir_p (dir) < 0) {
    r = -errno;
    pc_err_set (err, -r, "%s: %s", dir, strerror (-r));
    all_error (it, 1, err->msg);
    return r;
  }
  snprintf (script, sizeof script, "%s/workload.sh", dir);
  snprintf (refused, sizeof refused, "%s/refused.txt", dir);
  unlink (refused);
  f = fopen (script, "we");
  if (f == NULL) {
    r = -errno;
    pc_err_set (err, -r, "%s: %s", script, strerror (-r));
    all_error (it, 1, err->msg);
    return r;
  }
  fresh_script (it, f);
  if (fclose (f) != 0) {
    pc_err_set (err, EIO, "%s: cannot write it", script);
    all_error (it, 1, err->msg);
    return -EIO;
  }
  r = record_script (cfg, k, base, dir, script, refused, &o, &it->ph, err);
  if (r < 0) {
    all_error (it, 1, err->msg);
    return r;
  }
  judge_fresh (refused, o.res, it);
  pc_check_result_free (o.res);
  snprintf (logp, sizeof logp, "%s/powercut.log", dir);
  if (!keep_log && (it->outcome == PC_V_OK || it->outcome == PC_XV_UNSUPPORTED))
    unlink (logp);
  return 0;
}

void
pc_x_item_log (const struct pc_explore_config *cfg, const char *dir, const struct xitem *it,
               char *buf, size_t len)
{
  if (cfg->shared)
    snprintf (buf, len, "%s/powercut.log", dir);
  else
    snprintf (buf, len, "%s/w%" PRIu64 "/powercut.log", dir, it->index);
}

/* The items as one recording, one after another in directories wN of one
 * filesystem. */
static int
run_shared (const struct pc_explore_config *cfg, const struct pc_config *k,
            const char *dir, struct xitem *it, size_t n, bool keep_log, struct pc_err *err)
{
  char script[PATH_MAX], refused[PATH_MAX], logp[PATH_MAX + 32];
  struct pc_outcome o;
  struct pc_phases ph = { { 0 } };
  FILE *f;
  int r;
  bool all_ok = true;

  if (pc_mkdir_p (dir) < 0) {
    r = -errno;
    pc_err_set (err, -r, "%s: %s", dir, strerror (-r));
    all_error (it, n, err->msg);
    return r;
  }
  snprintf (script, sizeof script, "%s/batch.sh", dir);
  snprintf (refused, sizeof refused, "%s/refused.txt", dir);
  unlink (refused);
  f = fopen (script, "we");
  if (f == NULL) {
    r = -errno;
    pc_err_set (err, -r, "%s: %s", script, strerror (-r));
    all_error (it, n, err->msg);
    return r;
  }
  pc_x_batch_script (it, n, f);
  if (fclose (f) != 0) {
    r = -EIO;
    pc_err_set (err, EIO, "%s: cannot write it", script);
    all_error (it, n, err->msg);
    return r;
  }
  r = record_script (cfg, k, NULL, dir, script, refused, &o, &ph, err);
  for (size_t i = 0; i < n; i++)
    for (int p = 0; p < PC_NPHASES; p++)
      it[i].ph.s[p] = ph.s[p] / (double) n;
  if (r < 0) {
    all_error (it, n, err->msg);
    return r;
  }
  snprintf (logp, sizeof logp, "%s/powercut.log", dir);
  r = pc_x_judge (logp, refused, o.res, it, n, err);
  pc_check_result_free (o.res);
  if (r < 0) {
    all_error (it, n, err->msg);
    return r;
  }
  for (size_t i = 0; i < n; i++)
    all_ok &= it[i].outcome == PC_V_OK || it[i].outcome == PC_XV_UNSUPPORTED;
  if (all_ok && !keep_log)
    unlink (logp);
  return 0;
}

int
pc_x_run_batch (const struct pc_explore_config *cfg, const struct pc_config *k, const char *base,
                const char *dir, struct xitem *it, size_t n, bool keep_log, struct pc_err *err)
{
  if (cfg->shared)
    return run_shared (cfg, k, dir, it, n, keep_log, err);
  /* each on a fresh filesystem of its own: what fails is that workload's */
  for (size_t i = 0; i < n && !pc_interrupted (); i++) {
    char sub[PATH_MAX];
    struct pc_err e;
    if ((size_t) snprintf (sub, sizeof sub, "%s/w%" PRIu64, dir, it[i].index) >= sizeof sub) {
      all_error (&it[i], 1, "its directory's name is too long");
      continue;
    }
    run_fresh (cfg, k, base, sub, &it[i], keep_log, &e);
  }
  return pc_interrupted () ? pc_err_set (err, EINTR, "interrupted") : 0;
}
