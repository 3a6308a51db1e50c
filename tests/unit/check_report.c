/* check_report.c: a property test of the reports: findings, evidence and
 * the log's path made of random bytes (any but NUL, as Linux names are)
 * come back exact from JSON and from merging shards, and the text and
 * HTML reports show them without a raw control byte or a byte that is not
 * UTF-8, and without markup; and where powercut run's command and settle
 * ended is kept by JSON and merging, and labels the points after it; a
 * guest's kernel as judge is named, and kept by JSON and merging; a count
 * of one says its noun in the singular; a why, rule or fix longer than
 * a line is folded under its text, and reads the same unfolded; files
 * with the same findings are listed as one; the second line of a report
 * that lost data never made durable says one run is one sample. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "result/finding.h"
#include "report/html.h"
#include "report/report.h"
#include "report/reportint.h"
#include "unit.h"
#include "util/util.h"

#define ROUNDS 150

static char dir[] = "/tmp/check_report.XXXXXX";
static uint64_t seed = 1;

/* A string of 0..max random bytes, none NUL; hostile ones often. */
static char *
random_bytes (size_t min, size_t max)
{
  static const char *const evil[] = { "\t", "\n", "\"", "\\", "<script>", "</script>", "\xff",
                                      "\xc3\xa9", "\xed\xa0\x80", "&amp;", "\r", "\x1b[31m" };
  size_t n = min + (size_t) (pc_splitmix64 (&seed) % (max - min + 1)), o = 0;
  char *s = malloc (n + 16);

  ck_assert_ptr_nonnull (s);
  while (o < n) {
    uint64_t r = pc_splitmix64 (&seed);
    if (r % 4 == 0) {
      const char *e = evil[(r >> 8) % (sizeof evil / sizeof evil[0])];
      size_t l = strlen (e);
      if (o + l > n)
        break;
      memcpy (s + o, e, l);
      o += l;
    }
    else
      s[o++] = (char) (1 + (r >> 8) % 255);
  }
  s[o] = '\0';
  return s;
}

/* A report of n points with random findings and evidence. */
static struct pc_check_result *
random_result (size_t n)
{
  struct pc_check_result *res = calloc (1, sizeof *res);

  ck_assert_ptr_nonnull (res);
  res->log_path = random_bytes (1, 40);
  res->model.kind = PC_MODEL_FLUSH;
  res->model.k = 4;
  res->nshards = 1;
  res->records = 1000;
  res->manifests = 2;
  res->points = calloc (n, sizeof *res->points);
  res->npoints = n;
  for (size_t i = 0; i < n; i++) {
    struct pc_point *p = &res->points[i];
    size_t nf = pc_splitmix64 (&seed) % 40;
    char *ev = random_bytes (0, 200);
    size_t el = strlen (ev);
    while (el > 0 && ev[el - 1] == '\n')
      ev[--el] = '\0';           /* evidence is lines: a last newline ends one */
    snprintf (p->id, sizeof p->id, "%zu", 10 + i);
    p->record = 10 + i;
    p->same_as = p->fsck_as = -1;
    p->verdict = (enum pc_verdict) (pc_splitmix64 (&seed) % PC_V_COUNT);
    snprintf (p->evidence, sizeof p->evidence, "%s", ev);
    free (ev);
    for (size_t k = 0; k < nf; k++) {
      static const int kinds[] = { PC_V_ZERO_LENGTH, PC_V_MISSING, PC_V_MISMATCH,
                                   PC_V_DURABLE_LOST, PC_F_UNMENTIONED, PC_F_NOT_JUDGED };
      char *path = random_bytes (1, 300), *found = random_bytes (0, 60);
      char *allowed = random_bytes (0, 120);
      ck_assert_int_eq (pc_findings_add (&p->findings, kinds[pc_splitmix64 (&seed) % 6], path,
                                         found, allowed), 0);
      free (path);
      free (found);
      free (allowed);
    }
  }
  pc_check_result_recount (res);
  return res;
}

