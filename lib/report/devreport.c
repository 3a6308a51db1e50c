/* devreport.c: a device set's check reported (outputs.h): text and JSON. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "check/devcheck.h"
#include "report/outputs.h"
#include "report/report.h"

#define MAX_LISTED 20

/* What the instants are, after the model. */
static const char *
instants_are (const struct pc_devcheck_result *res)
{
  switch (res->model.kind) {
  case PC_MODEL_WRITE:
    return "right after every record of any device that tells what its disk holds";
  case PC_MODEL_REORDER:
    return "every flush and FUA write of any device, and each device's states with\n"
           "writes of its open epoch lost";
  case PC_MODEL_TORN:
    return "every flush and FUA write of any device, and each device's states with\n"
           "a write of its open epoch torn";
  default:
    return "every flush and FUA write of any device";
  }
}

static void
text (FILE *f, const struct pc_devcheck_result *res)
{
  size_t listed = 0, failing = res->promises + res->exposures;
  char id[PC_ID_MAX + 128];

  fprintf (f, "powercut check: device set %s, %zu devices:", res->dir, res->ndev);
  for (size_t j = 0; j < res->ndev; j++)
    fprintf (f, " %s", res->names[j]);
  fprintf (f, "\n");
  for (size_t j = 0; j < res->ndev; j++) {
    const struct pc_check_result *d = res->dev[j];
    fprintf (f, "  %s: %s, %" PRIu64 " records, ", res->names[j], d->log_path, d->records);
    if (res->is_journal[j])
      fprintf (f, "the external journal of another device\n");
    else if (res->journal_of[j] >= 0)
      fprintf (f, "its journal on %s: judged with it by e2fsck at each instant from %s "
               "(record %" PRIu64 ")\n", res->names[res->journal_of[j]],
               d->from[0] ? d->from : "the start", d->from_record);
    else
      fprintf (f, "checked from %s (record %" PRIu64 "): %zu states, %zu distinct images\n",
               d->from[0] ? d->from : "the start", d->from_record, d->npoints, d->unique);
  }
  fprintf (f, "%zu instants (%s; every other device as it had logged by then)\n", res->ninst,
           instants_are (res));
  for (int v = 0; v < PC_V_COUNT; v++)
    if (res->count[v])
      fprintf (f, "  %-13s %zu\n", pc_verdict_info (v)->name, res->count[v]);
  if (failing)
    fprintf (f, "of the failing: %zu broke a promise, %zu only exposed data never made "
             "durable\n", res->promises, res->exposures);
  for (size_t i = 0; i < res->ninst; i++) {
    const struct pc_instant *in = &res->inst[i];
    if (in->verdict == PC_V_OK || in->verdict == PC_V_NOT_CHECKED)
      continue;
    if (listed == 0)
      fprintf (f, "\nfailing instants:\n");
    if (listed++ == MAX_LISTED) {
      fprintf (f, "... and more (see the JSON report)\n");
      break;
    }
    pc_instant_id (res, in, id, sizeof id);
    fprintf (f, "%s at %.6f s: %s\n", id, in->time_ns / 1e9, pc_verdict_info (in->verdict)->name);
    for (size_t j = 0; j < res->ndev; j++) {
      const struct pc_point *p = pc_instant_point (res, in, j);
      if (in->pair[j] != PC_V_COUNT)
        fprintf (f, "    %-10s %-13s with the journal of that instant\n", res->names[j],
                 pc_verdict_info (in->pair[j])->name);
      else if (!res->is_journal[j])
        fprintf (f, "    %-10s %-13s state %s\n", res->names[j],
                 p ? pc_verdict_info (p->verdict)->name : "not judged", p ? p->id : "-");
    }
    if (in->pair_note[0])
      fprintf (f, "    %s\n", in->pair_note);
    if (in->app != PC_V_COUNT)
      fprintf (f, "    %-10s %-13s %s\n", "--verify", pc_verdict_info (in->app)->name,
               in->evidence);
    fprintf (f, "    rebuild: powercut replay %s --at %s -o STATE-DIR\n", res->dir, id);
  }
}

