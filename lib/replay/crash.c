/* crash.c: crash models: enumerating crash states and building them into
 * images (their ids: stateid.c). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/crash.h"
#include "util/disk.h"
#include "format/mark.h"
#include "util/util.h"

/* The crash models, in the order --help lists them.  Adding one: an entry
 * here (its name, whether it takes :K, its line for --help, and the
 * function that enumerates its states at each record), its kind in
 * crash.h's enum pc_model_kind, that function below (beside the others),
 * its paragraph under "Crash models" in man/powercut-check.1, and its name
 * in the --model lists of powercut-check.1 and powercut-run.1.  The
 * commands take their help and their messages from this table. */
struct walk;
static int step_flush (struct walk *wk, uint64_t c, const struct pc_record *rec);
static int step_write (struct walk *wk, uint64_t c, const struct pc_record *rec);
static int step_reorder (struct walk *wk, uint64_t c, const struct pc_record *rec);

static const struct model_entry {
  struct pc_model_info info;
  /* Adds the states of the crash point c, if any (c >= the first point
   * wanted), and follows what is in flight.  Returns 0 or -ENOMEM. */
  int (*step) (struct walk *wk, uint64_t c, const struct pc_record *rec);
} models[] = {
  { { PC_MODEL_FLUSH, "flush", false, "a state at each flush and FUA write" },
    step_flush },
  { { PC_MODEL_WRITE, "write", false, "a state after every record" },
    step_write },
  { { PC_MODEL_REORDER, "reorder", true,
      "any of the writes since a flush are lost" },
    step_reorder },
  { { PC_MODEL_TORN, "torn", true,
      "reorder, and a write torn in its sectors" },
    step_reorder },
};

static const struct model_entry *
model_entry (enum pc_model_kind kind)
{
  for (size_t i = 0; i < PC_ARRAY_SIZE (models); i++)
    if (models[i].info.kind == kind)
      return &models[i];
  return NULL;
}

const struct pc_model_info *
pc_model_info (size_t i)
{
  return i < PC_ARRAY_SIZE (models) ? &models[i].info : NULL;
}

char *
pc_model_names (char *buf, size_t len)
{
  size_t pos = 0, n = PC_ARRAY_SIZE (models);

  buf[0] = '\0';
  for (size_t i = 0; i < n && pos < len; i++)
    pos += (size_t) snprintf (buf + pos, len - pos, "%s%s%s",
                              i == 0 ? "" : i + 1 == n ? " or " : ", ",
                              models[i].info.name, models[i].info.takes_k ? "[:K]" : "");
  return buf;
}

void
pc_model_help (FILE *f, const char *indent)
{
  for (size_t i = 0; i < PC_ARRAY_SIZE (models); i++) {
    char name[32];
    snprintf (name, sizeof name, "%s%s", models[i].info.name,
              models[i].info.takes_k ? ":K" : "");
    fprintf (f, "%s%-10s %s\n", indent, name, models[i].info.what);
  }
}

int
pc_model_spec_parse (const char *spec, struct pc_model *ret_model, struct pc_err *err)
{
  struct pc_model m = { PC_MODEL_FLUSH, PC_MODEL_DEFAULT_K, 0 };
  const char *colon = strchr (spec, ':');
  size_t n = colon ? (size_t) (colon - spec) : strlen (spec);
  const struct model_entry *e = NULL;
  char names[256];

  for (size_t i = 0; i < PC_ARRAY_SIZE (models) && e == NULL; i++)
    if (strlen (models[i].info.name) == n && strncmp (spec, models[i].info.name, n) == 0)
      e = &models[i];
  if (e == NULL)
    goto bad;
  m.kind = e->info.kind;
  if (colon) {
    char *end;
    unsigned long k;
    if (!e->info.takes_k || colon[1] < '0' || colon[1] > '9')
      goto bad;
    k = strtoul (colon + 1, &end, 10);
    if (*end != '\0' || k > PC_MODEL_MAX_K)
      goto bad;
    m.k = (unsigned) k;
  }
  *ret_model = m;
  return 0;
bad:
  return pc_err_set (err, EINVAL, "not %s (K <= %d)", pc_model_names (names, sizeof names),
                     PC_MODEL_MAX_K);
}

const char *
pc_model_name (enum pc_model_kind kind)
{
  const struct model_entry *e = model_entry (kind);

  return e ? e->info.name : "unknown";
}

bool
pc_model_takes_k (enum pc_model_kind kind)
{
  const struct model_entry *e = model_entry (kind);

  return e && e->info.takes_k;
}

