/* shrink.c: a failing generated workload made as small as it can be while
 * it still fails the same way: greedily, one operation or one persistence
 * call off at a time, each round's candidates in one batch. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/exploreint.h"
#include "util/util.h"

#define MAX_ROUNDS 8
#define MAX_CANDIDATES (2 * PC_GEN_MAX_OPS)

static int
by_calls (const void *a, const void *b)
{
  unsigned x = pc_gen_calls (&((const struct xitem *) a)->w);
  unsigned y = pc_gen_calls (&((const struct xitem *) b)->w);

  return x < y ? -1 : x > y;
}

/* The workloads one step smaller than w: an operation off, or a
 * persistence call (not the last) made none; into cand, their number. */
static size_t
candidates (const struct pc_gen_workload *w, struct xitem *cand)
{
  size_t n = 0;

  for (unsigned i = 0; i < w->nsteps && w->nsteps > 1; i++) {
    struct pc_gen_workload s = { .nsteps = w->nsteps - 1 };
    for (unsigned j = 0, o = 0; j < w->nsteps; j++)
      if (j != i)
        s.step[o++] = w->step[j];
    if (pc_gen_valid (&s))
      cand[n++].w = s;
  }
  for (unsigned i = 0; i + 1 < w->nsteps; i++)
    if (w->step[i].persist != PC_GEN_NONE) {
      struct pc_gen_workload s = *w;
      s.step[i].persist = PC_GEN_NONE;
      if (pc_gen_valid (&s))
        cand[n++].w = s;
    }
  return n;
}

int
pc_x_shrink (const struct pc_explore_config *cfg, const struct pc_config *k,
             const char *base, const char *dir, const struct xitem *orig, struct xitem *ret,
             char *log, size_t len, struct pc_err *err)
{
  struct xitem best = *orig;

  for (unsigned round = 0; round < MAX_ROUNDS && !pc_interrupted (); round++) {
    struct xitem cand[MAX_CANDIDATES];
    char rdir[PATH_MAX + 16];
    size_t n, found = SIZE_MAX;
    int r;
    memset (cand, 0, sizeof cand);
    n = candidates (&best.w, cand);
    if (n == 0)
      break;
    qsort (cand, n, sizeof *cand, by_calls);
    for (size_t i = 0; i < n; i++)
      cand[i].index = i;
    snprintf (rdir, sizeof rdir, "%s/round-%u", dir, round + 1);
    r = pc_x_run_batch (cfg, k, base, rdir, cand, n, true, err);
    if (r < 0)
      return r;
    for (size_t i = 0; i < n && found == SIZE_MAX; i++)
      if (cand[i].outcome == orig->outcome && cand[i].promise == orig->promise)
        found = i;
    if (found == SIZE_MAX)
      break;
    best = cand[found];
    pc_x_item_log (cfg, rdir, &best, log, len);
  }
  *ret = best;
  return 0;
}
