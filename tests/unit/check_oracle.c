/* check_oracle.c: unit tests of lib/oracle on hand-built manifests: the
 * allowed versions of each path at each crash point, and the verdicts. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/oracle.h"
#include "report/report.h"
#include "unit.h"
#include "result/result.h"

/* The marks (record numbers):
 *   0 mkfs (synced):  lost+found/
 *   2 v1 (synced):    f = "A"
 *   5 v2:             f = "BB", g = "G"
 *   8 v3 (durable f): f = "C"
 *  11 end (synced):   f = "C"
 * Other records are writes, which the oracle does not look at. */
static struct pc_index ix;
static struct pc_record recs[12];
static uint8_t *payload[12];

static void
entry (struct pc_entry *e, const char *path, const char *content)
{
  memset (e, 0, sizeof *e);
  e->path = (char *) path;
  if (content == NULL) {
    e->type = PC_ENTRY_DIR;
    e->mode = 040755;
    return;
  }
  e->type = PC_ENTRY_FILE;
  e->mode = 0100644;
  e->size = strlen (content);
  /* A stand-in hash: the content itself, padded. */
  memcpy (e->hash, content, e->size < 16 ? e->size : 16);
}

static void
add_mark (unsigned rec, const char *name, uint16_t flags, const char *durable,
          struct pc_entry *ents, size_t n)
{
  struct pc_mark m = { 0 };
  char *d[1] = { (char *) durable };
  size_t len;

  m.name = (char *) name;
  m.flags = flags | PC_MARK_F_MANIFEST;
  m.entries = ents;
  m.nentries = n;
  m.durable = durable ? d : NULL;
  m.ndurable = durable ? 1 : 0;
  ck_assert_int_eq (pc_mark_encode (&m, &payload[rec], &len), 0);
  recs[rec].type = PC_REC_MARK;
  recs[rec].data = payload[rec];
  recs[rec].datalen = (uint32_t) len;
}

static void
setup (void)
{
  struct pc_entry e[3];

  memset (recs, 0, sizeof recs);
  for (unsigned i = 0; i < 12; i++) {
    recs[i].type = PC_REC_WRITE;
    recs[i].seq = i;
    recs[i].time_ns = i * UINT64_C(1000000000);     /* record i at i seconds */
  }
  /* Entries sorted by path, as manifests are. */
  entry (&e[0], "lost+found", NULL);
  add_mark (0, "mkfs", PC_MARK_F_SYNC, NULL, e, 1);
  entry (&e[0], "f", "A");
  entry (&e[1], "lost+found", NULL);
  add_mark (2, "v1", PC_MARK_F_SYNC, NULL, e, 2);
  entry (&e[0], "f", "BB");
  entry (&e[1], "g", "G");
  entry (&e[2], "lost+found", NULL);
  add_mark (5, "v2", 0, NULL, e, 3);
  entry (&e[0], "f", "C");
  entry (&e[1], "lost+found", NULL);
  add_mark (8, "v3", 0, "f", e, 2);
  add_mark (11, "end", PC_MARK_F_SYNC, NULL, e, 2);
  memset (&ix, 0, sizeof ix);
  ix.recs = recs;
  ix.n = 12;
}

static void
teardown (void)
{
  for (unsigned i = 0; i < 12; i++) {
    free (payload[i]);
    payload[i] = NULL;
  }
}

/* A tree given as "path=content" words ("path/" a directory), sorted by
 * path as a tree read from an image is; e holds room for 8 entries.
 * "path=#N:K" is a file of N bytes of which K 4 KiB blocks are all zeros,
 * as a state's tree counts them. */
