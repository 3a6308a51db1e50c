/* histver.c: every version a traced program's paths had, and which of
 * them a crash state lost: a traced program's durability windows.
 *
 * A path's versions are what it held after each call that changed it: a
 * name bound (a creation, a rename or link over it, an unlink), and every
 * call that changed the data or size of the file bound to it.  A crash
 * state keeps a version when what it holds there is that version or a
 * later one; it lost the versions after the newest one it keeps. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/histint.h"
#include "util/util.h"
#include "util/xxh.h"

/* At most so many versions of one path are followed (evenly spaced, the
 * first and the last among them), and at most so many blocks of a file
 * compared (a larger file is followed by its size). */
#define PATH_MAX_VERSIONS 512
#define MAX_BLOCKS 16384

/* A change of a file: the record of the call's entry, and the call. */
struct change {
  uint64_t seq;
  uint32_t call;
};

static int
seq_cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return (x > y) - (x < y);
}

static int
change_cmp (const void *a, const void *b)
{
  uint64_t x = ((const struct change *) a)->seq, y = ((const struct change *) b)->seq;

  return (x > y) - (x < y);
}

/* The first point at or after seq from which all of n's data was
 * durable (a sync of it or of everything), or NONE; *ret_call what. */
static uint64_t
data_made_durable (const struct pc_history *h, const struct node *n, uint64_t seq,
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
    if (n->d[i].first == 0 && n->d[i].last == UINT64_MAX && n->d[i].seq >= seq &&
        n->d[i].seq < best) {
      best = n->d[i].seq;
      *ret_call = n->d[i].call;
    }
  return best;
}

/* Adds the version (node, seq, call) of path i; its durable point is
 * when both its data and its name were durable. */
static int
add_version (struct pc_history *h, size_t *cap, const struct phist *p, int64_t node,
             uint64_t bound, uint64_t seq, uint32_t call)
{
  uint32_t ncall = UINT32_MAX, dcall = UINT32_MAX;
  uint64_t name = pc_hist_entry_made_durable (h, p->path, bound, &ncall), d = name;

  if (node >= 0 && h->nodes[node].type == N_FILE) {
    uint64_t data = data_made_durable (h, &h->nodes[node], seq, &dcall);
    d = name == NONE || data == NONE ? NONE : name > data ? name : data;
    if (data != NONE && data >= name)
      ncall = dcall;
  }
  if (pc_grow (&h->ver, cap, h->nver + 1, sizeof *h->ver, 64) < 0)
    return -ENOMEM;
  h->ver[h->nver++] = (struct hver) { node, seq, call, d, ncall };
  return 0;
}

/* Was there a moment in [v's call, to) that asked v to last: a sync of
 * everything, a mark, a sync of v's file (a range too) or of path's
 * directory? */
static bool
mattered (const struct pc_history *h, const char *path, const struct hver *v, uint64_t to)
{
  const char *slash = strrchr (path, '/');
  size_t dl = slash ? (size_t) (slash - path) : 0;

  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq >= v->seq && h->global[i].seq < to)
      return true;
  for (size_t i = 0; i < h->ncalls; i++)
    if (h->calls[i].pid == 0 && h->calls[i].seq >= v->seq && h->calls[i].seq < to)
      return true;              /* a mark */
  for (size_t i = 0; i < h->ndd; i++)
    if (h->dd[i].seq >= v->seq && h->dd[i].seq < to && strlen (h->dd[i].dir) == dl &&
        strncmp (h->dd[i].dir, path, dl) == 0)
      return true;
  if (v->node >= 0)
    for (size_t i = 0; i < h->nodes[v->node].nd; i++)
      if (h->nodes[v->node].d[i].seq >= v->seq && h->nodes[v->node].d[i].seq < to)
        return true;
  return false;
}

