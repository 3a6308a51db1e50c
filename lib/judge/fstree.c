/* fstree.c: walking an ext2/3/4 image's tree with libext2fs, reusing
 * the hashes of files that did not change. */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>
#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "judge/fstree.h"
#include "judge/treewalk.h"
#include "replay/memio.h"
#include "util/util.h"
#include "util/xxh.h"

#define INODE_MAX 1024          /* bytes of an inode looked at */

/* A file hashed by an earlier walk. */
struct cached {
  ext2_ino_t ino;             /* 0: a free slot */
  XXH64_hash_t inode;         /* of its inode's bytes */
  XXH64_hash_t blocks;        /* of the hashes of the blocks it maps */
  uint64_t *blk;              /* those blocks (image blocks), as runs: first, count */
  size_t nblk;                /* runs */
  uint8_t hash[16];
  uint8_t headlen;
  uint8_t head[PC_ENTRY_HEAD];
  uint64_t zero_blocks;
  uint64_t *bh;               /* the content's block hashes (pc_entry.blocks) */
  uint64_t nbh;
};

struct pc_fstree_cache {
  struct cached *v;
  size_t cap, n;              /* slots (a power of two), used */
  XXH64_hash_t fs;            /* the superblock fields reading depends on */
  uint64_t hash_limit;
  size_t read, reused;        /* the last walk's counts */
};

/* The source of the tree (treewalk.h): an open filesystem. */
struct walk {
  struct pc_treewalk *tw;     /* the walk being fed */
  ext2_filsys fs;
  char *buf;                  /* read buffer */
  uint64_t hash_limit;
  const struct pc_image *im;  /* with cache: the image, for block hashes */
  struct pc_fstree_cache *cache;
  union {
    struct ext2_inode inode;
    uint8_t raw[INODE_MAX];
  } cur;                      /* the inode read last */
  size_t isize;               /* of it, bytes */
  uint64_t *blk;              /* the blocks of the file being hashed, as runs */
  size_t nblk, capblk;        /* runs */
  bool blk_failed;
};

struct children {
  struct pc_treewalk_name *v;
  size_t n, cap;
  int err;
};

static void
problem (struct walk *w, const char *path, const char *what, errcode_t e)
{
  /* Memory is powercut's problem, not the filesystem's. */
  if (e == EXT2_ET_NO_MEMORY || e == ENOMEM)
    pc_treewalk_no_memory (w->tw);
  pc_treewalk_problem (w->tw, path, what, e ? error_message (e) : NULL);
}

static int
collect_entry (ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent, int offset,
               int blocksize, char *buf, void *priv)
{
  struct children *ch = priv;
  int len = ext2fs_dirent_name_len (dirent);

  (void) dir; (void) offset; (void) blocksize; (void) buf;
  if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE || dirent->inode == 0)
    return 0;
  if ((len == 1 && dirent->name[0] == '.') ||
      (len == 2 && dirent->name[0] == '.' && dirent->name[1] == '.'))
    return 0;
  if (pc_grow (&ch->v, &ch->cap, ch->n + 1, sizeof *ch->v, 32) < 0) {
    ch->err = -ENOMEM;
    return DIRENT_ABORT;
  }
  ch->v[ch->n].key = dirent->inode;
  ch->v[ch->n].name = strndup (dirent->name, (size_t) len);
  if (ch->v[ch->n].name == NULL) {
    ch->err = -ENOMEM;
    return DIRENT_ABORT;
  }
  ch->n++;
  return ch->n >= PC_TREEWALK_MAX_ENTRIES ? DIRENT_ABORT : 0;
}

int
pc_fstree_cache_new (struct pc_fstree_cache **ret)
{
  struct pc_fstree_cache *c = calloc (1, sizeof *c);

  if (c == NULL)
    return -ENOMEM;
  *ret = c;
  return 0;
}

static void
cache_clear (struct pc_fstree_cache *c)
{
  for (size_t i = 0; i < c->cap; i++) {
    free (c->v[i].blk);
    free (c->v[i].bh);
  }
  free (c->v);
  c->v = NULL;
  c->cap = c->n = 0;
}

void
pc_fstree_cache_free (struct pc_fstree_cache *c)
{
  if (c == NULL)
    return;
  cache_clear (c);
  free (c);
}

void
pc_fstree_cache_stats (const struct pc_fstree_cache *c, size_t *ret_read, size_t *ret_reused)
{
  *ret_read = c->read;
  *ret_reused = c->reused;
}

