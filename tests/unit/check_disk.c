/* check_disk.c: the recorder's disk, its writes named in the log rather
 * than copied, against the plain disk that copies every write: the same
 * random writes, zeroes and reads, alone and over a base image, must read
 * back the same; and a base image read from the memo of an earlier read
 * (pc_image_remember) against a plain read of it. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/disk.h"
#include "util/util.h"
#include "unit.h"

#define SIZE (4u << 20)          /* 8192 sectors */
#define S PC_DISK_SECTOR

/* A xorshift generator: every run makes the same operations. */
static uint64_t
rnd (uint64_t *st)
{
  *st ^= *st << 13;
  *st ^= *st >> 7;
  *st ^= *st << 17;
  return *st;
}

/* A range in whole sectors: mostly small, sometimes pages, sometimes long. */
static void
pick (uint64_t *st, uint64_t *off, uint64_t *len)
{
  uint64_t max = (rnd (st) % 4 == 0) ? 512 : 16;

  *len = (1 + rnd (st) % max) * S;
  *off = (rnd (st) % (SIZE / S - *len / S + 1)) * S;
}

static int
pwrite_all (int fd, const void *buf, uint64_t len, uint64_t off)
{
  return pwrite (fd, buf, len, (off_t) off) == (ssize_t) len ? 0 : -EIO;
}

static char *
temp_file (int *fd)
{
  char *path = strdup ("/tmp/check_disk.XXXXXX");

  ck_assert (path != NULL);
  *fd = mkstemp (path);
  ck_assert_int_ge (*fd, 0);
  return path;
}

/* Runs ops random operations on plain and logged (which names its writes
 * in a log file, between junk that stands for record headers) and compares
 * random reads of both as it goes, and the whole disks at the end. */
static void
run_differential (struct pc_disk *plain, struct pc_disk *logged, uint64_t seed, int ops)
{
  uint64_t st = seed, log_end = 0;
  uint8_t *buf = malloc (512 * S), *a = malloc (SIZE), *b = malloc (SIZE);
  char *path;
  int fd;

  ck_assert (buf && a && b);
  path = temp_file (&fd);
  ck_assert_int_eq (pc_disk_use_log (logged, fd), 0);
  for (int i = 0; i < ops; i++) {
    uint64_t off, len, kind = rnd (&st) % 10, junk = rnd (&st) % 100;
    const uint8_t *mem;

    pick (&st, &off, &len);
    if (kind < 5) {                           /* a logged write */
      for (uint64_t k = 0; k < len; k++)
        buf[k] = (uint8_t) rnd (&st);
      ck_assert_int_eq (pwrite_all (fd, buf, junk, log_end), 0);
      ck_assert_int_eq (pwrite_all (fd, buf, len, log_end + junk), 0);
      pc_disk_write (plain, off, buf, len);
      pc_disk_write_logged (logged, off, len, log_end + junk);
      log_end += junk + len;
    }
    else if (kind < 6) {                      /* a write copied in */
      memset (buf, (int) (i & 0xff), len);
      pc_disk_write (plain, off, buf, len);
      pc_disk_write (logged, off, buf, len);
    }
    else if (kind < 7) {                      /* zeroes or a trim */
      pc_disk_zero (plain, off, len);
      pc_disk_zero (logged, off, len);
    }
    else {                                    /* a read of each */
      ck_assert_int_eq (pc_disk_read (plain, off, len, a), 0);
      ck_assert_int_eq (pc_disk_read (logged, off, len, b), 0);
      ck_assert (memcmp (a, b, len) == 0);
      ck_assert_int_eq (pc_disk_load (plain, off, len), 0);
      ck_assert (memcmp (pc_disk_mem (plain, off, len), a, len) == 0);
      ck_assert_int_eq (pc_disk_load (logged, off, len), 0);
      mem = pc_disk_mem (logged, off, len);
      ck_assert (mem == NULL || memcmp (mem, a, len) == 0);
    }
  }
  ck_assert_int_eq (pc_disk_read (plain, 0, SIZE, a), 0);
  ck_assert_int_eq (pc_disk_read (logged, 0, SIZE, b), 0);
  ck_assert (memcmp (a, b, SIZE) == 0);
  /* What the log cannot give back is an error, not old content. */
  for (uint64_t s = 0; s < SIZE / S; s++)
    if (pc_disk_mem (logged, s * S, S) == NULL) {
      ck_assert_int_eq (ftruncate (fd, 0), 0);
      ck_assert_int_eq (pc_disk_read (logged, s * S, S, b), -EIO);
      break;
    }
  close (fd);
  unlink (path);
  free (path);
  free (buf);
  free (a);
  free (b);
}

START_TEST (test_logged_matches_plain)
{
  struct pc_disk plain, logged;

  for (uint64_t seed = 1; seed <= 4; seed++) {
    ck_assert_int_eq (pc_disk_open_zero (&plain, SIZE), 0);
    ck_assert_int_eq (pc_disk_open_zero (&logged, SIZE), 0);
    run_differential (&plain, &logged, seed * 0x9e3779b97f4a7c15u, 3000);
    pc_disk_close (&plain);
    pc_disk_close (&logged);
  }
}
END_TEST

