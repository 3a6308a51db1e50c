/* compare.c: powercut run over several configurations: each recorded,
 * checked and reported; then all of them compared. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "report/compare.h"
#include "report/html.h"
#include "report/report.h"
#include "util/util.h"

/* Distinct failing paths of a check. */
static size_t
files_affected (const struct pc_check_result *res)
{
  size_t n;

  free (pc_report_paths (res, -1, &n));
  return n;
}

/* Seconds for the table: "-" for none. */
static const char *
secs (char *buf, size_t len, bool have, uint64_t ns)
{
  if (have)
    snprintf (buf, len, "%.1f s", (double) ns / 1e9);
  else
    snprintf (buf, len, "-");
  return buf;
}

/* The windows' columns: the longest (with "+": some version was still at
 * risk at the last crash point, for that long), the median, and how long
 * acknowledged data stayed lost. */
static void
window_cols (FILE *f, const struct pc_window_summary *s)
{
  char a[32], b[32], c[32];

  if (s->never && s->open_ns >= s->longest_ns)
    snprintf (a, sizeof a, ">%.1f s", (double) s->open_ns / 1e9);
  else
    secs (a, sizeof a, s->longest != SIZE_MAX, s->longest_ns);
  fprintf (f, "  | %14s  %6s  %10s", a, secs (b, sizeof b, s->longest != SIZE_MAX, s->median_ns),
           secs (c, sizeof c, s->ack_exposed != SIZE_MAX, s->ack_exposed_ns));
}

/* The comparison; with app (--verify given), a column for app-invalid. */
void
pc_compare_table (FILE *f, const struct pc_config *cf, size_t n, bool app)
{
  int cols[PC_V_COUNT];
  size_t ncols = 0;
  size_t w = strlen ("configuration");
  bool unchecked = false, windows = false;

  for (int v = 0; v < PC_V_COUNT; v++)
    if (pc_verdict_info (v)->column && (app || v != PC_V_APP_INVALID))
      cols[ncols++] = v;
  for (size_t i = 0; i < n; i++)
    if (strlen (cf[i].label) > w)
      w = strlen (cf[i].label);
  /* Each column as wide as its name or its widest number. */
  int cw[PC_V_COUNT];
  for (size_t k = 0; k < ncols; k++) {
    cw[k] = (int) strlen (pc_verdict_name (cols[k]));
    for (size_t i = 0; i < n; i++) {
      char num[32];
      int len = snprintf (num, sizeof num, "%zu", cf[i].count[cols[k]]);
      if (cf[i].ok && len > cw[k])
        cw[k] = len;
    }
  }
  /* States powercut could not check are no verdict: a column apart, there
   * only when some configuration has them. */
  for (size_t i = 0; i < n; i++)
    unchecked |= cf[i].ok && cf[i].count[PC_V_NOT_CHECKED] > 0;
  fprintf (f, "%-*s  %6s", (int) w, "configuration", "points");
  for (size_t k = 0; k < ncols; k++)
    fprintf (f, "  %*s", cw[k], pc_verdict_name (cols[k]));
  for (size_t i = 0; i < n; i++)
    windows |= cf[i].ok && cf[i].win.n > 0;
  fprintf (f, "  files%s%s\n", unchecked ? "  | not checked" : "",
           windows ? "  | longest window  median  acked lost" : "");
  for (size_t i = 0; i < n; i++) {
    fprintf (f, "%-*s  ", (int) w, cf[i].label);
    if (!cf[i].ok) {
      fprintf (f, "error: %s\n", cf[i].error);
      continue;
    }
    fprintf (f, "%6zu", cf[i].points);
    for (size_t k = 0; k < ncols; k++)
      fprintf (f, "  %*zu", cw[k], cf[i].count[cols[k]]);
    fprintf (f, "  %5zu", cf[i].files);
    if (unchecked)
      fprintf (f, "  | %11zu", cf[i].count[PC_V_NOT_CHECKED]);
    if (windows)
      window_cols (f, &cf[i].win);
    fputc ('\n', f);
  }
}

