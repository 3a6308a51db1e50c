/* histcause.c: what the judge, the windows and the attributes read in a
 * history and build their causes from: a path's history, a block's
 * versions, a file's size at a point, when a name was made durable and by
 * which call, and the calls told for people.  It calls no other part of
 * the history. */
#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/histint.h"
#include "util/xxh.h"

int
pc_hist_path_cmp (const void *a, const void *b)
{
  return strcmp (((const struct phist *) a)->path, ((const struct phist *) b)->path);
}

/* A call for people: its text, or what a mark did. */
void
pc_hist_cause_call (const struct pc_history *h, struct pc_cause *c, uint32_t call)
{
  if (call == UINT32_MAX || call >= h->ncalls)
    return;
  c->call = strdup (h->calls[call].text);
  c->pid = h->calls[call].pid;
  c->time_ns = h->calls[call].time_ns;
}

char *
pc_hist_describe_durable (const struct pc_history *h, uint32_t call)
{
  char *s = NULL;

  if (call != UINT32_MAX && call < h->ncalls)
    s = strdup (h->calls[call].text);
  else
    s = strdup ("a mark");
  return s;
}

uint64_t
pc_hist_rec_time (const struct pc_history *h, uint64_t seq)
{
  return seq < h->ix->n ? h->ix->recs[seq].time_ns : 0;
}

const struct phist *
pc_hist_find_path (const struct pc_history *h, const char *path)
{
  struct phist key = { .path = (char *) path };

  return h->npaths ? bsearch (&key, h->paths, h->npaths, sizeof *h->paths, pc_hist_path_cmp) : NULL;
}

/* A floor (NONE: none) is a point the judgement treats as durable: what
 * the program had there is the oldest it accepts. */
uint64_t
pc_hist_at_floor (uint64_t best, uint64_t floor, uint64_t point, uint32_t *ret_call)
{
  if (floor != NONE && floor <= point && (best == NONE || floor > best)) {
    *ret_call = UINT32_MAX;
    return floor;
  }
  return best;
}

/* The versions of block b of n: [*ret_a, *ret_b) in n->b. */
void
pc_hist_block_range (const struct node *n, uint64_t b, size_t *ret_a, size_t *ret_b)
{
  size_t lo = 0, hi = n->nb;

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (n->b[mid].block < b)
      lo = mid + 1;
    else
      hi = mid;
  }
  *ret_a = lo;
  while (lo < n->nb && n->b[lo].block == b)
    lo++;
  *ret_b = lo;
}

/* The hash of len zero bytes; a whole block's is worked out once (it is
 * asked for every block judged). */
uint64_t
pc_hist_zeros_hash (uint64_t len)
{
  static const uint8_t z[BLOCK];
  static uint64_t whole;
  static bool have;

  if (len != BLOCK)
    return XXH3_64bits (z, len);
  if (!have) {
    whole = XXH3_64bits (z, BLOCK);
    have = true;
  }
  return whole;
}

bool
pc_hist_holds (const struct bver *v, uint64_t hash, bool zero)
{
  return v->kind == B_UNKNOWN || (v->kind == B_ZERO && zero) ||
         (v->kind == B_HASH && v->hash == hash);
}

size_t
pc_hist_count_upto (const uint64_t *v, size_t n, uint64_t point)
{
  size_t lo = 0, hi = n;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] <= point)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Did block b of n hold bytes the program never saw written (n was there
 * before it, as long as its first size)?  Past that size the file held
 * nothing: a block there reads as zeros until written. */
bool
pc_hist_in_base (const struct node *n, uint64_t b)
{
  return n->base && n->ns > 0 && b * BLOCK < n->s[0].size;
}

uint64_t
pc_hist_size_at (const struct node *n, uint64_t point)
{
  uint64_t s = 0;

  for (size_t i = 0; i < n->ns && n->s[i].seq <= point; i++)
    s = n->s[i].size;
  return s;
}

/* The first point at or after seq from which path's name was durable, or
 * NONE; *ret_call what made it so. */
uint64_t
pc_hist_entry_made_durable (const struct pc_history *h, const char *path, uint64_t seq,
                            uint32_t *ret_call)
{
  const char *slash = strrchr (path, '/');
  size_t dl = slash ? (size_t) (slash - path) : 0;
  uint64_t best = NONE;

  *ret_call = UINT32_MAX;
  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq >= seq && h->global[i].seq < best) {
      best = h->global[i].seq;
      *ret_call = h->global[i].call;
    }
  for (size_t i = 0; i < h->ndd; i++)
    if (h->dd[i].seq >= seq && h->dd[i].seq < best && strlen (h->dd[i].dir) == dl &&
        strncmp (h->dd[i].dir, path, dl) == 0) {
      best = h->dd[i].seq;
      *ret_call = h->dd[i].call;
    }
  return best;
}
