/* json.c: the JSON report, written and read back, and the writers of the
 * objects every JSON output shares (totals, points, findings, seconds). */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report/jsonio.h"
#include "report/report.h"
#include "report/reportint.h"
#include "result/result.h"
#include "util/util.h"

json_object *
pc_json_totals (const size_t count[PC_V_COUNT], size_t points, size_t unique)
{
  json_object *t = json_object_new_object ();

  json_object_object_add (t, "points", json_object_new_int64 ((int64_t) points));
  json_object_object_add (t, "unique", json_object_new_int64 ((int64_t) unique));
  for (int v = 0; v < PC_V_COUNT; v++)
    json_object_object_add (t, pc_verdict_name (v), json_object_new_int64 ((int64_t) count[v]));
  return t;
}

void
pc_json_add_text (json_object *o, const char *key, const char *s, bool path,
                  enum pc_json_form form)
{
  char *d;

  if (form == PC_JSON_EXACT) {
    pc_json_add_bytes (o, key, s);
    return;
  }
  d = path ? pc_display_name (s) : pc_display_line (s);
  json_object_object_add (o, key, json_object_new_string (d ? d : "?"));
  free (d);
}

json_object *
pc_json_cause (const struct pc_cause *c, enum pc_json_form form)
{
  json_object *o = json_object_new_object ();

  if (c->rule)
    json_object_object_add (o, "rule", json_object_new_string (c->rule));
  if (c->call) {
    pc_json_add_text (o, "call", c->call, false, form);
    json_object_object_add (o, "pid", json_object_new_int (c->pid));
    json_object_object_add (o, "time", pc_json_seconds (c->time_ns));
  }
  json_object_object_add (o, "durable_at", c->durable_ns >= 0
                          ? pc_json_seconds ((uint64_t) c->durable_ns) : NULL);
  if (c->durable_by)
    pc_json_add_text (o, "durable_by", c->durable_by, false, form);
  if (c->fix)
    pc_json_add_text (o, "fix", c->fix, false, form);
  if (c->ack) {
    pc_json_add_text (o, "acknowledged", c->ack, false, form);
    json_object_object_add (o, "acknowledged_at", pc_json_seconds (c->ack_ns));
  }
  return o;
}

json_object *
pc_json_finding (const struct pc_finding *fd, enum pc_json_form form)
{
  json_object *x = json_object_new_object ();

  json_object_object_add (x, "verdict", json_object_new_string (pc_finding_name (fd->kind)));
  pc_json_add_text (x, "path", fd->path, true, form);
  pc_json_add_text (x, "found", fd->found, false, form);
  pc_json_add_text (x, "allowed", fd->allowed, false, form);
  if (fd->cause.known) {
    json_object_object_add (x, "promise", json_object_new_boolean (fd->cause.promise));
    json_object_object_add (x, "fault",
                            json_object_new_string (pc_fault_name (pc_finding_fault (fd))));
    json_object *c = pc_json_cause (&fd->cause, form);
    json_object_object_add (c, "class", json_object_new_string (pc_cause_class (fd->kind,
                                                                               &fd->cause)));
    if (form == PC_JSON_SHOWN) {
      char *why = pc_report_why (fd->kind, &fd->cause);
      json_object_object_add (x, "why", why ? json_object_new_string (why) : NULL);
      free (why);
    }
    json_object_object_add (x, "cause", c);
  }
  return x;
}

/* Reads a finding's "promise" and "cause" back (none: no cause).
 * Returns 0, or -EBADMSG / -ENOMEM. */