static void
tree_of (const char *tree, struct pc_mark *m, struct pc_entry *e, char *buf, size_t len)
{
  char *save = NULL;

  memset (m, 0, sizeof *m);
  snprintf (buf, len, "%s", tree);
  for (char *w = strtok_r (buf, " ", &save); w; w = strtok_r (NULL, " ", &save)) {
    char *eq = strchr (w, '=');
    if (eq && eq[1] == '#') {
      struct pc_entry *z = &e[m->nentries++];
      *eq = '\0';
      entry (z, w, "");
      z->size = strtoull (eq + 2, &eq, 10);
      z->zero_blocks = strtoull (eq + 1, NULL, 10);
      memset (z->hash, 0xee, sizeof z->hash);
    }
    else if (eq) {
      *eq = '\0';
      entry (&e[m->nentries++], w, eq + 1);
    }
    else {
      w[strlen (w) - 1] = '\0';
      entry (&e[m->nentries++], w, NULL);
    }
  }
  for (size_t i = 1; i < m->nentries; i++)
    for (size_t j = i; j > 0 && strcmp (e[j - 1].path, e[j].path) > 0; j--) {
      struct pc_entry t = e[j];
      e[j] = e[j - 1];
      e[j - 1] = t;
    }
  m->entries = e;
}

/* Judges a found tree at point, the end of the recording holding end (NULL:
 * not told); the findings as "KIND TAB PATH TAB FOUND TAB ALLOWED" lines. */
static enum pc_verdict
judge_end (uint64_t point, const char *tree, const char *end, char *findings, size_t len)
{
  struct pc_oracle *o;
  struct pc_mark found, endm;
  struct pc_entry e[8], ee[8];
  struct pc_findings fl = { 0 };
  char buf[256], ebuf[256];
  struct pc_err err;
  size_t pos = 0;
  enum pc_verdict v;

  ck_assert_int_eq (pc_oracle_new (&ix, 0, &o, &err), 0);
  ck_assert_uint_eq (pc_oracle_manifests (o), 5);
  tree_of (tree, &found, e, buf, sizeof buf);
  if (end) {
    tree_of (end, &endm, ee, ebuf, sizeof ebuf);
    ck_assert_int_eq (pc_oracle_set_end (o, &endm), 0);
  }
  ck_assert_int_eq (pc_oracle_judge (o, point, &found, &fl, NULL, NULL, &v), 0);
  findings[0] = '\0';
  for (size_t i = 0; i < fl.n && pos < len; i++)
    pos += (size_t) snprintf (findings + pos, len - pos, "%s\t%s\t%s\t%s\n",
                              pc_finding_name (fl.v[i].kind), fl.v[i].path, fl.v[i].found,
                              fl.v[i].allowed);
  pc_findings_clear (&fl);
  pc_oracle_free (o);
  return v;
}

/* pc_oracle_lost_fn: the last state (*ctx's index) that lost each version. */
struct lost_until {
  int64_t state;
  int64_t v[8];
};

static void
note (void *ctx, size_t version)
{
  struct lost_until *l = ctx;

  ck_assert_uint_lt (version, 8);
  if (l->state > l->v[version])
    l->v[version] = l->state;
}

static enum pc_verdict
judge (uint64_t point, const char *tree, char *findings, size_t len)
{
  return judge_end (point, tree, NULL, findings, len);
}

START_TEST (test_between_marks)
{
  char f[2048];

  /* At 6: f may be A (v1, durable), BB (v2) or C (v3, the next mark). */
  ck_assert_int_eq (judge (6, "lost+found/ f=A g=G", f, sizeof f), PC_V_OK);
  ck_assert_int_eq (judge (6, "lost+found/ f=BB", f, sizeof f), PC_V_OK);
  ck_assert_int_eq (judge (6, "lost+found/ f=C g=G", f, sizeof f), PC_V_OK);
  ck_assert_int_eq (judge (6, "lost+found/ f=", f, sizeof f), PC_V_ZERO_LENGTH);
  ck_assert_msg (strncmp (f, "zero-length\tf\tempty file", 24) == 0, "%s", f);
  ck_assert_int_eq (judge (6, "lost+found/", f, sizeof f), PC_V_MISSING);
  ck_assert_int_eq (judge (6, "lost+found/ f=XYZ", f, sizeof f), PC_V_MISMATCH);
  ck_assert_int_eq (judge (6, "f=A", f, sizeof f), PC_V_MISSING);   /* lost+found */
}
END_TEST

