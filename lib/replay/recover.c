/* recover.c: JBD2 journal replay into an image, the way e2fsck -E
 * journal_only leaves it, or a reason to let e2fsck do it. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "replay/jbd2.h"
#include "replay/memio.h"
#include "replay/recover.h"
#include "util/util.h"
#include "util/xxh.h"

/* Offsets in the journal superblock. */
#define JSB_BLOCKSIZE     0x0c
#define JSB_MAXLEN        0x10
#define JSB_FIRST         0x14
#define JSB_SEQUENCE      0x18
#define JSB_START         0x1c
#define JSB_ERRNO         0x20
#define JSB_COMPAT        0x24
#define JSB_INCOMPAT      0x28
#define JSB_RO_COMPAT     0x2c
#define JSB_UUID          0x30
#define JSB_NR_USERS      0x40
#define JSB_CSUM_TYPE     0x50
#define JSB_CHECKSUM      0xfc
#define JSB_SIZE          0x400

/* The superblock fields written here (ext2_fs.h's struct, as bytes). */
#define SB_WTIME          0x30
#define SB_INCOMPAT       0x60

int
pc_recover_cache_new (struct pc_recover_cache **ret)
{
  struct pc_recover_cache *c = calloc (1, sizeof *c);

  if (c == NULL)
    return -ENOMEM;
  *ret = c;
  return 0;
}

static void
jmap_clear (struct jmap *m)
{
  free (m->meta);
  free (m->map);
  free (m->run_first);
  free (m->run_count);
  memset (m, 0, sizeof *m);
}

void
pc_recover_cache_free (struct pc_recover_cache *c)
{
  if (c == NULL)
    return;
  free (c->m);
  jmap_clear (&c->jm);
  free (c);
}

/* Collecting a journal inode's blocks. */
struct collect {
  uint64_t *map, *meta;
  size_t nmeta, capmeta;
  uint64_t n;                   /* journal blocks */
  uint64_t fs_blocks, first_data;
  bool bad;
};

static int
collect_block (ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
               int ref_offset, void *priv)
{
  struct collect *c = priv;

  (void) fs; (void) ref_blk; (void) ref_offset;
  if (*blocknr < c->first_data || *blocknr >= c->fs_blocks) {
    c->bad = true;
    return BLOCK_ABORT;
  }
  if (blockcnt < 0) {
    if (pc_grow (&c->meta, &c->capmeta, c->nmeta + 1, sizeof *c->meta, 16) < 0) {
      c->bad = true;
      return BLOCK_ABORT;
    }
    c->meta[c->nmeta++] = *blocknr;
  }
  else if ((uint64_t) blockcnt < c->n)
    c->map[blockcnt] = *blocknr;
  return 0;
}

static uint64_t
meta_hash (const struct pc_image *im, const uint64_t *meta, size_t n, unsigned bs)
{
  XXH3_state_t st;
  static const uint8_t none[16];

  XXH3_64bits_reset (&st);
  for (size_t i = 0; i < n; i++) {
    const void *h = pc_image_block_hash (im, meta[i] * bs / PC_IMAGE_BLOCK);
    XXH3_64bits_update (&st, h ? h : none, 16);
  }
  return XXH3_64bits_digest (&st);
}

static int
u64_cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

/* Maps the journal (inode ino, read as e2fsck's journal setup does) into
 * m, reusing m if the inode and its mapping blocks did not change. */
