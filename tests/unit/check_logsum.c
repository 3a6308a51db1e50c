/* check_logsum.c: unit tests of lib/format/logsum: a log's records by
 * type, FUA, bytes, connections, flush epochs and marks summed up, and
 * how it ends: cleanly, cut, torn inside a record, corrupt; a mark that
 * does not decode; a file that is not a log. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/logsum.h"
#include "util/util.h"
#include "unit.h"

static char path[] = "/tmp/check_logsum.XXXXXX";
static uint8_t *image;
static size_t image_len;
static size_t rec_end[16];    /* the file offset after each record */

/* A real mark: name, sync, two entries and one durable path. */
static uint8_t *
mark_payload (const char *name, size_t *ret_len)
{
  struct pc_mark m = { 0 };
  struct pc_entry e = { 0 };
  size_t cap = 0;
  uint8_t *buf;

  m.name = strdup (name);
  m.flags = PC_MARK_F_SYNC | PC_MARK_F_MANIFEST;
  e.type = PC_ENTRY_DIR;
  e.mode = 040755;
  e.path = strdup ("d");
  ck_assert_int_eq (pc_mark_add_entry (&m, &cap, &e), 0);
  e.type = PC_ENTRY_FILE;
  e.mode = 0100644;
  e.path = strdup ("d/f");
  ck_assert_int_eq (pc_mark_add_entry (&m, &cap, &e), 0);
  ck_assert_int_eq (pc_mark_add_durable (&m, "d/f"), 0);
  ck_assert_int_eq (pc_mark_encode (&m, &buf, ret_len), 0);
  pc_mark_free (&m);
  return buf;
}

/* The log of every test (conn, type):
 *   0 1 write 4096        1 2 write 512 FUA      2 1 flush
 *   3 0 mark "one" (sync, 2 paths, 1 durable)    4 3 trim 8192
 *   5 2 write-zeroes FUA no-hole                 6 0 mark (not a mark)
 *   7 1 flush              8 0 end */
static void
build (void)
{
  static const struct { int type; uint32_t conn, len; uint16_t flags; } recs[] = {
    { PC_REC_WRITE, 1, 4096, 0 }, { PC_REC_WRITE, 2, 512, PC_REC_F_FUA },
    { PC_REC_FLUSH, 1, 0, 0 }, { PC_REC_MARK, 0, 0, 0 }, { PC_REC_TRIM, 3, 8192, 0 },
    { PC_REC_WRITE_ZEROES, 2, 4096, PC_REC_F_FUA | PC_REC_F_NO_HOLE },
    { PC_REC_MARK, 0, 0, 0 }, { PC_REC_FLUSH, 1, 0, 0 }, { PC_REC_END, 0, 0, 0 },
  };
  static const uint8_t junk[] = "not a mark at all, just bytes";
  struct pc_log_header h = { 0 };
  uint8_t data[4096], *mark;
  size_t marklen;

  free (image);
  image = malloc (1 << 16);
  h.version = PC_LOG_VERSION;
  h.compat = PC_LOG_COMPAT_HDRSUM;
  h.devsize = 1 << 20;
  h.sector = 512;
  h.start_ns = UINT64_C(1700000000) * 1000000000u;
  pc_log_header_encode (&h, image);
  image_len = PC_LOG_HEADER_SIZE;
  mark = mark_payload ("one", &marklen);
  memset (data, 'x', sizeof data);
  for (unsigned i = 0; i < PC_ARRAY_SIZE (recs); i++) {
    struct pc_record r = { 0 };
    const void *payload = NULL;
    r.seq = i;
    r.time_ns = 1000000 * (i + 1);
    r.conn = recs[i].conn;
    r.type = recs[i].type;
    r.flags = recs[i].flags;
    r.length = recs[i].len;
    if (r.type == PC_REC_WRITE) {
      r.datalen = r.length;
      payload = data;
    }
    else if (r.type == PC_REC_MARK) {
      r.datalen = i == 3 ? (uint32_t) marklen : sizeof junk;
      payload = i == 3 ? (const void *) mark : junk;
    }
    pc_rec_encode (&r, payload, image + image_len);
    image_len += PC_REC_HEADER_SIZE;
    if (r.datalen > 0)
      memcpy (image + image_len, payload, r.datalen);
    image_len += r.datalen;
    rec_end[i] = image_len;
  }
  free (mark);
}

/* Writes the first len bytes of the log to path. */
static void
write_log (size_t len)
{
  int fd;

  strcpy (path, "/tmp/check_logsum.XXXXXX");
  fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (pc_write_all (fd, image, len), 0);
  close (fd);
}

