/* histfault.c: why a traced program's file lost what it lost, and whose
 * fault that is (doc/fault.md): the version lost and the call that made
 * it, whether it had been durable, whether the program gave a durable
 * version up since (a rename over it, an unlink and a new file, a
 * truncate), and the fix. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/histint.h"

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
int
pc_hist_data_cause (const struct pc_history *h, const struct node *n, const char *path, uint64_t b,
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
    uint64_t d = pc_hist_data_durable (h, n, b, point, NONE, &dcall);
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
  dseq = pc_hist_made_durable (h, n, b, seq, &dcall);
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
bool
pc_hist_next_call (const struct pc_history *h, uint32_t a, uint32_t b)
{
  if (a >= h->ncalls || b >= h->ncalls || b <= a || h->calls[a].pid != h->calls[b].pid)
    return false;
  for (uint32_t k = a + 1; k < b; k++)
    if (h->calls[k].pid == h->calls[a].pid)
      return false;
  return true;
}

/* Is node y bound to a name other than p's at point (moved there)? */
bool
pc_hist_bound_elsewhere (const struct pc_history *h, const struct phist *p, int64_t y,
                         uint64_t point)
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

/* Was n, as it was when put at path (its last binding there by point),
 * durable by point: its data synced since, or synced before and not
 * changed until then?  A rename of such a file over a durable one gives
 * nothing up: a crash keeps one or the other, whatever is lost of what
 * was written to n after. */
static bool
put_durable (const struct pc_history *h, const struct phist *p, int64_t n, uint64_t point)
{
  uint64_t put = NONE, d;
  const struct node *nd;
  uint32_t dc;

  if (n < 0)
    return false;
  for (size_t i = 0; i < p->ne && p->e[i].seq <= point; i++)
    if (p->e[i].node == n)
      put = p->e[i].seq;
  nd = &h->nodes[n];
  d = pc_hist_data_durable (h, nd, NONE, point, NONE, &dc);
  if (put == NONE || d == NONE)
    return false;
  for (size_t k = 0; d < put && k < nd->ns; k++)
    if (nd->s[k].seq > d && nd->s[k].seq < put)
      return false;
  for (size_t k = 0; d < put && k < nd->nb; k++)
    if (nd->b[k].seq > d && nd->b[k].seq < put && !nd->b[k].snap)
      return false;
  return true;
}

/* Did the program give up a durable version of path by point, for n (the
 * file found at path, which lost data never made durable): a version it
 * held, name and data durable, replaced since (another file bound to the
 * name, the old one under no name any more: a rename over it, an unlink
 * and a new file made by the process's next call; or the file made
 * smaller: truncate, O_TRUNC)?  A file
 * the call moved to another name was not given up here, nor one a durable
 * file was renamed over (put_durable).  The call that gave it up in
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
    d = pc_hist_data_durable (h, &h->nodes[y], NONE, end, NONE, &dc);
    if (d == NONE)
      continue;
    named = pc_hist_entry_made_durable (h, path, p->e[i].seq, &dc);
    if (bound_after && y != n && (named == NONE || named > end))
      continue;
    if (named == NONE || named > end)
      named = 0;
    if (bound_after && y != n) {
      if (pc_hist_bound_elsewhere (h, p, y, p->e[i + 1].seq))
        continue;               /* moved away (what becomes of it there is
                                 * that name's story), not given up */
      if (p->e[i + 1].node < 0 &&
          !(i + 2 < p->ne && p->e[i + 2].seq <= point && p->e[i + 2].node >= 0 &&
            pc_hist_next_call (h, p->e[i + 1].call, p->e[i + 2].call)))
        continue;               /* deleted, not replaced by the next call */
      *ret_call = p->e[i + 1].call;
      *ret_how = p->e[i + 1].node >= 0 ? GAVE_RENAME : GAVE_UNLINK;
      if (*ret_how == GAVE_RENAME && put_durable (h, p, n, point))
        continue;               /* replaced by a durable file */
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
int
pc_hist_program_cause (const struct pc_history *h, const struct phist *p, const char *path,
                       int64_t n, uint64_t point, uint32_t wcall, struct pc_cause *c)
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

