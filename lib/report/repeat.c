/* repeat.c: the reports of one configuration run several times: its
 * findings across the runs, its outcome, its text, JSON and page. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/html.h"
#include "report/repeat.h"
#include "report/report.h"
#include "report/reportint.h"
#include "util/util.h"

#define MAX_LISTED 50

/* The order of the findings across runs: the filesystem's fault first
 * (the recovery's before it), then by path and verdict. */
static int
cmp_key (const struct pc_repeat_finding *x, const char *path, int kind, enum pc_fault fault)
{
  int c;

  if (x->fault != fault)
    return x->fault > fault ? -1 : 1;
  if ((c = strcmp (x->first->path, path)) != 0)
    return c;
  return x->kind < kind ? -1 : x->kind > kind;
}

void
pc_repeat_findings_free (struct pc_repeat_finding *v, size_t nf)
{
  for (size_t i = 0; v && i < nf; i++)
    free (v[i].points);
  free (v);
}

/* A failing point without a failing path (the filesystem corrupt, the
 * checker failed): a finding of the whole state. */
static const struct pc_finding whole = { .kind = PC_V_OK, .path = (char *) "" };

/* Counts fd (of verdict kind and fault) in run r of n, in v (nf, cap).
 * Returns 0 or -ENOMEM. */
static int
count_in (struct pc_repeat_finding **v, size_t *nf, size_t *cap, size_t r, size_t n,
          const struct pc_finding *fd, int kind, enum pc_fault fault)
{
  size_t lo = 0, hi = *nf;
  struct pc_repeat_finding *x;

  /* v is kept in order: find it, or where it goes */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = cmp_key (&(*v)[mid], fd->path, kind, fault);
    if (c == 0)
      lo = hi = mid;
    else if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == *nf || cmp_key (&(*v)[lo], fd->path, kind, fault) != 0) {
    size_t *pts = calloc (n, sizeof *pts);
    if (pts == NULL || pc_grow (v, cap, *nf + 1, sizeof **v, 16) < 0) {
      free (pts);
      return -ENOMEM;
    }
    memmove (*v + lo + 1, *v + lo, (*nf - lo) * sizeof **v);
    (*v)[lo] = (struct pc_repeat_finding) { fd, kind, fault, 0, pts };
    (*nf)++;
  }
  x = &(*v)[lo];
  x->runs_seen += x->points[r] == 0;
  x->points[r]++;
  return 0;
}

int
pc_repeat_findings (const struct pc_outcome *runs, size_t n, struct pc_repeat_finding **ret,
                    size_t *ret_n)
{
  struct pc_repeat_finding *v = NULL;
  size_t nf = 0, cap = 0;
  int e = 0;

  for (size_t r = 0; r < n && e == 0; r++) {
    const struct pc_check_result *res = runs[r].ok ? runs[r].res : NULL;
    for (size_t i = 0; res && i < res->npoints && e == 0; i++) {
      const struct pc_point *p = &res->points[i];
      bool any = false;
      for (size_t k = 0; k < p->findings.n && e == 0; k++) {
        const struct pc_finding *fd = &p->findings.v[k];
        if (pc_finding_verdict (fd->kind) == PC_V_OK)
          continue;
        any = true;
        e = count_in (&v, &nf, &cap, r, n, fd, fd->kind, pc_finding_fault (fd));
      }
      if (!any && e == 0 && p->verdict != PC_V_OK && p->verdict != PC_V_NOT_CHECKED)
        e = count_in (&v, &nf, &cap, r, n, &whole, p->verdict, pc_point_fault (p));
    }
  }
  if (e < 0) {
    pc_repeat_findings_free (v, nf);
    v = NULL;
    nf = 0;
  }
  *ret = v;
  *ret_n = nf;
  return e;
}

/* Did run o fail at some point? */
static bool
run_failed (const struct pc_outcome *o)
{
  return o->ok && o->promises + o->program + o->exposures + o->recovery > 0;
}