int
pc_compare_json (const char *path, const char *workload, const struct pc_config *cf, size_t n)
{
  json_object *root = json_object_new_object (), *arr = json_object_new_array ();
  int r = 0;

  json_object_object_add (root, "powercut", json_object_new_string (PACKAGE_VERSION));
  json_object_object_add (root, "workload", json_object_new_string (workload));
  for (size_t i = 0; i < n; i++) {
    json_object *o = json_object_new_object (), *t = json_object_new_object ();
    json_object_object_add (o, "configuration", json_object_new_string (cf[i].label));
    json_object_object_add (o, "fs", json_object_new_string (cf[i].fs));
    json_object_object_add (o, "mount_opts", json_object_new_string (cf[i].mount_opts));
    json_object_object_add (o, "dir", json_object_new_string (cf[i].dir));
    if (!cf[i].ok)
      json_object_object_add (o, "error", json_object_new_string (cf[i].error));
    else {
      json_object_object_add (t, "points", json_object_new_int64 ((int64_t) cf[i].points));
      for (int v = 0; v < PC_V_COUNT; v++)
        json_object_object_add (t, pc_verdict_name (v), json_object_new_int64 ((int64_t) cf[i].count[v]));
      json_object_object_add (o, "totals", t);
      json_object_object_add (o, "files_affected", json_object_new_int64 ((int64_t) cf[i].files));
      json_object_object_add (o, "windows", pc_windows_summary_json (&cf[i].win));
    }
    json_object_array_add (arr, o);
  }
  json_object_object_add (root, "configurations", arr);
  if (json_object_to_file_ext (path, root, JSON_C_TO_STRING_PRETTY) < 0)
    r = -EIO;
  json_object_put (root);
  return r;
}

/* One page with every configuration's timeline, aligned, under the table. */
int
pc_compare_html (const char *out, const char *workload, const struct pc_config *cf, size_t n)
{
  struct pc_html_config hc[PC_MAX_CONFIGS];
  struct pc_index ix[PC_MAX_CONFIGS];
  bool have[PC_MAX_CONFIGS];
  char path[PATH_MAX + 32], title[256];
  size_t k = 0;
  int r;

  for (size_t i = 0; i < n; i++) {
    char logp[PATH_MAX + 32];
    if (!cf[i].ok)
      continue;
    snprintf (logp, sizeof logp, "%s/powercut.log", cf[i].dir);
    have[k] = pc_index_load (logp, &ix[k]) == 0;
    hc[k].label = cf[i].label;
    hc[k].res = cf[i].res;
    hc[k].ix = have[k] ? &ix[k] : NULL;
    k++;
  }
  snprintf (path, sizeof path, "%s/report.html", out);
  snprintf (title, sizeof title, "powercut run: %s on %zu configurations", workload, n);
  r = pc_report_html (path, title, hc, k);
  for (size_t i = 0; i < k; i++)
    if (have[i])
      pc_index_free (&ix[i]);
  return r;
}

/* Parses a --config: "FS [MOUNT-OPTS] [vm.dirty_NAME=VALUE]...".  Returns
 * 0, or -EINVAL with a reason in why. */
int
pc_config_parse (const char *spec, struct pc_config *c, char *why, size_t len)
{
  char buf[512], *save = NULL;
  bool have_opts = false;

  memset (c, 0, sizeof *c);
  snprintf (buf, sizeof buf, "%s", spec);
  c->mount_opts = "";
  for (char *w = strtok_r (buf, " \t", &save); w; w = strtok_r (NULL, " \t", &save)) {
    if (c->fs == NULL) {
      if (strcmp (w, "ext2") && strcmp (w, "ext3") && strcmp (w, "ext4")) {
        snprintf (why, len, "--config '%s': starts with %s, not ext2, ext3 or ext4", spec, w);
        return -EINVAL;
      }
      c->fs = strcmp (w, "ext2") == 0 ? "ext2" : strcmp (w, "ext3") == 0 ? "ext3" : "ext4";
    }
    else if (strchr (w, '.') && (!strchr (w, '=') || strchr (w, '.') < strchr (w, '='))) {
      /* a knob: a dotted name (mount options have none before '=') */
      char swhy[200];
      if (c->nsysctls == PC_MAX_SYSCTLS) {
        snprintf (why, len, "--config '%s': at most %d knobs", spec, PC_MAX_SYSCTLS);
        return -EINVAL;
      }
      if (pc_sysctl_parse (w, &c->sysctls[c->nsysctls++], swhy, sizeof swhy) < 0) {
        snprintf (why, len, "--config '%s': %s", spec, swhy);
        return -EINVAL;
      }
    }
    else if (!have_opts) {
      snprintf (c->opts_buf, sizeof c->opts_buf, "%s", w);
      c->mount_opts = c->opts_buf;
      have_opts = true;
    }
    else {
      snprintf (why, len, "--config '%s': '%s': mount options are one word, separated by "
                "commas", spec, w);
      return -EINVAL;
    }
  }
  if (c->fs == NULL) {
    snprintf (why, len, "--config '%s': no filesystem", spec);
    return -EINVAL;
  }
  return 0;
}

void
pc_config_name (struct pc_config *c, size_t idx, size_t n, const char *out)
{
  char slug[128];
  size_t k = 0, l;

  l = (size_t) snprintf (c->label, sizeof c->label, "%s%s%s", c->fs, c->mount_opts[0] ? " " : "",
                         c->mount_opts);
  for (size_t i = 0; i < c->nsysctls && l < sizeof c->label; i++)
    l += (size_t) snprintf (c->label + l, sizeof c->label - l, " %s=%s", c->sysctls[i].name,
                            c->sysctls[i].value);
  for (const char *p = c->label; *p && k + 1 < sizeof slug; p++)
    slug[k++] = (*p == ' ' || *p == '/' || *p == ',' || *p == '=') ? '-' : *p;
  slug[k] = '\0';
  if (n == 1)
    snprintf (c->dir, sizeof c->dir, "%s", out);
  else
    snprintf (c->dir, sizeof c->dir, "%s/%zu-%s", out, idx + 1, slug);
}