/* The versions of p: every binding, and every change of a file bound. */
static int
path_versions (struct pc_history *h, size_t *cap, const struct phist *p, struct change **seqs,
               size_t *seqcap)
{
  size_t first = h->nver;

  for (size_t i = 0; i < p->ne; i++) {
    int64_t ni = p->e[i].node;
    uint64_t to = i + 1 < p->ne ? p->e[i + 1].seq : NONE;
    const struct node *n;
    size_t ns = 0;
    if (i > 0 && p->e[i - 1].node == ni && p->e[i - 1].seq == p->e[i].seq)
      continue;
    /* a file or a symbolic link, or the absence of one (not a directory) */
    if (ni >= 0 ? h->nodes[ni].type != N_DIR : h->nver > first)
      if (add_version (h, cap, p, ni, p->e[i].seq, p->e[i].seq, p->e[i].call) < 0)
        return -ENOMEM;
    if (ni < 0 || h->nodes[ni].type != N_FILE)
      continue;
    n = &h->nodes[ni];
    /* the seqs of its changes while bound here, each once */
    if (pc_grow (seqs, seqcap, n->nb + n->ns + 1, sizeof **seqs, 64) < 0)
      return -ENOMEM;
    for (size_t k = 0; k < n->nb; k++)
      if (n->b[k].kind != B_MAPPED && n->b[k].seq > p->e[i].seq && n->b[k].seq < to)
        (*seqs)[ns++] = (struct change) { n->b[k].seq, n->b[k].call };
    for (size_t k = 0; k < n->ns; k++)
      if (n->s[k].seq > p->e[i].seq && n->s[k].seq < to)
        (*seqs)[ns++] = (struct change) { n->s[k].seq, n->s[k].call };
    if (ns > 1)
      qsort (*seqs, ns, sizeof **seqs, change_cmp);
    for (size_t k = 0; k < ns; k++) {
      if (k > 0 && (*seqs)[k].seq == (*seqs)[k - 1].seq)
        continue;
      if (add_version (h, cap, p, ni, p->e[i].seq, (*seqs)[k].seq, (*seqs)[k].call) < 0)
        return -ENOMEM;
    }
  }
  /* Only the versions that mattered: the last, and each one that was
   * what the path held at a sync, a mark or a sync of the file or of its
   * directory (a version a later call replaced before any of them was
   * never asked to last). */
  {
    size_t kept = first;
    for (size_t v = first; v < h->nver; v++)
      if (v + 1 == h->nver || mattered (h, p->path, &h->ver[v], h->ver[v + 1].seq))
        h->ver[kept++] = h->ver[v];
    h->nver = kept;
  }
  /* Too many: keep PATH_MAX_VERSIONS of them, evenly spaced. */
  if (h->nver - first > PATH_MAX_VERSIONS) {
    size_t n = h->nver - first;
    for (size_t k = 0; k < PATH_MAX_VERSIONS; k++)
      h->ver[first + k] = h->ver[first + k * (n - 1) / (PATH_MAX_VERSIONS - 1)];
    h->nver = first + PATH_MAX_VERSIONS;
  }
  return 0;
}

int
pc_hist_versions_build (struct pc_history *h)
{
  struct change *seqs = NULL;
  size_t cap = 0, seqcap = 0;
  int r = 0;

  h->vstart = malloc ((h->npaths + 1) * sizeof *h->vstart);
  if (h->vstart == NULL)
    return -ENOMEM;
  /* each file's block versions' records, ascending, once each */
  for (size_t i = 0; i < h->nnodes; i++) {
    struct node *n = &h->nodes[i];
    if (n->nb == 0)
      continue;
    if ((n->bseq = malloc (n->nb * sizeof *n->bseq)) == NULL)
      return -ENOMEM;
    for (size_t k = 0; k < n->nb; k++)
      n->bseq[k] = n->b[k].seq;
    qsort (n->bseq, n->nb, sizeof *n->bseq, seq_cmp);
    n->nbseq = 0;
    for (size_t k = 0; k < n->nb; k++)
      if (n->nbseq == 0 || n->bseq[n->nbseq - 1] != n->bseq[k])
        n->bseq[n->nbseq++] = n->bseq[k];
  }
  for (size_t i = 0; i < h->npaths && r == 0; i++) {
    h->vstart[i] = h->nver;
    r = path_versions (h, &cap, &h->paths[i], &seqs, &seqcap);
  }
  h->vstart[h->npaths] = h->nver;
  free (seqs);
  if (r == 0 && (h->pubv = calloc (h->nver ? h->nver : 1, sizeof *h->pubv)) == NULL)
    r = -ENOMEM;
  for (size_t i = 0; r == 0 && i < h->npaths; i++)
    for (size_t v = h->vstart[i]; v < h->vstart[i + 1]; v++) {
      const struct hver *hv = &h->ver[v];
      struct pc_history_version *pv = &h->pubv[v];
      pv->path = h->paths[i].path;
      pv->record = hv->seq;
      pv->call = hv->call < h->ncalls ? h->calls[hv->call].text : "the tree before the program";
      pv->durable_record = hv->durable;
      pv->durable_by = hv->durable == NONE ? NULL
                       : hv->dcall < h->ncalls ? h->calls[hv->dcall].text : "a mark";
    }
  return r;
}