static void
assert_same_points (const struct pc_check_result *a, size_t off,
                    const struct pc_check_result *b)
{
  for (size_t i = 0; i < b->npoints; i++) {
    const struct pc_point *p = &a->points[off + i], *q = &b->points[i];
    ck_assert_str_eq (p->id, q->id);
    ck_assert_int_eq (p->verdict, q->verdict);
    ck_assert_str_eq (p->evidence, q->evidence);
    ck_assert_uint_eq (p->findings.n, q->findings.n);
    for (size_t k = 0; k < p->findings.n; k++) {
      ck_assert_int_eq (p->findings.v[k].kind, q->findings.v[k].kind);
      ck_assert_str_eq (p->findings.v[k].path, q->findings.v[k].path);
      ck_assert_str_eq (p->findings.v[k].found, q->findings.v[k].found);
      ck_assert_str_eq (p->findings.v[k].allowed, q->findings.v[k].allowed);
    }
  }
}

static struct pc_check_result *
json_round_trip (const struct pc_check_result *res, const char *name)
{
  char path[256];
  struct pc_err why;
  struct pc_check_result *back = NULL;

  snprintf (path, sizeof path, "%s/%s.json", dir, name);
  ck_assert_int_eq (pc_report_json (path, res), 0);
  ck_assert_msg (pc_report_read_json (path, &back, &why) == 0, "%s", why.msg);
  return back;
}

/* Every byte of s is printable UTF-8 or a newline. */
static void
assert_shown (const char *s, size_t len, const char *what)
{
  ck_assert_msg (pc_utf8_valid (s, len), "%s: not UTF-8: %.*s", what, (int) len, s);
  for (size_t i = 0; i < len; i++)
    ck_assert_msg ((unsigned char) s[i] >= 0x20 && s[i] != 0x7f ? true : s[i] == '\n',
                   "%s: byte 0x%02x at %zu", what, (unsigned char) s[i], i);
}

START_TEST (test_json_and_merge_keep_every_byte)
{
  for (int round = 0; round < ROUNDS; round++) {
    struct pc_check_result *res = random_result (1 + pc_splitmix64 (&seed) % 6), *back;
    struct pc_check_result *parts[2], *merged = NULL;
    size_t cut = pc_splitmix64 (&seed) % (res->npoints + 1);
    struct pc_err why;

    back = json_round_trip (res, "whole");
    ck_assert_str_eq (back->log_path, res->log_path);
    ck_assert_uint_eq (back->npoints, res->npoints);
    assert_same_points (res, 0, back);
    for (int v = 0; v < PC_V_COUNT; v++)
      ck_assert_uint_eq (back->count[v], res->count[v]);

    /* In two shards, each through JSON, merged. */
    for (int s = 0; s < 2; s++) {
      struct pc_check_result part = *res;
      part.shard = (unsigned) s;
      part.nshards = 2;
      part.points = res->points + (s ? cut : 0);
      part.npoints = s ? res->npoints - cut : cut;
      parts[s] = json_round_trip (&part, s ? "s1" : "s0");
    }
    ck_assert_msg (pc_report_merge (parts, 2, &merged, &why) == 0, "%s", why.msg);
    ck_assert_str_eq (merged->log_path, res->log_path);
    ck_assert_uint_eq (merged->npoints, res->npoints);
    assert_same_points (res, 0, merged);
    pc_check_result_free (parts[0]);
    pc_check_result_free (parts[1]);
    pc_check_result_free (merged);
    pc_check_result_free (back);
    pc_check_result_free (res);
  }
}
END_TEST

