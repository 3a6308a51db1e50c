/* oracle.c: judging crash states against the versions marks recorded. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/history.h"
#include "oracle/oracle.h"
#include "oracle/oracleint.h"
#include "util/xxh.h"

struct omark {
  uint64_t record;
  uint64_t time_ns;
  struct pc_mark m;
};

struct pc_oracle {
  struct pc_history *hist;    /* a traced program's (history.h), or NULL */
  const struct pc_index *ix;  /* the log's */
  struct omark *marks;        /* marks with a manifest, in log order */
  size_t n;
  char **known;               /* every path any manifest names, sorted */
  size_t *first;              /* the first mark (index in marks) naming each */
  bool *changed;              /* ... changed after the last mark (pc_oracle_set_end) */
  size_t nknown;
  struct pc_oracle_version *versions;   /* by path (known order), then mark */
  size_t *vmark;              /* each version's mark (index in marks) */
  const struct pc_entry **ventry;       /* ... and what it is */
  size_t *vstart;             /* known[k]'s versions: vstart[k] .. vstart[k + 1] - 1 */
  size_t hfirst;              /* the history's versions from here on (its paths' only) */
  size_t nversions;
};

struct named {
  char *path;
  size_t mark;
};

static int
named_cmp (const void *a, const void *b)
{
  const struct named *x = a, *y = b;
  int c = strcmp (x->path, y->path);

  return c ? c : x->mark < y->mark ? -1 : x->mark > y->mark;
}

static bool same_version (const struct pc_entry *a, const struct pc_entry *b);
static bool durable_at (const struct omark *m, const char *path);

/* Is e a version windows follow (a file or a symlink)? */
static bool
followed (const struct pc_entry *e)
{
  return e && (e->type == PC_ENTRY_FILE || e->type == PC_ENTRY_SYMLINK);
}

