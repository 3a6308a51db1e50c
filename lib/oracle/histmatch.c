/* histmatch.c: what a traced program's file may hold at a crash state:
 * when its names and data were last durable, the sizes and blocks it
 * allows from then on, and whether what a state holds fits them. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/histint.h"

/* The last point at or before point from which path's name was durable:
 * a sync, its directory's fsync, a mark naming it or synced; NONE if
 * none.  *ret_call: what made it durable (UINT32_MAX: a mark). */
uint64_t
pc_hist_entry_durable (const struct pc_history *h, const char *path, uint64_t point, uint64_t floor,
                       uint32_t *ret_call)
{
  const char *slash = strrchr (path, '/');
  size_t dl = slash ? (size_t) (slash - path) : 0;
  uint64_t best = NONE;

  *ret_call = UINT32_MAX;
  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq <= point && (best == NONE || h->global[i].seq > best)) {
      best = h->global[i].seq;
      *ret_call = h->global[i].call;
    }
  for (size_t i = 0; i < h->ndd; i++)
    if (h->dd[i].seq <= point && (best == NONE || h->dd[i].seq > best) &&
        strlen (h->dd[i].dir) == dl && strncmp (h->dd[i].dir, path, dl) == 0) {
      best = h->dd[i].seq;
      *ret_call = h->dd[i].call;
    }
  return pc_hist_at_floor (best, floor, point, ret_call);
}

/* The last point at or before point from which block b of n (or its size,
 * b NONE) was durable, or NONE; *ret_call what made it so. */
uint64_t
pc_hist_data_durable (const struct pc_history *h, const struct node *n, uint64_t b, uint64_t point,
                      uint64_t floor, uint32_t *ret_call)
{
  uint64_t best = NONE, born = n->ns ? n->s[0].seq : 0;

  *ret_call = UINT32_MAX;
  /* a sync before the file was made says nothing of it */
  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq <= point && h->global[i].seq >= born &&
        (best == NONE || h->global[i].seq > best)) {
      best = h->global[i].seq;
      *ret_call = h->global[i].call;
    }
  for (size_t i = 0; i < n->nd; i++) {
    const struct dpoint *d = &n->d[i];
    /* the size (b NONE) is durable by a sync of the whole file only: a
     * synchronous write or an msync of a range promises the range, and a
     * size that reaches it (size_needed), not the file's size */
    bool whole = d->first == 0 && d->last == UINT64_MAX;
    bool covers = b == NONE ? whole : d->first <= b && b <= d->last;
    if (covers && d->seq <= point && (best == NONE || d->seq > best)) {
      best = d->seq;
      *ret_call = d->call;
    }
  }
  return pc_hist_at_floor (best, floor, point, ret_call);
}

/* The first point at or after seq from which block b of n (or its size,
 * b NONE) was durable (anywhere in the recording), or NONE. */
uint64_t
pc_hist_made_durable (const struct pc_history *h, const struct node *n, uint64_t b, uint64_t seq,
                      uint32_t *ret_call)
{
  uint64_t best = NONE;

  *ret_call = UINT32_MAX;
  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq >= seq && h->global[i].seq < best) {
      best = h->global[i].seq;
      *ret_call = h->global[i].call;
    }
  for (size_t i = 0; i < n->nd; i++) {
    const struct dpoint *d = &n->d[i];
    /* as pc_hist_data_durable: a range sync makes no size durable */
    bool covers = b == NONE ? d->first == 0 && d->last == UINT64_MAX
                            : d->first <= b && b <= d->last;
    if (covers && d->seq >= seq && d->seq < best) {
      best = d->seq;
      *ret_call = d->call;
    }
  }
  return best;
}

/* Did version v of block b read as zeros up to the file's end then (a
 * block hashed short, all zeros)?  Found all zeros under a longer size it
 * holds them: what a size grown since shows past that end is zeros where
 * nothing newer was written. */
static bool
zero_view (const struct node *n, uint64_t b, const struct bver *v)
{
  uint64_t size = pc_hist_size_at (n, v->seq);

  return v->kind == B_HASH && size > b * BLOCK && size - b * BLOCK < BLOCK &&
         v->hash == pc_hist_zeros_hash (size - b * BLOCK);
}

/* Does version v of block b hold hash (zero: zeros)? */
static bool
holds (const struct node *n, uint64_t b, const struct bver *v, uint64_t hash, bool zero)
{
  return pc_hist_holds (v, hash, zero) || (zero && zero_view (n, b, v));
}

/* May block b of n hold hash (of len bytes) at point, its versions from
 * the one at lo (NONE: from the start) on?  BLOCK_OK, BLOCK_BAD, or
 * BLOCK_MAPPED: only as what a mapping may have written, unseen.
 * *ret_newest: the newest version in the window (NULL if none). */