char *
pc_model_spec (const struct pc_model *m, char *buf, size_t len)
{
  if (pc_model_takes_k (m->kind))
    snprintf (buf, len, "%s:%u", pc_model_name (m->kind), m->k);
  else
    snprintf (buf, len, "%s", pc_model_name (m->kind));
  return buf;
}

int
pc_index_load (const char *path, struct pc_index *ret_ix)
{
  struct pc_index ix;
  struct pc_record r;
  size_t cap = 0;
  int rc;

  memset (&ix, 0, sizeof ix);
  rc = pc_log_open (path, &ix.log);
  if (rc < 0)
    return rc;
  ix.hdr = *pc_log_get_header (ix.log);
  while (pc_log_next (ix.log, &r) == 1) {
    if (ix.n == cap) {
      size_t ncap = cap ? cap * 2 : 1024;
      struct pc_record *n = realloc (ix.recs, ncap * sizeof *n);
      if (n == NULL) {
        pc_index_free (&ix);
        return -ENOMEM;
      }
      ix.recs = n;
      cap = ncap;
    }
    ix.recs[ix.n++] = r;
  }
  ix.end = pc_log_end_state (ix.log, NULL, NULL, NULL);
  *ret_ix = ix;
  return 0;
}

void
pc_index_free (struct pc_index *ix)
{
  free (ix->recs);
  pc_log_close (ix->log);
  memset (ix, 0, sizeof *ix);
}

bool
pc_rec_is_data (const struct pc_record *r)
{
  return r->type == PC_REC_WRITE || r->type == PC_REC_TRIM ||
         r->type == PC_REC_WRITE_ZEROES;
}

int
pc_states_moments (const struct pc_index *ix, const struct pc_state *states, size_t n,
                   uint64_t *ret_moments)
{
  /* From the end: the first data record at or after each record, and
   * the first FLUSH or FUA data record at or after it (ix->n: none). */
  uint64_t *next_data = malloc ((ix->n + 1) * sizeof *next_data);
  uint64_t *next_dur = malloc ((ix->n + 1) * sizeof *next_dur);
  uint64_t *done = malloc ((ix->n + 1) * sizeof *done);

  if (next_data == NULL || next_dur == NULL || done == NULL) {
    free (next_data);
    free (next_dur);
    free (done);
    return -ENOMEM;
  }
  /* When each FLUSH or FUA write was answered: its DONE record (log.h),
   * or its own record in a log without them. */
  for (uint64_t i = 0; i <= ix->n; i++)
    done[i] = i;
  for (uint64_t i = 0; i < ix->n; i++)
    if (ix->recs[i].type == PC_REC_DONE && ix->recs[i].offset < i &&
        done[ix->recs[i].offset] == ix->recs[i].offset)
      done[ix->recs[i].offset] = i;
  next_data[ix->n] = next_dur[ix->n] = ix->n;
  for (uint64_t i = ix->n; i-- > 0;) {
    const struct pc_record *r = &ix->recs[i];
    bool data = pc_rec_is_data (r);
    next_data[i] = data ? i : next_data[i + 1];
    next_dur[i] = r->type == PC_REC_FLUSH || (data && (r->flags & PC_REC_F_FUA))
                  ? i : next_dur[i + 1];
  }
  for (size_t k = 0; k < n; k++) {
    const struct pc_state *s = &states[k];
    uint64_t c = s->point < ix->n ? s->point : ix->n - 1, end;
    if (s->ndrop > 0 || s->nsect > 0)
      end = next_dur[c + 1];
    else
      end = next_data[c + 1] < ix->n ? next_dur[next_data[c + 1]] : ix->n;
    ret_moments[k] = done[end] - 1;
  }
  free (next_data);
  free (next_dur);
  free (done);
  return 0;
}

int
pc_index_read_base (const struct pc_index *ix, const char *path, uint8_t **ret_mem,
                    uint64_t *ret_size, struct pc_err *why)
{
  return pc_index_read_base_map (ix, path, ret_mem, ret_size, NULL, why);
}

