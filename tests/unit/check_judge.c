/* check_judge.c: unit tests of lib/judge: when a state takes an earlier
 * state's e2fsck answer and when it must not (a damaged metadata block of
 * a state that would otherwise take it is reported), a tree read with
 * the cache against one read without (on an ext4 image made by
 * mkfs.ext4), and a filesystem without a journal repaired by e2fsck -p as
 * a boot does, in an overlay or kept, or by e2fsck -fy where e2fsck -p
 * stops for a person (on ext2 images). */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "util/disk.h"
#include "judge/fstree.h"
#include "judge/judge.h"
#include "replay/memio.h"
#include "util/util.h"
#include "unit.h"

static char dir[64], img[128], mirror[128];
static struct pc_image *im;
static struct pc_judge *jd;
static int mfd = -1;

/* The filesystem block where file ino's data (or the directory's) starts. */
static uint64_t
first_block (ext2_ino_t ino)
{
  ext2_filsys fs;
  blk64_t b = 0;

  ck_assert_int_eq (pc_memio_open (pc_image_data (im), pc_image_size (im),
                                   EXT2_FLAG_64BITS, &fs, NULL), 0);
  ck_assert_int_eq (ext2fs_bmap2 (fs, ino, NULL, NULL, 0, 0, NULL, &b), 0);
  ext2fs_close_free (&fs);
  ck_assert_uint_ne (b, 0);
  return b;
}

static ext2_ino_t
lookup (const char *name)
{
  ext2_filsys fs;
  ext2_ino_t ino = 0;

  ck_assert_int_eq (pc_memio_open (pc_image_data (im), pc_image_size (im),
                                   EXT2_FLAG_64BITS, &fs, NULL), 0);
  ck_assert_int_eq (ext2fs_lookup (fs, EXT2_ROOT_INO, name, (int) strlen (name), NULL, &ino), 0);
  ext2fs_close_free (&fs);
  return ino;
}

/* A small filesystem made by mkfs (its options mkfs), with two files a
 * and b of a few blocks, then changed by the shell commands then (the
 * image is $I) before it is loaded. */