enum { BLOCK_BAD, BLOCK_OK, BLOCK_MAPPED };
static int
block_ok (const struct node *n, uint64_t b, uint64_t hash, uint64_t len, uint64_t lo,
          uint64_t point, const struct bver **ret_newest)
{
  size_t a, z;
  const struct bver *at_lo = NULL;
  bool zero = hash == pc_hist_zeros_hash (len), seen_any = false, mapped = false;

  *ret_newest = NULL;
  pc_hist_block_range (n, b, &a, &z);
  for (size_t i = a; i < z; i++) {
    const struct bver *v = &n->b[i];
    if (v->seq > point)
      break;
    if (lo != NONE && v->seq <= lo) {
      at_lo = v;
      continue;
    }
    seen_any = true;
    *ret_newest = v;
    if (holds (n, b, v, hash, zero))
      return BLOCK_OK;
    mapped |= v->kind == B_MAPPED;
  }
  if (at_lo && holds (n, b, at_lo, hash, zero))
    return BLOCK_OK;
  /* Before its first version: what the file held before the program
   * (unknown); a block the program wrote was no hole before (a crash that
   * finds zeros there found a size without its data), unless the file
   * already covered the view then (grown by a truncate or fallocate): its
   * zeros, also where a mapping wrote later.  A block it never wrote is a
   * hole: zeros. */
  if (!at_lo && seen_any &&
      (pc_hist_in_base (n, b) || (zero && n->b[a].seq > 0 &&
                   pc_hist_size_at (n, n->b[a].seq - 1) >= b * BLOCK + len)))
    return BLOCK_OK;
  if (mapped || (at_lo && at_lo->kind == B_MAPPED))
    return BLOCK_MAPPED;
  if (at_lo || seen_any)
    return BLOCK_BAD;
  return pc_hist_in_base (n, b) || zero ? BLOCK_OK : BLOCK_BAD;
}

/* Did a call in (lo, point] move block b's neighbours (fallocate's
 * INSERT_RANGE or COLLAPSE_RANGE), and may b hold, as the blocks were
 * mapped before, what the block that now sits where it was mapped held
 * since? */
static bool
shifted (const struct node *n, uint64_t b, uint64_t hash, uint64_t len, uint64_t lo,
         uint64_t point)
{
  for (size_t i = 0; i < n->nsh && n->sh[i].seq <= point; i++) {
    const struct shift *s = &n->sh[i];
    const struct bver *newest;
    int64_t to = (int64_t) b + s->by;
    if ((lo != NONE && s->seq <= lo) || b < s->first || to < (int64_t) s->first)
      continue;
    if (block_ok (n, (uint64_t) to, hash, len, lo, point, &newest) == BLOCK_OK)
      return true;
  }
  return false;
}

/* Sizes n may have at point, from its durable one (at lo) on: is size one?
 * Where a call grew the file, also a whole number of blocks between its
 * size before and after: writeback of the new data sets the size on disk
 * to the end of each piece it wrote (ext4's i_disksize). */
static bool
size_ok (const struct node *n, uint64_t size, uint64_t lo, uint64_t point)
{
  const struct sver *at_lo = NULL;
  uint64_t prev = 0;

  if (n->ns == 0)
    return true;
  for (size_t i = 0; i < n->ns && n->s[i].seq <= point; i++) {
    if (lo != NONE && n->s[i].seq <= lo) {
      at_lo = &n->s[i];
      prev = at_lo->size;
      continue;
    }
    if (n->s[i].size == size ||
        (size % BLOCK == 0 && prev < size && size < n->s[i].size && (i > 0 || at_lo)))
      return true;
    prev = n->s[i].size;
  }
  if (at_lo)
    return at_lo->size == size;
  return size == 0;             /* before the file had a size: made empty */
}

/* The least size n had from its durable point lo on, up to point: the
 * size at lo and every size set since (UINT64_MAX: none known). */
uint64_t
pc_hist_least_size_since (const struct node *n, uint64_t lo, uint64_t point)
{
  uint64_t least = UINT64_MAX, at_lo = UINT64_MAX;

  for (size_t i = 0; i < n->ns && n->s[i].seq <= point; i++) {
    if (n->s[i].seq <= lo)
      at_lo = n->s[i].size;
    else if (n->s[i].size < least)
      least = n->s[i].size;
  }
  return at_lo < least ? at_lo : least;
}

/* Does block b of n, found holding hash (zero: zeros), hold what it held
 * before its durable point lo (an older version, or zeros where the
 * durable version is not): the durable version rolled back, whatever
 * was written over it since? */
