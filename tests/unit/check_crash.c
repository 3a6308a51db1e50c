/* check_crash.c: unit tests of lib/crash and lib/image: the states each
 * model enumerates on small hand-made logs, their ids, and their images. */
#include <config.h>

#include <check.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/crash.h"
#include "replay/image.h"
#include "replay/replay.h"
#include "util/util.h"
#include "unit.h"

static char path[64];
static struct pc_index ix;

/* The log of every test:
 *   0 write 0+512        1 write 512+512     2 flush
 *   3 write 1024+512     4 write 1536+512 FUA
 *   5 write 2048+1024 (two sectors)           6 write 1024+512 (over 3)
 *   7 flush
 * Write data: every byte of record n is 'A' + n. */
static void
setup (void)
{
  static const struct { int type; uint64_t off; uint32_t len; uint16_t flags; } recs[] = {
    { PC_REC_WRITE, 0, 512, 0 }, { PC_REC_WRITE, 512, 512, 0 }, { PC_REC_FLUSH, 0, 0, 0 },
    { PC_REC_WRITE, 1024, 512, 0 }, { PC_REC_WRITE, 1536, 512, PC_REC_F_FUA },
    { PC_REC_WRITE, 2048, 1024, 0 }, { PC_REC_WRITE, 1024, 512, 0 },
    { PC_REC_FLUSH, 0, 0, 0 },
  };
  struct pc_log_header h = { 0 };
  uint8_t buf[PC_LOG_HEADER_SIZE], data[1024];
  int fd;

  strcpy (path, "/tmp/check_crash.XXXXXX");
  fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  h.version = PC_LOG_VERSION;
  h.devsize = 1 << 20;
  h.sector = 512;
  pc_log_header_encode (&h, buf);
  ck_assert_int_eq (pc_write_all (fd, buf, sizeof buf), 0);
  for (unsigned i = 0; i < sizeof recs / sizeof recs[0]; i++) {
    struct pc_record r = { 0 };
    uint8_t rh[PC_REC_HEADER_SIZE];
    r.type = recs[i].type;
    r.seq = i;
    r.offset = recs[i].off;
    r.length = recs[i].len;
    r.flags = recs[i].flags;
    r.datalen = r.type == PC_REC_WRITE ? r.length : 0;
    memset (data, 'A' + i, sizeof data);
    pc_rec_encode (&r, data, rh);
    ck_assert_int_eq (pc_write_all (fd, rh, sizeof rh), 0);
    ck_assert_int_eq (pc_write_all (fd, data, r.datalen), 0);
  }
  close (fd);
  ck_assert_int_eq (pc_index_load (path, &ix), 0);
  ck_assert_uint_eq (ix.n, 8);
}

static void
teardown (void)
{
  pc_index_free (&ix);
  unlink (path);
}

/* Enumerates (with the state at the start first, if start) and compares
 * the ids with a space-separated expectation. */
static void
expect_ids (const char *model, uint64_t from, bool start, const char *want)
{
  struct pc_model m;
  struct pc_state *s;
  size_t n;
  char got[4096] = "", id[PC_ID_MAX];

  ck_assert_int_eq (pc_model_spec_parse (model, &m, NULL), 0);
  ck_assert_int_eq (pc_states_enumerate (&ix, &m, from, &s, &n), 0);
  if (start)
    ck_assert_int_eq (pc_states_add_start (&ix, from, &s, &n), 0);
  for (size_t i = 0; i < n; i++) {
    if (i)
      strcat (got, " ");
    strcat (got, pc_state_id (&s[i], &m, id, sizeof id));
    if (i)
      ck_assert_uint_le (s[i - 1].base, s[i].base);   /* never goes back */
  }
  ck_assert_msg (strcmp (got, want) == 0, "%s: got \"%s\", want \"%s\"", model, got, want);
  pc_states_free (s, n);
}

static void
expect (const char *model, uint64_t from, const char *want)
{
  expect_ids (model, from, false, want);
}

START_TEST (test_flush_and_write)
{
  expect ("flush", 0, "2 4 7");
  expect ("write", 0, "0 1 2 3 4 5 6 7");
  expect ("flush", 3, "4 7");
}
END_TEST

/* The state at the start: the disk at the last flush or FUA write before
 * the first point wanted, first, under every model; not twice, and not
 * before the first flush. */
static void
expect_start (const char *model, uint64_t from, const char *want)
{
  expect_ids (model, from, true, want);
}