static void
setup_fs (const char *mkfs, const char *then)
{
  struct pc_judge_config cfg = { 0 };
  char cmd[4096];
  uint8_t *mem, hash[16];
  uint64_t size;

  strcpy (dir, "/tmp/check_judge.XXXXXX");
  ck_assert_ptr_nonnull (mkdtemp (dir));
  snprintf (img, sizeof img, "%s/fs.img", dir);
  snprintf (mirror, sizeof mirror, "%s/state.img", dir);
  snprintf (cmd, sizeof cmd,
            "%s -q -F -b 4096 -E lazy_itable_init=0 %s 16M >/dev/null && "
            "seq 1 20000 > %s/data && "
            "debugfs -w -R 'write %s/data a' %s >/dev/null 2>&1 && "
            "debugfs -w -R 'write %s/data b' %s >/dev/null 2>&1 && "
            "I=%s && %s",
            mkfs, img, dir, dir, img, dir, img, img, then);
  ck_assert_int_eq (system (cmd), 0);
  ck_assert_int_eq (pc_image_read (img, 0, 0, &mem, &size, hash), 0);
  mfd = open (mirror, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ck_assert_int_ge (mfd, 0);
  ck_assert_int_eq (pc_image_new (size, mem, mfd, PC_IMAGE_HASH, &im), 0);
  pc_image_unmap (mem, size);
  cfg.image_path = mirror;
  cfg.timeout_s = 60;
  cfg.now = 1700000000;
  cfg.hash_limit = UINT64_MAX;
  cfg.read_tree = true;
  ck_assert_int_eq (pc_judge_new (&cfg, im, &jd), 0);
}

/* ext4, with its journal */
static void
setup (void)
{
  setup_fs ("mkfs.ext4", "true");
}

static void
teardown (void)
{
  char cmd[256];

  pc_judge_free (jd);
  pc_image_free (im);
  close (mfd);
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq (system (cmd), 0);
}

/* Judges the image as state tag; returns the judgement (tree freed). */
static struct pc_judgement
judge (int64_t tag)
{
  struct pc_judgement jm;

  ck_assert_int_eq (pc_judge_state (jd, tag, &jm), 0);
  pc_judgement_clear (&jm);
  return jm;
}

/* Writes len bytes of b at filesystem block blk (4 KiB), in an overlay. */
static void
scribble (uint64_t blk, size_t off, uint8_t b, size_t len)
{
  uint8_t buf[4096];

  memset (buf, b, sizeof buf);
  ck_assert_int_eq (pc_image_write (im, blk * 4096 + off, buf, len), 0);
}

START_TEST (same_bytes_same_answer)
{
  struct pc_check_work st;
  struct pc_judgement a = judge (10), b = judge (11);

  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert_int_eq (a.fsck_as, -1);
  /* nothing changed: the second state takes the first one's answer */
  ck_assert_int_eq (b.verdict, PC_V_OK);
  ck_assert_int_eq (b.fsck_as, 10);
  pc_judge_get_stats (jd, &st);
  ck_assert_uint_eq (st.fsck_runs, 1);
  ck_assert_uint_eq (st.fsck_reused, 1);
}
END_TEST

START_TEST (unread_change_keeps_answer)
{
  struct pc_judgement a = judge (1), b;

  /* the last block of the filesystem is free: e2fsck never reads it */
  ck_assert_int_eq (pc_image_overlay_begin (im), 0);
  scribble (16 * 256 - 1, 0, 0xa5, 4096);
  b = judge (2);
  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert_int_eq (b.verdict, PC_V_OK);
  ck_assert_int_eq (b.fsck_as, 1);
  ck_assert_int_eq (pc_image_overlay_end (im), 0);
}
END_TEST

START_TEST (damaged_metadata_is_checked)
{
  struct pc_check_work st;
  struct pc_judgement a = judge (1), b, c;

  /* the root directory's block, which e2fsck read: damaged, the state is
   * checked again and found corrupt */
  ck_assert_int_eq (pc_image_overlay_begin (im), 0);
  scribble (first_block (EXT2_ROOT_INO), 24, 0xff, 64);
  b = judge (2);
  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert_int_ne (b.verdict, PC_V_OK);
  ck_assert_int_eq (b.fsck_as, -1);
  ck_assert_int_eq (pc_image_overlay_end (im), 0);
  /* and with the damage undone, the first answer holds again */
  c = judge (3);
  ck_assert_int_eq (c.verdict, PC_V_OK);
  ck_assert_int_eq (c.fsck_as, 1);
  pc_judge_get_stats (jd, &st);
  ck_assert_uint_eq (st.fsck_runs, 2);
  ck_assert_uint_eq (st.preened, 0);  /* a journal: no boot repairs it */
}
END_TEST

START_TEST (damaged_inode_table_is_checked)
{
  struct pc_judgement a = judge (1), b;
  ext2_ino_t ino = lookup ("b");
  ext2_filsys fs;
  blk64_t itab;

  ck_assert_int_eq (pc_memio_open (pc_image_data (im), pc_image_size (im),
                                   EXT2_FLAG_64BITS, &fs, NULL), 0);
  itab = ext2fs_inode_table_loc (fs, 0) + (ino - 1) * EXT2_INODE_SIZE (fs->super) / 4096;
  ext2fs_close_free (&fs);
  /* one inode of the table, e2fsck read it: its mode and checksum are wrong now */
  ck_assert_int_eq (pc_image_overlay_begin (im), 0);
  scribble (itab, ((ino - 1) % 16) * 256, 0x77, 8);
  b = judge (2);
  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert_int_ne (b.verdict, PC_V_OK);
  ck_assert_int_eq (b.fsck_as, -1);
  ck_assert_int_eq (pc_image_overlay_end (im), 0);
}
END_TEST

/* The entry of name in the tree, or NULL. */
static const struct pc_entry *
entry (const struct pc_mark *m, const char *name)
{
  return pc_mark_find (m, name);
}

START_TEST (cached_tree_is_the_tree)
{
  struct pc_judgement a, b;
  struct pc_mark plain;
  char problems[512];
  uint8_t ha[16], hb[16];
  struct pc_check_work st;

  ck_assert_int_eq (pc_judge_state (jd, 1, &a), 0);
  ck_assert (a.have_tree);
  memcpy (ha, entry (&a.tree, "a")->hash, 16);
  memcpy (hb, entry (&a.tree, "b")->hash, 16);
  ck_assert_mem_eq (ha, hb, 16);
  pc_judgement_clear (&a);
  /* a's first data block changes (e2fsck does not read file data) */
  ck_assert_int_eq (pc_image_overlay_begin (im), 0);
  scribble (first_block (lookup ("a")), 100, 'x', 10);
  ck_assert_int_eq (pc_judge_state (jd, 2, &b), 0);
  ck_assert (b.have_tree);
  ck_assert_int_eq (b.fsck_as, 1);
  /* a is read again and hashes differently, b is taken from the cache */
  ck_assert_mem_ne (entry (&b.tree, "a")->hash, ha, 16);
  ck_assert_mem_eq (entry (&b.tree, "b")->hash, hb, 16);
  pc_judge_get_stats (jd, &st);
  ck_assert_uint_ge (st.files_reused, 1);
  /* the same tree as a walk without any cache */
  ck_assert_int_eq (pc_fstree_read_mem (pc_image_data (im), pc_image_size (im), UINT64_MAX,
                                        &plain, problems, sizeof problems), 0);
  ck_assert_uint_eq (plain.nentries, b.tree.nentries);
  for (size_t i = 0; i < plain.nentries; i++) {
    ck_assert_str_eq (plain.entries[i].path, b.tree.entries[i].path);
    ck_assert_mem_eq (plain.entries[i].hash, b.tree.entries[i].hash, 16);
    ck_assert_uint_eq (plain.entries[i].size, b.tree.entries[i].size);
  }
  pc_mark_free (&plain);
  pc_judgement_clear (&b);
  ck_assert_int_eq (pc_image_overlay_end (im), 0);
}
END_TEST

/* Without a journal, after a crash: the superblock says "not clean", a
 * block is marked used that no file has, and the free counts are wrong
 * (what e2fsck -p repairs at boot without asking). */
#define CRASHED "debugfs -w -R 'setb 3000' $I >/dev/null 2>&1 && " \
                "debugfs -w -R 'ssv free_blocks_count 17' $I >/dev/null 2>&1"
#define NOT_CLEAN " && debugfs -w -R 'ssv state 0' $I >/dev/null 2>&1"

static void
setup_preened (void)
{
  setup_fs ("mkfs.ext2", CRASHED NOT_CLEAN);
}

START_TEST (no_journal_repaired_as_a_boot_does)
{
  struct pc_check_work st;
  struct pc_judgement a, b;
  uint8_t before[4096];

  memcpy (before, pc_image_data (im), sizeof before);
  ck_assert_int_eq (pc_judge_state (jd, 1, &a), 0);
  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert_msg (strncmp (a.evidence, "no journal: e2fsck -p repaired", 30) == 0, "%s", a.evidence);
  ck_assert_msg (strstr (a.evidence, "Block bitmap differences") != NULL, "%s", a.evidence);
  ck_assert (a.have_tree);      /* the repaired tree, read */
  ck_assert_ptr_nonnull (entry (&a.tree, "a"));
  pc_judgement_clear (&a);
  pc_judge_get_stats (jd, &st);
  ck_assert_uint_eq (st.preened, 1);
  /* the repair was in the overlay: the state is as it was, and judged
   * the same again */
  ck_assert_mem_eq (pc_image_data (im), before, sizeof before);
  ck_assert_int_eq (pc_judge_state (jd, 2, &b), 0);
  ck_assert_int_eq (b.verdict, PC_V_OK);
  pc_judgement_clear (&b);
}
END_TEST

/* pc_judge_reboot keeps what the boot's e2fsck -p repaired, in memory
 * and in the mirror file, which e2fsck -fn then passes. */
START_TEST (no_journal_reboot_keeps_the_repair)
{
  struct pc_judgement a;
  uint8_t *mem, hash[16];
  uint64_t size;
  char cmd[256];

  ck_assert_int_eq (pc_judge_reboot (jd, &a), 0);
  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert_msg (strncmp (a.evidence, "no journal: e2fsck -p repaired", 30) == 0, "%s", a.evidence);
  ck_assert (!a.have_tree);
  ck_assert_int_eq (pc_image_read (mirror, 0, 0, &mem, &size, hash), 0);
  ck_assert_uint_eq (size, pc_image_size (im));
  ck_assert_msg (memcmp (mem, pc_image_data (im), size) == 0, "the mirror file is not the image");
  pc_image_unmap (mem, size);
  snprintf (cmd, sizeof cmd, "E2FSCK_TIME=1700000000 e2fsck -fn %s >/dev/null 2>&1", mirror);
  ck_assert_int_eq (system (cmd), 0);
}
END_TEST

static void
setup_clean (void)
{
  setup_fs ("mkfs.ext2", CRASHED);
}

/* The state is fs-corrupt, its evidence says why (says), and no state
 * was counted repaired. */
static void
still_corrupt (const char *says)
{
  struct pc_check_work st;
  struct pc_judgement a = judge (1);

  ck_assert_int_eq (a.verdict, PC_V_FS_CORRUPT);
  ck_assert_msg (strstr (a.evidence, says) != NULL, "%s", a.evidence);
  pc_judge_get_stats (jd, &st);
  ck_assert_uint_eq (st.preened, 0);
}

START_TEST (no_journal_called_clean_stays_corrupt)
{
  /* the superblock says clean: the boot's e2fsck -p checks no further */
  still_corrupt ("leaves it as it is");
}
END_TEST

static void
setup_by_hand (void)
{
  /* b's first block is a's too: e2fsck -p stops for a person */
  setup_fs ("mkfs.ext2",
            "blk=$(debugfs -R 'bmap a 0' $I 2>/dev/null) && "
            "debugfs -w -R \"sif b block[0] $blk\" $I >/dev/null 2>&1" NOT_CLEAN);
}

/* Where the boot's e2fsck -p stops, the person it asks for runs e2fsck
 * -fy: the state is judged as that left it (its files read), by_hand
 * says so, and the evidence has both e2fsck's words; in the overlay, so
 * the state is as it was. */
START_TEST (no_journal_by_hand_is_repaired_by_hand)
{
  struct pc_check_work st;
  struct pc_judgement a;
  uint8_t before[4096];

  memcpy (before, pc_image_data (im), sizeof before);
  ck_assert_int_eq (pc_judge_state (jd, 1, &a), 0);
  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert (a.by_hand);
  ck_assert_msg (strstr (a.evidence, "e2fsck -p cannot repair it") != NULL, "%s", a.evidence);
  ck_assert_msg (strstr (a.evidence, "e2fsck -fy:") != NULL, "%s", a.evidence);
  ck_assert_msg (strstr (a.evidence, "multiply-claimed") != NULL, "%s", a.evidence);
  ck_assert (a.have_tree);      /* the files, as e2fsck -fy left them */
  ck_assert_ptr_nonnull (entry (&a.tree, "a"));
  ck_assert_ptr_nonnull (entry (&a.tree, "b"));
  pc_judgement_clear (&a);
  pc_judge_get_stats (jd, &st);
  ck_assert_uint_eq (st.by_hand, 1);
  ck_assert_uint_eq (st.preened, 0);
  ck_assert_mem_eq (pc_image_data (im), before, sizeof before);
}
END_TEST

/* pc_judge_reboot keeps e2fsck -fy's repair too: e2fsck -fn passes the
 * mirror file after it. */
START_TEST (no_journal_by_hand_reboot_keeps_it)
{
  struct pc_judgement a;
  char cmd[256];

  ck_assert_int_eq (pc_judge_reboot (jd, &a), 0);
  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert (a.by_hand);
  snprintf (cmd, sizeof cmd, "E2FSCK_TIME=1700000000 e2fsck -fn %s >/dev/null 2>&1", mirror);
  ck_assert_int_eq (system (cmd), 0);
}
END_TEST

/* A directory's block never written (zeros): e2fsck -fn gives up
 * ("aborted"), as does e2fsck -p; e2fsck -fy salvages it. */
static void
setup_dir_zeroed (void)
{
  setup_fs ("mkfs.ext2",
            "debugfs -w -R 'mkdir d' $I >/dev/null 2>&1 && "
            "blk=$(debugfs -R 'bmap d 0' $I 2>/dev/null) && "
            "dd if=/dev/zero of=$I bs=4096 seek=$blk count=1 conv=notrunc status=none"
            NOT_CLEAN);
}

START_TEST (no_journal_fn_aborts_by_hand)
{
  struct pc_judgement a;

  ck_assert_int_eq (pc_judge_state (jd, 1, &a), 0);
  ck_assert_int_eq (a.verdict, PC_V_OK);
  ck_assert (a.by_hand);
  ck_assert_msg (strstr (a.evidence, "directory corrupted") != NULL, "%s", a.evidence);
  ck_assert (a.have_tree);
  ck_assert_ptr_nonnull (entry (&a.tree, "a"));
  pc_judgement_clear (&a);
}
END_TEST

/* A crash of ext4 without a journal: b's name is written, its inode
 * (13) not, and its group's unused-inode count still covers it.  e2fsck
 * -p fixes the count and plans a restart, yet stops at b's file type
 * (the inode skipped), which run again it repairs without asking. */
static void
setup_preen_again (void)
{
  setup_fs ("mkfs.ext4 -O ^has_journal",
            "ipg=$(dumpe2fs -h $I 2>/dev/null | awk '/^Inodes per group:/ { print $4 }') && "
            "debugfs -w $I -f - >/dev/null 2>&1 <<E\n"
            "clri <13>\nfreei <13>\nset_bg 0 itable_unused $((ipg - 12))\n"
            "set_bg 0 free_inodes_count $((ipg - 12))\nset_bg 0 checksum calc\n"
            "ssv state 0\nE\n");
}

START_TEST (no_journal_preen_stops_for_nothing)
{
  struct pc_judgement a = judge (1);

  ck_assert_int_eq (a.verdict, PC_V_FS_CORRUPT);
  ck_assert (a.preen_again);
  ck_assert (!a.by_hand);
  ck_assert_msg (strstr (a.evidence, "incorrect filetype") != NULL, "%s", a.evidence);
  ck_assert_msg (strstr (a.evidence, "e2fsck -p run again repairs") != NULL, "%s", a.evidence);
}
END_TEST

/* Who judges a state: one choice, by the filesystem, the state's journal
 * and the mode. */
START_TEST (one_choice_of_judge)
{
  uint8_t plain[1024], fc[1024];
  const struct pc_fs *ext4 = pc_fs_find ("ext4"), *xfs = pc_fs_find ("xfs");

  memset (plain, 0, sizeof plain);
  memset (fc, 0, sizeof fc);
  /* s_feature_compat: HAS_JOURNAL 0x4, FAST_COMMIT 0x400; s_feature_incompat:
   * RECOVER 0x4 (only fc's journal needs recovery) */
  pc_put_le16 (fc + 0x38, 0xEF53);
  pc_put_le32 (fc + 0x5C, 0x4 | 0x400);
  pc_put_le32 (fc + 0x60, 0x4);
  pc_put_le16 (plain + 0x38, 0xEF53);
  pc_put_le32 (plain + 0x5C, 0x4);
  ck_assert (pc_judge_kernel_replays (fc));
  ck_assert (!pc_judge_kernel_replays (plain));
  ck_assert (!pc_judge_kernel_replays (NULL));
  ck_assert_int_eq (pc_judge_pick (NULL, plain, PC_JUDGE_AUTO, true), PC_WHO_NOBODY);
  ck_assert_int_eq (pc_judge_pick (xfs, NULL, PC_JUDGE_AUTO, true), PC_WHO_KERNEL);
  ck_assert_int_eq (pc_judge_pick (xfs, NULL, PC_JUDGE_EXT2FS, true), PC_WHO_KERNEL);
  ck_assert_int_eq (pc_judge_pick (xfs, NULL, PC_JUDGE_AUTO, false), PC_WHO_NOBODY);
  ck_assert_int_eq (pc_judge_pick (ext4, plain, PC_JUDGE_AUTO, true), PC_WHO_EXT2FS);
  ck_assert_int_eq (pc_judge_pick (ext4, fc, PC_JUDGE_AUTO, true), PC_WHO_KERNEL);
  ck_assert_int_eq (pc_judge_pick (ext4, fc, PC_JUDGE_AUTO, false), PC_WHO_EXT2FS);
  ck_assert_int_eq (pc_judge_pick (ext4, fc, PC_JUDGE_EXT2FS, true), PC_WHO_EXT2FS);
  ck_assert_int_eq (pc_judge_pick (ext4, plain, PC_JUDGE_KERNEL, true), PC_WHO_KERNEL);
  ck_assert_int_eq (pc_judge_pick (ext4, plain, PC_JUDGE_BOTH, true), PC_WHO_BOTH);
  ck_assert_int_eq (pc_judge_pick (ext4, plain, PC_JUDGE_BOTH, false), PC_WHO_EXT2FS);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("judge");
  TCase *tc = tcase_create ("e2fsck answers");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, same_bytes_same_answer);
  tcase_add_test (tc, one_choice_of_judge);
  tcase_add_test (tc, unread_change_keeps_answer);
  tcase_add_test (tc, damaged_metadata_is_checked);
  tcase_add_test (tc, damaged_inode_table_is_checked);
  suite_add_tcase (s, tc);
  tc = tcase_create ("tree cache");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, cached_tree_is_the_tree);
  suite_add_tcase (s, tc);
  tc = tcase_create ("no journal, repaired");
  tcase_add_checked_fixture (tc, setup_preened, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, no_journal_repaired_as_a_boot_does);
  tcase_add_test (tc, no_journal_reboot_keeps_the_repair);
  suite_add_tcase (s, tc);
  tc = tcase_create ("no journal, called clean");
  tcase_add_checked_fixture (tc, setup_clean, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, no_journal_called_clean_stays_corrupt);
  suite_add_tcase (s, tc);
  tc = tcase_create ("no journal, by hand");
  tcase_add_checked_fixture (tc, setup_by_hand, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, no_journal_by_hand_is_repaired_by_hand);
  tcase_add_test (tc, no_journal_by_hand_reboot_keeps_it);
  suite_add_tcase (s, tc);
  tc = tcase_create ("no journal, e2fsck -fn gives up");
  tcase_add_checked_fixture (tc, setup_dir_zeroed, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, no_journal_fn_aborts_by_hand);
  suite_add_tcase (s, tc);
  tc = tcase_create ("no journal, e2fsck -p stops for nothing");
  tcase_add_checked_fixture (tc, setup_preen_again, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, no_journal_preen_stops_for_nothing);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