static struct cached *
cache_slot (struct pc_fstree_cache *c, ext2_ino_t ino)
{
  size_t h = (size_t) (ino * UINT32_C(2654435761)) & (c->cap - 1);

  while (c->v[h].ino != 0 && c->v[h].ino != ino)
    h = (h + 1) & (c->cap - 1);
  return &c->v[h];
}

static struct cached *
cache_find (struct pc_fstree_cache *c, ext2_ino_t ino)
{
  struct cached *e;

  if (c->cap == 0)
    return NULL;
  e = cache_slot (c, ino);
  return e->ino == ino ? e : NULL;
}

/* The slot for ino, made if needed; NULL when out of memory. */
static struct cached *
cache_put (struct pc_fstree_cache *c, ext2_ino_t ino)
{
  struct cached *e;

  if ((c->n + 1) * 2 > c->cap) {
    size_t ncap = c->cap ? c->cap * 2 : 1024;
    struct cached *old = c->v, *nv = calloc (ncap, sizeof *nv);
    size_t ocap = c->cap;
    if (nv == NULL)
      return NULL;
    c->v = nv;
    c->cap = ncap;
    for (size_t i = 0; i < ocap; i++)
      if (old[i].ino)
        *cache_slot (c, old[i].ino) = old[i];
    free (old);
  }
  e = cache_slot (c, ino);
  if (e->ino == 0) {
    e->ino = ino;
    c->n++;
  }
  return e;
}

/* The hash of the current content of the runs of blocks listed. */
static XXH64_hash_t
blocks_digest (const struct pc_image *im, const uint64_t *runs, size_t n)
{
  XXH3_state_t st;

  XXH3_64bits_reset (&st);
  for (size_t i = 0; i < n; i++) {
    const void *h = pc_image_block_hashes (im, runs[2 * i], runs[2 * i + 1]);
    XXH3_64bits_update (&st, &runs[2 * i], 2 * sizeof *runs);
    if (h)
      XXH3_64bits_update (&st, h, 16 * runs[2 * i + 1]);
    else
      XXH3_64bits_update (&st, "beyond", 6);
  }
  return XXH3_64bits_digest (&st);
}

/* Appends block b to the runs (one more block of the last run if it
 * follows it). */
static int
add_blk (struct walk *w, uint64_t b)
{
  if (w->nblk > 0 && w->blk[2 * w->nblk - 2] + w->blk[2 * w->nblk - 1] == b) {
    w->blk[2 * w->nblk - 1]++;
    return 0;
  }
  if (pc_grow (&w->blk, &w->capblk, w->nblk + 1, 2 * sizeof *w->blk, 64) < 0)
    return -1;
  w->blk[2 * w->nblk] = b;
  w->blk[2 * w->nblk + 1] = 1;
  w->nblk++;
  return 0;
}

/* Notes a filesystem block a file maps, as the image blocks it lies in. */
static int
note_block (ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
            int ref_offset, void *priv)
{
  struct walk *w = priv;
  uint64_t first = *blocknr * fs->blocksize / PC_IMAGE_BLOCK;
  uint64_t last = (*blocknr * fs->blocksize + fs->blocksize - 1) / PC_IMAGE_BLOCK;

  (void) blockcnt; (void) ref_blk; (void) ref_offset;
  for (uint64_t b = first; b <= last; b++)
    if (add_blk (w, b) < 0) {
      w->blk_failed = true;
      return BLOCK_ABORT;
    }
  return 0;
}

/* Lists every block the content of file ino depends on into w->blk.
 * Returns 0, or -1 if they cannot all be listed (then nothing is cached). */
static int
list_blocks (struct walk *w, ext2_ino_t ino, const struct ext2_inode *inode)
{
  errcode_t e;

  w->nblk = 0;
  w->blk_failed = false;
  if (ext2fs_file_acl_block (w->fs, inode) != 0) {
    blk64_t acl = ext2fs_file_acl_block (w->fs, inode);
    note_block (w->fs, &acl, 0, 0, 0, w);
  }
  if (!(inode->i_flags & EXT4_INLINE_DATA_FL) && ext2fs_inode_has_valid_blocks2 (w->fs,
                                                     (struct ext2_inode *) inode)) {
    e = ext2fs_block_iterate3 (w->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, note_block, w);
    if (e)
      return -1;
  }
  return w->blk_failed ? -1 : 0;
}

/* Does the inode (raw, isize bytes) have extended attributes: in an
 * attribute block, or in the inode's own room past its fixed fields? */