START_TEST (test_text_and_html_show_names_safely)
{
  for (int round = 0; round < ROUNDS / 3; round++) {
    struct pc_check_result *res = random_result (1 + pc_splitmix64 (&seed) % 6);
    struct pc_html_config hc = { "random", res, NULL };
    char *text = NULL, path[256], *page, *data, *end;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    long size;

    /* The text report, but the rebuild commands: they hold the log's path
     * exactly, quoted for the shell. */
    pc_report_text (f, res);
    ck_assert_int_eq (fclose (f), 0);
    for (char *l = text, *nl; *l; l = nl + 1) {
      nl = strchr (l, '\n');
      ck_assert_ptr_nonnull (nl);
      if (strncmp (l, "    rebuild: ", 13) != 0)
        assert_shown (l, (size_t) (nl - l), "text report");
    }
    /* Each failing finding of a listed point is one whole line. */
    for (size_t i = 0; i < res->npoints; i++)
      for (size_t k = 0; res->points[i].verdict != PC_V_OK && k < res->points[i].findings.n; k++) {
        const struct pc_finding *fd = &res->points[i].findings.v[k];
        /* a finding of no path is of the whole state */
        char *n = fd->path[0] ? pc_display_name (fd->path) : strdup ("(the whole state)");
        char *fo = pc_display_line (fd->found), *line;
        if (pc_finding_verdict (fd->kind) != PC_V_OK) {
          ck_assert_int_ge (asprintf (&line, "\n    %s %s: found %s\n",
                                      pc_finding_name (fd->kind), n, fo), 0);
          ck_assert_msg (strstr (text, line) != NULL, "not a line of the text report: %s", line);
          free (line);
        }
        free (n);
        free (fo);
      }
    free (text);

    /* The rebuild command names the log exactly, for bash. */
    {
      char cmd[1024], script[256], out[256], *got;
      FILE *sf;
      size_t n;
      pc_report_replay_cmd (res, &res->points[0], cmd, sizeof cmd);
      snprintf (script, sizeof script, "%s/replay.sh", dir);
      snprintf (out, sizeof out, "%s/replay.out", dir);
      sf = fopen (script, "w");
      ck_assert_ptr_nonnull (sf);
      fprintf (sf, "powercut () { printf %%s \"$2\"; }\n%s\n", cmd);
      ck_assert_int_eq (fclose (sf), 0);
      snprintf (cmd, sizeof cmd, "bash %s >%s", script, out);
      ck_assert_int_eq (system (cmd), 0);
      sf = fopen (out, "r");
      ck_assert_ptr_nonnull (sf);
      got = calloc (1, 4096);
      n = fread (got, 1, 4095, sf);
      fclose (sf);
      ck_assert_uint_eq (n, strlen (res->log_path));
      ck_assert_str_eq (got, res->log_path);
      free (got);
    }

    snprintf (path, sizeof path, "%s/page.html", dir);
    ck_assert_int_eq (pc_report_html (path, "property", &hc, 1), 0);
    f = fopen (path, "r");
    ck_assert_ptr_nonnull (f);
    fseek (f, 0, SEEK_END);
    size = ftell (f);
    rewind (f);
    page = malloc ((size_t) size + 1);
    ck_assert_uint_eq (fread (page, 1, (size_t) size, f), (size_t) size);
    page[size] = '\0';
    fclose (f);
    ck_assert_msg (pc_utf8_valid (page, (size_t) size), "the page is not UTF-8");
    /* The data: no markup can start in it, and nothing ends its element. */
    data = strstr (page, "id=\"data\">");
    ck_assert_ptr_nonnull (data);
    data += 10;
    end = strstr (data, "</script>");
    ck_assert_ptr_nonnull (end);
    *end = '\0';
    ck_assert_ptr_null (strchr (data, '<'));
    ck_assert_ptr_null (strchr (data, '>'));
    assert_shown (data, strlen (data), "page data");
    free (page);
    pc_check_result_free (res);
  }
}
END_TEST

/* A result whose log has powercut run's marks: the command ended at
 * record 20 (1 s), the settle at record 25 (4 s). */
static struct pc_check_result *
settled_result (void)
{
  static const uint64_t records[] = { 15, 22, 25, 30 };
  struct pc_check_result *res = calloc (1, sizeof *res);

  ck_assert_ptr_nonnull (res);
  res->log_path = strdup ("run.log");
  res->model.kind = PC_MODEL_FLUSH;
  res->nshards = 1;
  res->records = 40;
  res->command_end_record = 20;
  res->command_end_ns = 1000000000;
  res->settle_end_record = 25;
  res->settle_end_ns = 4000000000;
  res->npoints = sizeof records / sizeof records[0];
  res->points = calloc (res->npoints, sizeof *res->points);
  ck_assert_ptr_nonnull (res->points);
  for (size_t i = 0; i < res->npoints; i++) {
    struct pc_point *p = &res->points[i];
    snprintf (p->id, sizeof p->id, "%" PRIu64, records[i]);
    p->record = p->moment = records[i];
    p->time_ns = p->moment_ns = records[i] * 100000000;
    p->same_as = p->fsck_as = -1;
    p->verdict = PC_V_ZERO_LENGTH;
  }
  pc_check_result_recount (res);
  return res;
}

/* The text report of res, malloc'd. */
static char *
text_of (const struct pc_check_result *res)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&text, &len);

  ck_assert_ptr_nonnull (f);
  pc_report_text (f, res);
  ck_assert_int_eq (fclose (f), 0);
  return text;
}

