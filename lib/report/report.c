/* report.c: text and JSON check reports, and merging shard reports. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "result/finding.h"
#include "report/jsonio.h"
#include "report/report.h"
#include "util/util.h"
#include "result/result.h"

#define MAX_LISTED 20

/* Quotes s for a POSIX shell when it needs it: in single quotes, or, if
 * it holds control bytes or bytes that are not UTF-8, in dollar-single
 * quotes with \xNN escapes (POSIX.1-2024, bash), so that the command is
 * one printable line that still names the file exactly. */
static void
shell_quote (const char *s, char *buf, size_t len)
{
  size_t n = strlen (s), o = 0;
  bool plain = pc_utf8_valid (s, n);

  for (size_t i = 0; plain && i < n; i++)
    plain = (unsigned char) s[i] >= 0x20 && s[i] != 0x7f;
  if (s[strspn (s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./:=+,")] == '\0'
      && *s)
    snprintf (buf, len, "%s", s);
  else if (plain)
    pc_shell_quote (s, buf, len);
  else if (len > 0) {
    o = (size_t) snprintf (buf, len, "$'");
    for (size_t i = 0; i < n && o + 6 < len; i++) {
      unsigned char c = (unsigned char) s[i];
      if (c == '\\' || c == '\'')
        o += (size_t) snprintf (buf + o, len - o, "\\%c", c);
      else if (c < 0x20 || c >= 0x7f)
        o += (size_t) snprintf (buf + o, len - o, "\\x%02x", c);
      else
        buf[o++] = (char) c;
    }
    snprintf (buf + o, len - o, "'");
  }
}

void
pc_report_replay_cmd (const struct pc_check_result *res, const struct pc_point *p,
                      char *buf, size_t len)
{
  char log[1024], base[1024] = "";

  shell_quote (res->log_path, log, sizeof log);
  if (res->base_path) {
    char q[1000];
    shell_quote (res->base_path, q, sizeof q);
    snprintf (base, sizeof base, " --base %s", q);
  }
  snprintf (buf, len, "powercut replay %s --at %s%s%s -o state.img", log, p->id, base,
            res->keep_trimmed ? " --keep-trimmed" : "");
}

int
pc_report_failed (const struct pc_check_result *res)
{
  return res->npoints > res->count[PC_V_OK] + res->count[PC_V_NOT_CHECKED];
}

/* Prints s through show (pc_display_name or _text); "?" without memory. */
static void
put_shown (FILE *f, char *(*show) (const char *), const char *s)
{
  char *d = show (s);

  fputs (d ? d : "?", f);
  free (d);
}

struct pc_path_sum *
pc_report_paths (const struct pc_check_result *res, int kind, size_t *ret_n)
{
  struct pc_path_sum *v = NULL;
  size_t n = 0, cap = 0;

  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    for (size_t k = 0; k < p->findings.n; k++) {
      const struct pc_finding *fd = &p->findings.v[k];
      size_t lo = 0, hi = n;
      if (kind >= 0 ? fd->kind != kind : pc_finding_verdict (fd->kind) == PC_V_OK)
        continue;
      /* v is kept sorted by path: find it, or where it goes. */
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp (v[mid].first->path, fd->path);
        if (c == 0)
          lo = hi = mid;
        else if (c < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == n || strcmp (v[lo].first->path, fd->path) != 0) {
        if (pc_grow (&v, &cap, n + 1, sizeof *v, 16) < 0) {
          free (v);
          *ret_n = 0;
          return NULL;
        }
        memmove (v + lo + 1, v + lo, (n - lo) * sizeof *v);
        v[lo] = (struct pc_path_sum) { fd, 0, p->id, p->id };
        n++;
      }
      v[lo].npoints++;
      v[lo].last_id = p->id;
    }
  }
  *ret_n = n;
  return v;
}

static void
paths_text (FILE *f, const struct pc_check_result *res)
{
  size_t n, shown = 0;
  struct pc_path_sum *v = pc_report_paths (res, -1, &n);

  if (n == 0)
    goto out;
  fprintf (f, "\nfiles affected: %zu\n", n);
  for (size_t j = 0; j < n && shown < MAX_LISTED; j++, shown++) {
    fputs ("  ", f);
    put_shown (f, pc_display_name, v[j].first->path);
    fprintf (f, ": %s at %zu point%s (%s .. %s)\n", pc_finding_name (v[j].first->kind),
             v[j].npoints, v[j].npoints == 1 ? "" : "s", v[j].first_id, v[j].last_id);
    fputs ("      found:   ", f);
    put_shown (f, pc_display_line, v[j].first->found);
    fputs ("\n      allowed: ", f);
    put_shown (f, pc_display_line, v[j].first->allowed);
    fputc ('\n', f);
  }
  if (n > shown)
    fprintf (f, "  ... and %zu more files (see the JSON report)\n", n - shown);
out:
  free (v);
}

/* Paths the workload changed after its last mark: not judged, and why. */
static void
not_judged_text (FILE *f, const struct pc_check_result *res)
{
  size_t n;
  struct pc_path_sum *v = pc_report_paths (res, PC_F_NOT_JUDGED, &n);

  if (n > 0) {
    fprintf (f, "\nnot judged: %zu path%s the workload changed after its last mark (%s): "
             "what the crash points after it hold there is listed, not judged\n",
             n, n == 1 ? "" : "s", res->last_mark[0] ? res->last_mark : "?");
    for (size_t j = 0; j < n && j < MAX_LISTED; j++) {
      fputs ("  ", f);
      put_shown (f, pc_display_name, v[j].first->path);
      fprintf (f, " (at %zu point%s)\n", v[j].npoints, v[j].npoints == 1 ? "" : "s");
    }
    if (n > MAX_LISTED)
      fprintf (f, "  ... and %zu more (see the JSON report)\n", n - MAX_LISTED);
    fprintf (f, "hint: place a final mark after the workload's last change "
             "(powercut mark NAME --manifest DIR --sync) to judge them\n");
  }
  free (v);
}

static void
indent_lines (FILE *f, const char *text, const char *pfx)
{
  char *shown = pc_display_text (text);

  for (const char *l = shown ? shown : "?"; *l;) {
    const char *nl = strchr (l, '\n');
    int n = nl ? (int) (nl - l) : (int) strlen (l);
    fprintf (f, "%s%.*s\n", pfx, n, l);
    l += n + (nl ? 1 : 0);
  }
  free (shown);
}

/* The points of one kind: failing (not_checked false) or not checked. */
static void
points_text (FILE *f, const struct pc_check_result *res, bool not_checked, size_t total)
{
  size_t listed = 0;
  char cmd[512];

  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    if (p->verdict == PC_V_OK || (p->verdict == PC_V_NOT_CHECKED) != not_checked)
      continue;
    if (listed == 0 && !not_checked)
      fprintf (f, "first failing crash point: %s (%s)\n", p->id, pc_verdict_name (p->verdict));
    if (listed == MAX_LISTED) {
      fprintf (f, "... and %zu more %s points (see the JSON report)\n",
               total - listed, not_checked ? "unchecked" : "failing");
      break;
    }
    fprintf (f, "\n%s: %s", p->id, pc_verdict_name (p->verdict));
    if (p->same_as >= 0)
      fprintf (f, " (same image as %s)", res->points[p->same_as].id);
    fputc ('\n', f);
    indent_lines (f, p->evidence, "    ");
    for (size_t k = 0; k < p->findings.n; k++) {
      const struct pc_finding *fd = &p->findings.v[k];
      if (pc_finding_verdict (fd->kind) == PC_V_OK)
        continue;
      fprintf (f, "    %s ", pc_finding_name (fd->kind));
      put_shown (f, pc_display_name, fd->path);
      fputs (": found ", f);
      put_shown (f, pc_display_line, fd->found);
      fputc ('\n', f);
    }
    pc_report_replay_cmd (res, p, cmd, sizeof cmd);
    fprintf (f, "    rebuild: %s\n", cmd);
    listed++;
  }
}