START_TEST (test_durable_path)
{
  char f[2048];

  /* At 9, f was made durable at v3: only C is allowed. */
  ck_assert_int_eq (judge (9, "lost+found/ f=C", f, sizeof f), PC_V_OK);
  ck_assert_int_eq (judge (9, "lost+found/ f=A", f, sizeof f), PC_V_DURABLE_LOST);
  ck_assert_int_eq (judge (9, "lost+found/ f=BB", f, sizeof f), PC_V_DURABLE_LOST);
  ck_assert_int_eq (judge (9, "lost+found/ f=Q", f, sizeof f), PC_V_MISMATCH);
  /* g was not made durable by v3: from v1 on it may be absent or G. */
  ck_assert_int_eq (judge (9, "lost+found/ f=C g=G", f, sizeof f), PC_V_OK);
  ck_assert_int_eq (judge (9, "lost+found/ f=C g=H", f, sizeof f), PC_V_MISMATCH);
}
END_TEST

START_TEST (test_early_and_unmentioned)
{
  char f[2048];

  /* At 1 (after mkfs, before v1): f absent or A. */
  ck_assert_int_eq (judge (1, "lost+found/", f, sizeof f), PC_V_OK);
  ck_assert_int_eq (judge (1, "lost+found/ f=A", f, sizeof f), PC_V_OK);
  ck_assert_int_eq (judge (1, "lost+found/ f=BB", f, sizeof f), PC_V_MISMATCH);
  /* Empty where its only allowed file version has data, though absence
   * is allowed too: zero-length, the seed's own case. */
  ck_assert_int_eq (judge (1, "lost+found/ f=", f, sizeof f), PC_V_ZERO_LENGTH);
  /* A temporary no manifest names is listed, not failed. */
  ck_assert_int_eq (judge (6, "lost+found/ f=A f.tmp=zz", f, sizeof f), PC_V_OK);
  ck_assert_msg (strstr (f, "unmentioned\tf.tmp\t") != NULL, "%s", f);
  /* After the last mark: only the end's version. */
  ck_assert_int_eq (judge (11, "lost+found/ f=C", f, sizeof f), PC_V_OK);
  ck_assert_int_eq (judge (11, "lost+found/ f=BB", f, sizeof f), PC_V_DURABLE_LOST);
}
END_TEST

START_TEST (test_findings_say_what_was_allowed)
{
  char f[2048];

  ck_assert_int_eq (judge (6, "lost+found/ f=", f, sizeof f), PC_V_ZERO_LENGTH);
  ck_assert_msg (strstr (f, "at v1") && strstr (f, "at v2") && strstr (f, "at v3"), "%s", f);
  ck_assert_msg (strstr (f, "at mkfs") == NULL, "%s", f);   /* before the durable mark */
}
END_TEST

START_TEST (test_zero_length_with_absence_allowed)
{
  char f[2048];

  /* At 6, g may be absent (v1, durable) or G (v2): empty is zero-length. */
  ck_assert_int_eq (judge (6, "lost+found/ f=A g=", f, sizeof f), PC_V_ZERO_LENGTH);
  ck_assert_msg (strncmp (f, "zero-length\tg\tempty file", 24) == 0, "%s", f);
  /* A directory where a file was allowed is no zero-length file. */
  ck_assert_int_eq (judge (6, "lost+found/ f=A g/", f, sizeof f), PC_V_MISMATCH);
}
END_TEST