START_TEST (test_start_state)
{
  expect_start ("flush", 3, "2 4 7");
  /* from after the FUA write 4: the disk held flush 2's state only
   * until 4 was done, so the state at the start is 4's */
  expect_start ("flush", 5, "4 7");
  expect_start ("write", 3, "2 3 4 5 6 7");
  expect_start ("reorder:2", 3, "2 3 4 4/drop:3 5 5/drop:3 6 6/drop:3 6/drop:5 6/drop:3,5 7");
  expect_start ("flush", 2, "2 4 7");           /* from a flush: there already */
  expect_start ("flush", 1, "2 4 7");           /* no flush before 1 */
  expect_start ("flush", 0, "2 4 7");           /* from the start of the log */
}
END_TEST

/* A flush ends a state only when it is answered: its DONE record, where
 * the log has one; without, at its own record. */
START_TEST (test_moments_done)
{
  static const struct { int type; uint64_t off; uint32_t len; } recs[] = {
    { PC_REC_WRITE, 0, 512 }, { PC_REC_FLUSH, 0, 0 }, { PC_REC_DONE, 1, 0 },
    { PC_REC_WRITE, 512, 512 }, { PC_REC_FLUSH, 0, 0 }, { PC_REC_EVENT, 0, 0 },
    { PC_REC_DONE, 4, 0 }, { PC_REC_WRITE, 1024, 512 },
  };
  char lpath[64] = "/tmp/check_crash_done.XXXXXX";
  struct pc_log_header h = { 0 };
  uint8_t buf[PC_LOG_HEADER_SIZE], data[512];
  struct pc_index lix;
  struct pc_model m = { PC_MODEL_FLUSH, 0, 0 };
  struct pc_state *st;
  uint64_t mom[4];
  size_t n;
  int fd = mkstemp (lpath);

  ck_assert_int_ge (fd, 0);
  h.version = PC_LOG_VERSION;
  h.compat = PC_LOG_COMPAT_DONE;
  h.devsize = 1 << 20;
  h.sector = 512;
  pc_log_header_encode (&h, buf);
  ck_assert_int_eq (pc_write_all (fd, buf, sizeof buf), 0);
  for (unsigned i = 0; i < sizeof recs / sizeof recs[0]; i++) {
    struct pc_record r = { 0 };
    uint8_t rh[PC_REC_HEADER_SIZE];
    r.type = recs[i].type;
    r.seq = i;
    r.offset = recs[i].off;
    r.length = recs[i].len;
    r.datalen = r.type == PC_REC_WRITE ? r.length : r.type == PC_REC_EVENT ? 8 : 0;
    memset (data, 'A' + i, sizeof data);
    pc_rec_encode (&r, data, rh);
    ck_assert_int_eq (pc_write_all (fd, rh, sizeof rh), 0);
    ck_assert_int_eq (pc_write_all (fd, data, r.datalen), 0);
  }
  close (fd);
  ck_assert_int_eq (pc_index_load (lpath, &lix), 0);
  ck_assert_uint_eq (lix.n, 8);
  ck_assert_int_eq (pc_states_enumerate (&lix, &m, 0, &st, &n), 0);
  ck_assert_uint_eq (n, 2);
  ck_assert_int_eq (pc_states_moments (&lix, st, n, mom), 0);
  /* 0..1 is on the disk until the flush at 4 is answered (6): the event
   * at 5 happened while it was */
  ck_assert_uint_eq (st[0].point, 1);
  ck_assert_uint_eq (mom[0], 5);
  ck_assert_uint_eq (mom[1], 7);
  pc_states_free (st, n);
  pc_index_free (&lix);
  unlink (lpath);
  /* the same moments without DONE records: at the flush itself */
  ck_assert_int_eq (pc_states_enumerate (&ix, &m, 0, &st, &n), 0);
  ck_assert_int_eq (pc_states_moments (&ix, st, n, mom), 0);
  ck_assert_uint_eq (st[0].point, 2);             /* "2 4 7" */
  ck_assert_uint_eq (mom[0], 3);                  /* until the FUA write at 4 */
  pc_states_free (st, n);
}
END_TEST

START_TEST (test_reorder)
{
  /* At 6 the in-flight writes are 3 and 5 (4 is FUA: durable). */
  expect ("reorder:2", 0,
          "0 1 1/drop:0 2 3 4 4/drop:3 5 5/drop:3 6 6/drop:3 6/drop:5 6/drop:3,5 7");
  expect ("reorder:2", 3, "3 4 4/drop:3 5 5/drop:3 6 6/drop:3 6/drop:5 6/drop:3,5 7");
  /* K = 1: two in flight at 6 is over K: keep all, drop all. */
  expect ("reorder:1", 5, "5 5/drop:3 6 6/drop:3,5 7");
}
END_TEST