void
pc_report_text (FILE *f, const struct pc_check_result *res)
{
  size_t nnot = res->count[PC_V_NOT_CHECKED];
  size_t nfail = res->npoints - res->count[PC_V_OK] - nnot;

  fputs ("powercut check: ", f);
  put_shown (f, pc_display_line, res->log_path);
  fprintf (f, "\nmodel %s", pc_model_name (res->model.kind));
  if (res->model.kind == PC_MODEL_REORDER || res->model.kind == PC_MODEL_TORN)
    fprintf (f, ":%u (seed %" PRIu64 ")", res->model.k, res->model.seed);
  fprintf (f, ", from %s (record %" PRIu64 ") of %" PRIu64 " records",
           res->from[0] ? res->from : "the start", res->from_record, res->records);
  if (res->nshards > 1)
    fprintf (f, ", shard %u/%u", res->shard, res->nshards);
  fprintf (f, "%s\n", res->log_torn ? " (the log was cut: no end record)" : "");
  fprintf (f, "%zu crash points, %zu distinct images checked in %.1f s\n",
           res->npoints, res->unique, res->seconds);
  if (res->work.fsck_reused > 0)
    fprintf (f, "e2fsck -fn run on %" PRIu64 " images; %" PRIu64 " others hold the same bytes "
             "where it read and share its answer\n",
             res->work.fsck_runs, res->work.fsck_reused);
  for (int v = 0; v < PC_V_NOT_CHECKED; v++)
    if (res->count[v] || v == PC_V_OK)
      fprintf (f, "  %-13s %zu\n", pc_verdict_name (v), res->count[v]);
  if (nnot > 0)
    fprintf (f, "not checked: %zu crash point%s (powercut could not check %s: no verdict)\n",
             nnot, nnot == 1 ? "" : "s", nnot == 1 ? "it" : "them");
  if (res->manifests == 0 && res->verify == NULL)
    fprintf (f, "(no mark carries a manifest: only the filesystem was checked)\n");
  if (res->verify) {
    fputs ("application checked by: ", f);
    put_shown (f, pc_display_line, res->verify);
    fputc ('\n', f);
  }
  not_judged_text (f, res);
  if (nfail == 0) {
    fprintf (f, "%s\n", nnot ? "no problem found in the crash points checked"
                             : "no problem found");
    pc_windows_text (f, res);
  }
  else {
    paths_text (f, res);
    pc_windows_text (f, res);
    fprintf (f, "\nfailing crash points:\n");
    points_text (f, res, false, nfail);
  }
  if (nnot > 0) {
    fprintf (f, "\ncrash points not checked:\n");
    points_text (f, res, true, nnot);
  }
}

