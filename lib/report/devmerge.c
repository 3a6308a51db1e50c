/* devmerge.c: the shards of a device set's check joined (outputs.h).
 *
 * Each shard's JSON report has every instant of the flush (or write)
 * model, its own finer instants, the verdicts of its share of each
 * device's states (devices[].points) and, for the instants it owns, the
 * journal pairs and the --verify answer.  Joined: every instant once,
 * each device's state with the verdict of the shard that checked it, and
 * the instant judged again as an unsharded check judges it.
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

#include "report/jsonio.h"
#include "report/outputs.h"
#include "report/reportint.h"
#include "result/verdict.h"

static json_object *
copy (json_object *o)
{
  json_object *d = NULL;

  return json_object_deep_copy (o, &d, NULL) == 0 ? d : NULL;
}

/* A device's verdict by name (a report's JSON): is its filesystem not
 * one to read files from? */
static bool
bad_fs (const char *v)
{
  int k = v ? pc_verdict_parse (v) : PC_V_NOT_CHECKED;

  return k == PC_V_FS_CORRUPT || k == PC_V_UNMOUNTABLE || k == PC_V_NOT_CHECKED;
}

static bool
is_array (json_object *o)
{
  return o && json_object_is_type (o, json_type_array);
}

/* Has the report what join reads, of the types it reads? */
static bool
well_formed (json_object *o)
{
  json_object *devs = pc_json_member (o, "devices"), *xs = pc_json_member (o, "instants");

  if (!is_array (devs) || !is_array (xs) || !pc_json_str (o, "device_set") || !pc_json_str (o, "model"))
    return false;
  for (size_t j = 0; j < json_object_array_length (devs); j++) {
    json_object *d = json_object_array_get_idx (devs, j), *pts = pc_json_member (d, "points");
    if (!pc_json_str (d, "name") || (pts && !is_array (pts)))
      return false;
    for (size_t k = 0; pts && k < json_object_array_length (pts); k++)
      if (!pc_json_str (json_object_array_get_idx (pts, k), "state"))
        return false;
  }
  for (size_t k = 0; k < json_object_array_length (xs); k++) {
    json_object *x = json_object_array_get_idx (xs, k), *st = pc_json_member (x, "devices");
    if (!pc_json_str (x, "id") || !pc_json_member (x, "time") || !st || !json_object_is_type (st, json_type_object))
      return false;
  }
  return true;
}

static bool
same_devices (json_object *a, json_object *b)
{
  json_object *da = pc_json_member (a, "devices"), *db = pc_json_member (b, "devices");

  if (json_object_array_length (da) != json_object_array_length (db))
    return false;
  for (size_t j = 0; j < json_object_array_length (da); j++)
    if (strcmp (pc_json_str (json_object_array_get_idx (da, j), "name"),
                pc_json_str (json_object_array_get_idx (db, j), "name")) != 0)
      return false;
  return true;
}

/* Do all shards describe the same check, each once?  Returns 0 or
 * -EINVAL with err. */
static int
same_check (json_object **sh, char *const *paths, size_t n, struct pc_err *err)
{
  bool *seen = calloc (n, sizeof *seen);
  int r = 0;

  if (seen == NULL)
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  for (size_t i = 0; i < n && r == 0; i++) {
    json_object *ks = pc_json_get (sh[i], "shard", json_type_int);
    int64_t k = ks ? json_object_get_int64 (ks) : -1;
    if (!well_formed (sh[i]))
      r = pc_err_set (err, EINVAL, "%s: not the JSON report of a device set's shard", paths[i]);
    else if (pc_json_get (sh[i], "shards", json_type_int) == NULL ||
             json_object_get_int64 (pc_json_member (sh[i], "shards")) != (int64_t) n)
      r = pc_err_set (err, EINVAL, "%s: not a shard of %zu (give every shard's report, once)",
                      paths[i], n);
    else if (k < 0 || k >= (int64_t) n || seen[k])
      r = pc_err_set (err, EINVAL, "%s: shard %lld given twice, out of range, or not a whole "
                      "number", paths[i], (long long) k);
    else if (strcmp (pc_json_str (sh[i], "device_set") ? pc_json_str (sh[i], "device_set") : "",
                     pc_json_str (sh[0], "device_set") ? pc_json_str (sh[0], "device_set") : "") != 0 ||
             strcmp (pc_json_str (sh[i], "model") ? pc_json_str (sh[i], "model") : "",
                     pc_json_str (sh[0], "model") ? pc_json_str (sh[0], "model") : "") != 0 ||
             json_object_get_int64 (pc_json_member (sh[i], "seed")) !=
             json_object_get_int64 (pc_json_member (sh[0], "seed")) || !same_devices (sh[i], sh[0]))
      r = pc_err_set (err, EINVAL, "%s: another check than %s's (set, devices, model or seed)",
                      paths[i], paths[0]);
    else
      seen[k] = true;
  }
  free (seen);
  return r;
}

