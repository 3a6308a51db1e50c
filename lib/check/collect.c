/* collect.c: a check's last step: the workers' results read back into
 * the crash points, the recovery points placed after theirs, and the
 * durability windows (checkint.h, check_collect). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check/checkint.h"
#include "oracle/oracle.h"
#include "result/result.h"
#include "util/util.h"

/* The workers' results files, read whole. */
struct outputs {
  uint8_t **data;
  uint64_t *size;
  unsigned n;
};

static void
outputs_free (struct outputs *o)
{
  for (unsigned i = 0; i < o->n; i++)
    free (o->data[i]);
  free (o->data);
  free (o->size);
}

static int
outputs_read (struct ctx *c, struct outputs *o)
{
  o->n = c->spawned;
  o->data = calloc (o->n ? o->n : 1, sizeof *o->data);
  o->size = calloc (o->n ? o->n : 1, sizeof *o->size);
  if (o->data == NULL || o->size == NULL)
    return -ENOMEM;
  for (unsigned i = 0; i < o->n; i++) {
    char path[4200];
    struct stat st;
    int fd, r = 0;
    snprintf (path, sizeof path, "%s/results-%u", c->work, i);
    fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;                 /* it died before it made one: it holds nothing */
    if (fstat (fd, &st) < 0)
      r = -errno;
    else if ((o->data[i] = malloc (st.st_size ? (size_t) st.st_size : 1)) == NULL)
      r = -ENOMEM;
    else if ((r = pc_pread_all (fd, o->data[i], (uint64_t) st.st_size, 0)) == 0)
      o->size[i] = (uint64_t) st.st_size;
    close (fd);
    if (r < 0)
      return r;
  }
  return 0;
}

/* Point p's evidence and findings from the record rs names. */
static int
read_record (const struct outputs *o, const struct result *rs, struct pc_point *p)
{
  const uint8_t *d;
  size_t el, used;

  if (rs->file < 0 || (uint64_t) rs->file >= o->n || o->data[rs->file] == NULL ||
      rs->off > o->size[rs->file] || rs->len > o->size[rs->file] - rs->off || rs->len < 4)
    return -EBADMSG;
  d = o->data[rs->file] + rs->off;
  el = pc_get_le32 (d);
  if (el > rs->len - 4)
    return -EBADMSG;
  snprintf (p->evidence, sizeof p->evidence, "%.*s", (int) el, (const char *) d + 4);
  return pc_findings_unpack (d + 4 + el, rs->len - 4 - el, &used, &p->findings);
}

/* The versions the marks recorded, and the last state that lost each. */
static int
windows (struct ctx *c, struct pc_check_result *res)
{
  size_t nv;
  const struct pc_oracle_version *v = pc_oracle_versions (c->oracle, &nv);

  res->windows = calloc (nv ? nv : 1, sizeof *res->windows);
  if (res->windows == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < nv; i++) {
    struct pc_window *w = &res->windows[i];
    if ((w->path = strdup (v[i].path)) == NULL)
      return -ENOMEM;
    res->nwindows = i + 1;
    snprintf (w->mark, sizeof w->mark, "%s", v[i].mark);
    w->mark_record = v[i].record;
    w->written_ns = pc_window_time (c->ix.recs[v[i].record].time_ns);
    if (v[i].ack) {
      snprintf (w->ack, sizeof w->ack, "%s", v[i].ack);
      w->ack_record = v[i].ack_record;
      w->ack_ns = pc_window_time (c->ix.recs[v[i].ack_record].time_ns);
    }
    w->lost_until = c->sh->lost[i];
  }
  pc_windows_compute (res);
  return 0;
}

/* A state of a recovery the workers judged (check --recovery-crashes). */
struct rpoint {
  size_t parent;                /* the point whose recovery it is */
  uint64_t k;                   /* the recovery log's record */
  struct result rs;
};

