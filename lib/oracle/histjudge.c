/* histjudge.c: judging a crash state's files against a traced program's
 * history: the versions it allows, what does not fit, and why. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/histint.h"

/* ------------------------------------------------------------------ */
/* Judging */

/* The last point at or before point from which path's name was durable:
 * a sync, its directory's fsync, a mark naming it or synced; NONE if
 * none.  *ret_call: what made it durable (UINT32_MAX: a mark). */
static uint64_t
entry_durable (const struct pc_history *h, const char *path, uint64_t point, uint64_t floor,
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
static uint64_t
data_durable (const struct pc_history *h, const struct node *n, uint64_t b, uint64_t point,
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

/* The first point at or after seq from which block b of n was durable
 * (anywhere in the recording), or NONE. */
static uint64_t
made_durable (const struct pc_history *h, const struct node *n, uint64_t b, uint64_t seq,
              uint32_t *ret_call)
{
  uint64_t best = NONE;

  *ret_call = UINT32_MAX;
  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq >= seq && h->global[i].seq < best) {
      best = h->global[i].seq;
      *ret_call = h->global[i].call;
    }
  for (size_t i = 0; i < n->nd; i++)
    if (n->d[i].first <= b && b <= n->d[i].last && n->d[i].seq >= seq && n->d[i].seq < best) {
      best = n->d[i].seq;
      *ret_call = n->d[i].call;
    }
  return best;
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
    if (pc_hist_holds (v, hash, zero))
      return BLOCK_OK;
    mapped |= v->kind == B_MAPPED;
  }
  if (at_lo && pc_hist_holds (at_lo, hash, zero))
    return BLOCK_OK;
  /* Before its first version: what the file held before the program
   * (unknown); a block the program wrote was no hole before (a crash that
   * finds zeros there found a size without its data), unless the file
   * already covered the view then (grown by a truncate or fallocate): its
   * zeros, also where a mapping wrote later.  A block it never wrote is a
   * hole: zeros. */
  if (!at_lo && seen_any &&
      (n->base || (zero && n->b[a].seq > 0 &&
                   pc_hist_size_at (n, n->b[a].seq - 1) >= b * BLOCK + len)))
    return BLOCK_OK;
  if (mapped || (at_lo && at_lo->kind == B_MAPPED))
    return BLOCK_MAPPED;
  if (at_lo || seen_any)
    return BLOCK_BAD;
  return n->base || zero ? BLOCK_OK : BLOCK_BAD;
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
static uint64_t
least_size_since (const struct node *n, uint64_t lo, uint64_t point)
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
  if (at_lo == NULL || at_lo->kind != B_HASH || pc_hist_holds (at_lo, hash, zero))
    return false;
  if (zero)
    return true;
  for (size_t i = a; i < z && &n->b[i] < at_lo; i++)
    if (n->b[i].kind == B_HASH && n->b[i].hash == hash)
      return true;
  return false;
}

