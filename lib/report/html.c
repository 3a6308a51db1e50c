/* html.c: the self-contained HTML report with crash timelines. */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "result/finding.h"
#include "report/html.h"
#include "report/jsonio.h"
#include "format/mark.h"
#include "report/report.h"
#include "report/reportint.h"
#include "util/util.h"
#include "result/result.h"

#define MAX_FAILING_LISTED 2000

/* The page around the data.  The data is JSON in a non-executed script
 * element; the code (page.js) reads it with JSON.parse and builds the page
 * with createElement and textContent only.  page.css and page.js become
 * page_css and page_js at build time (text2c.awk). */
#include "report/page-gen.h"

static const char page_head[] =
"<!DOCTYPE html>\n"
"<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
"<title>powercut report</title>\n"
"<style>\n";

static const char page_body[] =
"</style></head><body>\n"
"<h1>powercut report</h1><div class=\"sub\" id=\"title\"></div>\n"
"<div id=\"compare\"></div>\n"
"<div class=\"axis\"><label>timelines against <select id=\"axis\"><option value=\"records\">records</option>"
"<option value=\"seconds\">seconds</option></select></label></div>\n"
"<div id=\"configs\"></div>\n"
"<script type=\"application/json\" id=\"data\">";

static const char page_script[] =
"</script>\n"
"<script>\n";

static const char page_tail[] =
"</script></body></html>\n";

/* Adds key: s for people to o (finding.h's display forms: any bytes). */
/* Distinct paths of a result's findings of one kind (-1: every failing
 * kind), as JSON rows in path order. */
static json_object *
paths_json (const struct pc_check_result *res, int kind)
{
  json_object *arr = json_object_new_array ();
  size_t n;
  struct pc_path_sum *v = pc_report_paths (res, kind, &n);

  for (size_t j = 0; j < n; j++) {
    const struct pc_finding *fd = v[j].worst;
    json_object *o = pc_json_finding (fd, PC_JSON_SHOWN), *k = json_object_new_object ();
    json_object_object_add (o, "first", json_object_new_string (v[j].first_id));
    json_object_object_add (o, "count", json_object_new_int ((int) v[j].npoints));
    json_object_object_add (o, "last", json_object_new_string (v[j].last_id));
    json_object_object_add (o, "at", json_object_new_string (v[j].worst_id));
    /* at how many points each failing verdict, and each fault */
    for (int vk = 0; vk < PC_V_COUNT; vk++)
      if (v[j].count[vk])
        json_object_object_add (k, pc_finding_name (vk), json_object_new_int64 ((int64_t) v[j].count[vk]));
    json_object_object_add (o, "counts", k);
    k = json_object_new_object ();
    for (int ft = PC_FAULT_NONE; ft < PC_FAULT_COUNT; ft++)
      if (v[j].faults[ft])
        json_object_object_add (k, pc_fault_name (ft), json_object_new_int64 ((int64_t) v[j].faults[ft]));
    json_object_object_add (o, "faults", k);
    json_object_array_add (arr, o);
  }
  free (v);
  return arr;
}

#define MAX_WINDOW_PATHS 300

/* A path's versions in res->windows (consecutive: they are by path). */
struct wpath {
  size_t first, n;
  uint64_t score;               /* its longest window, or time at risk */
};

