/* histbuild.c: a traced program's history of every path, built from the
 * events (and marks) of a log. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "format/acl.h"
#include "format/log.h"
#include "format/mark.h"
#include "oracle/histint.h"
#include "util/util.h"

/* The history of path (made if need be), or NULL without memory.  While
 * building, paths are unsorted and looked up linearly from the end: a
 * program touches few names at a time. */
static struct phist *
phist (struct pc_history *h, const char *path)
{
  for (size_t i = h->npaths; i-- > 0;)
    if (strcmp (h->paths[i].path, path) == 0)
      return &h->paths[i];
  if (pc_grow (&h->paths, &h->cappaths, h->npaths + 1, sizeof *h->paths, 64) < 0)
    return NULL;
  memset (&h->paths[h->npaths], 0, sizeof *h->paths);
  if ((h->paths[h->npaths].path = strdup (path)) == NULL)
    return NULL;
  return &h->paths[h->npaths++];
}

/* The node a path is bound to now, or -1. */
static int64_t
bound (const struct pc_history *h, const char *path)
{
  for (size_t i = h->npaths; i-- > 0;)
    if (strcmp (h->paths[i].path, path) == 0)
      return h->paths[i].ne ? h->paths[i].e[h->paths[i].ne - 1].node : -1;
  return -1;
}

static int
bind (struct pc_history *h, const char *path, int64_t node, uint64_t seq, uint32_t call)
{
  struct phist *p = phist (h, path);

  if (p == NULL || pc_grow (&p->e, &p->cape, p->ne + 1, sizeof *p->e, 4) < 0)
    return -ENOMEM;
  p->e[p->ne++] = (struct ever) { seq, node, call };
  return 0;
}

static int64_t
new_node (struct pc_history *h, uint8_t type, uint64_t ino)
{
  if (pc_grow (&h->nodes, &h->capnodes, h->nnodes + 1, sizeof *h->nodes, 64) < 0)
    return -ENOMEM;
  memset (&h->nodes[h->nnodes], 0, sizeof *h->nodes);
  h->nodes[h->nnodes].type = type;
  h->nodes[h->nnodes].ino = ino;
  h->nodes[h->nnodes].lost_from = NONE;
  h->nodes[h->nnodes].mapped_from = NONE;
  return (int64_t) h->nnodes++;
}

static int64_t
node_of_ino (const struct pc_history *h, uint64_t ino)
{
  for (size_t i = h->nnodes; ino && i-- > 0;)
    if (h->nodes[i].ino == ino && h->nodes[i].type == N_FILE)
      return (int64_t) i;
  return -1;
}

static int
add_block (struct node *n, uint64_t block, uint64_t seq, uint8_t kind, uint64_t hash,
           uint32_t call)
{
  if (pc_grow (&n->b, &n->capb, n->nb + 1, sizeof *n->b, 16) < 0)
    return -ENOMEM;
  n->b[n->nb++] = (struct bver) { block, seq, hash, call, 0, kind, false };
  if (block >= n->hiblock)
    n->hiblock = block + 1;
  return 0;
}

static uint64_t
cur_size (const struct node *n)
{
  return n->ns ? n->s[n->ns - 1].size : 0;
}

static int
set_size (struct node *n, uint64_t seq, uint64_t size, uint32_t call)
{
  if (n->ns && n->s[n->ns - 1].size == size)
    return 0;
  if (pc_grow (&n->s, &n->caps, n->ns + 1, sizeof *n->s, 8) < 0)
    return -ENOMEM;
  n->s[n->ns++] = (struct sver) { seq, size, call };
  return 0;
}

static int
add_durable (struct node *n, uint64_t seq, uint64_t first, uint64_t last, uint32_t call,
             bool meta)
{
  if (pc_grow (&n->d, &n->capd, n->nd + 1, sizeof *n->d, 8) < 0)
    return -ENOMEM;
  n->d[n->nd++] = (struct dpoint) { seq, first, last, UINT64_MAX, call, meta };
  n->synced = true;
  return 0;
}

/* The byte range [off, off + len) durable from seq on: its blocks, and a
 * size that reaches its end. */
static int
add_durable_range (struct node *n, uint64_t seq, uint64_t off, uint64_t len, uint32_t call)
{
  uint64_t end = off + (len ? len : 1);

  if (add_durable (n, seq, off / BLOCK, (end - 1) / BLOCK, call, false) < 0)
    return -ENOMEM;
  n->d[n->nd - 1].end = off + len;
  return 0;
}

