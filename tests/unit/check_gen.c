/* check_gen.c: unit tests of lib/explore/gen: which workloads are
 * generated, in which order, sampled how, and how they read as text and as
 * shell commands. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/gen.h"
#include "unit.h"

static struct pc_gen_workload
parsed (const char *s)
{
  struct pc_gen_workload w;
  struct pc_err err;

  ck_assert_msg (pc_gen_parse (s, &w, &err) == 0, "%s: %s", s, err.msg);
  return w;
}

static char *
script (const struct pc_gen_workload *w, const char *prefix)
{
  static char buf[8192];
  FILE *f = fmemopen (buf, sizeof buf, "w");

  ck_assert_ptr_nonnull (f);
  pc_gen_script (w, f, prefix, "START");
  fclose (f);
  return buf;
}

/* Length 1: every kind, on f0, d0/f0 and the files the workload makes
 * (new, d0/new), with each call but none, in a fixed order; all valid,
 * all different, the same each time; and as broad as ACE's: directories
 * synced, files made in the workload, directories renamed, O_SYNC. */
START_TEST (test_seq1)
{
  struct pc_gen_workload w;
  uint64_t pos = 0, n = 0;
  char first[PC_GEN_TEXT_MAX], text[PC_GEN_TEXT_MAX], prev[PC_GEN_TEXT_MAX] = "";
  unsigned kinds = 0, per_kind[64] = { 0 }, per_persist[PC_GEN_NPERSIST] = { 0 };
  unsigned made_here = 0, dir_renamed = 0, osync = 0;

  while (pc_gen_kind_name (kinds))
    kinds++;
  while (pc_gen_next (1, &pos, &w)) {
    ck_assert_uint_eq (w.nsteps, 1);
    ck_assert (pc_gen_valid (&w));
    ck_assert_uint_ne (w.step[0].persist, PC_GEN_NONE);
    ck_assert (w.step[0].target == 0 || w.step[0].target == 2 || w.step[0].target == 6 ||
               w.step[0].target == 7 || w.step[0].target == 8);
    for (unsigned p = 0; p < PC_GEN_NPERSIST; p++)
      per_persist[p] += w.step[0].persist == p;
    made_here += w.step[0].target >= 7 && strncmp (pc_gen_kind_name (w.step[0].kind), "creat", 5);
    dir_renamed += strncmp (pc_gen_kind_name (w.step[0].kind), "rename.dir.", 11) == 0;
    osync += strncmp (pc_gen_kind_name (w.step[0].kind), "swrite.", 7) == 0 ||
             strncmp (pc_gen_kind_name (w.step[0].kind), "dswrite.", 8) == 0;
    pc_gen_format (&w, text);
    ck_assert_str_ne (text, prev);
    if (n == 0)
      strcpy (first, text);
    strcpy (prev, text);
    per_kind[w.step[0].kind]++;
    n++;
  }
  /* every kind is there */
  for (unsigned k = 0; k < kinds; k++)
    ck_assert_msg (per_kind[k] > 0, "%s never", pc_gen_kind_name (k));
  ck_assert_uint_ge (n, 300);
  ck_assert_uint_lt (n, 1500);
  for (unsigned p = PC_GEN_FSYNC; p < PC_GEN_NPERSIST; p++)
    ck_assert_uint_gt (per_persist[p], 50);
  ck_assert_uint_gt (made_here, 100);
  ck_assert_uint_ge (dir_renamed, 4);
  ck_assert_uint_ge (osync, 40);
  ck_assert_str_eq (first, "creat f0 fsync");
  /* the same again */
  pos = 0;
  ck_assert (pc_gen_next (1, &pos, &w));
  pc_gen_format (&w, text);
  ck_assert_str_eq (text, first);
}
END_TEST

/* The argument classes: each named, each with workloads of one
 * operation, and the counts by class as many as the workloads (one
 * operation, one class or none); a longer workload counts in each class
 * of its operations. */
START_TEST (test_classes)
{
  struct pc_gen_counts c;
  struct pc_gen_workload w;
  uint64_t pos = 0, n = 0, sum = 0, per[PC_GEN_NCLASSES] = { 0 };

  ck_assert_ptr_null (pc_gen_class_name (0));
  ck_assert_ptr_null (pc_gen_class_name (PC_GEN_NCLASSES));
  ck_assert_str_eq (pc_gen_class_name (1), "size");
  while (pc_gen_next (1, &pos, &w)) {
    per[pc_gen_kind_class (w.step[0].kind)]++;
    n++;
  }
  pc_gen_count (1, &c);
  ck_assert_uint_eq (c.workloads, n);
  ck_assert_uint_eq (c.places, pc_gen_positions (1));
  ck_assert_uint_eq (c.plain, per[0]);
  for (unsigned k = 1; k < PC_GEN_NCLASSES; k++) {
    ck_assert_ptr_nonnull (pc_gen_class_name (k));
    ck_assert_uint_gt (c.in_class[k], 0);
    ck_assert_uint_eq (c.in_class[k], per[k]);
    sum += c.in_class[k];
  }
  ck_assert_uint_eq (c.plain + sum, c.workloads);
  ck_assert_uint_eq (pc_gen_kind_class (0), 0);
  w = parsed ("write.large f0 none; write.oappend f0 fsync");
  ck_assert_uint_eq (pc_gen_kind_class (w.step[0].kind) != pc_gen_kind_class (w.step[1].kind), 1);
}
END_TEST