START_TEST (test_zero_filled)
{
  char f[2048];

  /* At 6, f may be A, BB or C: a file of their size or any other that
   * reads as zeros is zero-filled, and says so. */
  ck_assert_int_eq (judge (6, "lost+found/ f=#8192:2", f, sizeof f), PC_V_ZERO_FILLED);
  ck_assert_msg (strncmp (f, "zero-filled\tf\tfile 8192 B all zeros (2 of 2 blocks)", 50) == 0,
                 "%s", f);
  ck_assert_int_eq (judge (6, "lost+found/ f=#2:1", f, sizeof f), PC_V_ZERO_FILLED);
  /* Partly zeros: a mismatch, with the count of blocks all zeros. */
  ck_assert_int_eq (judge (6, "lost+found/ f=#8193:2", f, sizeof f), PC_V_MISMATCH);
  ck_assert_msg (strstr (f, ", 2 of 3 blocks all zeros\t") != NULL, "%s", f);
  /* g may be absent or G: zeros there are zero-filled too; zero-length
   * and zero-filled rank above a mismatch elsewhere. */
  ck_assert_int_eq (judge (6, "lost+found/ f=#8193:1 g=#1:1", f, sizeof f), PC_V_ZERO_FILLED);
  /* Where a directory was allowed, zeros are a mismatch. */
  ck_assert_int_eq (judge (6, "lost+found=#10:1 f=A", f, sizeof f), PC_V_MISMATCH);
}
END_TEST

START_TEST (test_changed_after_the_last_mark)
{
  char f[2048];

  /* The recording ends with f = "D", g gone: after the last mark (11) the
   * workload changed f, which is then not judged, only listed. */
  ck_assert_int_eq (judge_end (12, "lost+found/ f=BB", "lost+found/ f=D", f, sizeof f),
                    PC_V_OK);
  ck_assert_msg (strncmp (f, "not-judged\tf\tfile 2 B", 21) == 0, "%s", f);
  ck_assert_int_eq (judge_end (12, "lost+found/", "lost+found/ f=D", f, sizeof f), PC_V_OK);
  ck_assert_msg (strncmp (f, "not-judged\tf\tabsent", 19) == 0, "%s", f);
  ck_assert_int_eq (judge_end (12, "lost+found/ f=C", "lost+found/ f=D", f, sizeof f),
                    PC_V_OK);
  ck_assert_str_eq (f, "");
  /* What did not change after the last mark is judged as ever ... */
  ck_assert_int_eq (judge_end (12, "f=C", "lost+found/ f=D", f, sizeof f), PC_V_MISSING);
  ck_assert_int_eq (judge_end (12, "lost+found/ f=BB", "lost+found/ f=C", f, sizeof f),
                    PC_V_DURABLE_LOST);
  /* ... and before the last mark, everything is. */
  ck_assert_int_eq (judge_end (9, "lost+found/ f=BB", "lost+found/ f=D", f, sizeof f),
                    PC_V_DURABLE_LOST);
}
END_TEST

START_TEST (test_names_are_data)
{
  char f[4096], tree[256];
  struct pc_findings fl = { 0 }, back = { 0 };
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0, used = 0;
  static const char *const names[] = { "a\tb", "new\nline", "q\"uote", "<script>",
                                       "bad\xff\xfe", "x=y" };

  /* A name the test's tree syntax can hold, unmentioned, comes back whole. */
  snprintf (tree, sizeof tree, "lost+found/ f=A %s=zz", "a\tb");
  ck_assert_int_eq (judge (6, tree, f, sizeof f), PC_V_OK);
  ck_assert_msg (strstr (f, "unmentioned\ta\tb\t") != NULL, "%s", f);
  /* Any bytes survive packing. */
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    ck_assert_int_eq (pc_findings_add (&fl, PC_V_MISMATCH, names[i], names[i], "\x01"), 0);
  ck_assert_int_eq (pc_findings_pack (&fl, &buf, &len, &cap), 0);
  for (size_t cut = 0; cut < len; cut++)
    ck_assert_int_eq (pc_findings_unpack (buf, cut, &used, &back), -EBADMSG);
  ck_assert_int_eq (pc_findings_unpack (buf, len, &used, &back), 0);
  ck_assert_uint_eq (used, len);
  ck_assert_uint_eq (back.n, fl.n);
  for (size_t i = 0; i < fl.n; i++) {
    ck_assert_str_eq (back.v[i].path, names[i]);
    ck_assert_str_eq (back.v[i].found, names[i]);
    ck_assert_str_eq (back.v[i].allowed, "\x01");
  }
  pc_findings_clear (&fl);
  pc_findings_clear (&back);
  free (buf);
}
END_TEST

