/* text.c: the text report, for people, and what it shares with the others:
 * the failing paths and the command that rebuilds a crash state. */
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

int
pc_fail_on_parse (const char *s, enum pc_fail_on *ret)
{
  if (strcmp (s, "promises") == 0)
    *ret = PC_FAIL_ON_PROMISES;
  else if (strcmp (s, "program") == 0)
    *ret = PC_FAIL_ON_PROGRAM;
  else if (strcmp (s, "exposure") == 0)
    *ret = PC_FAIL_ON_EXPOSURE;
  else
    return -EINVAL;
  return 0;
}

bool
pc_fail_on_counts (enum pc_fail_on on, size_t promises, size_t program, size_t exposures)
{
  switch (on) {
  case PC_FAIL_ON_PROMISES: return promises > 0;
  case PC_FAIL_ON_PROGRAM: return promises + program > 0;
  default: return promises + program + exposures > 0;
  }
}

int
pc_report_failed_on (const struct pc_check_result *res, enum pc_fail_on on)
{
  return on == PC_FAIL_ON_EXPOSURE ? pc_report_failed (res)
         : pc_fail_on_counts (on, res->promises, res->program_promises, res->exposures);
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

/* A finding's cause: the rule it rests on and, for a traced program's
 * file, the call behind the version lost, when it was made durable and
 * what would have kept it. */
static void
cause_text (FILE *f, int kind, const struct pc_cause *c)
{
  if (!c->known)
    return;
  fprintf (f, "      rule:    %s: ", pc_cause_class (kind, c));
  put_shown (f, pc_display_line, c->rule ? c->rule : "?");
  fputc ('\n', f);
  if (c->call) {
    fputs ("      cause:   ", f);
    put_shown (f, pc_display_line, c->call);
    fprintf (f, " (pid %" PRId32 ", at %.3f s)", c->pid, c->time_ns / 1e9);
    fputc ('\n', f);
  }
  if (c->call || c->durable_by) {
    if (c->durable_ns >= 0) {
      fprintf (f, "      durable: at %.3f s, by ", c->durable_ns / 1e9);
      put_shown (f, pc_display_line, c->durable_by ? c->durable_by : "?");
    }
    else
      fputs ("      durable: never", f);
    fputc ('\n', f);
  }
  if (c->fix) {
    fputs ("      fix:     ", f);
    put_shown (f, pc_display_line, c->fix);
    fputc ('\n', f);
  }
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
    cause_text (f, v[j].first->kind, &v[j].first->cause);
  }
  if (n > shown)
    fprintf (f, "  ... and %zu more files (see the JSON report)\n", n - shown);
out:
  free (v);
}

/* Where an application's checker failed: the paths that held older
 * versions than the program had by its last acknowledgement, and why. */
static void
older_text (FILE *f, const struct pc_check_result *res)
{
  size_t n;
  struct pc_path_sum *v = pc_report_paths (res, PC_F_OLDER, &n);

  if (n > 0) {
    fprintf (f, "\nwhat the application lost: %zu path%s held an older version than the "
             "program had by its last acknowledgement, where its checker failed\n",
             n, n == 1 ? "" : "s");
    for (size_t j = 0; j < n && j < MAX_LISTED; j++) {
      fputs ("  ", f);
      put_shown (f, pc_display_name, v[j].first->path);
      fprintf (f, ": at %zu point%s (%s .. %s)\n", v[j].npoints, v[j].npoints == 1 ? "" : "s",
               v[j].first_id, v[j].last_id);
      cause_text (f, PC_F_OLDER, &v[j].first->cause);
    }
    if (n > MAX_LISTED)
      fprintf (f, "  ... and %zu more (see the JSON report)\n", n - MAX_LISTED);
  }
  free (v);
}

/* Paths not judged, and why: written by calls a traced program's tracer
 * cannot follow (their finding has a cause), or changed after the
 * workload's last mark. */