/* Without a journal, a directory's fsync writes its names, not the files
 * they name: a file made in the recording and never synced itself (nor by
 * a sync) by point may be lost with its name.  Is node n such a file? */
static bool
name_without_file (const struct pc_history *h, int64_t n, uint64_t point, uint64_t floor)
{
  uint32_t dc;

  if (!h->no_journal || n < 0 || h->nodes[n].type != N_FILE || h->nodes[n].base)
    return false;
  return pc_hist_data_durable (h, &h->nodes[n], NONE, point, floor, &dc) == NONE;
}

/* Without a journal, a directory's own blocks (its entry "..", its inode)
 * are written by an fsync of it or a sync, not by its new parent's fsync:
 * a directory made or moved to path since it was last made durable itself
 * may be lost with its name there (e2fsck keeps the name its ".." agrees
 * with, or clears a directory whose inode was never written); so may a
 * symbolic link made there, whose inode only a sync writes (it cannot be
 * fsync'd).  Is node n, bound to path by p's entry at or before de, such
 * a directory or link? */
static bool
made_without_itself (const struct pc_history *h, const struct phist *p, int64_t n, uint64_t de,
                     uint64_t point)
{
  uint64_t bound = NONE;

  if (!h->no_journal || n < 0 || (h->nodes[n].type != N_DIR && h->nodes[n].type != N_LINK))
    return false;
  for (size_t i = 0; i < p->ne && p->e[i].seq <= de; i++)
    if (p->e[i].node == n)
      bound = p->e[i].call < h->ncalls ? p->e[i].seq : NONE;
  if (bound == NONE)
    return false;               /* there before the program ran */
  for (size_t i = 0; i < h->nglobal; i++)
    if (h->global[i].seq > bound && h->global[i].seq <= point)
      return false;
  for (size_t i = 0; i < h->ndd; i++)
    if (h->dd[i].seq > bound && h->dd[i].seq <= point && strcmp (h->dd[i].dir, p->path) == 0)
      return false;
  return true;
}

/* Without a journal nothing orders metadata writes: a change to a durable
 * name not yet durable itself (a rename over it, an unlink, a new file in
 * its place) may reach the disk in part, and the boot's repair may leave
 * neither version: e2fsck clears a name whose inode the change freed, and
 * a name whose removal never reached the disk comes to name the file that
 * reused its inode.  Did p's binding change after its durable point de, by
 * point?  The first such call in *ret_call. */
static bool
unordered_name (const struct pc_history *h, const struct phist *p, uint64_t de, uint64_t point,
                uint32_t *ret_call)
{
  if (!h->no_journal || de == NONE)
    return false;
  for (size_t i = 0; i < p->ne && p->e[i].seq <= point; i++)
    if (p->e[i].seq > de) {
      *ret_call = p->e[i].call;
      return true;
    }
  return false;
}

/* Does found hold what another file the program made had by point (a
 * name whose removal never reached the disk, bound to the inode a new
 * file reused)?  Where both inode numbers are known, only a file of
 * found's inode counts (an empty file too); else one whose data found
 * holds. */
static bool
holds_other_file (const struct pc_history *h, const struct pc_entry *found, uint64_t point)
{
  uint64_t blk;
  bool promise;

  if (found->type != PC_ENTRY_FILE)
    return false;
  for (size_t i = 0; i < h->nnodes; i++) {
    const struct node *n = &h->nodes[i];
    if (n->type != N_FILE || n->base || n->ns == 0 || n->s[0].seq > point)
      continue;
    if (found->ino && n->ino ? n->ino != found->ino : found->size == 0 || n->nb == 0)
      continue;
    if (pc_hist_match_file (h, n, found, point, NONE, true, &blk, &promise) == 0)
      return true;
  }
  return false;
}