int
pc_index_read_base_map (const struct pc_index *ix, const char *path, uint8_t **ret_mem,
                        uint64_t *ret_size, uint64_t **ret_nonzero, struct pc_err *why)
{
  uint8_t h[16];
  int r;

  *ret_mem = NULL;
  *ret_size = 0;
  if (ret_nonzero)
    *ret_nonzero = NULL;
  if (!(ix->hdr.flags & PC_LOG_F_BASE)) {
    if (path == NULL)
      return 0;
    pc_err_msg (why, "%s: the recording started from zeros, not a base image", path);
    return -EINVAL;
  }
  if (path == NULL) {
    pc_err_msg (why, "the recording started from base image %s: give --base IMAGE",
                ix->hdr.basename);
    return -EINVAL;
  }
  r = pc_image_read_map (path, ix->hdr.devsize, 0, ret_mem, ret_size, h, ret_nonzero);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", path, r == -EINVAL ? "not the size of the recorded device"
                : strerror (-r));
    return r;
  }
  if (memcmp (h, ix->hdr.basehash, 16) != 0) {
    pc_err_msg (why, "%s: not the base image the recording started from (hash differs)",
                path);
    pc_image_unmap (*ret_mem, *ret_size);
    *ret_mem = NULL;
    if (ret_nonzero) {
      free (*ret_nonzero);
      *ret_nonzero = NULL;
    }
    return -EINVAL;
  }
  return 0;
}

int64_t
pc_index_find_mark (const struct pc_index *ix, const char *name)
{
  size_t nlen = strlen (name), n;

  for (uint64_t i = 0; i < ix->n; i++) {
    const struct pc_record *r = &ix->recs[i];
    const char *got = r->type == PC_REC_MARK ? pc_mark_peek_name (r->data, r->datalen, &n) : NULL;
    if (got && n == nlen && memcmp (got, name, nlen) == 0)
      return (int64_t) i;
  }
  return -1;
}

void
pc_state_clear (struct pc_state *s)
{
  free (s->drop);
  free (s->sectors);
  memset (s, 0, sizeof *s);
}

void
pc_states_free (struct pc_state *states, size_t n)
{
  for (size_t i = 0; i < n; i++)
    pc_state_clear (&states[i]);
  free (states);
}

/* A growable list of states. */
struct slist {
  struct pc_state *v;
  size_t n, cap;
};

static struct pc_state *
slist_add (struct slist *l, uint64_t point, uint64_t base)
{
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 256;
    struct pc_state *n = realloc (l->v, ncap * sizeof *n);
    if (n == NULL)
      return NULL;
    l->v = n;
    l->cap = ncap;
  }
  memset (&l->v[l->n], 0, sizeof l->v[0]);
  l->v[l->n].point = point;
  l->v[l->n].base = base;
  if (l->n > 0 && l->v[l->n - 1].point == point)
    l->v[l->n].nth = l->v[l->n - 1].nth + 1;
  return &l->v[l->n++];
}

/* Fills a flag array of n entries from a mask (n <= 64) or at random. */
static void
random_flags (uint8_t *f, size_t n, uint64_t *rng)
{
  for (size_t i = 0; i < n; i++)
    f[i] = pc_splitmix64 (rng) & 1;
}

static bool
flags_all (const uint8_t *f, size_t n, uint8_t v)
{
  for (size_t i = 0; i < n; i++)
    if (f[i] != v)
      return false;
  return true;
}

/* Adds a state at point with base; drop flags over w (nw entries). */
static int
add_reorder (struct slist *l, uint64_t point, uint64_t base, const uint64_t *w,
             size_t nw, const uint8_t *dropf)
{
  struct pc_state *s = slist_add (l, point, base);
  size_t nd = 0;

  if (s == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < nw; i++)
    nd += dropf[i] != 0;
  if (nd > 0) {
    s->drop = malloc (nd * sizeof *s->drop);
    if (s->drop == NULL)
      return -ENOMEM;
    for (size_t i = 0; i < nw; i++)
      if (dropf[i])
        s->drop[s->ndrop++] = w[i];
  }
  return 0;
}

static int
add_torn (struct slist *l, uint64_t point, uint64_t base, const uint8_t *keep, uint32_t n)
{
  struct pc_state *s = slist_add (l, point, base);

  if (s == NULL || (s->sectors = malloc (n)) == NULL)
    return -ENOMEM;
  memcpy (s->sectors, keep, n);
  s->nsect = n;
  return 0;
}

/* Has a pattern of n flags been seen (linear: the lists are small)? */
static bool
seen (uint8_t *const *pats, size_t np, const uint8_t *p, size_t n)
{
  for (size_t i = 0; i < np; i++)
    if (memcmp (pats[i], p, n) == 0)
      return true;
  return false;
}

