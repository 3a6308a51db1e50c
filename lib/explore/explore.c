/* explore.c: powercut explore's driver: the workloads, their batches in
 * child processes, the results kept as they come (and read back to
 * resume), the failures shrunk into scripts, the summary and
 * explore.json. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "explore/exploreint.h"
#include "fs/fs.h"
#include "run/plan.h"
#include "util/disk.h"
#include "util/util.h"

#define BATCH_DEFAULT 25          /* --shared: workloads per recording */
#define BATCH_DEFAULT_FRESH 4     /* else per process: small, so that every job has work */
#define MAX_JOBS 64

static int
outcome_parse (const char *s)
{
  if (strcmp (s, "unsupported") == 0)
    return PC_XV_UNSUPPORTED;
  if (strcmp (s, "error") == 0)
    return PC_XV_ERROR;
  return pc_verdict_parse (s);
}

/* ------------------------------------------------------------------ */
/* Results as JSON lines */

static const char *
jstr (json_object *o, const char *key)
{
  json_object *v;

  return json_object_object_get_ex (o, key, &v) && json_object_is_type (v, json_type_string)
         ? json_object_get_string (v) : NULL;
}

static int64_t
jint (json_object *o, const char *key)
{
  json_object *v;

  return json_object_object_get_ex (o, key, &v) ? json_object_get_int64 (v) : 0;
}

static int
add_res (struct ctx *c, const struct xres *x)
{
  if (pc_grow (&c->res, &c->capres, c->nres + 1, sizeof *c->res, 64) < 0)
    return -ENOMEM;
  c->res[c->nres++] = *x;
  c->prog.done++;
  if (pc_x_fails (x->it.outcome, x->it.promise, true))
    c->prog.failing++;
  if (x->it.promise && pc_x_fails (x->it.outcome, x->it.promise, false))
    c->prog.promises++;
  return 0;
}

/* Reads one result line (of a configuration of this exploration) into x;
 * false if it is not one. */
static bool
res_parse (const struct ctx *c, const char *line, struct xres *x)
{
  json_object *o = json_tokener_parse (line);
  const char *label, *ops, *out;
  struct pc_err err;
  bool ok = false;

  memset (x, 0, sizeof *x);
  if (o == NULL)
    return false;
  label = jstr (o, "config");
  ops = jstr (o, "ops");
  out = jstr (o, "outcome");
  for (size_t k = 0; label && k < c->cfg->nconfigs; k++)
    if (strcmp (label, c->label[k]) == 0) {
      x->k = k;
      ok = true;
    }
  ok = ok && ops && out && pc_gen_parse (ops, &x->it.w, &err) == 0 && outcome_parse (out) >= 0;
  if (ok) {
    json_object *v;
    x->it.index = (uint64_t) jint (o, "index");
    x->it.outcome = outcome_parse (out);
    x->it.promise = json_object_object_get_ex (o, "promise", &v) && json_object_get_boolean (v);
    x->it.points = (size_t) jint (o, "points");
    x->it.failing = (size_t) jint (o, "failing");
    x->it.setup_failing = (size_t) jint (o, "setup_failing");
    x->it.later = (size_t) jint (o, "later");
    snprintf (x->it.first, sizeof x->it.first, "%s", jstr (o, "first") ? jstr (o, "first") : "");
    snprintf (x->it.why, sizeof x->it.why, "%s", jstr (o, "why") ? jstr (o, "why") : "");
    snprintf (x->batch, sizeof x->batch, "%s", jstr (o, "batch") ? jstr (o, "batch") : "");
    if (json_object_object_get_ex (o, "at_s", &v))
      x->at_s = json_object_get_double (v);
    if (json_object_object_get_ex (o, "phases", &v))
      for (int p = 0; p < PC_NPHASES; p++) {
        json_object *t;
        if (json_object_object_get_ex (v, pc_phase_names[p], &t))
          x->it.ph.s[p] = json_object_get_double (t);
      }
  }
  json_object_put (o);
  return ok;
}

/* Reads a results.jsonl (resume: ours; merge: a shard's, root): what was
 * done. */
