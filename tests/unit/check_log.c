/* check_log.c: unit tests of lib/log: encoding, reading, torn and corrupt ends. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY   /* the library's plain XXH3, not lib/util/xxh.h's */
#include <xxhash.h>

#include "format/log.h"
#include "util/util.h"
#include "unit.h"

static char path[] = "/tmp/check_log.XXXXXX";
static uint8_t *image;
static size_t image_len;
static size_t rec_end[8];     /* file offset after each record */
static size_t nrec;

/* Builds a log in memory: write, write(fua), flush, trim, mark, end. */
static void
build (bool with_end)
{
  struct pc_log_header h = { 0 };
  uint8_t data[4096];
  static const uint8_t mark[] = "fake-mark-payload";

  free (image);
  image = malloc (1 << 16);
  h.version = PC_LOG_VERSION;
  h.compat = PC_LOG_COMPAT_HDRSUM;
  h.devsize = 1 << 20;
  h.sector = 512;
  pc_log_header_encode (&h, image);
  image_len = PC_LOG_HEADER_SIZE;
  nrec = 0;
  for (unsigned i = 0; i < (with_end ? 6u : 5u); i++) {
    struct pc_record r = { 0 };
    const void *payload = NULL;
    r.seq = i;
    r.time_ns = 1000 * i;
    r.conn = 1;
    switch (i) {
    case 0: case 1:
      memset (data, 'a' + i, sizeof data);
      r.type = PC_REC_WRITE;
      r.offset = 4096 * i;
      r.length = r.datalen = sizeof data;
      r.flags = i == 1 ? PC_REC_F_FUA : 0;
      payload = data;
      break;
    case 2: r.type = PC_REC_FLUSH; break;
    case 3: r.type = PC_REC_TRIM; r.offset = 0; r.length = 4096; break;
    case 4: r.type = PC_REC_MARK; r.datalen = sizeof mark; payload = mark; break;
    case 5: r.type = PC_REC_END; break;
    }
    pc_rec_encode (&r, payload, image + image_len);
    image_len += PC_REC_HEADER_SIZE;
    if (r.datalen) {
      memcpy (image + image_len, payload, r.datalen);
      image_len += r.datalen;
    }
    rec_end[nrec++] = image_len;
  }
}

static struct pc_log *
open_prefix (size_t len)
{
  struct pc_log *log = NULL;
  int fd = mkstemp (path);

  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (pc_write_all (fd, image, len), 0);
  close (fd);
  ck_assert_int_eq (pc_log_open (path, &log), 0);
  unlink (path);
  strcpy (path, "/tmp/check_log.XXXXXX");
  return log;
}

/* Counts the records left; they must be numbered on from first. */
static size_t
count_from (struct pc_log *log, uint64_t first)
{
  struct pc_record r;
  size_t n = 0;

  while (pc_log_next (log, &r) == 1) {
    ck_assert_uint_eq (r.seq, first + n);
    n++;
  }
  return n;
}

static size_t
count (struct pc_log *log)
{
  return count_from (log, 0);
}

START_TEST (test_clean)
{
  struct pc_log *log;
  struct pc_record r;

  build (true);
  log = open_prefix (image_len);
  ck_assert_uint_eq (pc_log_get_header (log)->devsize, 1 << 20);
  ck_assert_int_eq (pc_log_next (log, &r), 1);
  ck_assert_int_eq (r.type, PC_REC_WRITE);
  ck_assert_uint_eq (r.length, 4096);
  ck_assert_uint_eq (r.data[0], 'a');
  ck_assert_int_eq (pc_log_next (log, &r), 1);
  ck_assert (r.flags & PC_REC_F_FUA);
  ck_assert_uint_eq (count_from (log, 2), 4);
  ck_assert_int_eq (pc_log_end_state (log, NULL, NULL, NULL), PC_END_CLEAN);
  pc_log_rewind (log);
  ck_assert_uint_eq (count (log), 6);
  pc_log_close (log);
}
END_TEST

/* A log cut at any byte reads back to its last whole record. */
START_TEST (test_cut_anywhere)
{
  build (true);
  for (size_t cut = PC_LOG_HEADER_SIZE; cut <= image_len; cut++) {
    struct pc_log *log = open_prefix (cut);
    size_t whole = 0;
    enum pc_log_end e;
    while (whole < nrec && rec_end[whole] <= cut)
      whole++;
    ck_assert_uint_eq (count (log), whole);
    e = pc_log_end_state (log, NULL, NULL, NULL);
    if (whole == nrec)
      ck_assert_int_eq (e, PC_END_CLEAN);
    else if (whole == 0 ? cut == PC_LOG_HEADER_SIZE : rec_end[whole - 1] == cut)
      ck_assert_int_eq (e, PC_END_CUT);
    else
      ck_assert_int_eq (e, PC_END_TORN);
    pc_log_close (log);
  }
}
END_TEST

