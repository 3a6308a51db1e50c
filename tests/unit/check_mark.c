/* check_mark.c: unit tests of lib/mark: names, paths, scanning, encoding. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/mark.h"
#include "util/xxh.h"
#include "util/util.h"
#include "unit.h"

START_TEST (test_names)
{
  ck_assert (pc_mark_name_valid ("mkfs"));
  ck_assert (pc_mark_name_valid ("after-rename_3.x"));
  ck_assert (!pc_mark_name_valid (""));
  ck_assert (!pc_mark_name_valid ("a b"));
  ck_assert (!pc_mark_name_valid ("a/b"));
  ck_assert (!pc_mark_name_valid ("<script>"));
}
END_TEST

START_TEST (test_paths)
{
  ck_assert (pc_mark_path_valid ("a", 1));
  ck_assert (pc_mark_path_valid ("a/b/c", 5));
  ck_assert (pc_mark_path_valid ("..a", 3));
  ck_assert (!pc_mark_path_valid ("/a", 2));
  ck_assert (!pc_mark_path_valid ("a/../b", 6));
  ck_assert (!pc_mark_path_valid ("..", 2));
  ck_assert (!pc_mark_path_valid ("a/./b", 5));
  ck_assert (!pc_mark_path_valid ("a//b", 4));
  ck_assert (!pc_mark_path_valid ("a/", 2));
  ck_assert (!pc_mark_path_valid ("a\0b", 3));
}
END_TEST

static void
put (const char *dir, const char *name, const char *content)
{
  char p[512];
  FILE *f;

  snprintf (p, sizeof p, "%s/%s", dir, name);
  f = fopen (p, "w");
  ck_assert_ptr_nonnull (f);
  fputs (content, f);
  fclose (f);
}

START_TEST (test_scan_roundtrip)
{
  char dir[] = "/tmp/check_mark.XXXXXX", p[512];
  struct pc_mark m = { 0 }, d;
  const struct pc_entry *e, *e2;
  uint8_t *buf;
  size_t len;

  ck_assert_ptr_nonnull (mkdtemp (dir));
  put (dir, "a", "hello");
  put (dir, "empty", "");
  snprintf (p, sizeof p, "%s/sub", dir);
  ck_assert_int_eq (mkdir (p, 0755), 0);
  put (dir, "sub/b", "world");
  snprintf (p, sizeof p, "%s/link", dir);
  ck_assert_int_eq (symlink ("sub/b", p), 0);
  m.name = strdup ("m1");
  m.flags = PC_MARK_F_SYNC;
  ck_assert_int_eq (pc_mark_scan (&m, dir, NULL), 0);
  ck_assert_uint_eq (m.nentries, 5);
  ck_assert_int_eq (pc_mark_add_durable (&m, "sub/b"), 0);
  ck_assert_int_eq (pc_mark_encode (&m, &buf, &len), 0);
  ck_assert_int_eq (pc_mark_decode (buf, len, &d, NULL), 0);
  ck_assert_str_eq (d.name, "m1");
  ck_assert_uint_eq (d.flags, PC_MARK_F_SYNC | PC_MARK_F_MANIFEST);
  ck_assert_uint_eq (d.nentries, 5);
  ck_assert_uint_eq (d.ndurable, 1);
  ck_assert_str_eq (d.durable[0], "sub/b");
  e = pc_mark_find (&d, "a");
  ck_assert_ptr_nonnull (e);
  ck_assert_int_eq (e->type, PC_ENTRY_FILE);
  ck_assert_uint_eq (e->size, 5);
  e2 = pc_mark_find (&d, "sub/b");
  ck_assert_ptr_nonnull (e2);
  ck_assert_int_ne (memcmp (e->hash, e2->hash, 16), 0);
  e = pc_mark_find (&d, "link");
  ck_assert_int_eq (e->type, PC_ENTRY_SYMLINK);
  ck_assert_str_eq (e->target, "sub/b");
  e = pc_mark_find (&d, "sub");
  ck_assert_int_eq (e->type, PC_ENTRY_DIR);
  ck_assert_ptr_null (pc_mark_find (&d, "nope"));

  /* Every truncation of the payload is refused, never misread. */
  for (size_t cut = 0; cut < len; cut++) {
    struct pc_mark x;
    ck_assert_int_eq (pc_mark_decode (buf, cut, &x, NULL), -EBADMSG);
  }
  free (buf);
  pc_mark_free (&m);
  pc_mark_free (&d);
  snprintf (p, sizeof p, "rm -rf '%s'", dir);
  ck_assert_int_eq (system (p), 0);
}
END_TEST

/* An empty directory is an empty manifest, not an error. */
START_TEST (test_scan_empty)
{
  char dir[] = "/tmp/check_mark.XXXXXX";
  struct pc_mark m = { 0 };

  ck_assert_ptr_nonnull (mkdtemp (dir));
  m.name = strdup ("e");
  ck_assert_int_eq (pc_mark_scan (&m, dir, NULL), 0);
  ck_assert_uint_eq (m.nentries, 0);
  pc_mark_free (&m);
  rmdir (dir);
}
END_TEST