static json_object *
point_json (const struct pc_check_result *res, const struct pc_point *p)
{
  json_object *o = json_object_new_object (), *ev = json_object_new_array ();
  json_object *fa = json_object_new_array_ext ((int) p->findings.n);
  size_t elen = strlen (p->evidence);
  bool utf8 = pc_utf8_valid (p->evidence, elen);
  char *shown = utf8 ? NULL : pc_display_text (p->evidence);
  char cmd[512];

  json_object_object_add (o, "id", json_object_new_string (p->id));
  json_object_object_add (o, "record", json_object_new_int64 ((int64_t) p->record));
  {
    char t[32];
    snprintf (t, sizeof t, "%.6f", (double) p->time_ns / 1e9);
    json_object_object_add (o, "time", json_object_new_double_s ((double) p->time_ns / 1e9, t));
  }
  json_object_object_add (o, "dropped", json_object_new_int64 (p->ndrop));
  json_object_object_add (o, "torn", json_object_new_boolean (p->torn));
  json_object_object_add (o, "verdict", json_object_new_string (pc_verdict_name (p->verdict)));
  json_object_object_add (o, "same_as", p->same_as >= 0
                          ? json_object_new_string (res->points[p->same_as].id) : NULL);
  json_object_object_add (o, "fsck_same_as", p->fsck_as >= 0
                          ? json_object_new_string (res->points[p->fsck_as].id) : NULL);
  /* Evidence as lines; if it is not UTF-8, the lines show it and
   * evidence_hex holds its bytes. */
  for (const char *l = utf8 ? p->evidence : shown ? shown : "?"; *l;) {
    const char *nl = strchr (l, '\n');
    size_t n = nl ? (size_t) (nl - l) : strlen (l);
    json_object_array_add (ev, json_object_new_string_len (l, (int) n));
    l += n + (nl ? 1 : 0);
  }
  json_object_object_add (o, "evidence", ev);
  if (!utf8) {
    char *hex = pc_json_hex (p->evidence);
    json_object_object_add (o, "evidence_hex", hex ? json_object_new_string (hex) : NULL);
    free (hex);
  }
  free (shown);
  for (size_t k = 0; k < p->findings.n; k++) {
    const struct pc_finding *fd = &p->findings.v[k];
    json_object *x = json_object_new_object ();
    json_object_object_add (x, "verdict", json_object_new_string (pc_finding_name (fd->kind)));
    pc_json_add_bytes (x, "path", fd->path);
    pc_json_add_bytes (x, "found", fd->found);
    pc_json_add_bytes (x, "allowed", fd->allowed);
    json_object_array_add (fa, x);
  }
  json_object_object_add (o, "findings", fa);
  pc_report_replay_cmd (res, p, cmd, sizeof cmd);
  pc_json_add_bytes (o, "replay", cmd);
  return o;
}