/* The line after the heading of point id in a text report starts with
 * want. */
static void
assert_next_line (const char *text, const char *id, const char *want)
{
  char head[64];
  const char *at;

  snprintf (head, sizeof head, "\n%s: ", id);
  at = strstr (text, head);
  ck_assert_msg (at != NULL, "point %s not listed: %s", id, text);
  at = strchr (at + 1, '\n');
  ck_assert_ptr_nonnull (at);
  ck_assert_msg (strncmp (at + 1, want, strlen (want)) == 0, "point %s: not followed by '%s': %s",
                 id, want, text);
}

START_TEST (test_after_command)
{
  struct pc_check_result *res = settled_result (), *back, *parts[2], *merged = NULL;
  static const enum pc_after want[] = { PC_AFTER_NONE, PC_AFTER_SETTLE, PC_AFTER_SETTLE,
                                        PC_AFTER_SYNC };
  struct pc_err why;
  char *text;

  /* A point after the command's end mark is in the settle up to the
   * settle's end mark, then in powercut's own sync and unmount. */
  for (size_t i = 0; i < res->npoints; i++)
    ck_assert_int_eq (pc_point_after (res, &res->points[i]), want[i]);
  text = text_of (res);
  ck_assert_msg (strstr (text, "\nthe command ended at 1.000 s (record 20); the run settled "
                         "3.0 s (to record 25) before powercut's own sync and unmount\n"),
                 "no header line: %s", text);
  assert_next_line (text, "15", "    rebuild: ");
  assert_next_line (text, "22", "    after the command: during the settle\n");
  assert_next_line (text, "25", "    after the command: during the settle\n");
  assert_next_line (text, "30", "    after the command: powercut's own sync and unmount\n");
  free (text);

  /* Kept by JSON and by a merge of shards. */
  back = json_round_trip (res, "settled");
  ck_assert_uint_eq (back->command_end_record, 20);
  ck_assert_uint_eq (back->command_end_ns, 1000000000);
  ck_assert_uint_eq (back->settle_end_record, 25);
  ck_assert_uint_eq (back->settle_end_ns, 4000000000);
  for (int s = 0; s < 2; s++) {
    struct pc_check_result part = *res;
    part.shard = (unsigned) s;
    part.nshards = 2;
    part.points = res->points + (s ? 2 : 0);
    part.npoints = 2;
    parts[s] = json_round_trip (&part, s ? "settled1" : "settled0");
  }
  ck_assert_msg (pc_report_merge (parts, 2, &merged, &why) == 0, "%s", why.msg);
  ck_assert_uint_eq (merged->command_end_record, 20);
  ck_assert_uint_eq (merged->settle_end_ns, 4000000000);
  for (size_t i = 0; i < merged->npoints; i++)
    ck_assert_int_eq (pc_point_after (merged, &merged->points[i]), want[i]);

  /* A log without the marks: nothing said. */
  res->command_end_record = res->settle_end_record = 0;
  text = text_of (res);
  ck_assert_ptr_null (strstr (text, "the command ended"));
  ck_assert_ptr_null (strstr (text, "after the command"));
  free (text);
  pc_check_result_free (parts[0]);
  pc_check_result_free (parts[1]);
  pc_check_result_free (merged);
  pc_check_result_free (back);
  pc_check_result_free (res);
}
END_TEST

/* States a guest's kernel judged: each point says "guest", the report
 * names the kernel, and both survive JSON and a merge. */