/* "/a/b" (from the root) as manifests name it: "a/b"; "" for the root. */
static const char *
rel (const char *p)
{
  while (*p == '/')
    p++;
  return p;
}

static int
add_call (struct pc_history *h, uint64_t seq, const struct pc_event *ev, uint32_t *ret)
{
  if (pc_grow (&h->calls, &h->capcalls, h->ncalls + 1, sizeof *h->calls, 64) < 0)
    return -ENOMEM;
  h->calls[h->ncalls] = (struct call) { seq, seq, h->ix->recs[seq].time_ns, ev->pid,
                                        strdup (ev->text), NULL };
  if (h->calls[h->ncalls].text == NULL ||
      (*rel (ev->path[0]) && (h->calls[h->ncalls].path = strdup (rel (ev->path[0]))) == NULL)) {
    free (h->calls[h->ncalls].text);
    return -ENOMEM;
  }
  *ret = (uint32_t) h->ncalls++;
  return 0;
}

/* The file node an event is about: by its inode, else by the name. */
static int64_t
event_node (struct pc_history *h, const struct pc_event *ev, const char *path)
{
  int64_t n = -1;

  if (ev->flags & PC_EVENT_F_IDENTITY)
    n = node_of_ino (h, ev->ino);
  if (n < 0 && path[0])
    n = bound (h, rel (path));
  if (n >= 0 && h->nodes[n].type == N_FILE && h->nodes[n].ino == 0 &&
      (ev->flags & PC_EVENT_F_IDENTITY))
    h->nodes[n].ino = ev->ino;  /* a file the first mark named, now known */
  return n >= 0 && h->nodes[n].type == N_FILE ? n : -1;
}

/* The blocks [first, first + n) changed by a call at seq (the file old
 * bytes long before it): their hashes, or unknown. */
static int
put_hashes (struct node *nd, const struct pc_event *ev, uint64_t old, uint64_t seq,
            uint32_t call)
{
  /* a mapped file's content seen by a call that does not change it */
  bool snap = ev->op == PC_OP_MSYNC || ev->op == PC_OP_MUNMAP || ev->op == PC_OP_MREMAP ||
              ev->op == PC_OP_FSYNC || ev->op == PC_OP_FDATASYNC;
  size_t first = nd->nb;

  /* where the call's change begins: its bytes, or the gap it left past
   * the old end (which reads as zeros) */
  uint64_t lo = ev->offset < old ? ev->offset : old;

  for (uint32_t i = 0; i < ev->nhashes; i++) {
    uint64_t start = (ev->first_block + i) * BLOCK;
    if (add_block (nd, ev->first_block + i, seq, B_HASH, ev->hashes[i], call) < 0)
      return -ENOMEM;
    /* where the change begins in the block (a write, a copy) */
    if ((ev->op == PC_OP_WRITE || ev->op == PC_OP_COPY) && lo > start)
      nd->b[nd->nb - 1].from = (uint32_t) (lo - start < BLOCK ? lo - start : BLOCK - 1);
  }
  if (ev->flags & (PC_EVENT_F_UNHASHED | PC_EVENT_F_HASHES_CUT)) {
    uint64_t a = ev->first_block + ev->nhashes;
    uint64_t b = (ev->offset + ev->length + BLOCK - 1) / BLOCK;
    for (uint64_t k = a; k < b && k < a + PC_EVENT_HASHES_MAX; k++)
      if (add_block (nd, k, seq, B_UNKNOWN, 0, call) < 0)
        return -ENOMEM;
  }
  for (size_t i = first; snap && i < nd->nb; i++)
    nd->b[i].snap = true;
  return 0;
}

/* Blocks [a, b) of nd read as zeros from seq on (a file grown past them).
 * A block that never had a version needs none: without one, it reads as
 * a hole (histjudge.c), so a file grown by a gigabyte costs nothing. */
static int
zeros (struct node *nd, uint64_t a, uint64_t b, uint64_t seq, uint32_t call)
{
  if (b > nd->hiblock)
    b = nd->hiblock;
  for (uint64_t k = a; k < b && k < a + PC_EVENT_HASHES_MAX; k++)
    if (add_block (nd, k, seq, B_ZERO, 0, call) < 0)
      return -ENOMEM;
  return 0;
}

