/* configs.c: powercut run's configurations: parsed, named, and each
 * recorded, checked and reported. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/devcheck.h"
#include "report/html.h"
#include "report/outputs.h"
#include "report/report.h"
#include "fs/fs.h"
#include "run/configs.h"
#include "run/gjudge.h"
#include "util/util.h"

/* Parses a --config: "FS [MOUNT-OPTS] [vm.dirty_NAME=VALUE]...". */
int
pc_config_parse (const char *spec, struct pc_config *c, struct pc_err *err)
{
  char buf[512], *save = NULL;
  bool have_opts = false;

  memset (c, 0, sizeof *c);
  snprintf (buf, sizeof buf, "%s", spec);
  c->mount_opts = "";
  /* mkfs='...', blanks and all, taken out first */
  {
    char *m = strstr (buf, "mkfs='"), *end;
    if (m && (m == buf || m[-1] == ' ' || m[-1] == '\t')) {
      end = strchr (m + 6, '\'');
      if (end == NULL)
        return pc_err_set (err, EINVAL, "--config '%s': mkfs=' has no closing quote", spec);
      snprintf (c->mkfs_opts, sizeof c->mkfs_opts, "%.*s", (int) (end - (m + 6)), m + 6);
      if (c->mkfs_opts[0] == '\0')
        return pc_err_set (err, EINVAL, "--config '%s': mkfs='' gives no options", spec);
      memset (m, ' ', (size_t) (end + 1 - m));
    }
  }
  for (char *w = strtok_r (buf, " \t", &save); w; w = strtok_r (NULL, " \t", &save)) {
    if (c->fs == NULL) {
      const struct pc_fs *fs = pc_fs_find (w);
      if (fs == NULL)
        return pc_err_set (err, EINVAL, "--config '%s': starts with %s, not %s", spec, w,
                           pc_fs_names (false));
      c->fs = fs->name;
    }
    else if (strchr (w, '.') && (!strchr (w, '=') || strchr (w, '.') < strchr (w, '='))) {
      /* a knob: a dotted name (mount options have none before '=') */
      if (c->nsysctls == PC_MAX_SYSCTLS)
        return pc_err_set (err, EINVAL, "--config '%s': at most %d knobs", spec, PC_MAX_SYSCTLS);
      if (pc_sysctl_parse (w, &c->sysctls[c->nsysctls++], err) < 0)
        return pc_err_prefix (err, EINVAL, "--config '%s'", spec);
    }
    else if (!have_opts) {
      snprintf (c->opts_buf, sizeof c->opts_buf, "%s", w);
      c->mount_opts = c->opts_buf;
      have_opts = true;
    }
    else
      return pc_err_set (err, EINVAL, "--config '%s': '%s': mount options are one word, "
                         "separated by commas", spec, w);
  }
  if (c->fs == NULL)
    return pc_err_set (err, EINVAL, "--config '%s': no filesystem", spec);
  return 0;
}

void
pc_config_copy (struct pc_config *dst, const struct pc_config *src)
{
  *dst = *src;
  if (src->mount_opts == src->opts_buf)
    dst->mount_opts = dst->opts_buf;
}

void
pc_config_name (const struct pc_config *c, size_t idx, size_t n, const char *out,
                struct pc_outcome *o)
{
  char slug[128];
  size_t k = 0, l;

  memset (o, 0, sizeof *o);
  o->fs = c->fs;
  o->mount_opts = c->mount_opts;
  l = (size_t) snprintf (o->label, sizeof o->label, "%s%s%s%s%s%s", c->fs,
                         c->mkfs_opts[0] ? " mkfs='" : "", c->mkfs_opts,
                         c->mkfs_opts[0] ? "'" : "", c->mount_opts[0] ? " " : "", c->mount_opts);
  for (size_t i = 0; i < c->nsysctls && l < sizeof o->label; i++)
    l += (size_t) snprintf (o->label + l, sizeof o->label - l, " %s=%s", c->sysctls[i].name,
                            c->sysctls[i].value);
  for (const char *p = o->label; *p && k + 1 < sizeof slug; p++)
    if (*p != '\'')
      slug[k++] = (*p == ' ' || *p == '/' || *p == ',' || *p == '=') ? '-' : *p;
  slug[k] = '\0';
  if (n == 1)
    snprintf (o->dir, sizeof o->dir, "%s", out);
  else
    snprintf (o->dir, sizeof o->dir, "%s/%zu-%s", out, idx + 1, slug);
}

/* Says a problem: "PATH: cannot write". */
static void
cannot_write (const struct pc_config_job *job, const char *path)
{
  char line[PATH_MAX + 64];

  snprintf (line, sizeof line, "%s: cannot write", path);
  job->problem (job->ctx, line);
}

/* Writes report.txt, report.json and report.html of o into its directory;
 * says what it cannot write through job->problem.  Returns 0, or 1 if a
 * report could not be written. */