/* Does the history follow path? */
static bool
traced (const struct pc_oracle *o, const char *path)
{
  size_t nh = 0, lo = 0, hi;
  const char *const *hp = o->hist ? pc_history_paths (o->hist, &nh) : NULL;

  for (hi = nh; lo < hi;) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp (hp[mid], path);
    if (c == 0)
      return true;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

/* Lists the versions of every known path the history does not follow,
 * then the history's: every version a traced program had.  Returns 0 or
 * -ENOMEM. */
static int
versions_new (struct pc_oracle *o)
{
  const struct pc_history_version *hv = NULL;
  size_t cap = 0, n = 0, nh = 0;

  o->vstart = malloc ((o->nknown + 1) * sizeof *o->vstart);
  if (o->vstart == NULL)
    return -ENOMEM;
  for (size_t k = 0; k < o->nknown; k++) {
    const struct pc_entry *prev = NULL;
    o->vstart[k] = n;
    if (traced (o, o->known[k]))
      continue;
    for (size_t i = o->first[k]; i < o->n; i++) {
      const struct pc_entry *e = pc_mark_find (&o->marks[i].m, o->known[k]);
      bool is_new = followed (e) && (prev == NULL || !same_version (e, prev));
      prev = e;
      if (!is_new)
        continue;
      if (n == cap) {
        size_t nc = cap ? 2 * cap : 64;
        void *a = realloc (o->versions, nc * sizeof *o->versions);
        if (a == NULL)
          return -ENOMEM;
        o->versions = a;
        if ((a = realloc (o->vmark, nc * sizeof *o->vmark)) == NULL)
          return -ENOMEM;
        o->vmark = a;
        if ((a = realloc (o->ventry, nc * sizeof *o->ventry)) == NULL)
          return -ENOMEM;
        o->ventry = a;
        cap = nc;
      }
      o->versions[n] = (struct pc_oracle_version) {
        .path = o->known[k], .mark = o->marks[i].m.name, .record = o->marks[i].record,
      };
      /* Acknowledged by the first durable mark while it is still this version. */
      for (size_t j = i; j < o->n; j++) {
        const struct pc_entry *ej = j == i ? e : pc_mark_find (&o->marks[j].m, o->known[k]);
        if (!same_version (e, ej))
          break;
        if (durable_at (&o->marks[j], o->known[k])) {
          o->versions[n].ack = o->marks[j].m.name;
          o->versions[n].ack_record = o->marks[j].record;
          break;
        }
      }
      o->vmark[n] = i;
      o->ventry[n++] = e;
    }
  }
  o->vstart[o->nknown] = n;
  o->hfirst = n;
  if (o->hist)
    hv = pc_history_versions (o->hist, &nh);
  if (nh > 0) {
    void *a = realloc (o->versions, (n + nh) * sizeof *o->versions);
    if (a == NULL)
      return -ENOMEM;
    o->versions = a;
    for (size_t i = 0; i < nh; i++)
      o->versions[n++] = (struct pc_oracle_version) {
        .path = hv[i].path, .mark = hv[i].call ? hv[i].call : "?", .record = hv[i].record,
        .ack = hv[i].durable_by, .ack_record = hv[i].durable_by ? hv[i].durable_record : 0,
      };
  }
  o->nversions = n;
  return 0;
}

/* The history's lost versions, as the oracle's. */
struct hlost {
  const struct pc_oracle *o;
  pc_oracle_lost_fn *fn;
  void *ctx;
};

static void
hlost (void *ctx, size_t v)
{
  struct hlost *l = ctx;

  l->fn (l->ctx, l->o->hfirst + v);
}

const struct pc_oracle_version *
pc_oracle_versions (const struct pc_oracle *o, size_t *ret_n)
{
  *ret_n = o->nversions;
  return o->versions;
}

/* Reports the versions of known[k] the state lost that has f there, the
 * marks up to last considered: those recorded after the newest mark that
 * had what the state has (absence too: a path deleted later is not lost). */
static void
note_lost (const struct pc_oracle *o, size_t k, size_t last, const struct pc_entry *f,
           pc_oracle_lost_fn *lost, void *ctx)
{
  size_t a = o->vstart[k], b = o->vstart[k + 1], held = SIZE_MAX;

  if (a == b)
    return;
  for (size_t i = last + 1; i-- > o->first[k];)
    if (same_version (f, pc_mark_find (&o->marks[i].m, o->known[k]))) {
      held = i;
      break;
    }
  for (size_t v = a; v < b && o->vmark[v] <= last; v++)
    if (held == SIZE_MAX || o->vmark[v] > held)
      lost (ctx, v);
}

int
pc_oracle_new (const struct pc_index *ix, unsigned flags, struct pc_oracle **ret,
               struct pc_err *err)
{
  struct pc_oracle *o = calloc (1, sizeof *o);
  size_t total = 0, k = 0;

  if (o == NULL)
    return -ENOMEM;
  o->ix = ix;
  for (uint64_t i = 0; i < ix->n; i++) {
    const struct pc_record *r = &ix->recs[i];
    struct pc_mark m;
    struct omark *nm;
    int e;
    if (r->type != PC_REC_MARK)
      continue;
    e = pc_mark_decode (r->data, r->datalen, &m, err);
    if (e < 0) {
      pc_oracle_free (o);
      return pc_err_prefix (err, -e, "record %" PRIu64 ": the mark cannot be decoded", i);
    }
    if (!(m.flags & PC_MARK_F_MANIFEST) || ((flags & PC_ORACLE_NO_MARKS) && o->n > 0)) {
      pc_mark_free (&m);
      continue;
    }
    nm = realloc (o->marks, (o->n + 1) * sizeof *nm);
    if (nm == NULL) {
      pc_mark_free (&m);
      pc_oracle_free (o);
      return -ENOMEM;
    }
    o->marks = nm;
    o->marks[o->n].record = i;
    o->marks[o->n].time_ns = r->time_ns;
    o->marks[o->n++].m = m;
    total += m.nentries;
  }
  {
    struct named *all = malloc ((total ? total : 1) * sizeof *all);
    o->known = malloc ((total ? total : 1) * sizeof *o->known);
    o->first = malloc ((total ? total : 1) * sizeof *o->first);
    o->changed = calloc (total ? total : 1, sizeof *o->changed);
    if (all == NULL || o->known == NULL || o->first == NULL || o->changed == NULL) {
      free (all);
      pc_oracle_free (o);
      return -ENOMEM;
    }
    for (size_t i = 0; i < o->n; i++)
      for (size_t j = 0; j < o->marks[i].m.nentries; j++)
        all[k++] = (struct named) { o->marks[i].m.entries[j].path, i };
    if (k > 1)
      qsort (all, k, sizeof *all, named_cmp);
    for (size_t i = 0; i < k; i++)
      if (o->nknown == 0 || strcmp (o->known[o->nknown - 1], all[i].path) != 0) {
        o->known[o->nknown] = all[i].path;
        o->first[o->nknown++] = all[i].mark;
      }
    free (all);
  }
  if (!(flags & PC_ORACLE_NO_EVENTS)) {
    int e = pc_history_new (ix, !(flags & PC_ORACLE_NO_MARKS), &o->hist, err);
    if (e == 0 && o->hist)
      pc_history_set_plain (o->hist, (flags & PC_ORACLE_PLAIN) != 0);
    if (e < 0) {
      pc_oracle_free (o);
      return e;
    }
    if (pc_history_events (o->hist) == 0) {
      pc_history_free (o->hist);
      o->hist = NULL;
    }
  }
  if (versions_new (o) < 0) {
    pc_oracle_free (o);
    return -ENOMEM;
  }
  *ret = o;
  return 0;
}

void
pc_oracle_free (struct pc_oracle *o)
{
  if (o == NULL)
    return;
  pc_history_free (o->hist);
  for (size_t i = 0; i < o->n; i++)
    pc_mark_free (&o->marks[i].m);
  free (o->marks);
  free (o->known);
  free (o->first);
  free (o->changed);
  free (o->versions);
  free (o->vmark);
  free (o->ventry);
  free (o->vstart);
  free (o);
}

size_t
pc_oracle_manifests (const struct pc_oracle *o)
{
  return o->n;
}

bool
pc_oracle_judges (const struct pc_oracle *o)
{
  return o->n > 0 || o->hist != NULL;
}

uint64_t
pc_oracle_events (const struct pc_oracle *o)
{
  return o->hist ? pc_history_events (o->hist) : 0;
}

uint64_t
pc_oracle_max_size (const struct pc_oracle *o)
{
  uint64_t max = 0;

  for (size_t i = 0; i < o->n; i++)
    for (size_t j = 0; j < o->marks[i].m.nentries; j++) {
      const struct pc_entry *e = &o->marks[i].m.entries[j];
      if (e->type == PC_ENTRY_FILE && e->size > max)
        max = e->size;
    }
  if (o->hist && pc_history_max_size (o->hist) > max)
    max = pc_history_max_size (o->hist);
  return max;
}

static bool
same_version (const struct pc_entry *a, const struct pc_entry *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->type != b->type || (a->mode & 07777) != (b->mode & 07777))
    return false;
  switch (a->type) {
  case PC_ENTRY_FILE:
    return a->size == b->size && memcmp (a->hash, b->hash, 16) == 0;
  case PC_ENTRY_SYMLINK:
    return strcmp (a->target ? a->target : "", b->target ? b->target : "") == 0;
  default:
    return true;
  }
}