static int
enum_reorder_point (struct slist *l, const struct pc_model *m, uint64_t c,
                    uint64_t base, const uint64_t *w, size_t nw)
{
  size_t want = (size_t) 1 << m->k;
  uint8_t *f = calloc (nw ? nw : 1, 1), **pats = NULL;
  size_t np = 0;
  uint64_t rng = m->seed ^ (c * UINT64_C(0x9e3779b97f4a7c15));
  int r = 0;

  if (f == NULL)
    return -ENOMEM;
  if (nw <= m->k) {
    for (uint64_t mask = 0; mask < (UINT64_C(1) << nw) && r == 0; mask++) {
      for (size_t i = 0; i < nw; i++)
        f[i] = (mask >> i) & 1;
      r = add_reorder (l, c, base, w, nw, f);
    }
    free (f);
    return r;
  }
  /* Sampled: keep all, drop all, then distinct random subsets. */
  pats = calloc (want, sizeof *pats);
  if (pats == NULL) {
    free (f);
    return -ENOMEM;
  }
  for (size_t attempt = 0; np < want && attempt < want * 8 && r == 0; attempt++) {
    if (np == 0)
      memset (f, 0, nw);
    else if (np == 1)
      memset (f, 1, nw);
    else
      random_flags (f, nw, &rng);
    if (seen (pats, np, f, nw))
      continue;
    pats[np] = malloc (nw);
    if (pats[np] == NULL) {
      r = -ENOMEM;
      break;
    }
    memcpy (pats[np++], f, nw);
    r = add_reorder (l, c, base, w, nw, f);
  }
  for (size_t i = 0; i < np; i++)
    free (pats[i]);
  free (pats);
  free (f);
  return r;
}

static int
enum_torn_point (struct slist *l, const struct pc_model *m, uint64_t c,
                 uint64_t base, uint32_t n)
{
  unsigned k = m->k;
  size_t maxp = 3 * (size_t) k + 2, np = 0;
  uint8_t *f = malloc (n), **pats;
  uint64_t rng = m->seed ^ (c * UINT64_C(0xd1b54a32d192ed03));
  int r = 0;

  if (f == NULL)
    return -ENOMEM;
  if (n <= k) {
    for (uint64_t mask = 1; mask + 1 < (UINT64_C(1) << n) && r == 0; mask++) {
      for (uint32_t i = 0; i < n; i++)
        f[i] = (mask >> i) & 1;
      r = add_torn (l, c, base, f, n);
    }
    free (f);
    return r;
  }
  pats = calloc (maxp, sizeof *pats);
  if (pats == NULL) {
    free (f);
    return -ENOMEM;
  }
  for (unsigned phase = 0; phase < 3 && r == 0; phase++)
    for (unsigned i = 1; i <= k && r == 0; i++) {
      uint32_t len = (uint32_t) (((uint64_t) i * n + (k + 1) / 2) / (k + 1));
      if (len == 0)
        len = 1;
      if (len >= n)
        len = n - 1;
      if (phase == 0) {             /* prefixes */
        memset (f, 0, n);
        memset (f, 1, len);
      }
      else if (phase == 1) {        /* suffixes */
        memset (f, 0, n);
        memset (f + n - len, 1, len);
      }
      else {                        /* random proper subsets */
        do
          random_flags (f, n, &rng);
        while (flags_all (f, n, 0) || flags_all (f, n, 1));
      }
      if (seen (pats, np, f, n))
        continue;
      pats[np] = malloc (n);
      if (pats[np] == NULL) {
        r = -ENOMEM;
        break;
      }
      memcpy (pats[np++], f, n);
      r = add_torn (l, c, base, f, n);
    }
  for (size_t i = 0; i < np; i++)
    free (pats[i]);
  free (pats);
  free (f);
  return r;
}

/* The walk over a log's records that enumerates a model's states. */
struct walk {
  const struct pc_index *ix;
  const struct pc_model *model;
  uint64_t from;                /* the first crash point wanted */
  uint64_t until;               /* the last (UINT64_MAX: all) */
  struct slist l;               /* the states */
  uint64_t base;                /* records [0, base) are durable (reorder, torn) */
  uint64_t *w;                  /* the data records in flight since then */
  size_t nw, capw;
};

/* A state with records 0..c applied, if c is wanted. */
static int
add_point (struct walk *wk, uint64_t c)
{
  if (c < wk->from)
    return 0;
  return slist_add (&wk->l, c, c + 1) ? 0 : -ENOMEM;
}

/* Does rec make the disk durable: a flush, or a FUA write (when done)?
 * The flush model's points, and where the state at the start is taken. */
static bool
durable_point (const struct pc_record *rec)
{
  return rec->type == PC_REC_FLUSH || (pc_rec_is_data (rec) && (rec->flags & PC_REC_F_FUA));
}

static int
step_flush (struct walk *wk, uint64_t c, const struct pc_record *rec)
{
  return durable_point (rec) ? add_point (wk, c) : 0;
}

static int
step_write (struct walk *wk, uint64_t c, const struct pc_record *rec)
{
  return pc_rec_is_disk (rec) ? add_point (wk, c) : 0;
}

