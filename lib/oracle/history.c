/* history.c: a traced program's history (history.h): every function of
 * the interface, on the parts below it, each calling only those below
 * it:
 *   histmemo.c   judgements kept from one crash state to the next;
 *   histjudge.c  the judgement of a file found;
 *   histfault.c  ... its cause, and whose fault it is;
 *   histmatch.c  ... what it may hold, and whether it does;
 *   histxattr.c  ... of its extended attributes;
 *   histver.c    the versions every path had, and which a state lost;
 *   histbuild.c  the history built from a log's events and marks;
 *   histcause.c  what they all read: durable points, block versions,
 *                calls told for people. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>

#include "oracle/histint.h"

int
pc_history_new (const struct pc_index *ix, bool marks, struct pc_history **ret,
                struct pc_err *err)
{
  struct pc_history *h = calloc (1, sizeof *h);
  int r;

  if (h == NULL)
    return -ENOMEM;
  r = pc_hist_build (h, ix, marks, err);
  if (r == 0)
    r = pc_hist_versions_build (h);
  if (r < 0) {
    pc_history_free (h);
    return r;
  }
  *ret = h;
  return 0;
}

uint64_t
pc_history_max_size (const struct pc_history *h)
{
  uint64_t max = 0;

  for (size_t i = 0; i < h->nnodes; i++)
    for (size_t j = 0; j < h->nodes[i].ns; j++)
      if (h->nodes[i].s[j].size > max)
        max = h->nodes[i].s[j].size;
  return max;
}

void
pc_history_free (struct pc_history *h)
{
  if (h == NULL)
    return;
  pc_hist_memo_free (h->memo);
  for (size_t i = 0; i < h->nnodes; i++) {
    free (h->nodes[i].target);
    free (h->nodes[i].b);
    free (h->nodes[i].s);
    free (h->nodes[i].d);
    for (size_t j = 0; j < h->nodes[i].nx; j++)
      free (h->nodes[i].x[j].name);
    free (h->nodes[i].x);
    free (h->nodes[i].sh);
    free (h->nodes[i].bseq);
  }
  free (h->nodes);
  for (size_t i = 0; i < h->npaths; i++) {
    free (h->paths[i].path);
    free (h->paths[i].e);
  }
  free (h->paths);
  free (h->names);
  for (size_t i = 0; i < h->ncalls; i++) {
    free (h->calls[i].text);
    free (h->calls[i].path);
  }
  free (h->calls);
  for (size_t i = 0; i < h->ndd; i++)
    free (h->dd[i].dir);
  free (h->dd);
  free (h->global);
  free (h->ver);
  free (h->vstart);
  free (h->pubv);
  free (h->vcache);
  free (h);
}

uint64_t
pc_history_events (const struct pc_history *h)
{
  return h->events;
}

const char *const *
pc_history_paths (const struct pc_history *h, size_t *ret_n)
{
  *ret_n = h->events ? h->npaths : 0;
  return h->names;
}

void
pc_history_set_no_journal (struct pc_history *h, bool no_journal)
{
  h->no_journal = no_journal;
  pc_hist_memo_free (h->memo);    /* judgements made without it */
  h->memo = NULL;
}

void
pc_history_set_plain (struct pc_history *h, bool plain)
{
  h->plain = plain;
  pc_hist_memo_free (h->memo);
  h->memo = NULL;
}

const struct pc_history_version *
pc_history_versions (const struct pc_history *h, size_t *ret_n)
{
  *ret_n = h->events ? h->nver : 0;
  return h->pubv;
}

int
pc_history_judge (const struct pc_history *h, uint64_t point, const char *path,
                  const struct pc_entry *found, struct pc_history_verdict *ret)
{
  return h->plain ? pc_hist_judge (h, point, path, found, ret)
                  : pc_hist_memo_judge (h, point, path, found, ret);
}

int
pc_history_older (const struct pc_history *h, uint64_t point, uint64_t floor, bool kept,
                  const char *path, const struct pc_entry *found, struct pc_history_verdict *ret)
{
  return pc_hist_memo_older (h, point, floor, kept, path, found, ret);
}

int
pc_history_set_end (struct pc_history *h, uint64_t point, const struct pc_mark *end)
{
  pc_hist_memo_free (h->memo);  /* what it kept rests on what changes here */
  h->memo = NULL;
  return pc_hist_set_end (h, point, end);
}

void
pc_history_lost (const struct pc_history *h, uint64_t point, size_t index,
                 const struct pc_entry *found, pc_history_lost_fn *fn, void *ctx)
{
  pc_hist_lost (h, point, index, found, fn, ctx);
}

bool
pc_history_synced (const struct pc_history *h, const char *path)
{
  const struct phist *p = pc_hist_find_path (h, path);

  if (p == NULL)
    return false;
  for (size_t i = 0; i < p->ne; i++) {
    int64_t n = p->e[i].node;
    uint64_t to = i + 1 < p->ne ? p->e[i + 1].seq : NONE;
    if (n < 0 || h->nodes[n].type != N_FILE)
      continue;
    if (h->nodes[n].synced)
      return true;
    /* everything synced (by the program: not powercut run's own sync
     * after its command) while this file was bound here */
    for (size_t g = 0; g < h->nglobal; g++)
      if (h->global[g].seq > p->e[i].seq && h->global[g].seq < to &&
          (h->command_end == NONE || h->global[g].seq < h->command_end))
        return true;
  }
  return false;
}