static bool
durable_at (const struct omark *m, const char *path)
{
  if (m->m.flags & PC_MARK_F_SYNC)
    return true;
  for (size_t i = 0; i < m->m.ndurable; i++)
    if (strcmp (m->m.durable[i], path) == 0)
      return true;
  return false;
}

/* Each distinct allowed version of path once, with the marks that had it:
 * marks start..last, and absence first if absent_ok.  A malloc'd string,
 * or NULL (no memory). */
static char *
describe_allowed (const struct pc_oracle *o, size_t start, size_t last, bool absent_ok,
                  const char *path)
{
  char *s = NULL;
  size_t len = 0, n = 0;
  FILE *f = open_memstream (&s, &len);

  if (f == NULL)
    return NULL;
  if (absent_ok)
    fputs ("absent before the first durable mark", f), n++;
  for (size_t i = start; i <= last && i < o->n; i++) {
    const struct pc_entry *e = pc_mark_find (&o->marks[i].m, path);
    size_t j;
    for (j = start; j < i; j++)
      if (same_version (e, pc_mark_find (&o->marks[j].m, path)))
        break;
    if (j < i)
      continue;
    if (n++)
      fputs ("; ", f);
    pc_oracle_describe (f, e, false);
    fprintf (f, " at %s", o->marks[i].m.name);
    for (j = i + 1; j <= last && j < o->n; j++)
      if (same_version (e, pc_mark_find (&o->marks[j].m, path)))
        fprintf (f, ", %s", o->marks[j].m.name);
  }
  if (fclose (f) == EOF) {
    free (s);
    return NULL;
  }
  return s;
}

