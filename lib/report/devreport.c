/* devreport.c: a device set's check reported (outputs.h): text and JSON. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "result/devresult.h"
#include "report/jsonio.h"
#include "report/outputs.h"
#include "report/report.h"
#include "report/reportint.h"

#define MAX_LISTED 20

/* The model as the report names it: "flush", "reorder:2". */
static void
model_name (const struct pc_model *m, char *buf, size_t len)
{
  pc_model_spec (m, buf, len);
}

/* What the instants are, after the model's name. */
static const char *
instants_are (const char *model)
{
  if (strcmp (model, "write") == 0)
    return "right after every record of any device that tells what its disk holds";
  if (strncmp (model, "reorder", 7) == 0)
    return "every flush and FUA write of any device, and each device's states with\n"
           "writes of its open epoch lost";
  if (strncmp (model, "torn", 4) == 0)
    return "every flush and FUA write of any device, and each device's states with\n"
           "a write of its open epoch torn";
  return "every flush and FUA write of any device";
}

void
pc_devset_text (FILE *f, json_object *o)
{
  json_object *devs = pc_json_member (o, "devices"), *insts = pc_json_member (o, "instants"), *tot = pc_json_member (o, "totals");
  const char *model = pc_json_str (o, "model") ? pc_json_str (o, "model") : "flush";
  size_t nd = devs ? json_object_array_length (devs) : 0;
  size_t ni = insts ? json_object_array_length (insts) : 0, listed = 0;

  fprintf (f, "powercut check: device set %s, %zu devices:", pc_json_str (o, "device_set"), nd);
  for (size_t j = 0; j < nd; j++)
    fprintf (f, " %s", pc_json_str (json_object_array_get_idx (devs, j), "name"));
  fprintf (f, "\n");
  if (pc_json_member (o, "shards"))
    fprintf (f, "shard %" PRIu64 " of %" PRIu64 ": its share of each device's states, its "
             "instants judged as far as they go (powercut merge joins the shards)\n",
             pc_json_u64 (o, "shard"), pc_json_u64 (o, "shards"));
  for (size_t j = 0; j < nd; j++) {
    json_object *d = json_object_array_get_idx (devs, j);
    const char *from = pc_json_str (d, "from");
    fprintf (f, "  %s: %s, %" PRIu64 " record%s, ", pc_json_str (d, "name"), pc_json_str (d, "log"),
             pc_json_u64 (d, "records"), pc_s (pc_json_u64 (d, "records")));
    if (json_object_get_boolean (pc_json_member (d, "is_journal")))
      fprintf (f, "the external journal of another device\n");
    else if (pc_json_str (d, "journal_on"))
      fprintf (f, "its journal on %s: judged with it by e2fsck at each instant from %s "
               "(record %" PRIu64 ")\n", pc_json_str (d, "journal_on"), from && *from ? from : "the start",
               pc_json_u64 (d, "from_record"));
    else
      fprintf (f, "checked from %s (record %" PRIu64 "): %" PRIu64 " state%s, %" PRIu64
               " distinct image%s\n", from && *from ? from : "the start",
               pc_json_u64 (d, "from_record"), pc_json_u64 (d, "states"),
               pc_s (pc_json_u64 (d, "states")), pc_json_u64 (d, "unique"),
               pc_s (pc_json_u64 (d, "unique")));
  }
  fprintf (f, "%zu instant%s (%s; every other device as it had logged by then)\n", ni, pc_s (ni),
           instants_are (model));
  for (int v = 0; v < PC_V_COUNT; v++)
    if (pc_json_u64 (tot, pc_verdict_info (v)->name))
      fprintf (f, "  %-13s %" PRIu64 "\n", pc_verdict_info (v)->name,
               pc_json_u64 (tot, pc_verdict_info (v)->name));
  if (pc_json_u64 (tot, "promises") + pc_json_u64 (tot, "program_promises") +
      pc_json_u64 (tot, "exposures"))
    fprintf (f, "of the failing: %" PRIu64 " broke a promise (the filesystem's fault), %" PRIu64
             " the program's (it gave up a durable version), %" PRIu64 " only exposed data "
             "never made durable\n", pc_json_u64 (tot, "promises"),
             pc_json_u64 (tot, "program_promises"), pc_json_u64 (tot, "exposures"));
  for (size_t i = 0; i < ni; i++) {
    json_object *x = json_object_array_get_idx (insts, i), *st = pc_json_member (x, "devices");
    const char *v = pc_json_str (x, "verdict");
    bool recovered;
    if (v == NULL || pc_verdict_parse (v) == PC_V_OK || pc_verdict_parse (v) == PC_V_NOT_CHECKED)
      continue;
    if (listed == 0)
      fprintf (f, "\nfailing instants:\n");
    if (listed++ == MAX_LISTED) {
      fprintf (f, "... and more (see the JSON report)\n");
      break;
    }
    fprintf (f, "%s at %.6f s: %s\n", pc_json_str (x, "id"), json_object_get_double (pc_json_member (x, "time")), v);
    /* rebuilt as a reboot leaves it where the check recovered every
     * device alone (replay --recovered does not recover a journal pair) */
    recovered = pc_report_replay_recovered ((enum pc_verdict) pc_verdict_parse (v));
    for (size_t j = 0; j < nd; j++) {
      const char *name = pc_json_str (json_object_array_get_idx (devs, j), "name");
      json_object *e = st ? pc_json_member (st, name) : NULL;
      const char *ev = e ? pc_json_str (e, "verdict") : NULL;
      if (e == NULL || pc_json_str (e, "journal_on") ||
          json_object_get_boolean (pc_json_member (json_object_array_get_idx (devs, j), "is_journal")))
        recovered = false;
      if (e && pc_json_str (e, "journal_on"))
        fprintf (f, "    %-10s %-13s with the journal of that instant\n", name,
                 ev ? ev : "(other shard)");
      else if (!json_object_get_boolean (pc_json_member (json_object_array_get_idx (devs, j), "is_journal")))
        fprintf (f, "    %-10s %-13s state %s\n", name,
                 e ? (ev ? ev : "(other shard)") : "not judged", e ? pc_json_str (e, "state") : "-");
    }
    if (pc_json_str (x, "journal_note"))
      fprintf (f, "    %s\n", pc_json_str (x, "journal_note"));
    if (pc_json_str (x, "app"))
      fprintf (f, "    %-10s %-13s %s\n", "--verify", pc_json_str (x, "app"),
               pc_json_str (x, "evidence") ? pc_json_str (x, "evidence") : "");
    fprintf (f, "    rebuild: powercut replay %s --at %s -o STATE-DIR%s\n", pc_json_str (o, "device_set"),
             pc_json_str (x, "id"), recovered ? " --recovered" : "");
  }
}