START_TEST (test_torn)
{
  /* Record 5 has two sectors: each alone may persist. */
  expect ("torn:2", 5, "5 5/drop:3 5/torn:0 5/torn:1 6 6/drop:3 6/drop:5 6/drop:3,5 7");
}
END_TEST

START_TEST (test_models_parse)
{
  struct pc_model m;

  ck_assert_int_eq (pc_model_spec_parse ("reorder", &m, NULL), 0);
  ck_assert_uint_eq (m.k, PC_MODEL_DEFAULT_K);
  ck_assert_int_eq (pc_model_spec_parse ("torn:7", &m, NULL), 0);
  ck_assert_uint_eq (m.k, 7);
  ck_assert_int_eq (pc_model_spec_parse ("flush:2", &m, NULL), -EINVAL);
  ck_assert_int_eq (pc_model_spec_parse ("reorder:", &m, NULL), -EINVAL);
  ck_assert_int_eq (pc_model_spec_parse ("reorder:99", &m, NULL), -EINVAL);
  ck_assert_int_eq (pc_model_spec_parse ("bogus", &m, NULL), -EINVAL);
}
END_TEST

/* The table of models: every entry parses back to itself, takes :K or
 * not as it says, and has a name, a line of help and its states. */
START_TEST (test_models_table)
{
  const struct pc_model_info *mi;
  struct pc_err err = { "" };
  struct pc_model m;
  char spec[64], names[256];
  size_t i;

  for (i = 0; (mi = pc_model_info (i)) != NULL; i++) {
    struct pc_state *s;
    size_t n;
    ck_assert_int_eq (pc_model_spec_parse (mi->name, &m, &err), 0);
    ck_assert_int_eq (m.kind, mi->kind);
    ck_assert_uint_eq (m.k, PC_MODEL_DEFAULT_K);
    ck_assert_uint_eq (m.seed, 0);
    ck_assert_str_eq (pc_model_name (mi->kind), mi->name);
    ck_assert (mi->what != NULL && mi->what[0] != '\0' && strlen (mi->what) <= 42);
    snprintf (spec, sizeof spec, "%s:3", mi->name);
    ck_assert_int_eq (pc_model_spec_parse (spec, &m, &err), mi->takes_k ? 0 : -EINVAL);
    if (mi->takes_k)
      ck_assert_uint_eq (m.k, 3);
    ck_assert_int_eq (pc_states_enumerate (&ix, &m, 0, &s, &n), 0);
    ck_assert_uint_ge (n, 1);
    pc_states_free (s, n);
  }
  ck_assert_uint_eq (i, 4);
  ck_assert_str_eq (pc_model_names (names, sizeof names),
                    "flush, write, reorder[:K] or torn[:K]");
  /* cut short, still a string */
  ck_assert_str_eq (pc_model_names (names, 8), "flush, ");
}
END_TEST

START_TEST (test_models_spec_errors)
{
  static const char *const bad[] = {
    "flush:2", "write:0", "reorder:", "reorder:99", "reorder:17", "reorder:-1", "reorder:2x",
    "torn:+3", "bogus", "", "Flush", "reorders", "torn:2:3",
  };
  struct pc_err err;
  struct pc_model m = { PC_MODEL_WRITE, 9, 77 }, was = m;

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    strcpy (err.msg, "untouched");
    ck_assert_msg (pc_model_spec_parse (bad[i], &m, &err) == -EINVAL, "%s parses", bad[i]);
    ck_assert_str_eq (err.msg, "not flush, write, reorder[:K] or torn[:K] (K <= 16)");
    ck_assert (memcmp (&m, &was, sizeof m) == 0);
  }
  /* no err: no reason, same answer */
  ck_assert_int_eq (pc_model_spec_parse ("bogus", &m, NULL), -EINVAL);
  ck_assert_int_eq (pc_model_spec_parse ("reorder:16", &m, NULL), 0);
  ck_assert_uint_eq (m.k, 16);
  ck_assert_int_eq (pc_model_spec_parse ("torn:0", &m, NULL), 0);
  ck_assert_int_eq (m.kind, PC_MODEL_TORN);
  ck_assert_uint_eq (m.k, 0);
}
END_TEST