/* When n's size was last set, at or before point (0: never). */
static uint64_t
size_set_by (const struct node *n, uint64_t point)
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
static uint64_t
size_needed (const struct node *n, uint64_t point, uint64_t *ret_block)
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
static bool
durably_empty (const struct pc_history *h, const struct node *n, const char *path,
               uint64_t point, uint64_t floor)
{
  uint32_t dc;
  uint64_t d = data_durable (h, n, NONE, point, floor, &dc);
  uint64_t e = entry_durable (h, path, point, floor, &dc);

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
static int
match_file (const struct pc_history *h, const struct node *n, const struct pc_entry *found,
            uint64_t point, uint64_t floor, bool from_start, uint64_t *ret_block, bool *ret_promise)
{
  uint32_t dc;
  uint64_t dsize = from_start ? NONE : data_durable (h, n, NONE, point, floor, &dc);
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
    promise = dsize != NONE && (size_set_by (n, point) <= dsize ||
                                found->size < least_size_since (n, dsize, point));
    bad = true;
  }
  if (!from_start) {
    /* too short for a range made durable: that range's blocks are lost */
    uint64_t rb, need = size_needed (n, point, &rb);
    if (found->size < need) {
      *ret_block = rb;
      promise = true;
      bad = true;
    }
  }
  for (uint64_t b = 0; b < nb; b++) {
    uint64_t len = found->size - b * BLOCK < BLOCK ? found->size - b * BLOCK : BLOCK;
    uint64_t lo = from_start ? NONE : data_durable (h, n, b, point, floor, &dc);
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

/* Did a mark declare it durable (call: what made it so), rather than a
 * call or a synced mark make it so? */
static bool
declared (const struct pc_history *h, uint32_t call)
{
  return call < h->ncalls && h->calls[call].pid == 0 &&
         strstr (h->calls[call].text, "(synced)") == NULL;
}

/* The cause of a finding on block b (NONE: the size) of n at path; the
 * call behind the version lost in *ret_call (UINT32_MAX: none known), and
 * in *ret_mapped whether a shared mapping stored it (msync keeps it). */
static int
data_cause (const struct pc_history *h, const struct node *n, const char *path, uint64_t b,
            uint64_t point, int kind, bool promise, struct pc_cause *c, uint32_t *ret_call,
            bool *ret_mapped)
{
  const struct bver *newest = NULL;
  uint32_t call = UINT32_MAX, dcall;
  uint64_t seq = 0, dseq;
  bool after;

  uint64_t upto = point;

  memset (c, 0, sizeof *c);
  c->known = true;
  c->promise = promise;
  c->durable_ns = -1;
  if (promise) {
    /* the version lost is the durable one, whatever came after it */
    uint64_t d = data_durable (h, n, b, point, NONE, &dcall);
    upto = d != NONE ? d : point;
  }
  if (b != NONE) {
    size_t a, z;
    pc_hist_block_range (n, b, &a, &z);
    for (size_t i = a; i < z && n->b[i].seq <= upto; i++)
      newest = &n->b[i];
  }
  *ret_mapped = newest && (newest->kind == B_MAPPED || newest->snap);
  if (newest) {
    call = newest->call;
    seq = newest->seq;
  }
  else
    for (size_t i = 0; i < n->ns && n->s[i].seq <= upto; i++)
      if (n->s[i].size > 0) {
        call = n->s[i].call;
        seq = n->s[i].seq;
      }
  pc_hist_cause_call (h, c, call);
  *ret_call = call;
  dseq = made_durable (h, n, b == NONE ? 0 : b, seq, &dcall);
  /* made durable only by powercut run's own sync after the command */
  after = dseq != NONE && h->command_end != NONE && dseq > h->command_end;
  if (dseq != NONE) {
    char *by = pc_hist_describe_durable (h, dcall);
    c->durable_ns = (int64_t) pc_hist_rec_time (h, dseq);
    if (after && by && asprintf (&c->durable_by, "%s (%s)", PC_CAUSE_AFTER_COMMAND, by) >= 0)
      free (by);
    else
      c->durable_by = by;
  }
  if (promise && dseq != NONE && declared (h, dcall))
    c->rule = strdup (kind == PC_V_DURABLE_LOST
                      ? "a version declared durable by a mark was rolled back: a promise broken"
                      : "data declared durable by a mark is lost: a promise broken");
  else if (promise)
    c->rule = strdup (kind == PC_V_DURABLE_LOST
                      ? "a version made durable was rolled back: the filesystem broke its promise"
                      : "data made durable is lost: the filesystem broke its promise");
  else {
    /* the file the call wrote, as it was named then (a temporary file) */
    const char *wpath = call < h->ncalls && h->calls[call].path ? h->calls[call].path : path;
    int r;
    c->rule = strdup (kind == PC_V_ZERO_LENGTH
                      ? "empty where the program had written data it never made durable "
                        "(a crash may lose what is not synced)"
                      : "data the program never made durable by the crash "
                        "(a crash may lose what is not synced)");
    if (dseq != NONE && !after)
      r = asprintf (&c->fix, "none of the program's order: it synced it %.0f ms later; "
                    "a crash in between may lose it", (double) (c->durable_ns - (int64_t) c->time_ns) / 1e6);
    else if (*ret_mapped)
      r = asprintf (&c->fix, "an msync(MS_SYNC) of the mapping of %s after that store",
                    wpath[0] ? wpath : "/");
    else
      r = asprintf (&c->fix, "an fsync of %s after that call", wpath[0] ? wpath : "/");
    if (r < 0)
      c->fix = NULL;
  }
  return c->rule ? 0 : -ENOMEM;
}

/* Is call b the one its process made next after call a (an unlink, then
 * the file made anew in its place: a replacement, as install and tar do;
 * a file deleted and, some calls later, made again, as a program
 * cleaning its scratch files does, is a deletion)? */
static bool
next_call (const struct pc_history *h, uint32_t a, uint32_t b)
{
  if (a >= h->ncalls || b >= h->ncalls || b <= a || h->calls[a].pid != h->calls[b].pid)
    return false;
  for (uint32_t k = a + 1; k < b; k++)
    if (h->calls[k].pid == h->calls[a].pid)
      return false;
  return true;
}

/* Is node y bound to a name other than p's at point (moved there)? */
static bool
bound_elsewhere (const struct pc_history *h, const struct phist *p, int64_t y, uint64_t point)
{
  for (size_t k = 0; k < h->npaths; k++) {
    const struct phist *q = &h->paths[k];
    int64_t at = -1;
    if (q == p)
      continue;
    for (size_t i = 0; i < q->ne && q->e[i].seq <= point; i++)
      at = q->e[i].node;
    if (at == y)
      return true;
  }
  return false;
}

/* Did the program give up a durable version of path by point, for n (the
 * file found at path, which lost data never made durable): a version it
 * held, name and data durable, replaced since (another file bound to the
 * name, the old one under no name any more: a rename over it, an unlink
 * and a new file made by the process's next call; or the file made
 * smaller: truncate, O_TRUNC)?  A file
 * the call moved to another name was not given up here.  The call that gave it up in
 * *ret_call, and how in *ret_how. */
enum gave { GAVE_RENAME, GAVE_UNLINK, GAVE_TRUNCATE };
static bool
gave_up (const struct pc_history *h, const struct phist *p, const char *path, int64_t n,
         uint64_t point, uint32_t *ret_call, enum gave *ret_how)
{
  for (size_t i = 0; i < p->ne && p->e[i].seq <= point; i++) {
    int64_t y = p->e[i].node;
    bool bound_after = i + 1 < p->ne && p->e[i + 1].seq <= point;
    uint64_t end = bound_after ? p->e[i + 1].seq - 1 : point, named, d;
    uint32_t dc;
    if (y < 0 || h->nodes[y].type != N_FILE)
      continue;
    /* y's data durable, and, for a version replaced by another file, the
     * name while bound to y (a file found at the name, cut since, had a
     * name that held: the state shows it) */
    d = data_durable (h, &h->nodes[y], NONE, end, NONE, &dc);
    if (d == NONE)
      continue;
    named = pc_hist_entry_made_durable (h, path, p->e[i].seq, &dc);
    if (bound_after && y != n && (named == NONE || named > end))
      continue;
    if (named == NONE || named > end)
      named = 0;
    if (bound_after && y != n) {
      if (bound_elsewhere (h, p, y, p->e[i + 1].seq))
        continue;               /* moved away (what becomes of it there is
                                 * that name's story), not given up */
      if (p->e[i + 1].node < 0 &&
          !(i + 2 < p->ne && p->e[i + 2].seq <= point && p->e[i + 2].node >= 0 &&
            next_call (h, p->e[i + 1].call, p->e[i + 2].call)))
        continue;               /* deleted, not replaced by the next call */
      *ret_call = p->e[i + 1].call;
      *ret_how = p->e[i + 1].node >= 0 ? GAVE_RENAME : GAVE_UNLINK;
      return true;
    }
    if (!bound_after && y == n) {
      const struct node *nd = &h->nodes[y];
      uint64_t was = pc_hist_size_at (nd, d > named ? d : named);
      for (size_t k = 0; k < nd->ns && nd->s[k].seq <= point; k++)
        if (nd->s[k].seq > d && nd->s[k].seq > named && nd->s[k].size < was) {
          *ret_call = nd->s[k].call;
          *ret_how = GAVE_TRUNCATE;
          return true;
        }
    }
  }
  return false;
}

/* Makes c (a loss of data never made durable, of file n at path, that
 * wcall wrote) the program's fault where it gave up a durable version
 * (gave_up). */
static int
program_cause (const struct pc_history *h, const struct phist *p, const char *path, int64_t n,
               uint64_t point, uint32_t wcall, struct pc_cause *c)
{
  static const char *const what[] = {
    [GAVE_RENAME] = "replaced it before the new data was durable, and a crash may keep neither",
    [GAVE_UNLINK] = "removed it, and the file put in its place was not durable: a crash may "
                    "keep neither",
    [GAVE_TRUNCATE] = "cut it before the new data was durable, and a crash may keep neither",
  };
  uint32_t by;
  enum gave how;
  const char *wpath;
  int r;

  if (c->promise || !gave_up (h, p, path, n, point, &by, &how))
    return 0;
  wpath = wcall < h->ncalls && h->calls[wcall].path ? h->calls[wcall].path : path;
  c->program = true;
  free (c->rule);
  free (c->fix);
  c->rule = NULL;
  c->fix = NULL;
  if (asprintf (&c->rule, "%s %s", by < h->ncalls ? h->calls[by].text : "a call", what[how]) < 0)
    return -ENOMEM;
  if (how == GAVE_RENAME && by < h->ncalls) {
    /* before the rename that put the file found there (it may come
     * after the one that gave the durable version up: sed -i twice) */
    uint32_t put = by;
    for (size_t i = 0; i < p->ne && p->e[i].seq <= point; i++)
      if (p->e[i].node == n && p->e[i].call < h->ncalls &&
          strncmp (h->calls[p->e[i].call].text, "rename", 6) == 0)
        put = p->e[i].call;
    r = asprintf (&c->fix, "an fsync of %s before %s", wpath[0] ? wpath : "/",
                  h->calls[put].text);
  }
  else
    r = asprintf (&c->fix, "write the new version to another file, fsync it, then rename it "
                  "over %s", path);
  return r < 0 ? -ENOMEM : 0;
}

/* The cause of a name found missing, or found though it was durably gone. */
static int
name_cause (const struct pc_history *h, const struct phist *p, uint64_t point, uint64_t de,
            uint32_t dcall, struct pc_history_verdict *ret)
{
  struct pc_cause *c = &ret->cause;
  uint32_t call = UINT32_MAX;

  memset (c, 0, sizeof *c);
  c->known = true;
  c->promise = true;
  c->durable_ns = (int64_t) pc_hist_rec_time (h, de);
  for (size_t i = 0; i < p->ne && p->e[i].seq <= de; i++)
    call = p->e[i].call;
  (void) point;
  ret->name = true;
  ret->call = call;
  pc_hist_cause_call (h, c, call);
  c->durable_by = pc_hist_describe_durable (h, dcall);
  c->rule = strdup (declared (h, dcall)
                    ? "a name declared durable by a mark is not what it was: a promise broken"
                    : "a name made durable (its directory synced) is not what it was: "
                      "the filesystem broke its promise");
  return c->rule ? 0 : -ENOMEM;
}

/* Is found (its inode known) another file than newest that the name may
 * be bound to at point: one bound after de, or at de?  Then it is that
 * file's versions that judge it (a rename over a file never synced, found
 * not yet done), not newest's. */
static bool
other_inode (const struct pc_history *h, const struct phist *p, uint64_t point, uint64_t de,
             int64_t at_de, int64_t newest, const struct pc_entry *found)
{
  if (found->ino == 0 || (newest >= 0 && h->nodes[newest].ino == found->ino))
    return false;
  if (at_de >= 0 && at_de != newest && h->nodes[at_de].ino == found->ino)
    return true;
  for (size_t i = 0; i < p->ne && p->e[i].seq <= point; i++) {
    int64_t n = p->e[i].node;
    if ((de == NONE || p->e[i].seq > de) && n >= 0 && n != newest &&
        h->nodes[n].type == N_FILE && h->nodes[n].ino == found->ino)
      return true;
  }
  return false;
}

/* The judgement of found at path at point, what the program had at floor
 * (NONE: none) the oldest it accepts besides what was durable. */
static int
judge (const struct pc_history *h, uint64_t point, uint64_t floor, const char *path,
       const struct pc_entry *found, struct pc_history_verdict *ret)
{
  const struct phist *p = pc_hist_find_path (h, path);
  uint32_t dcall;
  uint64_t de;
  int64_t at_de = -1, newest = -1;
  bool absent_ok = false, any = false;
  int best = -1;
  uint64_t best_block = NONE;
  bool best_promise = false;
  int64_t best_node = -1;
  const struct xver *best_xattr = NULL;

  memset (ret, 0, sizeof *ret);
  ret->call = UINT32_MAX;
  if (p == NULL)
    return 0;
  if (p->untraced) {
    ret->kind = PC_F_NOT_JUDGED;
    ret->cause.known = true;
    ret->cause.durable_ns = -1;
    ret->cause.rule = strdup ("the end of the recording pc_hist_holds there what the traced program "
                              "never had: something the tracer does not see changed it (a "
                              "process outside the traced tree, a shared mapping never "
                              "msync'd or unmapped): not judged");
    return ret->cause.rule ? 0 : -ENOMEM;
  }
  de = entry_durable (h, path, point, floor, &dcall);
  /* The name states allowed: the one at de, and every later one up to point. */
  for (size_t i = 0; i < p->ne && p->e[i].seq <= point; i++) {
    if (de != NONE && p->e[i].seq <= de) {
      at_de = p->e[i].node;
      continue;
    }
    newest = p->e[i].node;
  }
  if (de == NONE || at_de < 0)
    absent_ok = true;           /* absent then, or before anything */
  if (newest == -1) {
    /* no change after de: newest is at_de */
    bool changed_after = false;
    for (size_t i = 0; i < p->ne && p->e[i].seq <= point; i++)
      changed_after |= de == NONE || p->e[i].seq > de;
    if (!changed_after)
      newest = at_de;
  }
  for (size_t i = 0; i < p->ne && p->e[i].seq <= point; i++)
    if ((de == NONE || p->e[i].seq > de) && p->e[i].node < 0)
      absent_ok = true;
  if (found == NULL) {
    if (absent_ok)
      return 0;
    ret->kind = PC_V_MISSING;
    return name_cause (h, p, point, de, dcall, ret);
  }
  /* Empty where the program's last version had data: the seed's case,
   * even when the program passed through an empty file on its way (as
   * truncate-then-write does); but not where the file was empty when it
   * was last made durable (that empty file is the version a crash keeps),
   * nor where the name's durable file, renamed over since, was (the old
   * empty file is still there: its inode, where both are known). */
  if (found->type == PC_ENTRY_FILE && found->size == 0 && newest >= 0 &&
      h->nodes[newest].type == N_FILE && pc_hist_size_at (&h->nodes[newest], point) > 0 &&
      h->nodes[newest].lost_from > point &&
      !durably_empty (h, &h->nodes[newest], path, point, floor) &&
      !(at_de >= 0 && at_de != newest && h->nodes[at_de].type == N_FILE &&
        (found->ino == 0 || h->nodes[at_de].ino == 0 || found->ino == h->nodes[at_de].ino) &&
        durably_empty (h, &h->nodes[at_de], path, point, floor)) &&
      !other_inode (h, p, point, de, at_de, newest, found)) {
    const struct node *n = &h->nodes[newest];
    uint32_t dc;
    uint64_t d = data_durable (h, n, NONE, point, floor, &dc), rb;
    bool ranged = size_needed (n, point, &rb) > 0;
    uint32_t wcall;
    int r;
    ret->kind = PC_V_ZERO_LENGTH;
    r = data_cause (h, n, path, ranged ? rb : NONE, point, PC_V_ZERO_LENGTH,
                    ranged || (d != NONE && (size_set_by (n, point) <= d ||
                                             least_size_since (n, d, point) > 0)),
                    &ret->cause, &wcall, &ret->mapped);
    return r < 0 ? r : program_cause (h, p, path, newest, point, wcall, &ret->cause);
  }
  /* Each node the name may be bound to. */
  for (size_t i = 0; i <= p->ne; i++) {
    int64_t nodei;
    const struct node *n;
    uint64_t blk;
    bool promise;
    int k;
    if (i == p->ne)
      nodei = at_de;
    else if (p->e[i].seq > point || (de != NONE && p->e[i].seq <= de))
      continue;
    else
      nodei = p->e[i].node;
    if (nodei < 0)
      continue;
    n = &h->nodes[nodei];
    any = true;
    if (n->type == N_DIR && found->type == PC_ENTRY_DIR)
      return 0;
    if (n->type == N_LINK && found->type == PC_ENTRY_SYMLINK &&
        strcmp (n->target ? n->target : "", found->target ? found->target : "") == 0)
      return 0;
    if (n->type != N_FILE || found->type != PC_ENTRY_FILE)
      continue;
    k = match_file (h, n, found, point, floor, false, &blk, &promise);
    if (k == 0) {
      const struct xver *xv = pc_hist_xattrs_match (h, n, found, point, floor, &promise);
      if (xv == NULL)
        return 0;
      if (nodei == newest || best < 0) {
        best = promise ? PC_V_DURABLE_LOST : PC_V_MISMATCH;
        best_xattr = xv;
        best_promise = promise;
        best_node = nodei;
      }
      continue;
    }
    if (nodei == newest || best < 0) {
      best_xattr = NULL;
      best = k;
      best_block = blk;
      best_promise = promise;
      best_node = nodei;
    }
  }
  if (!any) {
    /* Something where the program's name was durably gone. */
    ret->kind = PC_V_MISMATCH;
    return name_cause (h, p, point, de, dcall, ret);
  }
  if (best < 0 || best_node < 0) {
    ret->kind = PC_V_MISMATCH;    /* another type than any the name had */
    ret->cause.known = true;
    ret->cause.durable_ns = -1;
    ret->cause.rule = strdup ("a type the name never had then");
    return ret->cause.rule ? 0 : -ENOMEM;
  }
  if (best == PC_F_NOT_JUDGED) {
    const struct node *n = &h->nodes[best_node];
    uint32_t call = n->lost_call;
    ret->kind = PC_F_NOT_JUDGED;
    ret->cause.known = true;
    ret->cause.durable_ns = -1;
    if (n->lost_from > point && best_block != NONE) {
      /* a mapping's unseen writes: the mmap behind them */
      size_t a, z;
      pc_hist_block_range (n, best_block, &a, &z);
      for (size_t i = a; i < z && n->b[i].seq <= point; i++)
        if (n->b[i].kind == B_MAPPED)
          call = n->b[i].call;
    }
    pc_hist_cause_call (h, &ret->cause, call);
    ret->cause.rule = strdup ("written where the tracer cannot follow (io_uring, Linux AIO, "
                              "another ABI, a shared mapping never msync'd or unmapped): "
                              "not judged");
    return ret->cause.rule ? 0 : -ENOMEM;
  }
  if (best_xattr) {
    ret->kind = best;
    return pc_hist_xattr_cause (h, &h->nodes[best_node], path, found, best_xattr, best_promise,
                                &ret->cause);
  }
  {
    const struct node *n = &h->nodes[best_node];
    uint64_t blk;
    bool promise;
    if (floor != NONE) {
      /* older than what the program had at floor: that version is lost */
      uint32_t wcall;
      ret->kind = best;
      return data_cause (h, n, path, best_block, floor < point ? floor : point, best, false,
                         &ret->cause, &wcall, &ret->mapped);
    }
    /* What it held before its durable point: rolled back. */
    if (best_promise && match_file (h, n, found, point, NONE, true, &blk, &promise) == 0) {
      uint32_t wcall;
      ret->kind = PC_V_DURABLE_LOST;
      return data_cause (h, n, path, best_block, point, PC_V_DURABLE_LOST, true, &ret->cause,
                         &wcall, &ret->mapped);
    }
    uint32_t wcall;
    int r;
    ret->kind = best;
    r = data_cause (h, n, path, best_block, point, best, best_promise, &ret->cause, &wcall,
                    &ret->mapped);
    return r < 0 ? r : program_cause (h, p, path, best_node, point, wcall, &ret->cause);
  }
}

int
pc_hist_judge (const struct pc_history *h, uint64_t point, const char *path,
               const struct pc_entry *found, struct pc_history_verdict *ret)
{
  return judge (h, point, NONE, path, found, ret);
}

/* A file found holding what another file the name was bound to before
 * floor held (a rename over it, not yet durable, was lost): the loss is
 * the name's, and its cause the call that bound it anew. */
static void
older_binding (const struct pc_history *h, uint64_t point, uint64_t floor, const char *path,
               const struct pc_entry *found, struct pc_history_verdict *ret)
{
  const struct phist *p = pc_hist_find_path (h, path);
  size_t last = SIZE_MAX;

  if (p == NULL || found == NULL || found->type != PC_ENTRY_FILE)
    return;
  for (size_t i = 0; i < p->ne && p->e[i].seq <= floor && p->e[i].seq <= point; i++)
    last = i;
  for (size_t j = last; last != SIZE_MAX && j-- > 0;) {
    int64_t ni = p->e[j].node;
    uint64_t blk;
    bool promise;
    if (ni < 0 || ni == p->e[last].node || h->nodes[ni].type != N_FILE ||
        match_file (h, &h->nodes[ni], found, point, NONE, true, &blk, &promise) != 0)
      continue;
    ret->name = true;
    ret->call = p->e[j + 1].call;
    free (ret->cause.call);
    ret->cause.call = NULL;
    pc_hist_cause_call (h, &ret->cause, ret->call);
    return;
  }
}

/* Does e, found at p's path, hold in a block that is not zeros what no
 * file the path was ever bound to held there (data the program never
 * wrote)?  A block of unknown content (a file there before the program,
 * a call not hashed, a mapping) could hold anything. */
static bool
foreign_data (const struct pc_history *h, const struct phist *p, const struct pc_entry *e)
{
  uint64_t nb = (e->size + BLOCK - 1) / BLOCK;

  if (e->type != PC_ENTRY_FILE || e->nblocks != nb)
    return false;
  for (uint64_t b = 0; b < nb; b++) {
    uint64_t len = e->size - b * BLOCK < BLOCK ? e->size - b * BLOCK : BLOCK;
    bool known = e->blocks[b] == pc_hist_zeros_hash (len);
    for (size_t i = 0; i < p->ne && !known; i++) {
      const struct node *n;
      size_t a, z;
      if (p->e[i].node < 0 || h->nodes[p->e[i].node].type != N_FILE)
        continue;
      n = &h->nodes[p->e[i].node];
      known = n->base || n->nsh > 0;
      pc_hist_block_range (n, b, &a, &z);
      for (size_t k = a; k < z && !known; k++)
        known = n->b[k].kind == B_UNKNOWN || n->b[k].kind == B_MAPPED ||
                (n->b[k].kind == B_HASH && n->b[k].hash == e->blocks[b]);
    }
    if (!known)
      return true;
  }
  return false;
}

/* Did the program keep at path, from floor to point, what it had there at
 * floor?  Not if the name was absent then (deleted, renamed away, not
 * made yet: whatever a state holds there is more than the program had),
 * nor if the file bound to it then is one the program moves from the
 * name later (to the name it keeps it under: that name's story) or
 * deletes by point (not replaced: an unlink and a new file by its next
 * call): a temporary name's. */
static bool
kept_at (const struct pc_history *h, uint64_t point, uint64_t floor, const char *path)
{
  const struct phist *p = pc_hist_find_path (h, path);
  int64_t at = -1;
  size_t after = 0;

  if (p == NULL)
    return true;
  for (size_t i = 0; i < p->ne && p->e[i].seq <= floor && p->e[i].seq <= point; i++) {
    at = p->e[i].node;
    after = i + 1;
  }
  if (at < 0)
    return false;
  if (after < p->ne && p->e[after].node < 0 &&
      (bound_elsewhere (h, p, at, p->e[after].seq) ||
       (p->e[after].seq <= point &&
        !(after + 1 < p->ne && p->e[after + 1].node >= 0 &&
          next_call (h, p->e[after].call, p->e[after + 1].call)))))
    return false;
  return true;
}

int
pc_hist_older (const struct pc_history *h, uint64_t point, uint64_t floor, bool kept,
               const char *path, const struct pc_entry *found, struct pc_history_verdict *ret)
{
  struct pc_cause *c = &ret->cause;
  int r;

  if (kept && !kept_at (h, point, floor, path)) {
    memset (ret, 0, sizeof *ret);
    ret->call = UINT32_MAX;
    return 0;
  }
  r = judge (h, point, floor, path, found, ret);
  if (r < 0 || ret->kind == 0)
    return r;
  if (ret->kind == PC_F_NOT_JUDGED) {
    pc_cause_clear (c);
    memset (ret, 0, sizeof *ret);
    return 0;
  }
  if (!ret->name)
    older_binding (h, point, floor, path, found, ret);
  ret->kind = PC_F_OLDER;
  c->known = true;
  c->promise = false;
  free (c->rule);
  free (c->fix);
  c->fix = NULL;
  c->rule = strdup ("older than what the program had by its last acknowledgement (a line "
                    "it printed, or a mark): "
                    "a crash may keep it, as it was not yet durable, but the application "
                    "counted on the newer version");
  if (ret->name) {
    const char *slash = strrchr (path, '/');
    uint32_t dcall;
    uint64_t dseq = ret->call < h->ncalls
                    ? pc_hist_entry_made_durable (h, path, h->calls[ret->call].seq, &dcall) : NONE;
    free (c->durable_by);
    c->durable_by = dseq == NONE ? NULL : pc_hist_describe_durable (h, dcall);
    c->durable_ns = dseq == NONE ? -1 : (int64_t) pc_hist_rec_time (h, dseq);
    int n = slash ? asprintf (&c->fix, "an fsync of the directory %.*s after that call",
                              (int) (slash - path), path)
                  : asprintf (&c->fix, "an fsync of the root directory after that call");
    if (n < 0)
      c->fix = NULL;
  }
  else if (ret->mapped
           ? asprintf (&c->fix, "an msync(MS_SYNC) of the mapping of %s after that store",
                       path) < 0
           : asprintf (&c->fix, "an fsync of %s after that call", path) < 0)
    c->fix = NULL;
  return c->rule ? 0 : -ENOMEM;
}

int
pc_hist_set_end (struct pc_history *h, uint64_t point, const struct pc_mark *end)
{
  for (size_t i = 0; end && i < h->npaths; i++) {
    struct phist *p = &h->paths[i];
    struct pc_history_verdict v;
    int r;
    p->untraced = false;
    const struct pc_entry *e = pc_mark_find (end, p->path);
    r = judge (h, point, NONE, p->path, e, &v);
    if (r < 0)
      return r;
    /* Data the program never wrote there, in a block that is not zeros:
     * someone else wrote it.  A loss (zeros, an empty file, a name gone) is judged:
     * a disk that lost data at the end lost it at the crash points too. */
    p->untraced = v.kind == PC_V_MISMATCH && !v.name && e && e->type == PC_ENTRY_FILE &&
                  e->zero_blocks < e->nblocks && foreign_data (h, p, e);
    pc_cause_clear (&v.cause);
  }
  return 0;
}