/* The longest a version of o was at risk: its longest window, or how
 * long one not durable at the last point had been by then. */
static uint64_t
longest (const struct pc_outcome *o)
{
  uint64_t l = o->win.longest != SIZE_MAX ? o->win.longest_ns : 0;

  return o->win.never && o->win.open_ns > l ? o->win.open_ns : l;
}

static int
cmp_path (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

size_t
pc_repeat_outcome (struct pc_outcome *o, const struct pc_outcome *runs, size_t n)
{
  struct pc_repeat_finding *v = NULL;
  const char **paths = NULL;
  size_t nf = 0, show = n, worst = n;

  o->res = NULL;
  o->repeated = n;
  o->win.longest = o->win.ack_exposed = SIZE_MAX;
  for (size_t r = 0; r < n; r++) {
    const struct pc_outcome *x = &runs[r];
    if (!x->ok)
      continue;
    o->ok = true;
    o->set |= x->set;
    o->points += x->points;
    o->unique += x->unique;
    for (int k = 0; k < PC_V_COUNT; k++)
      o->count[k] += x->count[k];
    o->promises += x->promises;
    o->program += x->program;
    o->exposures += x->exposures;
    o->recovery += x->recovery;
    o->runs_failed += run_failed (x);
    if (x->res && (show == n || (run_failed (x) && !run_failed (&runs[show]))))
      show = r;
    if (x->win.n > 0 && (worst == n || longest (x) > longest (&runs[worst])))
      worst = r;
  }
  if (worst < n)
    o->win = runs[worst].win;
  if (!o->ok) {
    for (size_t r = 0; r < n && o->error[0] == '\0'; r++)
      snprintf (o->error, sizeof o->error, "%s", runs[r].error);
    return n;
  }
  /* the distinct paths lost in any run */
  if (pc_repeat_findings (runs, n, &v, &nf) == 0 &&
      (paths = malloc ((nf ? nf : 1) * sizeof *paths)) != NULL) {
    for (size_t i = 0; i < nf; i++)
      paths[i] = v[i].first->path;
    qsort (paths, nf, sizeof *paths, cmp_path);
    for (size_t i = 0; i < nf; i++)
      o->files += i == 0 || strcmp (paths[i], paths[i - 1]) != 0;
  }
  free (paths);
  pc_repeat_findings_free (v, nf);
  for (size_t r = 0; o->files == 0 && r < n; r++)
    o->files += runs[r].ok ? runs[r].files : 0;       /* device sets */
  return show;
}

/* The line that says what the n runs lost, in how many and whose fault. */
static void
headline (FILE *f, const struct pc_outcome *runs, size_t n)
{
  size_t ok = 0, failed = 0, fs = 0, prog = 0, none = 0, rec = 0;

  for (size_t r = 0; r < n; r++) {
    if (!runs[r].ok)
      continue;
    ok++;
    failed += run_failed (&runs[r]);
    fs += runs[r].promises > 0;
    prog += runs[r].program > 0;
    none += runs[r].exposures > 0;
    rec += runs[r].recovery > 0;
  }
  if (failed == 0)
    fprintf (f, "nothing lost in %s %zu run%s", ok == n ? "any of the" : "the", ok,
             ok == n ? "s" : pc_s (ok));
  else {
    if (fs)
      fprintf (f, "THE FILESYSTEM BROKE ITS PROMISE in %zu of %zu runs", fs, n);
    else
      fprintf (f, "LOST in %zu of %zu runs", failed, n);
    if (prog)
      fprintf (f, "; by the program's fault in %zu", prog);
    if (none)
      fprintf (f, "; only data never made durable in %zu", none);
    if (rec)
      fprintf (f, "; the kernel's and e2fsck's recoveries disagree in %zu", rec);
    if (!fs)
      fputs ("; the filesystem kept its promises in every run", f);
  }
  if (ok < n)
    fprintf (f, "; %zu of the %zu could not be run or checked", n - ok, n);
  fputc ('\n', f);
}

/* Whose fault, for people. */
static const char *
whose (enum pc_fault ft)
{
  static const char *const w[] = { "nobody's (never made durable)", "the program's",
                                   "the filesystem's", "the recovery's (kernel or e2fsck)" };

  return w[ft];
}

/* A finding across runs to sort: those of the same verdict and fault,
 * seen at as many points of the same runs, on the same rule, together. */
struct member {
  size_t i, n;
  const struct pc_repeat_finding *x;
};

static int
cmp_str (const char *a, const char *b)
{
  return strcmp (a ? a : "", b ? b : "");
}

/* 0 where a and b are the same but for their path. */
static int
cmp_alike (const struct member *a, const struct member *b)
{
  const struct pc_repeat_finding *x = a->x, *y = b->x;
  int c;

  if (x->fault != y->fault)
    return x->fault > y->fault ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  for (size_t r = 0; r < a->n; r++)
    if (x->points[r] != y->points[r])
      return x->points[r] < y->points[r] ? -1 : 1;
  if ((c = cmp_str (pc_cause_class (x->kind, &x->first->cause),
                    pc_cause_class (y->kind, &y->first->cause))) != 0)
    return c;
  return cmp_str (x->first->cause.rule, y->first->cause.rule);
}

static int
by_alike (const void *pa, const void *pb)
{
  const struct member *a = pa, *b = pb;
  int c = cmp_alike (a, b);

  return c ? c : a->i < b->i ? -1 : a->i > b->i;
}

/* The first (in v's order) of the findings alike with each of v's nf
 * (of n runs): leader[i] == i for the first of each; NULL without
 * memory. */
static size_t *
leaders (const struct pc_repeat_finding *v, size_t nf, size_t n)
{
  struct member *m = malloc ((nf ? nf : 1) * sizeof *m);
  size_t *leader = malloc ((nf ? nf : 1) * sizeof *leader);

  if (m == NULL || leader == NULL) {
    free (m);
    free (leader);
    return NULL;
  }
  for (size_t i = 0; i < nf; i++)
    m[i] = (struct member) { i, n, &v[i] };
  qsort (m, nf, sizeof *m, by_alike);
  for (size_t k = 0; k < nf; k++)
    leader[m[k].i] = k > 0 && cmp_alike (&m[k - 1], &m[k]) == 0 ? leader[m[k - 1].i] : m[k].i;
  free (m);
  return leader;
}

void
pc_repeat_text (FILE *f, const char *title, const struct pc_outcome *o,
                const struct pc_outcome *runs, size_t n)
{
  struct pc_repeat_finding *v = NULL;
  size_t nf = 0, listed = 0, said = 0, *leader;
  const char **name;

  headline (f, runs, n);
  fprintf (f, "powercut run: %s on %s, repeated %zu times: one run is one sample of the "
           "kernel's timing\n", title, o->label, n);
  fprintf (f, "\nruns (each in %s/run-K):\n", o->dir);
  for (size_t r = 0; r < n; r++) {
    const struct pc_outcome *x = &runs[r];
    char *l1 = NULL, *l2 = NULL;
    fprintf (f, "  run-%zu: ", r + 1);
    if (!x->ok)
      fprintf (f, "error: %s\n", x->error);
    else if (x->res == NULL)
      fprintf (f, "%zu instant%s, failing: %zu the filesystem's, %zu the program's, %zu "
               "nobody's\n", x->points, pc_s (x->points), x->promises, x->program, x->exposures);
    else {
      pc_report_headline (x->res, &l1, &l2);
      fprintf (f, "%s\n", l1 ? l1 : "?");
    }
    free (l1);
    free (l2);
  }
  if (pc_repeat_findings (runs, n, &v, &nf) < 0)
    fputs ("\n(out of memory: the findings across the runs are not listed)\n", f);
  if (nf > 0)
    fputs ("\nlost, by path, verdict and whose fault (the crash points differ from run to "
           "run):\n", f);
  leader = leaders (v, nf, n);
  name = malloc ((nf ? nf : 1) * sizeof *name);
  for (size_t i = 0; i < nf && listed < MAX_LISTED; i++) {
    const char *sep = " (";
    size_t m = 0;
    if (leader && name) {
      if (leader[i] != i)
        continue;               /* said with the first of its group */
      for (size_t j = i; j < nf; j++)
        if (leader[j] == i)
          name[m++] = v[j].first->path;
    }
    fputs ("  ", f);
    if (m > 1) {
      pc_put_names (f, name, m);
      fprintf (f, " (%zu files)", m);
    }
    else
      pc_put_shown (f, pc_display_name, v[i].first->path);
    fprintf (f, ": %s, %s: seen in %zu of %zu runs", pc_finding_name (v[i].kind),
             whose (v[i].fault), v[i].runs_seen, n);
    for (size_t r = 0; r < n; r++)
      if (v[i].points[r]) {
        fprintf (f, "%srun-%zu at %zu%s", sep, r + 1, v[i].points[r],
                 *sep == ',' ? "" : v[i].points[r] == 1 ? " crash point" : " crash points");
        sep = ", ";
      }
    fputs (m > 1 ? ", each)\n" : ")\n", f);
    /* the first run's: its call and times are that run's own */
    pc_report_cause_text (f, v[i].kind, &v[i].first->cause);
    listed++;
    said += m > 1 ? m : 1;
  }
  if (nf > said)
    fprintf (f, "  ... and %zu more (see report.json)\n", nf - said);
  free (leader);
  free (name);
  pc_repeat_findings_free (v, nf);
}

int
pc_repeat_json (const char *path, const char *title, const struct pc_outcome *o,
                const struct pc_outcome *runs, size_t n)
{
  json_object *root = json_object_new_object (), *arr = json_object_new_array ();
  json_object *t = pc_json_totals (o->count, o->points, o->unique);
  struct pc_repeat_finding *v = NULL;
  size_t nf = 0;
  int r = 0;

  json_object_object_add (root, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (root, "workload", json_object_new_string (title));
  json_object_object_add (root, "configuration", json_object_new_string (o->label));
  json_object_object_add (root, "dir", json_object_new_string (o->dir));
  json_object_object_add (root, "repeated", json_object_new_int64 ((int64_t) n));
  json_object_object_add (root, "runs_failed", json_object_new_int64 ((int64_t) o->runs_failed));
  json_object_object_add (t, "promises", json_object_new_int64 ((int64_t) o->promises));
  json_object_object_add (t, "program_promises", json_object_new_int64 ((int64_t) o->program));
  json_object_object_add (t, "exposures", json_object_new_int64 ((int64_t) o->exposures));
  json_object_object_add (t, "recovery_differs", json_object_new_int64 ((int64_t) o->recovery));
  json_object_object_add (root, "totals", t);
  json_object_object_add (root, "files_affected", json_object_new_int64 ((int64_t) o->files));
  for (size_t k = 0; k < n; k++) {
    const struct pc_outcome *x = &runs[k];
    json_object *e = json_object_new_object ();
    json_object_object_add (e, "run", json_object_new_int64 ((int64_t) k + 1));
    json_object_object_add (e, "dir", json_object_new_string (x->dir));
    if (!x->ok)
      json_object_object_add (e, "error", json_object_new_string (x->error));
    else {
      json_object *rt = pc_json_totals (x->count, x->points, x->unique);
      json_object_object_add (rt, "promises", json_object_new_int64 ((int64_t) x->promises));
      json_object_object_add (rt, "program_promises", json_object_new_int64 ((int64_t) x->program));
      json_object_object_add (rt, "exposures", json_object_new_int64 ((int64_t) x->exposures));
      json_object_object_add (rt, "recovery_differs", json_object_new_int64 ((int64_t) x->recovery));
      json_object_object_add (e, "failed", json_object_new_boolean (run_failed (x)));
      json_object_object_add (e, "totals", rt);
      json_object_object_add (e, "files_affected", json_object_new_int64 ((int64_t) x->files));
    }
    json_object_array_add (arr, e);
  }
  json_object_object_add (root, "runs", arr);
  arr = json_object_new_array ();
  if (pc_repeat_findings (runs, n, &v, &nf) < 0)
    r = -ENOMEM;
  for (size_t i = 0; i < nf; i++) {
    json_object *e = json_object_new_object (), *seen = json_object_new_array ();
    json_object *pts = json_object_new_array (), *c;
    json_object_object_add (e, "verdict", json_object_new_string (pc_finding_name (v[i].kind)));
    pc_json_add_text (e, "path", v[i].first->path, true, PC_JSON_EXACT);
    json_object_object_add (e, "fault", json_object_new_string (pc_fault_name (v[i].fault)));
    json_object_object_add (e, "runs_seen", json_object_new_int64 ((int64_t) v[i].runs_seen));
    for (size_t k = 0; k < n; k++) {
      if (v[i].points[k])
        json_object_array_add (seen, json_object_new_int64 ((int64_t) k + 1));
      json_object_array_add (pts, json_object_new_int64 ((int64_t) v[i].points[k]));
    }
    json_object_object_add (e, "runs", seen);
    json_object_object_add (e, "points_per_run", pts);
    if (v[i].first->cause.known) {
      c = pc_json_cause (&v[i].first->cause, PC_JSON_EXACT);
      json_object_object_add (c, "class", json_object_new_string (
                                pc_cause_class (v[i].kind, &v[i].first->cause)));
      json_object_object_add (e, "cause", c);
    }
    json_object_array_add (arr, e);
  }
  pc_repeat_findings_free (v, nf);
  json_object_object_add (root, "findings", arr);
  if (r == 0 && json_object_to_file_ext (path, root, JSON_C_TO_STRING_PRETTY) < 0)
    r = -EIO;
  json_object_put (root);
  return r;
}

int
pc_repeat_html (const char *path, const char *title, const struct pc_outcome *o,
                const struct pc_outcome *runs, size_t n)
{
  struct pc_html_config *hc = calloc (n ? n : 1, sizeof *hc);
  struct pc_index *ix = calloc (n ? n : 1, sizeof *ix);
  bool *have = calloc (n ? n : 1, sizeof *have);
  char (*label)[32] = calloc (n ? n : 1, sizeof *label);
  char full[512];
  size_t k = 0;
  int r = -ENOMEM;

  if (hc == NULL || ix == NULL || have == NULL || label == NULL)
    goto out;
  for (size_t i = 0; i < n; i++) {
    char logp[PATH_MAX + 32];
    if (!runs[i].ok || runs[i].res == NULL)
      continue;                 /* failed, or a device set (no timeline) */
    snprintf (logp, sizeof logp, "%s/powercut.log", runs[i].dir);
    snprintf (label[k], sizeof label[k], "run-%zu", i + 1);
    have[k] = pc_index_load (logp, &ix[k]) == 0;
    hc[k] = (struct pc_html_config) { label[k], runs[i].res, have[k] ? &ix[k] : NULL };
    k++;
  }
  snprintf (full, sizeof full, "powercut run: %s on %s, repeated %zu times", title, o->label, n);
  r = pc_report_html (path, full, hc, k);
  for (size_t i = 0; i < k; i++)
    if (have[i])
      pc_index_free (&ix[i]);
out:
  free (hc);
  free (ix);
  free (have);
  free (label);
  return r;
}