static int
read_cause (json_object *x, struct pc_cause *c)
{
  json_object *o = pc_json_get (x, "cause", json_type_object), *v;
  bool bad = false;

  memset (c, 0, sizeof *c);
  if (o == NULL)
    return 0;
  c->known = true;
  c->durable_ns = -1;
  v = pc_json_get (x, "promise", json_type_boolean);
  c->promise = v && json_object_get_boolean (v);
  v = pc_json_get (x, "fault", json_type_string);
  c->program = v && pc_fault_parse (json_object_get_string (v)) == PC_FAULT_PROGRAM;
  c->recovery = v && pc_fault_parse (json_object_get_string (v)) == PC_FAULT_RECOVERY;
  if ((v = pc_json_get (o, "rule", json_type_string)) && !(c->rule = strdup (json_object_get_string (v))))
    return -ENOMEM;
  c->call = pc_json_get_bytes (o, "call", &bad);
  c->durable_by = pc_json_get_bytes (o, "durable_by", &bad);
  c->fix = pc_json_get_bytes (o, "fix", &bad);
  c->ack = pc_json_get_bytes (o, "acknowledged", &bad);
  if ((v = json_object_object_get (o, "acknowledged_at")) &&
      (json_object_is_type (v, json_type_double) || json_object_is_type (v, json_type_int)))
    c->ack_ns = (uint64_t) (json_object_get_double (v) * 1e9 + 0.5);
  if ((v = pc_json_get (o, "pid", json_type_int)))
    c->pid = json_object_get_int (v);
  if ((v = json_object_object_get (o, "time")) && (json_object_is_type (v, json_type_double) ||
                                                    json_object_is_type (v, json_type_int)))
    c->time_ns = (uint64_t) (json_object_get_double (v) * 1e9 + 0.5);
  if ((v = json_object_object_get (o, "durable_at")) && (json_object_is_type (v, json_type_double) ||
                                                          json_object_is_type (v, json_type_int)))
    c->durable_ns = (int64_t) (json_object_get_double (v) * 1e9 + 0.5);
  if (bad) {
    pc_cause_clear (c);
    return -EBADMSG;
  }
  return 0;
}

static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

json_object *
pc_json_point (const struct pc_check_result *res, const struct pc_point *p,
               enum pc_json_form form)
{
  json_object *o = json_object_new_object (), *ev = json_object_new_array ();
  json_object *fa = json_object_new_array_ext ((int) p->findings.n);
  bool utf8 = form == PC_JSON_EXACT && pc_utf8_valid (p->evidence, strlen (p->evidence));
  char *shown = utf8 ? NULL : pc_display_text (p->evidence);
  char cmd[512];

  json_object_object_add (o, "id", json_object_new_string (p->id));
  json_object_object_add (o, "record", json_object_new_int64 ((int64_t) p->record));
  json_object_object_add (o, "time", pc_json_seconds (p->time_ns));
  json_object_object_add (o, "moment_record", json_object_new_int64 ((int64_t) p->moment));
  json_object_object_add (o, "moment_until", pc_json_seconds (p->moment_ns));
  json_object_object_add (o, "dropped", json_object_new_int64 (p->ndrop));
  json_object_object_add (o, "torn", json_object_new_boolean (p->torn));
  json_object_object_add (o, "recovery_record", p->recovery
                          ? json_object_new_int64 ((int64_t) p->recovery_record) : NULL);
  {
    const char *after = pc_after_name (pc_point_after (res, p));
    json_object_object_add (o, "after_command", after ? json_object_new_string (after) : NULL);
  }
  json_object_object_add (o, "verdict", json_object_new_string (pc_verdict_name (p->verdict)));
  json_object_object_add (o, "fault", json_object_new_string (pc_fault_name (pc_point_fault (p))));
  json_object_object_add (o, "judge", json_object_new_string (!p->kernel ? "ext2fs"
                                                             : res->kernel_guest ? "guest"
                                                             : "kernel"));
  json_object_object_add (o, "same_as", p->same_as >= 0
                          ? json_object_new_string (res->points[p->same_as].id) : NULL);
  json_object_object_add (o, "fsck_same_as", p->fsck_as >= 0
                          ? json_object_new_string (res->points[p->fsck_as].id) : NULL);
  /* Evidence as lines; exact, if it is not UTF-8, the lines show it and
   * evidence_hex holds its bytes. */
  for (const char *l = utf8 ? p->evidence : shown ? shown : "?"; *l;) {
    const char *nl = strchr (l, '\n');
    size_t n = nl ? (size_t) (nl - l) : strlen (l);
    json_object_array_add (ev, json_object_new_string_len (l, (int) n));
    l += n + (nl ? 1 : 0);
  }
  json_object_object_add (o, "evidence", ev);
  if (form == PC_JSON_EXACT && !utf8) {
    char *hex = pc_json_hex (p->evidence);
    json_object_object_add (o, "evidence_hex", hex ? json_object_new_string (hex) : NULL);
    free (hex);
  }
  free (shown);
  for (size_t k = 0; k < p->findings.n; k++)
    if (form == PC_JSON_EXACT || pc_finding_verdict (p->findings.v[k].kind) != PC_V_OK ||
        p->findings.v[k].kind == PC_F_OLDER)
      json_object_array_add (fa, pc_json_finding (&p->findings.v[k], form));
  json_object_object_add (o, "findings", fa);
  pc_report_replay_cmd (res, p, cmd, sizeof cmd);
  pc_json_add_text (o, "replay", cmd, false, form);
  return o;
}

