/* fstree.c: walking an ext2/3/4 image's tree with libext2fs. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>
#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "fstree.h"

struct walk {
  ext2_filsys fs;
  struct pc_mark *m;
  size_t cap;
  char *problems;
  size_t plen, ppos;
  ext2_ino_t *seen;           /* directories entered */
  size_t nseen, capseen;
  char *buf;                  /* read buffer */
  uint64_t hash_limit;
};

struct child {
  ext2_ino_t ino;
  char *name;
};

struct children {
  struct child *v;
  size_t n, cap;
  int err;
};

static void
problem (struct walk *w, const char *path, const char *what, errcode_t e)
{
  if (w->ppos + 1 >= w->plen)
    return;
  w->ppos += (size_t) snprintf (w->problems + w->ppos, w->plen - w->ppos, "%s%s: %s%s%s",
                                w->ppos ? "\n" : "", path[0] ? path : "/", what,
                                e ? ": " : "", e ? error_message (e) : "");
  if (w->ppos >= w->plen)
    w->ppos = w->plen - 1;
}

static int
collect (ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent, int offset,
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
  if (ch->n == ch->cap) {
    size_t ncap = ch->cap ? ch->cap * 2 : 32;
    struct child *n = realloc (ch->v, ncap * sizeof *n);
    if (n == NULL) {
      ch->err = -ENOMEM;
      return DIRENT_ABORT;
    }
    ch->v = n;
    ch->cap = ncap;
  }
  ch->v[ch->n].ino = dirent->inode;
  ch->v[ch->n].name = strndup (dirent->name, (size_t) len);
  if (ch->v[ch->n].name == NULL) {
    ch->err = -ENOMEM;
    return DIRENT_ABORT;
  }
  ch->n++;
  return ch->n >= PC_FSTREE_MAX_ENTRIES ? DIRENT_ABORT : 0;
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
  if (!whole)
    memset (ent->hash, 0, sizeof ent->hash);
  return e;
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

static bool
seen_dir (struct walk *w, ext2_ino_t ino)
{
  for (size_t i = 0; i < w->nseen; i++)
    if (w->seen[i] == ino)
      return true;
  if (w->nseen == w->capseen) {
    size_t ncap = w->capseen ? w->capseen * 2 : 64;
    ext2_ino_t *n = realloc (w->seen, ncap * sizeof *n);
    if (n == NULL)
      return true;
    w->seen = n;
    w->capseen = ncap;
  }
  w->seen[w->nseen++] = ino;
  return false;
}

static int
walk_dir (struct walk *w, ext2_ino_t dir, const char *prefix, int depth)
{
  struct children ch = { 0 };
  errcode_t e;
  int r = 0;

  if (depth > PC_FSTREE_MAX_DEPTH) {
    problem (w, prefix, "directories nested too deep", 0);
    return 0;
  }
  if (seen_dir (w, dir)) {
    problem (w, prefix, "directory reached twice (a loop)", 0);
    return 0;
  }
  e = ext2fs_dir_iterate2 (w->fs, dir, 0, NULL, collect, &ch);
  if (ch.err) {
    r = ch.err;
    goto out;
  }
  if (e)
    problem (w, prefix, "cannot read directory", e);
  for (size_t i = 0; i < ch.n && r == 0; i++) {
    struct ext2_inode inode;
    struct pc_entry ent;
    size_t plen = strlen (prefix), nlen = strlen (ch.v[i].name);
    char *path = malloc (plen + nlen + 2);

    if (path == NULL) {
      r = -ENOMEM;
      break;
    }
    if (plen)
      sprintf (path, "%s/%s", prefix, ch.v[i].name);
    else
      strcpy (path, ch.v[i].name);
    if (w->m->nentries >= PC_FSTREE_MAX_ENTRIES) {
      problem (w, path, "too many entries: the walk stops here", 0);
      free (path);
      break;
    }
    memset (&ent, 0, sizeof ent);
    e = ext2fs_read_inode (w->fs, ch.v[i].ino, &inode);
    if (e) {
      problem (w, path, "cannot read inode", e);
      free (path);
      continue;
    }
    ent.path = path;
    ent.mode = inode.i_mode;
    ent.nlink = inode.i_links_count;
    ent.ino = ch.v[i].ino;
    ent.size = EXT2_I_SIZE (&inode);
    if (LINUX_S_ISREG (inode.i_mode)) {
      ent.type = PC_ENTRY_FILE;
      e = hash_inode (w, ch.v[i].ino, &ent);
      if (e)
        problem (w, path, "cannot read file data", e);
    }
    else if (LINUX_S_ISDIR (inode.i_mode)) {
      ent.type = PC_ENTRY_DIR;
      ent.size = 0;
    }
    else if (LINUX_S_ISLNK (inode.i_mode)) {
      ent.type = PC_ENTRY_SYMLINK;
      e = read_symlink (w, ch.v[i].ino, &inode, &ent.target);
      if (e) {
        problem (w, path, "cannot read symlink", e);
        ent.target = strdup ("");
      }
    }
    else {
      ent.type = PC_ENTRY_OTHER;
      ent.size = 0;
    }
    r = pc_mark_add_entry (w->m, &w->cap, &ent);
    if (r < 0) {
      free (ent.path);
      free (ent.target);
      break;
    }
    if (ent.type == PC_ENTRY_DIR)
      r = walk_dir (w, ch.v[i].ino, path, depth + 1);
  }
out:
  for (size_t i = 0; i < ch.n; i++)
    free (ch.v[i].name);
  free (ch.v);
  return r;
}

static int
entry_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_entry *) a)->path, ((const struct pc_entry *) b)->path);
}

int
pc_fstree_read (const char *path, uint64_t hash_limit, struct pc_mark *ret,
                char *problems, size_t plen)
{
  struct walk w;
  struct pc_mark m;
  errcode_t e;
  int r;

  memset (&w, 0, sizeof w);
  memset (&m, 0, sizeof m);
  problems[0] = '\0';
  w.problems = problems;
  w.plen = plen;
  w.m = &m;
  w.hash_limit = hash_limit;
  w.buf = malloc (1 << 16);
  if (w.buf == NULL)
    return -ENOMEM;
  e = ext2fs_open2 (path, NULL, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &w.fs);
  if (e) {
    problem (&w, "", "libext2fs cannot open the filesystem", e);
    free (w.buf);
    return -EIO;
  }
  r = walk_dir (&w, EXT2_ROOT_INO, "", 0);
  ext2fs_close_free (&w.fs);
  free (w.buf);
  free (w.seen);
  if (r < 0) {
    pc_mark_free (&m);
    return r;
  }
  /* Sorted by bytes, as manifests are (a directory walk is not). */
  if (m.nentries > 0)
    qsort (m.entries, m.nentries, sizeof *m.entries, entry_cmp);
  m.flags = PC_MARK_F_MANIFEST;
  *ret = m;
  return 0;
}