/* --help's lines: one per model, its name (":K" if it takes one) in a
 * column, then what it is. */
START_TEST (test_models_help)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);

  ck_assert_ptr_nonnull (f);
  pc_model_help (f, "  ");
  ck_assert_int_eq (fclose (f), 0);
  ck_assert_str_eq (buf,
                    "  flush      a state at each flush and FUA write\n"
                    "  write      a state after every record\n"
                    "  reorder:K  any of the writes since a flush are lost\n"
                    "  torn:K     reorder, and a write torn in its sectors\n");
  free (buf);
}
END_TEST

/* Builds id into a fresh image and returns the byte at each 512-byte sector
 * of the first 3 KiB ('.' for zero). */
static void
image_of (const char *id, char out[7])
{
  struct pc_state s;
  struct pc_image *im;
  struct pc_err why;
  uint64_t cursor = 0;

  ck_assert_msg (pc_state_parse (&ix, id, &s, &why) == 0, "%s: %s", id, why.msg);
  ck_assert_int_eq (pc_image_new (ix.hdr.devsize, NULL, -1, PC_IMAGE_HASH, &im), 0);
  ck_assert_int_ge (pc_state_build (&ix, &s, im, &cursor), 0);
  for (int i = 0; i < 6; i++) {
    uint8_t b = pc_image_data (im)[i * 512];
    out[i] = b ? (char) b : '.';
  }
  out[6] = '\0';
  pc_image_free (im);
  pc_state_clear (&s);
}

START_TEST (test_images)
{
  char img[7];

  image_of ("6", img);
  ck_assert_str_eq (img, "ABGEFF");
  image_of ("6/drop:3", img);          /* 6 overwrites 3 anyway */
  ck_assert_str_eq (img, "ABGEFF");
  image_of ("6/drop:5", img);
  ck_assert_str_eq (img, "ABGE..");
  image_of ("5/drop:3", img);
  ck_assert_str_eq (img, "AB.EFF");
  image_of ("5/torn:1", img);
  ck_assert_str_eq (img, "ABDE.F");
  image_of ("end", img);
  ck_assert_str_eq (img, "ABGEFF");
  image_of ("1/drop:0", img);
  ck_assert_str_eq (img, ".B....");
}
END_TEST

START_TEST (test_parse_errors)
{
  struct pc_state s;
  struct pc_err why;

  ck_assert_int_eq (pc_state_parse (&ix, "8", &s, &why), -EINVAL);        /* beyond the end */
  ck_assert_int_eq (pc_state_parse (&ix, "6/drop:4", &s, &why), -EINVAL); /* FUA is durable */
  ck_assert_int_eq (pc_state_parse (&ix, "6/drop:1", &s, &why), -EINVAL); /* before the flush */
  ck_assert_int_eq (pc_state_parse (&ix, "6/drop:6", &s, &why), -EINVAL); /* the point itself */
  ck_assert_int_eq (pc_state_parse (&ix, "5/torn:2", &s, &why), -EINVAL); /* two sectors only */
  ck_assert_int_eq (pc_state_parse (&ix, "2/torn:0", &s, &why), -EINVAL); /* a flush */
  ck_assert_int_eq (pc_state_parse (&ix, "6/drop:5,3", &s, &why), -EINVAL);
  ck_assert_int_eq (pc_state_parse (&ix, "mark:x", &s, &why), -EINVAL);
  ck_assert_int_eq (pc_state_parse (&ix, "6x", &s, &why), -EINVAL);
  ck_assert_int_eq (pc_state_parse (&ix, "6/state:0/flush/seed:0", &s, &why), -EINVAL);
  ck_assert_int_eq (pc_state_parse (&ix, "6/state:99/reorder:2/seed:0", &s, &why), -EINVAL);
  ck_assert_int_eq (pc_state_parse (&ix, "6/state:0/reorder:2", &s, &why), -EINVAL);
  ck_assert_int_eq (pc_state_parse (&ix, "6/state:0/reorder:2/seed:x", &s, &why), -EINVAL);
  ck_assert_int_eq (pc_state_parse (&ix, "6/state:1/reorder:2/seed:0", &s, &why), 0);
  pc_state_clear (&s);
  ck_assert_int_eq (pc_state_parse (&ix, "6/drop:3-5", &s, &why), -EINVAL); /* 4 is FUA */
}
END_TEST

