/* check_initramfs.c: unit tests of lib/guest/initramfs: which modules a
 * guest's initramfs takes from a modules folder (modules.dep), and that a
 * kernel with a driver built in (modules.builtin) needs none for it. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest/initramfs.h"
#include "unit.h"

static char dir[64];

static void
put (const char *rel, const char *text)
{
  char path[PATH_MAX];
  FILE *f;

  snprintf (path, sizeof path, "%s/%s", dir, rel);
  f = fopen (path, "w");
  ck_assert_ptr_nonnull (f);
  fputs (text, f);
  ck_assert_int_eq (fclose (f), 0);
}

static void
setup (void)
{
  char path[PATH_MAX];

  snprintf (dir, sizeof dir, "/tmp/check_initramfs.XXXXXX");
  ck_assert_ptr_nonnull (mkdtemp (dir));
  snprintf (path, sizeof path, "%s/kernel", dir);
  ck_assert_int_eq (mkdir (path, 0755), 0);
  /* e1000 and what it needs as modules; nbd and ext4 built in */
  put ("modules.dep", "kernel/e1000.ko: kernel/mii.ko\nkernel/mii.ko:\n");
  put ("modules.builtin", "kernel/drivers/block/nbd.ko\nkernel/fs/ext4/ext4.ko\n");
  put ("kernel/e1000.ko", "e1000 module\n");
  put ("kernel/mii.ko", "mii module\n");
}

static void
teardown (void)
{
  char cmd[PATH_MAX + 16];

  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq (system (cmd), 0);
}

/* Builds what name asks for; returns pc_cpio_module's result, the load
 * order in order and the archive's size in *size. */
static int
module (const char *name, char *order, size_t olen, size_t *size, struct pc_err *why)
{
  char *buf = NULL, dep[256];
  struct cpio c = { 0 };
  FILE *f;
  int r;

  snprintf (dep, sizeof dep, "%s", "kernel/e1000.ko: kernel/mii.ko\nkernel/mii.ko:\n");
  c.f = open_memstream (&buf, size);
  ck_assert_ptr_nonnull (c.f);
  r = pc_cpio_module (&c, dir, dep, name, order, olen, 0, why);
  f = c.f;
  fclose (f);
  for (size_t i = 0; i < c.ndirs; i++)
    free (c.dirs[i]);
  free (c.dirs);
  free (buf);
  return r;
}

START_TEST (test_modular)
{
  char order[256] = " ";
  struct pc_err why = { "" };
  size_t size = 0;

  ck_assert_int_eq (module ("e1000", order, sizeof order, &size, &why), 0);
  ck_assert_str_eq (order, " mii e1000 ");
  ck_assert_uint_gt (size, 0);
}
END_TEST

START_TEST (test_builtin)
{
  char order[256] = " ";
  struct pc_err why = { "" };
  size_t size = 1;

  /* built in: nothing to load, nothing in the archive */
  ck_assert_int_eq (module ("nbd", order, sizeof order, &size, &why), 0);
  ck_assert_int_eq (module ("ext4", order, sizeof order, &size, &why), 0);
  ck_assert_str_eq (order, " ");
  ck_assert_uint_eq (size, 0);
  /* in neither list: an error that says where it looked */
  ck_assert_int_eq (module ("xfs", order, sizeof order, &size, &why), -ENOENT);
  ck_assert_ptr_nonnull (strstr (why.msg, "no module xfs in its modules.dep or modules.builtin"));
  ck_assert_str_eq (order, " ");
}
END_TEST

START_TEST (test_modules_id)
{
  char a[64], b[64];

  /* two folders, two names; the same folder, the same name */
  pc_modules_id (dir, a, sizeof a);
  pc_modules_id ("/nonexistent/lib/modules/6.1.192", b, sizeof b);
  ck_assert_str_ne (a, b);
  pc_modules_id (dir, b, sizeof b);
  ck_assert_str_eq (a, b);
  ck_assert_int_eq (strncmp (a, "custom-", 7), 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("initramfs");
  TCase *tc = tcase_create ("modules");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_modular);
  tcase_add_test (tc, test_builtin);
  tcase_add_test (tc, test_modules_id);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