/* reorder and torn: at a flush, one state and nothing in flight; at a data
 * record, the subsets of what is in flight (and for torn, the record
 * itself cut), then the record is in flight too unless it is FUA. */
static int
step_reorder (struct walk *wk, uint64_t c, const struct pc_record *rec)
{
  const struct pc_model *m = wk->model;
  uint32_t sector = wk->ix->hdr.sector;
  int r = 0;

  if (rec->type == PC_REC_FLUSH) {
    wk->nw = 0;
    wk->base = c + 1;
    return add_point (wk, c);
  }
  if (!pc_rec_is_data (rec))
    return 0;
  if (c >= wk->from) {
    r = enum_reorder_point (&wk->l, m, c, wk->base, wk->w, wk->nw);
    if (r == 0 && m->kind == PC_MODEL_TORN && rec->type == PC_REC_WRITE &&
        rec->length / sector > 1)
      r = enum_torn_point (&wk->l, m, c, wk->base, rec->length / sector);
  }
  if (r == 0 && !(rec->flags & PC_REC_F_FUA)) {
    if (pc_grow (&wk->w, &wk->capw, wk->nw + 1, sizeof *wk->w, 64) < 0)
      return -ENOMEM;
    wk->w[wk->nw++] = c;
  }
  return r;
}

/* The states of model at points from..until. */
static int
enumerate (const struct pc_index *ix, const struct pc_model *model, uint64_t from,
           uint64_t until, struct pc_state **ret_states, size_t *ret_n)
{
  const struct model_entry *e = model_entry (model->kind);
  struct walk wk = { .ix = ix, .model = model, .from = from, .until = until };
  int r = e ? 0 : -EINVAL;

  for (uint64_t c = 0; c < ix->n && c <= until && r == 0; c++)
    r = e->step (&wk, c, &ix->recs[c]);
  free (wk.w);
  if (r < 0) {
    pc_states_free (wk.l.v, wk.l.n);
    return r;
  }
  *ret_states = wk.l.v;
  *ret_n = wk.l.n;
  return 0;
}

int
pc_states_enumerate (const struct pc_index *ix, const struct pc_model *model,
                     uint64_t from, struct pc_state **ret_states, size_t *ret_n)
{
  return enumerate (ix, model, from, UINT64_MAX, ret_states, ret_n);
}

int
pc_states_enumerate_range (const struct pc_index *ix, const struct pc_model *model,
                           uint64_t from, uint64_t until, struct pc_state **ret_states,
                           size_t *ret_n)
{
  return enumerate (ix, model, from, until, ret_states, ret_n);
}

int
pc_states_add_start (const struct pc_index *ix, uint64_t from, struct pc_state **states,
                     size_t *n)
{
  uint64_t f = from < ix->n ? from : ix->n;
  struct pc_state *v;

  /* the last record that made the disk durable (a guest's nbd device
   * takes FUA writes) */
  while (f-- > 0 && !durable_point (&ix->recs[f]))
    ;
  if (from == 0 || from > ix->n || f >= from || (*n > 0 && (*states)[0].point == f &&
                                                 (*states)[0].ndrop == 0 &&
                                                 (*states)[0].nsect == 0))
    return 0;                   /* no flush before from, or its state is there */
  v = realloc (*states, (*n + 1) * sizeof *v);
  if (v == NULL)
    return -ENOMEM;
  memmove (v + 1, v, *n * sizeof *v);
  memset (&v[0], 0, sizeof v[0]);
  v[0].point = f;
  v[0].base = f + 1;
  *states = v;
  (*n)++;
  return 0;
}

int
pc_state_build (const struct pc_index *ix, const struct pc_state *s,
                struct pc_image *im, uint64_t *cursor)
{
  uint32_t sector = ix->hdr.sector;
  uint32_t di = 0;
  int r;

  if (*cursor > s->base || s->base > s->point + 1)
    return -ERANGE;
  for (; *cursor < s->base; (*cursor)++) {
    r = pc_image_apply (im, &ix->recs[*cursor], sector, NULL);
    if (r < 0)
      return r;
  }
  if (s->base == s->point + 1)
    return 0;
  r = pc_image_overlay_begin (im);
  if (r < 0)
    return r;
  for (uint64_t i = s->base; i <= s->point; i++) {
    if (di < s->ndrop && s->drop[di] == i) {
      di++;
      continue;
    }
    r = pc_image_apply (im, &ix->recs[i], sector,
                        i == s->point && s->nsect ? s->sectors : NULL);
    if (r < 0) {
      pc_image_overlay_end (im);
      return r;
    }
  }
  return 1;
}
