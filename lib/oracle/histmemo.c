/* histmemo.c: judgements kept from one crash state to the next.
 *
 * A path's judgement at point c rests on what was found there and on the
 * events of the history at or before c that concern it: the bindings of
 * its name, every event of the nodes it was ever bound to (their blocks,
 * sizes, durable points, attributes, shifts, what the tracer lost), the
 * durable points of its directories' entries, and the syncs.  Between two
 * points with the same such events and the same file found, the
 * judgement is the same: a path judged fine is fine again without being
 * judged.  Only "fine" is kept (a finding is worked out each time, with
 * its cause).  The same for pc_history_older, whose judgement also rests
 * on the events at or before its floor: fine again where neither count
 * moved.  The events of a path are gathered once, when it is first
 * judged; the syncs are counted at each point.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "oracle/histint.h"
#include "util/util.h"

/* What was found at a path, in short: equal if the judgement sees no
 * difference (content by its hash, and its metadata). */
struct seen {
  bool present;
  uint8_t hash[16];
  uint64_t rest;                /* XXH3 of the other fields the judgement reads */
};

struct slot {
  bool gathered;
  uint64_t *chg;                /* the seqs of its own events, ascending */
  size_t nchg;
  bool kept;                    /* fine at the epoch below, as found */
  uint64_t own, syncs;          /* how many of its events, and of the syncs,
                                 * were at or before that point */
  struct seen seen;
  bool okept;                   /* not older than at its floor, as found */
  bool okept_kept;              /* ... judged with kept (history.h) */
  uint64_t oown[2], osyncs[2];  /* the same counts at that floor and point */
  struct seen oseen;
};

struct hmemo {
  size_t n;
  struct slot *s;               /* per path, as h->paths */
  uint64_t *syncs;              /* the syncs' seqs, ascending */
  size_t nsyncs;
};

void
pc_hist_memo_free (struct hmemo *m)
{
  if (m == NULL)
    return;
  for (size_t i = 0; i < m->n; i++)
    free (m->s[i].chg);
  free (m->s);
  free (m->syncs);
  free (m);
}

static void
seen_of (const struct pc_entry *f, struct seen *s)
{
  XXH3_state_t *st = XXH3_createState ();

  memset (s, 0, sizeof *s);
  s->present = f != NULL;
  if (f == NULL || st == NULL) {
    XXH3_freeState (st);
    if (f)
      s->rest = 1;                /* never equal below: judged anew */
    return;
  }
  memcpy (s->hash, f->hash, sizeof s->hash);
  XXH3_64bits_reset (st);
  XXH3_64bits_update (st, &f->type, sizeof f->type);
  XXH3_64bits_update (st, &f->mode, sizeof f->mode);
  XXH3_64bits_update (st, &f->nlink, sizeof f->nlink);
  XXH3_64bits_update (st, &f->ino, sizeof f->ino);
  XXH3_64bits_update (st, &f->size, sizeof f->size);
  XXH3_64bits_update (st, &f->nblocks, sizeof f->nblocks);
  XXH3_64bits_update (st, &f->zero_blocks, sizeof f->zero_blocks);
  if (f->nblocks)
    XXH3_64bits_update (st, f->blocks, f->nblocks * sizeof *f->blocks);
  if (f->target)
    XXH3_64bits_update (st, f->target, strlen (f->target) + 1);
  XXH3_64bits_update (st, &f->xattrs_unknown, sizeof f->xattrs_unknown);
  for (size_t i = 0; i < f->nxattrs; i++) {
    XXH3_64bits_update (st, f->xattrs[i].name, strlen (f->xattrs[i].name) + 1);
    XXH3_64bits_update (st, &f->xattrs[i].hash, sizeof f->xattrs[i].hash);
  }
  s->rest = XXH3_64bits_digest (st) | 2;
  XXH3_freeState (st);
}

static bool
seen_same (const struct seen *a, const struct seen *b)
{
  return a->present == b->present && a->rest == b->rest &&
         memcmp (a->hash, b->hash, sizeof a->hash) == 0;
}

/* Adds seq (unless NONE) to the slot's list of the seqs its path changed at. */
static int
add_change (struct slot *s, size_t *cap, uint64_t seq)
{
  if (seq == NONE)
    return 0;
  if (pc_grow (&s->chg, cap, s->nchg + 1, sizeof *s->chg, 16) < 0)
    return -1;
  s->chg[s->nchg++] = seq;
  return 0;
}

static int
u64_cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return (x > y) - (x < y);
}

/* Is dir (relative, "" for the root) the path's directory, or above it? */
static bool
above (const char *dir, const char *path)
{
  size_t n = strlen (dir);

  return n == 0 || (strncmp (dir, path, n) == 0 && path[n] == '/');
}

