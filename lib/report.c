/* report.c: text and JSON check reports, and merging shard reports. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report.h"
#include "util.h"

#define MAX_LISTED 20

/* Quotes s for a POSIX shell when it needs it. */
static void
shell_quote (const char *s, char *buf, size_t len)
{
  if (s[strspn (s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./:=+,")] == '\0'
      && *s)
    snprintf (buf, len, "%s", s);
  else
    pc_shell_quote (s, buf, len);
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
  return res->npoints > res->count[PC_V_OK];
}

/* One line of oracle findings: VERDICT TAB PATH TAB FOUND TAB ALLOWED. */
struct finding {
  const char *verdict, *path, *found, *allowed;
  size_t vlen, plen, flen, alen;
};

static const char *
finding_next (const char *l, struct finding *fd)
{
  const char *fields[4], *end = strchr (l, '\n');
  size_t lens[4] = { 0, 0, 0, 0 };

  if (end == NULL)
    end = l + strlen (l);
  for (int k = 0; k < 4; k++) {
    const char *tab = k < 3 ? memchr (l, '\t', (size_t) (end - l)) : NULL;
    const char *stop = tab ? tab : end;
    fields[k] = l;
    lens[k] = (size_t) (stop - l);
    l = tab ? tab + 1 : end;
  }
  fd->verdict = fields[0]; fd->vlen = lens[0];
  fd->path = fields[1]; fd->plen = lens[1];
  fd->found = fields[2]; fd->flen = lens[2];
  fd->allowed = fields[3]; fd->alen = lens[3];
  return *end ? end + 1 : end;
}

/* Per failing path: its verdict, how many points, the first and last, and
 * what the first one found versus what was allowed. */
struct path_sum {
  struct finding first;
  size_t npoints;
  const char *first_id, *last_id;
};

static int
sum_cmp (const void *a, const void *b)
{
  const struct path_sum *x = a, *y = b;
  size_t n = x->first.plen < y->first.plen ? x->first.plen : y->first.plen;
  int c = memcmp (x->first.path, y->first.path, n);
  return c ? c : (x->first.plen > y->first.plen) - (x->first.plen < y->first.plen);
}

static void
paths_text (FILE *f, const struct pc_check_result *res)
{
  struct path_sum *v = NULL;
  size_t n = 0, cap = 0, shown = 0;

  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    for (const char *l = p->findings; l && *l;) {
      struct finding fd;
      size_t j;
      l = finding_next (l, &fd);
      if (fd.vlen == 11 && strncmp (fd.verdict, "unmentioned", 11) == 0)
        continue;
      for (j = 0; j < n; j++)
        if (v[j].first.plen == fd.plen && memcmp (v[j].first.path, fd.path, fd.plen) == 0)
          break;
      if (j == n) {
        if (n == cap) {
          size_t ncap = cap ? cap * 2 : 16;
          struct path_sum *nv = realloc (v, ncap * sizeof *nv);
          if (nv == NULL)
            goto out;
          v = nv;
          cap = ncap;
        }
        v[n].first = fd;
        v[n].npoints = 0;
        v[n].first_id = p->id;
        n++;
      }
      v[j].npoints++;
      v[j].last_id = p->id;
    }
  }
  if (n == 0)
    goto out;
  qsort (v, n, sizeof *v, sum_cmp);
  fprintf (f, "\nfiles affected: %zu\n", n);
  for (size_t j = 0; j < n && shown < MAX_LISTED; j++, shown++) {
    fprintf (f, "  %.*s: %.*s at %zu point%s (%s .. %s)\n", (int) v[j].first.plen,
             v[j].first.path, (int) v[j].first.vlen, v[j].first.verdict, v[j].npoints,
             v[j].npoints == 1 ? "" : "s", v[j].first_id, v[j].last_id);
    fprintf (f, "      found:   %.*s\n", (int) v[j].first.flen, v[j].first.found);
    fprintf (f, "      allowed: %.*s\n", (int) v[j].first.alen, v[j].first.allowed);
  }
  if (n > shown)
    fprintf (f, "  ... and %zu more files (see the JSON report)\n", n - shown);
out:
  free (v);
}

static void
indent_lines (FILE *f, const char *text, const char *pfx)
{
  for (const char *l = text; *l;) {
    const char *nl = strchr (l, '\n');
    int n = nl ? (int) (nl - l) : (int) strlen (l);
    fprintf (f, "%s%.*s\n", pfx, n, l);
    l += n + (nl ? 1 : 0);
  }
}

void
pc_report_text (FILE *f, const struct pc_check_result *res)
{
  size_t listed = 0, nfail = res->npoints - res->count[PC_V_OK];
  char cmd[512];

  fprintf (f, "powercut check: %s\n", res->log_path);
  fprintf (f, "model %s", pc_model_name (res->model.kind));
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
  for (int v = 0; v < PC_V_COUNT; v++)
    if (res->count[v] || v == PC_V_OK)
      fprintf (f, "  %-13s %zu\n", pc_verdict_name (v), res->count[v]);
  if (res->manifests == 0)
    fprintf (f, "(no mark carries a manifest: only the filesystem was checked)\n");
  if (nfail == 0) {
    fprintf (f, "no problem found\n");
    return;
  }
  paths_text (f, res);
  fprintf (f, "\nfailing crash points:\n");
  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    if (p->verdict == PC_V_OK)
      continue;
    if (listed == 0)
      fprintf (f, "first failing crash point: %s (%s)\n", p->id, pc_verdict_name (p->verdict));
    if (listed == MAX_LISTED) {
      fprintf (f, "... and %zu more failing points (see the JSON report)\n",
               nfail - listed);
      break;
    }
    fprintf (f, "\n%s: %s", p->id, pc_verdict_name (p->verdict));
    if (p->same_as >= 0)
      fprintf (f, " (same image as %s)", res->points[p->same_as].id);
    fputc ('\n', f);
    indent_lines (f, p->evidence, "    ");
    for (const char *l = p->findings; l && *l;) {
      struct finding fd;
      l = finding_next (l, &fd);
      if (strncmp (fd.verdict, "unmentioned", fd.vlen) == 0 && fd.vlen == 11)
        continue;
      fprintf (f, "    %.*s %.*s: found %.*s\n", (int) fd.vlen, fd.verdict,
               (int) fd.plen, fd.path, (int) fd.flen, fd.found);
    }
    pc_report_replay_cmd (res, p, cmd, sizeof cmd);
    fprintf (f, "    rebuild: %s\n", cmd);
    listed++;
  }
}