/* Judges one path (known[k]); returns its verdict, or -ENOMEM. */
static int
judge_path (const struct pc_oracle *o, size_t nbefore, size_t last, size_t k,
            const struct pc_entry *f, struct pc_findings *out)
{
  const char *path = o->known[k];
  size_t d = SIZE_MAX, start, nfiles = 0;
  bool absent_ok, all_present = true, all_data = true, all_nonzero = true;
  char *allowed;
  int kind, r;

  for (size_t i = nbefore; i-- > 0;)
    if (durable_at (&o->marks[i], path)) {
      d = i;
      break;
    }
  start = d == SIZE_MAX ? 0 : d;
  absent_ok = d == SIZE_MAX;
  if (absent_ok && f == NULL)
    return PC_V_OK;
  if (absent_ok)
    all_present = false;
  for (size_t i = start; i <= last && i < o->n; i++) {
    const struct pc_entry *e = pc_mark_find (&o->marks[i].m, path);
    if (same_version (f, e))
      return PC_V_OK;
    if (e == NULL)
      all_present = false;
    else if (e->type != PC_ENTRY_FILE || e->size == 0)
      all_data = false;
    else
      nfiles++;
  }
  /* Only then worth asking: did every allowed file version have a byte
   * that is not zero? */
  if (f && all_data && nfiles > 0 && pc_oracle_all_zeros (f, true))
    for (size_t i = start; i <= last && i < o->n && all_nonzero; i++) {
      const struct pc_entry *e = pc_mark_find (&o->marks[i].m, path);
      all_nonzero = e == NULL || !pc_oracle_all_zeros (e, false);
    }

  /* Not allowed: say what was found and what would have been. */
  if (nbefore == o->n && o->changed[k])
    kind = PC_F_NOT_JUDGED;     /* the workload changed it after its last mark */
  else if (f == NULL && all_present)
    kind = PC_V_MISSING;
  else if (f && f->type == PC_ENTRY_FILE && f->size == 0 && all_data && nfiles > 0)
    kind = PC_V_ZERO_LENGTH;    /* every allowed file version has data */
  else if (f && all_data && nfiles > 0 && all_nonzero && pc_oracle_all_zeros (f, true))
    kind = PC_V_ZERO_FILLED;    /* and it was not zeros */
  else {
    kind = PC_V_MISMATCH;
    /* A version from before the durable mark: rolled back. */
    for (size_t i = 0; d != SIZE_MAX && f && i < d; i++)
      if (same_version (f, pc_mark_find (&o->marks[i].m, path))) {
        kind = PC_V_DURABLE_LOST;
        break;
      }
  }
  allowed = describe_allowed (o, start, last, absent_ok, path);
  if (allowed == NULL)
    return -ENOMEM;
  r = pc_oracle_finding (out, kind, path, f, allowed);
  free (allowed);
  if (r == 0 && kind != PC_F_NOT_JUDGED) {
    /* A promise broken if the version lost is one a mark had made
     * durable: the path's durable version, not changed since (a later
     * version, never made durable, is what a crash may lose), or a
     * version rolled back. */
    bool unchanged = d != SIZE_MAX;
    for (size_t i = d + 1; unchanged && i <= last && i < o->n; i++)
      unchanged = same_version (pc_mark_find (&o->marks[d].m, path),
                                pc_mark_find (&o->marks[i].m, path));
    struct pc_cause c = { .known = true, .durable_ns = -1,
                          .promise = kind == PC_V_DURABLE_LOST || unchanged };
    /* The workload's fault where it gave up a durable version with data
     * (a later version replaced it before it was durable) and the state,
     * empty or zeros, holds neither. */
    const struct pc_entry *dv = d != SIZE_MAX ? pc_mark_find (&o->marks[d].m, path) : NULL;
    c.program = !c.promise && dv && dv->type == PC_ENTRY_FILE && dv->size > 0 &&
                (kind == PC_V_ZERO_LENGTH || kind == PC_V_ZERO_FILLED);
    c.rule = strdup (c.promise ? "a version a mark declared durable is lost: "
                                 "the filesystem broke its promise"
                     : c.program ? "a later version replaced it before it was durable, and a "
                                   "crash may keep neither"
                     : "the version lost was never made durable: a crash may lose it");
    if (c.program && asprintf (&c.fix, "an fsync of %s's new version before it replaces the "
                               "durable one", path) < 0)
      c.fix = NULL;
    if (c.promise || c.program) {
      c.durable_ns = (int64_t) o->marks[d].time_ns;
      if (asprintf (&c.durable_by, "the mark %s", o->marks[d].m.name) < 0)
        c.durable_by = NULL;
    }
    pc_findings_set_cause (out, &c);
  }
  return r < 0 ? r : (int) pc_finding_verdict (kind);
}