/* May block b of n hold hash (of len bytes) as of seq or after, up to
 * point? */
static bool
block_kept (const struct node *n, uint64_t b, uint64_t hash, uint64_t len, uint64_t seq,
            uint64_t point)
{
  bool zero = hash == pc_hist_zeros_hash (len);
  size_t a, z, from;

  pc_hist_block_range (n, b, &a, &z);
  for (from = a; from < z && n->b[from].seq <= seq; from++)
    ;
  if (from == a) {
    /* no version by seq: a hole (zeros), or what was there before */
    if (zero || pc_hist_in_base (n, b))
      return true;
  }
  else
    from--;                     /* the version in effect at seq */
  for (size_t k = from; k < z && n->b[k].seq <= point; k++)
    if (pc_hist_holds (&n->b[k], hash, zero) || n->b[k].kind == B_MAPPED)
      return true;
  return false;
}

/* Does found hold version v, or a later one, as of point? */
static bool
holds_version (const struct pc_history *h, const struct hver *v, const struct pc_entry *found,
               uint64_t point)
{
  const struct node *n;
  uint64_t size, before, nb, check;

  if (v->node < 0)
    return found == NULL;
  if (found == NULL)
    return false;
  n = &h->nodes[v->node];
  if (n->type == N_DIR)
    return found->type == PC_ENTRY_DIR;
  if (n->type == N_LINK)
    return found->type == PC_ENTRY_SYMLINK &&
           strcmp (n->target ? n->target : "", found->target ? found->target : "") == 0;
  if (found->type != PC_ENTRY_FILE)
    return false;
  if (n->lost_from <= point)
    return true;                /* not judged: nothing known lost */
  size = pc_hist_size_at (n, v->seq);
  before = v->seq > 0 ? pc_hist_size_at (n, v->seq - 1) : 0;
  /* a smaller size is part of the version (a truncate); a larger one may
   * be a later version's */
  if (size < before ? found->size != size : found->size < size)
    return false;
  nb = (found->size + BLOCK - 1) / BLOCK;
  if (found->size > 0 && found->nblocks != nb)
    return true;                /* its blocks were not read */
  /* its whole blocks, and its last one if the size is the version's */
  check = found->size == size ? (size + BLOCK - 1) / BLOCK : size / BLOCK;
  if (check > MAX_BLOCKS)
    return true;
  for (uint64_t b = 0; b < check; b++) {
    uint64_t len = found->size - b * BLOCK < BLOCK ? found->size - b * BLOCK : BLOCK;
    if (!block_kept (n, b, found->blocks[b], len, v->seq, point))
      return false;
  }
  return true;
}

/* Does found hold version v of path p, or a later one, as of point: v
 * itself, or a file bound to the name after v and before the next
 * version followed (upto): a binding no sync asked to last is not
 * followed as a version of its own, yet a state holding it holds
 * something newer than v? */
static bool
holds_from (const struct pc_history *h, const struct phist *p, const struct hver *v,
            uint64_t upto, const struct pc_entry *found, uint64_t point)
{
  if (holds_version (h, v, found, point))
    return true;
  for (size_t i = 0; i < p->ne && p->e[i].seq < upto && p->e[i].seq <= point; i++) {
    struct hver b = { p->e[i].node, p->e[i].seq, p->e[i].call, NONE, UINT32_MAX };
    if (p->e[i].seq > v->seq && p->e[i].node != v->node && holds_version (h, &b, found, point))
      return true;
  }
  return false;
}

/* Did any file of the versions [a, z) change (a block, or what the tracer
 * lost of it) between points x and y? */
static bool
unchanged (const struct pc_history *h, size_t a, size_t z, uint64_t x, uint64_t y)
{
  uint64_t lo = x < y ? x : y, hi = x < y ? y : x;

  for (size_t v = a; v < z; v++) {
    const struct node *n;
    if (h->ver[v].node < 0 || (v > a && h->ver[v].node == h->ver[v - 1].node))
      continue;
    n = &h->nodes[h->ver[v].node];
    if ((n->lost_from > lo && n->lost_from <= hi) ||
        pc_hist_count_upto (n->bseq, n->nbseq, hi) != pc_hist_count_upto (n->bseq, n->nbseq, lo))
      return false;
  }
  return true;
}

