/* histxattr.c: a traced program's extended attributes in its history:
 * whether a crash state's attributes are a state the program had, and
 * why not. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/histint.h"

static int
xattr_name_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_xattr *) a)->name, ((const struct pc_xattr *) b)->name);
}

/* The last point at or before point from which n's extended attributes
 * were durable (an fsync of it, not fdatasync; a sync; a synced mark), or
 * NONE. */
static uint64_t
meta_durable (const struct pc_history *h, const struct node *n, uint64_t point,
              uint64_t floor)
{
  uint64_t best = NONE;
  uint32_t call;

  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq <= point && (best == NONE || h->global[i].seq > best))
      best = h->global[i].seq;
  for (size_t i = 0; i < n->nd; i++)
    if (n->d[i].meta && n->d[i].seq <= point && (best == NONE || n->d[i].seq > best))
      best = n->d[i].seq;
  return pc_hist_at_floor (best, floor, point, &call);
}

static const struct pc_xattr *
find_xattr (const struct pc_entry *e, const char *name)
{
  struct pc_xattr key = { (char *) name, 0 };

  return e->nxattrs ? bsearch (&key, e->xattrs, e->nxattrs, sizeof *e->xattrs,
                               xattr_name_cmp) : NULL;
}

static bool
xattr_holds (const struct xver *v, const struct pc_xattr *found)
{
  switch (v->state) {
  case X_SET: return found && found->hash == v->hash;
  case X_UNKNOWN: return found != NULL;
  default: return found == NULL;
  }
}

/* Do found's extended attributes fit n's at point: for each one the
 * program set or removed, a state it had there since it was last durable?
 * NULL if so; else the version the state should have held (the newest in
 * the window), *ret_promise whether it had been made durable. */
const struct xver *
pc_hist_xattrs_match (const struct pc_history *h, const struct node *n, const struct pc_entry *found,
              uint64_t point, uint64_t floor, bool *ret_promise)
{
  uint64_t lo = meta_durable (h, n, point, floor);

  *ret_promise = false;
  if (found->xattrs_unknown)
    return NULL;
  for (size_t i = 0; i < n->nx && n->x[i].seq <= point; i++) {
    const char *name = n->x[i].name;
    const struct pc_xattr *fx = find_xattr (found, name);
    const struct xver *at_lo = NULL, *newest = NULL;
    bool ok = false, seen = false, first = true;
    for (size_t j = 0; j < i; j++)
      first &= strcmp (n->x[j].name, name) != 0;
    if (!first)
      continue;                 /* each name once */
    for (size_t j = i; j < n->nx && n->x[j].seq <= point; j++) {
      const struct xver *v = &n->x[j];
      if (strcmp (v->name, name) != 0)
        continue;
      if (lo != NONE && v->seq <= lo) {
        at_lo = v;
        continue;
      }
      seen = true;
      newest = v;
      ok |= xattr_holds (v, fx);
    }
    if (at_lo)
      ok |= xattr_holds (at_lo, fx);
    else
      ok |= n->base || fx == NULL;   /* before the program: absent, or unknown */
    if (!ok) {
      *ret_promise = !seen && at_lo != NULL;
      return newest ? newest : at_lo;
    }
  }
  return NULL;
}

/* The cause of an extended attribute not as the program had it (v: the
 * version lost). */
int
pc_hist_xattr_cause (const struct pc_history *h, const struct node *n, const char *path,
                     const struct pc_entry *found, const struct xver *v, bool promise,
                     struct pc_cause *c)
{
  bool missing = find_xattr (found, v->name) == NULL;

  uint32_t dcall = UINT32_MAX;
  uint64_t dseq = NONE;

  memset (c, 0, sizeof *c);
  c->known = true;
  c->promise = promise;
  c->durable_ns = -1;
  pc_hist_cause_call (h, c, v->call);
  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq >= v->seq && h->global[i].seq < dseq) {
      dseq = h->global[i].seq;
      dcall = h->global[i].call;
    }
  for (size_t i = 0; i < n->nd; i++)
    if (n->d[i].meta && n->d[i].seq >= v->seq && n->d[i].seq < dseq) {
      dseq = n->d[i].seq;
      dcall = n->d[i].call;
    }
  if (dseq != NONE) {
    c->durable_ns = (int64_t) pc_hist_rec_time (h, dseq);
    c->durable_by = pc_hist_describe_durable (h, dcall);
  }
  if (asprintf (&c->rule, promise
                ? (missing ? "the extended attribute %s, made durable, is missing: the "
                             "filesystem broke its promise"
                           : "the extended attribute %s, made durable, is not what it was: the "
                             "filesystem broke its promise")
                : missing ? "the extended attribute %s is missing: the program's setting of it "
                            "was never made durable (a crash may lose it)"
                : "the extended attribute %s holds what the program never had there",
                v->name) < 0)
    c->rule = NULL;
  if (!promise && asprintf (&c->fix, "an fsync of %s after that call", path) < 0)
    c->fix = NULL;
  return c->rule ? 0 : -ENOMEM;
}
