/* output.c: what powercut explore leaves: the failures shrunk into
 * scripts, the summary, explore.json and the changes against a corpus. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "explore/exploreint.h"
#include "report/report.h"
#include "util/util.h"

const char *
pc_explore_outcome_name (int v)
{
  if (v == PC_XV_UNSUPPORTED)
    return "unsupported";
  if (v == PC_XV_ERROR)
    return "error";
  return pc_verdict_name ((enum pc_verdict) v);
}

/* One result as a line of results.jsonl. */
json_object *
pc_x_res_json (const struct ctx *c, const struct xres *x)
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
  if (pc_x_phases_known (&x->it.ph)) {
    json_object *ph = json_object_new_object ();
    for (int p = 0; p < PC_NPHASES; p++)
      json_object_object_add (ph, pc_phase_names[p], json_object_new_double (x->it.ph.s[p]));
    json_object_object_add (o, "phases", ph);
  }
  /* last, where batch_done adds it to a batch's line: a result kept by
   * --resume reads as it was written */
  if (x->at_s > 0)
    json_object_object_add (o, "at_s", json_object_new_double (x->at_s));
  return o;
}

/* Where a workload run's time went, by phase, on each configuration:
 * the mean over the runs whose times are known. */
static void
phases (const struct ctx *c, FILE *f)
{
  bool head = false;

  for (size_t k = 0; k < c->cfg->nconfigs; k++) {
    double sum[PC_NPHASES] = { 0 }, all = 0;
    size_t n = 0;
    for (size_t i = 0; i < c->nres; i++) {
      const struct xres *x = &c->res[i];
      if (x->k != k || !pc_x_phases_known (&x->it.ph))
        continue;
      for (int p = 0; p < PC_NPHASES; p++)
        sum[p] += x->it.ph.s[p];
      n++;
    }
    if (n == 0)
      continue;
    if (!head)
      fprintf (f, "a workload run's time by phase (mean seconds):\n");
    head = true;
    fprintf (f, "  %s:", c->label[k]);
    for (int p = 0; p < PC_NPHASES; p++) {
      fprintf (f, "%s %s %.3f", p ? "," : "", pc_phase_names[p], sum[p] / (double) n);
      all += sum[p] / (double) n;
    }
    fprintf (f, " (%.3f in all, over %zu runs)\n", all, n);
  }
}

