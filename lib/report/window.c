/* window.c: durability windows in the reports: text, JSON, reading
 * them back and joining shards'. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/jsonio.h"
#include "report/report.h"
#include "report/reportint.h"
#include "result/result.h"

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

/* Puts w's path for people. */
static void
put_path (FILE *f, const struct pc_window *w)
{
  char *shown = pc_display_name (w->path);

  fputs (shown ? shown : w->path, f);
  free (shown);
}

static int
by_window (const void *a, const void *b)
{
  const struct pc_window *x = *(const struct pc_window *const *) a;
  const struct pc_window *y = *(const struct pc_window *const *) b;

  if (x->window_ns != y->window_ns)
    return x->window_ns > y->window_ns ? -1 : 1;
  return x < y ? -1 : x > y;
}

#define SEC(ns) ((double) (ns) / 1e9)
#define MAX_GROUPS 12

/* The length of path's first component if it is a directory, else 0. */
static size_t
top_dir (const char *path)
{
  const char *sl = strchr (path, '/');

  return sl ? (size_t) (sl - path) : 0;
}

/* When the versions sit in a few top directories (one per way of
 * writing, say), each one's longest and median window. */
static void
by_directory (FILE *f, const struct pc_check_result *res)
{
  struct group {
    const char *name;
    size_t len;
  } g[MAX_GROUPS];
  uint64_t *win = malloc (res->nwindows * sizeof *win);
  size_t ng = 0;

  for (size_t i = 0; win && i < res->nwindows; i++) {
    const char *p = res->windows[i].path;
    size_t len = top_dir (p), k;
    for (k = 0; k < ng; k++)
      if (g[k].len == len && strncmp (g[k].name, p, len) == 0)
        break;
    if (k == ng) {
      if (ng == MAX_GROUPS || len == 0) {
        ng = 0;                 /* files at the top, or too many: no breakdown */
        break;
      }
      g[ng++] = (struct group) { p, len };
    }
  }
  if (ng < 2) {
    free (win);
    return;
  }
  fprintf (f, "  by directory:\n");
  for (size_t k = 0; k < ng; k++) {
    size_t n = 0, never = 0;
    for (size_t i = 0; i < res->nwindows; i++) {
      const struct pc_window *w = &res->windows[i];
      if (top_dir (w->path) != g[k].len || strncmp (w->path, g[k].name, g[k].len) != 0)
        continue;
      if (w->durable_ns < 0)
        never++;
      else
        win[n++] = w->window_ns;
    }
    qsort (win, n, sizeof *win, cmp_u64);
    fprintf (f, "    %-*.*s  ", 16, (int) g[k].len + 1, g[k].name);
    if (n)
      fprintf (f, "longest %5.1f s, median %5.1f s", SEC (win[n - 1]),
               SEC (n % 2 ? win[n / 2] : (win[n / 2 - 1] + win[n / 2]) / 2));
    if (never)
      fprintf (f, "%s%zu not durable by the last crash point", n ? "; " : "", never);
    fputc ('\n', f);
  }
  free (win);
}

void
pc_windows_text (FILE *f, const struct pc_check_result *res)
{
  struct pc_window_summary s;
  const struct pc_window **top;
  size_t ntop = 0;

  if (res->nwindows == 0)
    return;
  pc_windows_summary (res, &s);
  fprintf (f, "\ndurability windows (from a version's mark, or the call that made it, until "
           "no later crash loses it):\n");
  fprintf (f, "  %zu version%s: ", s.n, pc_s (s.n));
  if (s.longest != SIZE_MAX)
    fprintf (f, "longest %.1f s, median %.1f s", SEC (s.longest_ns), SEC (s.median_ns));
  if (s.never)
    fprintf (f, "%s%zu not durable by the last crash point (at risk up to %.1f s by then)",
             s.longest != SIZE_MAX ? "; " : "", s.never, SEC (s.open_ns));
  fputc ('\n', f);
  fprintf (f, "  at risk after they were written (a crash then kept an older version): "
           "%zu version%s\n", s.exposed, pc_s (s.exposed));
  if (s.ack_exposed == SIZE_MAX)
    fprintf (f, "  acknowledged data lost after its durable mark: none\n");
  else {
    fprintf (f, "  acknowledged data lost after its durable mark: up to %.1f s (",
             SEC (s.ack_exposed_ns));
    put_path (f, &res->windows[s.ack_exposed]);
    fprintf (f, " after %s)%s\n", res->windows[s.ack_exposed].ack,
             s.ack_fault == PC_FAULT_PROGRAM
             ? ": the program's doing (it gave that version up before the next was durable)"
             : s.ack_fault == PC_FAULT_NONE ? "" : ": the filesystem broke its promise");
  }
  by_directory (f, res);
  /* The longest, for a person to look at. */
  top = malloc (res->nwindows * sizeof *top);
  if (top == NULL)
    return;
  for (size_t i = 0; i < res->nwindows; i++)
    if (res->windows[i].durable_ns >= 0 && res->windows[i].window_ns > 0)
      top[ntop++] = &res->windows[i];
  qsort (top, ntop, sizeof *top, by_window);
  if (ntop > 0)
    fprintf (f, "  longest windows:\n");
  for (size_t i = 0; i < ntop && i < 5; i++) {
    fprintf (f, "    %6.1f s  ", SEC (top[i]->window_ns));
    put_path (f, top[i]);
    fprintf (f, " as of %s (written at %.1f s, durable at %.1f s)\n", top[i]->mark,
             SEC (top[i]->written_ns), SEC ((uint64_t) top[i]->durable_ns));
  }
  free (top);
}