/* Renames every name under from (and from itself) to under to. */
static int
move_names (struct pc_history *h, const char *from, const char *to, uint64_t seq,
            uint32_t call, bool exchange)
{
  size_t fl = strlen (from), n = h->npaths;
  int64_t a = bound (h, from), b = bound (h, to);
  int r = 0;

  /* Names under a directory move with it. */
  for (size_t i = 0; i < n && r == 0; i++) {
    struct phist *p = &h->paths[i];
    int64_t cur = p->ne ? p->e[p->ne - 1].node : -1;
    char *nn;
    if (cur < 0 || strncmp (p->path, from, fl) != 0 || p->path[fl] != '/')
      continue;
    if (asprintf (&nn, "%s%s", to, p->path + fl) < 0)
      return -ENOMEM;
    r = bind (h, p->path, -1, seq, call);
    if (r == 0)
      r = bind (h, nn, cur, seq, call);
    free (nn);
  }
  if (r == 0)
    r = bind (h, to, a, seq, call);
  if (r == 0)
    r = bind (h, from, exchange ? b : -1, seq, call);
  return r;
}

/* One call's effects, at its exit event ev (entry at seq, exit at xseq). */
static int
apply (struct pc_history *h, const struct pc_event *ev, uint64_t seq, uint64_t xseq,
       uint32_t call)
{
  const char *p0 = rel (ev->path[0]), *p1 = rel (ev->path[1]);
  int64_t n;
  struct node *nd;

  if (ev->result < 0 && !(ev->flags & PC_EVENT_F_LOST))
    return 0;                   /* a call that failed changed nothing */
  switch (ev->op) {
  case PC_OP_OPEN: {
    const char *real = ev->path[1][0] ? p1 : p0;
    /* A file it created is a new one, whatever inode number it reuses
     * (a file gone since may have had it). */
    bool created = (ev->arg_flags & O_CREAT) && ((ev->arg_flags & O_EXCL) || bound (h, real) < 0);
    bool fresh = false;
    n = !created && (ev->flags & PC_EVENT_F_IDENTITY) ? node_of_ino (h, ev->ino) : -1;
    if (n < 0 && !created)
      n = bound (h, real);
    if (n < 0 || h->nodes[n].type != N_FILE) {
      n = new_node (h, N_FILE, (ev->flags & PC_EVENT_F_IDENTITY) ? ev->ino : 0);
      if (n < 0)
        return (int) n;
      fresh = true;
    }
    if (bound (h, real) != n && bind (h, real, n, seq, call) < 0)
      return -ENOMEM;
    nd = &h->nodes[n];
    if (ev->arg_flags & O_TRUNC)
      return set_size (nd, seq, 0, call);
    if (nd->ns == 0 && (ev->flags & PC_EVENT_F_SIZE)) {
      /* a file that was there, not made by the program: blocks it never
       * saw written hold what they held */
      if (fresh && ev->size > 0)
        nd->base = true;
      return set_size (nd, seq, ev->size, call);
    }
    return 0;
  }
  case PC_OP_WRITE:
  case PC_OP_COPY:
  case PC_OP_TRUNCATE:
  case PC_OP_FALLOCATE:
  case PC_OP_MSYNC:
  case PC_OP_MUNMAP:
  case PC_OP_MREMAP: {
    uint64_t old;
    n = event_node (h, ev, ev->path[0]);
    if (n < 0)
      return 0;                 /* not a file the history follows */
    nd = &h->nodes[n];
    if (ev->op == PC_OP_MSYNC || ev->op == PC_OP_MUNMAP || ev->op == PC_OP_MREMAP)
      nd->mapped_from = NONE;   /* what the mapping wrote is seen */
    old = cur_size (nd);
    if (put_hashes (nd, ev, old, seq, call) < 0)
      return -ENOMEM;
    if (ev->op == PC_OP_FALLOCATE &&
        (ev->arg_flags & (FALLOC_FL_INSERT_RANGE | FALLOC_FL_COLLAPSE_RANGE))) {
      /* the blocks moved: until that is durable, a crash may find them
       * where they were, holding what was written where they are now */
      int64_t by = (int64_t) (ev->length / BLOCK);
      if (pc_grow (&nd->sh, &nd->capsh, nd->nsh + 1, sizeof *nd->sh, 4) < 0)
        return -ENOMEM;
      nd->sh[nd->nsh++] = (struct shift) { seq, ev->offset / BLOCK,
                                           ev->arg_flags & FALLOC_FL_INSERT_RANGE ? by : -by };
    }
    /* fallocate's ZERO_RANGE across a partial last block: the new size
     * may be committed before the block's bytes it zeroed below the old
     * end are, so until that is durable the block may show its old bytes
     * and zeros past them, which no hash was taken of: not judged then
     * (the version sorts before the call's hash, which judges it after) */
    if (ev->op == PC_OP_FALLOCATE && (ev->arg_flags & FALLOC_FL_ZERO_RANGE) &&
        (ev->flags & PC_EVENT_F_SIZE) && ev->size > old && old % BLOCK && ev->offset < old &&
        add_block (nd, old / BLOCK, seq, B_UNKNOWN, 0, call) < 0)
      return -ENOMEM;
    /* grown past a partial last block the call did not hash: that
     * block's tail now reads as zeros, its hash unknown */
    if ((ev->flags & PC_EVENT_F_SIZE) && ev->size > old && old % BLOCK &&
        (old / BLOCK < ev->first_block || old / BLOCK >= ev->first_block + ev->nhashes) &&
        add_block (nd, old / BLOCK, seq, B_UNKNOWN, 0, call) < 0)
      return -ENOMEM;
    if (ev->flags & PC_EVENT_F_SIZE) {
      uint64_t nb = (ev->size + BLOCK - 1) / BLOCK, ob = (old + BLOCK - 1) / BLOCK;
      /* grown: the blocks past the old end the call did not write read
       * as zeros */
      for (uint64_t k = ob; k < nb && k < ob + PC_EVENT_HASHES_MAX; k++)
        if ((k < ev->first_block || k >= ev->first_block + ev->nhashes) &&
            zeros (nd, k, k + 1, seq, call) < 0)
          return -ENOMEM;
      if (set_size (nd, seq, ev->size, call) < 0)
        return -ENOMEM;
    }
    if ((ev->op == PC_OP_WRITE || ev->op == PC_OP_COPY) &&
        ((ev->fd_flags & (PC_FD_SYNC | PC_FD_DSYNC)) || (ev->arg_flags & (RWF_DSYNC | RWF_SYNC)))) {
      /* O_SYNC, O_DSYNC, RWF_DSYNC, RWF_SYNC: the range, at its return */
      if (add_durable_range (nd, xseq, ev->offset, ev->length, call) < 0)
        return -ENOMEM;
    }
    if (ev->op == PC_OP_MSYNC && (ev->arg_flags & MS_SYNC) &&
        add_durable_range (nd, xseq, ev->offset, ev->length, call) < 0)
      return -ENOMEM;
    return 0;
  }
  case PC_OP_MMAP: {
    /* What the mapping writes is seen only at msync or munmap: until
     * then, its blocks may hold anything. */
    n = event_node (h, ev, ev->path[0]);
    if (n < 0 || !(ev->mode & PROT_WRITE))
      return 0;
    nd = &h->nodes[n];
    if (nd->mapped_from == NONE) {
      nd->mapped_from = seq;
      nd->mapped_call = call;
    }
    for (uint64_t k = ev->offset / BLOCK; k <= (ev->offset + ev->length - 1) / BLOCK &&
         k < ev->offset / BLOCK + PC_EVENT_HASHES_MAX && ev->length; k++)
      if (add_block (nd, k, seq, B_MAPPED, 0, call) < 0)
        return -ENOMEM;
    return 0;
  }
  case PC_OP_RENAME:
    if (!p0[0] || !p1[0])
      return 0;
    return move_names (h, p0, p1, seq, call, (ev->arg_flags & RENAME_EXCHANGE) != 0);
  case PC_OP_LINK:
    n = bound (h, p0);
    return n >= 0 ? bind (h, p1, n, seq, call) : 0;
  case PC_OP_SYMLINK:
    n = new_node (h, N_LINK, 0);
    if (n < 0)
      return (int) n;
    if ((h->nodes[n].target = strdup (ev->path[1])) == NULL)
      return -ENOMEM;
    return bind (h, p0, n, seq, call);
  case PC_OP_MKDIR:
    n = new_node (h, N_DIR, 0);
    return n < 0 ? (int) n : bind (h, p0, n, seq, call);
  case PC_OP_UNLINK:
  case PC_OP_RMDIR:
    return bind (h, p0, -1, seq, call);
  case PC_OP_FSYNC:
  case PC_OP_FDATASYNC: {
    int64_t d = bound (h, p0);
    if (d >= 0 && h->nodes[d].type == N_DIR) {
      if (pc_grow (&h->dd, &h->capdd, h->ndd + 1, sizeof *h->dd, 8) < 0 ||
          (h->dd[h->ndd].dir = strdup (p0)) == NULL)
        return -ENOMEM;
      h->dd[h->ndd].seq = xseq;
      h->dd[h->ndd++].call = call;
      return 0;
    }
    if (p0[0] == '\0' && ev->path[0][0] == '/') {
      /* the root directory itself */
      if (pc_grow (&h->dd, &h->capdd, h->ndd + 1, sizeof *h->dd, 8) < 0 ||
          (h->dd[h->ndd].dir = strdup ("")) == NULL)
        return -ENOMEM;
      h->dd[h->ndd].seq = xseq;
      h->dd[h->ndd++].call = call;
      return 0;
    }
    n = event_node (h, ev, ev->path[0]);
    if (n < 0)
      return 0;
    if (ev->nhashes > 0 || (ev->flags & PC_EVENT_F_UNHASHED)) {
      /* a file with a writable shared mapping: what it held then, the
       * mapping's writes included, is what this made durable */
      nd = &h->nodes[n];
      nd->mapped_from = NONE;
      if (put_hashes (nd, ev, cur_size (nd), seq, call) < 0)
        return -ENOMEM;
    }
    return add_durable (&h->nodes[n], xseq, 0, UINT64_MAX, call, ev->op == PC_OP_FSYNC);
  }
  case PC_OP_SYNC_RANGE:
    /* durable by nothing (no metadata, no cache flush), but a program
     * that waits for a file's writes counts on them */
    n = event_node (h, ev, ev->path[0]);
    if (n >= 0 && (ev->arg_flags & SYNC_FILE_RANGE_WAIT_AFTER))
      h->nodes[n].synced = true;
    return 0;
  case PC_OP_SYNC:
  case PC_OP_SYNCFS:
    if (pc_grow (&h->global, &h->capglobal, h->nglobal + 1, sizeof *h->global, 8) < 0)
      return -ENOMEM;
    h->global[h->nglobal++] = (struct dpoint) { xseq, 0, UINT64_MAX, UINT64_MAX, call, true };
    return 0;
  case PC_OP_SETXATTR:
  case PC_OP_REMOVEXATTR: {
    struct xver *x;
    n = event_node (h, ev, ev->path[0]);
    if (n < 0 || ev->path[1][0] == '\0')
      return 0;
    nd = &h->nodes[n];
    if (pc_grow (&nd->x, &nd->capx, nd->nx + 1, sizeof *nd->x, 4) < 0)
      return -ENOMEM;
    x = &nd->x[nd->nx];
    *x = (struct xver) { strdup (ev->path[1]), seq, ev->value_hash, call,
                         /* an ACL the kernel keeps as none removes it */
                         ev->op == PC_OP_REMOVEXATTR || (ev->flags & PC_EVENT_F_ACL_NONE)
                         ? X_REMOVED
                         : (ev->flags & PC_EVENT_F_VALUE_HASH) &&
                           /* an ACL's bytes, from a tracer that did not
                            * reduce them to their meaning, say nothing */
                           ((ev->flags & PC_EVENT_F_ACL) || pc_acl_kind (ev->path[1]) == PC_ACL_NONE)
                         ? X_SET : X_UNKNOWN };
    if (x->name == NULL)
      return -ENOMEM;
    nd->nx++;
    return 0;
  }
  case PC_OP_UNTRACEABLE:
    /* What the process writes there can no longer be followed. */
    n = event_node (h, ev, ev->path[0]);
    if (n >= 0 && seq < h->nodes[n].lost_from) {
      h->nodes[n].lost_from = seq;
      h->nodes[n].lost_call = call;
    }
    return 0;
  default:
    return 0;
  }
}