static json_object *
point_json (const struct pc_check_result *res, const struct pc_point *p)
{
  json_object *o = json_object_new_object (), *ev = json_object_new_array ();
  char cmd[512];

  json_object_object_add (o, "id", json_object_new_string (p->id));
  json_object_object_add (o, "record", json_object_new_int64 ((int64_t) p->record));
  json_object_object_add (o, "dropped", json_object_new_int64 (p->ndrop));
  json_object_object_add (o, "torn", json_object_new_boolean (p->torn));
  json_object_object_add (o, "verdict", json_object_new_string (pc_verdict_name (p->verdict)));
  json_object_object_add (o, "same_as", p->same_as >= 0
                          ? json_object_new_string (res->points[p->same_as].id) : NULL);
  json_object_object_add (o, "fsck_same_as", p->fsck_as >= 0
                          ? json_object_new_string (res->points[p->fsck_as].id) : NULL);
  for (const char *l = p->evidence; *l;) {
    const char *nl = strchr (l, '\n');
    size_t n = nl ? (size_t) (nl - l) : strlen (l);
    json_object_array_add (ev, json_object_new_string_len (l, (int) n));
    l += n + (nl ? 1 : 0);
  }
  json_object_object_add (o, "evidence", ev);
  {
    json_object *fa = json_object_new_array ();
    for (const char *l = p->findings; l && *l;) {
      struct finding fd;
      json_object *x = json_object_new_object ();
      l = finding_next (l, &fd);
      json_object_object_add (x, "verdict", json_object_new_string_len (fd.verdict, (int) fd.vlen));
      json_object_object_add (x, "path", json_object_new_string_len (fd.path, (int) fd.plen));
      json_object_object_add (x, "found", json_object_new_string_len (fd.found, (int) fd.flen));
      json_object_object_add (x, "allowed", json_object_new_string_len (fd.allowed, (int) fd.alen));
      json_object_array_add (fa, x);
    }
    json_object_object_add (o, "findings", fa);
  }
  pc_report_replay_cmd (res, p, cmd, sizeof cmd);
  json_object_object_add (o, "replay", json_object_new_string (cmd));
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
  json_object_object_add (root, "log", json_object_new_string (res->log_path));
  json_object_object_add (root, "log_start_ns", json_object_new_uint64 (res->log_start_ns));
  json_object_object_add (root, "base", res->base_path ? json_object_new_string (res->base_path) : NULL);
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

static json_object *
get (json_object *o, const char *key, json_type t)
{
  json_object *v;

  if (!json_object_object_get_ex (o, key, &v) || !json_object_is_type (v, t))
    return NULL;
  return v;
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
  if (!(v = get (root, "schema", json_type_int)) || json_object_get_int (v) != 1) {
    bad = "not a powercut report (schema 1)";
    goto bad;
  }
  if (!(v = get (root, "log", json_type_string)) ||
      (res->log_path = strdup (json_object_get_string (v))) == NULL) {
    bad = "no log";
    goto bad;
  }
  if (!(v = get (root, "model", json_type_string)) ||
      pc_model_parse (json_object_get_string (v), &res->model) < 0) {
    bad = "no model";
    goto bad;
  }
  if ((v = get (root, "log_start_ns", json_type_int)))
    res->log_start_ns = json_object_get_uint64 (v);
  if ((v = get (root, "base", json_type_string)) &&
      (res->base_path = strdup (json_object_get_string (v))) == NULL)
    goto nomem;
  if ((v = get (root, "keep_trimmed", json_type_boolean)))
    res->keep_trimmed = json_object_get_boolean (v);
  if ((v = get (root, "k", json_type_int)))
    res->model.k = (unsigned) json_object_get_int (v);
  if ((v = get (root, "seed", json_type_int)))
    res->model.seed = json_object_get_uint64 (v);
  if ((v = get (root, "from", json_type_string)))
    snprintf (res->from, sizeof res->from, "%s", json_object_get_string (v));
  if ((v = get (root, "from_record", json_type_int)))
    res->from_record = (uint64_t) json_object_get_int64 (v);
  if ((v = get (root, "records", json_type_int)))
    res->records = (uint64_t) json_object_get_int64 (v);
  if ((v = get (root, "device_size", json_type_int)))
    res->device_size = json_object_get_uint64 (v);
  if ((v = get (root, "log_torn", json_type_boolean)))
    res->log_torn = json_object_get_boolean (v);
  if ((v = get (root, "seconds", json_type_double)))
    res->seconds = json_object_get_double (v);
  if ((v = get (root, "manifests", json_type_int)))
    res->manifests = (size_t) json_object_get_int64 (v);
  res->shard = (v = get (root, "shard", json_type_int)) ? (unsigned) json_object_get_int (v) : 0;
  res->nshards = (v = get (root, "shards", json_type_int)) ? (unsigned) json_object_get_int (v) : 1;
  if ((v = get (root, "totals", json_type_object)) && (v = get (v, "unique", json_type_int)))
    res->unique = (size_t) json_object_get_int64 (v);
  if ((v = get (root, "work", json_type_object))) {
    json_object *x;
    if ((x = get (v, "fsck_runs", json_type_int)))
      res->work.fsck_runs = (uint64_t) json_object_get_int64 (x);
    if ((x = get (v, "fsck_reused", json_type_int)))
      res->work.fsck_reused = (uint64_t) json_object_get_int64 (x);
    if ((x = get (v, "recovered_in_process", json_type_int)))
      res->work.recover_here = (uint64_t) json_object_get_int64 (x);
    if ((x = get (v, "recovered_by_e2fsck", json_type_int)))
      res->work.recover_e2fsck = (uint64_t) json_object_get_int64 (x);
    if ((x = get (v, "files_read", json_type_int)))
      res->work.files_read = (uint64_t) json_object_get_int64 (x);
    if ((x = get (v, "files_reused", json_type_int)))
      res->work.files_reused = (uint64_t) json_object_get_int64 (x);
  }
  if (!(pts = get (root, "points", json_type_array))) {
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
        !(v = get (o, "id", json_type_string)) ||
        strlen (json_object_get_string (v)) >= sizeof p->id) {
      bad = "a point without an id";
      goto bad;
    }
    strcpy (p->id, json_object_get_string (v));
    if (!(v = get (o, "verdict", json_type_string)) ||
        (verdict = pc_verdict_parse (json_object_get_string (v))) < 0) {
      bad = "a point with an unknown verdict";
      goto bad;
    }
    p->verdict = verdict;
    if (!(v = get (o, "record", json_type_int))) {
      bad = "a point without a record";
      goto bad;
    }
    p->record = (uint64_t) json_object_get_int64 (v);
    p->ndrop = (v = get (o, "dropped", json_type_int)) ? (uint32_t) json_object_get_int (v) : 0;
    p->torn = (v = get (o, "torn", json_type_boolean)) ? json_object_get_boolean (v) : 0;
    p->same_as = resolve_id (res, i, get (o, "same_as", json_type_string));
    if ((ev = get (o, "findings", json_type_array)) && json_object_array_length (ev) > 0) {
      size_t cap = 256, pos = 0;
      p->findings = malloc (cap);
      if (p->findings == NULL)
        goto nomem;
      p->findings[0] = '\0';
      for (size_t k = 0; k < json_object_array_length (ev); k++) {
        json_object *x = json_object_array_get_idx (ev, k), *fv[4];
        static const char *const keys[4] = { "verdict", "path", "found", "allowed" };
        size_t need = 0;
        bool ok = json_object_is_type (x, json_type_object);
        for (int q = 0; ok && q < 4; q++) {
          ok = (fv[q] = get (x, keys[q], json_type_string)) != NULL &&
               strpbrk (json_object_get_string (fv[q]), "\t\n") == NULL;
          if (ok)
            need += strlen (json_object_get_string (fv[q])) + 1;
        }
        if (!ok) {
          bad = "a malformed finding";
          goto bad;
        }
        if (pos + need + 1 > cap) {
          char *np;
          while (pos + need + 1 > cap)
            cap *= 2;
          np = realloc (p->findings, cap);
          if (np == NULL)
            goto nomem;
          p->findings = np;
        }
        pos += (size_t) sprintf (p->findings + pos, "%s\t%s\t%s\t%s\n",
                                 json_object_get_string (fv[0]), json_object_get_string (fv[1]),
                                 json_object_get_string (fv[2]), json_object_get_string (fv[3]));
      }
    }
    if ((ev = get (o, "evidence", json_type_array))) {
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
  /* An e2fsck answer may come from any point of the report. */
  for (size_t i = 0; i < n; i++)
    res->points[i].fsck_as = resolve_id (res, n, get (json_object_array_get_idx (pts, i),
                                                       "fsck_same_as", json_type_string));
  pc_check_result_recount (res);
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

  if (n == 0) {
    snprintf (why, whylen, "no reports to merge");
    return -EINVAL;
  }
  qsort (parts, n, sizeof *parts, cmp_shard);
  nshards = parts[0]->nshards;
  for (size_t i = 0; i < n; i++) {
    /* One log (by identity, whatever path named it), one model, one range. */
    if (parts[i]->nshards != nshards || parts[i]->shard != i ||
        parts[i]->log_start_ns != parts[0]->log_start_ns ||
        parts[i]->records != parts[0]->records ||
        parts[i]->device_size != parts[0]->device_size ||
        parts[i]->from_record != parts[0]->from_record ||
        parts[i]->keep_trimmed != parts[0]->keep_trimmed ||
        parts[i]->model.kind != parts[0]->model.kind ||
        parts[i]->model.k != parts[0]->model.k ||
        parts[i]->model.seed != parts[0]->model.seed ||
        strcmp (parts[i]->from, parts[0]->from) != 0) {
      snprintf (why, whylen, "the reports are not the shards 0..%u of one check "
                "(same log, model and --from)", nshards - 1);
      return -EINVAL;
    }
    total += parts[i]->npoints;
  }
  if (n != nshards) {
    snprintf (why, whylen, "%zu of %u shards given", n, nshards);
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
  memcpy (m->from, parts[0]->from, sizeof m->from);
  m->from_record = parts[0]->from_record;
  m->records = parts[0]->records;
  m->device_size = parts[0]->device_size;
  m->log_torn = parts[0]->log_torn;
  m->manifests = parts[0]->manifests;
  m->nshards = 1;
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < parts[i]->npoints; j++) {
      m->points[at + j] = parts[i]->points[j];
      parts[i]->points[j].findings = NULL;      /* moved */
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
  *ret = m;
  return 0;
}