/* Seconds, to the microsecond. */
json_object *
pc_windows_summary_json (const struct pc_window_summary *s)
{
  json_object *o = json_object_new_object ();

  if (o == NULL)
    return NULL;
  json_object_object_add (o, "versions", json_object_new_int64 ((int64_t) s->n));
  json_object_object_add (o, "longest", s->longest != SIZE_MAX ? pc_json_seconds (s->longest_ns) : NULL);
  json_object_object_add (o, "median", s->longest != SIZE_MAX ? pc_json_seconds (s->median_ns) : NULL);
  json_object_object_add (o, "not_durable", json_object_new_int64 ((int64_t) s->never));
  json_object_object_add (o, "open", pc_json_seconds (s->open_ns));
  json_object_object_add (o, "exposed_versions", json_object_new_int64 ((int64_t) s->exposed));
  json_object_object_add (o, "acknowledged_lost", json_object_new_boolean (s->ack_exposed != SIZE_MAX));
  json_object_object_add (o, "acknowledged_exposed", pc_json_seconds (s->ack_exposed_ns));
  json_object_object_add (o, "acknowledged_fault", s->ack_exposed != SIZE_MAX
                          ? json_object_new_string (pc_fault_name (s->ack_fault)) : NULL);
  return o;
}

json_object *
pc_windows_json (const struct pc_check_result *res)
{
  json_object *o, *arr = json_object_new_array_ext ((int) res->nwindows);
  struct pc_window_summary s;

  pc_windows_summary (res, &s);
  o = pc_windows_summary_json (&s);
  if (o == NULL || arr == NULL) {
    json_object_put (o);
    json_object_put (arr);
    return NULL;
  }
  for (size_t i = 0; i < res->nwindows; i++) {
    const struct pc_window *w = &res->windows[i];
    json_object *v = json_object_new_object ();
    pc_json_add_bytes (v, "path", w->path);
    json_object_object_add (v, "mark", json_object_new_string (w->mark));
    json_object_object_add (v, "mark_record", json_object_new_int64 ((int64_t) w->mark_record));
    json_object_object_add (v, "written", pc_json_seconds (w->written_ns));
    json_object_object_add (v, "durable", w->durable_ns >= 0
                            ? pc_json_seconds ((uint64_t) w->durable_ns) : NULL);
    json_object_object_add (v, "window", w->durable_ns >= 0 ? pc_json_seconds (w->window_ns) : NULL);
    json_object_object_add (v, "exposed", pc_json_seconds (w->exposed_ns));
    json_object_object_add (v, "acknowledged", w->ack[0] ? json_object_new_string (w->ack) : NULL);
    if (w->ack[0]) {
      json_object_object_add (v, "acknowledged_record", json_object_new_int64 ((int64_t) w->ack_record));
      json_object_object_add (v, "acknowledged_at", pc_json_seconds (w->ack_ns));
      json_object_object_add (v, "acknowledged_exposed", pc_json_seconds (w->ack_exposed_ns));
    }
    json_object_object_add (v, "lost_until", w->lost_until >= 0
                            ? json_object_new_string (res->points[w->lost_until].id) : NULL);
    json_object_array_add (arr, v);
  }
  json_object_object_add (o, "list", arr);
  return o;
}

/* A point id and its index, to find ids quickly. */
struct id_ix {
  const char *id;
  size_t i;
};

