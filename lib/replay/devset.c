/* devset.c: several devices on one clock (devset.h). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/mark.h"
#include "replay/devset.h"
#include "util/util.h"

static int
dev_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_devset_dev *) a)->name,
                 ((const struct pc_devset_dev *) b)->name);
}

bool
pc_devset_is (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

/* Adds dir/file (a NAME.pclog) to s, its index loaded. */
static int
add_dev (struct pc_devset *s, const char *dir, const char *file, size_t namelen,
         struct pc_err *err)
{
  struct pc_devset_dev *d, *nd = realloc (s->dev, (s->n + 1) * sizeof *s->dev);
  int r;

  if (nd == NULL)
    return pc_err_set (err, ENOMEM, "%s: %s", dir, strerror (ENOMEM));
  s->dev = nd;
  d = &s->dev[s->n];
  memset (d, 0, sizeof *d);
  d->name = strndup (file, namelen);
  if (d->name == NULL || asprintf (&d->path, "%s/%s", dir, file) < 0) {
    free (d->name);
    return pc_err_set (err, ENOMEM, "%s: %s", dir, strerror (ENOMEM));
  }
  r = pc_index_load (d->path, &d->ix);
  if (r < 0) {
    pc_err_set (err, -r, "%s: %s", d->path, pc_log_strerror (r));
    free (d->name);
    free (d->path);
    return r;
  }
  s->n++;
  if (d->ix.end == PC_END_CORRUPT) {
    char m[256];
    return pc_err_set (err, EBADMSG, "%s: %s", d->path,
                       pc_log_corrupt_message (d->ix.log, m, sizeof m));
  }
  if (!(d->ix.hdr.compat & PC_LOG_COMPAT_CLOCK))
    return pc_err_set (err, EINVAL, "%s: the log does not give its clock (recorded by an "
                       "older powercut): it cannot be set beside others", d->path);
  d->start = d->ix.hdr.start_mono;
  if ((d->ix.hdr.flags & PC_LOG_F_BASE) &&
      asprintf (&d->base_path, "%s/%s", dir, d->ix.hdr.basename) < 0)
    return pc_err_set (err, ENOMEM, "%s: %s", dir, strerror (ENOMEM));
  return 0;
}

int
pc_devset_read_base (const struct pc_devset *s, size_t j, uint8_t **ret_mem,
                     uint64_t *ret_size, struct pc_err *err)
{
  return pc_index_read_base (&s->dev[j].ix, s->dev[j].base_path, ret_mem, ret_size, err);
}

int
pc_devset_open (const char *dir, struct pc_devset *ret, struct pc_err *err)
{
  struct pc_devset s = { NULL, 0 };
  size_t sl = strlen (PC_DEVSET_SUFFIX);
  struct dirent *e;
  DIR *dp = opendir (dir);
  int r = 0;

  if (dp == NULL)
    return pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
  while (r == 0 && (errno = 0, e = readdir (dp)) != NULL) {
    size_t len = strlen (e->d_name);
    if (len <= sl || strcmp (e->d_name + len - sl, PC_DEVSET_SUFFIX) != 0)
      continue;
    r = add_dev (&s, dir, e->d_name, len - sl, err);
  }
  if (r == 0 && errno != 0)
    r = pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
  closedir (dp);
  if (r == 0 && s.n == 0)
    r = pc_err_set (err, ENOENT, "%s: no NAME%s log in it", dir, PC_DEVSET_SUFFIX);
  for (size_t i = 1; r == 0 && i < s.n; i++)
    if (memcmp (s.dev[i].ix.hdr.boot_id, s.dev[0].ix.hdr.boot_id, 16) != 0)
      r = pc_err_set (err, EINVAL, "%s and %s were recorded in different boots: not on one "
                      "clock", s.dev[0].path, s.dev[i].path);
  if (r < 0) {
    pc_devset_free (&s);
    return r;
  }
  qsort (s.dev, s.n, sizeof *s.dev, dev_cmp);
  *ret = s;
  return 0;
}

void
pc_devset_free (struct pc_devset *s)
{
  for (size_t i = 0; i < s->n; i++) {
    free (s->dev[i].name);
    free (s->dev[i].path);
    free (s->dev[i].base_path);
    pc_index_free (&s->dev[i].ix);
  }
  free (s->dev);
  s->dev = NULL;
  s->n = 0;
}