/* A mark: its durability; the first one with a manifest, the tree before
 * the program. */
static int
apply_mark (struct pc_history *h, const struct pc_mark *m, uint64_t seq, bool *have_base)
{
  uint32_t call;

  /* powercut run's marks after its command say nothing of the program,
   * but where it ended */
  if (pc_mark_run_kind (m) == PC_RUN_MARK_COMMAND_END && h->command_end == NONE)
    h->command_end = seq;
  if (pc_mark_run_kind (m) != PC_RUN_MARK_NONE)
    return 0;
  /* The mark, as people are told what made a version durable. */
  if (pc_grow (&h->calls, &h->capcalls, h->ncalls + 1, sizeof *h->calls, 64) < 0)
    return -ENOMEM;
  h->calls[h->ncalls] = (struct call) { seq, seq, h->ix->recs[seq].time_ns, 0, NULL, NULL };
  if (asprintf (&h->calls[h->ncalls].text, "the mark %s%s", m->name,
                (m->flags & PC_MARK_F_SYNC) ? " (synced)" : "") < 0)
    return -ENOMEM;
  call = (uint32_t) h->ncalls++;
  if (m->flags & PC_MARK_F_SYNC) {
    if (pc_grow (&h->global, &h->capglobal, h->nglobal + 1, sizeof *h->global, 8) < 0)
      return -ENOMEM;
    h->global[h->nglobal++] = (struct dpoint) { seq, 0, UINT64_MAX, UINT64_MAX, call, true };
  }
  for (size_t i = 0; i < m->ndurable; i++) {
    int64_t n = bound (h, m->durable[i]);
    const char *slash = strrchr (m->durable[i], '/');
    if (n >= 0 && h->nodes[n].type == N_FILE &&
        add_durable (&h->nodes[n], seq, 0, UINT64_MAX, call, true) < 0)
      return -ENOMEM;
    /* its name too */
    if (pc_grow (&h->dd, &h->capdd, h->ndd + 1, sizeof *h->dd, 8) < 0 ||
        (h->dd[h->ndd].dir = strndup (m->durable[i], slash ? (size_t) (slash - m->durable[i])
                                                           : 0)) == NULL)
      return -ENOMEM;
    h->dd[h->ndd].seq = seq;
    h->dd[h->ndd++].call = call;
  }
  if (*have_base || !(m->flags & PC_MARK_F_MANIFEST))
    return 0;
  *have_base = true;
  for (size_t i = 0; i < m->nentries; i++) {
    const struct pc_entry *e = &m->entries[i];
    uint8_t t = e->type == PC_ENTRY_FILE ? N_FILE : e->type == PC_ENTRY_DIR ? N_DIR
                : e->type == PC_ENTRY_SYMLINK ? N_LINK : 0;
    int64_t n;
    if (t == 0)
      continue;
    n = new_node (h, t, t == N_FILE ? e->ino : 0);
    if (n < 0)
      return (int) n;
    h->nodes[n].base = true;
    if (t == N_LINK && (h->nodes[n].target = strdup (e->target ? e->target : "")) == NULL)
      return -ENOMEM;
    if (t == N_FILE && set_size (&h->nodes[n], seq, e->size, UINT32_MAX) < 0)
      return -ENOMEM;
    if (bind (h, e->path, n, seq, UINT32_MAX) < 0)
      return -ENOMEM;
  }
  return 0;
}