static int
map_journal (struct journal *j, ext2_filsys fs, struct jmap *m)
{
  uint8_t raw[1024];
  size_t isz = EXT2_INODE_SIZE (fs->super) < sizeof raw ? EXT2_INODE_SIZE (fs->super) : sizeof raw;
  struct ext2_inode *inode = (struct ext2_inode *) raw;
  struct collect c = { 0 };
  uint64_t ih, *sorted;
  errcode_t e;

  if (isz < sizeof (struct ext2_inode))
    return jbd2_refuse (j, "inodes of %zu bytes", isz);
  e = ext2fs_read_inode_full (fs, EXT2_JOURNAL_INO, inode, (int) isz);
  if (e)
    return jbd2_refuse (j, "the journal inode cannot be read: %s", error_message (e));
  if (inode->i_links_count == 0 || !LINUX_S_ISREG (inode->i_mode) ||
      (inode->i_flags & EXT4_ENCRYPT_FL))
    return jbd2_refuse (j, "the journal inode is not a journal");
  if (EXT2_I_SIZE (inode) / fs->blocksize < JBD2_MIN_BLOCKS ||
      EXT2_I_SIZE (inode) / fs->blocksize > UINT32_MAX)
    return jbd2_refuse (j, "the journal has a size e2fsck would refuse");
  ih = XXH3_64bits (raw, isz);
  if (m->inode == ih && m->metahash == meta_hash (j->im, m->meta, m->nmeta, fs->blocksize))
    return 0;
  jmap_clear (m);
  c.n = EXT2_I_SIZE (inode) / fs->blocksize;
  c.fs_blocks = ext2fs_blocks_count (fs->super);
  c.first_data = fs->super->s_first_data_block;
  c.map = calloc (c.n, sizeof *c.map);
  if (c.map == NULL)
    return -ENOMEM;
  e = ext2fs_block_iterate3 (fs, EXT2_JOURNAL_INO, BLOCK_FLAG_READ_ONLY, NULL,
                             collect_block, &c);
  for (uint64_t i = 0; !e && !c.bad && i < c.n; i++)
    c.bad = c.map[i] == 0;
  if (e || c.bad) {
    free (c.map);
    free (c.meta);
    return jbd2_refuse (j, "the journal inode maps holes or blocks outside the filesystem");
  }
  m->map = c.map;
  m->n = (uint32_t) c.n;
  m->meta = c.meta;
  m->nmeta = c.nmeta;
  m->metahash = meta_hash (j->im, c.meta, c.nmeta, fs->blocksize);
  m->inode = ih;
  /* The same blocks as ascending runs, to tell a block of the journal. */
  sorted = malloc (c.n * sizeof *sorted);
  m->run_first = malloc (c.n * sizeof *m->run_first);
  m->run_count = malloc (c.n * sizeof *m->run_count);
  if (sorted == NULL || m->run_first == NULL || m->run_count == NULL) {
    free (sorted);
    jmap_clear (m);
    return -ENOMEM;
  }
  memcpy (sorted, c.map, c.n * sizeof *sorted);
  qsort (sorted, c.n, sizeof *sorted, u64_cmp);
  for (uint64_t i = 0; i < c.n; i++) {
    if (m->nruns > 0 && sorted[i] <= m->run_first[m->nruns - 1] + m->run_count[m->nruns - 1]) {
      uint64_t end = sorted[i] + 1;
      if (end > m->run_first[m->nruns - 1] + m->run_count[m->nruns - 1])
        m->run_count[m->nruns - 1] = end - m->run_first[m->nruns - 1];
      continue;
    }
    m->run_first[m->nruns] = sorted[i];
    m->run_count[m->nruns++] = 1;
  }
  free (sorted);
  return 0;
}

static bool
uuid_is_null_bytes (const uint8_t *u)
{
  for (int i = 0; i < 16; i++)
    if (u[i])
      return false;
  return true;
}

/* The filesystem features this code knows e2fsck does nothing more for. */
#define FS_COMPAT_REFUSED   (EXT4_FEATURE_COMPAT_FAST_COMMIT | EXT4_FEATURE_COMPAT_ORPHAN_FILE)
#define FS_INCOMPAT_REFUSED (EXT3_FEATURE_INCOMPAT_JOURNAL_DEV | EXT4_FEATURE_INCOMPAT_MMP)
#define FS_RO_REFUSED       (EXT4_FEATURE_RO_COMPAT_QUOTA | EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT)