void
pc_oracle_set_no_journal (struct pc_oracle *o, bool no_journal)
{
  if (o->hist)
    pc_history_set_no_journal (o->hist, no_journal);
}

int
pc_oracle_set_end (struct pc_oracle *o, const struct pc_mark *end)
{
  const struct omark *last = o->n ? &o->marks[o->n - 1] : NULL;

  if (o->hist && o->ix->n > 0) {
    int r = pc_history_set_end (o->hist, o->ix->n - 1, end);
    if (r < 0)
      return r;
  }
  for (size_t k = 0; k < o->nknown; k++) {
    const char *path = o->known[k];
    o->changed[k] = end == NULL ||
                    !same_version (pc_mark_find (&last->m, path), pc_mark_find (end, path));
  }
  return 0;
}

const char *
pc_oracle_last_mark (const struct pc_oracle *o)
{
  return o->n ? o->marks[o->n - 1].m.name : NULL;
}

/* Judges path by the history: appends its finding, if any; returns the
 * verdict, or -ENOMEM. */
static int
judge_traced (const struct pc_oracle *o, uint64_t point, const char *path,
              const struct pc_entry *f, struct pc_findings *out)
{
  struct pc_history_verdict hv;
  char *allowed = NULL;
  int r = pc_history_judge (o->hist, point, path, f, &hv);

  if (r < 0)
    return r;
  if (hv.kind == 0)
    return PC_V_OK;
  allowed = strdup (hv.kind == PC_F_NOT_JUDGED ? "-"
                    : "what the program had: a version since it was last made durable, "
                      "or a mix of their blocks");
  r = allowed ? pc_oracle_finding (out, hv.kind, path, f, allowed) : -ENOMEM;
  free (allowed);
  if (r < 0) {
    pc_cause_clear (&hv.cause);
    return r;
  }
  pc_findings_set_cause (out, &hv.cause);
  return (int) pc_finding_verdict (hv.kind);
}