START_TEST (test_display)
{
  struct { const char *in, *name, *text; } t[] = {
    { "plain/name.txt", "plain/name.txt", "plain/name.txt" },
    { "a\tb", "\"a\\tb\"", "a\\x09b" },
    { "l\nm", "\"l\\nm\"", "l\nm" },
    { "q\"u\\", "\"q\\\"u\\\\\"", "q\"u\\" },
    { "<script>", "<script>", "<script>" },
    { "caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9" },
    { "bad\xff", "\"bad\\xff\"", "bad\\xff" },
    { "\xc0\xaf", "\"\\xc0\\xaf\"", "\\xc0\\xaf" },           /* overlong */
    { "\xed\xa0\x80", "\"\\xed\\xa0\\x80\"", "\\xed\\xa0\\x80" }, /* surrogate */
  };

  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char *n = pc_display_name (t[i].in), *x = pc_display_text (t[i].in);
    ck_assert_str_eq (n, t[i].name);
    ck_assert_str_eq (x, t[i].text);
    free (n);
    free (x);
  }
  {
    char *l = pc_display_line ("two\nlines\t\xff");
    ck_assert_str_eq (l, "two\\x0alines\\x09\\xff");
    free (l);
  }
  ck_assert (pc_utf8_valid ("caf\xc3\xa9", 5));
  ck_assert (!pc_utf8_valid ("\xf4\x90\x80\x80", 4));     /* beyond U+10FFFF */
}
END_TEST

/* Crash states at these points, with these trees: the versions each lost
 * and the windows, worked out by hand (record r happens at r seconds).
 * The versions, by path then mark: f "A" at v1 (synced: acknowledged
 * there), f "BB" at v2 (never acknowledged: v3 changes f), f "C" at v3
 * (--durable f: acknowledged there), g "G" at v2 (deleted at v3).
 *   state 0, point 1:  f absent           lost f@v1 (N is v1)
 *   state 1, point 3:  f=A, g absent      lost f@v2, g@v2 (N is v2)
 *   state 2, point 6:  f=BB g=G           lost f@v3 (N is v3)
 *   state 3, point 7:  f empty, g=G       lost f@v1, f@v2, f@v3
 *   state 4, point 9:  f=C, g absent      none: g's absence is v3's
 *   state 5, point 11: f=C                none
 * Each state is on the disk until the next one's point (as a flush's is
 * until the next flush).  So the last state that lost each: f@v1 3, f@v2
 * 3, f@v3 3, g@v2 1, and
 *   f@v1: written 2, durable 9 (state 4): window 7; lost by the state at 7,
 *         on the disk until 9: exposed 7; acknowledged at 2: acknowledged
 *         exposure 7
 *   f@v2: written 5, durable 9: window 4, exposed 4
 *   f@v3: written 8, durable 9: window 1; state 3 (7) is before its mark
 *   g@v2: written 5, durable 6 (state 2): window 1; state 1 is before it
 * longest 7 (f@v1), median of 1 1 4 7 = 2.5, 2 versions exposed. */
static const struct {
  uint64_t point;
  const char *tree;
} wstates[] = {
  { 1, "lost+found/" }, { 3, "lost+found/ f=A" }, { 6, "lost+found/ f=BB g=G" },
  { 7, "lost+found/ f= g=G" }, { 9, "lost+found/ f=C" }, { 11, "lost+found/ f=C" },
};
#define NW (sizeof wstates / sizeof wstates[0])