/* Longer: an operation never needs what an earlier one removed, and only
 * the last call cannot be none. */
START_TEST (test_seq2)
{
  struct pc_gen_workload w;
  uint64_t pos = 0, n = 0, with_none = 0;

  while (pc_gen_next (2, &pos, &w) && n < 20000) {
    ck_assert_uint_eq (w.nsteps, 2);
    ck_assert (pc_gen_valid (&w));
    ck_assert_uint_ne (w.step[1].persist, PC_GEN_NONE);
    with_none += w.step[0].persist == PC_GEN_NONE;
    n++;
  }
  ck_assert_uint_eq (n, 20000);
  ck_assert_uint_gt (with_none, 0);
  /* a write to a file unlinked before it is not generated */
  w.nsteps = 2;
  w.step[0] = (struct pc_gen_step) { 0, 0, 0 };
  {
    struct pc_gen_workload u = parsed ("unlink f0 none; write.append f1 fsync");
    struct pc_err err;
    ck_assert (pc_gen_valid (&u));
    ck_assert_int_eq (pc_gen_parse ("unlink f0 none; write.append f0 fsync", &u, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("write.append f0 none", &u, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("write.sideways f0 fsync", &u, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("write.append f9 fsync", &u, &err), -EINVAL);
  }
}
END_TEST

static bool
holds_rename (const struct pc_gen_workload *w, void *arg)
{
  char text[PC_GEN_TEXT_MAX];

  (void) arg;
  pc_gen_format (w, text);
  return strstr (text, "rename") != NULL;
}

/* --limit's sample: each of count stretches gives a valid workload at a
 * position of its own, in order, spread over the whole order (every first
 * kind's third of seq 2 is reached); the same for a seed; another seed
 * picks others; a filter is kept; more than the positions is as many. */
START_TEST (test_sample)
{
  struct pc_gen_workload w, v;
  uint64_t total = pc_gen_positions (2), pos, last = 0, count = 60, differ = 0;
  unsigned thirds[3] = { 0 };

  ck_assert_uint_eq (pc_gen_positions (0), 0);
  ck_assert_uint_eq (pc_gen_positions (PC_GEN_MAX_OPS + 1), 0);
  ck_assert_uint_gt (total, 1000000);
  for (uint64_t i = 0; i < count; i++) {
    uint64_t p2;
    ck_assert (pc_gen_sample (2, 5, i, count, NULL, NULL, &pos, &w));
    ck_assert (pc_gen_valid (&w));
    ck_assert_uint_ge (pos, i * total / count);
    ck_assert_uint_lt (pos, (i + 1) * total / count);
    ck_assert (i == 0 || pos > last);
    ck_assert (pc_gen_at (2, pos, &v));
    {
      /* the same workload (its text: the structs' padding may differ) */
      char a[PC_GEN_TEXT_MAX], b[PC_GEN_TEXT_MAX];
      pc_gen_format (&v, a);
      pc_gen_format (&w, b);
      ck_assert_str_eq (a, b);
    }
    thirds[pos * 3 / total]++;
    last = pos;
    ck_assert (pc_gen_sample (2, 5, i, count, NULL, NULL, &p2, &v));
    ck_assert_uint_eq (p2, pos);
    ck_assert (pc_gen_sample (2, 6, i, count, NULL, NULL, &p2, &v));
    differ += p2 != pos;
  }
  for (unsigned t = 0; t < 3; t++)
    ck_assert_uint_ge (thirds[t], 19);
  ck_assert_uint_gt (differ, count / 2);
  ck_assert (!pc_gen_sample (2, 5, count, count, NULL, NULL, &pos, &w));
  /* filtered */
  for (uint64_t i = 0; i < 20; i++)
    if (pc_gen_sample (2, 1, i, 20, holds_rename, NULL, &pos, &w))
      ck_assert (holds_rename (&w, NULL));
  /* seq 1 has fewer positions than 100000: one per position at most */
  {
    uint64_t n1 = pc_gen_positions (1), got = 0, valid = 0;
    for (uint64_t i = 0; i < 100000; i++)
      got += pc_gen_sample (1, 0, i, 100000, NULL, NULL, &pos, &w);
    pos = 0;
    while (pc_gen_next (1, &pos, &w))
      valid++;
    ck_assert_uint_eq (got, valid);
    ck_assert_uint_lt (valid, n1);
  }
}
END_TEST

/* Sampled: the same for a seed and an index, valid, of every length. */
START_TEST (test_random)
{
  struct pc_gen_workload a, b;
  unsigned len[PC_GEN_MAX_OPS + 1] = { 0 };
  char ta[PC_GEN_TEXT_MAX], tb[PC_GEN_TEXT_MAX];

  for (uint64_t i = 0; i < 500; i++) {
    pc_gen_random (7, i, &a);
    pc_gen_random (7, i, &b);
    ck_assert (pc_gen_valid (&a));
    pc_gen_format (&a, ta);
    pc_gen_format (&b, tb);
    ck_assert_str_eq (ta, tb);
    len[a.nsteps]++;
  }
  for (unsigned n = 1; n <= PC_GEN_MAX_OPS; n++)
    ck_assert_uint_gt (len[n], 50);
  pc_gen_random (8, 0, &b);
  pc_gen_random (7, 0, &a);
  pc_gen_format (&a, ta);
  pc_gen_format (&b, tb);
  ck_assert_str_ne (ta, tb);
}
END_TEST

/* The script of the workload in text holds expect. */
static void
script_has (const char *text, const char *expect)
{
  struct pc_gen_workload w = parsed (text);

  ck_assert_msg (strstr (script (&w, NULL), expect) != NULL, "%s: no %s", text, expect);
}

/* Text and back; and the commands of each operation. */
START_TEST (test_text_script)
{
  struct pc_gen_workload w = parsed ("rename.over d0/f0 none; falloc.punch.inside d0/f1 fsync; "
                                     "unlink f1 sync");
  char text[PC_GEN_TEXT_MAX];
  const char *s;

  pc_gen_format (&w, text);
  ck_assert_str_eq (text, "rename.over d0/f0 none; falloc.punch.inside d0/f1 fsync; unlink f1 sync");
  s = script (&w, NULL);
  ck_assert_ptr_nonnull (strstr (s, "mkdir d0 d1 d0/n\n"));
  ck_assert_ptr_nonnull (strstr (s, "xfs_io -f -c \"pwrite -S 0x5a 0 16384\" d1/f1 >/dev/null\n"));
  ck_assert_ptr_nonnull (strstr (s, "sync\nSTART\nmv -T d0/f0 d0/f1\n"
                                    "xfs_io -c \"fpunch 4096 4096\" d0/f1\nsync d0/f1\n"
                                    "rm f1\nsync\n"));
  s = script (&w, "op");
  ck_assert_ptr_nonnull (strstr (s, "op 0 mkdir d0 d1 d0/n\n"));
  ck_assert_ptr_nonnull (strstr (s, "op 1 mv -T d0/f0 d0/f1\nop 2 xfs_io"));
  ck_assert_ptr_nonnull (strstr (s, "op 2 sync d0/f1\nop 3 rm f1\nop 3 sync\n"));
  ck_assert_uint_eq (pc_gen_calls (&w), 5);

  /* f2's size is not whole blocks: an append of 511 bytes stays in its
   * last block, and the direct RWF_DSYNC write of that block, whole,
   * reaches past its end */
  ck_assert_ptr_nonnull (strstr (s, "xfs_io -f -c \"pwrite -S 0x5a 0 14000\" f2 >/dev/null\n"));
  w = parsed ("write.append.511 f2 fdatasync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "xfs_io -c \"pwrite -S 0x61 14000 511\" f2\n"
                                                    "sync -d f2\n"));
  w = parsed ("dwrite.dsync.tail f2 fsync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "xfs_io -d -c \"pwrite -V 1 -D -S 0x61 12288 4096\" "
                                                    "f2\nsync f2\n"));
  w = parsed ("dwrite.dsync.tail f0 fsync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "\"pwrite -V 1 -D -S 0x61 12288 4096\" f0\n"));
  {
    struct pc_err err;
    ck_assert_int_eq (pc_gen_parse ("dwrite.dsync.tail new fsync", &w, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("creat f2 fsync", &w, &err), -EINVAL);
  }
  /* the argument classes: sizes, an overwrite across a block boundary,
   * RWF_DSYNC, O_APPEND (the kernel writes at the end, whatever the
   * offset), a directory's attribute, 4 MiB, a third level */
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "mkdir d0 d1 d0/n\nsetfattr -n user.pc -v setup d0\n"));
  script_has ("truncate.zero f0 fsync", "truncate -s 0 f0\nsync f0\n");
  script_has ("write.append.4097 f2 fsync", "xfs_io -c \"pwrite -S 0x61 14000 4097\" f2\n");
  script_has ("write.append.blocks f0 fsync", "\"pwrite -S 0x61 16384 12288\" f0\n");
  script_has ("write.straddle d0/f0 fdatasync", "\"pwrite -S 0x61 4000 200\" d0/f0\nsync -d d0/f0\n");
  script_has ("write.dsync.append f0 none; write.oappend f0 fsync",
              "xfs_io -c \"pwrite -V 1 -D -S 0x61 16384 5000\" f0\n"
              "xfs_io -a -c \"pwrite -S 0x62 0 5000\" f0\nsync f0\n");
  script_has ("write.large f1 sync", "\"pwrite -b 1048576 -S 0x61 16384 4194304\" f1\n");
  script_has ("removexattr.dir f0 none; setxattr.dir f0 fsync.parent",
              "setfattr -x user.pc d0\nsetfattr -n user.pc -v v2 d0\nsync .\n");
  script_has ("creat.deep f0 fsync.parent", "touch d0/n/new\nsync d0/n\n");
  {
    /* an empty file is not truncated to 0; an attribute removed twice;
     * a file made in a directory removed; creat.deep has one target */
    struct pc_err err;
    ck_assert_int_eq (pc_gen_parse ("truncate.zero new fsync", &w, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("removexattr.dir f0 none; removexattr.dir f0 fsync", &w, &err),
                      -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("rmdir f0 none; creat.deep f0 fsync", &w, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("creat.deep f1 fsync", &w, &err), -EINVAL);
  }

  /* the unlink syncs its directory; O_DIRECT, mmap, truncate, xattrs */
  s = script (&(struct pc_gen_workload) { 0 }, NULL);
  w = parsed ("unlink d1/f0 fsync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "rm d1/f0\nsync d1\n"));
  w = parsed ("dwrite.append f0 fdatasync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "xfs_io -d -c \"pwrite -S 0x61 16384 4096\" f0\n"
                                                    "sync -d f0\n"));
  w = parsed ("mwrite f1 fsync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "\"msync -s 0 4096\" f1\n"));
  w = parsed ("truncate.down.unaligned f1 sync; removexattr f1 sync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "truncate -s 1000 f1\nsync\n"
                                                    "setfattr -x user.pc f1\nsync\n"));
  /* a file the workload makes, made unsynced before the operation */
  w = parsed ("write.append d0/new fsync.parent");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "START\ntouch d0/new\n"
                                 "xfs_io -c \"pwrite -S 0x61 0 5000\" d0/new\nsync d0\n"));
  w = parsed ("swrite.start f0 fsync.other");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "xfs_io -s -c \"pwrite -S 0x61 100 3000\" f0\n"
                                                    "sync d1/f1\n"));
  w = parsed ("dswrite.append d0/f1 fsync.root");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "xfs_io -d -s -c \"pwrite -S 0x61 16384 4096\" "
                                                    "d0/f1\nsync .\n"));
  w = parsed ("rename.dir.across f0 fsync.parent; mkdir.root f0 sync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "mv -T d0/n d1/n\nsync d1\n"));
  w = parsed ("rename.up d0/f0 fsync.parent");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "mv -T d0/f0 u\nsync .\n"));
  w = parsed ("mwrite.extend new fsync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "touch new\nxfs_io -c \"truncate 4096\" "
                                 "-c \"mmap -rw 0 4096\""));
  w = parsed ("falloc.zerokeep.straddle f1 fsync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "\"fzero -k 14336 8192\" f1\n"));
  w = parsed ("symlink d1/f0 fsync");
  ck_assert_ptr_nonnull (strstr (script (&w, NULL), "ln -s f0 d1/s\nsync d1\n"));
  {
    struct pc_gen_workload u;
    struct pc_err err;
    /* not made: the root's fsync twice, a directory moved away and then
     * removed where it was, a file renamed up from the root */
    ck_assert_int_eq (pc_gen_parse ("write.append f0 fsync.root", &u, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("rename.dir.up f0 none; rmdir f0 sync", &u, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("rename.up f1 fsync", &u, &err), -EINVAL);
    ck_assert_int_eq (pc_gen_parse ("creat new fsync", &u, &err), -EINVAL);
  }
  (void) s;
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("gen");
  TCase *tc = tcase_create ("gen");

  tcase_add_test (tc, test_seq1);
  tcase_add_test (tc, test_classes);
  tcase_add_test (tc, test_seq2);
  tcase_add_test (tc, test_random);
  tcase_add_test (tc, test_sample);
  tcase_add_test (tc, test_text_script);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