static int
cmp_rpoint (const void *a, const void *b)
{
  const struct rpoint *x = a, *y = b;

  if (x->parent != y->parent)
    return x->parent < y->parent ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

/* The states of the kernel's recoveries (checkpool.c's recovery-ID files)
 * into res's points, each after the point it is the recovery of, named
 * ID/recovery:K, judged as the worker found.  Returns 0 or -errno (why). */
static int
recovery_points (struct ctx *c, const struct outputs *o, struct pc_check_result *res,
                 struct pc_err *why)
{
  struct rpoint *rp = NULL;
  size_t n = 0, cap = 0, total, *at = NULL;
  struct pc_point *pts = NULL;
  int r = 0;

  for (unsigned w = 0; r == 0 && w < c->spawned; w++) {
    char path[4200];
    unsigned long long i, k, off, len;
    int v;
    FILE *f;
    snprintf (path, sizeof path, "%s/recovery-%u", c->work, w);
    f = fopen (path, "re");
    if (f == NULL)
      continue;
    while (r == 0 && fscanf (f, "%llu %llu %d %llu %llu", &i, &k, &v, &off, &len) == 5) {
      if (i >= c->nstates) {
        r = -EBADMSG;
        break;
      }
      if ((r = pc_grow (&rp, &cap, n + 1, sizeof *rp, 16)) < 0)
        break;
      rp[n++] = (struct rpoint) { .parent = i, .k = k, .rs = { .verdict = v, .kernel = true,
                                                              .file = w, .off = off, .len = len } };
    }
    fclose (f);
  }
  if (r < 0 || n == 0)
    goto out;
  qsort (rp, n, sizeof *rp, cmp_rpoint);
  total = res->npoints + n;
  pts = calloc (total, sizeof *pts);
  at = malloc (res->npoints * sizeof *at);
  if (pts == NULL || at == NULL) {
    r = -ENOMEM;
    goto out;
  }
  for (size_t i = 0, j = 0, q = 0; i < res->npoints; i++) {
    at[i] = q;
    pts[q++] = res->points[i];
    for (; j < n && rp[j].parent == i; j++, q++) {
      struct pc_point *p = &pts[q];
      const struct pc_point *pp = &res->points[i];
      p->record = pp->record;
      p->time_ns = pp->time_ns;
      p->moment = pp->moment;
      p->moment_ns = pp->moment_ns;
      p->kernel = true;
      p->recovery = true;
      p->recovery_record = rp[j].k;
      p->same_as = p->fsck_as = -1;
      snprintf (p->id, sizeof p->id, "%.*s/recovery:%" PRIu64, PC_ID_MAX - 32, pp->id,
                rp[j].k);
      r = read_record (o, &rp[j].rs, p);
      if (r < 0) {
        pc_err_msg (why, "point %s: its result cannot be read back", p->id);
        break;
      }
      p->verdict = rp[j].rs.verdict;
    }
    if (r < 0)
      break;
  }
  if (r < 0) {
    for (size_t q = 0; q < total; q++)
      if (pts[q].recovery)
        pc_findings_clear (&pts[q].findings);
    goto out;
  }
  for (size_t q = 0; q < total; q++) {
    if (pts[q].same_as >= 0)
      pts[q].same_as = (int64_t) at[pts[q].same_as];
    if (pts[q].fsck_as >= 0)
      pts[q].fsck_as = (int64_t) at[pts[q].fsck_as];
  }
  free (res->points);
  res->points = pts;
  res->npoints = total;
  pts = NULL;
out:
  free (pts);
  free (at);
  free (rp);
  return r;
}

/* Step 4: the workers' results into the points. */
int
check_collect (struct ctx *c, struct pc_check_result *res, struct pc_err *why)
{
  struct outputs o = { 0 };
  size_t *image = NULL;
  int r = outputs_read (c, &o);

  /* Which distinct image each point is. */
  if (r == 0 && (image = malloc ((c->nstates ? c->nstates : 1) * sizeof *image)) == NULL)
    r = -ENOMEM;
  for (size_t u = 0; r == 0 && u < c->nuniq; u++)
    for (size_t k = c->gstart[u]; k < c->gstart[u + 1]; k++)
      image[c->gpoints[k]] = u;
  for (size_t i = 0; r == 0 && i < c->nstates; i++) {
    struct pc_point *p = &res->points[i];
    const struct pc_state *s = &c->states[i];
    const struct result *rs = &c->sh->results[i];
    pc_state_id (s, &res->model, p->id, sizeof p->id);
    p->record = s->point;
    p->time_ns = pc_window_time (c->ix.recs[s->point].time_ns);
    p->moment = c->moment[i];
    p->moment_ns = pc_window_time (c->ix.recs[c->moment[i] + 1 < c->ix.n ? c->moment[i] + 1
                                                                           : c->moment[i]].time_ns);
    p->ndrop = s->ndrop;
    p->torn = s->nsect > 0;
    p->same_as = c->same_as[i];
    p->fsck_as = -1;
    if (c->failed[image[i]]) {
      p->verdict = PC_V_NOT_CHECKED;
      snprintf (p->evidence, sizeof p->evidence, "%s", c->failed[image[i]]);
      continue;
    }
    r = read_record (&o, rs, p);
    if (r == -EBADMSG) {
      /* Cannot be: a result the worker stored is in its file. */
      pc_err_msg (why, "point %s: its result cannot be read back", p->id);
      break;
    }
    if (r < 0)
      break;
    if (rs->verdict == CHECK_ERROR) {
      pc_err_msg (why, "cannot check crash states: %s", p->evidence);
      r = -EIO;
      break;
    }
    p->verdict = rs->verdict;
    p->kernel = rs->kernel;
    /* Its e2fsck answer came from the state checked for that image. */
    p->fsck_as = rs->fsck_as;
    if (p->same_as >= 0 && p->fsck_as < 0)
      p->fsck_as = c->sh->results[p->same_as].fsck_as;
  }
  free (image);
  if (r == 0)
    r = recovery_points (c, &o, res, why);
  outputs_free (&o);
  if (r < 0)
    return r;
  res->work = c->sh->stats;
  if (res->work.kernel > 0) {
    struct utsname u;
    if (uname (&u) == 0)
      snprintf (res->kernel, sizeof res->kernel, "%s", u.release);
  }
  pc_check_result_recount (res);
  return windows (c, res);
}