static int
write_reports (const struct pc_config_job *job, const struct pc_outcome *o, const char *logp)
{
  char path[PATH_MAX + 32], title[256];
  struct pc_html_config hc = { o->label, o->res, NULL };
  struct pc_index ix;
  int bad = 0, have;
  FILE *f;

  snprintf (path, sizeof path, "%s/report.txt", o->dir);
  f = fopen (path, "we");
  if (f) {
    if (job->run_n > 1)
      pc_report_text_run (f, o->res, job->run_k, job->run_n);
    else
      pc_report_text (f, o->res);
    bad |= fclose (f) != 0;
  }
  else
    bad = 1;
  snprintf (path, sizeof path, "%s/report.json", o->dir);
  if (pc_report_json (path, o->res) < 0) {
    cannot_write (job, path);
    bad = 1;
  }
  snprintf (path, sizeof path, "%s/report.html", o->dir);
  have = pc_index_load (logp, &ix) == 0;
  if (have)
    hc.ix = &ix;
  snprintf (title, sizeof title, "powercut run: %s on %s", job->title, o->label);
  if (pc_report_html (path, title, &hc, 1) < 0) {
    cannot_write (job, path);
    bad = 1;
  }
  if (have)
    pc_index_free (&ix);
  return bad;
}

/* Fails o: its error, said as a problem ("LABEL: ERROR"). */
static int
config_failed (const struct pc_config_job *job, struct pc_outcome *o, int r, const char *what,
               const char *why)
{
  char line[sizeof o->label + sizeof o->error + 8];

  snprintf (o->error, sizeof o->error, "%s%s", what, why);
  snprintf (line, sizeof line, "%s: %s", o->label, o->error);
  job->problem (job->ctx, line);
  return r;
}

/* pc_config_run for several devices: recorded into o->dir/set, checked
 * at every instant (devcheck.h), its text and JSON reports written. */
static int
config_run_set (const struct pc_config_job *job, struct pc_run_config *rc,
                struct pc_check_config *cc, struct pc_outcome *o)
{
  struct pc_run_device *devs = calloc (rc->ndevices, sizeof *devs);
  char set[PATH_MAX + 8], txt[PATH_MAX + 16], js[PATH_MAX + 16], line[PATH_MAX + 1024];
  struct pc_devcheck_result *res = NULL;
  struct pc_outputs out = { NULL, js, NULL, PC_FAIL_ON_EXPOSURE };
  struct pc_err why;
  int r, st;

  if (devs == NULL)
    return config_failed (job, o, -ENOMEM, "", strerror (ENOMEM));
  snprintf (set, sizeof set, "%s/set", o->dir);
  if (pc_mkdir_p (set) < 0) {
    r = -errno;
    free (devs);
    return config_failed (job, o, r, set, strerror (-r));
  }
  {
    /* a set left there by an earlier run would be checked with this one */
    DIR *d = opendir (set);
    struct dirent *de;
    while (d && (de = readdir (d)) != NULL) {
      size_t n = strlen (de->d_name);
      char old[PATH_MAX + 300];
      if (n > 6 && strcmp (de->d_name + n - 6, ".pclog") == 0) {
        snprintf (old, sizeof old, "%s/%s", set, de->d_name);
        unlink (old);
      }
    }
    if (d)
      closedir (d);
  }
  for (size_t i = 0; i < rc->ndevices; i++) {
    char *p;
    devs[i] = rc->devices[i];
    if (asprintf (&p, "%s/%s.pclog", set, devs[i].name) < 0)
      p = NULL;
    devs[i].log_path = p;
  }
  rc->devices = devs;
  r = pc_run_record (rc, &why);
  if (r < 0)
    r = config_failed (job, o, r, "", why.msg);
  if (r == 0) {
    if (rc->status)
      rc->status (o->label, "checking every instant of the devices");
    r = pc_devcheck_run (cc, set, &res, &why);
    if (r < 0)
      r = config_failed (job, o, r, "check: ", why.msg);
  }
  for (size_t i = 0; i < rc->ndevices; i++)
    free ((char *) devs[i].log_path);
  free (devs);
  if (r < 0)
    return r;
  snprintf (txt, sizeof txt, "%s/report.txt", o->dir);
  snprintf (js, sizeof js, "%s/report.json", o->dir);
  out.text = fopen (txt, "we");
  if (out.text == NULL)
    cannot_write (job, txt);
  st = pc_devcheck_write (res, &out, &why);
  if (out.text && fclose (out.text) != 0)
    cannot_write (job, txt);
  if (st < 0)
    cannot_write (job, js);
  o->ok = o->set = true;
  o->promises = res->promises;
  o->program = res->program_promises;
  o->exposures = res->exposures;
  o->points = o->unique = res->ninst;
  o->win.longest = o->win.ack_exposed = SIZE_MAX;     /* no versions followed */
  memcpy (o->count, res->count, sizeof o->count);
  r = st < 0 || out.text == NULL;
  if (st == PC_CHECK_UNFINISHED) {
    snprintf (line, sizeof line, "%s: %.600s (%s)", o->label, why.msg, txt);
    job->problem (job->ctx, line);
    r = 1;
  }
  pc_devcheck_free (res);
  return r;
}

