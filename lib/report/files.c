/* files.c: the text report's "files affected": each failing path with
 * its points, verdicts and faults, and at the point where it weighs most
 * what was found, what was allowed and why; paths whose findings are the
 * same (the same verdicts at the same points, by the same fault and
 * rule) in one block, their names as a range ("f00 .. f19") where they
 * count up. */
#include <config.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/reportint.h"
#include "result/result.h"
#include "util/util.h"

#define MAX_LISTED 20

/* "the program's at 4, nobody's at 2" from a path's faults. */
static void
faults_text (FILE *f, const struct pc_path_sum *v)
{
  static const char *const whose[] = { "nobody's (never made durable)", "the program's",
                                       "the filesystem's", "the recovery's (kernel or e2fsck)" };
  const char *sep = "";

  for (int k = PC_FAULT_COUNT - 1; k >= PC_FAULT_NONE; k--)
    if (v->faults[k]) {
      fprintf (f, "%s%s at %zu", sep, whose[k], v->faults[k]);
      sep = ", ";
    }
}

/* A failing finding of a path: at which point, its verdict and whose
 * fault. */
struct hit {
  size_t point;
  int kind;
  int fault;
};

/* A path's failing findings, in crash-point order. */
struct hits {
  struct hit *v;
  size_t n, cap;
};

/* The failing findings of each of the n paths of v (sorted by path), or
 * NULL without memory. */
static struct hits *
hits_of (const struct pc_check_result *res, const struct pc_path_sum *v, size_t n)
{
  struct hits *h = calloc (n ? n : 1, sizeof *h);

  for (size_t i = 0; h && i < res->npoints; i++)
    for (size_t k = 0; k < res->points[i].findings.n; k++) {
      const struct pc_finding *fd = &res->points[i].findings.v[k];
      size_t lo = 0, hi = n;
      if (pc_finding_verdict (fd->kind) == PC_V_OK)
        continue;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp (v[mid].first->path, fd->path);
        if (c == 0)
          lo = hi = mid;
        else if (c < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == n || pc_grow (&h[lo].v, &h[lo].cap, h[lo].n + 1, sizeof *h[lo].v, 8) < 0) {
        for (size_t j = 0; j < n; j++)
          free (h[j].v);
        free (h);
        return NULL;
      }
      h[lo].v[h[lo].n++] = (struct hit) { i, fd->kind, (int) pc_finding_fault (fd) };
    }
  return h;
}

/* A path to sort: paths with the same findings sort together, each set
 * in path order. */
struct member {
  size_t j;
  const struct hits *h;
  const struct pc_finding *worst;
};

static int
cmp_str (const char *a, const char *b)
{
  return strcmp (a ? a : "", b ? b : "");
}

/* Paths that fail at the same points with the same verdicts and faults,
 * and whose worst finding rests on the same rule, are the same (0). */
static int
cmp_findings (const struct member *a, const struct member *b)
{
  int c;

  if (a->h->n != b->h->n)
    return a->h->n < b->h->n ? -1 : 1;
  for (size_t i = 0; i < a->h->n; i++) {
    const struct hit *x = &a->h->v[i], *y = &b->h->v[i];
    if (x->point != y->point)
      return x->point < y->point ? -1 : 1;
    if (x->kind != y->kind)
      return x->kind < y->kind ? -1 : 1;
    if (x->fault != y->fault)
      return x->fault < y->fault ? -1 : 1;
  }
  if ((c = cmp_str (pc_cause_class (a->worst->kind, &a->worst->cause),
                    pc_cause_class (b->worst->kind, &b->worst->cause))) != 0 ||
      (c = cmp_str (a->worst->cause.rule, b->worst->cause.rule)) != 0)
    return c;
  return 0;
}

/* ... and the same ones in path order. */
static int
by_findings (const void *pa, const void *pb)
{
  const struct member *a = pa, *b = pb;
  int c = cmp_findings (a, b);

  return c ? c : a->j < b->j ? -1 : a->j > b->j;
}

/* The group of each path of v: group[j] is the index in v of the first
 * path (by path) with the same findings as v[j]; group[j] == j for the
 * first.  NULL without memory. */
static size_t *
groups_of (const struct pc_check_result *res, const struct pc_path_sum *v, size_t n)
{
  struct hits *h = hits_of (res, v, n);
  struct member *m = malloc ((n ? n : 1) * sizeof *m);
  size_t *group = malloc ((n ? n : 1) * sizeof *group);

  if (h && m && group) {
    for (size_t j = 0; j < n; j++)
      m[j] = (struct member) { j, &h[j], v[j].worst };
    qsort (m, n, sizeof *m, by_findings);
    /* the first of its set, or the same as the one before */
    for (size_t k = 0; k < n; k++)
      group[m[k].j] = k > 0 && cmp_findings (&m[k - 1], &m[k]) == 0 ? group[m[k - 1].j] : m[k].j;
  }
  else {
    free (group);
    group = NULL;
  }
  for (size_t j = 0; h && j < n; j++)
    free (h[j].v);
  free (h);
  free (m);
  return group;
}

