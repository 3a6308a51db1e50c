/* devcheck.c: a device set checked at every instant (devcheck.h). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/devcheck.h"
#include "check/devint.h"
#include "format/mark.h"
#include "replay/devset.h"
#include "util/disk.h"
#include "util/util.h"

/* The index of res's last point at or before record rec (its states are
 * the write model's, in record order), or -1. */
static int64_t
state_at (const struct pc_check_result *res, uint64_t rec)
{
  size_t lo = 0, hi = res->npoints;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (res->points[mid].record <= rec)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == 0 ? -1 : (int64_t) lo - 1;
}

/* Sharded: the record of every write-model state of each device (all
 * shards'), ascending, to find the state an instant leaves a device in
 * whichever shard checks it. */
struct all_states {
  uint64_t **rec;
  size_t *n;
};

static int
all_states_make (const struct pc_devcheck_result *res, const struct pc_devset *set,
                 struct all_states *a)
{
  const struct pc_model write = { PC_MODEL_WRITE, 0, 0 };

  a->rec = calloc (set->n, sizeof *a->rec);
  a->n = calloc (set->n, sizeof *a->n);
  if (a->rec == NULL || a->n == NULL)
    return -ENOMEM;
  for (size_t j = 0; j < set->n; j++) {
    struct pc_state *st;
    size_t n;
    if (res->dev[j] == NULL || res->journal_of[j] >= 0 || res->is_journal[j])
      continue;                 /* no states of its own */
    if (pc_states_enumerate (&set->dev[j].ix, &write, res->dev[j]->from_record, &st, &n) < 0)
      return -ENOMEM;
    if ((a->rec[j] = malloc ((n ? n : 1) * sizeof *a->rec[j])) == NULL) {
      pc_states_free (st, n);
      return -ENOMEM;
    }
    for (size_t k = 0; k < n; k++)
      a->rec[j][k] = st[k].point;
    a->n[j] = n;
    pc_states_free (st, n);
  }
  return 0;
}

static void
all_states_free (struct all_states *a, size_t n)
{
  for (size_t j = 0; a->rec && j < n; j++)
    free (a->rec[j]);
  free (a->rec);
  free (a->n);
}

/* Device j's state after its first count records: its index in this
 * shard's points, -1 (none yet) or -2 (another shard's), and its record. */
static int64_t
state_of (const struct pc_devcheck_result *res, const struct all_states *a, size_t j,
          uint64_t count, uint64_t *rec)
{
  const struct pc_check_result *d = res->dev[j];
  size_t lo = 0, hi;
  int64_t k;

  if (count == 0 || d == NULL)
    return -1;
  if (a->rec == NULL) {
    k = state_at (d, count - 1);
    if (k >= 0)
      *rec = d->points[k].record;
    return k;
  }
  hi = a->n[j];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->rec[j][mid] <= count - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return -1;
  *rec = a->rec[j][lo - 1];
  k = state_at (d, *rec);
  return k >= 0 && d->points[k].record == *rec ? k : -2;
}

static int
inst_cmp (const void *a, const void *b)
{
  const struct pc_instant *x = a, *y = b;

  if (x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? -1 : 1;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->record != y->record)
    return x->record < y->record ? -1 : 1;
  return (x->fine > y->fine) - (x->fine < y->fine);
}

/* Adds the instant after record c of device d (in state fine of its fine
 * check, if not -1), if a device is judged. */
static int
add_instant (struct pc_devcheck_result *res, const struct pc_devset *set,
             const struct all_states *all, size_t d, uint64_t c, int64_t fine, uint64_t t0,
             const uint64_t *from, uint64_t *counts, size_t *cap)
{
  struct pc_instant in = { .dev = d, .record = c, .fine = fine, .verdict = PC_V_OK,
                           .app = PC_V_COUNT, .owned = true };
  bool judged = false;

  pc_devset_counts (set, d, c, counts);
  in.time_ns = set->dev[d].start + set->dev[d].ix.recs[c].time_ns - t0;
  in.point = malloc (set->n * sizeof *in.point);
  in.state = calloc (set->n, sizeof *in.state);
  in.pair = malloc (set->n * sizeof *in.pair);
  if (in.point == NULL || in.state == NULL || in.pair == NULL) {
    free (in.point);
    free (in.state);
    free (in.pair);
    return -ENOMEM;
  }
  for (size_t j = 0; j < set->n; j++) {
    const struct pc_point *p;
    /* a filesystem with its journal elsewhere: judged later, with it */
    in.pair[j] = res->journal_of[j] >= 0 && counts[j] > from[j] ? PC_V_NOT_CHECKED : PC_V_COUNT;
    judged |= in.pair[j] != PC_V_COUNT;
    in.point[j] = state_of (res, all, j, counts[j], &in.state[j]);
    if (res->journal_of[j] >= 0 || res->is_journal[j])
      in.state[j] = counts[j];  /* its records: what --verify's answer rests on */
    judged |= in.point[j] == -2;
    if ((p = pc_instant_point (res, &in, j)) == NULL)
      continue;
    judged = true;
    in.verdict = (enum pc_verdict) pc_verdict_worse ((int) in.verdict, (int) p->verdict);
    in.promise |= p->verdict != PC_V_OK && p->verdict != PC_V_NOT_CHECKED &&
                  pc_point_broke_promise (p);
    in.program |= pc_point_fault (p) == PC_FAULT_PROGRAM;
  }
  if (!judged) {
    free (in.point);
    free (in.state);
    free (in.pair);
    return 0;
  }
  if (pc_grow (&res->inst, cap, res->ninst + 1, sizeof *res->inst, 64) < 0) {
    free (in.point);
    free (in.state);
    free (in.pair);
    return -ENOMEM;
  }
  res->inst[res->ninst++] = in;
  return 0;
}