static int
json (const char *path, const struct pc_devcheck_result *res)
{
  json_object *o = json_object_new_object (), *devs = json_object_new_array ();
  json_object *insts = json_object_new_array (), *totals = json_object_new_object ();
  int r = 0;

  json_object_object_add (o, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (o, "schema", json_object_new_int (1));
  json_object_object_add (o, "device_set", json_object_new_string (res->dir));
  for (size_t j = 0; j < res->ndev; j++) {
    json_object *d = json_object_new_object ();
    json_object_object_add (d, "name", json_object_new_string (res->names[j]));
    json_object_object_add (d, "log", json_object_new_string (res->dev[j]->log_path));
    json_object_object_add (d, "records", json_object_new_uint64 (res->dev[j]->records));
    json_object_object_add (d, "from_record", json_object_new_uint64 (res->dev[j]->from_record));
    json_object_object_add (d, "states", json_object_new_uint64 (res->dev[j]->npoints));
    json_object_object_add (d, "unique", json_object_new_uint64 (res->dev[j]->unique));
    json_object_object_add (d, "journal_on", res->journal_of[j] >= 0
                            ? json_object_new_string (res->names[res->journal_of[j]]) : NULL);
    json_object_object_add (d, "is_journal", json_object_new_boolean (res->is_journal[j]));
    json_object_array_add (devs, d);
  }
  json_object_object_add (o, "devices", devs);
  json_object_object_add (totals, "instants", json_object_new_uint64 (res->ninst));
  for (int v = 0; v < PC_V_COUNT; v++)
    json_object_object_add (totals, pc_verdict_info (v)->name,
                            json_object_new_uint64 (res->count[v]));
  json_object_object_add (totals, "promises", json_object_new_uint64 (res->promises));
  json_object_object_add (totals, "exposures", json_object_new_uint64 (res->exposures));
  json_object_object_add (o, "totals", totals);
  for (size_t i = 0; i < res->ninst; i++) {
    const struct pc_instant *in = &res->inst[i];
    json_object *x = json_object_new_object (), *st = json_object_new_object ();
    char id[PC_ID_MAX + 128];
    pc_instant_id (res, in, id, sizeof id);
    json_object_object_add (x, "id", json_object_new_string (id));
    json_object_object_add (x, "time", json_object_new_double (in->time_ns / 1e9));
    json_object_object_add (x, "verdict",
                            json_object_new_string (pc_verdict_info (in->verdict)->name));
    json_object_object_add (x, "promise", json_object_new_boolean (in->promise));
    for (size_t j = 0; j < res->ndev; j++) {
      json_object *s = NULL;
      if (in->pair[j] != PC_V_COUNT) {
        s = json_object_new_object ();
        json_object_object_add (s, "journal_on",
                                json_object_new_string (res->names[res->journal_of[j]]));
        json_object_object_add (s, "verdict",
                                json_object_new_string (pc_verdict_info (in->pair[j])->name));
      }
      else if (pc_instant_point (res, in, j)) {
        const struct pc_point *p = pc_instant_point (res, in, j);
        s = json_object_new_object ();
        json_object_object_add (s, "state", json_object_new_string (p->id));
        json_object_object_add (s, "verdict",
                                json_object_new_string (pc_verdict_info (p->verdict)->name));
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
    json_object_array_add (insts, x);
  }
  json_object_object_add (o, "instants", insts);
  if (strcmp (path, "-") == 0) {
    fputs (json_object_to_json_string_ext (o, JSON_C_TO_STRING_PRETTY), stdout);
    fputc ('\n', stdout);
    r = fflush (stdout) == 0 ? 0 : -errno;
  }
  else if (json_object_to_file_ext (path, o, JSON_C_TO_STRING_PRETTY) < 0)
    r = -EIO;
  json_object_put (o);
  return r;
}

int
pc_devcheck_write (const struct pc_devcheck_result *res, const struct pc_outputs *o,
                   struct pc_err *err)
{
  size_t nc = 0;
  int r;

  if (o->text)
    text (o->text, res);
  if (o->json && (r = json (o->json, res)) < 0)
    return pc_err_set (err, -r, "%s: %s", o->json, strerror (-r));
  for (size_t j = 0; j < res->ndev; j++)
    nc += res->dev[j]->count[PC_V_NOT_CHECKED];
  for (size_t i = 0; i < res->ninst; i++)
    nc += res->inst[i].app == PC_V_NOT_CHECKED;     /* the checker told nothing */
  r = (o->fail_on == PC_FAIL_ON_PROMISES ? res->promises : res->promises + res->exposures) > 0
      ? PC_CHECK_FAILED : PC_CHECK_SURVIVED;
  if (nc > 0) {
    pc_err_msg (err, "%zu states of the devices or instants could not be checked (see the "
                "report)", nc);
    r = PC_CHECK_UNFINISHED;
  }
  return r;
}

int
pc_devcheck_report (const struct pc_check_config *cfg, const char *dir,
                    const struct pc_outputs *o, struct pc_err *err)
{
  struct pc_devcheck_result *res;
  int r = pc_devcheck_run (cfg, dir, &res, err);

  if (r < 0)
    return r;
  r = pc_devcheck_write (res, o, err);
  pc_devcheck_free (res);
  return r;
}