/* A check result of states [from, to) of wstates with their windows. */
static struct pc_check_result *
windows_of (struct pc_oracle *o, size_t from, size_t to)
{
  struct pc_check_result *res = calloc (1, sizeof *res);
  struct lost_until l;
  const struct pc_oracle_version *v;
  size_t nv;

  ck_assert_ptr_nonnull (res);
  for (size_t i = 0; i < 8; i++)
    l.v[i] = -1;
  res->npoints = to - from;
  res->points = calloc (res->npoints, sizeof *res->points);
  for (size_t i = from; i < to; i++) {
    struct pc_mark found;
    struct pc_entry e[8];
    struct pc_findings fl = { 0 };
    char buf[256];
    struct pc_point *p = &res->points[i - from];
    tree_of (wstates[i].tree, &found, e, buf, sizeof buf);
    l.state = (int64_t) (i - from);
    enum pc_verdict verdict;
    ck_assert_int_eq (pc_oracle_judge (o, wstates[i].point, &found, &fl, note, &l, &verdict), 0);
    pc_findings_clear (&fl);
    snprintf (p->id, sizeof p->id, "%" PRIu64, wstates[i].point);
    p->record = wstates[i].point;
    p->time_ns = recs[wstates[i].point].time_ns;
    /* judged at its point, on the disk until the next state's (a flush) */
    p->moment = p->record;
    p->moment_ns = recs[wstates[i + 1 < NW ? i + 1 : i].point].time_ns;
  }
  v = pc_oracle_versions (o, &nv);
  res->windows = calloc (nv, sizeof *res->windows);
  res->nwindows = nv;
  for (size_t i = 0; i < nv; i++) {
    struct pc_window *w = &res->windows[i];
    w->path = strdup (v[i].path);
    snprintf (w->mark, sizeof w->mark, "%s", v[i].mark);
    w->mark_record = v[i].record;
    w->written_ns = recs[v[i].record].time_ns;
    if (v[i].ack) {
      snprintf (w->ack, sizeof w->ack, "%s", v[i].ack);
      w->ack_record = v[i].ack_record;
      w->ack_ns = recs[v[i].ack_record].time_ns;
    }
    w->lost_until = l.v[i];
  }
  pc_windows_compute (res);
  return res;
}

#define S(x) ((uint64_t) ((x) * 1e9))

static void
assert_windows (const struct pc_check_result *res)
{
  static const struct {
    const char *path, *mark, *ack;
    int64_t lost_until;
    uint64_t window, exposed, ack_exposed;
  } want[] = {
    { "f", "v1", "v1", 3, S (7), S (7), S (7) },
    { "f", "v2", "", 3, S (4), S (4), 0 },
    { "f", "v3", "v3", 3, S (1), 0, 0 },
    { "g", "v2", "", 1, S (1), 0, 0 },
  };
  struct pc_window_summary sum;

  ck_assert_uint_eq (res->nwindows, 4);
  for (size_t i = 0; i < 4; i++) {
    const struct pc_window *w = &res->windows[i];
    ck_assert_str_eq (w->path, want[i].path);
    ck_assert_str_eq (w->mark, want[i].mark);
    ck_assert_str_eq (w->ack, want[i].ack);
    ck_assert_int_eq (w->lost_until, want[i].lost_until);
    ck_assert_int_ge (w->durable_ns, 0);
    ck_assert_uint_eq (w->window_ns, want[i].window);
    ck_assert_uint_eq (w->exposed_ns, want[i].exposed);
    ck_assert_uint_eq (w->ack_exposed_ns, want[i].ack_exposed);
  }
  pc_windows_summary (res, &sum);
  ck_assert_uint_eq (sum.n, 4);
  ck_assert_uint_eq (sum.never, 0);
  ck_assert_uint_eq (sum.exposed, 2);
  ck_assert_uint_eq (sum.longest_ns, S (7));
  ck_assert_uint_eq (sum.longest, 0);
  ck_assert_uint_eq (sum.median_ns, S (2.5));
  ck_assert_uint_eq (sum.ack_exposed_ns, S (7));
  ck_assert_uint_eq (sum.ack_exposed, 0);
}

static void
result_free (struct pc_check_result *res)
{
  pc_windows_free (res);
  free (res->points);
  free (res);
}