/* Folds the checker's answers into the instants' verdicts, and counts. */
static void
fold_and_count (struct pc_devcheck_result *res)
{
  memset (res->count, 0, sizeof res->count);
  res->promises = res->program_promises = res->exposures = 0;
  for (size_t i = 0; i < res->ninst; i++) {
    struct pc_instant *in = &res->inst[i];
    if (in->app != PC_V_COUNT) {
      in->verdict = (enum pc_verdict) pc_verdict_worse ((int) in->verdict, (int) in->app);
      in->promise |= in->app == PC_V_APP_INVALID;
    }
    for (size_t j = 0; in->owned && j < res->ndev; j++)
      if (in->pair[j] != PC_V_COUNT) {
        in->verdict = (enum pc_verdict) pc_verdict_worse ((int) in->verdict, (int) in->pair[j]);
        in->promise |= in->pair[j] == PC_V_FS_CORRUPT || in->pair[j] == PC_V_UNMOUNTABLE;
      }
    res->count[in->verdict]++;
    if (in->verdict != PC_V_OK && in->verdict != PC_V_NOT_CHECKED) {
      if (in->promise)
        res->promises++;
      else if (in->program)
        res->program_promises++;
      else
        res->exposures++;
    }
  }
}

/* Judges every instant's filesystems that keep their journal on another
 * device, once for each pair of states. */
static int
judge_pairs (const struct pc_check_config *cfg, const struct pc_devset *set,
             struct pc_devcheck_result *res, struct pc_err *err)
{
  const char *tmp = cfg->work_dir ? cfg->work_dir : getenv ("TMPDIR");
  uint64_t *counts = calloc (set->n, sizeof *counts), (*seen)[3] = NULL;
  uint8_t **base = calloc (set->n, sizeof *base);
  uint64_t *bsize = calloc (set->n, sizeof *bsize);
  enum pc_verdict *seen_v = NULL;
  size_t nseen = 0, cap = 0, capv = 0;
  char work[4096];
  int r = 0;