static int
read_done (struct ctx *c, const char *path, const char *root)
{
  FILE *f = fopen (path, "re");
  char *line = NULL;
  size_t cap = 0;
  int r = 0;

  if (f == NULL)
    return 0;
  while (r == 0 && getline (&line, &cap, f) > 0) {
    struct xres x;
    if (res_parse (c, line, &x)) {
      x.root = root;
      r = add_res (c, &x);
    }
  }
  free (line);
  fclose (f);
  return r;
}

static bool
same_workload (const struct pc_gen_workload *a, const struct pc_gen_workload *b)
{
  if (a->nsteps != b->nsteps)
    return false;
  for (unsigned i = 0; i < a->nsteps && i < PC_GEN_MAX_OPS; i++)
    if (a->step[i].kind != b->step[i].kind || a->step[i].target != b->step[i].target ||
        a->step[i].persist != b->step[i].persist)
      return false;
  return true;
}

/* Resuming: what had an error runs again, and each workload's last result
 * is kept; the file is written anew with them. */
static void
keep_done (struct ctx *c)
{
  size_t n = 0;

  for (size_t i = 0; i < c->nres; i++) {
    bool later = false;
    for (size_t j = i + 1; j < c->nres && !later; j++)
      later = c->res[j].k == c->res[i].k && same_workload (&c->res[j].it.w, &c->res[i].it.w);
    if (!later && c->res[i].it.outcome != PC_XV_ERROR)
      c->res[n++] = c->res[i];
  }
  c->nres = n;
  c->prog.done = c->prog.failing = c->prog.promises = 0;
  for (size_t i = 0; i < n; i++) {
    c->prog.done++;
    c->prog.failing += pc_x_fails (c->res[i].it.outcome, c->res[i].it.promise, true);
    c->prog.promises += c->res[i].it.promise && pc_x_fails (c->res[i].it.outcome, true, false);
  }
}

/* Has configuration k a result for w (at any index: an earlier version
 * numbered workloads otherwise, and --random may draw one twice)? */
static bool
is_done (const struct ctx *c, size_t k, const struct pc_gen_workload *w)
{
  for (size_t i = 0; i < c->nres; i++)
    if (c->res[i].k == k && same_workload (&c->res[i].it.w, w))
      return true;
  return false;
}

/* ------------------------------------------------------------------ */
/* The workloads */

/* Does w's text hold --only's, and not --skip's? */
static bool
matches (const struct pc_gen_workload *w, void *arg)
{
  const struct ctx *c = arg;
  char text[PC_GEN_TEXT_MAX];

  if (c->cfg->only == NULL && c->cfg->skip == NULL)
    return true;
  pc_gen_format (w, text);
  return (c->cfg->only == NULL || strstr (text, c->cfg->only) != NULL) &&
         (c->cfg->skip == NULL || strstr (text, c->cfg->skip) == NULL);
}

/* Is the workload of this index in this exploration's shard? */
static bool
in_shard (const struct ctx *c, uint64_t index)
{
  return c->cfg->nshards <= 1 || index % c->cfg->nshards == c->cfg->shard;
}

static bool
wanted (const struct ctx *c, const struct pc_gen_workload *w, uint64_t index)
{
  return in_shard (c, index) && matches (w, (void *) c);
}

static int
add_work (struct ctx *c, const struct pc_gen_workload *w, uint64_t index)
{
  if (pc_grow (&c->work, &c->capwork, c->nwork + 1, sizeof *c->work, 64) < 0)
    return -ENOMEM;
  c->work[c->nwork].w = *w;
  c->work[c->nwork].index = index;
  for (size_t k = 0; k < PC_MAX_CONFIGS; k++)
    c->work[c->nwork].expected[k] = -1;
  c->nwork++;
  return 0;
}

static bool
at_limit (const struct ctx *c)
{
  return c->cfg->limit && c->nwork >= c->cfg->limit;
}