/* Judges a joined instant again: its devices' states from known (device
 * name -> state id -> {verdict, promise}). */
static void
judge (json_object *x, json_object *known, size_t count[PC_V_COUNT], size_t *promises,
       size_t *program, size_t *exposures)
{
  json_object *devs = pc_json_member (x, "devices");
  int v = PC_V_OK;
  bool promise = false, fs_bad = false, prog = false;

  json_object_object_foreach (devs, name, e) {
    const char *ev;
    if (e == NULL)
      continue;
    if (pc_json_str (e, "state") && !pc_json_str (e, "journal_on")) {
      /* a write-model state, from the shard that checked it; a finer one
       * is its own instant's, judged where it was made */
      json_object *k = pc_json_member (pc_json_member (known, name), pc_json_str (e, "state"));
      if (k || pc_json_str (e, "verdict") == NULL) {
        json_object_object_add (e, "verdict", json_object_new_string (k && pc_json_str (k, "verdict")
                                                                      ? pc_json_str (k, "verdict")
                                                                      : pc_verdict_name (PC_V_NOT_CHECKED)));
        json_object_object_add (e, "promise", json_object_new_boolean (
                                  k && json_object_get_boolean (pc_json_member (k, "promise"))));
        json_object_object_add (e, "fault", json_object_new_string (
                                  k && pc_json_str (k, "fault") ? pc_json_str (k, "fault")
                                  : pc_fault_name (PC_FAULT_NONE)));
      }
    }
    else if (pc_json_str (e, "verdict") == NULL)
      json_object_object_add (e, "verdict", json_object_new_string (pc_verdict_name (PC_V_NOT_CHECKED)));
    ev = pc_json_str (e, "verdict");
    v = pc_verdict_worse (v, pc_verdict_parse (ev));
    fs_bad |= bad_fs (ev);
    prog |= pc_json_str (e, "fault") && pc_fault_parse (pc_json_str (e, "fault")) == PC_FAULT_PROGRAM;
    promise |= json_object_get_boolean (pc_json_member (e, "promise")) ||
               (pc_json_str (e, "journal_on") && bad_fs (ev) && pc_verdict_parse (ev) != PC_V_NOT_CHECKED);
  }
  /* the application's checker, as unsharded, only on sound filesystems */
  if (pc_json_str (x, "app") && fs_bad) {
    json_object_object_del (x, "app");
    json_object_object_del (x, "evidence");
  }
  if (pc_json_str (x, "app")) {
    v = pc_verdict_worse (v, pc_verdict_parse (pc_json_str (x, "app")));
    promise |= pc_verdict_parse (pc_json_str (x, "app")) == PC_V_APP_INVALID;
  }
  promise &= v != PC_V_OK && v != PC_V_NOT_CHECKED;
  prog &= !promise && v != PC_V_OK && v != PC_V_NOT_CHECKED;
  json_object_object_add (x, "verdict", json_object_new_string (pc_verdict_info (v)->name));
  json_object_object_add (x, "promise", json_object_new_boolean (promise));
  json_object_object_add (x, "fault", json_object_new_string (
                            pc_fault_name (promise ? PC_FAULT_FILESYSTEM
                                           : prog ? PC_FAULT_PROGRAM : PC_FAULT_NONE)));
  count[v]++;
  if (v != PC_V_OK && v != PC_V_NOT_CHECKED)
    ++*(promise ? promises : prog ? program : exposures);
}

/* The devices' names in the report's order (sorted), for by_time. */
static json_object *order_devs;

/* An instant's order among those at its time, as unsharded: its device's
 * place, its record, then its finer state after the plain one. */