/* Opens the filesystem in the image as e2fsck would, or says why not. */
static int
open_fs (struct journal *j, ext2_filsys *ret, const char *when)
{
  struct ext2_super_block *sb;
  ext2_filsys fs;
  struct pc_err oe;
  errcode_t e;

  if (pc_memio_open (j->mem, j->size, EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP, &fs, &oe) < 0)
    return jbd2_refuse (j, "%s, %s", when, oe.msg);
  sb = fs->super;
  if ((e = ext2fs_check_desc (fs)) != 0) {
    ext2fs_close_free (&fs);
    return jbd2_refuse (j, "%s, its group descriptors look bad: %s", when, error_message (e));
  }
  if ((sb->s_feature_compat & (FS_COMPAT_REFUSED | ~EXT2_LIB_FEATURE_COMPAT_SUPP)) ||
      (sb->s_feature_incompat & (FS_INCOMPAT_REFUSED | ~EXT2_LIB_FEATURE_INCOMPAT_SUPP)) ||
      (sb->s_feature_ro_compat & (FS_RO_REFUSED | ~EXT2_LIB_FEATURE_RO_COMPAT_SUPP))) {
    ext2fs_close_free (&fs);
    return jbd2_refuse (j, "%s, the filesystem has features e2fsck treats apart (orphan file, "
                   "quota, MMP, fast commits ...)", when);
  }
  if (sb->s_journal_inum != EXT2_JOURNAL_INO || sb->s_journal_dev != 0 ||
      !uuid_is_null_bytes (sb->s_journal_uuid)) {
    ext2fs_close_free (&fs);
    return jbd2_refuse (j, "%s, the journal is not the internal one of inode 8", when);
  }
  *ret = fs;
  return 0;
}

/* Reads and checks the journal superblock as e2fsck loads it. */
static int
load_journal (struct journal *j, const uint8_t *jsb)
{
  uint32_t compat = pc_get_be32 (jsb + JSB_COMPAT);
  uint32_t incompat = pc_get_be32 (jsb + JSB_INCOMPAT);
  uint32_t maxlen = pc_get_be32 (jsb + JSB_MAXLEN), first = pc_get_be32 (jsb + JSB_FIRST);

  if (pc_get_be32 (jsb) != JBD2_MAGIC || pc_get_be32 (jsb + 4) != JBD2_SB_V2)
    return jbd2_refuse (j, "the journal superblock is not a JBD2 v2 one");
  if (pc_get_be32 (jsb + JSB_NR_USERS) > 1)
    return jbd2_refuse (j, "the journal is shared by several filesystems");
  if (incompat & ~JBD2_INCOMPAT_HANDLED)
    return jbd2_refuse (j, "the journal uses %s", incompat & JBD2_INCOMPAT_FAST_COMMIT
                   ? "fast commits" : incompat & JBD2_INCOMPAT_ASYNC_COMMIT
                   ? "asynchronous commits" : "features unknown here");
  if (pc_get_be32 (jsb + JSB_RO_COMPAT) != 0 || (compat & JBD2_COMPAT_CHECKSUM))
    return jbd2_refuse (j, "the journal uses %s", compat & JBD2_COMPAT_CHECKSUM
                   ? "v1 transaction checksums" : "features unknown here");
  if ((incompat & JBD2_INCOMPAT_CSUM_V2) && (incompat & JBD2_INCOMPAT_CSUM_V3))
    return jbd2_refuse (j, "the journal superblock claims two checksum versions");
  j->incompat = incompat;
  j->csum = incompat & (JBD2_INCOMPAT_CSUM_V2 | JBD2_INCOMPAT_CSUM_V3);
  j->csum3 = incompat & JBD2_INCOMPAT_CSUM_V3;
  j->b64 = incompat & JBD2_INCOMPAT_64BIT;
  if (j->csum) {
    if (jsb[JSB_CSUM_TYPE] != JBD2_CRC32C ||
        jbd2_crc32c_hole (~0u, jsb, JSB_SIZE, JSB_CHECKSUM) != pc_get_be32 (jsb + JSB_CHECKSUM))
      return jbd2_refuse (j, "the journal superblock's checksum does not match");
    j->seed = jbd2_crc32c (~0u, jsb + JSB_UUID, 16);
  }
  if (pc_get_be32 (jsb + JSB_BLOCKSIZE) != j->bs)
    return jbd2_refuse (j, "the journal's block size is not the filesystem's");
  if (maxlen > j->jm->n)
    return jbd2_refuse (j, "the journal superblock claims more blocks than the journal has");
  if (first == 0 || first >= maxlen)
    return jbd2_refuse (j, "the journal superblock's first block is out of range");
  if (pc_get_be32 (jsb + JSB_ERRNO) != 0)
    return jbd2_refuse (j, "the journal records an error (e2fsck marks the filesystem)");
  j->total = maxlen;
  j->first = first;
  j->tag_bytes = j->csum3 ? 16 : 8 + (j->b64 ? 4 : 0) + (incompat & JBD2_INCOMPAT_CSUM_V2 ? 2 : 0);
  return 0;
}