static int
bver_cmp (const void *a, const void *b)
{
  const struct bver *x = a, *y = b;

  if (x->block != y->block)
    return x->block < y->block ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  /* one call's versions of a block: what it may show first, what it
   * leaves last */
  return (y->kind == B_UNKNOWN) - (x->kind == B_UNKNOWN);
}

/* A mapped file's blocks, sorted, as the calls that looked at them saw
 * them (snapshots): one that holds what the block held before is no
 * change (the version before stays the newest, and what made it durable
 * still holds); one that holds something else tells that the mapping
 * wrote the block at some time after it was last seen unchanged, unseen:
 * from then on until the snapshot, the block may hold anything (its
 * writeback is no promise).  Returns 0 or -ENOMEM. */
static int
settle_snaps (const struct pc_history *h, struct node *n)
{
  struct bver *out;
  size_t o = 0;
  uint64_t seen = 0;            /* the last record the block was seen unchanged at */
  bool any = false;

  for (size_t i = 0; i < n->nb && !any; i++)
    any = n->b[i].snap;
  if (!any)
    return 0;
  if ((out = malloc (2 * n->nb * sizeof *out)) == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < n->nb; i++) {
    const struct bver *v = &n->b[i];
    const struct bver *prev = o > 0 && out[o - 1].block == v->block ? &out[o - 1] : NULL;
    uint64_t vx = v->call < h->ncalls ? h->calls[v->call].xseq : v->seq;
    if (prev == NULL || !v->snap)
      seen = v->call < h->ncalls ? h->calls[v->call].xseq : v->seq;
    if (v->snap && prev && v->kind == B_HASH && prev->kind == B_HASH && prev->hash == v->hash) {
      seen = vx > seen ? vx : seen;     /* unchanged until then */
      continue;
    }
    if (v->snap && prev && prev->kind != B_MAPPED && prev->kind != B_UNKNOWN &&
        seen + 1 < v->seq)
      out[o++] = (struct bver) { v->block, seen + 1, 0, v->call, 0, B_MAPPED, true };
    out[o++] = *v;
    seen = vx;
  }
  free (n->b);
  n->b = out;
  n->nb = n->capb = o;
  return 0;
}