/* Makes c, a broken promise at p's path, an exposure where a filesystem
 * without a journal makes no such promise: the name changed since it was
 * durable, the change not yet durable (unordered_name), and what is found
 * there is no version (found NULL: a name's finding) or another file's.
 * A durable file found there with its own data lost is no such case: the
 * change of name did not lose that. */
int
pc_hist_unordered_cause (const struct pc_history *h, const struct phist *p, uint64_t point,
                         uint64_t floor, const struct pc_entry *found, struct pc_cause *c)
{
  uint32_t dcall, by = UINT32_MAX;
  uint64_t de;

  if (!c->promise || !h->no_journal)
    return 0;
  de = pc_hist_entry_durable (h, p->path, point, floor, &dcall);
  if (declared (h, dcall) || !unordered_name (h, p, de, point, &by) ||
      (found && !holds_other_file (h, found, point)))
    return 0;
  c->promise = false;
  free (c->rule);
  free (c->fix);
  c->fix = NULL;
  if (asprintf (&c->rule, "no journal: %s changed the name, not yet durable, and metadata "
                "reaches the disk in no order: a crash may keep neither version",
                by < h->ncalls ? h->calls[by].text : "a later call") < 0)
    c->rule = NULL;
  c->fix = strdup ("a filesystem with a journal (an fsync of the directory right after the "
                   "change narrows the window, never closes it)");
  return c->rule && c->fix ? 0 : -ENOMEM;
}

/* The cause of a name found missing, or found though it was durably gone. */
int
pc_hist_name_cause (const struct pc_history *h, const struct phist *p, uint64_t point,
                    uint64_t floor, uint64_t de, uint32_t dcall, struct pc_history_verdict *ret)
{
  struct pc_cause *c = &ret->cause;
  uint32_t call = UINT32_MAX;
  int64_t node = -1;

  memset (c, 0, sizeof *c);
  c->known = true;
  c->promise = true;
  c->durable_ns = (int64_t) pc_hist_rec_time (h, de);
  for (size_t i = 0; i < p->ne && p->e[i].seq <= de; i++) {
    call = p->e[i].call;
    node = p->e[i].node;
  }
  ret->name = true;
  ret->call = call;
  pc_hist_cause_call (h, c, call);
  c->durable_by = pc_hist_describe_durable (h, dcall);
  if (declared (h, dcall))
    c->rule = strdup ("a name declared durable by a mark is not what it was: a promise broken");
  else if (ret->kind == PC_V_MISSING && name_without_file (h, node, point, floor)) {
    c->promise = false;
    c->rule = strdup ("no journal: the directory's fsync made the name durable, not the file "
                      "it names, never synced itself: a crash may lose both");
    c->fix = strdup ("an fsync of the file as well as of its directory");
    if (c->rule == NULL || c->fix == NULL)
      return -ENOMEM;
  }
  else if (ret->kind == PC_V_MISSING && made_without_itself (h, p, node, de, point)) {
    bool dir = h->nodes[node].type == N_DIR;
    c->promise = false;
    c->rule = strdup (dir ? "no journal: the parent's fsync made the name durable, not the "
                            "directory it names, made or moved there and never synced itself: "
                            "a crash may lose it there"
                          : "no journal: the directory's fsync made the name durable, not the "
                            "symbolic link it names, whose inode no sync wrote: a crash may "
                            "lose both");
    c->fix = strdup (dir ? "an fsync of the directory itself as well as of its parent"
                         : "a sync or syncfs after the link is made (a symbolic link cannot be "
                           "fsync'd)");
    if (c->rule == NULL || c->fix == NULL)
      return -ENOMEM;
  }
  else {
    c->rule = strdup ("a name made durable (its directory synced) is not what it was: "
                      "the filesystem broke its promise");
    if (c->rule && pc_hist_unordered_cause (h, p, point, floor, NULL, c) < 0)
      return -ENOMEM;
  }
  return c->rule ? 0 : -ENOMEM;
}