int
pc_x_res_cmp (const void *a, const void *b)
{
  const struct xres *x = a, *y = b;

  if (x->it.index != y->it.index)
    return x->it.index < y->it.index ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

/* Shrinks each failing result and writes it as OUT/failures/N.sh. */
int
pc_x_write_failures (struct ctx *c, struct pc_err *err)
{
  char dir[PATH_MAX + 16];
  unsigned n = 0;

  snprintf (dir, sizeof dir, "%s/failures", c->cfg->out);
  for (size_t i = 0; i < c->nres && !pc_interrupted (); i++) {
    struct xres *x = &c->res[i];
    struct xitem small = x->it;
    char path[PATH_MAX + 64], sdir[PATH_MAX + 64], text[PC_GEN_TEXT_MAX], otext[PC_GEN_TEXT_MAX];
    char log[PATH_MAX + 64], model[96], base[PATH_MAX + 96], qlabel[512];
    FILE *f;
    if (!pc_x_fails (x->it.outcome, x->it.promise, true))
      continue;
    if (n == 0 && pc_mkdir_p (dir) < 0)
      return pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
    n++;
    c->nfailures = n;
    snprintf (sdir, sizeof sdir, "%s/batches/%s", x->root ? x->root : c->cfg->out, x->batch);
    pc_x_item_log (c->cfg, sdir, &x->it, log, sizeof log);
    if (!c->cfg->no_shrink && !c->cfg->nmerge && pc_gen_calls (&x->it.w) > 2) {
      struct pc_err serr;
      c->prog.phase = "shrinking";
      snprintf (sdir, sizeof sdir, "%s/shrink/%u", c->cfg->out, n);
      if (pc_x_shrink (c->cfg, &c->cfg->configs[x->k], c->base[x->k], sdir, &x->it, &small, log,
                       sizeof log, &serr) < 0) {
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
    if (pc_model_takes_k (c->cfg->model.kind)) {
      char spec[64];
      snprintf (model, sizeof model, " --model %s --seed %" PRIu64,
                pc_model_spec (&c->cfg->model, spec, sizeof spec), c->cfg->model.seed);
    }
    else if (c->cfg->model.kind != PC_MODEL_FLUSH)
      snprintf (model, sizeof model, " --model %s", pc_model_name (c->cfg->model.kind));
    else
      model[0] = '\0';
    /* who judged, when not by default (--judge both: a recovery-differs) */
    if (c->cfg->judge != PC_JUDGE_AUTO)
      snprintf (model + strlen (model), sizeof model - strlen (model), " --judge %s",
                pc_judge_mode_name (c->cfg->judge));
    /* the label as one word of the shell (it may hold quotes: mkfs='...') */
    pc_shell_quote (c->label[x->k], qlabel, sizeof qlabel);
    /* the recording starts from its configuration's base image, kept in
     * OUT/bases (a shard's own when merged) */
    if (c->cfg->shared)
      base[0] = '\0';
    else
      snprintf (base, sizeof base, " --base %s/bases/c%zu.img",
                x->root ? x->root : c->cfg->out, x->k);
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
             "#   reproduce:     powercut run --config %s%s%s --settle 0 -- %s\n"
             "#   first failing: powercut replay %s%s --at %s -o state.img%s\n"
             "cd \"${POWERCUT_MNT:-.}\" || exit 1\n", c->label[x->k],
             pc_explore_outcome_name (small.outcome),
             small.promise ? "a broken promise" : small.outcome == PC_V_RECOVERY_DIFFERS
             ? "the recovery's fault: the kernel's and e2fsck's disagree" : "exposure",
             small.failing, small.points,
             small.later, qlabel, model, base, path, log, base, small.first[0] ? small.first : "?",
             small.first[0] && pc_report_replay_recovered (small.first_verdict)
             ? " --recovered" : "");
    if (c->cfg->shared)
      pc_gen_script (&small.w, f, NULL, NULL);
    else {
      /* the workload as explore ran it: on its base image, which has the
       * setup (and its sync) already, only the operations; on a fresh
       * filesystem, the setup first */
      fprintf (f, "# the setup, unless the filesystem has it (explore's base image)\n"
               "if [ ! -d d0/n ]; then\n");
      pc_gen_setup_script (f, NULL);
      fprintf (f, "sync\nfi\n");
      pc_gen_prime_script (f);
      pc_gen_ops_script (&small.w, f, NULL);
    }
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

void
pc_x_summary (const struct ctx *c, FILE *f, double secs)
{
  int w = 28;
  bool both = c->cfg->judge == PC_JUDGE_BOTH;

  for (size_t k = 0; k < c->cfg->nconfigs; k++)
    if (strlen (c->label[k]) > (size_t) w)
      w = (int) strlen (c->label[k]);
  fprintf (f, "%-*s %9s %6s %11s %8s %9s %11s %6s", w, "configuration", "workloads",
           pc_explore_outcome_name (PC_V_OK), pc_explore_outcome_name (PC_XV_UNSUPPORTED),
           "exposure", "promises", pc_explore_outcome_name (PC_V_NOT_CHECKED),
           pc_explore_outcome_name (PC_XV_ERROR));
  /* --judge both: the workloads where the kernel's recovery and e2fsck's
   * disagree */
  if (both)
    fprintf (f, " %16s", pc_verdict_name (PC_V_RECOVERY_DIFFERS));
  fputc ('\n', f);
  for (size_t k = 0; k < c->cfg->nconfigs; k++) {
    size_t n = 0, ok = 0, uns = 0, exp = 0, prom = 0, nc = 0, er = 0, rec = 0;
    for (size_t i = 0; i < c->nres; i++) {
      const struct xres *x = &c->res[i];
      if (x->k != k)
        continue;
      n++;
      ok += x->it.outcome == PC_V_OK;
      uns += x->it.outcome == PC_XV_UNSUPPORTED;
      nc += x->it.outcome == PC_V_NOT_CHECKED;
      er += x->it.outcome == PC_XV_ERROR;
      prom += x->it.promise && pc_x_fails (x->it.outcome, true, false);
      rec += x->it.outcome == PC_V_RECOVERY_DIFFERS;
      exp += pc_x_fails (x->it.outcome, false, true) && !x->it.promise &&
             x->it.outcome != PC_V_RECOVERY_DIFFERS;
    }
    fprintf (f, "%-*s %9zu %6zu %11zu %8zu %9zu %11zu %6zu", w, c->label[k], n, ok, uns,
             exp, prom, nc, er);
    if (both)
      fprintf (f, " %16zu", rec);
    fputc ('\n', f);
  }
  if (c->cfg->nmerge)
    fprintf (f, "%zu workload runs, from %zu exploration%s\n", c->nres, c->cfg->nmerge,
             c->cfg->nmerge == 1 ? "" : "s");
  else
    fprintf (f, "%zu workload runs in %.1f s (%.2f a second)\n", c->nres, secs,
             secs > 0 ? c->nres / secs : 0.0);
  /* how long until the first failure came (one exploration's times) */
  if (!c->cfg->nmerge) {
    const struct xres *first = NULL;
    size_t before = 0;
    for (size_t i = 0; i < c->nres; i++) {
      const struct xres *x = &c->res[i];
      if (x->at_s > 0 && pc_x_fails (x->it.outcome, x->it.promise, c->cfg->fail_on_exposure) &&
          (first == NULL || x->at_s < first->at_s))
        first = x;
    }
    for (size_t i = 0; first && i < c->nres; i++)
      before += c->res[i].at_s > 0 && c->res[i].at_s <= first->at_s;
    if (first) {
      char text[PC_GEN_TEXT_MAX];
      pc_gen_format (&first->it.w, text);
      fprintf (f, "first failure after %.1f s, among the first %zu workload runs: %s on %s\n",
               first->at_s, before, text, c->label[first->k]);
    }
  }
  phases (c, f);
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
               x->it.promise ? "broken promise" : x->it.outcome == PC_V_RECOVERY_DIFFERS
               ? "recovery" : "exposure", count,
               x->failure[0] ? x->failure : "-");
    }
  }
}

int
pc_x_write_json (const struct ctx *c, double secs, struct pc_err *err)
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
    json_object *one = pc_x_res_json (c, x), *rs;
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
size_t
pc_x_changes (const struct ctx *c, FILE *f)
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
