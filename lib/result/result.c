/* result.c: a check's result: counting, freeing, durability windows. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "result/result.h"

/* The index of recovery point i's parent state (the point whose id its
 * own begins with, before "/recovery:"), or SIZE_MAX. */
static size_t
parent_of (const struct pc_check_result *res, size_t i)
{
  const char *id = res->points[i].id, *r = strstr (id, "/recovery:");

  if (!res->points[i].recovery || r == NULL)
    return SIZE_MAX;
  for (size_t j = i; j-- > 0;)
    if (!res->points[j].recovery && strlen (res->points[j].id) == (size_t) (r - id) &&
        strncmp (res->points[j].id, id, (size_t) (r - id)) == 0)
      return j;
  return SIZE_MAX;
}

bool
pc_point_repeats_parent (const struct pc_check_result *res, size_t i)
{
  size_t j = parent_of (res, i);
  const struct pc_point *p, *q;

  if (j == SIZE_MAX)
    return false;
  p = &res->points[i];
  q = &res->points[j];
  if (p->verdict != q->verdict || p->findings.n != q->findings.n)
    return false;
  for (size_t k = 0; k < p->findings.n; k++) {
    const struct pc_finding *a = &p->findings.v[k], *b = &q->findings.v[k];
    if (a->kind != b->kind || strcmp (a->path, b->path) != 0 ||
        pc_finding_fault (a) != pc_finding_fault (b))
      return false;
  }
  return true;
}

void
pc_check_result_recount (struct pc_check_result *res)
{
  memset (res->count, 0, sizeof res->count);
  res->promises = res->program_promises = res->recovery_differs = res->exposures = 0;
  res->acknowledged_lost = 0;
  res->recovery_points = res->recovery_repeats = 0;
  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    res->recovery_points += p->recovery;
    if (pc_point_repeats_parent (res, i)) {
      res->recovery_repeats++;
      continue;
    }
    if ((unsigned) p->verdict < PC_V_COUNT)
      res->count[p->verdict]++;
    res->acknowledged_lost += pc_point_acked_lost (p);
    if (p->verdict == PC_V_OK || p->verdict == PC_V_NOT_CHECKED ||
        p->verdict == PC_V_FSCK_BY_HAND)
      continue;                 /* nothing lost */
    switch (pc_point_fault (p)) {
    case PC_FAULT_FILESYSTEM: res->promises++; break;
    case PC_FAULT_PROGRAM: res->program_promises++; break;
    case PC_FAULT_RECOVERY: res->recovery_differs++; break;
    default: res->exposures++; break;
    }
  }
}

enum pc_fault
pc_point_fault (const struct pc_point *p)
{
  const struct pc_verdict_info *vi = pc_verdict_info (p->verdict);
  enum pc_fault worst = PC_FAULT_NONE;

  /* a whole-state verdict is the fault its table row says */
  if (vi && vi->fault >= 0)
    return (enum pc_fault) vi->fault;
  if (pc_point_broke_promise (p))
    return PC_FAULT_FILESYSTEM;
  if (pc_point_acked_lost (p))
    return PC_FAULT_PROGRAM;
  /* else the heaviest of its findings' */
  for (size_t k = 0; k < p->findings.n; k++) {
    enum pc_fault f = pc_finding_fault (&p->findings.v[k]);
    if (pc_finding_verdict (p->findings.v[k].kind) != PC_V_OK && f > worst &&
        f != PC_FAULT_RECOVERY)
      worst = f;
  }
  return worst;
}

bool
pc_point_acked_lost (const struct pc_point *p)
{
  for (size_t k = 0; k < p->findings.n; k++) {
    const struct pc_finding *f = &p->findings.v[k];
    if (f->kind == PC_V_ACK_LOST ||
        (f->kind == PC_F_OLDER && p->verdict == PC_V_APP_INVALID &&
         (f->cause.program || f->cause.promise)))
      return true;
  }
  return false;
}

bool
pc_point_broke_promise (const struct pc_point *p)
{
  const struct pc_verdict_info *vi = pc_verdict_info (p->verdict);

  if (vi == NULL)
    return true;
  if (vi->fault >= 0)
    return vi->fault == PC_FAULT_FILESYSTEM;    /* the filesystem itself, or not */
  for (size_t k = 0; k < p->findings.n; k++) {
    const struct pc_finding *f = &p->findings.v[k];
    if (f->kind == PC_F_OLDER && p->verdict == PC_V_APP_INVALID && f->cause.promise)
      return true;              /* a durable update the application counted on lost */
    if (pc_finding_verdict (f->kind) == PC_V_OK || f->cause.recovery)
      continue;
    if (!f->cause.known || f->cause.promise)
      return true;
  }
  return false;
}

enum pc_after
pc_point_after (const struct pc_check_result *res, const struct pc_point *p)
{
  if (res->command_end_record == 0 || p->record <= res->command_end_record)
    return PC_AFTER_NONE;
  if (res->settle_end_record > res->command_end_record && p->record > res->settle_end_record)
    return PC_AFTER_SYNC;
  return PC_AFTER_SETTLE;
}