int
pc_report_json (const char *path, const struct pc_check_result *res)
{
  json_object *root = json_object_new_object (), *tot = json_object_new_object ();
  json_object *pts = json_object_new_array_ext ((int) res->npoints);
  int r = 0;

  json_object_object_add (root, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (root, "schema", json_object_new_int (1));
  pc_json_add_bytes (root, "log", res->log_path);
  json_object_object_add (root, "log_start_ns", json_object_new_uint64 (res->log_start_ns));
  if (res->base_path)
    pc_json_add_bytes (root, "base", res->base_path);
  else
    json_object_object_add (root, "base", NULL);
  json_object_object_add (root, "keep_trimmed", json_object_new_boolean (res->keep_trimmed));
  json_object_object_add (root, "model", json_object_new_string (pc_model_name (res->model.kind)));
  json_object_object_add (root, "k", json_object_new_int ((int) res->model.k));
  json_object_object_add (root, "seed", json_object_new_uint64 (res->model.seed));
  json_object_object_add (root, "from", json_object_new_string (res->from));
  json_object_object_add (root, "from_record", json_object_new_int64 ((int64_t) res->from_record));
  json_object_object_add (root, "records", json_object_new_int64 ((int64_t) res->records));
  json_object_object_add (root, "device_size", json_object_new_uint64 (res->device_size));
  json_object_object_add (root, "log_torn", json_object_new_boolean (res->log_torn));
  json_object_object_add (root, "shard", json_object_new_int ((int) res->shard));
  json_object_object_add (root, "shards", json_object_new_int ((int) res->nshards));
  json_object_object_add (root, "seconds", json_object_new_double (res->seconds));
  json_object_object_add (root, "manifests", json_object_new_int64 ((int64_t) res->manifests));
  if (res->verify)
    pc_json_add_bytes (root, "verify", res->verify);
  else
    json_object_object_add (root, "verify", NULL);
  json_object_object_add (root, "last_mark", res->last_mark[0]
                          ? json_object_new_string (res->last_mark) : NULL);
  {
    json_object *w = json_object_new_object ();
    json_object_object_add (w, "fsck_runs", json_object_new_uint64 (res->work.fsck_runs));
    json_object_object_add (w, "fsck_reused", json_object_new_uint64 (res->work.fsck_reused));
    json_object_object_add (w, "recovered_in_process",
                            json_object_new_uint64 (res->work.recover_here));
    json_object_object_add (w, "recovered_by_e2fsck",
                            json_object_new_uint64 (res->work.recover_e2fsck));
    json_object_object_add (w, "files_read", json_object_new_uint64 (res->work.files_read));
    json_object_object_add (w, "files_reused", json_object_new_uint64 (res->work.files_reused));
    json_object_object_add (root, "work", w);
  }
  json_object_object_add (tot, "points", json_object_new_int64 ((int64_t) res->npoints));
  json_object_object_add (tot, "unique", json_object_new_int64 ((int64_t) res->unique));
  for (int v = 0; v < PC_V_COUNT; v++)
    json_object_object_add (tot, pc_verdict_name (v), json_object_new_int64 ((int64_t) res->count[v]));
  json_object_object_add (root, "totals", tot);
  json_object_object_add (root, "windows", pc_windows_json (res));
  for (size_t i = 0; i < res->npoints; i++)
    json_object_array_add (pts, point_json (res, &res->points[i]));
  json_object_object_add (root, "points", pts);

  if (strcmp (path, "-") == 0) {
    fputs (json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY), stdout);
    fputc ('\n', stdout);
  }
  else if (json_object_to_file_ext (path, root, JSON_C_TO_STRING_PRETTY) < 0)
    r = errno ? -errno : -EIO;
  json_object_put (root);
  return r;
}

