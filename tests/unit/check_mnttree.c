/* check_mnttree.c: unit tests of lib/judge/mnttree: the tree of a mounted
 * filesystem is the tree libext2fs reads of the same image (fstree.h),
 * entry for entry: paths, types, modes, link counts, inode numbers,
 * sizes, content hashes and their blocks, symlink targets, extended
 * attributes (an ACL by its meaning); a file beyond the hash limit has no
 * hash either way.  A real ext4 made by mkfs.ext4 and filled through the
 * kernel on a loop device (so it needs root); the walk of a mount bounded
 * to its own filesystem; a directory that cannot be opened. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "judge/fstree.h"
#include "judge/mnttree.h"
#include "unit.h"

static char dir[] = "/tmp/check_mnttree.XXXXXX";
static char img[256], mnt[256];

static int sh (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Runs a shell command made as printf makes it; its status. */
static int
sh (const char *fmt, ...)
{
  va_list ap;
  char *cmd;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&cmd, fmt, ap);
  va_end (ap);
  ck_assert_int_ge (r, 0);
  r = system (cmd);
  free (cmd);
  return r;
}

static void
put (const char *rel, const void *data, size_t len)
{
  char p[1024];
  int fd;

  snprintf (p, sizeof p, "%s/%s", mnt, rel);
  fd = open (p, O_WRONLY | O_CREAT | O_TRUNC, 0640);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (write (fd, data, len), (ssize_t) len);
  close (fd);
}

/* An ACL value (the format programs set): n entries of tag, perm, id. */
static size_t
acl (uint8_t *buf, size_t n, const uint32_t *e)
{
  buf[0] = 2; buf[1] = buf[2] = buf[3] = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t *p = buf + 4 + 8 * i;
    p[0] = (uint8_t) e[3 * i]; p[1] = 0;
    p[2] = (uint8_t) e[3 * i + 1]; p[3] = 0;
    memcpy (p + 4, &e[3 * i + 2], 4);
  }
  return 4 + 8 * n;
}

/* Makes an ext4 image with a bit of everything a tree holds. */
static void
make_image (void)
{
  static char big[300000], sparse_tail[] = "tail";
  uint8_t a[64];
  char p[1024];
  int fd;
  const uint32_t eq[] = { 1, 6, ~0u, 4, 4, ~0u, 0x20, 4, ~0u };
  const uint32_t named[] = { 1, 7, ~0u, 2, 6, 1234, 4, 5, ~0u, 0x10, 7, ~0u, 0x20, 4, ~0u };

  snprintf (img, sizeof img, "%s/fs.img", dir);
  snprintf (mnt, sizeof mnt, "%s/mnt", dir);
  ck_assert_int_eq (mkdir (mnt, 0755), 0);
  ck_assert_int_eq (sh ("truncate -s 64M %s && mkfs.ext4 -q -F -b 4096 %s", img, img), 0);
  ck_assert_int_eq (sh ("mount -o loop %s %s", img, mnt), 0);
  put ("a", "hello\n", 6);
  for (size_t i = 0; i < sizeof big; i++)
    big[i] = (char) (i * 7);
  put ("big", big, sizeof big);
  memset (big, 0, 9000);
  put ("zeros", big, 9000);
  snprintf (p, sizeof p, "%s/d/e/f", mnt);
  ck_assert_int_eq (sh ("mkdir -p %s && echo deep > %s/x", p, p), 0);
  snprintf (p, sizeof p, "%s/sparse", mnt);
  fd = open (p, O_WRONLY | O_CREAT, 0600);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (pwrite (fd, sparse_tail, 4, 1 << 20), 4);
  close (fd);
  ck_assert_int_eq (sh ("ln %s/a %s/a.link", mnt, mnt), 0);
  ck_assert_int_eq (sh ("ln -s a %s/sym && ln -s /no/such/target %s/dangling", mnt, mnt), 0);
  ck_assert_int_eq (sh ("mkfifo %s/fifo && mkdir %s/emptydir", mnt, mnt), 0);
  snprintf (p, sizeof p, "%s/a", mnt);
  ck_assert_int_eq (setxattr (p, "user.one", "1", 1, 0), 0);
  ck_assert_int_eq (setxattr (p, "user.two", big, 200, 0), 0);
  ck_assert_int_eq (setxattr (p, "system.posix_acl_access", a, acl (a, 3, eq), 0), 0);
  snprintf (p, sizeof p, "%s/big", mnt);
  ck_assert_int_eq (setxattr (p, "system.posix_acl_access", a, acl (a, 5, named), 0), 0);
  snprintf (p, sizeof p, "%s/d", mnt);
  ck_assert_int_eq (setxattr (p, "system.posix_acl_default", a, acl (a, 5, named), 0), 0);
  ck_assert_int_eq (sh ("echo inherits > %s/d/inherits", mnt), 0);
  ck_assert_int_eq (sh ("umount %s", mnt), 0);
}