/* Flipping any single byte of the records is detected, with record number
 * and offset. */
START_TEST (test_bit_flips)
{
  build (true);
  for (size_t pos = PC_LOG_HEADER_SIZE; pos < image_len; pos++) {
    struct pc_log *log;
    uint64_t seq, off;
    size_t victim = 0;
    image[pos] ^= 0x10;
    log = open_prefix (image_len);
    while (rec_end[victim] <= pos)
      victim++;
    ck_assert_uint_eq (count (log), victim);
    /* Damage, never taken for a torn end: the checksums catch it. */
    ck_assert_int_eq (pc_log_end_state (log, &seq, &off, NULL), PC_END_CORRUPT);
    ck_assert_uint_eq (seq, victim);
    ck_assert_uint_eq (off, victim ? rec_end[victim - 1] : PC_LOG_HEADER_SIZE);
    pc_log_close (log);
    image[pos] ^= 0x10;
  }
}
END_TEST

START_TEST (test_bad_header)
{
  struct pc_log_header h;
  int fd;
  struct pc_log *log;

  build (false);
  ck_assert_int_eq (pc_log_header_decode (image, image_len, &h), 0);
  image[30] ^= 1;
  ck_assert_int_eq (pc_log_header_decode (image, image_len, &h), -EBADMSG);
  image[30] ^= 1;
  /* A newer version is refused as such. */
  pc_put_le32 (image + 8, PC_LOG_VERSION + 1);
  pc_put_le64 (image + 248, 0);
  {
    struct pc_log_header nh = { 0 };
    nh.version = PC_LOG_VERSION + 1;
    nh.devsize = 1 << 20;
    nh.sector = 512;
    pc_log_header_encode (&nh, image);
  }
  ck_assert_int_eq (pc_log_header_decode (image, image_len, &h), -EPROTONOSUPPORT);
  fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (pc_write_all (fd, "hello", 5), 0);
  close (fd);
  ck_assert_int_eq (pc_log_open (path, &log), -EBADMSG);
  unlink (path);
  strcpy (path, "/tmp/check_log.XXXXXX");
}
END_TEST

/* The record checksums, hashed by lib/ through xxHash's dispatcher where
 * there is one, are the library's plain XXH3 of the same bytes. */
START_TEST (test_checksum_is_plain_xxh3)
{
  static const uint32_t sizes[] = { 0, 1, 47, 512, 4096, 65536, 1 << 20 };
  uint8_t *data = malloc (1 << 20), hdr[PC_REC_HEADER_SIZE];
  uint64_t st = 88172645463325252u;

  ck_assert_ptr_nonnull (data);
  for (uint32_t i = 0; i < (1u << 20); i++) {
    st ^= st << 13, st ^= st >> 7, st ^= st << 17;
    data[i] = (uint8_t) st;
  }
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    struct pc_record r = { .type = sizes[k] ? PC_REC_WRITE : PC_REC_FLUSH, .seq = k,
                           .offset = 4096 * k, .length = sizes[k], .datalen = sizes[k] };
    XXH3_state_t xs;

    pc_rec_encode (&r, data, hdr);
    ck_assert_uint_eq (pc_get_le32 (hdr + 44), (uint32_t) XXH3_64bits (hdr, 44));
    XXH3_64bits_reset (&xs);
    XXH3_64bits_update (&xs, hdr, 48);
    XXH3_64bits_update (&xs, data, sizes[k]);
    ck_assert_uint_eq (pc_get_le64 (hdr + 48), XXH3_64bits_digest (&xs));
  }
  free (data);
}
END_TEST

/* A log of one record of type type (payload "x") after a flush, with the
 * header's compat word compat; how it reads: the type of the second
 * record read, or -1 if only one was, and how the log ended. */