/* A superblock field out of e2fsck's range (check_super_block aborts). */
static bool
out_of_range (uint64_t v, uint64_t min, uint64_t max)
{
  return v < min || v > max;
}

/* Does the resize inode pass e2fsck's check of it untouched? */
static bool
resize_inode_ok (struct journal *j, ext2_filsys fs)
{
  struct ext2_super_block *sb = fs->super;
  struct ext2_inode inode;
  uint32_t *dind, *ind;
  uint64_t blk, pblk;
  unsigned per = fs->blocksize / 4, gdt_off;
  bool ok = false;

  (void) j;
  if (ext2fs_has_feature_resize_inode (sb) && ext2fs_has_feature_meta_bg (sb))
    return false;
  if (!ext2fs_has_feature_resize_inode (sb) && sb->s_reserved_gdt_blocks)
    return false;
  if (ext2fs_read_inode (fs, EXT2_RESIZE_INO, &inode) != 0)
    return false;
  if (!ext2fs_has_feature_resize_inode (sb)) {
    for (int i = 0; i < EXT2_N_BLOCKS; i++)
      if (inode.i_block[i])
        return false;
    return true;
  }
  blk = inode.i_block[EXT2_DIND_BLOCK];
  for (int i = 0; i < EXT2_N_BLOCKS; i++)
    if (i != EXT2_DIND_BLOCK && inode.i_block[i])
      return false;
  if (!blk || !inode.i_links_count || !(inode.i_mode & LINUX_S_IFREG) ||
      blk < sb->s_first_data_block || blk >= ext2fs_blocks_count (sb))
    return false;
  dind = malloc (2 * fs->blocksize);
  if (dind == NULL)
    return false;
  ind = dind + per;
  if (ext2fs_read_ind_block (fs, (blk_t) blk, dind) != 0)
    goto out;
  gdt_off = fs->desc_blocks;
  pblk = sb->s_first_data_block + 1 + fs->desc_blocks;
  if (fs->blocksize == 1024 && sb->s_first_data_block == 0)
    pblk++;
  for (unsigned i = 0; i < sb->s_reserved_gdt_blocks / 4u; i++, gdt_off++, pblk++) {
    unsigned ind_off = 0;
    gdt_off %= per;
    if (dind[gdt_off] != pblk || ext2fs_read_ind_block (fs, (blk_t) pblk, ind) != 0)
      goto out;
    for (dgrp_t g = 1; g < fs->group_desc_count; g++) {
      if (!ext2fs_bg_has_super (fs, g))
        continue;
      if (ind_off >= per || ind[ind_off] != pblk + EXT2_GROUPS_TO_BLOCKS (sb, g))
        goto out;
      ind_off++;
    }
  }
  ok = true;
out:
  free (dind);
  return ok;
}

/* Would e2fsck -y (journal_only) change or refuse anything in the
 * recovered filesystem fs?  Its checks of the superblock, the group
 * descriptors, the journal's backup, the resize inode, orphans and the
 * dirhash hint: everything it does after the replay but before it stops. */