static bool
has_xattrs (ext2_filsys fs, const uint8_t *raw, size_t isize, struct ext2_inode *inode)
{
  uint16_t extra;
  uint32_t magic;
  size_t off;

  if (ext2fs_file_acl_block (fs, inode) != 0)
    return true;
  if (isize < EXT2_GOOD_OLD_INODE_SIZE + sizeof extra)
    return false;
  memcpy (&extra, raw + EXT2_GOOD_OLD_INODE_SIZE, sizeof extra);
  off = EXT2_GOOD_OLD_INODE_SIZE + ext2fs_le16_to_cpu (extra);
  if (off + sizeof magic > isize)
    return false;
  memcpy (&magic, raw + off, sizeof magic);
  return ext2fs_le32_to_cpu (magic) == EXT2_EXT_ATTR_MAGIC;
}

struct xattrs {
  struct pc_entry *ent;
  bool no_memory;
};

static int
add_xattr (char *name, char *value, size_t len, void *arg)
{
  struct xattrs *x = arg;

  /* (libext2fs gives an ACL in the format programs set it in) */
  if (pc_treewalk_add_xattr (x->ent, name, value, len) < 0) {
    x->no_memory = true;
    return XATTR_ABORT;
  }
  return 0;
}

/* Reads an inode's extended attributes into ent, sorted by name; if they
 * cannot be read, none, and ent->xattrs_unknown. */
static void
read_xattrs (struct walk *w, ext2_ino_t ino, struct pc_entry *ent)
{
  struct ext2_xattr_handle *h;
  struct xattrs x = { .ent = ent };
  errcode_t e = ext2fs_xattrs_open (w->fs, ino, &h);

  if (e == 0) {
    e = ext2fs_xattrs_read (h);
    if (e == 0)
      e = ext2fs_xattrs_iterate (h, add_xattr, &x);
    ext2fs_xattrs_close (&h);
  }
  if (e == 0 && x.no_memory)
    e = EXT2_ET_NO_MEMORY;
  if (e == EXT2_ET_NO_MEMORY)
    pc_treewalk_no_memory (w->tw);
  pc_treewalk_xattrs_done (ent, e != 0);
}

/* Hashes a regular file's content; returns 0 or the libext2fs error. */
static errcode_t
hash_inode (struct walk *w, ext2_ino_t ino, struct pc_entry *ent)
{
  ext2_file_t f;
  void *h = pc_entry_hash_begin (ent);
  bool whole = ent->size <= w->hash_limit;
  errcode_t e;
  unsigned int got;

  if (h == NULL)
    return EXT2_ET_NO_MEMORY;
  e = ext2fs_file_open (w->fs, ino, 0, &f);
  if (e == 0) {
    do {
      e = ext2fs_file_read (f, w->buf, 1 << 16, &got);
      if (e == 0 && got > 0)
        pc_entry_hash_update (h, ent, w->buf, got);
    } while (e == 0 && got > 0 && whole);
    ext2fs_file_close (f);
  }
  pc_entry_hash_end (h, ent);
  pc_treewalk_hash_done (ent, whole, e != 0);
  return e;
}

/* Hashes a regular file, or takes its hash from the cache if neither its
 * inode nor any block it maps changed since it was hashed. */
static errcode_t
hash_file (struct walk *w, ext2_ino_t ino, const uint8_t *raw, size_t rawlen,
           const struct ext2_inode *inode, struct pc_entry *ent)
{
  struct pc_fstree_cache *c = w->cache;
  XXH64_hash_t ih;
  struct cached *e;
  errcode_t err;

  if (c == NULL)
    return hash_inode (w, ino, ent);
  ih = XXH3_64bits (raw, rawlen);
  e = cache_find (c, ino);
  if (e && e->inode == ih && e->blocks == blocks_digest (w->im, e->blk, e->nblk)) {
    memcpy (ent->hash, e->hash, sizeof ent->hash);
    ent->headlen = e->headlen;
    memcpy (ent->head, e->head, sizeof ent->head);
    ent->zero_blocks = e->zero_blocks;
    if (e->nbh && (ent->blocks = malloc (e->nbh * sizeof *ent->blocks)) != NULL) {
      memcpy (ent->blocks, e->bh, e->nbh * sizeof *ent->blocks);
      ent->nblocks = e->nbh;
    }
    c->reused++;
    return 0;
  }
  c->read++;
  err = hash_inode (w, ino, ent);
  if (err == 0 && list_blocks (w, ino, inode) == 0 && (e = cache_put (c, ino)) != NULL) {
    uint64_t *blk = malloc ((w->nblk ? 2 * w->nblk : 1) * sizeof *blk);
    if (blk == NULL) {
      e->inode = ~ih;           /* never matches: read next time */
      return 0;
    }
    if (w->nblk)
      memcpy (blk, w->blk, 2 * w->nblk * sizeof *blk);
    free (e->blk);
    e->blk = blk;
    e->nblk = w->nblk;
    e->inode = ih;
    e->blocks = blocks_digest (w->im, blk, w->nblk);
    memcpy (e->hash, ent->hash, sizeof e->hash);
    e->headlen = ent->headlen;
    memcpy (e->head, ent->head, sizeof e->head);
    e->zero_blocks = ent->zero_blocks;
    free (e->bh);
    e->bh = NULL;
    e->nbh = 0;
    if (ent->nblocks && (e->bh = malloc (ent->nblocks * sizeof *e->bh)) != NULL) {
      memcpy (e->bh, ent->blocks, ent->nblocks * sizeof *e->bh);
      e->nbh = ent->nblocks;
    }
    else if (ent->nblocks)
      e->inode = ~ih;           /* its blocks not kept: read next time */
  }
  else if (e)
    e->inode = ~ih;
  return err;
}