static int
read_typed (uint32_t compat, uint16_t type, uint32_t datalen, enum pc_log_end *ret_end)
{
  struct pc_log_header h = { 0 };
  struct pc_log *log;
  struct pc_record r;
  static const uint8_t x[8] = "x";
  int second = -1;

  free (image);
  image = malloc (1 << 12);
  h.version = PC_LOG_VERSION;
  h.compat = compat;
  h.devsize = 1 << 20;
  h.sector = 512;
  pc_log_header_encode (&h, image);
  image_len = PC_LOG_HEADER_SIZE;
  for (unsigned i = 0; i < 3; i++) {
    struct pc_record rec = { 0 };
    rec.seq = i;
    rec.type = i == 1 ? type : i == 0 ? PC_REC_FLUSH : PC_REC_END;
    rec.datalen = i == 1 ? datalen : 0;
    pc_rec_encode (&rec, x, image + image_len);
    image_len += PC_REC_HEADER_SIZE;
    memcpy (image + image_len, x, rec.datalen);
    image_len += rec.datalen;
  }
  log = open_prefix (image_len);
  ck_assert_int_eq (pc_log_next (log, &r), 1);
  if (pc_log_next (log, &r) == 1) {
    second = (int) r.type;
    ck_assert_uint_eq (r.datalen, datalen);
    while (pc_log_next (log, &r) == 1)
      ;
  }
  *ret_end = pc_log_end_state (log, NULL, NULL, NULL);
  pc_log_close (log);
  return second;
}

/* An event is a record a reader knows; a type it does not know is read
 * over only in a log whose compat word has a bit it does not know. */
/* The header's clock (CLOCK): written and read back only with its bit. */
START_TEST (test_header_clock)
{
  struct pc_log_header h = { 0 }, back;
  uint8_t buf[PC_LOG_HEADER_SIZE];

  h.version = PC_LOG_VERSION;
  h.compat = PC_LOG_COMPAT_HDRSUM | PC_LOG_COMPAT_CLOCK;
  h.devsize = 1 << 20;
  h.sector = 512;
  h.start_mono = 0x0123456789abcdefu;
  for (int i = 0; i < 16; i++)
    h.boot_id[i] = (uint8_t) (0xa0 + i);
  pc_log_header_encode (&h, buf);
  ck_assert_int_eq (pc_log_header_decode (buf, sizeof buf, &back), 0);
  ck_assert_uint_eq (back.start_mono, h.start_mono);
  ck_assert_mem_eq (back.boot_id, h.boot_id, 16);
  h.compat = PC_LOG_COMPAT_HDRSUM;
  pc_log_header_encode (&h, buf);
  ck_assert_int_eq (pc_log_header_decode (buf, sizeof buf, &back), 0);
  ck_assert_uint_eq (back.start_mono, 0);
  for (int i = 200; i < 248; i++)
    ck_assert_uint_eq (buf[i], 0);
  /* the running boot's id, as the recorder writes it */
  ck_assert_int_eq (pc_boot_id (h.boot_id), 0);
  ck_assert (memcmp (h.boot_id, (uint8_t[16]) { 0 }, 16) != 0);
}
END_TEST

START_TEST (test_record_types)
{
  enum pc_log_end end;

  ck_assert_int_eq (read_typed (PC_LOG_COMPAT_KNOWN, PC_REC_EVENT, 1, &end), PC_REC_EVENT);
  ck_assert_int_eq (end, PC_END_CLEAN);
  /* an event has a payload */
  ck_assert_int_eq (read_typed (PC_LOG_COMPAT_KNOWN, PC_REC_EVENT, 0, &end), -1);
  ck_assert_int_eq (end, PC_END_CORRUPT);
  /* type 9 in a log this reader fully knows: damage */
  ck_assert_int_eq (read_typed (PC_LOG_COMPAT_KNOWN, 9, 1, &end), -1);
  ck_assert_int_eq (end, PC_END_CORRUPT);
  /* ... in one a newer writer wrote: read over, and the END after it */
  ck_assert_int_eq (read_typed (PC_LOG_COMPAT_KNOWN | (1u << 30), 9, 1, &end), 9);
  ck_assert_int_eq (end, PC_END_CLEAN);
  /* type 0 is never a record */
  ck_assert_int_eq (read_typed (PC_LOG_COMPAT_KNOWN | (1u << 30), 0, 1, &end), -1);
  ck_assert_int_eq (end, PC_END_CORRUPT);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("log");
  TCase *tc = tcase_create ("reader");
  int failed;

  tcase_add_test (tc, test_clean);
  tcase_add_test (tc, test_cut_anywhere);
  tcase_add_test (tc, test_bit_flips);
  tcase_add_test (tc, test_bad_header);
  tcase_add_test (tc, test_checksum_is_plain_xxh3);
  tcase_add_test (tc, test_record_types);
  tcase_add_test (tc, test_header_clock);
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  failed = pc_unit_run (s);
  free (image);
  return failed;
}