START_TEST (test_decode_rejects_bad_paths)
{
  struct pc_mark m = { 0 }, d;
  struct pc_entry e = { 0 };
  uint8_t *buf;
  size_t len;

  m.name = strdup ("x");
  e.path = strdup ("ok");
  e.type = PC_ENTRY_FILE;
  m.entries = &e;
  m.nentries = 1;
  ck_assert_int_eq (pc_mark_encode (&m, &buf, &len), 0);
  ck_assert_int_eq (pc_mark_decode (buf, len, &d, NULL), 0);
  pc_mark_free (&d);
  /* Patch the path "ok" into "..": the decoder must refuse it. */
  for (size_t i = 0; i + 1 < len; i++)
    if (buf[i] == 'o' && buf[i + 1] == 'k') {
      buf[i] = '.';
      buf[i + 1] = '.';
    }
  ck_assert_int_eq (pc_mark_decode (buf, len, &d, NULL), -EBADMSG);
  free (buf);
  free (e.path);
  free (m.name);
}
END_TEST

/* The name read without decoding: as encoded, and never past the end. */
START_TEST (test_peek_name)
{
  struct pc_mark m = { 0 };
  uint8_t *buf;
  size_t len, n = 0;
  const char *name;

  m.name = strdup ("after-fsync");
  ck_assert_int_eq (pc_mark_encode (&m, &buf, &len), 0);
  name = pc_mark_peek_name (buf, len, &n);
  ck_assert_ptr_nonnull (name);
  ck_assert_uint_eq (n, 11);
  ck_assert_int_eq (memcmp (name, "after-fsync", 11), 0);
  /* cut before the name's end, or before its length */
  ck_assert_ptr_null (pc_mark_peek_name (buf, 10 + 10, &n));
  ck_assert_ptr_null (pc_mark_peek_name (buf, 9, &n));
  ck_assert_ptr_null (pc_mark_peek_name (buf, 0, &n));
  free (buf);
  free (m.name);
}
END_TEST

START_TEST (test_relpath)
{
  char dir[] = "/tmp/check_mark.XXXXXX", p[600], *rel;

  ck_assert_ptr_nonnull (mkdtemp (dir));
  snprintf (p, sizeof p, "%s/f", dir);
  ck_assert_int_eq (pc_mark_relpath (dir, p, &rel), 0);
  ck_assert_str_eq (rel, "f");
  free (rel);
  snprintf (p, sizeof p, "%s/./x/../g", dir);
  ck_assert_int_eq (pc_mark_relpath (dir, p, &rel), 0);
  ck_assert_str_eq (rel, "g");
  free (rel);
  ck_assert_int_eq (pc_mark_relpath (dir, "/etc/passwd", &rel), -EXDEV);
  snprintf (p, sizeof p, "%s/../escape", dir);
  ck_assert_int_eq (pc_mark_relpath (dir, p, &rel), -EXDEV);
  rmdir (dir);
}
END_TEST

/* Hashes buf in pieces of n bytes; returns the zero blocks counted.  The
 * block hashes must be each 4 KiB block's XXH3-64, the last one over the
 * bytes it has, however the content arrives. */
static uint64_t
zero_blocks (const uint8_t *buf, size_t len, size_t n)
{
  struct pc_entry e = { 0 };
  void *h = pc_entry_hash_begin (&e);
  uint64_t z;

  ck_assert_ptr_nonnull (h);
  for (size_t off = 0; off < len; off += n)
    pc_entry_hash_update (h, &e, buf + off, len - off < n ? len - off : n);
  pc_entry_hash_end (h, &e);
  ck_assert_uint_eq (e.nblocks, (len + 4095) / 4096);
  for (size_t b = 0; b < e.nblocks; b++)
    ck_assert_uint_eq (e.blocks[b], XXH3_64bits (buf + 4096 * b, len - 4096 * b < 4096
                                                                 ? len - 4096 * b : 4096));
  z = e.zero_blocks;
  free (e.blocks);
  return z;
}

START_TEST (test_zero_blocks)
{
  static uint8_t buf[3 * 4096 + 100];
  static const size_t pieces[] = { 1, 7, 1000, 4096, 5000, sizeof buf };

  /* Blocks 0 and 2 and the short tail are zeros; block 1 is not, by its
   * last byte alone: 3 of 4, however the content arrives. */
  memset (buf, 0, sizeof buf);
  buf[2 * 4096 - 1] = 1;
  for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
    ck_assert_uint_eq (zero_blocks (buf, sizeof buf, pieces[i]), 3);
  /* A tail that is not zeros is not counted; the first byte of a block
   * counts for it alone. */
  buf[sizeof buf - 1] = 1;
  buf[4096] = 1;
  for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
    ck_assert_uint_eq (zero_blocks (buf, sizeof buf, pieces[i]), 2);
  /* An empty file has no block. */
  ck_assert_uint_eq (zero_blocks (buf, 0, 1), 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("mark");
  TCase *tc = tcase_create ("manifest");

  tcase_add_test (tc, test_names);
  tcase_add_test (tc, test_peek_name);
  tcase_add_test (tc, test_paths);
  tcase_add_test (tc, test_scan_roundtrip);
  tcase_add_test (tc, test_scan_empty);
  tcase_add_test (tc, test_decode_rejects_bad_paths);
  tcase_add_test (tc, test_relpath);
  tcase_add_test (tc, test_zero_blocks);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