int
pc_report_json (const char *path, const struct pc_check_result *res)
{
  json_object *root = json_object_new_object ();
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
  json_object_object_add (root, "fs", res->fs[0] ? json_object_new_string (res->fs) : NULL);
  json_object_object_add (root, "kernel", res->kernel[0] ? json_object_new_string (res->kernel)
                                                         : NULL);
  json_object_object_add (root, "kernel_in_guest", json_object_new_boolean (res->kernel_guest));
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
  json_object_object_add (root, "events", json_object_new_int64 ((int64_t) res->events));
  if (res->verify)
    pc_json_add_bytes (root, "verify", res->verify);
  else
    json_object_object_add (root, "verify", NULL);
  json_object_object_add (root, "last_mark", res->last_mark[0]
                          ? json_object_new_string (res->last_mark) : NULL);
  /* where powercut run's command ended, and how long it settled */
  {
    bool ce = res->command_end_record > 0, se = ce && res->settle_end_record > 0;
    json_object_object_add (root, "command_end_record", ce
                            ? json_object_new_int64 ((int64_t) res->command_end_record) : NULL);
    json_object_object_add (root, "command_end", ce ? pc_json_seconds (res->command_end_ns)
                                                    : NULL);
    json_object_object_add (root, "settle_end_record", se
                            ? json_object_new_int64 ((int64_t) res->settle_end_record) : NULL);
    json_object_object_add (root, "settle_end", se ? pc_json_seconds (res->settle_end_ns) : NULL);
    json_object_object_add (root, "settled", se && res->settle_end_ns >= res->command_end_ns
                            ? pc_json_seconds (res->settle_end_ns - res->command_end_ns) : NULL);
  }
  {
    json_object *w = json_object_new_object ();
    json_object_object_add (w, "fsck_runs", json_object_new_uint64 (res->work.fsck_runs));
    json_object_object_add (w, "fsck_reused", json_object_new_uint64 (res->work.fsck_reused));
    json_object_object_add (w, "recovered_in_process",
                            json_object_new_uint64 (res->work.recover_here));
    json_object_object_add (w, "recovered_by_e2fsck",
                            json_object_new_uint64 (res->work.recover_e2fsck));
    json_object_object_add (w, "preened_by_e2fsck", json_object_new_uint64 (res->work.preened));
    json_object_object_add (w, "repaired_by_hand", json_object_new_uint64 (res->work.by_hand));
    json_object_object_add (w, "judged_by_kernel", json_object_new_uint64 (res->work.kernel));
    json_object_object_add (w, "journal_dropped_by_e2fsck",
                            json_object_new_uint64 (res->work.journal_dropped));
    if (res->work.kernel) {
      static const char *const part[] = { "copy", "mount", "read", "unmount", "check" };
      json_object *kt = json_object_new_object ();
      for (int i = 0; i < 5; i++)
        json_object_object_add (kt, part[i], pc_json_seconds (res->work.kernel_ns[i]));
      json_object_object_add (w, "kernel_seconds", kt);
    }
    json_object_object_add (w, "files_read", json_object_new_uint64 (res->work.files_read));
    json_object_object_add (w, "files_reused", json_object_new_uint64 (res->work.files_reused));
    json_object_object_add (root, "work", w);
  }
  {
    json_object *t = pc_json_totals (res->count, res->npoints, res->unique);
    json_object_object_add (t, "promises", json_object_new_int64 ((int64_t) res->promises));
    json_object_object_add (t, "program_promises",
                            json_object_new_int64 ((int64_t) res->program_promises));
    json_object_object_add (t, "recovery_differs",
                            json_object_new_int64 ((int64_t) res->recovery_differs));
    json_object_object_add (t, "acknowledged_lost",
                            json_object_new_int64 ((int64_t) res->acknowledged_lost));
    json_object_object_add (t, "exposures", json_object_new_int64 ((int64_t) res->exposures));
    json_object_object_add (t, "recovery_points",
                            json_object_new_int64 ((int64_t) res->recovery_points));
    json_object_object_add (t, "recovery_repeats",
                            json_object_new_int64 ((int64_t) res->recovery_repeats));
    json_object_object_add (root, "totals", t);
  }
  json_object_object_add (root, "windows", pc_windows_json (res));
  for (size_t i = 0; i < res->npoints; i++)
    json_object_array_add (pts, pc_json_point (res, &res->points[i], PC_JSON_EXACT));
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
pc_report_read_json (const char *path, struct pc_check_result **ret, struct pc_err *why)
{
  json_object *root = json_object_from_file (path), *v, *pts;
  struct pc_check_result *res = NULL;
  const char *bad = NULL;
  size_t n;

  if (root == NULL) {
    if (access (path, R_OK) < 0)
      pc_err_msg (why, "%s: %s", path, strerror (errno));
    else
      pc_err_msg (why, "%s: not a readable JSON file", path);
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
      pc_model_spec_parse (json_object_get_string (v), &res->model, NULL) < 0) {
    bad = "no model";
    goto bad;
  }
  if ((v = pc_json_get (root, "log_start_ns", json_type_int)))
    res->log_start_ns = json_object_get_uint64 (v);
  if ((v = pc_json_get (root, "fs", json_type_string)))
    snprintf (res->fs, sizeof res->fs, "%s", json_object_get_string (v));
  if ((v = pc_json_get (root, "kernel", json_type_string)))
    snprintf (res->kernel, sizeof res->kernel, "%s", json_object_get_string (v));
  if ((v = pc_json_get (root, "kernel_in_guest", json_type_boolean)))
    res->kernel_guest = json_object_get_boolean (v);
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
  if ((v = pc_json_get (root, "events", json_type_int)))
    res->events = (uint64_t) json_object_get_int64 (v);
  if ((v = pc_json_get (root, "last_mark", json_type_string)))
    snprintf (res->last_mark, sizeof res->last_mark, "%s", json_object_get_string (v));
  if ((v = pc_json_get (root, "command_end_record", json_type_int)) &&
      json_object_get_int64 (v) > 0) {
    res->command_end_record = (uint64_t) json_object_get_int64 (v);
    res->command_end_ns = pc_json_ns (pc_json_member (root, "command_end"));
    if ((v = pc_json_get (root, "settle_end_record", json_type_int)) &&
        json_object_get_int64 (v) > 0) {
      res->settle_end_record = (uint64_t) json_object_get_int64 (v);
      res->settle_end_ns = pc_json_ns (pc_json_member (root, "settle_end"));
    }
  }
  /* Which shard: whole numbers, shard < shards, or absent (unsharded). */
  {
    json_object *sh = pc_json_member (root, "shard"), *shs = pc_json_member (root, "shards");
    int64_t a = sh ? json_object_get_int64 (sh) : 0, b = shs ? json_object_get_int64 (shs) : 1;
    if ((sh && !json_object_is_type (sh, json_type_int)) ||
        (shs && !json_object_is_type (shs, json_type_int)) ||
        a < 0 || b < 1 || b > 1000000 || a >= b) {
      bad = "\"shard\" and \"shards\" are not whole numbers with 0 <= shard < shards";
      goto bad;
    }
    res->shard = (unsigned) a;
    res->nshards = (unsigned) b;
  }
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
    if ((x = pc_json_get (v, "preened_by_e2fsck", json_type_int)))
      res->work.preened = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "repaired_by_hand", json_type_int)))
      res->work.by_hand = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "judged_by_kernel", json_type_int)))
      res->work.kernel = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "journal_dropped_by_e2fsck", json_type_int)))
      res->work.journal_dropped = (uint64_t) json_object_get_int64 (x);
    if ((x = pc_json_get (v, "kernel_seconds", json_type_object))) {
      static const char *const part[] = { "copy", "mount", "read", "unmount", "check" };
      for (int i = 0; i < 5; i++) {
        json_object *y = json_object_object_get (x, part[i]);
        if (y && (json_object_is_type (y, json_type_double) || json_object_is_type (y, json_type_int)))
          res->work.kernel_ns[i] = (uint64_t) (json_object_get_double (y) * 1e9 + 0.5);
      }
    }
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
    /* Reports from before states had moments: judged at their point. */
    p->moment = (v = pc_json_get (o, "moment_record", json_type_int))
                ? (uint64_t) json_object_get_int64 (v) : p->record;
    p->moment_ns = p->time_ns;
    if ((v = pc_json_get (o, "moment_until", json_type_double)) && json_object_get_double (v) > 0)
      p->moment_ns = (uint64_t) (json_object_get_double (v) * 1e9 + 0.5);
    p->ndrop = (v = pc_json_get (o, "dropped", json_type_int)) ? (uint32_t) json_object_get_int (v) : 0;
    p->torn = (v = pc_json_get (o, "torn", json_type_boolean)) ? json_object_get_boolean (v) : 0;
    if ((v = pc_json_get (o, "recovery_record", json_type_int))) {
      p->recovery = true;
      p->recovery_record = (uint64_t) json_object_get_int64 (v);
    }
    p->kernel = (v = pc_json_get (o, "judge", json_type_string)) &&
                (strcmp (json_object_get_string (v), "kernel") == 0 ||
                 strcmp (json_object_get_string (v), "guest") == 0);
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
        memset (fd, 0, sizeof *fd);
        fd->kind = kind;
        if (read_cause (x, &fd->cause) < 0) {
          bad = "a malformed cause";
          goto bad;
        }
        fd->path = pc_json_get_bytes (x, "path", &b);
        fd->found = pc_json_get_bytes (x, "found", &b);
        fd->allowed = pc_json_get_bytes (x, "allowed", &b);
        if (fd->path == NULL || fd->found == NULL || fd->allowed == NULL) {
          free (fd->path);
          free (fd->found);
          free (fd->allowed);
          pc_cause_clear (&fd->cause);
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
  /* Each point once, as totals.points counts them. */
  if ((v = pc_json_get (root, "totals", json_type_object)) &&
      (v = pc_json_get (v, "points", json_type_int)) && (uint64_t) json_object_get_int64 (v) != n) {
    bad = "the points listed are not as many as totals.points says";
    goto bad;
  }
  {
    char **ids = malloc ((n ? n : 1) * sizeof *ids);
    size_t dup = SIZE_MAX;
    if (ids == NULL)
      goto nomem;
    for (size_t i = 0; i < n; i++)
      ids[i] = res->points[i].id;
    qsort (ids, n, sizeof *ids, cmp_str);
    for (size_t i = 1; i < n && dup == SIZE_MAX; i++)
      if (strcmp (ids[i - 1], ids[i]) == 0)
        dup = i;
    if (dup != SIZE_MAX) {
      pc_err_msg (why, "%s: point %s is listed twice", path, ids[dup]);
      free (ids);
      json_object_put (root);
      pc_check_result_free (res);
      return -EBADMSG;
    }
    free (ids);
  }
  /* An e2fsck answer may come from any point of the report. */
  for (size_t i = 0; i < n; i++)
    res->points[i].fsck_as = resolve_id (res, n, pc_json_get (json_object_array_get_idx (pts, i),
                                                       "fsck_same_as", json_type_string));
  pc_check_result_recount (res);
  if ((v = pc_json_get (root, "windows", json_type_object))) {
    struct pc_err we;
    int r = pc_windows_read_json (v, res, &we);
    if (r == -ENOMEM)
      goto nomem;
    if (r < 0) {
      json_object_put (root);
      pc_check_result_free (res);
      pc_err_msg (why, "%s: %s", path, we.msg);
      return -EBADMSG;
    }
  }
  json_object_put (root);
  *ret = res;
  return 0;

nomem:
  json_object_put (root);
  pc_check_result_free (res);
  pc_err_msg (why, "%s: out of memory", path);
  return -ENOMEM;
bad:
  json_object_put (root);
  pc_check_result_free (res);
  pc_err_msg (why, "%s: %s", path, bad);
  return -EBADMSG;
}

