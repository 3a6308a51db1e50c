/* check_replay.c: unit tests of lib/replay/replay: the image of a crash
 * point written from a log, byte for byte, what a replay that cannot be
 * done leaves (nothing), and the hook that changes an image before it is
 * named (one log, and a device set, whose images are named all or none). */
#include <config.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/log.h"
#include "replay/image.h"
#include "replay/replay.h"
#include "util/disk.h"
#include "util/util.h"
#include "unit.h"

#define DEV (64 * 1024)

static char dir[] = "/tmp/check_replay.XXXXXX";
static char logp[256], imgp[256];

/* A log of a 64 KiB device at path: write 'a' at 0, flush, write 'b' at
 * 4096 and 'c' over 0, flush, trim 4096, end.  Records 0..5, record i at
 * i microseconds.  Its header has the flags compat and starts at start_ns;
 * with PC_LOG_COMPAT_CLOCK, every such log is of the same boot. */
static void
write_log (const char *path, uint32_t compat, uint64_t start_ns)
{
  struct pc_log_header h = { 0 };
  uint8_t *buf = malloc (1 << 16), data[4096];
  size_t len;
  int fd;

  h.version = PC_LOG_VERSION;
  h.compat = compat;
  h.devsize = DEV;
  h.sector = 512;
  h.start_ns = start_ns;
  h.start_mono = 1000;
  memset (h.boot_id, 7, sizeof h.boot_id);
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
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (pc_write_all (fd, buf, len), 0);
  close (fd);
  free (buf);
}

