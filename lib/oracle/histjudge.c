/* histjudge.c: judging a crash state's files against a traced program's
 * history: the versions it allows (histmatch.c), what does not fit, and
 * why (histfault.c); what it lost of what the program had at an
 * acknowledgement. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/histint.h"

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
  de = pc_hist_entry_durable (h, path, point, floor, &dcall);
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
    return pc_hist_name_cause (h, p, point, floor, de, dcall, ret);
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
      !pc_hist_durably_empty (h, &h->nodes[newest], path, point, floor) &&
      !(at_de >= 0 && at_de != newest && h->nodes[at_de].type == N_FILE &&
        (found->ino == 0 || h->nodes[at_de].ino == 0 || found->ino == h->nodes[at_de].ino) &&
        pc_hist_durably_empty (h, &h->nodes[at_de], path, point, floor)) &&
      !other_inode (h, p, point, de, at_de, newest, found)) {
    const struct node *n = &h->nodes[newest];
    uint32_t dc;
    uint64_t d = pc_hist_data_durable (h, n, NONE, point, floor, &dc), rb;
    bool ranged = pc_hist_size_needed (n, point, &rb) > 0;
    uint32_t wcall;
    int r;
    ret->kind = PC_V_ZERO_LENGTH;
    r = pc_hist_data_cause (h, n, path, ranged ? rb : NONE, point, PC_V_ZERO_LENGTH,
                            ranged || (d != NONE && (pc_hist_size_set_by (n, point) <= d ||
                                                     pc_hist_least_size_since (n, d, point) > 0)),
                            &ret->cause, &wcall, &ret->mapped);
    return r < 0 ? r : pc_hist_program_cause (h, p, path, newest, point, wcall, &ret->cause);
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
    k = pc_hist_match_file (h, n, found, point, floor, false, &blk, &promise);
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
    return pc_hist_name_cause (h, p, point, floor, de, dcall, ret);
  }
  if ((best < 0 || best_node < 0) && found->type == PC_ENTRY_SYMLINK && at_de >= 0 &&
      newest == at_de && h->nodes[at_de].type == N_LINK) {
    /* A durable name of a symlink, unchanged since, found with another
     * target: a symlink is made with its target, so the name made
     * durable is not what it was. */
    ret->kind = PC_V_DURABLE_LOST;
    return pc_hist_name_cause (h, p, point, floor, de, dcall, ret);
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
      return pc_hist_data_cause (h, n, path, best_block, floor < point ? floor : point, best,
                                 false, &ret->cause, &wcall, &ret->mapped);
    }
    /* What it held before its durable point: rolled back. */
    if (best_promise && pc_hist_match_file (h, n, found, point, NONE, true, &blk, &promise) == 0) {
      uint32_t wcall;
      ret->kind = PC_V_DURABLE_LOST;
      return pc_hist_data_cause (h, n, path, best_block, point, PC_V_DURABLE_LOST, true,
                                 &ret->cause, &wcall, &ret->mapped);
    }
    uint32_t wcall;
    int r;
    ret->kind = best;
    r = pc_hist_data_cause (h, n, path, best_block, point, best, best_promise, &ret->cause,
                            &wcall, &ret->mapped);
    return r < 0 ? r : pc_hist_program_cause (h, p, path, best_node, point, wcall, &ret->cause);
  }
}

int
pc_hist_judge (const struct pc_history *h, uint64_t point, const char *path,
               const struct pc_entry *found, struct pc_history_verdict *ret)
{
  const struct phist *p;
  int r = judge (h, point, NONE, path, found, ret);

  /* a name's own finding has had this test (pc_hist_name_cause) */
  if (r < 0 || ret->kind == 0 || ret->name || !ret->cause.promise ||
      (p = pc_hist_find_path (h, path)) == NULL)
    return r;
  return found ? pc_hist_unordered_cause (h, p, point, NONE, found, &ret->cause) : 0;
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
        pc_hist_match_file (h, &h->nodes[ni], found, point, NONE, true, &blk, &promise) != 0)
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
      (pc_hist_bound_elsewhere (h, p, at, p->e[after].seq) ||
       (p->e[after].seq <= point &&
        !(after + 1 < p->ne && p->e[after + 1].node >= 0 &&
          pc_hist_next_call (h, p->e[after].call, p->e[after + 1].call)))))
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