/* How many of d's records were logged at or before instant t. */
static uint64_t
logged_by (const struct pc_devset_dev *d, uint64_t t)
{
  uint64_t lo = 0, hi = d->ix.n;

  /* times never decrease along a log */
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (d->start + d->ix.recs[mid].time_ns <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int
pc_devset_instant (const struct pc_devset *s, const char *id, size_t *ret_dev,
                   struct pc_state *ret_state, uint64_t *counts, struct pc_err *err)
{
  const char *colon = strchr (id, ':');
  const struct pc_devset_dev *d = NULL;
  size_t k;
  int r;

  if (colon == NULL)
    return pc_err_set (err, EINVAL, "not NAME:POINT (a device of the set and its crash point)");
  for (k = 0; k < s->n; k++)
    if (strlen (s->dev[k].name) == (size_t) (colon - id) &&
        strncmp (s->dev[k].name, id, (size_t) (colon - id)) == 0) {
      d = &s->dev[k];
      break;
    }
  if (d == NULL)
    return pc_err_set (err, EINVAL, "no device %.*s in the set", (int) (colon - id), id);
  r = pc_state_parse (&d->ix, colon + 1, ret_state, err);
  if (r < 0)
    return pc_err_prefix (err, -r, "%s", d->name);
  pc_devset_counts (s, k, ret_state->point, counts);
  *ret_dev = k;
  return 0;
}

void
pc_devset_counts (const struct pc_devset *s, size_t d, uint64_t c, uint64_t *counts)
{
  uint64_t t = s->dev[d].start + s->dev[d].ix.recs[c].time_ns;

  for (size_t j = 0; j < s->n; j++)
    counts[j] = j == d ? c + 1 : logged_by (&s->dev[j], t);
}

static int
point_cmp (const void *a, const void *b)
{
  const struct pc_devset_point *x = a, *y = b;

  if (x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? -1 : 1;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  return (x->record > y->record) - (x->record < y->record);
}

int64_t
pc_devset_instants (const struct pc_devset *s, bool every_record, struct pc_devset_point **ret)
{
  struct pc_devset_point *v = NULL;
  size_t n = 0, cap = 0;
  uint64_t t0 = UINT64_MAX;

  for (size_t j = 0; j < s->n; j++)
    if (s->dev[j].start < t0)
      t0 = s->dev[j].start;
  for (size_t j = 0; j < s->n; j++)
    for (uint64_t c = 0; c < s->dev[j].ix.n; c++) {
      const struct pc_record *r = &s->dev[j].ix.recs[c];
      if (every_record ? !pc_rec_is_disk (r)
          : r->type != PC_REC_FLUSH && !(pc_rec_is_data (r) && (r->flags & PC_REC_F_FUA)))
        continue;
      if (pc_grow (&v, &cap, n + 1, sizeof *v, 64) < 0) {
        free (v);
        return -ENOMEM;
      }
      v[n].dev = j;
      v[n].record = c;
      v[n++].time_ns = s->dev[j].start + r->time_ns - t0;
    }
  if (n)
    qsort (v, n, sizeof *v, point_cmp);
  *ret = v;
  return (int64_t) n;
}

int
pc_devset_marks (const struct pc_devset_dev *d, uint64_t n, char **ret_all, char **ret_last)
{
  char *all = NULL, *last = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&all, &len);

  if (f == NULL)
    return -ENOMEM;
  for (uint64_t i = 0; i < n && i < d->ix.n; i++) {
    struct pc_mark m;
    if (d->ix.recs[i].type != PC_REC_MARK ||
        pc_mark_decode (d->ix.recs[i].data, d->ix.recs[i].datalen, &m, NULL) < 0)
      continue;
    if (pc_mark_run_kind (&m) != PC_RUN_MARK_NONE) {
      pc_mark_free (&m);
      continue;
    }
    fprintf (f, "%s%s", ftell (f) ? " " : "", m.name);
    free (last);
    last = strdup (m.name);
    pc_mark_free (&m);
  }
  if (fclose (f) == EOF || (last == NULL && (last = strdup ("")) == NULL)) {
    free (all);
    free (last);
    return -ENOMEM;
  }
  *ret_all = all;
  *ret_last = last;
  return 0;
}