/* An earlier run's reports in dir are gone before this run writes its
 * own: one that fails or is interrupted leaves none presented as its. */
void
pc_config_forget_reports (const char *dir)
{
  static const char *const names[] = { "report.txt", "report.json", "report.html", NULL };
  char path[PATH_MAX + 32];

  for (const char *const *n = names; *n; n++) {
    snprintf (path, sizeof path, "%s/%s", dir, *n);
    unlink (path);
  }
}

int
pc_config_run (const struct pc_config_job *job, struct pc_config *k, struct pc_outcome *o)
{
  struct pc_run_config rc = job->run;
  struct pc_check_config cc = job->check;
  struct pc_check_result *res = NULL;
  char logp[PATH_MAX + 32], tracep[PATH_MAX + 32], consolep[PATH_MAX + 32];
  char gconsolep[PATH_MAX + 32];
  struct pc_err why;
  char line[PATH_MAX + 256];
  uint64_t t;
  int r;

  if (pc_mkdir_p (o->dir) < 0) {
    r = -errno;
    snprintf (o->error, sizeof o->error, "%s: %s", o->dir, strerror (-r));
    return r;
  }
  pc_config_forget_reports (o->dir);
  snprintf (logp, sizeof logp, "%s/powercut.log", o->dir);
  snprintf (tracep, sizeof tracep, "%s/workload.txt", o->dir);
  snprintf (consolep, sizeof consolep, "%s/console.txt", o->dir);
  rc.console_path = consolep;
  rc.fs = k->fs;
  if (k->mkfs_opts[0])
    rc.mkfs_opts = k->mkfs_opts;
  rc.mount_opts = k->mount_opts;
  rc.sysctls = k->sysctls;
  rc.nsysctls = k->nsysctls;
  rc.log_path = logp;
  rc.trace_path = tracep;
  rc.status_ctx = o->label;
  if (cc.nshards == 0)
    cc.nshards = 1;
  if (cc.timeout_s == 0)
    cc.timeout_s = 60;
  if (rc.ndevices > 0 && cc.judge == PC_JUDGE_GUEST)
    return config_failed (job, o, -EINVAL, "", "--judge guest: not for several devices");
  if (rc.ndevices > 0)
    return config_run_set (job, &rc, &cc, o);
  /* a judge that cannot run the application's checker says so before
   * the recording, not after it */
  if (cc.verify && (cc.judge == PC_JUDGE_GUEST ||
                    (cc.judge == PC_JUDGE_AUTO && pc_fs_find (rc.fs) &&
                     !pc_fs_kernel_has (pc_fs_find (rc.fs)))))
    return config_failed (job, o, -EINVAL, "", cc.judge == PC_JUDGE_GUEST
                          ? "--verify: not with --judge guest (the checker runs on this machine)"
                          : "--verify: this machine's kernel cannot mount it, and a guest's "
                            "judge runs no checker of this machine's");
  r = pc_run_record (&rc, &why);
  if (r < 0)
    return config_failed (job, o, r, "", why.msg);
  cc.log_path = logp;
  cc.base_path = rc.base_path;
  if (rc.status)
    rc.status (o->label, "checking every crash point");
  if (cc.judge == PC_JUDGE_AUTO && pc_fs_find (rc.fs) && !pc_fs_kernel_has (pc_fs_find (rc.fs))) {
    /* what this machine's kernel cannot mount, a guest's judges */
    cc.judge = PC_JUDGE_GUEST;
    if (rc.status)
      rc.status (o->label, "this machine's kernel cannot mount it: judged in a guest, as "
                 "--judge guest does");
  }
  t = pc_now_mono_ns ();
  if (cc.judge == PC_JUDGE_GUEST) {
    /* the whole check in a guest, its console beside the log */
    struct pc_guest_judge gj = {
      .self = rc.self, .kernel = rc.kernel, .modules = rc.modules, .console_path = gconsolep,
      .status = rc.status, .status_ctx = o->label,
    };
    snprintf (gconsolep, sizeof gconsolep, "%s/judge-console.txt", o->dir);
    r = pc_guest_check (&cc, &gj, &res, &why);
  }
  else
    r = pc_check_run (&cc, &res, &why);
  if (rc.phases)
    rc.phases->s[PC_PHASE_CHECK] += (double) (pc_now_mono_ns () - t) / 1e9;
  if (r < 0)
    return config_failed (job, o, r, "check: ", why.msg);
  pc_outcome_set (o, res);
  r = 0;
  if (res->count[PC_V_NOT_CHECKED] > 0) {
    /* Some states could not be checked: the run could not finish. */
    snprintf (line, sizeof line, "%s: %zu crash point%s could not be checked (see %s/report.txt)",
              o->label, res->count[PC_V_NOT_CHECKED], res->count[PC_V_NOT_CHECKED] == 1 ? "" : "s",
              o->dir);
    job->problem (job->ctx, line);
    r = 1;
  }
  return write_reports (job, o, logp) | r;
}