static void
place (json_object *x, size_t *dev, unsigned long long *rec, int *fine)
{
  const char *id = pc_json_str (x, "id"), *colon = strchr (id, ':');
  size_t len = colon ? (size_t) (colon - id) : strlen (id);

  *dev = SIZE_MAX;
  for (size_t j = 0; j < json_object_array_length (order_devs); j++) {
    const char *nm = pc_json_str (json_object_array_get_idx (order_devs, j), "name");
    if (nm && strlen (nm) == len && strncmp (nm, id, len) == 0)
      *dev = j;
  }
  *rec = colon ? strtoull (colon + 1, NULL, 10) : 0;
  *fine = colon && strchr (colon, '/') != NULL;
}

static int
by_time (const void *a, const void *b)
{
  json_object *x = *(json_object *const *) a, *y = *(json_object *const *) b;
  double s = json_object_get_double (pc_json_member (x, "time")), t = json_object_get_double (pc_json_member (y, "time"));
  size_t dx, dy;
  unsigned long long rx, ry;
  int fx, fy;

  if (s != t)
    return s < t ? -1 : 1;
  place (x, &dx, &rx, &fx);
  place (y, &dy, &ry, &fy);
  if (dx != dy)
    return dx < dy ? -1 : 1;
  if (rx != ry)
    return rx < ry ? -1 : 1;
  if (fx != fy)
    return fx - fy;
  return strcmp (pc_json_str (x, "id"), pc_json_str (y, "id"));
}