/* Writes report.txt, report.json and report.html of k into its directory;
 * says what it cannot write through cmp->problem.  Returns 0, or 1 if a
 * report could not be written. */
static int
write_reports (const struct pc_compare *cmp, const struct pc_config *k, const char *logp)
{
  char path[PATH_MAX + 32], line[PATH_MAX + 64], title[256];
  struct pc_html_config hc = { k->label, k->res, NULL };
  struct pc_index ix;
  int bad = 0, have;
  FILE *f;

  snprintf (path, sizeof path, "%s/report.txt", k->dir);
  f = fopen (path, "we");
  if (f) {
    pc_report_text (f, k->res);
    bad |= fclose (f) != 0;
  }
  else
    bad = 1;
  snprintf (path, sizeof path, "%s/report.json", k->dir);
  if (pc_report_json (path, k->res) < 0) {
    snprintf (line, sizeof line, "%s: cannot write", path);
    cmp->problem (cmp->ctx, line);
    bad = 1;
  }
  snprintf (path, sizeof path, "%s/report.html", k->dir);
  have = pc_index_load (logp, &ix) == 0;
  if (have)
    hc.ix = &ix;
  snprintf (title, sizeof title, "powercut run: %s on %s", cmp->title, k->label);
  if (pc_report_html (path, title, &hc, 1) < 0) {
    snprintf (line, sizeof line, "%s: cannot write", path);
    cmp->problem (cmp->ctx, line);
    bad = 1;
  }
  if (have)
    pc_index_free (&ix);
  return bad;
}

int
pc_compare_one (const struct pc_compare *cmp, struct pc_config *k)
{
  struct pc_run_config rc = cmp->run;
  struct pc_check_config cc = { 0 };
  char logp[PATH_MAX + 32], tracep[PATH_MAX + 32], consolep[PATH_MAX + 32];
  char why[1024], line[PATH_MAX + 1400];
  int r;

  if (pc_mkdir_p (k->dir) < 0) {
    r = -errno;
    snprintf (k->error, sizeof k->error, "%s: %s", k->dir, strerror (-r));
    return r;
  }
  snprintf (logp, sizeof logp, "%s/powercut.log", k->dir);
  snprintf (tracep, sizeof tracep, "%s/workload.txt", k->dir);
  snprintf (consolep, sizeof consolep, "%s/console.txt", k->dir);
  rc.console_path = consolep;
  rc.fs = k->fs;
  rc.mount_opts = k->mount_opts;
  rc.sysctls = k->sysctls;
  rc.nsysctls = k->nsysctls;
  rc.log_path = logp;
  rc.trace_path = tracep;
  rc.status_ctx = k->label;
  r = pc_run_record (&rc, why, sizeof why);
  if (r < 0) {
    snprintf (k->error, sizeof k->error, "%s", why);
    snprintf (line, sizeof line, "%s: %s", k->label, why);
    cmp->problem (cmp->ctx, line);
    return r;
  }
  cc.log_path = logp;
  cc.model = cmp->model;
  cc.jobs = cmp->jobs;
  cc.verify = cmp->verify;
  cc.nshards = 1;
  cc.timeout_s = 60;
  cc.interrupted = cmp->interrupted;
  cc.progress = cmp->progress;
  cc.progress_ctx = cmp->progress_ctx;
  if (rc.status)
    rc.status (k->label, "checking every crash point");
  r = pc_check_run (&cc, &k->res, why, sizeof why);
  if (r < 0) {
    snprintf (k->error, sizeof k->error, "check: %s", why);
    snprintf (line, sizeof line, "%s: check: %s", k->label, why);
    cmp->problem (cmp->ctx, line);
    return r;
  }
  k->ok = true;
  k->points = k->res->npoints;
  k->unique = k->res->unique;
  memcpy (k->count, k->res->count, sizeof k->count);
  k->files = files_affected (k->res);
  pc_windows_summary (k->res, &k->win);
  r = 0;
  if (k->res->count[PC_V_NOT_CHECKED] > 0) {
    /* Some states could not be checked: the run could not finish. */
    snprintf (line, sizeof line, "%s: %zu crash points could not be checked (see %s/report.txt)",
              k->label, k->res->count[PC_V_NOT_CHECKED], k->dir);
    cmp->problem (cmp->ctx, line);
    r = 1;
  }
  return write_reports (cmp, k, logp) | r;
}