static errcode_t
read_symlink (struct walk *w, ext2_ino_t ino, struct ext2_inode *inode, char **ret)
{
  uint64_t size = EXT2_I_SIZE (inode);
  ext2_file_t f;
  errcode_t e = 0;
  unsigned int got = 0;
  size_t isz;

  if (size >= 65536)
    return EXT2_ET_INODE_CORRUPTED;
  if (ext2fs_is_fast_symlink (inode)) {
    *ret = strndup ((char *) inode->i_block, (size_t) size);
    return *ret ? 0 : EXT2_ET_NO_MEMORY;
  }
  if (inode->i_flags & EXT4_INLINE_DATA_FL) {
    e = ext2fs_inline_data_get (w->fs, ino, inode, w->buf, &isz);
    if (e)
      return e;
    *ret = strndup (w->buf, isz < size ? isz : (size_t) size);
    return *ret ? 0 : EXT2_ET_NO_MEMORY;
  }
  e = ext2fs_file_open (w->fs, ino, 0, &f);
  if (e)
    return e;
  e = ext2fs_file_read (f, w->buf, (unsigned int) size, &got);
  ext2fs_file_close (f);
  if (e)
    return e;
  *ret = strndup (w->buf, got);
  return *ret ? 0 : EXT2_ET_NO_MEMORY;
}

static int
list_dir (struct pc_treewalk *tw, uint64_t dir, const char *path,
          struct pc_treewalk_name **ret, size_t *ret_n)
{
  struct walk *w = pc_treewalk_source_data (tw);
  struct children ch = { 0 };
  errcode_t e;

  w->tw = tw;
  e = ext2fs_dir_iterate2 (w->fs, (ext2_ino_t) dir, 0, NULL, collect_entry, &ch);
  if (ch.err) {
    for (size_t i = 0; i < ch.n; i++)
      free (ch.v[i].name);
    free (ch.v);
    return ch.err;
  }
  if (e)
    problem (w, path, "cannot read directory", e);
  *ret = ch.v;
  *ret_n = ch.n;
  return 0;
}

static int
stat_entry (struct pc_treewalk *tw, uint64_t dir, const struct pc_treewalk_name *nm,
            struct pc_entry *ent)
{
  struct walk *w = pc_treewalk_source_data (tw);
  struct ext2_inode *inode = &w->cur.inode;
  ext2_ino_t ino = (ext2_ino_t) nm->key;
  int isize = EXT2_INODE_SIZE (w->fs->super);
  errcode_t e;

  (void) dir;
  w->tw = tw;
  if (isize < (int) sizeof (struct ext2_inode) || isize > INODE_MAX)
    isize = sizeof (struct ext2_inode);
  w->isize = (size_t) isize;
  e = ext2fs_read_inode_full (w->fs, ino, inode, isize);
  if (e) {
    problem (w, ent->path, "cannot read inode", e);
    return PC_TREEWALK_SKIP;
  }
  if (has_xattrs (w->fs, w->cur.raw, w->isize, inode))
    read_xattrs (w, ino, ent);
  ent->mode = inode->i_mode;
  ent->nlink = inode->i_links_count;
  ent->ino = ino;
  ent->size = EXT2_I_SIZE (inode);
  return PC_TREEWALK_ENTRY;
}

/* (of the inode stat_entry read last) */
static void
hash_entry (struct pc_treewalk *tw, uint64_t dir, const struct pc_treewalk_name *nm,
            struct pc_entry *ent)
{
  struct walk *w = pc_treewalk_source_data (tw);
  errcode_t e;