/* Gathers the seqs of path p's own events into s. */
static int
gather (const struct pc_history *h, const struct phist *p, struct slot *s)
{
  size_t cap = 0;
  int r = 0;

  for (size_t i = 0; r == 0 && i < p->ne; i++) {
    const struct node *n;
    r = add_change (s, &cap, p->e[i].seq);
    if (p->e[i].node < 0)
      continue;
    /* a node bound more than once gives its events again: harmless */
    n = &h->nodes[p->e[i].node];
    for (size_t k = 0; r == 0 && k < n->nb; k++)
      r = add_change (s, &cap, n->b[k].seq);
    for (size_t k = 0; r == 0 && k < n->ns; k++)
      r = add_change (s, &cap, n->s[k].seq);
    for (size_t k = 0; r == 0 && k < n->nd; k++)
      r = add_change (s, &cap, n->d[k].seq);
    for (size_t k = 0; r == 0 && k < n->nx; k++)
      r = add_change (s, &cap, n->x[k].seq);
    for (size_t k = 0; r == 0 && k < n->nsh; k++)
      r = add_change (s, &cap, n->sh[k].seq);
    if (r == 0)
      r = add_change (s, &cap, n->lost_from);
    if (r == 0)
      r = add_change (s, &cap, n->mapped_from);
  }
  for (size_t i = 0; r == 0 && i < h->ndd; i++)
    if (above (h->dd[i].dir, p->path))
      r = add_change (s, &cap, h->dd[i].seq);
  if (r < 0)
    return r;
  if (s->nchg)
    qsort (s->chg, s->nchg, sizeof *s->chg, u64_cmp);
  s->gathered = true;
  return 0;
}

/* A new memo for h, or NULL without memory. */
static struct hmemo *
memo_new (const struct pc_history *h)
{
  struct hmemo *m = calloc (1, sizeof *m);

  if (m == NULL || (m->s = calloc (h->npaths ? h->npaths : 1, sizeof *m->s)) == NULL ||
      (m->syncs = malloc ((h->nglobal ? h->nglobal : 1) * sizeof *m->syncs)) == NULL) {
    pc_hist_memo_free (m);
    return NULL;
  }
  m->n = h->npaths;
  for (size_t i = 0; i < h->nglobal; i++)
    m->syncs[i] = h->global[i].seq;
  m->nsyncs = h->nglobal;
  if (m->nsyncs)
    qsort (m->syncs, m->nsyncs, sizeof *m->syncs, u64_cmp);
  return m;
}

/* The memo's slot of path, its events gathered; NULL if there is none
 * (plain, no memory, a path not followed). */
static struct slot *
slot_of (const struct pc_history *h, const char *path)
{
  struct pc_history *mh = (struct pc_history *) h;       /* its memo only */
  const struct phist *p = NULL;
  struct slot *s;
  size_t lo = 0, hi = h->npaths;

  if (h->plain)
    return NULL;
  if (h->memo == NULL)
    mh->memo = memo_new (h);
  if (h->memo == NULL)
    return NULL;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp (h->paths[mid].path, path);
    if (c == 0) {
      p = &h->paths[mid];
      break;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (p == NULL)
    return NULL;
  s = &h->memo->s[p - h->paths];
  if (!s->gathered && gather (h, p, s) < 0)
    return NULL;
  return s;
}

int
pc_hist_memo_older (const struct pc_history *h, uint64_t point, uint64_t floor, bool kept,
                    const char *path,
                    const struct pc_entry *found, struct pc_history_verdict *ret)
{
  struct slot *s = slot_of (h, path);
  struct seen now;
  uint64_t own[2], syncs[2];
  int r;

  if (s == NULL)
    return pc_hist_older (h, point, floor, kept, path, found, ret);
  own[0] = pc_hist_count_upto (s->chg, s->nchg, floor);
  own[1] = pc_hist_count_upto (s->chg, s->nchg, point);
  syncs[0] = pc_hist_count_upto (h->memo->syncs, h->memo->nsyncs, floor);
  syncs[1] = pc_hist_count_upto (h->memo->syncs, h->memo->nsyncs, point);
  seen_of (found, &now);
  if (s->okept && s->okept_kept == kept && memcmp (s->oown, own, sizeof own) == 0 &&
      memcmp (s->osyncs, syncs, sizeof syncs) == 0 && seen_same (&s->oseen, &now)) {
    memset (ret, 0, sizeof *ret);
    ret->call = UINT32_MAX;
    return 0;
  }
  r = pc_hist_older (h, point, floor, kept, path, found, ret);
  s->okept = r == 0 && ret->kind == 0;
  s->okept_kept = kept;
  memcpy (s->oown, own, sizeof own);
  memcpy (s->osyncs, syncs, sizeof syncs);
  s->oseen = now;
  return r;
}

int
pc_hist_memo_judge (const struct pc_history *h, uint64_t point, const char *path,
                  const struct pc_entry *found, struct pc_history_verdict *ret)
{
  struct slot *s = slot_of (h, path);
  struct seen now;
  uint64_t own, syncs;
  int r;

  if (s == NULL)
    return pc_hist_judge (h, point, path, found, ret);
  own = pc_hist_count_upto (s->chg, s->nchg, point);
  syncs = pc_hist_count_upto (h->memo->syncs, h->memo->nsyncs, point);
  seen_of (found, &now);
  if (s->kept && s->own == own && s->syncs == syncs && seen_same (&s->seen, &now)) {
    memset (ret, 0, sizeof *ret);
    ret->call = UINT32_MAX;
    return 0;
  }
  r = pc_hist_judge (h, point, path, found, ret);
  s->kept = r == 0 && ret->kind == 0;
  s->own = own;
  s->syncs = syncs;
  s->seen = now;
  return r;
}