/* Every workload of --seq N (or those of the corpus). */
static int
list_work (struct ctx *c, struct pc_err *err)
{
  struct pc_gen_workload w;
  uint64_t pos = 0, index = 0;
  int r = 0;

  if (c->cfg->corpus) {
    char path[PATH_MAX];
    json_object *o, *ws;
    snprintf (path, sizeof path, "%s/explore.json", c->cfg->corpus);
    o = json_object_from_file (path);
    if (o == NULL || !json_object_object_get_ex (o, "workloads", &ws) ||
        !json_object_is_type (ws, json_type_array)) {
      json_object_put (o);
      return pc_err_set (err, EINVAL, "%s: not an exploration's results", path);
    }
    for (size_t i = 0; r == 0 && i < json_object_array_length (ws) && !at_limit (c); i++) {
      json_object *x = json_object_array_get_idx (ws, i), *rs;
      const char *ops = jstr (x, "ops");
      if (ops == NULL || pc_gen_parse (ops, &w, err) < 0) {
        json_object_put (o);
        return pc_err_prefix (err, EINVAL, "%s: workload %zu", path, i);
      }
      if (!wanted (c, &w, (uint64_t) jint (x, "index")))
        continue;
      r = add_work (c, &w, (uint64_t) jint (x, "index"));
      if (r == 0 && json_object_object_get_ex (x, "results", &rs))
        for (size_t k = 0; k < c->cfg->nconfigs; k++) {
          json_object *one;
          const char *out;
          if (json_object_object_get_ex (rs, c->label[k], &one) && (out = jstr (one, "outcome")))
            c->work[c->nwork - 1].expected[k] = outcome_parse (out);
        }
    }
    json_object_put (o);
    return r ? pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM)) : 0;
  }
  if (c->cfg->limit) {
    /* --limit: a sample spread over the whole space, the same for every
     * shard, which then takes its share of it */
    for (uint64_t i = 0; r == 0 && i < c->cfg->limit; i++)
      if (pc_gen_sample (c->cfg->seq, c->cfg->seed, i, c->cfg->limit, matches, c, &index, &w) &&
          in_shard (c, index))
        r = add_work (c, &w, index);
    return r ? pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM)) : 0;
  }
  /* a workload's index is its position in the whole order */
  while (r == 0 && pc_gen_next (c->cfg->seq, &pos, &w))
    if (wanted (c, &w, pos - 1))
      r = add_work (c, &w, pos - 1);
  return r ? pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM)) : 0;
}

/* --random: samples more workloads, up to n in all, while the budget
 * lasts. */