int
pc_oracle_judge (const struct pc_oracle *o, uint64_t point, const struct pc_mark *found,
                 struct pc_findings *out, pc_oracle_lost_fn *lost, void *lost_ctx,
                 enum pc_verdict *ret_verdict)
{
  size_t nbefore = 0, last = 0, i = 0, j = 0, k = 0, nh = 0;
  const char *const *hp = o->hist ? pc_history_paths (o->hist, &nh) : NULL;
  int worst = PC_V_OK;

  *ret_verdict = PC_V_OK;
  if (o->n == 0 && nh == 0)
    return 0;
  while (nbefore < o->n && o->marks[nbefore].record <= point)
    nbefore++;
  if (o->n)
    last = nbefore < o->n ? nbefore : o->n - 1;

  /* Every path the window's marks, the history or the image name, once,
   * in order: three sorted lists, merged.  The history judges the paths
   * it follows; the marks, the others. */
  while (i < o->nknown || j < found->nentries || k < nh) {
    const char *pk = i < o->nknown ? o->known[i] : NULL;
    const char *pf = j < found->nentries ? found->entries[j].path : NULL;
    const char *ph = k < nh ? hp[k] : NULL, *cur = pk;
    const struct pc_entry *f;
    int v;
    if (cur == NULL || (pf && strcmp (pf, cur) < 0))
      cur = pf;
    if (cur == NULL || (ph && strcmp (ph, cur) < 0))
      cur = ph;
    f = pf && strcmp (pf, cur) == 0 ? &found->entries[j] : NULL;
    if (ph && strcmp (ph, cur) == 0) {
      /* The durability windows follow every version the program had. */
      if (lost) {
        struct hlost l = { o, lost, lost_ctx };
        pc_history_lost (o->hist, point, k, f, hlost, &l);
      }
      v = judge_traced (o, point, cur, f, out);
      if (v < 0)
        return v;
      worst = pc_verdict_worse (worst, v);
      i += pk && strcmp (pk, cur) == 0;
      j += f != NULL;
      k++;
      continue;
    }
    if (pk == NULL || strcmp (pk, cur) != 0) {
      /* No manifest names it, and the history does not follow it. */
      if (f && pc_oracle_finding (out, PC_F_UNMENTIONED, f->path, f, "-") < 0)
        return -ENOMEM;
      j++;
      continue;
    }
    if (f == NULL && o->first[i] > last) {
      i++;                      /* named only by later marks, and not here */
      continue;
    }
    if (lost && !(nbefore == o->n && o->changed[i]))
      note_lost (o, i, last, f, lost, lost_ctx);
    v = judge_path (o, nbefore, last, i, f, out);
    if (v < 0)
      return v;                 /* -ENOMEM */
    worst = pc_verdict_worse (worst, v);
    i++;
    j += f != NULL;
  }
  *ret_verdict = (enum pc_verdict) worst;
  return 0;
}

/* The index in out of path's failing finding, or -1: none. */
static ssize_t
find_finding (const struct pc_findings *out, const char *path)
{
  for (size_t i = 0; i < out->n; i++)
    if (strcmp (out->v[i].path, path) == 0 && pc_finding_verdict (out->v[i].kind) != PC_V_OK)
      return (ssize_t) i;
  return -1;
}

/* Is path in out already, as anything? */
static bool
has_finding (const struct pc_findings *out, const char *path)
{
  for (size_t i = 0; i < out->n; i++)
    if (strcmp (out->v[i].path, path) == 0)
      return true;
  return false;
}

