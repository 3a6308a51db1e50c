/* check_acl.c: unit tests of lib/format/acl: POSIX ACLs by their meaning.
 * An access ACL that only repeats the mode means none, as does an ACL of
 * no entries; the entries the mode carries (owner, mask, other) and the
 * ids libext2fs gives them do not change the meaning; named entries,
 * their ids and permissions, and a default ACL's every entry do; values
 * the kernel refuses are told apart. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "format/acl.h"
#include "util/util.h"
#include "unit.h"

#define UO 0x01
#define U 0x02
#define GO 0x04
#define G 0x08
#define M 0x10
#define O 0x20
#define NOID 0xffffffffu

static uint8_t buf[4 + 8 * 16];

/* An ACL value of n entries (tag, perm, id each); its length. */
static size_t
acl (size_t n, ...)
{
  va_list ap;

  pc_put_le32 (buf, 2);
  va_start (ap, n);
  for (size_t i = 0; i < n; i++) {
    unsigned tag = va_arg (ap, unsigned), perm = va_arg (ap, unsigned);
    uint32_t id = va_arg (ap, uint32_t);
    pc_put_le16 (buf + 4 + 8 * i, (uint16_t) tag);
    pc_put_le16 (buf + 6 + 8 * i, (uint16_t) perm);
    pc_put_le32 (buf + 8 + 8 * i, id);
  }
  va_end (ap);
  return 4 + 8 * n;
}

static int
meaning (enum pc_acl_kind k, size_t len, uint64_t *h)
{
  return pc_acl_meaning (k, buf, len, h);
}

START_TEST (test_kind)
{
  ck_assert_int_eq (pc_acl_kind ("system.posix_acl_access"), PC_ACL_ACCESS);
  ck_assert_int_eq (pc_acl_kind ("system.posix_acl_default"), PC_ACL_DEFAULT);
  ck_assert_int_eq (pc_acl_kind ("user.posix_acl_access"), PC_ACL_NONE);
  ck_assert_int_eq (pc_acl_kind ("system.posix_acl"), PC_ACL_NONE);
}
END_TEST

START_TEST (test_folded)
{
  uint64_t h = 7;
  size_t n;

  /* the value sed -i and vim set: user::rw- group::r-- other::r-- */
  n = acl (3, UO, 6, NOID, GO, 4, NOID, O, 4, NOID);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, n, &h), 0);
  ck_assert_uint_eq (h, 7);
  /* the same as a default ACL is kept */
  ck_assert_int_eq (meaning (PC_ACL_DEFAULT, n, &h), 1);
  /* no entries: removed, either kind */
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, 4, &h), 0);
  ck_assert_int_eq (meaning (PC_ACL_DEFAULT, 4, &h), 0);
  /* a mask alone is kept (the kernel does not fold it) */
  n = acl (4, UO, 6, NOID, GO, 4, NOID, M, 6, NOID, O, 4, NOID);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, n, &h), 1);
}
END_TEST

START_TEST (test_same_meaning)
{
  uint64_t a, b, c;
  size_t n;

  /* as set through the VFS (ids -1 where none) */
  n = acl (5, UO, 7, NOID, U, 6, 1000, GO, 5, NOID, M, 7, NOID, O, 4, NOID);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, n, &a), 1);
  /* as libext2fs gives it back (ids 0), after a chmod changed the
   * owner's, the mask's and other's bits */
  n = acl (5, UO, 6, 0, U, 6, 1000, GO, 5, 0, M, 4, 0, O, 0, 0);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, n, &b), 1);
  ck_assert_uint_eq (a, b);
  /* another named user, or other permissions for it: another meaning */
  n = acl (5, UO, 7, NOID, U, 6, 1001, GO, 5, NOID, M, 7, NOID, O, 4, NOID);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, n, &c), 1);
  ck_assert_uint_ne (a, c);
  n = acl (5, UO, 7, NOID, U, 4, 1000, GO, 5, NOID, M, 7, NOID, O, 4, NOID);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, n, &c), 1);
  ck_assert_uint_ne (a, c);
  /* the owning group's entry counts where a mask holds the mode's bits */
  n = acl (5, UO, 7, NOID, U, 6, 1000, GO, 7, NOID, M, 7, NOID, O, 4, NOID);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, n, &c), 1);
  ck_assert_uint_ne (a, c);
  /* the same entries as a default ACL mean something else */
  n = acl (5, UO, 7, NOID, U, 6, 1000, GO, 5, NOID, M, 7, NOID, O, 4, NOID);
  ck_assert_int_eq (meaning (PC_ACL_DEFAULT, n, &c), 1);
  ck_assert_uint_ne (a, c);
  /* a default ACL's owner and other entries count */
  ck_assert_int_eq (meaning (PC_ACL_DEFAULT, acl (3, UO, 7, NOID, GO, 5, NOID, O, 5, NOID), &a), 1);
  ck_assert_int_eq (meaning (PC_ACL_DEFAULT, acl (3, UO, 7, 0, GO, 5, 0, O, 5, 0), &b), 1);
  ck_assert_int_eq (meaning (PC_ACL_DEFAULT, acl (3, UO, 7, NOID, GO, 5, NOID, O, 4, NOID), &c), 1);
  ck_assert_uint_eq (a, b);
  ck_assert_uint_ne (a, c);
}
END_TEST

