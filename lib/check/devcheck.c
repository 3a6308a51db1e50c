/* devcheck.c: a device set checked at every instant (devcheck.h). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/devcheck.h"
#include "check/devint.h"
#include "replay/devset.h"
#include "util/util.h"

void
pc_devcheck_free (struct pc_devcheck_result *res)
{
  if (res == NULL)
    return;
  for (size_t j = 0; j < res->ndev; j++) {
    free (res->names[j]);
    pc_check_result_free (res->dev[j]);
  }
  for (size_t i = 0; i < res->ninst; i++)
    free (res->inst[i].point);
  free (res->names);
  free (res->dev);
  free (res->inst);
  free (res->dir);
  free (res);
}

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

/* Is record r a point of the flush model? */
static bool
flush_point (const struct pc_record *r)
{
  return r->type == PC_REC_FLUSH || (pc_rec_is_data (r) && (r->flags & PC_REC_F_FUA));
}

static int
inst_cmp (const void *a, const void *b)
{
  const struct pc_instant *x = a, *y = b;

  if (x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? -1 : 1;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  return (x->record > y->record) - (x->record < y->record);
}

/* Adds the instant after record c of device d, if a device is judged. */
static int
add_instant (struct pc_devcheck_result *res, const struct pc_devset *set, size_t d,
             uint64_t c, uint64_t t0, uint64_t *counts, size_t *cap)
{
  struct pc_instant in = { .dev = d, .record = c, .verdict = PC_V_OK, .app = PC_V_COUNT };
  bool judged = false;

  pc_devset_counts (set, d, c, counts);
  in.time_ns = set->dev[d].start + set->dev[d].ix.recs[c].time_ns - t0;
  in.point = malloc (set->n * sizeof *in.point);
  if (in.point == NULL)
    return -ENOMEM;
  for (size_t j = 0; j < set->n; j++) {
    const struct pc_point *p;
    in.point[j] = counts[j] ? state_at (res->dev[j], counts[j] - 1) : -1;
    if (in.point[j] < 0)
      continue;
    judged = true;
    p = &res->dev[j]->points[in.point[j]];
    in.verdict = (enum pc_verdict) pc_verdict_worse ((int) in.verdict, (int) p->verdict);
    in.promise |= p->verdict != PC_V_OK && p->verdict != PC_V_NOT_CHECKED &&
                  pc_point_broke_promise (p);
  }
  if (!judged) {
    free (in.point);
    return 0;
  }
  if (pc_grow (&res->inst, cap, res->ninst + 1, sizeof *res->inst, 64) < 0) {
    free (in.point);
    return -ENOMEM;
  }
  res->inst[res->ninst++] = in;
  return 0;
}

/* Folds the checker's answers into the instants' verdicts, and counts. */
static void
count (struct pc_devcheck_result *res)
{
  memset (res->count, 0, sizeof res->count);
  res->promises = res->exposures = 0;
  for (size_t i = 0; i < res->ninst; i++) {
    struct pc_instant *in = &res->inst[i];
    if (in->app != PC_V_COUNT) {
      in->verdict = (enum pc_verdict) pc_verdict_worse ((int) in->verdict, (int) in->app);
      in->promise |= in->app == PC_V_APP_INVALID;
    }
    res->count[in->verdict]++;
    if (in->verdict != PC_V_OK && in->verdict != PC_V_NOT_CHECKED) {
      if (in->promise)
        res->promises++;
      else
        res->exposures++;
    }
  }
}

int
pc_devcheck_run (const struct pc_check_config *cfg, const char *dir,
                 struct pc_devcheck_result **ret, struct pc_err *err)
{
  struct pc_devcheck_result *res = calloc (1, sizeof *res);
  struct pc_devset set;
  uint64_t *counts = NULL, t0 = UINT64_MAX, from_t = UINT64_MAX;
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
  for (size_t j = 0; r == 0 && j < set.n; j++) {
    struct pc_check_config c = *cfg;
    char *base = NULL;
    res->names[j] = strdup (set.dev[j].name);
    if (res->names[j] == NULL ||
        ((set.dev[j].ix.hdr.flags & PC_LOG_F_BASE) &&
         asprintf (&base, "%s/%s", dir, set.dev[j].ix.hdr.basename) < 0)) {
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
    c.base_path = base;
    c.model = (struct pc_model) { PC_MODEL_WRITE, 0, 0 };
    c.shard = 0;
    c.nshards = 1;
    c.verify = NULL;            /* the checker sees every device at once */
    r = pc_check_run (&c, &res->dev[j], err);
    free (base);
    if (r < 0)
      pc_err_prefix (err, -r, "device %s", set.dev[j].name);
    if (set.dev[j].start < t0)
      t0 = set.dev[j].start;
  }
  if (r == 0 && cfg->from_mark && from_t == UINT64_MAX)
    r = pc_err_set (err, EINVAL, "%s: no device has a mark named '%s'", dir, cfg->from_mark);
  for (size_t d = 0; r == 0 && d < set.n; d++)
    for (uint64_t c = 0; r == 0 && c < set.dev[d].ix.n; c++)
      if (flush_point (&set.dev[d].ix.recs[c]) &&
          (from_t == UINT64_MAX || set.dev[d].start + set.dev[d].ix.recs[c].time_ns >= from_t) &&
          (r = add_instant (res, &set, d, c, t0, counts, &cap)) < 0)
        pc_err_set (err, -r, "%s", strerror (-r));
  if (r == 0)
    qsort (res->inst, res->ninst, sizeof *res->inst, inst_cmp);
  if (r == 0 && cfg->verify)
    r = pc_devverify_run (cfg, &set, res, err);
  if (r == 0)
    count (res);
out:
  free (counts);
  pc_devset_free (&set);
  if (r < 0) {
    pc_devcheck_free (res);
    return r;
  }
  *ret = res;
  return 0;
}