static bool
rolled_back (const struct node *n, uint64_t b, uint64_t hash, bool zero, uint64_t lo)
{
  const struct bver *at_lo = NULL;
  size_t a, z;

  pc_hist_block_range (n, b, &a, &z);
  for (size_t i = a; i < z && n->b[i].seq <= lo; i++)
    at_lo = &n->b[i];
  if (at_lo == NULL || at_lo->kind != B_HASH || holds (n, b, at_lo, hash, zero))
    return false;
  if (zero)
    return true;
  for (size_t i = a; i < z && &n->b[i] < at_lo; i++)
    if (n->b[i].kind == B_HASH && n->b[i].hash == hash)
      return true;
  return false;
}

/* When n's size was last set, at or before point (0: never). */
uint64_t
pc_hist_size_set_by (const struct node *n, uint64_t point)
{
  uint64_t seq = 0;

  for (size_t i = 0; i < n->ns && n->s[i].seq <= point; i++)
    seq = n->s[i].seq;
  return seq;
}

/* The least size a state at point must show for n's range promises (a
 * synchronous write or an msync of a range, up to point, reaches its end
 * or the file's end then, or the smallest size a later call gave the file
 * by point); 0 if none.  *ret_block: the block at the end of the range
 * that asks the most (for the cause). */
uint64_t
pc_hist_size_needed (const struct node *n, uint64_t point, uint64_t *ret_block)
{
  uint64_t need = 0;

  *ret_block = NONE;
  for (size_t i = 0; i < n->nd; i++) {
    const struct dpoint *d = &n->d[i];
    uint64_t l;
    if (d->seq > point || (d->first == 0 && d->last == UINT64_MAX) || d->end == 0)
      continue;
    l = d->end < pc_hist_size_at (n, d->seq) ? d->end : pc_hist_size_at (n, d->seq);
    for (size_t k = 0; k < n->ns && n->s[k].seq <= point; k++)
      if (n->s[k].seq > d->seq && n->s[k].size < l)
        l = n->s[k].size;
    if (l > need) {
      need = l;
      *ret_block = (l - 1) / BLOCK;
    }
  }
  return need;
}

/* Did a call in (lo, point] overwrite block b below size while the file
 * was already that long or longer?  A crash may find the file's size from
 * before that call over the block's data from after it: what the size
 * shows of the block is then bytes no hash was taken of.  (An append,
 * which writes at or past the size it finds, changes nothing a view of
 * the older size shows: that view's hash was taken.) */
static bool
grown_over (const struct node *n, uint64_t b, uint64_t size, uint64_t lo, uint64_t point)
{
  size_t a, z;

  pc_hist_block_range (n, b, &a, &z);
  for (size_t i = a; i < z && n->b[i].seq <= point; i++) {
    const struct bver *v = &n->b[i];
    if ((lo == NONE || v->seq > lo) && v->kind == B_HASH && b * BLOCK + v->from < size &&
        v->seq > 0 && pc_hist_size_at (n, v->seq - 1) >= size)
      return true;
  }
  return false;
}

/* Did the program give up block b's durable content (its version at lo)
 * by point: a size set since that cut the file to the block's start or
 * below (a truncate, O_TRUNC)?  What the block shows then is the data
 * written since, never made durable, or what the cut left: no durable
 * byte of it is kept by any version the program had. */
static bool
cut_since (const struct node *n, uint64_t b, uint64_t lo, uint64_t point)
{
  for (size_t i = 0; i < n->ns && n->s[i].seq <= point; i++)
    if (n->s[i].seq > lo && n->s[i].size <= b * BLOCK)
      return true;
  return false;
}

/* Was n (at path) empty at the last point its size was durable before
 * point: by a sync of it, or, for a file made empty, by a sync of the
 * name that made its inode durable as it was (a new file whose directory
 * was synced while it was empty)? */
bool
pc_hist_durably_empty (const struct pc_history *h, const struct node *n, const char *path,
                       uint64_t point, uint64_t floor)
{
  uint32_t dc;
  uint64_t d = pc_hist_data_durable (h, n, NONE, point, floor, &dc);
  uint64_t e = pc_hist_entry_durable (h, path, point, floor, &dc);

  if (n->ns == 0)
    return false;
  if (d != NONE && pc_hist_size_at (n, d) == 0 && n->s[0].seq <= d)
    return true;
  return e != NONE && (d == NONE || d < e) && n->s[0].seq <= e && pc_hist_size_at (n, e) == 0;
}

/* Did a call in (lo, point] leave block b holding fewer bytes than a view
 * of len bytes shows (a truncate into the block, hashed up to the new
 * end: the call made the file smaller)?  A crash may find the older, longer size over the block written
 * since: past the new end it then shows bytes no hash was taken of (the
 * zeros the filesystem wrote there, or the old data). */