static int
cmp_id (const void *a, const void *b)
{
  return strcmp (((const struct id_ix *) a)->id, ((const struct id_ix *) b)->id);
}

int
pc_windows_read_json (json_object *o, struct pc_check_result *res, struct pc_err *err)
{
  json_object *arr = pc_json_get (o, "list", json_type_array);
  struct id_ix *ids;
  size_t n = arr ? json_object_array_length (arr) : 0;
  int r = 0;

  if (arr == NULL)
    return pc_err_set (err, EBADMSG, "\"windows\" has no \"list\"");
  res->windows = calloc (n ? n : 1, sizeof *res->windows);
  ids = malloc ((res->npoints ? res->npoints : 1) * sizeof *ids);
  if (res->windows == NULL || ids == NULL) {
    free (ids);
    return -ENOMEM;
  }
  for (size_t i = 0; i < res->npoints; i++)
    ids[i] = (struct id_ix) { res->points[i].id, i };
  qsort (ids, res->npoints, sizeof *ids, cmp_id);
  for (size_t i = 0; i < n && r == 0; i++) {
    json_object *v = json_object_array_get_idx (arr, i), *x;
    struct pc_window *w = &res->windows[i];
    bool bad = false;
    res->nwindows = i + 1;
    w->lost_until = -1;
    w->path = pc_json_get_bytes (v, "path", &bad);
    x = pc_json_get (v, "mark", json_type_string);
    if (w->path == NULL || bad || x == NULL || !pc_json_get (v, "written", json_type_double)) {
      r = pc_err_set (err, EBADMSG, "windows: version %zu: no path, mark or written", i);
      break;
    }
    snprintf (w->mark, sizeof w->mark, "%s", json_object_get_string (x));
    w->mark_record = (uint64_t) json_object_get_int64 (pc_json_get (v, "mark_record", json_type_int));
    w->written_ns = pc_json_ns (pc_json_get (v, "written", json_type_double));
    if ((x = pc_json_get (v, "acknowledged", json_type_string))) {
      snprintf (w->ack, sizeof w->ack, "%s", json_object_get_string (x));
      w->ack_record = (uint64_t) json_object_get_int64 (pc_json_get (v, "acknowledged_record",
                                                                     json_type_int));
      w->ack_ns = pc_json_ns (pc_json_get (v, "acknowledged_at", json_type_double));
    }
    if ((x = pc_json_get (v, "lost_until", json_type_string))) {
      struct id_ix key = { json_object_get_string (x), 0 }, *hit;
      hit = bsearch (&key, ids, res->npoints, sizeof *ids, cmp_id);
      if (hit == NULL) {
        r = pc_err_set (err, EBADMSG, "windows: version %zu: lost_until names no point", i);
        break;
      }
      w->lost_until = (int64_t) hit->i;
    }
  }
  free (ids);
  if (r == 0)
    pc_windows_compute (res);
  return r;
}

int
pc_windows_merge (struct pc_check_result **parts, size_t n, struct pc_check_result *res,
                  struct pc_err *err)
{
  size_t nw = n ? parts[0]->nwindows : 0, at = 0;

  for (size_t s = 1; s < n; s++) {
    bool same = parts[s]->nwindows == nw;
    for (size_t i = 0; same && i < nw; i++)
      same = strcmp (parts[s]->windows[i].path, parts[0]->windows[i].path) == 0 &&
             strcmp (parts[s]->windows[i].mark, parts[0]->windows[i].mark) == 0;
    if (!same)
      return pc_err_set (err, EINVAL, "shard %u/%u follows other versions than shard %u/%u",
                         parts[s]->shard, parts[s]->nshards, parts[0]->shard, parts[0]->nshards);
  }
  res->windows = calloc (nw ? nw : 1, sizeof *res->windows);
  if (res->windows == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < nw; i++) {
    res->windows[i] = parts[0]->windows[i];
    res->windows[i].lost_until = -1;
    if ((res->windows[i].path = strdup (parts[0]->windows[i].path)) == NULL) {
      res->nwindows = i;
      return -ENOMEM;
    }
  }
  res->nwindows = nw;
  for (size_t s = 0; s < n; s++) {
    for (size_t i = 0; i < nw; i++)
      if (parts[s]->windows[i].lost_until >= 0)
        res->windows[i].lost_until = (int64_t) at + parts[s]->windows[i].lost_until;
    at += parts[s]->npoints;
  }
  pc_windows_compute (res);
  return 0;
}