const char *
pc_after_name (enum pc_after a)
{
  return a == PC_AFTER_SETTLE ? "settle" : a == PC_AFTER_SYNC ? "sync" : NULL;
}

void
pc_check_result_free (struct pc_check_result *res)
{
  if (res == NULL)
    return;
  free (res->log_path);
  free (res->base_path);
  free (res->verify);
  for (size_t i = 0; i < res->npoints; i++)
    pc_findings_clear (&res->points[i].findings);
  free (res->points);
  pc_windows_free (res);
  free (res);
}

static uint64_t
since (uint64_t t, uint64_t from)
{
  return t > from ? t - from : 0;
}

void
pc_windows_compute (struct pc_check_result *res)
{
  for (size_t i = 0; i < res->nwindows; i++) {
    struct pc_window *w = &res->windows[i];
    size_t next = (size_t) (w->lost_until + 1);
    const struct pc_point *lost = w->lost_until >= 0 ? &res->points[w->lost_until] : NULL;

    /* A state is on the disk until its moment ends: a version is durable
     * once the last state that lost it can no longer be there. */
    if (next < res->npoints) {
      w->durable_ns = (int64_t) (lost ? lost->moment_ns : res->points[next].time_ns);
      w->window_ns = since ((uint64_t) w->durable_ns, w->written_ns);
    }
    else {
      w->durable_ns = -1;
      w->window_ns = 0;
    }
    w->exposed_ns = lost && lost->moment >= w->mark_record ? since (lost->moment_ns, w->written_ns) : 0;
    w->ack_exposed_ns = lost && w->ack[0] && lost->moment >= w->ack_record
                        ? since (lost->moment_ns, w->ack_ns) : 0;
  }
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

/* Whose fault the last state that lost w's version was: its finding at
 * w's path; without one, the whole state's (a filesystem corrupt or
 * unmountable, two recoveries that disagree) where it failed so, else
 * nobody's: the state holds what was allowed there, and the version it
 * lost was one a crash may lose. */
static enum pc_fault
lost_fault (const struct pc_check_result *res, const struct pc_window *w)
{
  const struct pc_point *p = w->lost_until >= 0 ? &res->points[w->lost_until] : NULL;
  const struct pc_verdict_info *vi;

  for (size_t k = 0; p && k < p->findings.n; k++)
    if (strcmp (p->findings.v[k].path, w->path) == 0 &&
        pc_finding_verdict (p->findings.v[k].kind) != PC_V_OK)
      return pc_finding_fault (&p->findings.v[k]);
  vi = p ? pc_verdict_info (p->verdict) : NULL;
  if (vi && !vi->path && p->verdict != PC_V_OK && p->verdict != PC_V_NOT_CHECKED &&
      p->verdict != PC_V_APP_INVALID)
    return pc_point_fault (p);
  return PC_FAULT_NONE;
}

void
pc_windows_summary (const struct pc_check_result *res, struct pc_window_summary *ret)
{
  uint64_t *win = malloc ((res->nwindows ? res->nwindows : 1) * sizeof *win);
  uint64_t end = res->npoints ? res->points[res->npoints - 1].time_ns : 0;
  size_t nd = 0;

  memset (ret, 0, sizeof *ret);
  ret->longest = ret->ack_exposed = SIZE_MAX;
  ret->n = res->nwindows;
  for (size_t i = 0; i < res->nwindows; i++) {
    const struct pc_window *w = &res->windows[i];
    const struct pc_point *lost = w->lost_until >= 0 ? &res->points[w->lost_until] : NULL;
    if (lost && lost->moment >= w->mark_record)
      ret->exposed++;
    if (w->ack_exposed_ns > ret->ack_exposed_ns ||
        (ret->ack_exposed == SIZE_MAX && lost && w->ack[0] && lost->moment >= w->ack_record)) {
      ret->ack_exposed_ns = w->ack_exposed_ns;
      ret->ack_exposed = i;
    }
    if (w->durable_ns < 0) {
      ret->never++;
      if (since (end, w->written_ns) > ret->open_ns)
        ret->open_ns = since (end, w->written_ns);
      continue;
    }
    if (ret->longest == SIZE_MAX || w->window_ns > ret->longest_ns) {
      ret->longest_ns = w->window_ns;
      ret->longest = i;
    }
    if (win)
      win[nd++] = w->window_ns;
  }
  if (ret->ack_exposed != SIZE_MAX)
    ret->ack_fault = lost_fault (res, &res->windows[ret->ack_exposed]);
  if (nd > 0) {
    qsort (win, nd, sizeof *win, cmp_u64);
    ret->median_ns = nd % 2 ? win[nd / 2] : (win[nd / 2 - 1] + win[nd / 2]) / 2;
  }
  free (win);
}

void
pc_windows_free (struct pc_check_result *res)
{
  for (size_t i = 0; i < res->nwindows; i++)
    free (res->windows[i].path);
  free (res->windows);
  res->windows = NULL;
  res->nwindows = 0;
}