START_TEST (test_windows_by_hand)
{
  struct pc_oracle *o;
  struct pc_check_result *all, *part[2], *merged = NULL;
  struct pc_err err;
  json_object *j;

  ck_assert_int_eq (pc_oracle_new (&ix, 0, &o, &err), 0);
  all = windows_of (o, 0, NW);
  assert_windows (all);

  /* Through JSON and back. */
  j = pc_windows_json (all);
  ck_assert_ptr_nonnull (j);
  pc_windows_free (all);
  ck_assert_int_eq (pc_windows_read_json (j, all, &err), 0);
  json_object_put (j);
  assert_windows (all);

  /* Two shards, merged: the same. */
  part[0] = windows_of (o, 0, 3);
  part[1] = windows_of (o, 3, NW);
  part[1]->shard = 1;
  ck_assert_int_eq (part[0]->windows[3].lost_until, 1);   /* g@v2 in the first */
  ck_assert_int_eq (part[1]->windows[3].lost_until, -1);
  merged = calloc (1, sizeof *merged);
  merged->npoints = NW;
  merged->points = calloc (NW, sizeof *merged->points);
  memcpy (merged->points, part[0]->points, 3 * sizeof *merged->points);
  memcpy (merged->points + 3, part[1]->points, (NW - 3) * sizeof *merged->points);
  ck_assert_int_eq (pc_windows_merge (part, 2, merged, &err), 0);
  assert_windows (merged);

  /* The last state alone: f@v1 was lost by no state checked. */
  result_free (part[1]);
  part[1] = windows_of (o, NW - 1, NW);
  ck_assert_int_eq (part[1]->windows[0].lost_until, -1);
  ck_assert_uint_eq (part[1]->windows[0].window_ns, S (9));   /* durable at 11 */
  result_free (part[0]);
  result_free (part[1]);
  result_free (merged);
  result_free (all);
  pc_oracle_free (o);
}
END_TEST

/* Every verdict the table gives a path comes out of the oracle of marks:
 * a new path verdict needs its case here and in oracle.c. */
START_TEST (test_every_path_verdict)
{
  char f[2048];
  unsigned cases = 0;

  for (int v = 0; v < PC_V_COUNT; v++) {
    const struct pc_verdict_info *vi = pc_verdict_info (v);
    const char *tree;
    uint64_t at = 6;

    if (!vi->path)
      continue;
    switch ((enum pc_verdict) v) {
    case PC_V_ZERO_LENGTH:  tree = "lost+found/ f="; break;
    case PC_V_ZERO_FILLED:  tree = "lost+found/ f=#8192:2"; break;
    case PC_V_MISSING:      tree = "lost+found/"; break;
    case PC_V_MISMATCH:     tree = "lost+found/ f=XYZ"; break;
    case PC_V_DURABLE_LOST: tree = "lost+found/ f=A"; at = 9; break;
    case PC_V_ACK_LOST:     continue;   /* a traced program's acknowledgements
                                         * only (pc_oracle_older): check_history
                                         * and test-acks.sh */
    default:
      ck_abort_msg ("path verdict %s: no case in this test", vi->name);
    }
    ck_assert_msg (judge (at, tree, f, sizeof f) == (enum pc_verdict) v, "%s: %s", vi->name, f);
    cases++;
  }
  ck_assert_uint_ge (cases, 5);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("oracle");
  TCase *tc = tcase_create ("verdicts");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_between_marks);
  tcase_add_test (tc, test_durable_path);
  tcase_add_test (tc, test_early_and_unmentioned);
  tcase_add_test (tc, test_findings_say_what_was_allowed);
  tcase_add_test (tc, test_zero_length_with_absence_allowed);
  tcase_add_test (tc, test_zero_filled);
  tcase_add_test (tc, test_changed_after_the_last_mark);
  tcase_add_test (tc, test_names_are_data);
  tcase_add_test (tc, test_every_path_verdict);
  tcase_add_test (tc, test_display);
  tcase_add_test (tc, test_windows_by_hand);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