static int
by_score (const void *a, const void *b)
{
  const struct wpath *x = a, *y = b;

  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

static int
by_first (const void *a, const void *b)
{
  const struct wpath *x = a, *y = b;

  return x->first < y->first ? -1 : x->first > y->first;
}

/* The windows for the page: the summary, and the bars of the paths with
 * the longest windows (all of them, up to MAX_WINDOW_PATHS). */
static json_object *
windows_json (const struct pc_check_result *res)
{
  json_object *o, *paths = json_object_new_array ();
  json_object *bars = json_object_new_array ();
  uint64_t end = res->npoints ? res->points[res->npoints - 1].time_ns : 0;
  struct pc_window_summary s;
  struct wpath *wp = malloc ((res->nwindows ? res->nwindows : 1) * sizeof *wp);
  size_t np = 0;

  pc_windows_summary (res, &s);
  for (size_t i = 0; wp && i < res->nwindows; i++) {
    const struct pc_window *w = &res->windows[i];
    uint64_t score = w->durable_ns >= 0 ? w->window_ns : end > w->written_ns ? end - w->written_ns : 0;
    if (np == 0 || strcmp (res->windows[wp[np - 1].first].path, w->path) != 0)
      wp[np++] = (struct wpath) { i, 0, 0 };
    wp[np - 1].n++;
    if (score > wp[np - 1].score)
      wp[np - 1].score = score;
  }
  o = pc_windows_summary_json (&s);
  json_object_object_add (o, "npaths", json_object_new_int64 ((int64_t) np));
  if (wp && np > MAX_WINDOW_PATHS) {
    qsort (wp, np, sizeof *wp, by_score);
    np = MAX_WINDOW_PATHS;
    qsort (wp, np, sizeof *wp, by_first);
  }
  for (size_t k = 0; wp && k < np; k++) {
    char *shown = pc_display_name (res->windows[wp[k].first].path);
    json_object_array_add (paths, json_object_new_string (shown ? shown : "?"));
    free (shown);
    for (size_t i = wp[k].first; i < wp[k].first + wp[k].n; i++) {
      const struct pc_window *w = &res->windows[i];
      json_object_array_add (bars, json_object_new_int ((int) k));
      json_object_array_add (bars, pc_json_seconds (w->written_ns));
      json_object_array_add (bars, w->durable_ns >= 0 ? pc_json_seconds ((uint64_t) w->durable_ns)
                                                      : json_object_new_int (-1));
      json_object_array_add (bars, pc_json_seconds (w->exposed_ns));
      /* after it was acknowledged (made durable): a broken promise */
      json_object_array_add (bars, w->ack[0] ? pc_json_seconds (w->ack_ns) : json_object_new_int (-1));
      json_object_array_add (bars, pc_json_seconds (w->ack_exposed_ns));
    }
  }
  free (wp);
  json_object_object_add (o, "paths", paths);
  json_object_object_add (o, "bars", bars);
  return o;
}

static json_object *
config_json (const struct pc_html_config *hc)
{
  const struct pc_check_result *res = hc->res;
  json_object *o = json_object_new_object (), *t;
  json_object *rec = json_object_new_array_ext ((int) res->npoints);
  json_object *v = json_object_new_array_ext ((int) res->npoints);
  json_object *ids = json_object_new_array_ext ((int) res->npoints);
  json_object *failing = json_object_new_array (), *marks = json_object_new_array ();
  json_object *flushes = json_object_new_array (), *paths;
  json_object *unchecked = json_object_new_array ();
  json_object *t_arr = json_object_new_array_ext ((int) res->npoints);
  json_object *ft = json_object_new_array ();
  size_t nfail = 0, nnot = 0;
  char cmd[512];

  json_object_object_add (o, "label", json_object_new_string (hc->label));
  pc_json_add_text (o, "log", res->log_path, false, PC_JSON_SHOWN);
  json_object_object_add (o, "model", json_object_new_string (pc_model_name (res->model.kind)));
  json_object_object_add (o, "from", json_object_new_string (res->from));
  json_object_object_add (o, "from_record", json_object_new_int64 ((int64_t) res->from_record));
  json_object_object_add (o, "records", json_object_new_int64 ((int64_t) res->records));
  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    json_object_array_add (rec, json_object_new_int64 ((int64_t) p->record));
    json_object_array_add (t_arr, pc_json_seconds (p->time_ns));
    json_object_array_add (v, json_object_new_int ((int) p->verdict));
    json_object_array_add (ids, json_object_new_string (p->id));
    if (p->verdict == PC_V_NOT_CHECKED && nnot++ < MAX_FAILING_LISTED)
      json_object_array_add (unchecked, pc_json_point (res, p, PC_JSON_SHOWN));
  }
  /* the failing points, the most telling first, as the text lists them */
  {
    size_t *rk = pc_report_ranked (res, &nfail);
    for (size_t j = 0; rk && j < nfail && j < MAX_FAILING_LISTED; j++)
      json_object_array_add (failing, pc_json_point (res, &res->points[rk[j]], PC_JSON_SHOWN));
    free (rk);
  }
  {
    char *l1, *l2;
    json_object *hl = json_object_new_array ();
    pc_report_headline (res, &l1, &l2);
    json_object_array_add (hl, json_object_new_string (l1 ? l1 : "?"));
    json_object_array_add (hl, json_object_new_string (l2 ? l2 : "?"));
    json_object_object_add (o, "headline", hl);
    free (l1);
    free (l2);
  }
  /* The replay command around a point's id, as the text report prints it:
   * replay_post_raw after the id of a state the check did not recover. */
  {
    struct pc_point probe;
    char *at;
    memset (&probe, 0, sizeof probe);
    strcpy (probe.id, "\x01");
    probe.verdict = PC_V_OK;
    pc_report_replay_cmd (res, &probe, cmd, sizeof cmd);
    at = strchr (cmd, '\x01');
    if (at) {
      json_object_object_add (o, "replay_pre", json_object_new_string_len (cmd, (int) (at - cmd)));
      json_object_object_add (o, "replay_post", json_object_new_string (at + 1));
    }
    probe.verdict = PC_V_UNMOUNTABLE;
    pc_report_replay_cmd (res, &probe, cmd, sizeof cmd);
    at = strchr (cmd, '\x01');
    if (at)
      json_object_object_add (o, "replay_post_raw", json_object_new_string (at + 1));
  }
  json_object_object_add (o, "rec", rec);
  json_object_object_add (o, "v", v);
  json_object_object_add (o, "ids", ids);
  json_object_object_add (o, "failing", failing);
  json_object_object_add (o, "unchecked", unchecked);
  json_object_object_add (o, "last_mark", json_object_new_string (res->last_mark));
  t = pc_json_totals (res->count, res->npoints, res->unique);
  json_object_object_add (t, "failing", json_object_new_int64 ((int64_t) nfail));
  json_object_object_add (t, "unchecked", json_object_new_int64 ((int64_t) nnot));
  json_object_object_add (o, "totals", t);
  {
    json_object *fo = json_object_new_object ();
    json_object_object_add (fo, pc_fault_name (PC_FAULT_FILESYSTEM),
                            json_object_new_int64 ((int64_t) res->promises));
    json_object_object_add (fo, pc_fault_name (PC_FAULT_PROGRAM),
                            json_object_new_int64 ((int64_t) res->program_promises));
    json_object_object_add (fo, pc_fault_name (PC_FAULT_NONE),
                            json_object_new_int64 ((int64_t) res->exposures));
    json_object_object_add (o, "faults", fo);
  }
  json_object_object_add (o, "not_judged", paths_json (res, PC_F_NOT_JUDGED));
  json_object_object_add (o, "older", paths_json (res, PC_F_OLDER));
  paths = paths_json (res, -1);
  json_object_object_add (o, "files", json_object_new_int ((int) json_object_array_length (paths)));
  json_object_object_add (o, "paths", paths);
  if (hc->ix) {
    for (uint64_t i = 0; i < hc->ix->n; i++) {
      const struct pc_record *r = &hc->ix->recs[i];
      if (r->type == PC_REC_FLUSH) {
        json_object_array_add (flushes, json_object_new_int64 ((int64_t) i));
        json_object_array_add (ft, pc_json_seconds (r->time_ns));
      }
      else if (r->type == PC_REC_MARK) {
        struct pc_mark m;
        if (pc_mark_decode (r->data, r->datalen, &m, NULL) == 0) {
          json_object *mk = json_object_new_object ();
          json_object_object_add (mk, "record", json_object_new_int64 ((int64_t) i));
          json_object_object_add (mk, "name", json_object_new_string (m.name));
          json_object_object_add (mk, "time", pc_json_seconds (r->time_ns));
          json_object_array_add (marks, mk);
          pc_mark_free (&m);
        }
      }
    }
  }
  json_object_object_add (o, "marks", marks);
  json_object_object_add (o, "flushes", flushes);
  json_object_object_add (o, "ft", ft);
  json_object_object_add (o, "t", t_arr);
  json_object_object_add (o, "duration", pc_json_seconds (hc->ix && hc->ix->n ? hc->ix->recs[hc->ix->n - 1].time_ns
                                                  : res->npoints ? res->points[res->npoints - 1].time_ns : 0));
  json_object_object_add (o, "windows", windows_json (res));
  return o;
}