/* A state as the instants' entries and a shard's lists give it. */
static json_object *
state_json (const char *id, const struct pc_point *p)
{
  json_object *s = json_object_new_object ();

  json_object_object_add (s, "state", json_object_new_string (id));
  json_object_object_add (s, "verdict", p ? json_object_new_string (pc_verdict_info (p->verdict)->name)
                                          : NULL);
  if (p) {
    json_object_object_add (s, "promise", json_object_new_boolean (
                              p->verdict != PC_V_OK && p->verdict != PC_V_NOT_CHECKED &&
                              pc_point_broke_promise (p)));
    json_object_object_add (s, "fault", json_object_new_string (pc_fault_name (pc_point_fault (p))));
  }
  return s;
}

static json_object *
device_json (const struct pc_devcheck_result *res, size_t j)
{
  const struct pc_check_result *d = res->dev[j];
  json_object *o = json_object_new_object ();

  json_object_object_add (o, "name", json_object_new_string (res->names[j]));
  json_object_object_add (o, "log", json_object_new_string (d->log_path));
  json_object_object_add (o, "records", json_object_new_uint64 (d->records));
  json_object_object_add (o, "from", json_object_new_string (d->from));
  json_object_object_add (o, "from_record", json_object_new_uint64 (d->from_record));
  json_object_object_add (o, "states", json_object_new_uint64 (d->npoints));
  json_object_object_add (o, "unique", json_object_new_uint64 (d->unique));
  json_object_object_add (o, "journal_on", res->journal_of[j] >= 0
                          ? json_object_new_string (res->names[res->journal_of[j]]) : NULL);
  json_object_object_add (o, "is_journal", json_object_new_boolean (res->is_journal[j]));
  if (res->nshards > 1) {
    /* this shard's states, for powercut merge */
    json_object *pts = json_object_new_array ();
    for (size_t k = 0; k < d->npoints; k++)
      json_object_array_add (pts, state_json (d->points[k].id, &d->points[k]));
    json_object_object_add (o, "points", pts);
  }
  return o;
}