START_TEST (test_guest_kernel)
{
  struct pc_check_result *res = settled_result (), *back, *parts[2], *merged = NULL;
  struct pc_err why;
  char *text;

  for (size_t i = 0; i < res->npoints; i++)
    res->points[i].kernel = i > 0;
  snprintf (res->fs, sizeof res->fs, "ext4");
  snprintf (res->kernel, sizeof res->kernel, "6.12.118+deb12-amd64");
  res->kernel_guest = true;
  res->work.kernel = 3;
  text = text_of (res);
  ck_assert_msg (strstr (text, "\njudged by the guest's kernel 6.12.118+deb12-amd64 (in qemu): "
                         "3 states mounted from a loop device"), "no line: %s", text);
  ck_assert_msg (strstr (text, " (judged by the guest's kernel)\n"), "no point's: %s", text);
  free (text);
  back = json_round_trip (res, "guest");
  ck_assert_str_eq (back->kernel, "6.12.118+deb12-amd64");
  ck_assert (back->kernel_guest);
  for (size_t i = 0; i < back->npoints; i++)
    ck_assert_int_eq (back->points[i].kernel, i > 0);
  for (int s = 0; s < 2; s++) {
    struct pc_check_result part = *res;
    part.shard = (unsigned) s;
    part.nshards = 2;
    part.points = res->points + (s ? 2 : 0);
    part.npoints = 2;
    parts[s] = json_round_trip (&part, s ? "guest1" : "guest0");
  }
  ck_assert_msg (pc_report_merge (parts, 2, &merged, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (merged->kernel, "6.12.118+deb12-amd64");
  ck_assert (merged->kernel_guest);
  pc_check_result_free (parts[0]);
  pc_check_result_free (parts[1]);
  pc_check_result_free (merged);
  pc_check_result_free (back);
  pc_check_result_free (res);
}
END_TEST

/* A result of one point that lost one file, with one version followed,
 * one record and one call. */
static struct pc_check_result *
single_result (void)
{
  struct pc_check_result *res = settled_result ();
  struct pc_cause c = { .known = true, .program = true, .durable_ns = -1 };

  res->command_end_record = res->settle_end_record = 0;
  res->npoints = 1;
  res->records = 1;
  res->unique = 1;
  res->events = 1;
  res->manifests = 1;
  ck_assert_int_eq (pc_findings_add (&res->points[0].findings, PC_V_ZERO_LENGTH, "f",
                                     "empty file", "file 3 B"), 0);
  c.rule = strdup ("a rule");
  pc_findings_set_cause (&res->points[0].findings, &c);
  res->windows = calloc (1, sizeof *res->windows);
  ck_assert_ptr_nonnull (res->windows);
  res->nwindows = 1;
  res->windows[0].path = strdup ("f");
  snprintf (res->windows[0].mark, sizeof res->windows[0].mark, "v1");
  res->windows[0].lost_until = 0;
  pc_windows_compute (res);
  pc_check_result_recount (res);
  return res;
}

/* No count of one in text is followed by a plural noun. */
static void
assert_singular (const char *text)
{
  regex_t re;
  regmatch_t m;

  ck_assert_int_eq (regcomp (&re, "(^|[^0-9.])1 (crash points|points|versions|files|records|"
                             "distinct images|images|states|calls|paths|others)([^a-z-]|$)",
                             REG_EXTENDED | REG_NEWLINE), 0);
  ck_assert_msg (regexec (&re, text, 1, &m, 0) != 0, "a plural after 1: '%.*s' in: %s",
                 (int) (m.rm_eo - m.rm_so), text + m.rm_so, text);
  regfree (&re);
}

START_TEST (test_counts_singular)
{
  struct pc_check_result *res = single_result ();
  char *text = text_of (res);

  assert_singular (text);
  ck_assert_msg (strstr (text, "\n1 crash point, 1 distinct image checked in ") != NULL, "%s", text);
  ck_assert_msg (strstr (text, "\n  1 version: ") != NULL, "%s", text);
  ck_assert_msg (strstr (text, " of 1 record\n") != NULL, "%s", text);
  ck_assert_msg (strstr (text, "1 call: ") != NULL, "%s", text);
  free (text);
  /* nothing lost at its one point */
  res->points[0].verdict = PC_V_OK;
  pc_findings_clear (&res->points[0].findings);
  pc_check_result_recount (res);
  text = text_of (res);
  assert_singular (text);
  ck_assert_msg (strstr (text, "its 1 crash point holds ") != NULL, "%s", text);
  free (text);
  pc_check_result_free (res);
}
END_TEST

/* The lines of text from the one starting with head ("\nHEAD"), with
 * those under it (indented as far as HEAD is long) joined by blanks; each
 * at most 100 columns, unless it is one word. */
static char *
unfolded (const char *text, const char *head)
{
  const char *at = strstr (text, head);
  size_t indent = strlen (head) - 1;
  char *out = calloc (1, strlen (text) + 1);
  bool first = true;

  ck_assert_msg (at != NULL, "no line '%s' in: %s", head, text);
  ck_assert_ptr_nonnull (out);
  for (const char *l = at + 1; *l; first = false) {
    const char *nl = strchr (l, '\n');
    size_t len = nl ? (size_t) (nl - l) : strlen (l);
    if (!first && (len <= indent || strspn (l, " ") != indent))
      break;
    ck_assert_msg (len <= 100 || memchr (l + indent, ' ', len - indent) == NULL,
                   "a line of %zu columns: %.*s", len, (int) len, l);
    if (!first)
      strcat (out, " ");
    strncat (out, l + indent, len - indent);
    l += len + (nl != NULL);
  }
  return out;
}

START_TEST (test_why_folded)
{
  struct pc_check_result *res = single_result ();
  struct pc_finding *fd = &res->points[0].findings.v[0];
  char *text, *why, *got, *buf = NULL;
  size_t len = 0;
  FILE *f;

  free (fd->cause.rule);
  fd->cause.rule = strdup ("a durable version the program gave up: a later version replaced it "
                           "before it was durable, and a crash may keep neither, said at length "
                           "so that the rule alone is longer than a line of the report");
  fd->cause.fix = strdup ("an fsync of etc/sedToCVru before rename(\"etc/sedToCVru\", "
                          "\"etc/app.conf\") = 0, and more words to fold it");
  text = text_of (res);
  why = pc_report_why (fd->kind, &fd->cause);
  ck_assert_uint_gt (strlen (why), 200);
  got = unfolded (text, "\n    why: ");
  ck_assert_str_eq (got, why);
  ck_assert_msg (strstr (text, "\n         ") != NULL, "no line under the why: %s", text);
  free (got);
  got = unfolded (text, "\n      rule:    ");
  ck_assert_msg (strstr (got, fd->cause.rule) != NULL, "rule: %s", got);
  free (got);
  got = unfolded (text, "\n      fix:     ");
  ck_assert_str_eq (got, fd->cause.fix);
  free (got);
  free (why);
  free (text);

  /* a word longer than a line stays whole, on a line of its own; blanks
   * are kept but at the end of a line */
  f = open_memstream (&buf, &len);
  ck_assert_ptr_nonnull (f);
  pc_put_wrapped (f, "  x: ", "a b cccccccccccccccccccc d  e   f", 10);
  ck_assert_int_eq (fclose (f), 0);
  ck_assert_str_eq (buf, "  x: a b\n     cccccccccccccccccccc\n     d  e\n     f\n");
  free (buf);
  pc_check_result_free (res);
}
END_TEST

/* Adds a finding of kind at path to p, with a cause of the program's
 * (program) or nobody's. */
static void
add_finding (struct pc_point *p, int kind, const char *path, bool program)
{
  struct pc_cause c = { .known = true, .program = program, .durable_ns = -1 };

  ck_assert_int_eq (pc_findings_add (&p->findings, kind, path, "empty file", "file 3 B"), 0);
  c.rule = strdup (program ? "a durable version the program gave up" : "never durable");
  pc_findings_set_cause (&p->findings, &c);
  p->verdict = pc_verdict_worse (p->verdict, (enum pc_verdict) kind);
}

START_TEST (test_files_grouped)
{
  static const char *const greek[] = { "alpha", "beta", "delta", "gamma" };
  struct pc_check_result *res = settled_result ();
  char name[16], *text, *at;

  res->command_end_record = res->settle_end_record = 0;
  for (size_t i = 0; i < res->npoints; i++)
    res->points[i].verdict = PC_V_OK;
  /* f00 .. f19 zero-length at the first two points and zero-filled at
   * the others, the program's; the Greek letters mismatched at the third,
   * nobody's; "other" zero-length at the first only */
  for (size_t i = 0; i < res->npoints; i++) {
    if (i == 2)
      for (size_t k = 0; k < 4; k++)
        add_finding (&res->points[i], PC_V_MISMATCH, greek[k], false);
    for (int k = 0; k < 20; k++) {
      snprintf (name, sizeof name, "f%02d", k);
      add_finding (&res->points[i], i < 2 ? PC_V_ZERO_LENGTH : PC_V_ZERO_FILLED, name, true);
    }
    if (i == 0)
      add_finding (&res->points[i], PC_V_ZERO_LENGTH, "other", true);
  }
  pc_check_result_recount (res);
  text = text_of (res);
  ck_assert_msg (strstr (text, "\nfiles affected: 25\n") != NULL, "%s", text);
  ck_assert_msg (strstr (text, "\n  f00 .. f19 (20 files, each the same): 4 points (15 .. 30): "
                         "zero-length at 2, zero-filled at 2; fault: the program's at 4\n"
                         "      the first, f00, at 15: zero-length, found empty file\n")
                 != NULL, "%s", text);
  ck_assert_msg (strstr (text, "\n  alpha, beta, delta and 1 more (4 files, each the same): "
                         "1 point (25 .. 25): mismatch at 1; fault: nobody's") != NULL, "%s", text);
  ck_assert_msg (strstr (text, "\n  other: 1 point (15 .. 15): zero-length at 1") != NULL, "%s",
                 text);
  /* one block each: no file of a group listed again */
  ck_assert_msg (strstr (text, "\n  f01") == NULL && strstr (text, "\n  gamma") == NULL, "%s",
                 text);
  at = strstr (text, "\nfiles affected");
  ck_assert_ptr_nonnull (at);
  ck_assert_msg (strstr (at, "more file") == NULL, "%s", text);
  free (text);
  pc_check_result_free (res);
}
END_TEST

/* The second line of text, malloc'd. */
static char *
line2 (const char *text)
{
  const char *a = strchr (text, '\n'), *b;

  ck_assert_ptr_nonnull (a);
  b = strchr (a + 1, '\n');
  ck_assert_ptr_nonnull (b);
  return strndup (a + 1, (size_t) (b - a - 1));
}

START_TEST (test_one_sample)
{
  struct pc_check_result *res = single_result ();
  struct pc_finding *fd = &res->points[0].findings.v[0];
  char *text, *l, *buf = NULL;
  size_t len = 0;
  FILE *f;

  /* the program's fault, then nobody's: one sample */
  for (int program = 1; program >= 0; program--) {
    fd->cause.program = program;
    pc_check_result_recount (res);
    ck_assert_uint_eq (program ? res->program_promises : res->exposures, 1);
    text = text_of (res);
    l = line2 (text);
    ck_assert_str_eq (l, "one run is one sample of the kernel's timing: powercut run --repeat N "
                         "records it N times");
    ck_assert_msg (strstr (text, "\nlost: f (zero-length at 1: ") != NULL, "%s", text);
    free (l);
    free (text);
  }
  /* only the filesystem's broken promise: no sample line */
  fd->cause.promise = true;
  pc_check_result_recount (res);
  ck_assert_uint_eq (res->promises, 1);
  text = text_of (res);
  l = line2 (text);
  ck_assert_str_eq (l, "lost: f (zero-length at 1: the filesystem's)");
  free (l);
  free (text);
  /* run 2 of 5 says so, whatever it lost */
  f = open_memstream (&buf, &len);
  ck_assert_ptr_nonnull (f);
  pc_report_text_run (f, res, 2, 5);
  ck_assert_int_eq (fclose (f), 0);
  l = line2 (buf);
  ck_assert_str_eq (l, "run 2 of 5 (powercut run --repeat 5): one sample of the kernel's timing; "
                       "the 5 together in ../report.txt");
  free (l);
  free (buf);
  /* nothing lost: none */
  res->points[0].verdict = PC_V_OK;
  pc_findings_clear (&res->points[0].findings);
  pc_check_result_recount (res);
  text = text_of (res);
  l = line2 (text);
  ck_assert_msg (strncmp (l, "the filesystem kept every promise", 33) == 0, "%s", text);
  free (l);
  free (text);
  pc_check_result_free (res);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("report");
  TCase *tc = tcase_create ("bytes");
  char cmd[64];
  int r;

  if (mkdtemp (dir) == NULL) {
    perror ("mkdtemp");
    return EXIT_FAILURE;
  }
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_json_and_merge_keep_every_byte);
  tcase_add_test (tc, test_text_and_html_show_names_safely);
  tcase_add_test (tc, test_after_command);
  tcase_add_test (tc, test_guest_kernel);
  tcase_add_test (tc, test_counts_singular);
  tcase_add_test (tc, test_why_folded);
  tcase_add_test (tc, test_files_grouped);
  tcase_add_test (tc, test_one_sample);
  suite_add_tcase (s, tc);
  r = pc_unit_run (s);
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  if (system (cmd) != 0)
    r = EXIT_FAILURE;
  return r;
}