  snprintf (work, sizeof work, "%s/powercut-journal.XXXXXX",
            tmp && *tmp ? tmp : access ("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  if (counts == NULL || base == NULL || bsize == NULL)
    r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  else if (mkdtemp (work) == NULL)
    r = pc_err_set (err, errno, "%s: %s", work, strerror (errno));
  for (size_t j = 0; r == 0 && j < set->n; j++)
    if (res->journal_of[j] >= 0 || res->is_journal[j])
      r = pc_devset_read_base (set, j, &base[j], &bsize[j], err);
  for (size_t i = 0; r == 0 && i < res->ninst && !pc_interrupted (); i++) {
    struct pc_instant *in = &res->inst[i];
    if (!in->owned)
      continue;                 /* another shard's to judge */
    pc_devset_counts (set, in->dev, in->record, counts);
    for (size_t f = 0; r == 0 && f < set->n; f++) {
      size_t jn = (size_t) res->journal_of[f], k;
      char note[sizeof in->pair_note];
      if (in->pair[f] == PC_V_COUNT)
        continue;
      for (k = 0; k < nseen; k++)
        if (seen[k][0] == f && seen[k][1] == counts[f] && seen[k][2] == counts[jn])
          break;
      note[0] = '\0';
      if (k == nseen) {
        enum pc_verdict v;
        r = pc_devjournal_judge (set, f, jn, counts[f], counts[jn], base[f], base[jn], work,
                                 cfg->timeout_s, &v, note, sizeof note);
        if (r < 0) {
          pc_err_set (err, -r, "%s: writing its images: %s", set->dev[f].name, strerror (-r));
          break;
        }
        if (pc_grow (&seen, &cap, nseen + 1, sizeof *seen, 64) < 0 ||
            pc_grow (&seen_v, &capv, nseen + 1, sizeof *seen_v, 64) < 0) {
          r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
          break;
        }
        seen[nseen][0] = f;
        seen[nseen][1] = counts[f];
        seen[nseen][2] = counts[jn];
        seen_v[nseen++] = v;
      }
      in->pair[f] = seen_v[k];
      if (note[0] && in->pair_note[0] == '\0')
        snprintf (in->pair_note, sizeof in->pair_note, "%s: %s", set->dev[f].name, note);
    }
  }
  if (counts && base && bsize) {
    char path[4200];
    snprintf (path, sizeof path, "%s/fs.img", work);
    unlink (path);
    snprintf (path, sizeof path, "%s/journal.img", work);
    unlink (path);
    rmdir (work);
  }
  for (size_t j = 0; base && bsize && j < set->n; j++)
    pc_image_unmap (base[j], bsize[j]);
  free (counts);
  free (base);
  free (bsize);
  free (seen);
  free (seen_v);
  return r;
}

/* The record a device's check starts at: the --from mark if it has it,
 * else its first mark, else 0. */
static uint64_t
start_record (const struct pc_devset_dev *d, const char *from_mark)
{
  int64_t m = from_mark ? pc_index_find_mark (&d->ix, from_mark) : -1;

  if (m >= 0)
    return (uint64_t) m;
  for (uint64_t i = 0; i < d->ix.n; i++)
    if (d->ix.recs[i].type == PC_REC_MARK)
      return i;
  return 0;
}

/* Every instant the model makes (devcheck.h), in time order; times on
 * the set's clock count from t0, and none is before from_t (--from). */
static int
add_instants (const struct pc_check_config *cfg, const struct pc_devset *set,
              struct pc_devcheck_result *res, uint64_t t0, uint64_t from_t,
              const uint64_t *from, uint64_t *counts, size_t *cap, struct pc_err *err)
{
  struct pc_devset_point *pt = NULL;
  struct all_states all = { NULL, NULL };
  int64_t np = pc_devset_instants (set, cfg->model.kind == PC_MODEL_WRITE, &pt);
  int r = np < 0 ? (int) np : 0;

  if (r == 0 && res->nshards > 1)
    r = all_states_make (res, set, &all);
  for (int64_t i = 0; r == 0 && i < np; i++)
    if (from_t == UINT64_MAX || t0 + pt[i].time_ns >= from_t) {
      size_t before = res->ninst;
      r = add_instant (res, set, &all, pt[i].dev, pt[i].record, -1, t0, from, counts, cap);
      /* the n-th of them is shard n's to judge further, by turns */
      if (r == 0 && res->ninst > before)
        res->inst[before].owned = before % res->nshards == res->shard;
    }
  free (pt);
  for (size_t j = 0; r == 0 && res->fine && j < set->n; j++)
    for (size_t k = 0; r == 0 && res->fine[j] && k < res->fine[j]->npoints; k++) {
      const struct pc_point *p = &res->fine[j]->points[k];
      if ((p->ndrop > 0 || p->torn) &&
          (from_t == UINT64_MAX || set->dev[j].start + set->dev[j].ix.recs[p->record].time_ns >= from_t))
        r = add_instant (res, set, &all, j, p->record, (int64_t) k, t0, from, counts, cap);
    }
  all_states_free (&all, set->n);
  if (r < 0)
    return pc_err_set (err, -r, "%s", strerror (-r));
  if (res->fine)
    qsort (res->inst, res->ninst, sizeof *res->inst, inst_cmp);
  return 0;
}

int
pc_devcheck_run (const struct pc_check_config *cfg, const char *dir,
                 struct pc_devcheck_result **ret, struct pc_err *err)
{
  struct pc_devcheck_result *res = calloc (1, sizeof *res);
  struct pc_devset set;
  uint64_t *counts = NULL, *from = NULL, t0 = UINT64_MAX, from_t = UINT64_MAX;
  size_t cap = 0;
  int r;

  if (res == NULL)
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  r = pc_devset_open (dir, &set, err);
  if (r < 0) {
    free (res);
    return r;
  }
  res->dir = strdup (dir);
  res->names = calloc (set.n, sizeof *res->names);
  res->dev = calloc (set.n, sizeof *res->dev);
  counts = calloc (set.n, sizeof *counts);
  if (res->dir == NULL || res->names == NULL || res->dev == NULL || counts == NULL) {
    r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
    goto out;
  }
  res->ndev = set.n;
  res->model = cfg->model;
  res->shard = cfg->nshards > 1 ? cfg->shard : 0;
  res->nshards = cfg->nshards > 1 ? cfg->nshards : 1;
  if (pc_model_takes_k (cfg->model.kind) &&
      (res->fine = calloc (set.n, sizeof *res->fine)) == NULL) {
    r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
    goto out;
  }
  res->journal_of = calloc (set.n, sizeof *res->journal_of);
  res->is_journal = calloc (set.n, sizeof *res->is_journal);
  from = calloc (set.n, sizeof *from);
  if (res->journal_of == NULL || res->is_journal == NULL || from == NULL)
    r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  if (r == 0)
    r = pc_devjournal_roles (&set, res->journal_of, err);
  for (size_t j = 0; r == 0 && j < set.n; j++)
    if (res->journal_of[j] >= 0)
      res->is_journal[res->journal_of[j]] = true;
  for (size_t j = 0; r == 0 && j < set.n; j++) {
    struct pc_check_config c = *cfg;
    from[j] = start_record (&set.dev[j], cfg->from_mark);
    if (res->journal_of[j] >= 0 || res->is_journal[j]) {
      /* judged with its pair (judge_pairs), or not alone: no states here */
      res->names[j] = strdup (set.dev[j].name);
      res->dev[j] = calloc (1, sizeof *res->dev[j]);
      if (res->names[j] == NULL || res->dev[j] == NULL ||
          (res->dev[j]->log_path = strdup (set.dev[j].path)) == NULL) {
        r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
        break;
      }
      res->dev[j]->records = set.dev[j].ix.n;
      res->dev[j]->from_record = from[j];
      if (set.dev[j].ix.recs && from[j] < set.dev[j].ix.n &&
          set.dev[j].ix.recs[from[j]].type == PC_REC_MARK) {
        struct pc_mark m;
        if (pc_mark_decode (set.dev[j].ix.recs[from[j]].data,
                            set.dev[j].ix.recs[from[j]].datalen, &m, NULL) == 0) {
          snprintf (res->dev[j]->from, sizeof res->dev[j]->from, "%s", m.name);
          pc_mark_free (&m);
        }
      }
      if (cfg->from_mark && pc_index_find_mark (&set.dev[j].ix, cfg->from_mark) >= 0 &&
          set.dev[j].start + set.dev[j].ix.recs[from[j]].time_ns < from_t)
        from_t = set.dev[j].start + set.dev[j].ix.recs[from[j]].time_ns;
      if (set.dev[j].start < t0)
        t0 = set.dev[j].start;
      continue;
    }
    res->names[j] = strdup (set.dev[j].name);
    if (res->names[j] == NULL) {
      r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
      break;
    }
    c.log_path = set.dev[j].path;
    /* --from: the devices that have the mark start there */
    c.from_mark = cfg->from_mark && pc_index_find_mark (&set.dev[j].ix, cfg->from_mark) >= 0
                  ? cfg->from_mark : NULL;
    if (c.from_mark) {
      uint64_t t = set.dev[j].start +
                   set.dev[j].ix.recs[pc_index_find_mark (&set.dev[j].ix, cfg->from_mark)].time_ns;
      if (t < from_t)
        from_t = t;
    }
    c.base_path = set.dev[j].base_path;
    c.model = (struct pc_model) { PC_MODEL_WRITE, 0, 0 };
    c.shard = res->shard;
    c.nshards = res->nshards;
    c.verify = NULL;            /* the checker sees every device at once */
    c.no_start_state = true;    /* its instants begin at the mark */
    r = pc_check_run (&c, &res->dev[j], err);
    if (r == 0 && res->fine) {
      c.model = cfg->model;     /* its open epochs' freedom, at its flushes */
      r = pc_check_run (&c, &res->fine[j], err);
    }
    if (r < 0)
      pc_err_prefix (err, -r, "device %s", set.dev[j].name);
    if (set.dev[j].start < t0)
      t0 = set.dev[j].start;
  }
  if (r == 0 && cfg->from_mark && from_t == UINT64_MAX)
    r = pc_err_set (err, EINVAL, "%s: no device has a mark named '%s'", dir, cfg->from_mark);
  if (r == 0)
    r = add_instants (cfg, &set, res, t0, from_t, from, counts, &cap, err);
  if (r == 0)
    r = judge_pairs (cfg, &set, res, err);
  if (r == 0 && cfg->verify)
    r = pc_devverify_run (cfg, &set, res, err);
  if (r == 0)
    fold_and_count (res);
out:
  free (counts);
  free (from);
  pc_devset_free (&set);
  if (r < 0) {
    pc_devcheck_free (res);
    return r;
  }
  *ret = res;
  return 0;
}