static json_object *
instant_json (const struct pc_devcheck_result *res, const struct pc_instant *in)
{
  json_object *x = json_object_new_object (), *st = json_object_new_object ();
  char id[PC_ID_MAX + 128];

  pc_instant_id (res, in, id, sizeof id);
  json_object_object_add (x, "id", json_object_new_string (id));
  json_object_object_add (x, "time", json_object_new_double (in->time_ns / 1e9));
  json_object_object_add (x, "verdict", json_object_new_string (pc_verdict_info (in->verdict)->name));
  json_object_object_add (x, "promise", json_object_new_boolean (in->promise));
  json_object_object_add (x, "fault", json_object_new_string (
                            pc_fault_name (in->promise ? PC_FAULT_FILESYSTEM
                                           : in->program && in->verdict != PC_V_OK &&
                                             in->verdict != PC_V_NOT_CHECKED
                                           ? PC_FAULT_PROGRAM : PC_FAULT_NONE)));
  for (size_t j = 0; j < res->ndev; j++) {
    const struct pc_point *p = pc_instant_point (res, in, j);
    json_object *s = NULL;
    char sid[32];
    if (in->pair[j] != PC_V_COUNT) {
      s = json_object_new_object ();
      json_object_object_add (s, "journal_on", json_object_new_string (res->names[res->journal_of[j]]));
      json_object_object_add (s, "verdict", in->owned
                              ? json_object_new_string (pc_verdict_info (in->pair[j])->name) : NULL);
    }
    else if (p)
      s = state_json (p->id, p);
    else if (in->point[j] == -2) {
      snprintf (sid, sizeof sid, "%" PRIu64, in->state[j]);
      s = state_json (sid, NULL);       /* another shard's */
    }
    json_object_object_add (st, res->names[j], s);
  }
  json_object_object_add (x, "devices", st);
  if (in->pair_note[0])
    json_object_object_add (x, "journal_note", json_object_new_string (in->pair_note));
  if (in->app != PC_V_COUNT) {
    json_object_object_add (x, "app", json_object_new_string (pc_verdict_info (in->app)->name));
    json_object_object_add (x, "evidence", json_object_new_string (in->evidence));
  }
  return x;
}

/* The JSON report of res (powercut-check(1), "Several devices"). */
static json_object *
devset_json (const struct pc_devcheck_result *res)
{
  json_object *o = json_object_new_object (), *devs = json_object_new_array ();
  json_object *insts = json_object_new_array (), *totals = json_object_new_object ();
  char model[32];

  model_name (&res->model, model, sizeof model);
  json_object_object_add (o, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (o, "schema", json_object_new_int (1));
  json_object_object_add (o, "device_set", json_object_new_string (res->dir));
  json_object_object_add (o, "model", json_object_new_string (model));
  json_object_object_add (o, "seed", json_object_new_uint64 (res->model.seed));
  if (res->nshards > 1) {
    json_object_object_add (o, "shard", json_object_new_int ((int) res->shard));
    json_object_object_add (o, "shards", json_object_new_int ((int) res->nshards));
  }
  for (size_t j = 0; j < res->ndev; j++)
    json_object_array_add (devs, device_json (res, j));
  json_object_object_add (o, "devices", devs);
  json_object_object_add (totals, "instants", json_object_new_uint64 (res->ninst));
  for (int v = 0; v < PC_V_COUNT; v++)
    json_object_object_add (totals, pc_verdict_info (v)->name,
                            json_object_new_uint64 (res->count[v]));
  json_object_object_add (totals, "promises", json_object_new_uint64 (res->promises));
  json_object_object_add (totals, "program_promises", json_object_new_uint64 (res->program_promises));
  json_object_object_add (totals, "exposures", json_object_new_uint64 (res->exposures));
  json_object_object_add (o, "totals", totals);
  for (size_t i = 0; i < res->ninst; i++)
    json_object_array_add (insts, instant_json (res, &res->inst[i]));
  json_object_object_add (o, "instants", insts);
  return o;
}

int
pc_devset_json_write (const char *path, json_object *o)
{
  if (strcmp (path, "-") == 0) {
    fputs (json_object_to_json_string_ext (o, JSON_C_TO_STRING_PRETTY), stdout);
    fputc ('\n', stdout);
    return fflush (stdout) == 0 ? 0 : -errno;
  }
  return json_object_to_file_ext (path, o, JSON_C_TO_STRING_PRETTY) < 0 ? -EIO : 0;
}

int
pc_devcheck_write (const struct pc_devcheck_result *res, const struct pc_outputs *o,
                   struct pc_err *err)
{
  json_object *js = devset_json (res);
  size_t nc = 0;
  int r;

  if (js == NULL)
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  if (o->text)
    pc_devset_text (o->text, js);
  r = o->json ? pc_devset_json_write (o->json, js) : 0;
  json_object_put (js);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", o->json, strerror (-r));
  for (size_t j = 0; j < res->ndev; j++)
    nc += res->dev[j]->count[PC_V_NOT_CHECKED] +
          (res->fine && res->fine[j] ? res->fine[j]->count[PC_V_NOT_CHECKED] : 0);
  for (size_t i = 0; i < res->ninst; i++)
    nc += res->inst[i].app == PC_V_NOT_CHECKED;     /* the checker told nothing */
  r = pc_fail_on_counts (o->fail_on, res->promises, res->program_promises, res->exposures, 0)
      ? PC_CHECK_FAILED : PC_CHECK_SURVIVED;
  if (nc > 0) {
    pc_err_msg (err, "%zu state%s of the devices or instants could not be checked (see the "
                "report)", nc, pc_s (nc));
    r = PC_CHECK_UNFINISHED;
  }
  return r;
}