/* Is a the same state as b: the same records applied (the base only says
 * which of them need no look at the drops)? */
static bool
same_state (const struct pc_state *a, const struct pc_state *b)
{
  return a->point == b->point && a->ndrop == b->ndrop &&
         a->nsect == b->nsect &&
         (a->ndrop == 0 || memcmp (a->drop, b->drop, a->ndrop * sizeof *a->drop) == 0) &&
         (a->nsect == 0 || memcmp (a->sectors, b->sectors, a->nsect) == 0);
}

/* Every id reads back as its state: on a log of 300 writes in one epoch,
 * where most reorder states drop too many records for PC_ID_MAX and are
 * named by their number at their point instead; torn's too. */
START_TEST (test_long_ids)
{
  char lpath[64] = "/tmp/check_crash_long.XXXXXX";
  const char *models[] = { "reorder:3", "torn:2" };
  struct pc_log_header h = { 0 };
  uint8_t buf[PC_LOG_HEADER_SIZE], data[1024];
  struct pc_index lix;
  int fd = mkstemp (lpath);

  ck_assert_int_ge (fd, 0);
  h.version = PC_LOG_VERSION;
  h.devsize = 1 << 20;
  h.sector = 512;
  pc_log_header_encode (&h, buf);
  ck_assert_int_eq (pc_write_all (fd, buf, sizeof buf), 0);
  for (unsigned i = 0; i <= 300; i++) {
    struct pc_record r = { 0 };
    uint8_t rh[PC_REC_HEADER_SIZE];
    r.type = i < 300 ? PC_REC_WRITE : PC_REC_FLUSH;
    r.seq = i;
    r.offset = (uint64_t) i * 1024;
    r.length = r.type == PC_REC_WRITE ? 1024 : 0;
    r.datalen = r.length;
    memset (data, (int) i, sizeof data);
    pc_rec_encode (&r, data, rh);
    ck_assert_int_eq (pc_write_all (fd, rh, sizeof rh), 0);
    ck_assert_int_eq (pc_write_all (fd, data, r.datalen), 0);
  }
  close (fd);
  ck_assert_int_eq (pc_index_load (lpath, &lix), 0);
  for (size_t k = 0; k < 2; k++) {
    struct pc_model m;
    struct pc_state *st;
    size_t n, nshort = 0;
    ck_assert_int_eq (pc_model_spec_parse (models[k], &m, NULL), 0);
    m.seed = 7;
    ck_assert_int_eq (pc_states_enumerate (&lix, &m, 0, &st, &n), 0);
    for (size_t i = 0; i < n; i++) {
      char id[PC_ID_MAX];
      struct pc_state back;
      struct pc_err why;
      pc_state_id (&st[i], &m, id, sizeof id);
      ck_assert_msg (strstr (id, "...") == NULL, "%s: cut", id);
      nshort += strstr (id, "/state:") != NULL;
      ck_assert_msg (pc_state_parse (&lix, id, &back, &why) == 0, "%s: %s", id, why.msg);
      ck_assert_msg (same_state (&st[i], &back), "%s: another state", id);
      pc_state_clear (&back);
    }
    ck_assert_uint_gt (nshort, 100);
    pc_states_free (st, n);
  }
  pc_index_free (&lix);
  unlink (lpath);
}
END_TEST

/* Identical images have identical signatures, whatever the path to them. */
START_TEST (test_signatures)
{
  const char *ids[] = { "6/drop:5", "6/drop:3,5", "6", "6/drop:3" };
  uint8_t sig[4][16];

  for (int i = 0; i < 4; i++) {
    struct pc_state s;
    struct pc_image *im;
    struct pc_err why;
    uint64_t cursor = 0;
    ck_assert_int_eq (pc_state_parse (&ix, ids[i], &s, &why), 0);
    ck_assert_int_eq (pc_image_new (ix.hdr.devsize, NULL, -1, PC_IMAGE_HASH, &im), 0);
    ck_assert_int_ge (pc_state_build (&ix, &s, im, &cursor), 0);
    pc_image_signature (im, sig[i]);
    pc_image_free (im);
    pc_state_clear (&s);
  }
  ck_assert_mem_eq (sig[0], sig[1], 16);
  ck_assert_mem_eq (sig[2], sig[3], 16);
  ck_assert (memcmp (sig[0], sig[2], 16) != 0);
}
END_TEST

