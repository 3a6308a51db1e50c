/* check_replay.c: unit tests of lib/replay/replay: the image of a crash
 * point written from a log, byte for byte, and what a replay that cannot
 * be done leaves (nothing). */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/log.h"
#include "replay/replay.h"
#include "util/util.h"
#include "unit.h"

#define DEV (64 * 1024)

static char dir[] = "/tmp/check_replay.XXXXXX";
static char logp[256], imgp[256];

/* A log of a 64 KiB device: write 'a' at 0, flush, write 'b' at 4096 and
 * 'c' over 0, flush, trim 4096, end.  Records 0..5. */
static void
make_log (void)
{
  struct pc_log_header h = { 0 };
  uint8_t *buf = malloc (1 << 16), data[4096];
  size_t len;
  int fd;

  ck_assert_ptr_nonnull (mkdtemp (dir));
  snprintf (logp, sizeof logp, "%s/log", dir);
  snprintf (imgp, sizeof imgp, "%s/state.img", dir);
  h.version = PC_LOG_VERSION;
  h.compat = PC_LOG_COMPAT_HDRSUM;
  h.devsize = DEV;
  h.sector = 512;
  pc_log_header_encode (&h, buf);
  len = PC_LOG_HEADER_SIZE;
  for (unsigned i = 0; i < 7; i++) {
    static const struct { int type; char fill; uint64_t off; } rs[] = {
      { PC_REC_WRITE, 'a', 0 }, { PC_REC_FLUSH, 0, 0 }, { PC_REC_WRITE, 'b', 4096 },
      { PC_REC_WRITE, 'c', 0 }, { PC_REC_FLUSH, 0, 0 }, { PC_REC_TRIM, 0, 4096 },
      { PC_REC_END, 0, 0 },
    };
    struct pc_record r = { 0 };
    r.seq = i;
    r.time_ns = 1000 * i;
    r.conn = 1;
    r.type = (uint16_t) rs[i].type;
    r.offset = rs[i].off;
    if (rs[i].type == PC_REC_WRITE) {
      memset (data, rs[i].fill, sizeof data);
      r.length = r.datalen = sizeof data;
    }
    else if (rs[i].type == PC_REC_TRIM)
      r.length = 4096;
    pc_rec_encode (&r, r.datalen ? data : NULL, buf + len);
    len += PC_REC_HEADER_SIZE;
    if (r.datalen) {
      memcpy (buf + len, data, r.datalen);
      len += r.datalen;
    }
  }
  fd = open (logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (pc_write_all (fd, buf, len), 0);
  close (fd);
  free (buf);
}

static void
cleanup (void)
{
  unlink (logp);
  unlink (imgp);
  rmdir (dir);
  strcpy (dir, "/tmp/check_replay.XXXXXX");
}

/* The image's byte at off. */
static int
byte_at (uint64_t off)
{
  uint8_t c;
  int fd = open (imgp, O_RDONLY);

  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (pc_pread_all (fd, &c, 1, off), 0);
  close (fd);
  return c;
}

static int
replay (const char *at, struct pc_err *err)
{
  struct pc_replay_config cfg = { logp, at, NULL, imgp, 0 };

  return pc_replay_write (&cfg, err);
}

START_TEST (test_points)
{
  struct pc_err err;
  struct stat st;

  make_log ();
  ck_assert_msg (replay ("1", &err) == 0, "%s", err.msg);
  ck_assert_int_eq (stat (imgp, &st), 0);
  ck_assert_int_eq (st.st_size, DEV);
  ck_assert_int_eq (st.st_mode & 0777, 0600);
  ck_assert_int_eq (byte_at (0), 'a');
  ck_assert_int_eq (byte_at (4096), 0);
  /* replaced whole by a later point */
  ck_assert_msg (replay ("3", &err) == 0, "%s", err.msg);
  ck_assert_int_eq (byte_at (0), 'c');
  ck_assert_int_eq (byte_at (4096), 'b');
  /* a reorder state: the write of 'b' lost, 'c' kept */
  ck_assert_msg (replay ("3/drop:2", &err) == 0, "%s", err.msg);
  ck_assert_int_eq (byte_at (0), 'c');
  ck_assert_int_eq (byte_at (4096), 0);
  /* the end: trimmed to zeros */
  ck_assert_msg (replay ("end", &err) == 0, "%s", err.msg);
  ck_assert_int_eq (byte_at (0), 'c');
  ck_assert_int_eq (byte_at (4096), 0);
  cleanup ();
}
END_TEST

START_TEST (test_failures)
{
  struct pc_err err;
  int fd;

  make_log ();
  /* not a point of the log: no image at all */
  ck_assert_int_eq (replay ("99", &err), -EINVAL);
  ck_assert_int_ne (access (imgp, F_OK), 0);
  /* an image there stays as it was */
  fd = open (imgp, O_WRONLY | O_CREAT, 0644);
  ck_assert_int_eq (pc_write_all (fd, "old", 3), 0);
  close (fd);
  ck_assert_int_lt (replay ("mark:none", &err), 0);
  ck_assert_int_eq (byte_at (0), 'o');
  /* not a log */
  unlink (logp);
  ck_assert_int_lt (replay ("1", &err), 0);
  ck_assert (strstr (err.msg, logp) != NULL);
  ck_assert_int_eq (byte_at (0), 'o');
  cleanup ();
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("replay");
  TCase *tc = tcase_create ("image");

  tcase_add_test (tc, test_points);
  tcase_add_test (tc, test_failures);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