static int
would_repair (struct journal *j, ext2_filsys fs)
{
  struct ext2_super_block *sb = fs->super;
  unsigned bs = fs->blocksize, ratio = EXT2FS_CLUSTER_RATIO (fs);
  uint64_t blocks = ext2fs_blocks_count (sb), blks_max, first, last;
  uint32_t ipb = EXT2_INODES_PER_BLOCK (sb), ipg_max, cpg_max, bpg_max;
  struct ext2_inode inode;
  bool csum_flag = ext2fs_has_group_desc_csum (fs);

  ipg_max = ipb * (sb->s_blocks_per_group - 4);
  if (ipg_max > EXT2_MAX_INODES_PER_GROUP (sb))
    ipg_max = EXT2_MAX_INODES_PER_GROUP (sb);
  cpg_max = 8 * bs;
  if (cpg_max > EXT2_MAX_CLUSTERS_PER_GROUP (sb))
    cpg_max = EXT2_MAX_CLUSTERS_PER_GROUP (sb);
  bpg_max = 8 * bs * ratio;
  if (bpg_max > EXT2_MAX_BLOCKS_PER_GROUP (sb))
    bpg_max = EXT2_MAX_BLOCKS_PER_GROUP (sb);
  blks_max = (UINT64_C (1) << 32) * EXT2_MAX_BLOCKS_PER_GROUP (sb);
  if (blks_max > (ext2fs_has_feature_64bit (sb) ? (UINT64_C (1) << 48) - 1
                                                : (UINT64_C (1) << 32) - 1))
    blks_max = ext2fs_has_feature_64bit (sb) ? (UINT64_C (1) << 48) - 1
                                             : (UINT64_C (1) << 32) - 1;
  if (sb->s_inodes_count < 1 || out_of_range (blocks, 1, blks_max) ||
      sb->s_first_data_block > blocks ||
      out_of_range (sb->s_log_block_size, 0, EXT2_MAX_BLOCK_LOG_SIZE - EXT2_MIN_BLOCK_LOG_SIZE) ||
      out_of_range (sb->s_log_cluster_size, sb->s_log_block_size,
                    EXT2_MAX_CLUSTER_LOG_SIZE - EXT2_MIN_CLUSTER_LOG_SIZE) ||
      out_of_range (sb->s_clusters_per_group, 8, cpg_max) ||
      out_of_range (sb->s_blocks_per_group, 8, bpg_max) ||
      out_of_range (sb->s_inodes_per_group, ipb, ipg_max) ||
      ext2fs_r_blocks_count (sb) > blocks / 2 ||
      sb->s_reserved_gdt_blocks > bs / 4 ||
      sb->s_desc_size > EXT2_MAX_DESC_SIZE || (sb->s_desc_size & (sb->s_desc_size - 1)) ||
      (uint64_t) sb->s_inodes_per_group * fs->group_desc_count != sb->s_inodes_count ||
      (sb->s_rev_level > EXT2_GOOD_OLD_REV &&
       out_of_range (sb->s_first_ino, EXT2_GOOD_OLD_FIRST_INO, sb->s_inodes_count)) ||
      out_of_range (EXT2_INODE_SIZE (sb), EXT2_GOOD_OLD_INODE_SIZE, bs) ||
      (EXT2_INODE_SIZE (sb) & (EXT2_INODE_SIZE (sb) - 1)) ||
      sb->s_blocks_per_group != sb->s_clusters_per_group * ratio ||
      blocks > j->size / bs ||
      sb->s_first_data_block != (sb->s_log_block_size == 0 && ratio == 1 ? 1u : 0u))
    return jbd2_refuse (j, "after the replay, e2fsck would find the superblock wrong");
  if (EXT2_INODE_SIZE (sb) > EXT2_GOOD_OLD_INODE_SIZE) {
    unsigned min = 4, max = EXT2_INODE_SIZE (sb) - EXT2_GOOD_OLD_INODE_SIZE;
    if ((sb->s_min_extra_isize && (sb->s_min_extra_isize < min || sb->s_min_extra_isize > max ||
                                   (sb->s_min_extra_isize & 3))) ||
        (sb->s_want_extra_isize && (sb->s_want_extra_isize < min ||
                                    sb->s_want_extra_isize > max ||
                                    (sb->s_want_extra_isize & 3))))
      return jbd2_refuse (j, "after the replay, e2fsck would repair the extra inode sizes");
  }
  if ((ext2fs_has_feature_metadata_csum (sb) && ext2fs_has_feature_gdt_csum (sb)) ||
      (!ext2fs_has_feature_metadata_csum (sb) && ext2fs_has_feature_csum_seed (sb)) ||
      (ext2fs_has_feature_64bit (sb) && !ext2fs_has_feature_extents (sb)) ||
      (ext2fs_has_feature_meta_bg (sb) && sb->s_first_meta_bg > fs->desc_blocks))
    return jbd2_refuse (j, "after the replay, e2fsck would repair the feature flags");
  first = sb->s_first_data_block;
  last = blocks - 1;
  for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
    if (!ext2fs_has_feature_flex_bg (sb)) {
      first = ext2fs_group_first_block2 (fs, g);
      last = ext2fs_group_last_block2 (fs, g);
    }
    if (out_of_range (ext2fs_block_bitmap_loc (fs, g), first, last) ||
        out_of_range (ext2fs_inode_bitmap_loc (fs, g), first, last) ||
        ext2fs_inode_table_loc (fs, g) < first ||
        ext2fs_inode_table_loc (fs, g) + fs->inode_blocks_per_group - 1 > last ||
        !ext2fs_group_desc_csum_verify (fs, g) ||
        (!csum_flag && (ext2fs_bg_flags_test (fs, g, EXT2_BG_BLOCK_UNINIT) ||
                        ext2fs_bg_flags_test (fs, g, EXT2_BG_INODE_UNINIT) ||
                        ext2fs_bg_itable_unused (fs, g) != 0)) ||
        (g == fs->group_desc_count - 1 && ext2fs_bg_flags_test (fs, g, EXT2_BG_BLOCK_UNINIT)) ||
        (csum_flag && (ext2fs_bg_itable_unused (fs, g) > ext2fs_bg_free_inodes_count (fs, g) ||
                       ext2fs_bg_itable_unused (fs, g) > sb->s_inodes_per_group)))
      return jbd2_refuse (j, "after the replay, e2fsck would repair group %u's descriptor", g);
  }
  if ((uuid_is_null_bytes (sb->s_uuid) && !ext2fs_has_feature_metadata_csum (sb)) ||
      (sb->s_flags & EXT2_FLAGS_TEST_FILESYS) ||
      (sb->s_creator_os == EXT2_OS_HURD && ext2fs_has_feature_filetype (sb)) ||
      (sb->s_rev_level == EXT2_GOOD_OLD_REV &&
       (sb->s_feature_compat || sb->s_feature_ro_compat || sb->s_feature_incompat)))
    return jbd2_refuse (j, "after the replay, e2fsck would repair the superblock");
  if (sb->s_last_orphan != 0)
    return jbd2_refuse (j, "after the replay, there are orphan inodes to release");
  if (sb->s_checkinterval != 0 && (sb->s_mtime > (uint32_t) j->now ||
                                   sb->s_wtime > (uint32_t) j->now))
    return jbd2_refuse (j, "after the replay, the superblock's times are in the future");
  if (sb->s_usr_quota_inum || sb->s_grp_quota_inum || sb->s_prj_quota_inum)
    return jbd2_refuse (j, "the superblock names quota inodes");
  if (ext2fs_read_inode (fs, EXT2_JOURNAL_INO, &inode) != 0 ||
      sb->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS ||
      memcmp (inode.i_block, sb->s_jnl_blocks, EXT2_N_BLOCKS * 4) != 0)
    return jbd2_refuse (j, "after the replay, e2fsck would back the journal inode up again");
  if (ext2fs_has_feature_dir_index (sb) &&
      !(sb->s_flags & (EXT2_FLAGS_SIGNED_HASH | EXT2_FLAGS_UNSIGNED_HASH)))
    return jbd2_refuse (j, "after the replay, e2fsck would set the directory hash hint");
  return resize_inode_ok (j, fs) ? 0
         : jbd2_refuse (j, "after the replay, e2fsck would repair the resize inode");
}