/* An overlay puts back exactly what it changed. */
START_TEST (test_overlay_undo)
{
  struct pc_state s;
  struct pc_image *im;
  struct pc_err why;
  uint64_t cursor = 0;
  uint8_t before[16], after[16];
  int r;

  ck_assert_int_eq (pc_image_new (ix.hdr.devsize, NULL, -1, PC_IMAGE_HASH, &im), 0);
  ck_assert_int_eq (pc_state_parse (&ix, "6/drop:5", &s, &why), 0);
  r = pc_state_build (&ix, &s, im, &cursor);
  ck_assert_int_eq (r, 1);
  ck_assert_uint_eq (cursor, 3);
  ck_assert_int_eq (pc_image_overlay_end (im), 0);
  pc_image_signature (im, before);
  pc_state_clear (&s);
  ck_assert_int_eq (pc_state_parse (&ix, "2", &s, &why), 0);
  cursor = 0;
  {
    struct pc_image *im2;
    ck_assert_int_eq (pc_image_new (ix.hdr.devsize, NULL, -1, PC_IMAGE_HASH, &im2), 0);
    ck_assert_int_eq (pc_state_build (&ix, &s, im2, &cursor), 0);
    pc_image_signature (im2, after);
    pc_image_free (im2);
  }
  ck_assert_mem_eq (before, after, 16);
  pc_state_clear (&s);
  pc_image_free (im);
}
END_TEST

/* powercut replay's image file: the state's sectors, and its errors. */
START_TEST (test_replay_write)
{
  char out[64] = "/tmp/check_crash_img.XXXXXX", want[256], got[7];
  struct pc_replay_config cfg = { .log_path = path, .at = "6/drop:5", .out_path = out };
  struct pc_err err = { "" };
  uint8_t buf[3072];
  FILE *f;
  int fd = mkstemp (out);

  ck_assert_int_ge (fd, 0);
  close (fd);
  ck_assert_msg (pc_replay_write (&cfg, &err) == 0, "%s", err.msg);
  f = fopen (out, "re");
  ck_assert_ptr_nonnull (f);
  ck_assert_uint_eq (fread (buf, 1, sizeof buf, f), sizeof buf);
  fclose (f);
  for (int i = 0; i < 6; i++)
    got[i] = buf[i * 512] ? (char) buf[i * 512] : '.';
  got[6] = '\0';
  ck_assert_str_eq (got, "ABGE..");

  cfg.at = "8";
  ck_assert_int_eq (pc_replay_write (&cfg, &err), -EINVAL);
  ck_assert_str_eq (err.msg, "--at 8: beyond the last record of the log");
  cfg.at = "end";
  cfg.base_path = out;
  ck_assert_int_eq (pc_replay_write (&cfg, &err), -EINVAL);
  snprintf (want, sizeof want, "%s: the recording started from zeros, not a base image", out);
  ck_assert_str_eq (err.msg, want);
  cfg.base_path = NULL;
  cfg.out_path = "/tmp";
  ck_assert_int_eq (pc_replay_write (&cfg, &err), -EINVAL);
  ck_assert_str_eq (err.msg, "/tmp: not a regular file");
  cfg.out_path = "/nonexistent/x.img";
  ck_assert_int_eq (pc_replay_write (&cfg, &err), -ENOENT);
  ck_assert_str_eq (err.msg, "/nonexistent/x.img: No such file or directory");
  cfg.log_path = "/nonexistent/x.pclog";
  ck_assert_int_eq (pc_replay_write (&cfg, &err), -ENOENT);
  ck_assert_str_eq (err.msg, "/nonexistent/x.pclog: No such file or directory");
  unlink (out);
}
END_TEST

int
main (void)
{
  Suite *su = suite_create ("crash");
  TCase *tc = tcase_create ("models");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_flush_and_write);
  tcase_add_test (tc, test_start_state);
  tcase_add_test (tc, test_moments_done);
  tcase_add_test (tc, test_reorder);
  tcase_add_test (tc, test_torn);
  tcase_add_test (tc, test_models_parse);
  tcase_add_test (tc, test_models_table);
  tcase_add_test (tc, test_models_spec_errors);
  tcase_add_test (tc, test_models_help);
  tcase_add_test (tc, test_images);
  tcase_add_test (tc, test_parse_errors);
  tcase_add_test (tc, test_long_ids);
  tcase_add_test (tc, test_signatures);
  tcase_add_test (tc, test_overlay_undo);
  tcase_add_test (tc, test_replay_write);
  suite_add_tcase (su, tc);
  return pc_unit_run (su);
}