/* A pending call: its entry seen, its exit not yet. */
struct pend {
  int32_t tid;
  uint64_t seq;
  uint32_t call;
};

int
pc_hist_build (struct pc_history *h, const struct pc_index *ix, bool marks, struct pc_err *err)
{
  struct pend *pend = NULL;
  size_t npend = 0, cappend = 0;
  bool have_base = false;
  int r = 0;

  h->ix = ix;
  h->command_end = NONE;
  for (uint64_t i = 0; i < ix->n && r == 0; i++) {
    const struct pc_record *rec = &ix->recs[i];
    struct pc_event ev;
    struct pc_err e;
    if (rec->type == PC_REC_MARK) {
      struct pc_mark m;
      if (pc_mark_decode (rec->data, rec->datalen, &m, NULL) == 0) {
        if (marks || (!have_base && (m.flags & PC_MARK_F_MANIFEST)))
          r = apply_mark (h, &m, i, &have_base);
        pc_mark_free (&m);
      }
      continue;
    }
    if (rec->type != PC_REC_EVENT)
      continue;
    r = pc_event_decode (rec->data, rec->datalen, &ev, &e);
    if (r < 0) {
      if (r == -EBADMSG)
        pc_err_set (err, EBADMSG, "record %" PRIu64 ": %s", i, e.msg);
      break;
    }
    h->events++;
    if (ev.op == PC_OP_ACK) {
      /* a line printed: no call of its own to pair (its thread may be
       * inside one, as an edited log has it) */
      pc_event_free (&ev);
      continue;
    }
    if (ev.kind == PC_EVENT_ENTRY) {
      uint32_t call;
      r = add_call (h, i, &ev, &call);
      if (r == 0 && pc_grow (&pend, &cappend, npend + 1, sizeof *pend, 16) < 0)
        r = -ENOMEM;
      if (r == 0)
        pend[npend++] = (struct pend) { ev.tid, i, call };
    }
    else {
      size_t k;
      for (k = npend; k-- > 0 && pend[k].tid != ev.tid;)
        ;
      if (k < npend) {
        free (h->calls[pend[k].call].text);
        /* the exit's text has the result too */
        h->calls[pend[k].call].text = strdup (ev.text);
        if (h->calls[pend[k].call].text == NULL)
          r = -ENOMEM;
        h->calls[pend[k].call].xseq = i;
        if (r == 0)
          r = apply (h, &ev, pend[k].seq, i, pend[k].call);
        pend[k] = pend[--npend];
      }
    }
    pc_event_free (&ev);
  }
  free (pend);
  /* A shared mapping written and never msync'd or unmapped (the process
   * ended with it): what it wrote was never seen. */
  for (size_t i = 0; r == 0 && i < h->nnodes; i++)
    if (h->nodes[i].mapped_from < h->nodes[i].lost_from) {
      h->nodes[i].lost_from = h->nodes[i].mapped_from;
      h->nodes[i].lost_call = h->nodes[i].mapped_call;
    }
  if (r == 0) {
    for (size_t i = 0; i < h->nnodes && r == 0; i++)
      if (h->nodes[i].nb > 1) {
        qsort (h->nodes[i].b, h->nodes[i].nb, sizeof *h->nodes[i].b, bver_cmp);
        r = settle_snaps (h, &h->nodes[i]);
      }
    if (h->npaths > 1)
      qsort (h->paths, h->npaths, sizeof *h->paths, pc_hist_path_cmp);
    h->names = malloc ((h->npaths ? h->npaths : 1) * sizeof *h->names);
    if (h->names == NULL)
      r = -ENOMEM;
    for (size_t i = 0; r == 0 && i < h->npaths; i++)
      h->names[i] = h->paths[i].path;
  }
  return r;
}