static int
more_random (struct ctx *c, size_t n)
{
  while (c->nwork < n && !c->random_done) {
    struct pc_gen_workload w;
    double secs = (pc_now_mono_ns () - c->t0) / 1e9;
    if (secs >= c->cfg->budget_s || at_limit (c)) {
      c->random_done = true;
      break;
    }
    pc_gen_random (c->cfg->seed, c->next_random, &w);
    if (wanted (c, &w, c->next_random) && add_work (c, &w, c->next_random) < 0)
      return -ENOMEM;
    c->next_random++;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Batches */

/* The next batch of configuration k: its items (malloc'd, *ret_n of
 * them), or NULL when k has nothing left. */
static struct xitem *
next_batch (struct ctx *c, size_t k, size_t *ret_n)
{
  unsigned size = c->cfg->batch ? c->cfg->batch
                  : c->cfg->shared ? BATCH_DEFAULT : BATCH_DEFAULT_FRESH;
  struct xitem *it = calloc (size, sizeof *it);
  size_t n = 0;

  *ret_n = 0;
  if (it == NULL)
    return NULL;
  while (n < size) {
    if (c->cursor[k] >= c->nwork && c->cfg->random && more_random (c, c->cursor[k] + size) < 0)
      break;
    if (c->cursor[k] >= c->nwork)
      break;
    if (!is_done (c, k, &c->work[c->cursor[k]].w)) {
      it[n].w = c->work[c->cursor[k]].w;
      it[n].index = c->work[c->cursor[k]].index;
      n++;
    }
    c->cursor[k]++;
  }
  if (n == 0) {
    free (it);
    return NULL;
  }
  *ret_n = n;
  return it;
}

/* In the child: runs the batch, writes its results, exits. */
static void __attribute__ ((noreturn))
batch_child (struct ctx *c, struct xjob *j)
{
  struct pc_err err;
  char path[PATH_MAX + 32];
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  FILE *f;
  int r;

  if (ncpu > 0) {
    /* each batch on a CPU of its own (its traced workload is pinned to it) */
    cpu_set_t set;
    CPU_ZERO (&set);
    CPU_SET ((int) (j->slot % (unsigned) ncpu), &set);
    sched_setaffinity (0, sizeof set, &set);
  }
  r = pc_x_run_batch (c->cfg, &c->cfg->configs[j->k], c->base[j->k], j->dir, j->it, j->n, false,
                      &err);
  if (r == -EINTR || pc_interrupted ())
    _exit (4);                  /* no results: --resume runs it again */
  snprintf (path, sizeof path, "%s/results.jsonl", j->dir);
  f = fopen (path, "we");
  for (size_t i = 0; f && i < j->n; i++) {
    struct xres x = { .k = j->k, .it = j->it[i] };
    json_object *o;
    snprintf (x.batch, sizeof x.batch, "%s", j->name);
    o = pc_x_res_json (c, &x);
    fprintf (f, "%s\n", json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN));
    json_object_put (o);
  }
  if (f == NULL || fclose (f) != 0)
    _exit (3);
  _exit (r < 0 ? 2 : 0);
}

/* A child ended: its results into ours (or, if it left none, errors). */
static int
batch_done (struct ctx *c, struct xjob *j, int status)
{
  char path[PATH_MAX + 32];
  FILE *f;
  char *line = NULL;
  size_t cap = 0, got = 0;
  int r = 0;

  snprintf (path, sizeof path, "%s/results.jsonl", j->dir);
  f = WIFEXITED (status) && WEXITSTATUS (status) != 3 ? fopen (path, "re") : NULL;
  while (f && r == 0 && getline (&line, &cap, f) > 0) {
    struct xres x;
    json_object *o;
    if (!res_parse (c, line, &x))
      continue;
    /* the line as the batch wrote it, with when it came */
    x.at_s = (pc_now_mono_ns () - c->t0) / 1e9;
    if ((o = json_tokener_parse (line)) != NULL) {
      json_object_object_add (o, "at_s", json_object_new_double (x.at_s));
      fprintf (c->jsonl, "%s\n", json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN));
      json_object_put (o);
    }
    else
      fputs (line, c->jsonl);
    r = add_res (c, &x);
    got++;
  }
  if (f)
    fclose (f);
  free (line);
  fflush (c->jsonl);
  if (r == 0 && got < j->n && !pc_interrupted () &&
      !(WIFEXITED (status) && WEXITSTATUS (status) == 4)) {
    /* the child died: its workloads are errors, not verdicts */
    for (size_t i = 0; r == 0 && i < j->n; i++) {
      struct xres x = { .k = j->k, .it = j->it[i], .at_s = (pc_now_mono_ns () - c->t0) / 1e9 };
      json_object *o;
      if (is_done (c, j->k, &x.it.w))
        continue;
      x.it.outcome = PC_XV_ERROR;
      snprintf (x.it.why, sizeof x.it.why, "its batch's process ended with status %d",
                WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status));
      snprintf (x.batch, sizeof x.batch, "%s", j->name);
      o = pc_x_res_json (c, &x);
      fprintf (c->jsonl, "%s\n", json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN));
      json_object_put (o);
      r = add_res (c, &x);
    }
    fflush (c->jsonl);
  }
  free (j->it);
  j->it = NULL;
  j->pid = 0;
  if (c->cfg->progress) {
    c->prog.seconds = (pc_now_mono_ns () - c->t0) / 1e9;
    c->cfg->progress (c->cfg->ctx, &c->prog);
  }
  return r;
}