/* The index of the point named by v among the first n points, or -1. */
static int64_t
resolve_id (const struct pc_check_result *res, size_t n, json_object *v)
{
  const char *sid = v ? json_object_get_string (v) : NULL;

  for (size_t j = n; sid && j-- > 0;)
    if (strcmp (res->points[j].id, sid) == 0)
      return (int64_t) j;
  return -1;
}

int
pc_report_read_json (const char *path, struct pc_check_result **ret, char *why, size_t whylen)
{
  json_object *root = json_object_from_file (path), *v, *pts;
  struct pc_check_result *res = NULL;
  const char *bad = NULL;
  size_t n;

  if (root == NULL) {
    if (access (path, R_OK) < 0)
      snprintf (why, whylen, "%s: %s", path, strerror (errno));
    else
      snprintf (why, whylen, "%s: not a readable JSON file", path);
    return -EBADMSG;
  }
  res = calloc (1, sizeof *res);
  if (res == NULL)
    goto nomem;
  if (!(v = pc_json_get (root, "schema", json_type_int)) || json_object_get_int (v) != 1) {
    bad = "not a powercut report (schema 1)";
    goto bad;
  }
  {
    bool b = false;
    res->log_path = pc_json_get_bytes (root, "log", &b);
    if (res->log_path == NULL) {
      bad = "no log";
      goto bad;
    }
    res->base_path = pc_json_get_bytes (root, "base", &b);
    res->verify = pc_json_get_bytes (root, "verify", &b);
    if (b) {
      bad = "a malformed base";
      goto bad;
    }
  }
  if (!(v = pc_json_get (root, "model", json_type_string)) ||
      pc_model_parse (json_object_get_string (v), &res->model) < 0) {
    bad = "no model";
    goto bad;
  }
  if ((v = pc_json_get (root, "log_start_ns", json_type_int)))
    res->log_start_ns = json_object_get_uint64 (v);
  if ((v = pc_json_get (root, "keep_trimmed", json_type_boolean)))
    res->keep_trimmed = json_object_get_boolean (v);
  if ((v = pc_json_get (root, "k", json_type_int)))
    res->model.k = (unsigned) json_object_get_int (v);
  if ((v = pc_json_get (root, "seed", json_type_int)))
    res->model.seed = json_object_get_uint64 (v);
  if ((v = pc_json_get (root, "from", json_type_string)))
    snprintf (res->from, sizeof res->from, "%s", json_object_get_string (v));
  if ((v = pc_json_get (root, "from_record", json_type_int)))
    res->from_record = (uint64_t) json_object_get_int64 (v);
  if ((v = pc_json_get (root, "records", json_type_int)))
    res->records = (uint64_t) json_object_get_int64 (v);
  if ((v = pc_json_get (root, "device_size", json_type_int)))
    res->device_size = json_object_get_uint64 (v);
  if ((v = pc_json_get (root, "log_torn", json_type_boolean)))
    res->log_torn = json_object_get_boolean (v);
  if ((v = pc_json_get (root, "seconds", json_type_double)))
    res->seconds = json_object_get_double (v);
  if ((v = pc_json_get (root, "manifests", json_type_int)))
    res->manifests = (size_t) json_object_get_int64 (v);
  if ((v = pc_json_get (root, "last_mark", json_type_string)))
    snprintf (res->last_mark, sizeof res->last_mark, "%s", json_object_get_string (v));
  res->shard = (v = pc_json_get (root, "shard", json_type_int)) ? (unsigned) json_object_get_int (v) : 0;
  res->nshards = (v = pc_json_get (root, "shards", json_type_int)) ? (unsigned) json_object_get_int (v) : 1;
  if ((v = pc_json_get (root, "totals", json_type_object)) && (v = pc_json_get (v, "unique", json_type_int)))
    res->unique = (size_t) json_object_get_int64 (v);
  if ((v = pc_json_get (root, "work", json_type_object))) {
    json_object *x;
    if ((x = pc_json_get (v, "fsck_runs", json_type_int)))
      res->work.fsck_runs = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "fsck_reused", json_type_int)))
      res->work.fsck_reused = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "recovered_in_process", json_type_int)))
      res->work.recover_here = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "recovered_by_e2fsck", json_type_int)))
      res->work.recover_e2fsck = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "files_read", json_type_int)))
      res->work.files_read = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "files_reused", json_type_int)))
      res->work.files_reused = (uint64_t) json_object_get_int64 (x);
  }
  if (!(pts = pc_json_get (root, "points", json_type_array))) {
    bad = "no points";
    goto bad;
  }
  n = json_object_array_length (pts);
  res->points = calloc (n ? n : 1, sizeof *res->points);
  if (res->points == NULL)
    goto nomem;
  res->npoints = n;
  for (size_t i = 0; i < n; i++) {
    json_object *o = json_object_array_get_idx (pts, i), *ev;
    struct pc_point *p = &res->points[i];
    int verdict;
    if (!json_object_is_type (o, json_type_object) ||
        !(v = pc_json_get (o, "id", json_type_string)) ||
        strlen (json_object_get_string (v)) >= sizeof p->id) {
      bad = "a point without an id";
      goto bad;
    }
    strcpy (p->id, json_object_get_string (v));
    if (!(v = pc_json_get (o, "verdict", json_type_string)) ||
        (verdict = pc_verdict_parse (json_object_get_string (v))) < 0) {
      bad = "a point with an unknown verdict";
      goto bad;
    }
    p->verdict = verdict;
    if (!(v = pc_json_get (o, "record", json_type_int))) {
      bad = "a point without a record";
      goto bad;
    }
    p->record = (uint64_t) json_object_get_int64 (v);
    if ((v = pc_json_get (o, "time", json_type_double)) && json_object_get_double (v) > 0)
      p->time_ns = (uint64_t) (json_object_get_double (v) * 1e9 + 0.5);
    p->ndrop = (v = pc_json_get (o, "dropped", json_type_int)) ? (uint32_t) json_object_get_int (v) : 0;
    p->torn = (v = pc_json_get (o, "torn", json_type_boolean)) ? json_object_get_boolean (v) : 0;
    p->same_as = resolve_id (res, i, pc_json_get (o, "same_as", json_type_string));
    if ((ev = pc_json_get (o, "findings", json_type_array))) {
      size_t nf = json_object_array_length (ev);
      if (pc_grow (&p->findings.v, &p->findings.cap, nf, sizeof *p->findings.v, 1) < 0)
        goto nomem;
      for (size_t k = 0; k < nf; k++) {
        json_object *x = json_object_array_get_idx (ev, k);
        struct pc_finding *fd = &p->findings.v[p->findings.n];
        bool b = false;
        int kind = -1;
        if (json_object_is_type (x, json_type_object) &&
            (v = pc_json_get (x, "verdict", json_type_string)))
          kind = pc_finding_parse (json_object_get_string (v));
        if (kind < 0 || !json_object_is_type (x, json_type_object)) {
          bad = "a malformed finding";
          goto bad;
        }
        fd->kind = kind;
        fd->path = pc_json_get_bytes (x, "path", &b);
        fd->found = pc_json_get_bytes (x, "found", &b);
        fd->allowed = pc_json_get_bytes (x, "allowed", &b);
        if (fd->path == NULL || fd->found == NULL || fd->allowed == NULL) {
          free (fd->path);
          free (fd->found);
          free (fd->allowed);
          bad = "a malformed finding";
          goto bad;
        }
        p->findings.n++;
      }
    }
    {
      /* evidence_hex, if there, holds its exact bytes */
      bool b = false;
      char *exact = pc_json_get_bytes (o, "evidence", &b);
      if (b) {
        bad = "a malformed evidence";
        goto bad;
      }
      if (exact) {
        snprintf (p->evidence, sizeof p->evidence, "%s", exact);
        free (exact);
      }
      else if ((ev = pc_json_get (o, "evidence", json_type_array))) {
        size_t pos = 0;
        for (size_t k = 0; k < json_object_array_length (ev); k++) {
          json_object *line = json_object_array_get_idx (ev, k);
          if (!json_object_is_type (line, json_type_string))
            continue;
          pos += (size_t) snprintf (p->evidence + pos, sizeof p->evidence - pos, "%s%s",
                                    k ? "\n" : "", json_object_get_string (line));
          if (pos >= sizeof p->evidence)
            break;
        }
      }
    }
  }
  /* An e2fsck answer may come from any point of the report. */
  for (size_t i = 0; i < n; i++)
    res->points[i].fsck_as = resolve_id (res, n, pc_json_get (json_object_array_get_idx (pts, i),
                                                       "fsck_same_as", json_type_string));
  pc_check_result_recount (res);
  if ((v = pc_json_get (root, "windows", json_type_object))) {
    char wwhy[160];
    int r = pc_windows_read_json (v, res, wwhy, sizeof wwhy);
    if (r == -ENOMEM)
      goto nomem;
    if (r < 0) {
      json_object_put (root);
      pc_check_result_free (res);
      snprintf (why, whylen, "%s: %s", path, wwhy);
      return -EBADMSG;
    }
  }
  json_object_put (root);
  *ret = res;
  return 0;