START_TEST (test_summary)
{
  struct pc_log_summary s;
  struct pc_err err = { "" };

  build ();
  write_log (image_len);
  ck_assert_msg (pc_log_summarize (path, &s, &err) == 0, "%s", err.msg);
  unlink (path);
  ck_assert_uint_eq (s.hdr.devsize, 1 << 20);
  ck_assert_uint_eq (s.hdr.start_ns, UINT64_C(1700000000) * 1000000000u);
  ck_assert_uint_eq (s.records, 9);
  ck_assert_uint_eq (s.count[PC_REC_WRITE], 2);
  ck_assert_uint_eq (s.fua[PC_REC_WRITE], 1);
  ck_assert_uint_eq (s.count[PC_REC_FLUSH], 2);
  ck_assert_uint_eq (s.count[PC_REC_TRIM], 1);
  ck_assert_uint_eq (s.count[PC_REC_WRITE_ZEROES], 1);
  ck_assert_uint_eq (s.fua[PC_REC_WRITE_ZEROES], 1);
  ck_assert_uint_eq (s.count[PC_REC_MARK], 2);
  ck_assert_uint_eq (s.count[PC_REC_END], 1);
  ck_assert_uint_eq (s.bytes, 4096 + 512);      /* writes only */
  ck_assert_uint_eq (s.last_ns, 9000000);
  ck_assert_uint_eq (s.conns, 3);               /* 1, 2 and 3; 0 is none */
  ck_assert_uint_eq (s.epochs, 3);
  ck_assert_uint_eq (s.nmarks, 2);
  ck_assert (!s.marks[0].bad);
  ck_assert_str_eq (s.marks[0].name, "one");
  ck_assert_uint_eq (s.marks[0].seq, 3);
  ck_assert_uint_eq (s.marks[0].time_ns, 4000000);
  ck_assert_uint_eq (s.marks[0].nentries, 2);
  ck_assert_uint_eq (s.marks[0].ndurable, 1);
  ck_assert (s.marks[0].sync);
  ck_assert (s.marks[1].bad);
  ck_assert_uint_eq (s.marks[1].seq, 6);
  ck_assert_str_eq (s.marks[1].name, "");
  /* the first mark that does not decode, and why */
  ck_assert (s.bad_mark);
  ck_assert_uint_eq (s.bad_mark_seq, 6);
  ck_assert_str_ne (s.bad_mark_why, "");
  ck_assert_int_eq (s.ending.end, PC_END_CLEAN);
  ck_assert_uint_eq (s.ending.records, 9);
  ck_assert_uint_eq (s.ending.file_size, image_len);
  pc_log_summary_free (&s);
  ck_assert_ptr_null (s.marks);
}
END_TEST

START_TEST (test_endings)
{
  struct pc_log_summary s;
  struct pc_err err = { "" };

  build ();
  /* cut after record 7: no end record */
  write_log (rec_end[7]);
  ck_assert_int_eq (pc_log_summarize (path, &s, &err), 0);
  unlink (path);
  ck_assert_int_eq (s.ending.end, PC_END_CUT);
  ck_assert_uint_eq (s.records, 8);
  ck_assert_uint_eq (s.ending.records, 8);
  pc_log_summary_free (&s);
  /* torn inside record 5 */
  write_log (rec_end[4] + 20);
  ck_assert_int_eq (pc_log_summarize (path, &s, &err), 0);
  unlink (path);
  ck_assert_int_eq (s.ending.end, PC_END_TORN);
  ck_assert_uint_eq (s.records, 5);
  ck_assert_uint_eq (s.ending.offset, rec_end[4]);
  ck_assert_uint_eq (s.ending.file_size, rec_end[4] + 20);
  ck_assert_str_ne (s.ending.reason, "");
  pc_log_summary_free (&s);
  /* record 2 corrupt: the summary stops there, and says why */
  image[rec_end[1] + 8] ^= 0x40;
  write_log (image_len);
  ck_assert_int_eq (pc_log_summarize (path, &s, &err), 0);
  unlink (path);
  ck_assert_int_eq (s.ending.end, PC_END_CORRUPT);
  ck_assert_uint_eq (s.records, 2);
  ck_assert_msg (strstr (s.ending.corrupt, "record 2") != NULL, "%s", s.ending.corrupt);
  pc_log_summary_free (&s);
}
END_TEST

START_TEST (test_not_a_log)
{
  struct pc_log_summary s;
  struct pc_err err = { "" };
  char want[128];

  build ();
  memset (image, 0, 16);
  write_log (image_len);
  ck_assert_int_eq (pc_log_summarize (path, &s, &err), -EBADMSG);
  snprintf (want, sizeof want, "%s: not a powercut log (bad header)", path);
  ck_assert_str_eq (err.msg, want);
  unlink (path);
  ck_assert_int_eq (pc_log_summarize (path, &s, &err), -ENOENT);
  snprintf (want, sizeof want, "%s: No such file or directory", path);
  ck_assert_str_eq (err.msg, want);
}
END_TEST

/* A mark record read alone, good and bad. */
START_TEST (test_mark_read)
{
  struct pc_log_mark m;
  struct pc_record r = { 0 };
  struct pc_err err = { "" };
  size_t len;
  uint8_t *p = mark_payload ("m-2.x", &len);

  r.type = PC_REC_MARK;
  r.seq = 12;
  r.time_ns = 34;
  r.data = p;
  r.datalen = (uint32_t) len;
  ck_assert_int_eq (pc_log_mark_read (&r, &m, &err), 0);
  ck_assert_str_eq (m.name, "m-2.x");
  ck_assert_uint_eq (m.seq, 12);
  ck_assert_uint_eq (m.time_ns, 34);
  ck_assert (!m.bad && m.sync);
  r.datalen = 10;
  ck_assert_int_eq (pc_log_mark_read (&r, &m, &err), -EBADMSG);
  ck_assert (m.bad);
  ck_assert_uint_eq (m.seq, 12);
  ck_assert_str_ne (err.msg, "");
  free (p);
}
END_TEST

int
main (void)
{
  Suite *su = suite_create ("logsum");
  TCase *tc = tcase_create ("summary");

  tcase_add_test (tc, test_summary);
  tcase_add_test (tc, test_endings);
  tcase_add_test (tc, test_not_a_log);
  tcase_add_test (tc, test_mark_read);
  suite_add_tcase (su, tc);
  return pc_unit_run (su);
}