static void
not_judged_text (FILE *f, const struct pc_check_result *res)
{
  size_t n, nt = 0, listed = 0;
  struct pc_path_sum *v = pc_report_paths (res, PC_F_NOT_JUDGED, &n);

  for (size_t j = 0; j < n; j++)
    nt += v[j].first->cause.known;
  if (nt > 0) {
    fprintf (f, "\nnot judged: %zu path%s written by calls the tracer cannot follow "
             "(io_uring, AIO, a shared mapping never msync'd, another ABI): what the crash "
             "points hold there is listed, not judged\n", nt, nt == 1 ? "" : "s");
    for (size_t j = 0; j < n && listed < MAX_LISTED; j++) {
      const struct pc_finding *fd = v[j].first;
      if (!fd->cause.known)
        continue;
      fputs ("  ", f);
      put_shown (f, pc_display_name, fd->path);
      fprintf (f, " (at %zu point%s)", v[j].npoints, v[j].npoints == 1 ? "" : "s");
      if (fd->cause.call) {
        fputs (": ", f);
        put_shown (f, pc_display_line, fd->cause.call);
      }
      fputc ('\n', f);
      listed++;
    }
    if (nt > listed)
      fprintf (f, "  ... and %zu more (see the JSON report)\n", nt - listed);
  }
  if (n > nt) {
    fprintf (f, "\nnot judged: %zu path%s the workload changed after its last mark (%s): "
             "what the crash points after it hold there is listed, not judged\n",
             n - nt, n - nt == 1 ? "" : "s", res->last_mark[0] ? res->last_mark : "?");
    listed = 0;
    for (size_t j = 0; j < n && listed < MAX_LISTED; j++) {
      if (v[j].first->cause.known)
        continue;
      fputs ("  ", f);
      put_shown (f, pc_display_name, v[j].first->path);
      fprintf (f, " (at %zu point%s)\n", v[j].npoints, v[j].npoints == 1 ? "" : "s");
      listed++;
    }
    if (n - nt > listed)
      fprintf (f, "  ... and %zu more (see the JSON report)\n", n - nt - listed);
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
    if (p->moment > p->record && (p->findings.n > 0 || p->verdict == PC_V_APP_INVALID))
      fprintf (f, "    on the disk from %.3f s until %.3f s (record %" PRIu64 "): judged "
               "against what the workload had done by then\n", p->time_ns / 1e9,
               p->moment_ns / 1e9, p->moment);
    indent_lines (f, p->evidence, "    ");
    for (size_t k = 0; k < p->findings.n; k++) {
      const struct pc_finding *fd = &p->findings.v[k];
      if (pc_finding_verdict (fd->kind) == PC_V_OK && fd->kind != PC_F_OLDER)
        continue;
      fprintf (f, "    %s ", pc_finding_name (fd->kind));
      put_shown (f, pc_display_name, fd->path);
      fputs (": found ", f);
      put_shown (f, pc_display_line, fd->found);
      fputc ('\n', f);
      if (fd->cause.known && fd->cause.promise && fd->cause.durable_ns >= 0 &&
          (uint64_t) fd->cause.durable_ns > p->time_ns) {
        /* a promise made after the crash point, while the disk could
         * still hold this state */
        fputs ("      after ", f);
        put_shown (f, pc_display_line, fd->cause.durable_by ? fd->cause.durable_by : "?");
        fprintf (f, " at %.3f s, the disk could still hold this state (until %.3f s)\n",
                 fd->cause.durable_ns / 1e9, p->moment_ns / 1e9);
      }
      if (fd->kind == PC_F_OLDER)
        cause_text (f, fd->kind, &fd->cause);
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
  if (pc_model_takes_k (res->model.kind))
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
  if (res->work.preened > 0)
    fprintf (f, "no journal: e2fsck -p repaired %" PRIu64 " state%s as a boot does; "
             "each is judged as repaired\n", res->work.preened, res->work.preened == 1 ? "" : "s");
  for (int v = 0; v < PC_V_NOT_CHECKED; v++)
    if (res->count[v] || v == PC_V_OK)
      fprintf (f, "  %-13s %zu\n", pc_verdict_name (v), res->count[v]);
  if (nnot > 0)
    fprintf (f, "not checked: %zu crash point%s (powercut could not check %s: no verdict)\n",
             nnot, nnot == 1 ? "" : "s", nnot == 1 ? "it" : "them");
  if (nfail > 0)
    fprintf (f, "of the failing: %zu broke a promise (lost what was made durable or "
             "acknowledged, or the filesystem broken), %zu did not (lost only data never "
             "made durable, or the application's checker failed with nothing it "
             "acknowledged lost)\n", res->promises, res->exposures);
  if (res->events > 0)
    fprintf (f, "a traced program's %" PRIu64 " calls judge the files it changed: every "
             "version it had is allowed, from the last one made durable on\n", res->events);
  else if (res->manifests == 0 && res->verify == NULL)
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
    older_text (f, res);
    pc_windows_text (f, res);
    fprintf (f, "\nfailing crash points:\n");
    points_text (f, res, false, nfail);
  }
  if (nnot > 0) {
    fprintf (f, "\ncrash points not checked:\n");
    points_text (f, res, true, nnot);
  }
}