  (void) dir;
  e = hash_file (w, (ext2_ino_t) nm->key, w->cur.raw, w->isize, &w->cur.inode, ent);
  if (e)
    problem (w, ent->path, "cannot read file data", e);
}

static void
link_entry (struct pc_treewalk *tw, uint64_t dir, const struct pc_treewalk_name *nm,
            struct pc_entry *ent)
{
  struct walk *w = pc_treewalk_source_data (tw);
  errcode_t e;

  (void) dir;
  e = read_symlink (w, (ext2_ino_t) nm->key, &w->cur.inode, &ent->target);
  if (e)
    problem (w, ent->path, "cannot read symlink", e);
}

/* A directory's handle is its inode number. */
static int
enter_dir (struct pc_treewalk *tw, uint64_t dir, const struct pc_treewalk_name *nm,
           const char *path, uint64_t *ret)
{
  (void) tw; (void) dir; (void) path;
  *ret = nm->key;
  return 0;
}

static const struct pc_treewalk_source ext_source = {
  .list = list_dir,
  .stat = stat_entry,
  .hash = hash_entry,
  .link = link_entry,
  .enter = enter_dir,
};

/* The superblock fields that decide how a file's blocks read. */
static XXH64_hash_t
fs_key (ext2_filsys fs)
{
  struct ext2_super_block *sb = fs->super;
  uint32_t k[6] = { sb->s_log_block_size, sb->s_feature_compat, sb->s_feature_incompat,
                    sb->s_feature_ro_compat, sb->s_inode_size, sb->s_log_cluster_size };

  return XXH3_64bits (k, sizeof k);
}

/* Walks an open filesystem (closed here). */
static int
walk_fs (ext2_filsys fs, const struct pc_image *im, struct pc_fstree_cache *cache,
         uint64_t hash_limit, struct pc_mark *ret, char *problems, size_t plen)
{
  struct walk w = { .fs = fs, .hash_limit = hash_limit, .im = im, .cache = cache };
  int r;

  if (cache) {
    if (cache->fs != fs_key (fs) || cache->hash_limit != hash_limit) {
      cache_clear (cache);
      cache->fs = fs_key (fs);
      cache->hash_limit = hash_limit;
    }
    cache->read = cache->reused = 0;
  }
  w.buf = malloc (1 << 16);
  if (w.buf == NULL) {
    ext2fs_close_free (&fs);
    return -ENOMEM;
  }
  r = pc_treewalk (&ext_source, &w, EXT2_ROOT_INO, EXT2_ROOT_INO, ret, problems, plen);
  ext2fs_close_free (&fs);
  free (w.buf);
  free (w.blk);
  return r;
}

static int
open_failed (char *problems, size_t plen, errcode_t e)
{
  snprintf (problems, plen, "/: libext2fs cannot open the filesystem: %s", error_message (e));
  return pc_ext2fs_errno (e);
}

int
pc_fstree_read (const char *path, uint64_t hash_limit, struct pc_mark *ret,
                char *problems, size_t plen)
{
  ext2_filsys fs;
  errcode_t e;

  problems[0] = '\0';
  pc_ext2fs_init ();
  e = ext2fs_open2 (path, NULL, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
  if (e)
    return open_failed (problems, plen, e);
  return walk_fs (fs, NULL, NULL, hash_limit, ret, problems, plen);
}

int
pc_fstree_read_mem (const void *mem, uint64_t size, uint64_t hash_limit,
                    struct pc_mark *ret, char *problems, size_t plen)
{
  ext2_filsys fs;
  struct pc_err oe;
  int r;

  problems[0] = '\0';
  r = pc_memio_open (mem, size, EXT2_FLAG_64BITS, &fs, &oe);
  if (r < 0) {
    snprintf (problems, plen, "/: %s", oe.msg);
    return r;
  }
  return walk_fs (fs, NULL, NULL, hash_limit, ret, problems, plen);
}

int
pc_fstree_read_image (const struct pc_image *im, struct pc_fstree_cache *cache,
                      uint64_t hash_limit, struct pc_mark *ret,
                      char *problems, size_t plen)
{
  ext2_filsys fs;
  struct pc_err oe;
  int r;

  problems[0] = '\0';
  if (cache && pc_image_block_hash (im, 0) == NULL)
    return -EINVAL;
  r = pc_memio_open (pc_image_data (im), pc_image_size (im), EXT2_FLAG_64BITS, &fs, &oe);
  if (r < 0) {
    snprintf (problems, plen, "/: %s", oe.msg);
    return r;
  }
  return walk_fs (fs, im, cache, hash_limit, ret, problems, plen);
}