nomem:
  json_object_put (root);
  pc_check_result_free (res);
  snprintf (why, whylen, "%s: out of memory", path);
  return -ENOMEM;
bad:
  json_object_put (root);
  pc_check_result_free (res);
  snprintf (why, whylen, "%s: %s", path, bad);
  return -EBADMSG;
}

static int
cmp_shard (const void *a, const void *b)
{
  const struct pc_check_result *x = *(const struct pc_check_result *const *) a;
  const struct pc_check_result *y = *(const struct pc_check_result *const *) b;
  return (x->shard > y->shard) - (x->shard < y->shard);
}

int
pc_report_merge (struct pc_check_result **parts, size_t n,
                 struct pc_check_result **ret, char *why, size_t whylen)
{
  struct pc_check_result *m;
  size_t total = 0, at = 0;
  unsigned nshards;
  int r;

  if (n == 0) {
    snprintf (why, whylen, "no reports to merge");
    return -EINVAL;
  }
  qsort (parts, n, sizeof *parts, cmp_shard);
  nshards = parts[0]->nshards;
  for (size_t i = 0; i < n; i++) {
    /* One log (by identity, whatever path named it), one model, one range. */
    if (parts[i]->nshards != nshards || parts[i]->shard >= nshards ||
        parts[i]->log_start_ns != parts[0]->log_start_ns ||
        parts[i]->records != parts[0]->records ||
        parts[i]->device_size != parts[0]->device_size ||
        parts[i]->from_record != parts[0]->from_record ||
        parts[i]->keep_trimmed != parts[0]->keep_trimmed ||
        parts[i]->model.kind != parts[0]->model.kind ||
        parts[i]->model.k != parts[0]->model.k ||
        parts[i]->model.seed != parts[0]->model.seed ||
        strcmp (parts[i]->from, parts[0]->from) != 0) {
      snprintf (why, whylen, "shard %u/%u is not a shard of the check shard %u/%u is "
                "(another log, model, seed, --from or number of shards)",
                parts[i]->shard, parts[i]->nshards, parts[0]->shard, nshards);
      return -EINVAL;
    }
    if (i > 0 && parts[i]->shard == parts[i - 1]->shard) {
      snprintf (why, whylen, "shard %u/%u is given twice", parts[i]->shard, nshards);
      return -EINVAL;
    }
    total += parts[i]->npoints;
  }
  for (unsigned s = 0, k = 0; s < nshards; s++, k++)
    if (k >= n || parts[k]->shard != s) {
      snprintf (why, whylen, "shard %u/%u is missing (%zu of %u shards given)", s, nshards,
                n, nshards);
      return -EINVAL;
    }
  m = calloc (1, sizeof *m);
  if (m == NULL || (m->log_path = strdup (parts[0]->log_path)) == NULL ||
      (m->points = calloc (total ? total : 1, sizeof *m->points)) == NULL) {
    pc_check_result_free (m);
    snprintf (why, whylen, "out of memory");
    return -ENOMEM;
  }
  m->model = parts[0]->model;
  m->log_start_ns = parts[0]->log_start_ns;
  m->keep_trimmed = parts[0]->keep_trimmed;
  if (parts[0]->base_path)
    m->base_path = strdup (parts[0]->base_path);
  if (parts[0]->verify)
    m->verify = strdup (parts[0]->verify);
  memcpy (m->from, parts[0]->from, sizeof m->from);
  m->from_record = parts[0]->from_record;
  m->records = parts[0]->records;
  m->device_size = parts[0]->device_size;
  m->log_torn = parts[0]->log_torn;
  m->manifests = parts[0]->manifests;
  memcpy (m->last_mark, parts[0]->last_mark, sizeof m->last_mark);
  m->nshards = 1;
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < parts[i]->npoints; j++) {
      m->points[at + j] = parts[i]->points[j];
      memset (&parts[i]->points[j].findings, 0, sizeof parts[i]->points[j].findings);
      if (m->points[at + j].same_as >= 0)
        m->points[at + j].same_as += (int64_t) at;
      if (m->points[at + j].fsck_as >= 0)
        m->points[at + j].fsck_as += (int64_t) at;
    }
    at += parts[i]->npoints;
    m->unique += parts[i]->unique;
    m->work.fsck_runs += parts[i]->work.fsck_runs;
    m->work.fsck_reused += parts[i]->work.fsck_reused;
    m->work.recover_here += parts[i]->work.recover_here;
    m->work.recover_e2fsck += parts[i]->work.recover_e2fsck;
    m->work.files_read += parts[i]->work.files_read;
    m->work.files_reused += parts[i]->work.files_reused;
    if (parts[i]->seconds > m->seconds)
      m->seconds = parts[i]->seconds;
  }
  m->npoints = total;
  pc_check_result_recount (m);
  r = pc_windows_merge (parts, n, m, why, whylen);
  if (r < 0) {
    if (r == -ENOMEM)
      snprintf (why, whylen, "out of memory");
    pc_check_result_free (m);
    return r;
  }
  *ret = m;
  return 0;
}