/* What a path was found as, in short: states one after another mostly
 * find a path as before, with no version of it in between. */
static void
found_key (const struct pc_entry *f, struct vkey *k)
{
  memset (k, 0, sizeof *k);
  if (f == NULL)
    return;
  k->present = true;
  k->type = f->type;
  k->size = f->size;
  memcpy (k->hash, f->hash, sizeof k->hash);
  k->target = f->target ? XXH3_64bits (f->target, strlen (f->target)) : 0;
}

void
pc_hist_lost (const struct pc_history *h, uint64_t point, size_t i,
                 const struct pc_entry *found, pc_history_lost_fn *fn, void *ctx)
{
  struct pc_history *mh = (struct pc_history *) h;       /* its cache only */
  struct vcache *vc;
  struct vkey key;
  size_t a, z, hi, kept;

  if (i >= h->npaths || h->paths[i].untraced || h->vstart == NULL)
    return;
  /* the versions up to point: [a, z) */
  a = z = h->vstart[i];
  for (hi = h->vstart[i + 1]; z < hi;) {
    size_t mid = z + (hi - z) / 2;
    if (h->ver[mid].seq <= point)
      z = mid + 1;
    else
      hi = mid;
  }
  if (z == a)
    return;
  if (h->vcache == NULL && !h->plain)
    mh->vcache = calloc (h->npaths, sizeof *h->vcache);
  vc = h->vcache ? &h->vcache[i] : NULL;
  found_key (found, &key);
  /* The same versions by then, found the same (and no file lost to a
   * call the tracer cannot follow since): the same answer.  A version's
   * blocks may hold later data up to point, so the answer rests on the
   * blocks' versions up to point too: only reused where none is newer
   * than the newest version (z). */
  if (vc && vc->valid && vc->z == z && memcmp (&vc->key, &key, sizeof key) == 0 &&
      unchanged (h, a, z, vc->upto, point))
    kept = vc->kept;
  else {
    /* the newest version it keeps: the ones before are kept with it */
    for (kept = z; kept > a &&
                   !holds_from (h, &h->paths[i], &h->ver[kept - 1],
                                kept < z ? h->ver[kept].seq : NONE, found, point); kept--)
      ;
    if (vc)
      *vc = (struct vcache) { true, z, kept, point, key };
  }
  for (size_t v = kept; v < z; v++)
    fn (ctx, v);
}

int
pc_history_content_at (const struct pc_history *h, uint64_t at, const char *path,
                       struct pc_history_content *ret)
{
  const struct phist *p = pc_hist_find_path (h, path);
  const struct node *n;
  int64_t ni = -1;
  uint64_t nb;

  memset (ret, 0, sizeof *ret);
  if (p == NULL)
    return 0;
  for (size_t i = 0; i < p->ne && p->e[i].seq <= at; i++)
    ni = p->e[i].node;
  ret->known = true;
  if (ni < 0)
    return 0;                   /* absent then */
  n = &h->nodes[ni];
  ret->present = true;
  if (n->type != N_FILE || n->base || n->lost_from <= at) {
    ret->known = false;
    return 0;
  }
  ret->size = pc_hist_size_at (n, at);
  nb = (ret->size + BLOCK - 1) / BLOCK;
  if (nb == 0)
    return 0;
  ret->hashes = calloc (nb, sizeof *ret->hashes);
  ret->zero = calloc (nb, sizeof *ret->zero);
  if (ret->hashes == NULL || ret->zero == NULL) {
    pc_history_content_free (ret);
    return -ENOMEM;
  }
  for (uint64_t b = 0; b < nb && ret->known; b++) {
    const struct bver *v = NULL;
    size_t a, z;
    pc_hist_block_range (n, b, &a, &z);
    for (size_t i = a; i < z && n->b[i].seq <= at; i++)
      if (n->b[i].kind != B_MAPPED || !n->b[i].snap)
        v = &n->b[i];
    if (v == NULL || v->kind == B_ZERO)
      ret->zero[b] = true;      /* never written, or made zeros: a hole */
    else if (v->kind == B_HASH)
      ret->hashes[b] = v->hash;
    else
      ret->known = false;       /* unknown, or a mapping's unseen writes */
  }
  return 0;
}

void
pc_history_content_free (struct pc_history_content *c)
{
  free (c->hashes);
  free (c->zero);
  c->hashes = NULL;
  c->zero = NULL;
}
