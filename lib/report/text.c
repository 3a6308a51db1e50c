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
#include "fs/fs.h"
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
  snprintf (buf, len, "powercut replay %s --at %s%s%s -o state.img%s", log, p->id, base,
            res->keep_trimmed ? " --keep-trimmed" : "",
            pc_report_replay_recovered (p->verdict) ? " --recovered" : "");
}

bool
pc_report_replay_recovered (enum pc_verdict v)
{
  return v != PC_V_UNMOUNTABLE && v != PC_V_NOT_CHECKED;
}

int
pc_report_failed (const struct pc_check_result *res)
{
  return pc_check_result_counted (res) > res->count[PC_V_OK] + res->count[PC_V_NOT_CHECKED];
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
pc_fail_on_counts (enum pc_fail_on on, size_t promises, size_t program, size_t exposures,
                   size_t recovery)
{
  if (recovery > 0)
    return true;
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
         : pc_fail_on_counts (on, res->promises, res->program_promises, res->exposures,
                              res->recovery_differs);
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
      pc_put_shown (f, pc_display_name, v[j].first->path);
      fprintf (f, ": at %zu point%s (%s .. %s)\n", v[j].npoints, v[j].npoints == 1 ? "" : "s",
               v[j].first_id, v[j].last_id);
      pc_report_cause_text (f, PC_F_OLDER, &v[j].first->cause);
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
      pc_put_shown (f, pc_display_name, fd->path);
      fprintf (f, " (at %zu point%s)", v[j].npoints, v[j].npoints == 1 ? "" : "s");
      if (fd->cause.call) {
        fputs (": ", f);
        pc_put_shown (f, pc_display_line, fd->cause.call);
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
      pc_put_shown (f, pc_display_name, v[j].first->path);
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

/* Why a failing point with no finding fails: the filesystem itself, or
 * the application's checker. */
static const char *
point_why (const struct pc_point *p)
{
  switch (p->verdict) {
  case PC_V_FS_CORRUPT:
    return "the filesystem's fault: after the boot's recovery, its checker finds it corrupt "
           "(with a journal or log it must be consistent at every crash point; without one, "
           "e2fsck must repair it, and e2fsck -p must not stop the boot for what it repairs "
           "when run again)";
  case PC_V_UNMOUNTABLE:
    return "the filesystem's fault: its superblock or journal cannot be read after the crash";
  case PC_V_APP_INVALID:
    return "the application's checker failed on this state";
  case PC_V_FSCK_BY_HAND:
    return "nobody's fault: a filesystem without a journal may need e2fsck run by hand after "
           "a crash; nothing made durable is lost in the files as e2fsck -fy left them";
  default:
    return NULL;
  }
}

/* The order failing points are listed in: the filesystem's faults, then
 * the program's, then nobody's, each the first point of each of its
 * (file, rule) first; a point's place by crash point after that. */
struct ranked {
  size_t i;
  int rank;
};

static int
by_rank (const void *a, const void *b)
{
  const struct ranked *x = a, *y = b;

  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* The finding of p that says most: its fault's, failing. */
static const struct pc_finding *
main_finding (const struct pc_point *p)
{
  const struct pc_finding *best = NULL;

  for (size_t k = 0; k < p->findings.n; k++) {
    const struct pc_finding *fd = &p->findings.v[k];
    if (pc_finding_verdict (fd->kind) == PC_V_OK)
      continue;
    if (best == NULL || pc_cause_fault (&fd->cause) > pc_cause_fault (&best->cause))
      best = fd;
  }
  return best;
}

static struct ranked *
rank_points (const struct pc_check_result *res, size_t *ret_n)
{
  struct ranked *r = malloc ((res->npoints ? res->npoints : 1) * sizeof *r);
  size_t n = 0;

  if (r == NULL)
    return NULL;
  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    const struct pc_finding *fd;
    bool first = true;
    if (p->verdict == PC_V_OK || p->verdict == PC_V_NOT_CHECKED)
      continue;
    fd = main_finding (p);
    /* the first point of its file and rule (or of its verdict) */
    for (size_t j = 0; j < n && first; j++) {
      const struct pc_point *q = &res->points[r[j].i];
      const struct pc_finding *gd = main_finding (q);
      if (fd == NULL || gd == NULL)
        first = !(fd == NULL && gd == NULL && q->verdict == p->verdict);
      else
        first = strcmp (fd->path, gd->path) != 0 || fd->kind != gd->kind ||
                pc_cause_fault (&fd->cause) != pc_cause_fault (&gd->cause) ||
                strcmp (fd->cause.rule ? fd->cause.rule : "", gd->cause.rule ? gd->cause.rule : "") != 0;
    }
    r[n].i = i;
    r[n].rank = (PC_FAULT_FILESYSTEM - (int) pc_point_fault (p)) * 2 + !first;
    n++;
  }
  qsort (r, n, sizeof *r, by_rank);
  *ret_n = n;
  return r;
}

size_t *
pc_report_ranked (const struct pc_check_result *res, size_t *ret_n)
{
  size_t n = 0, *v;
  struct ranked *r = rank_points (res, &n);

  *ret_n = 0;
  if (r == NULL || (v = malloc ((n ? n : 1) * sizeof *v)) == NULL) {
    free (r);
    return NULL;
  }
  for (size_t j = 0; j < n; j++)
    v[j] = r[j].i;
  free (r);
  *ret_n = n;
  return v;
}

/* One point: its verdict and fault, its stretch on the disk, the
 * evidence, its findings each with why, and how to rebuild it. */
static void
point_text (FILE *f, const struct pc_check_result *res, const struct pc_point *p)
{
  static const char *const whose[] = { "nobody's fault: only data never made durable",
                                       "the program's fault", "the filesystem's fault",
                                       "the recovery's fault: the kernel's and e2fsck's disagree" };
  char cmd[512];
  const char *pw = point_why (p);
  char *pending = NULL;         /* the why of the findings just listed */
  size_t shown = 0;

  fprintf (f, "\n%s: %s", p->id, pc_verdict_name (p->verdict));
  if (p->verdict == PC_V_FSCK_BY_HAND)
    fputs (" (nobody's fault: no journal)", f);
  else if (p->verdict != PC_V_NOT_CHECKED)
    fprintf (f, " (%s)", whose[pc_point_fault (p)]);
  if (p->same_as >= 0)
    fprintf (f, " (same image as %s)", res->points[p->same_as].id);
  if (p->kernel)
    fputs (res->kernel_guest ? " (judged by the guest's kernel)" : " (judged by the kernel)", f);
  fputc ('\n', f);
  if (p->recovery)
    fprintf (f, "    a second power cut, during the kernel's recovery of the state before it: "
             "after record %" PRIu64 " of that recovery's writes\n", p->recovery_record);
  switch (pc_point_after (res, p)) {
  case PC_AFTER_SETTLE: fputs ("    after the command: during the settle\n", f); break;
  case PC_AFTER_SYNC:
    fputs ("    after the command: powercut's own sync and unmount\n", f);
    break;
  case PC_AFTER_NONE: break;
  }
  if (p->moment > p->record && (p->findings.n > 0 || p->verdict == PC_V_APP_INVALID))
    fprintf (f, "    on the disk from %.3f s until %.3f s (record %" PRIu64 "): judged "
             "against what the workload had done by then\n", p->time_ns / 1e9,
             p->moment_ns / 1e9, p->moment);
  indent_lines (f, p->evidence, "    ");
  for (size_t k = 0; k < p->findings.n; k++) {
    const struct pc_finding *fd = &p->findings.v[k];
    char *why;
    if (pc_finding_verdict (fd->kind) == PC_V_OK && fd->kind != PC_F_OLDER)
      continue;
    shown++;
    /* findings in a row that share their why: it follows the last */
    why = pc_report_why (fd->kind, &fd->cause);
    if (pending && (why == NULL || strcmp (why, pending) != 0)) {
      pc_put_wrapped (f, "    why: ", pending, PC_TEXT_WIDTH);
      free (pending);
      pending = NULL;
    }
    if (fd->kind == PC_V_RECOVERY_DIFFERS) {
      /* the two recoveries, side by side: what each found, its files */
      char *ks = pc_display_line (fd->found), *es = pc_display_line (fd->allowed);
      fprintf (f, "    %s: the two recoveries of this state, side by side:\n",
               pc_finding_name (fd->kind));
      pc_put_wrapped (f, "      ", ks ? ks : "?", PC_TEXT_WIDTH);
      pc_put_wrapped (f, "      ", es ? es : "?", PC_TEXT_WIDTH);
      free (ks);
      free (es);
    }
    else {
      fprintf (f, "    %s ", pc_finding_name (fd->kind));
      pc_put_shown (f, pc_display_name, fd->path);
      fputs (": found ", f);
      pc_put_shown (f, pc_display_line, fd->found);
      fputc ('\n', f);
    }
    if (fd->cause.known && fd->cause.promise && fd->cause.durable_ns >= 0 &&
        (uint64_t) fd->cause.durable_ns > p->time_ns) {
      /* a promise made after the crash point, while the disk could
       * still hold this state */
      fputs ("      after ", f);
      pc_put_shown (f, pc_display_line, fd->cause.durable_by ? fd->cause.durable_by : "?");
      fprintf (f, " at %.3f s, the disk could still hold this state (until %.3f s)\n",
               fd->cause.durable_ns / 1e9, p->moment_ns / 1e9);
    }
    if (pending == NULL)
      pending = why;
    else
      free (why);
  }
  if (pending) {
    pc_put_wrapped (f, "    why: ", pending, PC_TEXT_WIDTH);
    free (pending);
  }
  if (shown == 0 && pw)
    pc_put_wrapped (f, "    why: ", pw, PC_TEXT_WIDTH);
  pc_report_replay_cmd (res, p, cmd, sizeof cmd);
  fprintf (f, "    rebuild: %s\n", cmd);
}

/* The failing points, the most telling first (rank_points), or the points
 * not checked, in order. */
static void
points_text (FILE *f, const struct pc_check_result *res, bool not_checked, size_t total)
{
  size_t n = 0, listed = 0;
  struct ranked *r = NULL;

  if (!not_checked) {
    r = rank_points (res, &n);
    if (r == NULL)
      return;
    for (size_t i = 0; i < res->npoints; i++)
      if (res->points[i].verdict != PC_V_OK && res->points[i].verdict != PC_V_NOT_CHECKED) {
        fprintf (f, "first failing crash point: %s (%s)\n", res->points[i].id,
                 pc_verdict_name (res->points[i].verdict));
        break;
      }
    for (size_t j = 0; j < n && listed < MAX_LISTED; j++, listed++)
      point_text (f, res, &res->points[r[j].i]);
    free (r);
  }
  else
    for (size_t i = 0; i < res->npoints && listed < MAX_LISTED; i++)
      if (res->points[i].verdict == PC_V_NOT_CHECKED) {
        point_text (f, res, &res->points[i]);
        listed++;
      }
  if (total > listed)
    fprintf (f, "\n... and %zu more %s points (see the JSON report)\n", total - listed,
             not_checked ? "unchecked" : "failing");
}

void
pc_report_headline (const struct pc_check_result *res, char **ret_line1, char **ret_line2)
{
  size_t nnot = res->count[PC_V_NOT_CHECKED], np = pc_check_result_counted (res);
  size_t nhand = res->count[PC_V_FSCK_BY_HAND];
  size_t nfail = np - res->count[PC_V_OK] - nnot - nhand, n = 0, fsbad;
  char *s1 = NULL, *s2 = NULL;
  size_t l1 = 0, l2 = 0;
  FILE *a = open_memstream (&s1, &l1), *b = open_memstream (&s2, &l2);
  struct pc_path_sum *v = NULL;

  *ret_line1 = *ret_line2 = NULL;
  if (a == NULL || b == NULL) {
    if (a)
      fclose (a);
    if (b)
      fclose (b);
    free (s1);
    free (s2);
    return;
  }
  fsbad = res->count[PC_V_FS_CORRUPT] + res->count[PC_V_UNMOUNTABLE];
  if (nfail == 0) {
    if (nnot)
      fprintf (a, "nothing lost at the %zu crash point%s checked; %zu could not be checked "
               "(no verdict)", np - nnot, pc_s (np - nnot), nnot);
    else if (res->manifests == 0 && res->events == 0 && res->verify == NULL)
      fprintf (a, "nothing lost: the filesystem is sound at %s %zu crash point%s (no mark or "
               "traced program says what its files should hold)", np == 1 ? "its" : "all",
               np, pc_s (np));
    else
      fprintf (a, "nothing lost: %s %zu crash point%s hold%s what the program had, or may keep",
               np == 1 ? "its" : "all", np, pc_s (np),
               np == 1 ? "s" : "");
    if (nhand)
      fprintf (a, "; e2fsck by hand needed at %zu (no journal: the boot's e2fsck -p stops)",
               nhand);
    fprintf (b, "the filesystem kept every promise; model %s, %zu distinct image%s checked",
             pc_model_name (res->model.kind), res->unique, pc_s (res->unique));
  }
  else {
    if (res->recovery_differs)
      fprintf (a, "THE KERNEL'S AND E2FSCK'S RECOVERIES DISAGREE at %zu of %zu crash point%s: "
               "one of them is wrong%s", res->recovery_differs, np, pc_s (np),
               res->promises || res->program_promises || res->exposures ? "; " : "");
    if (res->promises)
      fprintf (a, "THE FILESYSTEM BROKE ITS PROMISE at %zu of %zu crash point%s", res->promises,
               np, pc_s (np));
    else if (res->recovery_differs && !res->program_promises && !res->exposures)
      ;
    else
      fprintf (a, "LOST at %zu of %zu crash point%s, %s", nfail - res->recovery_differs,
               np, pc_s (np),
               !res->program_promises ? "only data never made durable: no promise was broken"
               : res->acknowledged_lost >= res->program_promises
               ? "by the program's fault: it acknowledged what it had not made durable"
               : res->acknowledged_lost
               ? "by the program's fault: it gave up a durable version before the new one was "
                 "durable, or acknowledged what it had not made durable"
               : "by the program's fault: it gave up a durable version before the new one was "
                 "durable");
    if (res->promises && res->program_promises)
      fprintf (a, "; the program's fault at %zu more (it gave up a durable version)",
               res->program_promises);
    if ((res->promises || res->program_promises) && res->exposures)
      fprintf (a, "; only data never made durable lost at %zu", res->exposures);
    if (!res->promises && res->program_promises)
      fputs ("; the filesystem kept its promises", a);
    v = pc_report_paths (res, -1, &n);
    /* the two recoveries' disagreement first, of the whole state (""), as
     * what each found */
    if (n > 0 && v[0].first->path[0] == '\0' && v[0].first->cause.recovery) {
      fprintf (b, "at %s, ", v[0].first_id);
      pc_put_shown (b, pc_display_line, v[0].first->found);
      fputs (", but ", b);
      pc_put_shown (b, pc_display_line, v[0].first->allowed);
      fputs (n > 1 || fsbad ? "; " : "", b);
      memmove (v, v + 1, (n - 1) * sizeof *v);
      n--;
    }
    if (n > 0 || fsbad)
      fputs ("lost: ", b);
    if (fsbad)
      fprintf (b, "the filesystem itself (%s at %zu)%s",
               pc_verdict_name (res->count[PC_V_FS_CORRUPT] ? PC_V_FS_CORRUPT : PC_V_UNMOUNTABLE),
               fsbad, n ? "; " : "");
    for (size_t j = 0; j < n && j < 3; j++) {
      static const char *const whose[] = { "never made durable", "the program's",
                                           "the filesystem's", "the recovery's" };
      fputs (j ? "; " : "", b);
      pc_put_shown (b, pc_display_name, v[j].first->path);
      fputs (" (", b);
      pc_path_counts_text (b, &v[j]);
      fprintf (b, ": %s)", whose[pc_cause_fault (&v[j].worst->cause)]);
    }
    if (n > 3)
      fprintf (b, "; and %zu more file%s", n - 3, pc_s (n - 3));
    if (n == 0 && !fsbad && res->count[PC_V_APP_INVALID])
      fprintf (b, "what the application's checker found (%zu point%s)",
               res->count[PC_V_APP_INVALID], pc_s (res->count[PC_V_APP_INVALID]));
    free (v);
  }
  if (fclose (a) == EOF || fclose (b) == EOF) {
    free (s1);
    free (s2);
    return;
  }
  *ret_line1 = s1;
  *ret_line2 = s2;
}

/* The text report; its second line says that it is run k of n (n > 1),
 * or, of a single run that lost data never made durable, that one run
 * is one sample of the kernel's timing. */
static void
report_text (FILE *f, const struct pc_check_result *res, size_t k, size_t n)
{
  size_t nnot = res->count[PC_V_NOT_CHECKED];
  size_t nfail = pc_check_result_counted (res) - res->count[PC_V_OK] - nnot;
  char *l1, *l2;

  pc_report_headline (res, &l1, &l2);
  fprintf (f, "%s\n", l1 ? l1 : "?");
  if (n > 1)
    fprintf (f, "run %zu of %zu (powercut run --repeat %zu): one sample of the kernel's timing; "
             "the %zu together in ../report.txt\n", k, n, n, n);
  else if (nfail > 0 && (res->program_promises > 0 || res->exposures > 0))
    fprintf (f, "%s\n", PC_REPORT_SAMPLE);
  fprintf (f, "%s\n\n", l2 ? l2 : "?");
  free (l1);
  free (l2);
  fputs ("powercut check: ", f);
  pc_put_shown (f, pc_display_line, res->log_path);
  fprintf (f, "\nmodel %s", pc_model_name (res->model.kind));
  if (pc_model_takes_k (res->model.kind))
    fprintf (f, ":%u (seed %" PRIu64 ")", res->model.k, res->model.seed);
  fprintf (f, ", from %s (record %" PRIu64 ") of %" PRIu64 " record%s",
           res->from[0] ? res->from : "the start", res->from_record, res->records,
           pc_s (res->records));
  if (res->nshards > 1)
    fprintf (f, ", shard %u/%u", res->shard, res->nshards);
  fprintf (f, "%s\n", res->log_torn ? " (the log was cut: no end record)" : "");
  if (res->command_end_record > 0) {
    fprintf (f, "the command ended at %.3f s (record %" PRIu64 ")", res->command_end_ns / 1e9,
             res->command_end_record);
    if (res->settle_end_record > res->command_end_record)
      fprintf (f, "; the run settled %.1f s (to record %" PRIu64 ") before powercut's own "
               "sync and unmount", (res->settle_end_ns > res->command_end_ns
                                    ? res->settle_end_ns - res->command_end_ns : 0) / 1e9,
               res->settle_end_record);
    fputc ('\n', f);
  }
  fprintf (f, "%zu crash point%s, %zu distinct image%s checked in %.1f s\n",
           res->npoints, pc_s (res->npoints), res->unique, pc_s (res->unique), res->seconds);
  {
    size_t nr = 0, of = 0;
    for (size_t i = 0; i < res->npoints; i++)
      if (res->points[i].recovery) {
        nr++;
        of += i == 0 || !res->points[i - 1].recovery;
      }
    if (nr > 0)
      fprintf (f, "%zu of them a second power cut during the kernel's recovery of %zu state%s "
               "(ID/recovery:K), each judged by the kernel; %zu hold%s what the state %s "
               "recovers held (its verdict and findings), counted once, with it\n", nr, of,
               pc_s (of), res->recovery_repeats, res->recovery_repeats == 1 ? "s" : "",
               of == 1 ? "it" : "each");
  }
  if (res->work.fsck_reused > 0)
    fprintf (f, "e2fsck -fn run on %" PRIu64 " image%s; %" PRIu64 " other%s the same bytes "
             "where it read and share%s its answer\n", res->work.fsck_runs,
             pc_s (res->work.fsck_runs), res->work.fsck_reused,
             res->work.fsck_reused == 1 ? " holds" : "s hold", res->work.fsck_reused == 1 ? "s" : "");
  if (res->work.journal_dropped > 0)
    fprintf (f, "note: e2fsck dropped the journal of %" PRIu64 " state%s (\"... while recovering "
             "journal\") whose files its recovery left as the kernel's: no disagreement\n",
             res->work.journal_dropped, pc_s (res->work.journal_dropped));
  if (res->work.preened > 0)
    fprintf (f, "no journal: e2fsck -p repaired %" PRIu64 " state%s as a boot does; "
             "each is judged as repaired\n", res->work.preened, res->work.preened == 1 ? "" : "s");
  if (res->work.by_hand > 0)
    fprintf (f, "no journal: e2fsck -p stopped for a person at %" PRIu64 " state%s; e2fsck -fy "
             "repaired %s as a person does, and %s judged as repaired (fsck-by-hand)\n",
             res->work.by_hand, pc_s (res->work.by_hand), res->work.by_hand == 1 ? "it" : "each",
             res->work.by_hand == 1 ? "it is" : "each is");
  if (res->work.kernel > 0 && res->kernel_guest)
    fprintf (f, "judged by the guest's kernel %s (in qemu): %" PRIu64 " state%s mounted from "
             "a loop device, %s by the mount, the files read, then %s\n",
             res->kernel[0] ? res->kernel : "(its version unknown)", res->work.kernel,
             res->work.kernel == 1 ? "" : "s",
             pc_fs_find (res->fs) ? pc_fs_find (res->fs)->recovery : "its log replayed",
             pc_fs_find (res->fs) ? pc_fs_find (res->fs)->check_name : "its check");
  else if (res->work.kernel > 0) {
    char recov[64] = "";
    if (res->recovery_points > 0)
      snprintf (recov, sizeof recov, " (and %zu recovery point%s)", res->recovery_points,
                pc_s (res->recovery_points));
    fprintf (f, "the kernel judged %" PRIu64 " state%s%s: mounted from a loop device, "
             "%s by the mount, its files read, then %s\n",
             res->work.kernel, res->work.kernel == 1 ? "" : "s", recov,
             pc_fs_find (res->fs) ? pc_fs_find (res->fs)->recovery : "its log replayed",
             pc_fs_find (res->fs) ? pc_fs_find (res->fs)->check_name : "its check");
  }
  for (int v = 0; v < PC_V_COUNT; v++)
    if (v != PC_V_NOT_CHECKED && (res->count[v] || v == PC_V_OK))
      fprintf (f, "  %-13s %zu\n", pc_verdict_name (v), res->count[v]);
  if (nnot > 0)
    fprintf (f, "not checked: %zu crash point%s (powercut could not check %s: no verdict)\n",
             nnot, nnot == 1 ? "" : "s", nnot == 1 ? "it" : "them");
  if (nfail > 0)
    fprintf (f, "whose fault: %zu the filesystem's (a broken promise: what was made durable "
             "lost, or the filesystem broken), %zu the program's (it gave up a durable version "
             "before the new one was durable, or acknowledged what it had not made durable), "
             "%zu nobody's (only data never made durable lost, or the application's checker "
             "failed with nothing it acknowledged lost)\n", res->promises,
             res->program_promises, res->exposures);
  if (res->acknowledged_lost > 0)
    fprintf (f, "acknowledged lost: at %zu crash point%s a file held less than the program had "
             "when it last acknowledged (a line it printed)%s\n", res->acknowledged_lost,
             res->acknowledged_lost == 1 ? "" : "s", res->verify ? ", where its checker failed"
             : "; only a checker (--verify) tells which of those files mattered");
  if (res->recovery_differs > 0)
    fprintf (f, "recovery differs: at %zu crash point%s the kernel's recovery of the state and "
             "e2fsck's disagree (--judge both): the fault of one of them, not the workload's\n",
             res->recovery_differs, res->recovery_differs == 1 ? "" : "s");
  if (res->events > 0)
    fprintf (f, "judged by a traced program's %" PRIu64 " call%s: each file may hold any version "
             "the program had since it last made it durable\n", res->events,
             pc_s (res->events));
  else if (res->manifests == 0 && res->verify == NULL)
    fprintf (f, "(no mark carries a manifest: only the filesystem was checked)\n");
  if (res->verify) {
    fputs ("application checked by: ", f);
    pc_put_shown (f, pc_display_line, res->verify);
    fputc ('\n', f);
  }
  not_judged_text (f, res);
  if (nfail == 0) {
    fprintf (f, "%s\n", nnot ? "no problem found in the crash points checked"
                             : "no problem found");
    pc_windows_text (f, res);
  }
  else {
    pc_report_files_text (f, res);
    older_text (f, res);
    pc_windows_text (f, res);
    fprintf (f, "\nfailing crash points, the most telling first:\n");
    points_text (f, res, false, nfail);
  }
  if (nnot > 0) {
    fprintf (f, "\ncrash points not checked:\n");
    points_text (f, res, true, nnot);
  }
}

void
pc_report_text (FILE *f, const struct pc_check_result *res)
{
  report_text (f, res, 1, 1);
}

void
pc_report_text_run (FILE *f, const struct pc_check_result *res, size_t k, size_t n)
{
  report_text (f, res, k, n);
}