START_TEST (test_logged_matches_plain_over_base)
{
  struct pc_disk plain, logged;
  uint64_t st = 7;
  uint8_t *img = malloc (SIZE);
  char *path;
  int fd;

  ck_assert (img != NULL);
  /* A base with zero stretches (never read) and data (read on demand). */
  for (uint64_t k = 0; k < SIZE; k++)
    img[k] = (k / 65536) % 3 == 0 ? 0 : (uint8_t) rnd (&st);
  path = temp_file (&fd);
  ck_assert_int_eq (pwrite_all (fd, img, SIZE, 0), 0);
  close (fd);
  ck_assert_int_eq (pc_disk_open_base (&plain, path), 0);
  ck_assert_int_eq (pc_disk_open_base (&logged, path), 0);
  run_differential (&plain, &logged, 0x2545f4914f6cdd1du, 3000);
  pc_disk_close (&plain);
  pc_disk_close (&logged);
  unlink (path);
  free (path);
  free (img);
}
END_TEST

/* An image read once (pc_image_remember) is read again from the memo:
 * the same hash and bytes as a plain read of it, over a base the same
 * disk; changed, it is read afresh, never from the memo. */
START_TEST (test_image_memo)
{
  uint64_t st = 11, size;
  uint8_t *img = malloc (SIZE), *plain, *memo, *again, h1[16], h2[16], h3[16];
  struct pc_disk a, b;
  char *path;
  int fd;

  ck_assert (img != NULL);
  for (uint64_t k = 0; k < SIZE; k++)
    img[k] = (k / 65536) % 4 == 1 ? (uint8_t) rnd (&st) : 0;
  path = temp_file (&fd);
  ck_assert_int_eq (pwrite_all (fd, img, SIZE, 0), 0);
  /* the plain read, before any memo of it */
  ck_assert_int_eq (pc_image_read (path, SIZE, 0, &plain, &size, h1), 0);
  ck_assert_int_eq (memcmp (plain, img, SIZE), 0);
  ck_assert_int_eq (pc_disk_open_base (&a, path), 0);
  ck_assert_int_eq (pc_image_remember (path), 0);
  ck_assert_int_eq (pc_image_read (path, SIZE, 0, &memo, &size, h2), 0);
  ck_assert_int_eq (memcmp (h1, h2, 16), 0);
  ck_assert_int_eq (memcmp (memo, img, SIZE), 0);
  ck_assert_int_eq (pc_disk_open_base (&b, path), 0);
  ck_assert_int_eq (memcmp (a.basehash, b.basehash, 16), 0);
  ck_assert_int_eq (pc_disk_load (&a, 0, SIZE), 0);
  ck_assert_int_eq (pc_disk_load (&b, 0, SIZE), 0);
  ck_assert_int_eq (memcmp (a.mem, b.mem, SIZE), 0);
  pc_disk_close (&a);
  pc_disk_close (&b);
  /* the same bytes in a sparse file (its zeros holes, not read): the
   * same hash and bytes */
  {
    int sfd;
    char *spath = temp_file (&sfd);
    uint8_t *sparse, hs[16];
    ck_assert_int_eq (ftruncate (sfd, SIZE), 0);
    for (uint64_t k = 0; k < SIZE; k += 65536)
      if ((k / 65536) % 4 == 1)
        ck_assert_int_eq (pwrite_all (sfd, img + k, 65536, k), 0);
    ck_assert_int_eq (pc_image_read (spath, SIZE, 0, &sparse, &size, hs), 0);
    ck_assert_int_eq (memcmp (h1, hs, 16), 0);
    ck_assert_int_eq (memcmp (sparse, img, SIZE), 0);
    pc_image_unmap (sparse, SIZE);
    close (sfd);
    unlink (spath);
    free (spath);
  }
  /* changed (a zero piece and a data piece): read afresh */
  img[10] = 0x5a;
  img[65536 + 7] ^= 0xff;
  ck_assert_int_eq (pwrite_all (fd, img, SIZE, 0), 0);
  ck_assert_int_eq (pc_image_read (path, SIZE, 0, &again, &size, h3), 0);
  ck_assert_int_ne (memcmp (h1, h3, 16), 0);
  ck_assert_int_eq (memcmp (again, img, SIZE), 0);
  close (fd);
  pc_image_unmap (plain, SIZE);
  pc_image_unmap (memo, SIZE);
  pc_image_unmap (again, SIZE);
  unlink (path);
  free (path);
  free (img);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("disk");
  TCase *tc = tcase_create ("logged");

  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_logged_matches_plain);
  tcase_add_test (tc, test_logged_matches_plain_over_base);
  tcase_add_test (tc, test_image_memo);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