/* Writes JSON text so that no "</script" (or any markup) can appear in it:
 * <, > and & only occur inside strings, where \u escapes mean the same. */
static int
write_safe_json (FILE *f, const char *s)
{
  for (; *s; s++) {
    int r;
    if (*s == '<')
      r = fputs ("\\u003c", f);
    else if (*s == '>')
      r = fputs ("\\u003e", f);
    else if (*s == '&')
      r = fputs ("\\u0026", f);
    else
      r = fputc (*s, f);
    if (r == EOF)
      return -EIO;
  }
  return 0;
}

/* The verdict table, for the page's code. */
static json_object *
verdicts_json (void)
{
  json_object *a = json_object_new_array ();

  for (int v = 0; v < PC_V_COUNT; v++) {
    const struct pc_verdict_info *vi = pc_verdict_info (v);
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "name", json_object_new_string (vi->name));
    json_object_object_add (o, "rank", json_object_new_int (vi->rank));
    json_object_object_add (o, "colour", json_object_new_string (vi->colour));
    json_object_object_add (o, "meaning", json_object_new_string (vi->meaning));
    json_object_object_add (o, "verdict", json_object_new_boolean (v != PC_V_NOT_CHECKED));
    json_object_array_add (a, o);
  }
  return a;
}

int
pc_report_html (const char *path, const char *title,
                const struct pc_html_config *cfg, size_t n)
{
  json_object *root = json_object_new_object (), *arr = json_object_new_array ();
  FILE *f;
  int r = 0;

  json_object_object_add (root, "title", json_object_new_string (title));
  json_object_object_add (root, "verdicts", verdicts_json ());
  for (size_t i = 0; i < n; i++)
    json_object_array_add (arr, config_json (&cfg[i]));
  json_object_object_add (root, "configs", arr);
  f = fopen (path, "we");
  if (f == NULL) {
    r = -errno;
    json_object_put (root);
    return r;
  }
  if (fputs (page_head, f) == EOF || fputs (page_css, f) == EOF || fputs (page_body, f) == EOF)
    r = -EIO;
  if (r == 0)
    r = write_safe_json (f, json_object_to_json_string_ext (root, JSON_C_TO_STRING_PLAIN));
  if (r == 0 && (fputs (page_script, f) == EOF || fputs (page_js, f) == EOF ||
                 fputs (page_tail, f) == EOF))
    r = -EIO;
  if (fclose (f) == EOF && r == 0)
    r = -errno;
  json_object_put (root);
  return r;
}
