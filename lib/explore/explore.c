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
#include "run/plan.h"
#include "util/util.h"

#define BATCH_DEFAULT 25
#define MAX_JOBS 64

const char *
pc_explore_outcome_name (int v)
{
  if (v == PC_XV_UNSUPPORTED)
    return "unsupported";
  if (v == PC_XV_ERROR)
    return "error";
  return pc_verdict_name ((enum pc_verdict) v);
}

static int
outcome_parse (const char *s)
{
  if (strcmp (s, "unsupported") == 0)
    return PC_XV_UNSUPPORTED;
  if (strcmp (s, "error") == 0)
    return PC_XV_ERROR;
  return pc_verdict_parse (s);
}

/* A workload's result on a configuration. */
struct xres {
  size_t k;
  const char *root;             /* the exploration's directory it came from */
  struct xitem it;
  char batch[64];               /* its batch, under OUT/batches */
  char failure[64];             /* "failures/N.sh", or "" */
};

/* A workload to run, and (corpus) what it gave before on each configuration. */
struct xwork {
  struct pc_gen_workload w;
  uint64_t index;
  int expected[PC_MAX_CONFIGS];         /* -1: not known */
};

/* A batch running in a child process. */
struct xjob {
  pid_t pid;
  size_t k;
  unsigned slot;
  struct xitem *it;
  size_t n;
  char dir[PATH_MAX];
  char name[64];
};

struct ctx {
  const struct pc_explore_config *cfg;
  char label[PC_MAX_CONFIGS][128];
  struct xwork *work;
  size_t nwork, capwork;
  uint64_t next_random;         /* --random: the next index to sample */
  bool random_done;
  size_t cursor[PC_MAX_CONFIGS];        /* the next work to batch, per configuration */
  struct xres *res;
  size_t nres, capres;
  FILE *jsonl;
  uint64_t t0;
  struct pc_explore_progress prog;
};

/* ------------------------------------------------------------------ */
/* Results as JSON lines */

static json_object *
res_json (const struct ctx *c, const struct xres *x)
{
  json_object *o = json_object_new_object ();
  char text[PC_GEN_TEXT_MAX];

  pc_gen_format (&x->it.w, text);
  json_object_object_add (o, "config", json_object_new_string (c->label[x->k]));
  json_object_object_add (o, "index", json_object_new_int64 ((int64_t) x->it.index));
  json_object_object_add (o, "ops", json_object_new_string (text));
  json_object_object_add (o, "outcome", json_object_new_string (pc_explore_outcome_name (x->it.outcome)));
  json_object_object_add (o, "promise", json_object_new_boolean (x->it.promise));
  json_object_object_add (o, "points", json_object_new_int64 ((int64_t) x->it.points));
  json_object_object_add (o, "failing", json_object_new_int64 ((int64_t) x->it.failing));
  json_object_object_add (o, "later", json_object_new_int64 ((int64_t) x->it.later));
  json_object_object_add (o, "setup_failing", json_object_new_int64 ((int64_t) x->it.setup_failing));
  json_object_object_add (o, "first", x->it.first[0] ? json_object_new_string (x->it.first) : NULL);
  json_object_object_add (o, "why", x->it.why[0] ? json_object_new_string (x->it.why) : NULL);
  json_object_object_add (o, "batch", json_object_new_string (x->batch));
  return o;
}

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
  if (pc_x_fails (x->it.outcome, x->it.promise, false))
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

/* Resuming: what had an error runs again, and each workload's last result
 * is kept; the file is written anew with them. */
static void
keep_done (struct ctx *c)
{
  size_t n = 0;

  for (size_t i = 0; i < c->nres; i++) {
    bool later = false;
    for (size_t j = i + 1; j < c->nres && !later; j++)
      later = c->res[j].k == c->res[i].k && c->res[j].it.index == c->res[i].it.index;
    if (!later && c->res[i].it.outcome != PC_XV_ERROR)
      c->res[n++] = c->res[i];
  }
  c->nres = n;
  c->prog.done = c->prog.failing = c->prog.promises = 0;
  for (size_t i = 0; i < n; i++) {
    c->prog.done++;
    c->prog.failing += pc_x_fails (c->res[i].it.outcome, c->res[i].it.promise, true);
    c->prog.promises += pc_x_fails (c->res[i].it.outcome, c->res[i].it.promise, false);
  }
}