int
pc_oracle_older (const struct pc_oracle *o, uint64_t point, const struct pc_oracle_ack *ack,
                 int kind, const struct pc_mark *found, struct pc_findings *out, size_t *ret_n)
{
  size_t nh = 0, j = 0, added = 0, n0 = out->n;
  const char *const *hp = o->hist ? pc_history_paths (o->hist, &nh) : NULL;

  for (size_t k = 0; k < nh; k++) {
    const struct pc_entry *f = NULL;
    struct pc_history_verdict hv;
    ssize_t had = -1;
    int r;
    while (j < found->nentries && strcmp (found->entries[j].path, hp[k]) < 0)
      j++;
    if (j < found->nentries && strcmp (found->entries[j].path, hp[k]) == 0)
      f = &found->entries[j];
    /* A path judged already: where what it lost was only data never
     * made durable (nobody's, in the judge's eyes), the same loss of an
     * acknowledged version is weighed here, whatever its form (zeros, an
     * empty file, an older version); else it is told once. */
    had = find_finding (out, hp[k]);
    if (had >= (ssize_t) n0 ||
        (had >= 0 && pc_finding_fault (&out->v[had]) != PC_FAULT_NONE) ||
        (had < 0 && has_finding (out, hp[k])))
      continue;
    /* Without a checker, only what the program treats as durable data:
     * a file it syncs (history.h) */
    if (kind == PC_V_ACK_LOST && !pc_history_synced (o->hist, hp[k]))
      continue;
    r = pc_history_older (o->hist, point, ack->record, kind == PC_V_ACK_LOST, hp[k], f, &hv);
    if (r < 0)
      return r;
    if (hv.kind == 0)
      continue;
    if (kind == PC_V_ACK_LOST) {
      /* The program said it was done with what it had not made durable. */
      char *fix = NULL;
      hv.cause.program = true;
      free (hv.cause.rule);
      hv.cause.rule = strdup ("the program acknowledged a version it had not made durable (a "
                              "line it printed): a crash may lose it, and this "
                              "state did; only the application knows whether it mattered "
                              "(--verify runs its checker)");
      if (hv.cause.fix && asprintf (&fix, "%s, before the acknowledgement", hv.cause.fix) < 0)
        fix = NULL;
      free (hv.cause.fix);
      hv.cause.fix = fix;
    }
    if (kind == PC_F_OLDER && ack->text == NULL) {
      /* nothing acknowledged: what it had by the moment, which a crash
       * may lose */
      free (hv.cause.rule);
      hv.cause.rule = strdup ("older than what the program had by this state's moment; it "
                              "acknowledged nothing by then (no line printed, no mark), so "
                              "nothing acknowledged was lost: a crash may keep it");
      hv.cause.program = false;
    }
    hv.cause.ack = ack->text ? strdup (ack->text) : NULL;
    hv.cause.ack_ns = ack->time_ns;
    if (hv.cause.rule == NULL || (ack->text && hv.cause.ack == NULL)) {
      pc_cause_clear (&hv.cause);
      return -ENOMEM;
    }
    if (had >= 0 && kind == PC_V_ACK_LOST) {
      /* the judge's finding becomes this one: the same state, weighed as
       * the acknowledged loss it is */
      struct pc_finding *x = &out->v[had];
      char *allowed = strdup ("what the program had by its last acknowledgement, or after");
      if (allowed == NULL) {
        pc_cause_clear (&hv.cause);
        return -ENOMEM;
      }
      free (x->allowed);
      x->allowed = allowed;
      x->kind = kind;
      pc_cause_clear (&x->cause);
      x->cause = hv.cause;
      added++;
      continue;
    }
    r = pc_oracle_finding (out, kind, hp[k], f, "what the program had by its last acknowledgement, "
                 "or after");
    if (r < 0) {
      pc_cause_clear (&hv.cause);
      return r;
    }
    pc_findings_set_cause (out, &hv.cause);
    added++;
  }
  if (ret_n)
    *ret_n = added;
  return 0;
}

int
pc_oracle_content_at (const struct pc_oracle *o, uint64_t at, const char *path,
                      struct pc_history_content *ret)
{
  if (o->hist == NULL) {
    memset (ret, 0, sizeof *ret);
    return 0;
  }
  return pc_history_content_at (o->hist, at, path, ret);
}