static bool
cut_under (const struct node *n, uint64_t b, uint64_t len, uint64_t lo, uint64_t point)
{
  size_t a, z;

  pc_hist_block_range (n, b, &a, &z);
  for (size_t i = a; i < z && n->b[i].seq <= point; i++) {
    const struct bver *v = &n->b[i];
    if ((lo == NONE || v->seq > lo) && v->kind == B_HASH && v->seq > 0 &&
        pc_hist_size_at (n, v->seq) < b * BLOCK + len && pc_hist_size_at (n, v->seq) < pc_hist_size_at (n, v->seq - 1))
      return true;
  }
  return false;
}

/* How found differs from n at point: 0 if it is what n had (a mix of its
 * versions since their durable points); else a finding kind, *ret_block
 * the first block at fault (NONE: the size), *ret_promise whether what
 * was lost had been made durable. */
int
pc_hist_match_file (const struct pc_history *h, const struct node *n, const struct pc_entry *found,
                    uint64_t point, uint64_t floor, bool from_start, uint64_t *ret_block,
                    bool *ret_promise)
{
  uint32_t dc;
  uint64_t dsize = from_start ? NONE : pc_hist_data_durable (h, n, NONE, point, floor, &dc);
  uint64_t nb = (found->size + BLOCK - 1) / BLOCK, unseen = NONE;
  bool all_zero = true, promise = false, bad = false;

  *ret_block = NONE;
  *ret_promise = false;
  if (n->lost_from <= point)
    return PC_F_NOT_JUDGED;
  if (found->size > 0 && found->nblocks != nb)
    return 0;                   /* its blocks were not read: nothing to judge by */
  if (!size_ok (n, found->size, dsize, point)) {
    /* a promise broken if the size last set was durable by now, or if
     * the file is shorter than its durable size and every size since:
     * the durable size lost, whatever changed the size later */
    *ret_block = NONE;
    promise = dsize != NONE && (pc_hist_size_set_by (n, point) <= dsize ||
                                found->size < pc_hist_least_size_since (n, dsize, point));
    bad = true;
  }
  if (!from_start) {
    /* too short for a range made durable: that range's blocks are lost */
    uint64_t rb, need = pc_hist_size_needed (n, point, &rb);
    if (found->size < need) {
      *ret_block = rb;
      promise = true;
      bad = true;
    }
  }
  for (uint64_t b = 0; b < nb; b++) {
    uint64_t len = found->size - b * BLOCK < BLOCK ? found->size - b * BLOCK : BLOCK;
    uint64_t lo = from_start ? NONE : pc_hist_data_durable (h, n, b, point, floor, &dc);
    const struct bver *newest, *last = NULL;
    size_t a, z;
    int k = block_ok (n, b, found->blocks[b], len, lo, point, &newest);
    if (k == BLOCK_OK)
      continue;
    /* Judged against what the program had at floor (an acknowledgement):
     * a block holding what it held before then is that much older, not
     * what a mapping may have written since, unseen. */
    if (k == BLOCK_MAPPED && floor != NONE && lo == floor &&
        rolled_back (n, b, found->blocks[b], found->blocks[b] == pc_hist_zeros_hash (len), lo))
      k = BLOCK_BAD;
    if (k == BLOCK_MAPPED) {
      if (unseen == NONE)
        unseen = b;
      continue;
    }
    if (len < BLOCK && grown_over (n, b, found->size, lo, point))
      continue;
    if (cut_under (n, b, len, lo, point))
      continue;
    if (shifted (n, b, found->blocks[b], len, lo, point))
      continue;
    if (*ret_block == NONE)
      *ret_block = b;
    all_zero &= found->blocks[b] == pc_hist_zeros_hash (len);
    /* A promise broken if what the block last held was durable by now,
     * or it holds what it held before its durable point (or zeros),
     * unless the program gave the durable content up since. */
    pc_hist_block_range (n, b, &a, &z);
    for (size_t i = a; i < z && n->b[i].seq <= point; i++)
      last = &n->b[i];
    promise |= lo != NONE && !cut_since (n, b, lo, point) &&
               (last == NULL || last->seq <= lo ||
                rolled_back (n, b, found->blocks[b], found->blocks[b] == pc_hist_zeros_hash (len), lo));
    bad = true;
  }
  *ret_promise = promise;
  if (!bad && unseen != NONE) {
    /* what a mapping may have written there, never seen: not judged */
    *ret_block = unseen;
    return PC_F_NOT_JUDGED;
  }
  if (!bad)
    return 0;
  if (*ret_block == NONE)
    return PC_V_MISMATCH;       /* the size alone */
  /* zero-filled: the whole file reads as zeros (a file only partly zeros
   * is a mismatch, as the marks judge it) */
  return all_zero && found->zero_blocks == nb ? PC_V_ZERO_FILLED : PC_V_MISMATCH;
}