/* Runs every batch, up to jobs at once.  Returns 0, -EINTR or -ENOMEM. */
static int
run_batches (struct ctx *c, struct pc_err *err)
{
  struct xjob jobs[MAX_JOBS];
  unsigned njobs = c->cfg->jobs ? c->cfg->jobs : 1, running = 0;
  size_t k = 0, idle = 0;
  int r = 0;

  if (njobs > MAX_JOBS)
    njobs = MAX_JOBS;
  /* every workload's filesystem is a copy of its base: a kernel that
   * cannot mount two at once records one at a time (fs.h) */
  for (size_t i = 0; i < c->cfg->nconfigs; i++) {
    const struct pc_fs *fs = pc_fs_find (c->cfg->configs[i].fs);
    if (fs && !pc_fs_kernel_mounts_copies (fs))
      njobs = 1;
  }
  memset (jobs, 0, sizeof jobs);
  for (;;) {
    /* start batches while there are free slots and work */
    while (r == 0 && running < njobs && idle < c->cfg->nconfigs && !pc_interrupted ()) {
      struct xjob *j = NULL;
      for (unsigned s = 0; s < njobs && j == NULL; s++)
        if (jobs[s].pid == 0 && jobs[s].it == NULL) {
          j = &jobs[s];
          j->slot = s;
        }
      j->it = next_batch (c, k, &j->n);
      if (j->it == NULL) {
        idle++;                 /* this configuration is done */
        k = (k + 1) % c->cfg->nconfigs;
        continue;
      }
      idle = 0;
      j->k = k;
      snprintf (j->name, sizeof j->name, "c%zu-w%" PRIu64, k, j->it[0].index);
      snprintf (j->dir, sizeof j->dir, "%s/batches/%s", c->cfg->out, j->name);
      fflush (NULL);
      j->pid = fork ();
      if (j->pid < 0) {
        r = pc_err_set (err, errno, "fork: %s", strerror (errno));
        free (j->it);
        j->it = NULL;
        j->pid = 0;
        break;
      }
      if (j->pid == 0)
        batch_child (c, j);
      running++;
      k = (k + 1) % c->cfg->nconfigs;
    }
    if (running == 0)
      break;
    {
      int st;
      pid_t p = waitpid (-1, &st, 0);
      if (p < 0 && errno == EINTR)
        continue;
      if (p < 0)
        break;
      for (unsigned s = 0; s < njobs; s++)
        if (jobs[s].pid == p) {
          running--;
          if (r == 0)
            r = batch_done (c, &jobs[s], st);
          else {
            free (jobs[s].it);
            jobs[s].it = NULL;
            jobs[s].pid = 0;
          }
        }
    }
  }
  if (r == -ENOMEM)
    pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  if (r == 0 && pc_interrupted ())
    r = pc_err_set (err, EINTR, "interrupted (powercut explore --resume goes on from here)");
  return r;
}

static int explore (const struct pc_explore_config *cfg, FILE *report, struct pc_err *err);

/* Merging: the configurations are those the shards' results name. */
static int
merge_configs (struct pc_explore_config *cfg, struct pc_err *err)
{
  cfg->nconfigs = 0;
  for (size_t i = 0; i < cfg->nmerge; i++) {
    char path[PATH_MAX + 32], *line = NULL;
    size_t cap = 0;
    FILE *f;
    snprintf (path, sizeof path, "%s/results.jsonl", cfg->merge[i]);
    f = fopen (path, "re");
    if (f == NULL)
      return pc_err_set (err, errno, "%s: %s", path, strerror (errno));
    while (getline (&line, &cap, f) > 0) {
      json_object *o = json_tokener_parse (line);
      const char *label = o ? jstr (o, "config") : NULL;
      struct pc_config k;
      struct pc_outcome on;
      bool known = false;
      for (size_t j = 0; label && j < cfg->nconfigs; j++) {
        pc_config_name (&cfg->configs[j], j, 2, cfg->out, &on);
        known |= strcmp (on.label, label) == 0;
      }
      if (label && !known && cfg->nconfigs < PC_MAX_CONFIGS &&
          pc_config_parse (label, &k, err) == 0)
        pc_config_copy (&cfg->configs[cfg->nconfigs++], &k);
      json_object_put (o);
    }
    free (line);
    fclose (f);
  }
  if (cfg->nconfigs == 0)
    return pc_err_set (err, ENOENT, "the explorations to merge hold no results");
  return 0;
}