static bool
is_done (const struct ctx *c, size_t k, uint64_t index)
{
  for (size_t i = 0; i < c->nres; i++)
    if (c->res[i].k == k && c->res[i].it.index == index)
      return true;
  return false;
}

/* ------------------------------------------------------------------ */
/* The workloads */

static bool
wanted (const struct ctx *c, const struct pc_gen_workload *w, uint64_t index)
{
  char text[PC_GEN_TEXT_MAX];

  if (c->cfg->nshards > 1 && index % c->cfg->nshards != c->cfg->shard)
    return false;
  if (c->cfg->only) {
    pc_gen_format (w, text);
    if (strstr (text, c->cfg->only) == NULL)
      return false;
  }
  return true;
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
  while (r == 0 && !at_limit (c) && pc_gen_next (c->cfg->seq, &pos, &w)) {
    if (wanted (c, &w, index))
      r = add_work (c, &w, index);
    index++;
  }
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
  unsigned size = c->cfg->batch ? c->cfg->batch : BATCH_DEFAULT;
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
    if (!is_done (c, k, c->work[c->cursor[k]].index)) {
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
  r = pc_x_run_batch (c->cfg, &c->cfg->configs[j->k], j->dir, j->it, j->n, false, &err);
  if (r == -EINTR || pc_interrupted ())
    _exit (4);                  /* no results: --resume runs it again */
  snprintf (path, sizeof path, "%s/results.jsonl", j->dir);
  f = fopen (path, "we");
  for (size_t i = 0; f && i < j->n; i++) {
    struct xres x = { .k = j->k, .it = j->it[i] };
    json_object *o;
    snprintf (x.batch, sizeof x.batch, "%s", j->name);
    o = res_json (c, &x);
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
    if (!res_parse (c, line, &x))
      continue;
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
      struct xres x = { .k = j->k, .it = j->it[i] };
      json_object *o;
      if (is_done (c, j->k, x.it.index))
        continue;
      x.it.outcome = PC_XV_ERROR;
      snprintf (x.it.why, sizeof x.it.why, "its batch's process ended with status %d",
                WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status));
      snprintf (x.batch, sizeof x.batch, "%s", j->name);
      o = res_json (c, &x);
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

/* ------------------------------------------------------------------ */
/* Failures, the summary, explore.json */

static int
res_cmp (const void *a, const void *b)
{
  const struct xres *x = a, *y = b;

  if (x->it.index != y->it.index)
    return x->it.index < y->it.index ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

/* Shrinks each failing result and writes it as OUT/failures/N.sh. */
static int
write_failures (struct ctx *c, struct pc_err *err)
{
  char dir[PATH_MAX + 16];
  unsigned n = 0;

  snprintf (dir, sizeof dir, "%s/failures", c->cfg->out);
  for (size_t i = 0; i < c->nres && !pc_interrupted (); i++) {
    struct xres *x = &c->res[i];
    struct xitem small = x->it;
    char path[PATH_MAX + 64], sdir[PATH_MAX + 64], text[PC_GEN_TEXT_MAX], otext[PC_GEN_TEXT_MAX];
    char log[PATH_MAX + 64], model[64];
    FILE *f;
    if (!pc_x_fails (x->it.outcome, x->it.promise, true))
      continue;
    if (n == 0 && pc_mkdir_p (dir) < 0)
      return pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
    n++;
    snprintf (log, sizeof log, "%s/batches/%s/powercut.log", x->root ? x->root : c->cfg->out,
              x->batch);
    if (!c->cfg->no_shrink && !c->cfg->nmerge && pc_gen_calls (&x->it.w) > 2) {
      struct pc_err serr;
      c->prog.phase = "shrinking";
      snprintf (sdir, sizeof sdir, "%s/shrink/%u", c->cfg->out, n);
      if (pc_x_shrink (c->cfg, &c->cfg->configs[x->k], sdir, &x->it, &small, log, sizeof log,
                       &serr) < 0) {
        if (c->cfg->problem) {
          char line[PC_ERR_MAX + 64];
          snprintf (line, sizeof line, "shrinking failure %u: %s", n, serr.msg);
          c->cfg->problem (c->cfg->ctx, line);
        }
        small = x->it;
      }
      if (c->cfg->progress) {
        c->prog.seconds = (pc_now_mono_ns () - c->t0) / 1e9;
        c->cfg->progress (c->cfg->ctx, &c->prog);
      }
    }
    snprintf (x->failure, sizeof x->failure, "failures/%u.sh", n);
    snprintf (path, sizeof path, "%s/%s", c->cfg->out, x->failure);
    pc_gen_format (&small.w, text);
    pc_gen_format (&x->it.w, otext);
    if (c->cfg->model.kind == PC_MODEL_REORDER || c->cfg->model.kind == PC_MODEL_TORN)
      snprintf (model, sizeof model, " --model %s:%u --seed %" PRIu64,
                pc_model_name (c->cfg->model.kind), c->cfg->model.k, c->cfg->model.seed);
    else if (c->cfg->model.kind != PC_MODEL_FLUSH)
      snprintf (model, sizeof model, " --model %s", pc_model_name (c->cfg->model.kind));
    else
      model[0] = '\0';
    f = fopen (path, "we");
    if (f == NULL)
      return pc_err_set (err, errno, "%s: %s", path, strerror (errno));
    fprintf (f, "#!/bin/sh\n"
             "# powercut explore: failure %u\n"
             "#   workload:      %s\n", n, text);
    if (strcmp (text, otext) != 0)
      fprintf (f, "#   shrunk from:   %s\n", otext);
    fprintf (f, "#   configuration: %s\n"
             "#   found:         %s (%s) at %zu of its %zu crash points, and %zu later\n"
             "#   reproduce:     powercut run --config '%s'%s -- %s\n"
             "#   first failing: powercut replay %s --at %s -o state.img\n"
             "cd \"${POWERCUT_MNT:-.}\" || exit 1\n", c->label[x->k],
             pc_explore_outcome_name (small.outcome),
             small.promise ? "a broken promise" : "exposure", small.failing, small.points,
             small.later, c->label[x->k], model, path, log, small.first[0] ? small.first : "?");
    pc_gen_script (&small.w, f, NULL, NULL);
    if (fclose (f) != 0 || chmod (path, 0755) < 0)
      return pc_err_set (err, EIO, "%s: cannot write it", path);
  }
  c->prog.phase = "exploring";
  return 0;
}

/* The kinds of a workload's operations, "write.append + unlink". */
static void
kinds_of (const struct pc_gen_workload *w, char *buf, size_t len)
{
  size_t pos = 0;

  buf[0] = '\0';
  for (unsigned i = 0; i < w->nsteps && pos < len; i++)
    pos += (size_t) snprintf (buf + pos, len - pos, "%s%s", i ? " + " : "",
                              pc_gen_kind_name (w->step[i].kind));
}

static void
summary (const struct ctx *c, FILE *f, double secs)
{
  int w = 28;

  for (size_t k = 0; k < c->cfg->nconfigs; k++)
    if (strlen (c->label[k]) > (size_t) w)
      w = (int) strlen (c->label[k]);
  fprintf (f, "%-*s %9s %6s %11s %8s %9s %11s %6s\n", w, "configuration", "workloads", "ok",
           "unsupported", "exposure", "promises", "not-checked", "error");
  for (size_t k = 0; k < c->cfg->nconfigs; k++) {
    size_t n = 0, ok = 0, uns = 0, exp = 0, prom = 0, nc = 0, er = 0;
    for (size_t i = 0; i < c->nres; i++) {
      const struct xres *x = &c->res[i];
      if (x->k != k)
        continue;
      n++;
      ok += x->it.outcome == PC_V_OK;
      uns += x->it.outcome == PC_XV_UNSUPPORTED;
      nc += x->it.outcome == PC_V_NOT_CHECKED;
      er += x->it.outcome == PC_XV_ERROR;
      prom += pc_x_fails (x->it.outcome, x->it.promise, false);
      exp += pc_x_fails (x->it.outcome, x->it.promise, true) && !x->it.promise;
    }
    fprintf (f, "%-*s %9zu %6zu %11zu %8zu %9zu %11zu %6zu\n", w, c->label[k], n, ok, uns,
             exp, prom, nc, er);
  }
  if (c->cfg->nmerge)
    fprintf (f, "%zu workload runs, from %zu exploration%s\n", c->nres, c->cfg->nmerge,
             c->cfg->nmerge == 1 ? "" : "s");
  else
    fprintf (f, "%zu workload runs in %.1f s (%.2f a second)\n", c->nres, secs,
             secs > 0 ? c->nres / secs : 0.0);
  for (size_t k = 0; k < c->cfg->nconfigs; k++) {
    size_t n = 0;
    for (size_t i = 0; i < c->nres; i++)
      n += c->res[i].k == k ? c->res[i].it.setup_failing : 0;
    if (n)
      fprintf (f, "%s: the filesystem failed at %zu crash points of the workloads' setups "
               "(the configuration's own failures: see the batches' reports)\n", c->label[k], n);
  }
  /* failures by configuration, operations and outcome */
  {
    bool any = false;
    for (size_t i = 0; i < c->nres; i++) {
      const struct xres *x = &c->res[i];
      char kinds[256];
      size_t count = 0;
      bool seen = false;
      if (!pc_x_fails (x->it.outcome, x->it.promise, true))
        continue;
      kinds_of (&x->it.w, kinds, sizeof kinds);
      for (size_t j = 0; j < c->nres && !seen; j++) {
        const struct xres *y = &c->res[j];
        char k2[256];
        if (!pc_x_fails (y->it.outcome, y->it.promise, true) || y->k != x->k ||
            y->it.outcome != x->it.outcome || y->it.promise != x->it.promise)
          continue;
        kinds_of (&y->it.w, k2, sizeof k2);
        if (strcmp (kinds, k2) != 0)
          continue;
        if (j < i)
          seen = true;
        count++;
      }
      if (seen)
        continue;
      if (!any)
        fprintf (f, "\nfailures by operations and verdict:\n");
      any = true;
      fprintf (f, "  %-24s %-40s %-14s %-16s %zu (e.g. %s)\n", c->label[x->k], kinds,
               pc_explore_outcome_name (x->it.outcome),
               x->it.promise ? "broken promise" : "exposure", count,
               x->failure[0] ? x->failure : "-");
    }
  }
}

static int
write_json (const struct ctx *c, double secs, struct pc_err *err)
{
  json_object *root = json_object_new_object (), *cf = json_object_new_array ();
  json_object *ws = json_object_new_array (), *cur = NULL;
  char path[PATH_MAX + 32];
  uint64_t cur_index = UINT64_MAX;
  int r;

  json_object_object_add (root, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (root, "schema", json_object_new_int (1));
  json_object_object_add (root, "mode", json_object_new_string (c->cfg->corpus ? "corpus"
                                                                : c->cfg->random ? "random" : "seq"));
  json_object_object_add (root, "seq", json_object_new_int ((int) c->cfg->seq));
  json_object_object_add (root, "seed", json_object_new_int64 ((int64_t) c->cfg->seed));
  json_object_object_add (root, "model", json_object_new_string (pc_model_name (c->cfg->model.kind)));
  json_object_object_add (root, "seconds", json_object_new_double (secs));
  for (size_t k = 0; k < c->cfg->nconfigs; k++)
    json_object_array_add (cf, json_object_new_string (c->label[k]));
  json_object_object_add (root, "configs", cf);
  for (size_t i = 0; i < c->nres; i++) {
    const struct xres *x = &c->res[i];
    json_object *one = res_json (c, x), *rs;
    char text[PC_GEN_TEXT_MAX];
    if (x->it.index != cur_index) {
      cur = json_object_new_object ();
      pc_gen_format (&x->it.w, text);
      json_object_object_add (cur, "index", json_object_new_int64 ((int64_t) x->it.index));
      json_object_object_add (cur, "ops", json_object_new_string (text));
      json_object_object_add (cur, "results", json_object_new_object ());
      json_object_array_add (ws, cur);
      cur_index = x->it.index;
    }
    json_object_object_del (one, "config");
    json_object_object_del (one, "index");
    json_object_object_del (one, "ops");
    json_object_object_add (one, "failure", x->failure[0] ? json_object_new_string (x->failure)
                                                          : NULL);
    json_object_object_get_ex (cur, "results", &rs);
    json_object_object_add (rs, c->label[x->k], one);
  }
  json_object_object_add (root, "workloads", ws);
  snprintf (path, sizeof path, "%s/explore.json", c->cfg->out);
  r = json_object_to_file_ext (path, root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
  json_object_put (root);
  return r < 0 ? pc_err_set (err, EIO, "%s: cannot write it", path) : 0;
}

/* Corpus: what changed against the saved verdicts; how many. */
static size_t
changes (const struct ctx *c, FILE *f)
{
  size_t n = 0;

  for (size_t i = 0; i < c->nres; i++) {
    const struct xres *x = &c->res[i];
    for (size_t w = 0; w < c->nwork; w++) {
      int before = c->work[w].expected[x->k];
      char text[PC_GEN_TEXT_MAX];
      if (c->work[w].index != x->it.index || before < 0 || before == x->it.outcome)
        continue;
      if (n++ == 0)
        fprintf (f, "\nchanged against the corpus:\n");
      pc_gen_format (&x->it.w, text);
      fprintf (f, "  %s: %s: %s -> %s%s\n", c->label[x->k], text, pc_explore_outcome_name (before),
               pc_explore_outcome_name (x->it.outcome),
               pc_x_fails (x->it.outcome, true, true) && !pc_x_fails (before, true, true)
               ? " (new failure)" : !pc_x_fails (x->it.outcome, true, true) &&
               pc_x_fails (before, true, true) ? " (fixed)" : "");
    }
  }
  if (c->cfg->corpus && n == 0)
    fprintf (f, "\nno verdict changed against the corpus\n");
  return n;
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
      json_object *o = res_json (&c, &c.res[i]);
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
      json_object *o = res_json (&c, &c.res[i]);
      fprintf (c.jsonl, "%s\n", json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN));
      json_object_put (o);
    }
    r = 0;
  }
  else
    r = run_batches (&c, err);
  fclose (c.jsonl);
  c.jsonl = NULL;
  if (r < 0)
    goto out;
  if (c.nres > 1)
    qsort (c.res, c.nres, sizeof *c.res, res_cmp);
  r = write_failures (&c, err);
  if (r == 0 && pc_interrupted ())
    r = pc_err_set (err, EINTR, "interrupted (powercut explore --resume goes on from here)");
  if (r < 0)
    goto out;
  secs = (pc_now_mono_ns () - c.t0) / 1e9;
  r = write_json (&c, secs, err);
  if (r < 0)
    goto out;
  snprintf (path, sizeof path, "%s/summary.txt", cfg->out);
  {
    FILE *f = fopen (path, "we");
    if (f) {
      summary (&c, f, secs);
      changed = changes (&c, f);
      fclose (f);
    }
  }
  if (report) {
    summary (&c, report, secs);
    changes (&c, report);
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
  free (c.res);
  free (c.work);
  return r;
}