/* Is s[from, to) a decimal number (its value in *ret)? */
static bool
digits (const char *s, size_t from, size_t to, unsigned long long *ret)
{
  unsigned long long x = 0;

  if (from >= to || to - from > 18)
    return false;
  for (size_t i = from; i < to; i++) {
    if (!isdigit ((unsigned char) s[i]))
      return false;
    x = x * 10 + (unsigned) (s[i] - '0');
  }
  *ret = x;
  return true;
}

/* Are the m names (in path order) one prefix, numbers of one width that
 * count up by one, and one suffix ("f00" .. "f19", "log.1.gz" .. "log.9.gz")? */
static bool
is_range (const char *const *name, size_t m)
{
  size_t len = strlen (name[0]), pre = len, suf = len;
  unsigned long long first, x;

  if (m < 3)
    return false;
  for (size_t k = 1; k < m; k++) {
    size_t l = strlen (name[k]), i = 0;
    if (l != len)
      return false;
    while (i < pre && name[k][i] == name[0][i])
      i++;
    pre = i;
    for (i = 0; i < suf && name[k][len - 1 - i] == name[0][len - 1 - i]; i++)
      ;
    suf = i;
  }
  while (pre > 0 && isdigit ((unsigned char) name[0][pre - 1]))
    pre--;
  while (suf > 0 && isdigit ((unsigned char) name[0][len - suf]))
    suf--;
  if (pre + suf >= len || !digits (name[0], pre, len - suf, &first))
    return false;
  for (size_t k = 1; k < m; k++)
    if (!digits (name[k], pre, len - suf, &x) || x != first + k)
      return false;
  return true;
}

void
pc_put_names (FILE *f, const char *const *name, size_t m)
{
  if (is_range (name, m)) {
    pc_put_shown (f, pc_display_name, name[0]);
    fputs (" .. ", f);
    pc_put_shown (f, pc_display_name, name[m - 1]);
    return;
  }
  for (size_t k = 0; k < m && k < 3; k++) {
    fputs (k == 0 ? "" : m <= 3 && k == m - 1 ? " and " : ", ", f);
    pc_put_shown (f, pc_display_name, name[k]);
  }
  if (m > 3)
    fprintf (f, " and %zu more", m - 3);
}

/* The names of a group of m paths (v's, at the indices g, in path order). */
static void
names_text (FILE *f, const struct pc_path_sum *v, const size_t *g, size_t m)
{
  const char **name = malloc (m * sizeof *name);

  for (size_t k = 0; name && k < m; k++)
    name[k] = v[g[k]].first->path;
  if (name)
    pc_put_names (f, name, m);
  else
    pc_put_shown (f, pc_display_name, v[g[0]].first->path);
  fprintf (f, " (%zu files, each the same)", m);
  free (name);
}

/* One block: the paths of a group (m of them at the indices g) with
 * their points, verdicts and faults, and, at the point where the first
 * one's finding weighs most, what was found, what was allowed and why. */
static void
block_text (FILE *f, const struct pc_path_sum *v, const size_t *g, size_t m)
{
  const struct pc_path_sum *s = &v[g[0]];
  const struct pc_finding *fd = s->worst;

  fputs ("  ", f);
  if (m > 1)
    names_text (f, v, g, m);
  else
    pc_put_shown (f, pc_display_name, s->first->path);
  fprintf (f, ": %zu point%s (%s .. %s): ", s->npoints, pc_s (s->npoints), s->first_id,
           s->last_id);
  pc_path_counts_text (f, s);
  fputs ("; fault: ", f);
  faults_text (f, s);
  fputs ("\n      ", f);
  if (m > 1) {
    fputs ("the first, ", f);
    pc_put_shown (f, pc_display_name, s->first->path);
    fputs (", ", f);
  }
  fprintf (f, "at %s: %s, found ", s->worst_id, pc_finding_name (fd->kind));
  pc_put_shown (f, pc_display_line, fd->found);
  fputs ("\n      allowed: ", f);
  pc_put_shown (f, pc_display_line, fd->allowed);
  fputc ('\n', f);
  pc_report_cause_text (f, fd->kind, &fd->cause);
}

void
pc_report_files_text (FILE *f, const struct pc_check_result *res)
{
  size_t n, listed = 0, blocks = 0, m;
  struct pc_path_sum *v = pc_report_paths (res, -1, &n);
  size_t *group = NULL, *g = NULL;

  if (n == 0)
    goto out;
  group = groups_of (res, v, n);
  g = malloc (n * sizeof *g);
  fprintf (f, "\nfiles affected: %zu\n", n);
  for (size_t j = 0; j < n && blocks < MAX_LISTED; j++) {
    const size_t *members = &j;       /* without memory, each path alone */
    m = 1;
    if (group && g) {
      if (group[j] != j)
        continue;               /* listed with the first of its group */
      m = 0;
      for (size_t k = j; k < n; k++)
        if (group[k] == j)
          g[m++] = k;
      members = g;
    }
    block_text (f, v, members, m);
    listed += m;
    blocks++;
  }
  if (n > listed)
    fprintf (f, "  ... and %zu more file%s (see the JSON report)\n", n - listed, pc_s (n - listed));
out:
  free (group);
  free (g);
  free (v);
}