int
pc_explore_run (const struct pc_explore_config *cfg, FILE *report, struct pc_err *err)
{
  int r;
  struct pc_explore_config own = *cfg;
  char self[PATH_MAX], out[PATH_MAX];
  int lock;

  if (geteuid () != 0)
    return pc_err_set (err, EPERM, "needs root (to attach a block device, make and mount a "
                       "filesystem)");
  if (own.self == NULL) {
    ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
      return pc_err_set (err, n < 0 ? errno : ENOENT, "/proc/self/exe: %s",
                         strerror (n < 0 ? errno : ENOENT));
    self[n] = '\0';
    own.self = self;
  }
  if (own.nmerge && (r = merge_configs (&own, err)) < 0)
    return r;
  if (pc_mkdir_p (cfg->out) < 0 || realpath (cfg->out, out) == NULL)
    return pc_err_set (err, errno, "%s: %s", cfg->out, strerror (errno));
  own.out = out;                /* the batches' scripts run elsewhere */
  lock = pc_run_lock (cfg->out, err);
  if (lock < 0)
    return lock;
  r = explore (&own, report, err);
  pc_run_unlock (lock);
  return r;
}

/* The exploration, its output directory locked. */
static int
explore (const struct pc_explore_config *cfg, FILE *report, struct pc_err *err)
{
  struct ctx c;
  char path[PATH_MAX + 32];
  double secs;
  int r, status = 0;
  size_t changed = 0;

  memset (&c, 0, sizeof c);
  c.cfg = cfg;
  c.t0 = pc_now_mono_ns ();
  c.prog.phase = "exploring";
  for (size_t k = 0; k < cfg->nconfigs; k++) {
    struct pc_outcome o;
    struct pc_config kc;
    pc_config_copy (&kc, &cfg->configs[k]);
    pc_config_name (&kc, k, cfg->nconfigs, cfg->out, &o);
    snprintf (c.label[k], sizeof c.label[k], "%s", o.label);
  }
  snprintf (path, sizeof path, "%s/results.jsonl", cfg->out);
  if (cfg->resume && (r = read_done (&c, path, cfg->out)) < 0)
    return pc_err_set (err, -r, "%s: %s", path, strerror (-r));
  if (cfg->resume)
    keep_done (&c);
  for (size_t i = 0; i < cfg->nmerge; i++) {
    char shard[PATH_MAX + 32];
    snprintf (shard, sizeof shard, "%s/results.jsonl", cfg->merge[i]);
    if (access (shard, R_OK) < 0)
      return pc_err_set (err, errno, "%s: %s", shard, strerror (errno));
    if ((r = read_done (&c, shard, cfg->merge[i])) < 0)
      return pc_err_set (err, -r, "%s: %s", shard, strerror (-r));
  }
  c.prog.done = c.nres;
  if (!cfg->random && !cfg->nmerge && (r = list_work (&c, err)) < 0)
    goto out;
  c.prog.total = cfg->random ? 0 : c.nwork * cfg->nconfigs;
  if (cfg->resume) {
    /* the results kept, written anew beside the old file, then over it */
    char tmp[PATH_MAX + 48];
    FILE *t;
    snprintf (tmp, sizeof tmp, "%s.tmp", path);
    t = fopen (tmp, "we");
    for (size_t i = 0; t && i < c.nres; i++) {
      json_object *o = pc_x_res_json (&c, &c.res[i]);
      fprintf (t, "%s\n", json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN));
      json_object_put (o);
    }
    bool ok = t && fflush (t) == 0 && fsync (fileno (t)) == 0;
    if (t && fclose (t) != 0)
      ok = false;
    if (!ok || rename (tmp, path) < 0) {
      r = pc_err_set (err, EIO, "%s: cannot write it", tmp);
      goto out;
    }
  }
  c.jsonl = fopen (path, cfg->resume ? "ae" : "we");
  if (c.jsonl == NULL) {
    r = pc_err_set (err, errno, "%s: %s", path, strerror (errno));
    goto out;
  }
  if (cfg->nmerge) {
    /* the shards' results, as they are */
    for (size_t i = 0; i < c.nres; i++) {
      json_object *o = pc_x_res_json (&c, &c.res[i]);
      fprintf (c.jsonl, "%s\n", json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN));
      json_object_put (o);
    }
    r = 0;
  }
  else {
    r = 0;
    /* every workload starts from the same fresh filesystem: made once */
    for (size_t k = 0; r == 0 && !cfg->shared && k < cfg->nconfigs; k++) {
      char dir[PATH_MAX + 16];
      snprintf (dir, sizeof dir, "%s/bases", cfg->out);
      if ((size_t) snprintf (c.base[k], sizeof c.base[k], "%s/c%zu.img", dir, k) >= sizeof c.base[k])
        r = pc_err_set (err, ENAMETOOLONG, "%s: %s", dir, strerror (ENAMETOOLONG));
      else if (pc_mkdir_p (dir) < 0)
        r = pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
      else if (cfg->resume && access (c.base[k], F_OK) == 0)
        ;       /* kept with the failures of the run resumed: their logs start from it */
      else if ((r = pc_x_make_base (&cfg->configs[k], c.base[k], err)) < 0)
        pc_err_prefix (err, -r, "%s", c.label[k]);
      /* read once here: every run's recorder and check (processes this
       * one forks) find its hash and its zeros without reading it again */
      if (r == 0 && (r = pc_image_remember (c.base[k])) < 0)
        pc_err_set (err, -r, "%s: %s", c.base[k], strerror (-r));
    }
    if (r == 0 && cfg->progress) {
      /* how many, before the first runs */
      c.prog.seconds = (pc_now_mono_ns () - c.t0) / 1e9;
      cfg->progress (cfg->ctx, &c.prog);
    }
    if (r == 0)
      r = run_batches (&c, err);
  }
  fclose (c.jsonl);
  c.jsonl = NULL;
  if (r < 0)
    goto out;
  if (c.nres > 1)
    qsort (c.res, c.nres, sizeof *c.res, pc_x_res_cmp);
  r = pc_x_write_failures (&c, err);
  if (r == 0 && pc_interrupted ())
    r = pc_err_set (err, EINTR, "interrupted (powercut explore --resume goes on from here)");
  if (r < 0)
    goto out;
  secs = (pc_now_mono_ns () - c.t0) / 1e9;
  r = pc_x_write_json (&c, secs, err);
  if (r < 0)
    goto out;
  snprintf (path, sizeof path, "%s/summary.txt", cfg->out);
  {
    FILE *f = fopen (path, "we");
    if (f) {
      pc_x_summary (&c, f, secs);
      changed = pc_x_changes (&c, f);
      fclose (f);
    }
  }
  if (report) {
    pc_x_summary (&c, report, secs);
    pc_x_changes (&c, report);
  }
  for (size_t i = 0; i < c.nres; i++) {
    const struct xitem *x = &c.res[i].it;
    if (x->outcome == PC_XV_ERROR || x->outcome == PC_V_NOT_CHECKED)
      status = 2;
    else if (status == 0 && pc_x_fails (x->outcome, x->promise, cfg->fail_on_exposure))
      status = 1;
  }
  if (cfg->corpus && status == 0 && changed > 0)
    status = 1;
  r = status;
out:
  if (c.jsonl)
    fclose (c.jsonl);
  /* the bases stay for the failures' replay lines (sparse: a few MiB) */
  for (size_t k = 0; k < cfg->nconfigs && c.nfailures == 0; k++)
    if (c.base[k][0])
      unlink (c.base[k]);
  if (c.base[0][0] && c.nfailures == 0) {
    char dir[PATH_MAX + 16];
    snprintf (dir, sizeof dir, "%s/bases", cfg->out);
    rmdir (dir);
  }
  free (c.res);
  free (c.work);
  return r;
}