/* write_log's log as logp, in a new dir; the image to write is imgp. */
static void
make_log (void)
{
  ck_assert_ptr_nonnull (mkdtemp (dir));
  snprintf (logp, sizeof logp, "%s/log", dir);
  snprintf (imgp, sizeof imgp, "%s/state.img", dir);
  write_log (logp, PC_LOG_COMPAT_HDRSUM, 0);
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
  struct pc_replay_config cfg = { .log_path = logp, .at = at, .out_path = imgp };

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

/* What the finish hook saw, and whether it refuses (on device refuse). */
static struct {
  unsigned calls;
  char devices[64];
  int64_t when;
  const char *refuse;
} hook;

/* Writes 'z' at 100 (in the image and its file), or refuses. */
static int
finish (struct pc_image *im, const char *path, const char *device, int64_t when, void *arg,
        struct pc_err *err)
{
  ck_assert_ptr_eq (arg, &hook);
  ck_assert_int_eq (access (path, F_OK), 0);
  hook.calls++;
  hook.when = when;
  if (device)
    strcat (hook.devices, device);
  if (hook.refuse && device && strcmp (device, hook.refuse) == 0)
    return pc_err_set (err, ENOTSUP, "refused %s", device);
  if (hook.refuse && !device)
    return pc_err_set (err, ENOTSUP, "refused");
  ck_assert_int_eq (pc_image_write (im, 100, "z", 1), 0);
  return pc_image_sync (im);
}

/* The names in directory d, but the log's, joined. */
static void
names_in (const char *d, char *buf, size_t len)
{
  DIR *dh = opendir (d);
  struct dirent *e;

  ck_assert_ptr_nonnull (dh);
  buf[0] = '\0';
  while ((e = readdir (dh)) != NULL)
    if (e->d_name[0] != '.' && strcmp (e->d_name, "log") != 0 &&
        strlen (buf) + strlen (e->d_name) + 2 < len) {
      strcat (buf, " ");
      strcat (buf, e->d_name);
    }
  closedir (dh);
}

START_TEST (test_finish)
{
  struct pc_replay_config cfg = { .at = "3", .finish = finish, .finish_arg = &hook };
  struct pc_err err;
  char names[256];

  memset (&hook, 0, sizeof hook);
  make_log ();
  cfg.log_path = logp;
  cfg.out_path = imgp;
  /* the hook changes the state before the image gets its name; when is
   * the log's start plus record 3's time */
  unlink (logp);
  write_log (logp, PC_LOG_COMPAT_HDRSUM, 5000000000000000000u);
  ck_assert_msg (pc_replay_write (&cfg, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq (hook.calls, 1);
  ck_assert_int_eq (hook.when, 5000000000);
  ck_assert_int_eq (byte_at (0), 'c');
  ck_assert_int_eq (byte_at (100), 'z');
  /* a refusal is the replay's error, and leaves no image (nor its
   * temporary file) */
  unlink (imgp);
  hook.refuse = "";
  ck_assert_int_eq (pc_replay_write (&cfg, &err), -ENOTSUP);
  ck_assert_str_eq (err.msg, "refused");
  names_in (dir, names, sizeof names);
  ck_assert_str_eq (names, "");
  cleanup ();
}
END_TEST

START_TEST (test_finish_devset)
{
  struct pc_replay_config cfg = { .at = "a:3", .finish = finish, .finish_arg = &hook };
  struct pc_err err;
  char set[100], out[100], path[200], names[256];

  memset (&hook, 0, sizeof hook);
  make_log ();
  snprintf (set, sizeof set, "%s/set", dir);
  snprintf (out, sizeof out, "%s/out", dir);
  ck_assert_int_eq (mkdir (set, 0700), 0);
  for (const char *d = "ab"; *d; d++) {
    snprintf (path, sizeof path, "%s/%c.pclog", set, *d);
    write_log (path, PC_LOG_COMPAT_HDRSUM | PC_LOG_COMPAT_CLOCK, 0);
  }
  cfg.log_path = set;
  cfg.out_path = out;
  /* b refused after a was built: neither image is written */
  hook.refuse = "b";
  ck_assert_int_eq (pc_replay_devset_write (&cfg, &err), -ENOTSUP);
  ck_assert_str_eq (err.msg, "refused b");
  ck_assert_str_eq (hook.devices, "ab");
  names_in (out, names, sizeof names);
  ck_assert_str_eq (names, "");
  /* accepted: both, each with the hook's change */
  memset (&hook, 0, sizeof hook);
  ck_assert_msg (pc_replay_devset_write (&cfg, &err) == 0, "%s", err.msg);
  ck_assert_str_eq (hook.devices, "ab");
  names_in (out, names, sizeof names);
  ck_assert (strcmp (names, " a.img b.img") == 0 || strcmp (names, " b.img a.img") == 0);
  snprintf (imgp, sizeof imgp, "%s/b.img", out);
  ck_assert_int_eq (byte_at (100), 'z');
  for (const char *d = "ab"; *d; d++) {
    snprintf (path, sizeof path, "%s/%c.img", out, *d);
    unlink (path);
    snprintf (path, sizeof path, "%s/%c.pclog", set, *d);
    unlink (path);
  }
  rmdir (out);
  rmdir (set);
  snprintf (imgp, sizeof imgp, "%s/state.img", dir);
  cleanup ();
}
END_TEST

/* An image written as a sparse copy: the same bytes, its zero blocks
 * holes, with and without the block hashes; the image itself untouched. */
START_TEST (test_copy_sparse)
{
  const uint64_t size = 64 * 4096 + 100;
  static uint8_t buf[64 * 4096 + 100];
  unsigned flags[] = { 0, PC_IMAGE_HASH };

  for (size_t k = 0; k < 2; k++) {
    char path[] = "/tmp/check_replay_copy.XXXXXX";
    struct pc_image *im;
    struct stat st;
    int fd = mkstemp (path);
    ck_assert_int_ge (fd, 0);
    unlink (path);
    ck_assert_int_eq (pc_image_new (size, NULL, -1, flags[k], &im), 0);
    ck_assert_int_eq (pc_image_write (im, 4096 * 3 + 5, "data", 4), 0);
    ck_assert_int_eq (pc_image_write (im, 4096 * 40, "more", 4), 0);
    ck_assert_int_eq (pc_image_write (im, size - 2, "z", 1), 0);     /* the short last block */
    ck_assert_int_eq (pc_image_copy_sparse (im, fd), 0);
    ck_assert_int_eq (fstat (fd, &st), 0);
    ck_assert_int_eq (st.st_size, (off_t) size);
    ck_assert_int_le (st.st_blocks * 512, 16 * 4096);                 /* holes */
    ck_assert_int_eq (pread (fd, buf, size, 0), (ssize_t) size);
    ck_assert_mem_eq (buf, pc_image_data (im), size);
    close (fd);
    pc_image_free (im);
  }
}
END_TEST

/* An image made from a base told which blocks are not zeros (the map
 * read with it) against one that reads the base for them: the same
 * bytes, signature and mirror file, for a base whose size is not whole
 * words of the map. */
START_TEST (test_new_map)
{
  const uint64_t size = (64 * 3 + 5) * (uint64_t) PC_IMAGE_BLOCK;
  uint8_t *img = calloc (1, size), *base, hash[16], sa[16], sb[16];
  uint64_t *nonzero, got, x = 99;
  char path[] = "/tmp/check_replay.XXXXXX", fa[] = "/tmp/check_replay.XXXXXX",
       fb[] = "/tmp/check_replay.XXXXXX";
  struct pc_image *a, *b;
  int fd, da, db;

  ck_assert (img != NULL);
  /* a block here and there, one byte of a block, and the last block */
  for (uint64_t k = 0; k < size / PC_IMAGE_BLOCK; k++) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    if (x >> 61 == 0 || k == size / PC_IMAGE_BLOCK - 1)
      memset (img + k * PC_IMAGE_BLOCK, (int) (x >> 33) | 1, PC_IMAGE_BLOCK);
  }
  img[70 * PC_IMAGE_BLOCK + 4095] = 7;
  fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  ck_assert (pwrite (fd, img, size, 0) == (ssize_t) size);
  close (fd);
  ck_assert_int_eq (pc_image_read_map (path, size, 0, &base, &got, hash, &nonzero), 0);
  ck_assert_uint_eq (got, size);
  ck_assert_int_ne (nonzero[70 / 64] & (UINT64_C(1) << (70 % 64)), 0);
  da = mkstemp (fa);
  db = mkstemp (fb);
  ck_assert_int_ge (da, 0);
  ck_assert_int_ge (db, 0);
  ck_assert_int_eq (pc_image_new_map (size, base, nonzero, da, PC_IMAGE_HASH, &a), 0);
  ck_assert_int_eq (pc_image_new (size, base, db, PC_IMAGE_HASH, &b), 0);
  ck_assert_int_eq (memcmp (pc_image_data (a), img, size), 0);
  ck_assert_int_eq (memcmp (pc_image_data (a), pc_image_data (b), size), 0);
  pc_image_signature (a, sa);
  pc_image_signature (b, sb);
  ck_assert_int_eq (memcmp (sa, sb, 16), 0);
  ck_assert_int_eq (pc_image_sync (a), 0);
  ck_assert_int_eq (pc_image_sync (b), 0);
  {
    uint8_t *ra = malloc (size), *rb = malloc (size);
    ck_assert (ra && rb);
    ck_assert (pread (da, ra, size, 0) == (ssize_t) size);
    ck_assert (pread (db, rb, size, 0) == (ssize_t) size);
    ck_assert_int_eq (memcmp (ra, rb, size), 0);
    free (ra);
    free (rb);
  }
  pc_image_free (a);
  pc_image_free (b);
  close (da);
  close (db);
  unlink (fa);
  unlink (fb);
  unlink (path);
  pc_image_unmap (base, size);
  free (nonzero);
  free (img);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("replay");
  TCase *tc = tcase_create ("image");

  tcase_add_test (tc, test_points);
  tcase_add_test (tc, test_failures);
  tcase_add_test (tc, test_finish);
  tcase_add_test (tc, test_finish_devset);
  tcase_add_test (tc, test_copy_sparse);
  tcase_add_test (tc, test_new_map);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