/* The journal superblock as e2fsck leaves it: empty, at sequence seq. */
static int
write_jsb (struct journal *j, uint32_t seq)
{
  uint8_t *b = malloc (j->bs);
  int r;

  if (b == NULL)
    return -ENOMEM;
  memcpy (b, jbd2_block (j, 0), j->bs);
  pc_put_be32 (b + JSB_SEQUENCE, seq);
  pc_put_be32 (b + JSB_START, 0);
  if (j->csum)
    pc_put_be32 (b + JSB_CHECKSUM, jbd2_crc32c_hole (~0u, b, JSB_SIZE, JSB_CHECKSUM));
  r = memcmp (b, jbd2_block (j, 0), j->bs) ? pc_image_write (j->im, j->map[0] * j->bs, b, j->bs) : 0;
  free (b);
  return r;
}

/* The primary superblock as e2fsck leaves it: recovered, just written. */
static int
write_sb (struct journal *j, ext2_filsys fs)
{
  uint8_t sb[SUPERBLOCK_SIZE];

  memcpy (sb, j->mem + SUPERBLOCK_OFFSET, sizeof sb);
  pc_put_le32 (sb + SB_INCOMPAT, pc_get_le32 (sb + SB_INCOMPAT) &
                                 ~(uint32_t) EXT3_FEATURE_INCOMPAT_RECOVER);
  pc_put_le32 (sb + SB_WTIME, (uint32_t) j->now);
  if (ext2fs_superblock_csum_set (fs, (struct ext2_super_block *) sb) != 0)
    return jbd2_refuse (j, "the superblock's checksum cannot be set");
  return pc_image_write (j->im, SUPERBLOCK_OFFSET, sb, sizeof sb);
}