/* As ext4 stores it (libext2fs lists it so): version 1, short entries
 * where there is no id; the same meaning. */
START_TEST (test_ext4_format)
{
  static const uint8_t disk[] = {
    1, 0, 0, 0,  1, 0, 6, 0,  2, 0, 6, 0, 0x41, 0x41, 0x41, 0x41,  4, 0, 5, 0,
    0x10, 0, 4, 0,  0x20, 0, 0, 0,
  };
  uint64_t a, b;

  ck_assert_int_eq (pc_acl_meaning (PC_ACL_ACCESS, disk, sizeof disk, &a), 1);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (5, UO, 7, NOID, U, 6, 0x41414141u, GO, 5, NOID,
                                                  M, 7, NOID, O, 4, NOID), &b), 1);
  ck_assert_uint_eq (a, b);
  /* cut inside an entry */
  ck_assert_int_eq (pc_acl_meaning (PC_ACL_ACCESS, disk, sizeof disk - 2, &a), -EINVAL);
  ck_assert_int_eq (pc_acl_meaning (PC_ACL_ACCESS, disk, 14, &a), -EINVAL);
  /* ext4's form of an ACL equal to the mode */
  ck_assert_int_eq (pc_acl_meaning (PC_ACL_ACCESS, (const uint8_t[]) { 1, 0, 0, 0, 1, 0, 6, 0,
                                                                      4, 0, 4, 0, 0x20, 0, 4, 0 },
                                    16, &a), 0);
}
END_TEST

START_TEST (test_invalid)
{
  uint64_t h;

  ck_assert_int_eq (pc_acl_meaning (PC_ACL_NONE, buf, acl (3, UO, 6, 0, GO, 4, 0, O, 4, 0), &h), -EINVAL);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, 3, &h), -EINVAL);          /* too short */
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (3, UO, 6, 0, GO, 4, 0, O, 4, 0) - 1, &h), -EINVAL);
  pc_put_le32 (buf, 3);                                                  /* no such version */
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, 4 + 24, &h), -EINVAL);
  /* out of order, twice, missing other, named without a mask, bad bits */
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (3, GO, 4, 0, UO, 6, 0, O, 4, 0), &h), -EINVAL);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (4, UO, 6, 0, UO, 6, 0, GO, 4, 0, O, 4, 0), &h), -EINVAL);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (2, UO, 6, 0, GO, 4, 0), &h), -EINVAL);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (4, UO, 6, 0, U, 6, 5, GO, 4, 0, O, 4, 0), &h), -EINVAL);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (3, UO, 8, 0, GO, 4, 0, O, 4, 0), &h), -EINVAL);
  /* named users in id order only */
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (6, UO, 6, 0, U, 6, 9, U, 6, 5, GO, 4, 0, M, 6, 0, O, 4, 0), &h), -EINVAL);
  ck_assert_int_eq (meaning (PC_ACL_ACCESS, acl (6, UO, 6, 0, U, 6, 5, U, 6, 9, GO, 4, 0, M, 6, 0, O, 4, 0), &h), 1);
}
END_TEST

int
main (void)
{
  Suite *su = suite_create ("acl");
  TCase *tc = tcase_create ("meaning");

  tcase_add_test (tc, test_kind);
  tcase_add_test (tc, test_folded);
  tcase_add_test (tc, test_same_meaning);
  tcase_add_test (tc, test_ext4_format);
  tcase_add_test (tc, test_invalid);
  suite_add_tcase (su, tc);
  return pc_unit_run (su);
}