static void
assert_same_entry (const struct pc_entry *x, const struct pc_entry *y)
{
  ck_assert_str_eq (x->path, y->path);
  ck_assert_msg (x->type == y->type, "%s: type", x->path);
  ck_assert_msg (x->mode == y->mode, "%s: mode %o, %o", x->path, x->mode, y->mode);
  ck_assert_msg (x->nlink == y->nlink, "%s: nlink", x->path);
  ck_assert_msg (x->ino == y->ino, "%s: ino", x->path);
  ck_assert_msg (x->size == y->size, "%s: size", x->path);
  ck_assert_msg (memcmp (x->hash, y->hash, sizeof x->hash) == 0, "%s: hash", x->path);
  ck_assert_msg (x->headlen == y->headlen && memcmp (x->head, y->head, x->headlen) == 0,
                 "%s: head", x->path);
  ck_assert_msg (x->zero_blocks == y->zero_blocks, "%s: zero blocks", x->path);
  ck_assert_msg (x->nblocks == y->nblocks &&
                 (x->nblocks == 0 || memcmp (x->blocks, y->blocks, x->nblocks * 8) == 0),
                 "%s: blocks", x->path);
  ck_assert_msg ((x->target == NULL) == (y->target == NULL) &&
                 (x->target == NULL || strcmp (x->target, y->target) == 0), "%s: target", x->path);
  ck_assert_msg (x->xattrs_unknown == y->xattrs_unknown, "%s: xattrs unknown", x->path);
  ck_assert_msg (x->nxattrs == y->nxattrs, "%s: %zu, %zu xattrs", x->path, x->nxattrs, y->nxattrs);
  for (size_t k = 0; k < x->nxattrs; k++) {
    ck_assert_str_eq (x->xattrs[k].name, y->xattrs[k].name);
    ck_assert_msg (x->xattrs[k].hash == y->xattrs[k].hash, "%s: %s", x->path, x->xattrs[k].name);
  }
}

START_TEST (test_same_tree)
{
  struct pc_mark a, b;
  char pa[1024], pb[1024];
  uint64_t limits[] = { UINT64_MAX, 100000 };

  if (geteuid () != 0) {
    fprintf (stderr, "check_mnttree: not root: no loop mount to compare with\n");
    return;
  }
  make_image ();
  ck_assert_int_eq (sh ("mount -o ro,loop %s %s", img, mnt), 0);
  for (size_t l = 0; l < 2; l++) {
    ck_assert_int_eq (pc_fstree_read (img, limits[l], &a, pa, sizeof pa), 0);
    ck_assert_int_eq (pc_mnttree_read (mnt, limits[l], &b, pb, sizeof pb), 0);
    ck_assert_str_eq (pa, "");
    ck_assert_str_eq (pb, "");
    ck_assert_uint_eq (a.nentries, b.nentries);
    ck_assert_uint_ge (a.nentries, 14);
    for (size_t i = 0; i < a.nentries; i++)
      assert_same_entry (&a.entries[i], &b.entries[i]);
    for (size_t i = 0; i < b.nentries; i++)
      if (strcmp (b.entries[i].path, "big") == 0)
        ck_assert_uint_eq (b.entries[i].nblocks, l == 0 ? 74 : 0);
    pc_mark_free (&a);
    pc_mark_free (&b);
  }
  ck_assert_int_eq (sh ("umount %s", mnt), 0);
}
END_TEST

START_TEST (test_no_dir)
{
  struct pc_mark m;
  char p[64];

  ck_assert_int_eq (pc_mnttree_read ("/no/such/dir", UINT64_MAX, &m, p, sizeof p), -ENOENT);
  ck_assert_uint_eq (m.nentries, 0);
}
END_TEST

static void
setup (void)
{
  ck_assert_ptr_nonnull (mkdtemp (dir));
}

static void
teardown (void)
{
  sh ("umount -q %s 2>/dev/null; rm -rf %s", mnt, dir);
}

int
main (void)
{
  Suite *su = suite_create ("mnttree");
  TCase *tc = tcase_create ("tree");

  tcase_add_unchecked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_same_tree);
  tcase_add_test (tc, test_no_dir);
  suite_add_tcase (su, tc);
  return pc_unit_run (su);
}