int
pc_recover (struct pc_image *im, int64_t now, struct pc_recover_cache *cache,
            struct pc_err *err)
{
  struct journal j;
  struct jmap local = { 0 };
  ext2_filsys fs = NULL;
  const uint8_t *jsb;
  uint32_t start, seq, end;
  int r, depth = -1;

  memset (&j, 0, sizeof j);
  j.im = im;
  j.mem = pc_image_data (im);
  j.size = pc_image_size (im);
  j.now = now;
  j.cache = cache;
  j.err = err;
  j.jm = cache ? &cache->jm : &local;
  if (j.size < 2 * SUPERBLOCK_OFFSET ||
      pc_get_le16 (j.mem + SUPERBLOCK_OFFSET + 0x38) != EXT2_SUPER_MAGIC ||
      !(pc_get_le32 (j.mem + SUPERBLOCK_OFFSET + SB_INCOMPAT) & EXT3_FEATURE_INCOMPAT_RECOVER))
    return 0;

  /* The crash state: its journal, as e2fsck finds it. */
  r = open_fs (&j, &fs, "before the replay");
  if (r < 0)
    goto out;
  j.bs = fs->blocksize;
  j.blocks = ext2fs_blocks_count (fs->super);
  if (!ext2fs_has_feature_journal (fs->super)) {
    r = jbd2_refuse (&j, "the filesystem needs recovery but has no journal");
    goto out;
  }
  r = map_journal (&j, fs, j.jm);
  if (r < 0)
    goto out;
  j.map = j.jm->map;
  ext2fs_close_free (&fs);
  jsb = jbd2_block (&j, 0);
  if (jsb == NULL) {
    r = jbd2_refuse (&j, "the journal superblock lies beyond the device");
    goto out;
  }
  r = load_journal (&j, jsb);
  if (r < 0)
    goto out;
  if (cache && cache->n != j.total) {
    free (cache->m);
    cache->m = calloc (j.total, sizeof *cache->m);
    cache->n = cache->m ? j.total : 0;
  }

  /* The log: checked whole before anything is written. */
  start = pc_get_be32 (jsb + JSB_START);
  seq = pc_get_be32 (jsb + JSB_SEQUENCE);
  end = seq;
  if (start != 0) {
    r = jbd2_scan (&j, start, seq, &end);
    if (r < 0)
      goto out;
  }
  depth = (int) pc_image_overlay_depth (im);
  r = pc_image_overlay_begin (im);
  if (r < 0)
    goto out;
  r = start != 0 ? jbd2_replay (&j) : 0;
  if (r == 0)
    r = write_jsb (&j, start != 0 ? end + 1 : seq + 1);

  /* The recovered filesystem: what e2fsck would do after the replay. */
  if (r == 0)
    r = open_fs (&j, &fs, "after the replay");
  if (r == 0) {
    uint8_t raw[1024];
    size_t isz = EXT2_INODE_SIZE (fs->super) < sizeof raw ? EXT2_INODE_SIZE (fs->super)
                                                          : sizeof raw;
    if (ext2fs_read_inode_full (fs, EXT2_JOURNAL_INO, (struct ext2_inode *) raw, (int) isz) != 0 ||
        XXH3_64bits (raw, isz) != j.jm->inode)
      r = jbd2_refuse (&j, "the replay changes the journal inode");
  }
  if (r == 0)
    r = would_repair (&j, fs);
  if (r == 0)
    r = write_sb (&j, fs);
out:
  if (fs)
    ext2fs_close_free (&fs);
  if (depth >= 0) {
    /* Keep what was written in the caller's overlay, or undo it all. */
    if (r < 0)
      pc_image_overlay_end (im);
    else
      pc_image_overlay_merge (im);
  }
  free (j.tags);
  free (j.revs);
  jmap_clear (&local);
  return r < 0 ? r : 1;
}