/* The joined report of the shards sh (same_check holds). */
static json_object *
join (json_object **sh, size_t n, size_t *unchecked)
{
  json_object *out = json_object_new_object (), *known = json_object_new_object ();
  json_object *index = json_object_new_object (), *insts = json_object_new_array ();
  json_object *devs = copy (pc_json_member (sh[0], "devices"));
  json_object *totals = json_object_new_object ();
  size_t count[PC_V_COUNT] = { 0 }, promises = 0, program = 0, exposures = 0;

  /* every device's states, from the shard that checked each */
  for (size_t i = 0; i < n; i++) {
    json_object *d = pc_json_member (sh[i], "devices");
    for (size_t j = 0; j < json_object_array_length (d); j++) {
      json_object *dj = json_object_array_get_idx (d, j), *pts = pc_json_member (dj, "points"), *m;
      if (!json_object_object_get_ex (known, pc_json_str (dj, "name"), &m)) {
        m = json_object_new_object ();
        json_object_object_add (known, pc_json_str (dj, "name"), m);
      }
      for (size_t k = 0; pts && k < json_object_array_length (pts); k++) {
        json_object *p = json_object_array_get_idx (pts, k);
        json_object_object_add (m, pc_json_str (p, "state"), json_object_get (p));
        *unchecked += pc_verdict_parse (pc_json_str (p, "verdict") ?: "") == PC_V_NOT_CHECKED;
      }
      if (i > 0) {                /* the sizes are all shards' */
        json_object *o = json_object_array_get_idx (devs, j);
        json_object_object_add (o, "states", json_object_new_int64 (
                                  json_object_get_int64 (pc_json_member (o, "states")) +
                                  json_object_get_int64 (pc_json_member (dj, "states"))));
        json_object_object_add (o, "unique", json_object_new_int64 (
                                  json_object_get_int64 (pc_json_member (o, "unique")) +
                                  json_object_get_int64 (pc_json_member (dj, "unique"))));
      }
    }
  }
  for (size_t j = 0; j < json_object_array_length (devs); j++)
    json_object_object_del (json_object_array_get_idx (devs, j), "points");
  /* every instant once, with what its owner judged */
  for (size_t i = 0; i < n; i++) {
    json_object *xs = pc_json_member (sh[i], "instants");
    for (size_t k = 0; k < json_object_array_length (xs); k++) {
      json_object *x = json_object_array_get_idx (xs, k), *m;
      if (!json_object_object_get_ex (index, pc_json_str (x, "id"), &m)) {
        m = copy (x);
        json_object_object_del (m, "app");
        json_object_object_del (m, "evidence");
        json_object_object_add (index, pc_json_str (x, "id"), m);
        json_object_array_add (insts, json_object_get (m));
      }
      json_object_object_foreach (pc_json_member (x, "devices"), name, e)
        if (e && pc_json_str (e, "journal_on") && pc_json_str (e, "verdict"))
          json_object_object_add (pc_json_member (m, "devices"), name, copy (e));
      if (pc_json_str (x, "journal_note"))
        json_object_object_add (m, "journal_note", json_object_get (pc_json_member (x, "journal_note")));
      if (pc_json_str (x, "app")) {
        json_object_object_add (m, "app", json_object_get (pc_json_member (x, "app")));
        json_object_object_add (m, "evidence", json_object_get (pc_json_member (x, "evidence")));
      }
    }
  }
  order_devs = devs;
  json_object_array_sort (insts, by_time);
  for (size_t k = 0; k < json_object_array_length (insts); k++) {
    json_object *x = json_object_array_get_idx (insts, k);
    const char *id = pc_json_str (x, "id"), *colon = strchr (id, ':');
    judge (x, known, count, &promises, &program, &exposures);
    *unchecked += pc_json_str (x, "app") && pc_verdict_parse (pc_json_str (x, "app")) == PC_V_NOT_CHECKED;
    if (colon && strchr (colon, '/')) {   /* a finer state, checked where it was made */
      char name[256];
      snprintf (name, sizeof name, "%.*s", (int) (colon - id), id);
      *unchecked += pc_verdict_parse (pc_json_str (pc_json_member (pc_json_member (x, "devices"), name),
                                                   "verdict") ?: "") == PC_V_NOT_CHECKED;
    }
  }
  json_object_object_add (out, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (out, "schema", json_object_new_int (1));
  json_object_object_add (out, "device_set", json_object_get (pc_json_member (sh[0], "device_set")));
  json_object_object_add (out, "model", json_object_get (pc_json_member (sh[0], "model")));
  json_object_object_add (out, "seed", json_object_get (pc_json_member (sh[0], "seed")));
  json_object_object_add (out, "devices", devs);
  json_object_object_add (totals, "instants", json_object_new_uint64 (json_object_array_length (insts)));
  for (int v = 0; v < PC_V_COUNT; v++)
    json_object_object_add (totals, pc_verdict_info (v)->name, json_object_new_uint64 (count[v]));
  json_object_object_add (totals, "promises", json_object_new_uint64 (promises));
  json_object_object_add (totals, "program_promises", json_object_new_uint64 (program));
  json_object_object_add (totals, "exposures", json_object_new_uint64 (exposures));
  json_object_object_add (out, "totals", totals);
  json_object_object_add (out, "instants", insts);
  json_object_put (known);
  json_object_put (index);
  return out;
}

bool
pc_devcheck_is_report (const char *path)
{
  json_object *o = json_object_from_file (path);
  bool is = o && pc_json_member (o, "device_set") != NULL;

  json_object_put (o);
  return is;
}

int
pc_devcheck_merge (char *const *paths, size_t n, const struct pc_outputs *o, struct pc_err *err)
{
  json_object **sh = calloc (n ? n : 1, sizeof *sh), *m = NULL, *tot;
  size_t unchecked = 0;
  int r = 0;

  if (sh == NULL)
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  for (size_t i = 0; i < n && r == 0; i++)
    if ((sh[i] = json_object_from_file (paths[i])) == NULL || pc_json_member (sh[i], "device_set") == NULL)
      r = pc_err_set (err, EINVAL, "%s: not the JSON report of a device set's shard", paths[i]);
  if (r == 0)
    r = same_check (sh, paths, n, err);
  if (r == 0 && (m = join (sh, n, &unchecked)) == NULL)
    r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  if (r == 0) {
    if (o->text)
      pc_devset_text (o->text, m);
    if (o->json && (r = pc_devset_json_write (o->json, m)) < 0)
      pc_err_set (err, -r, "%s: %s", o->json, strerror (-r));
  }
  if (r == 0) {
    tot = pc_json_member (m, "totals");
    r = pc_fail_on_counts (o->fail_on, (size_t) json_object_get_int64 (pc_json_member (tot, "promises")),
                           (size_t) json_object_get_int64 (pc_json_member (tot, "program_promises")),
                           (size_t) json_object_get_int64 (pc_json_member (tot, "exposures")), 0)
        ? PC_CHECK_FAILED : PC_CHECK_SURVIVED;
    if (unchecked > 0) {
      pc_err_msg (err, "%zu state%s of the devices or instants could not be checked (see the "
                  "report)", unchecked, pc_s (unchecked));
      r = PC_CHECK_UNFINISHED;
    }
  }
  for (size_t i = 0; i < n; i++)
    json_object_put (sh[i]);
  free (sh);
  json_object_put (m);
  return r;
}
