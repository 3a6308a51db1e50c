/* export.c: a crash state's tree written out as a directory, incrementally. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <et/com_err.h>
#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "judge/export.h"
#include "replay/memio.h"
#include "util/util.h"

/* A path as written: what the tree said, and what lstat said after. */
struct rec {
  char *path;
  uint8_t type;
  uint32_t mode;
  uint64_t size;
  uint8_t hash[16];
  bool hashed;
  char *target;
  struct stat st;               /* st_ino 0: nothing on disk (PC_ENTRY_OTHER) */
};

struct pc_export {
  char *dir;
  int fd;                       /* the directory */
  struct rec *v;                /* sorted by path, as trees are */
  size_t n;
  struct stat root;
  bool whole;                   /* write everything again next time */
  char **touched;               /* directories changed in this update */
  size_t ntouched, captouched;
};

static void
rec_clear (struct rec *r)
{
  free (r->path);
  free (r->target);
}

static void
recs_free (struct rec *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    rec_clear (&v[i]);
  free (v);
}

int
pc_export_new (const char *dir, struct pc_export **ret)
{
  struct pc_export *x = calloc (1, sizeof *x);
  int r;

  if (x == NULL || (x->dir = strdup (dir)) == NULL) {
    free (x);
    return -ENOMEM;
  }
  if (mkdir (dir, 0700) < 0 || (x->fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
    r = -errno;
    free (x->dir);
    free (x);
    return r;
  }
  x->whole = true;
  *ret = x;
  return 0;
}

/* Removes name (in the directory at dfd) and all under it, whatever
 * permissions say.  ENOENT is no error. */
static int
wipe (int dfd, const char *name)
{
  struct stat st;
  DIR *d;
  int fd, r = 0;

  if (fstatat (dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno == ENOENT ? 0 : -errno;
  if (!S_ISDIR (st.st_mode))
    return unlinkat (dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
  if (fchmodat (dfd, name, 0700, 0) < 0)
    return -errno;
  fd = openat (dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  d = fdopendir (fd);
  if (d == NULL) {
    close (fd);
    return -ENOMEM;
  }
  for (struct dirent *e; r == 0 && (e = readdir (d)) != NULL;)
    if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
      r = wipe (fd, e->d_name);
  closedir (d);
  if (r == 0 && unlinkat (dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
    r = -errno;
  return r;
}

int
pc_export_remove (const char *dir)
{
  char *parent = strdup (dir), *slash;
  int pfd, r;

  if (parent == NULL)
    return -ENOMEM;
  slash = strrchr (parent, '/');
  if (slash == NULL)
    r = wipe (AT_FDCWD, dir);
  else {
    *slash = '\0';
    pfd = open (slash == parent ? "/" : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    r = pfd < 0 ? -errno : wipe (pfd, slash + 1);
    if (pfd >= 0)
      close (pfd);
  }
  free (parent);
  return r;
}

void
pc_export_free (struct pc_export *x)
{
  if (x == NULL)
    return;
  close (x->fd);
  pc_export_remove (x->dir);
  recs_free (x->v, x->n);
  for (size_t i = 0; i < x->ntouched; i++)
    free (x->touched[i]);
  free (x->touched);
  free (x->dir);
  free (x);
}

/* The final mode of a path of the tree: no write permission for anyone;
 * a directory keeps its owner's search and read permission. */
static mode_t
final_mode (uint8_t type, uint32_t mode)
{
  mode_t m = mode & 0555;

  return type == PC_ENTRY_DIR ? m | 0500 : m;
}

/* Remembers directory path (taken), to be made read-only again at the
 * end of the update.  Returns 0 or -ENOMEM (path is freed then). */
static int
touch (struct pc_export *x, char *path)
{
  if (path == NULL ||
      pc_grow (&x->touched, &x->captouched, x->ntouched + 1, sizeof *x->touched, 16) < 0) {
    free (path);
    return -ENOMEM;
  }
  x->touched[x->ntouched++] = path;
  return 0;
}

/* The directory holding path ("." at the top), made writable for a change
 * and remembered, to be made read-only again. */
static int
open_parent (struct pc_export *x, const char *path)
{
  const char *slash = strrchr (path, '/');
  char *parent = slash ? strndup (path, (size_t) (slash - path)) : strdup (".");

  if (parent == NULL)
    return -ENOMEM;
  for (size_t i = x->ntouched; i-- > 0;)
    if (strcmp (x->touched[i], parent) == 0) {
      free (parent);
      return 0;
    }
  if (fchmodat (x->fd, parent, 0700, 0) < 0 && errno != ENOENT) {
    int r = -errno;
    free (parent);
    return r;
  }
  return touch (x, parent);
}

static bool
same (const struct rec *r, const struct pc_entry *e)
{
  if (r->type != e->type || r->mode != e->mode)
    return false;
  switch (e->type) {
  case PC_ENTRY_FILE: {
    static const uint8_t zero[16];
    bool hashed = memcmp (e->hash, zero, 16) != 0 || e->size == 0;
    return hashed && r->hashed && r->size == e->size && memcmp (r->hash, e->hash, 16) == 0;
  }
  case PC_ENTRY_SYMLINK:
    return strcmp (r->target ? r->target : "", e->target ? e->target : "") == 0;
  default:
    return true;
  }
}

/* Where the files' contents are read from: an ext2/3/4 image through
 * libext2fs, or a mounted tree (the directory dirfd). */
struct source {
  ext2_filsys fs;
  int dirfd;
};

/* Writes regular file e, its content read from the mounted tree. */
static int
write_file_dir (struct pc_export *x, int dirfd, const struct pc_entry *e, uint8_t *buf,
                struct pc_err *why)
{
  int in = openat (dirfd, e->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), fd, r = 0;
  uint64_t done = 0;

  if (in < 0)
    return pc_err_set (why, errno, "%s: %s", e->path, strerror (errno));
  fd = openat (x->fd, e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    r = pc_err_set (why, errno, "%s: %s", e->path, strerror (errno));
    close (in);
    return r;
  }
  while (r == 0 && done < e->size) {
    ssize_t got = read (in, buf, 1 << 16);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      r = pc_err_set (why, EIO, "%s: %s", e->path, got < 0 ? strerror (errno)
                                                          : "shorter than its size");
      break;
    }
    r = pc_write_all (fd, buf, (size_t) got);
    if (r < 0)
      pc_err_set (why, EIO, "%s: %s", e->path, strerror (-r));
    done += (uint64_t) got;
  }
  close (in);
  if (r == 0 && fchmod (fd, final_mode (e->type, e->mode)) < 0)
    r = pc_err_set (why, errno, "%s: %s", e->path, strerror (errno));
  close (fd);
  return r;
}

/* Writes regular file e, its content read from the source. */
static int
write_file (struct pc_export *x, const struct source *src, const struct pc_entry *e,
            uint8_t *buf, struct pc_err *why)
{
  ext2_filsys fs = src->fs;
  ext2_ino_t ino;
  ext2_file_t file;
  errcode_t err;
  uint64_t done = 0;
  int fd, r = 0;

  if (fs == NULL)
    return write_file_dir (x, src->dirfd, e, buf, why);
  err = ext2fs_namei (fs, EXT2_ROOT_INO, EXT2_ROOT_INO, e->path, &ino);
  if (err == 0)
    err = ext2fs_file_open (fs, ino, 0, &file);
  if (err) {
    pc_err_set (why, EIO, "%s: libext2fs: %s", e->path, error_message (err));
    return -EIO;
  }
  fd = openat (x->fd, e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    r = -errno;
    pc_err_set (why, EIO, "%s: %s", e->path, strerror (-r));
    ext2fs_file_close (file);
    return r;
  }
  while (r == 0 && done < e->size) {
    unsigned int got = 0;
    err = ext2fs_file_read (file, buf, 1 << 16, &got);
    if (err || got == 0) {
      pc_err_set (why, EIO, "%s: libext2fs: %s", e->path,
                  err ? error_message (err) : "shorter than its size");
      r = -EIO;
      break;
    }
    r = pc_write_all (fd, buf, got);
    if (r < 0)
      pc_err_set (why, EIO, "%s: %s", e->path, strerror (-r));
    done += got;
  }
  ext2fs_file_close (file);
  if (r == 0 && fchmod (fd, final_mode (e->type, e->mode)) < 0) {
    r = -errno;
    pc_err_set (why, EIO, "%s: %s", e->path, strerror (-r));
  }
  close (fd);
  return r;
}

/* Makes e in the directory. */
static int
create (struct pc_export *x, const struct source *src, const struct pc_entry *e, uint8_t *buf,
        struct pc_err *why)
{
  int r = open_parent (x, e->path);

  if (r < 0)
    return r;
  switch (e->type) {
  case PC_ENTRY_FILE:
    return write_file (x, src, e, buf, why);
  case PC_ENTRY_DIR:
    /* Writable while it is filled; read-only at the end (touched). */
    r = mkdirat (x->fd, e->path, 0700) < 0 ? -errno : touch (x, strdup (e->path));
    break;
  case PC_ENTRY_SYMLINK:
    if (symlinkat (e->target ? e->target : "", x->fd, e->path) < 0)
      r = -errno;
    break;
  default:
    return 0;                   /* devices, fifos, sockets: left out */
  }
  if (r < 0)
    pc_err_set (why, EIO, "%s: %s", e->path, strerror (-r));
  return r;
}

static int
rec_cmp (const void *a, const void *b)
{
  return strcmp (((const struct rec *) a)->path, ((const struct rec *) b)->path);
}

/* The record of e, its path on disk looked at now. */
static int
rec_of (struct pc_export *x, const struct pc_entry *e, struct rec *r)
{
  static const uint8_t zero[16];

  memset (r, 0, sizeof *r);
  r->path = strdup (e->path);
  r->target = e->target ? strdup (e->target) : NULL;
  if (r->path == NULL || (e->target && r->target == NULL)) {
    rec_clear (r);
    return -ENOMEM;
  }
  r->type = e->type;
  r->mode = e->mode;
  r->size = e->size;
  memcpy (r->hash, e->hash, 16);
  r->hashed = memcmp (e->hash, zero, 16) != 0 || e->size == 0;
  if (e->type != PC_ENTRY_OTHER && fstatat (x->fd, e->path, &r->st, AT_SYMLINK_NOFOLLOW) < 0) {
    int err = -errno;
    rec_clear (r);
    return err;
  }
  return 0;
}

/* Brings the directory to hold tree, the files' contents read from src. */
static int
update (struct pc_export *x, const struct source *src, const struct pc_mark *tree,
        struct pc_err *err)
{
  struct rec *nv = calloc (tree->nentries ? tree->nentries : 1, sizeof *nv);
  uint8_t *buf = malloc (1 << 16);
  size_t i = 0, j = 0, nn = 0;
  bool *changed = calloc (tree->nentries ? tree->nentries : 1, sizeof *changed);
  struct pc_err local, *why = &local;
  int r = 0;

  local.msg[0] = '\0';
  if (nv == NULL || buf == NULL || changed == NULL) {
    r = -ENOMEM;
    goto out;
  }
  if (x->whole) {
    /* Everything goes, then everything is written. */
    DIR *d;
    int fd;
    fchmod (x->fd, 0700);
    fd = dup (x->fd);
    d = fd >= 0 ? fdopendir (fd) : NULL;
    if (d == NULL) {
      r = -errno;
      if (fd >= 0)
        close (fd);
      goto out;
    }
    rewinddir (d);
    for (struct dirent *e; r == 0 && (e = readdir (d)) != NULL;)
      if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
        r = wipe (x->fd, e->d_name);
    closedir (d);
    if (r < 0)
      goto out;
    recs_free (x->v, x->n);
    x->v = NULL;
    x->n = 0;
  }
  /* Removals: what the last state had and this one has not, or has
   * otherwise (both lists are sorted by path). */
  while (i < x->n) {
    int c = j == tree->nentries ? -1 : strcmp (x->v[i].path, tree->entries[j].path);
    if (c > 0) {
      changed[j++] = true;      /* new */
      continue;
    }
    if (c == 0 && same (&x->v[i], &tree->entries[j])) {
      i++, j++;
      continue;
    }
    if (c == 0 && x->v[i].type == PC_ENTRY_DIR && tree->entries[j].type == PC_ENTRY_DIR) {
      /* Only its mode differs: set at the end (touched). */
      if ((r = touch (x, strdup (x->v[i].path))) < 0)
        goto out;
      i++, j++;
      continue;
    }
    if ((r = open_parent (x, x->v[i].path)) < 0 || (r = wipe (x->fd, x->v[i].path)) < 0) {
      pc_err_set (why, EIO, "%s: %s", x->v[i].path, strerror (-r));
      goto out;
    }
    if (c == 0)
      changed[j++] = true;
    i++;
  }
  while (j < tree->nentries)
    changed[j++] = true;
  /* Creations, parents before children (they sort first). */
  for (j = 0; j < tree->nentries && r == 0; j++)
    if (changed[j])
      r = create (x, src, &tree->entries[j], buf, &local);
  if (r < 0)
    goto out;
  /* Directories read-only again, in the tree's modes. */
  for (size_t k = 0; k < x->ntouched; k++) {
    const struct pc_entry *e = strcmp (x->touched[k], ".") ? pc_mark_find (tree, x->touched[k])
                                                          : NULL;
    mode_t m = e ? final_mode (PC_ENTRY_DIR, e->mode) : 0555;
    if (fchmodat (x->fd, x->touched[k], m, 0) < 0 && errno != ENOENT) {
      r = -errno;
      pc_err_set (why, EIO, "%s: %s", x->touched[k], strerror (-r));
      goto out;
    }
  }
  if (fchmod (x->fd, 0555) < 0 || fstat (x->fd, &x->root) < 0) {
    r = -errno;
    goto out;
  }
  /* The records: kept where nothing was done, looked at again elsewhere. */
  for (i = 0, j = 0; j < tree->nentries; j++) {
    const struct pc_entry *e = &tree->entries[j];
    bool fresh = changed[j];
    while (i < x->n && (x->v[i].path == NULL || strcmp (x->v[i].path, e->path) < 0))
      i++;
    if (!fresh && i < x->n && strcmp (x->v[i].path, e->path) == 0 && e->type != PC_ENTRY_DIR) {
      nv[nn++] = x->v[i];
      memset (&x->v[i], 0, sizeof x->v[i]);
      i++;
      continue;
    }
    if ((r = rec_of (x, e, &nv[nn])) < 0) {
      pc_err_set (why, EIO, "%s: %s", e->path, strerror (-r));
      goto out;
    }
    nn++;
  }
  recs_free (x->v, x->n);
  x->v = nv;
  x->n = nn;
  nv = NULL;
  x->whole = false;
out:
  if (nv)
    recs_free (nv, nn);
  for (size_t k = 0; k < x->ntouched; k++)
    free (x->touched[k]);
  x->ntouched = 0;
  if (r < 0) {
    x->whole = true;
    pc_err_set (err, -r, "%s", local.msg[0] ? local.msg : strerror (-r));
  }
  free (buf);
  free (changed);
  return r;
}

int
pc_export_update (struct pc_export *x, const void *mem, uint64_t size,
                  const struct pc_mark *tree, struct pc_err *err)
{
  struct source src = { NULL, -1 };
  int r = pc_memio_open (mem, size, EXT2_FLAG_64BITS, &src.fs, err);

  if (r < 0) {
    x->whole = true;
    return r;
  }
  r = update (x, &src, tree, err);
  ext2fs_close_free (&src.fs);
  return r;
}

int
pc_export_update_dir (struct pc_export *x, const char *dir, const struct pc_mark *tree,
                      struct pc_err *err)
{
  struct source src = { NULL, open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) };
  int r;

  if (src.dirfd < 0) {
    x->whole = true;
    return pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
  }
  r = update (x, &src, tree, err);
  close (src.dirfd);
  return r;
}

static bool
same_stat (const struct stat *a, const struct stat *b)
{
  return a->st_ino == b->st_ino && a->st_mode == b->st_mode && a->st_size == b->st_size &&
         a->st_nlink == b->st_nlink && a->st_uid == b->st_uid &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
         a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Walks the directory dfd (at path prefix): every name must be a record
 * with the same stat; counts the names in *seen.  Returns 1 on a
 * difference, 0, or -errno. */
static int
walk_verify (struct pc_export *x, int dfd, const char *prefix, size_t *seen)
{
  int fd = dup (dfd), r = 0;
  DIR *d = fd >= 0 ? fdopendir (fd) : NULL;

  if (d == NULL) {
    if (fd >= 0)
      close (fd);
    return -ENOMEM;
  }
  rewinddir (d);
  for (struct dirent *e; r == 0 && (e = readdir (d)) != NULL;) {
    struct rec key, *hit;
    struct stat st;
    char *path;
    if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
      continue;
    if (asprintf (&path, "%s%s%s", prefix, *prefix ? "/" : "", e->d_name) < 0) {
      r = -ENOMEM;
      break;
    }
    key.path = path;
    hit = x->n ? bsearch (&key, x->v, x->n, sizeof *x->v, rec_cmp) : NULL;
    if (hit == NULL || hit->type == PC_ENTRY_OTHER ||
        fstatat (dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !same_stat (&st, &hit->st))
      r = 1;
    else {
      (*seen)++;
      if (S_ISDIR (st.st_mode)) {
        int cfd = openat (dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        r = cfd < 0 ? 1 : walk_verify (x, cfd, path, seen);
        if (cfd >= 0)
          close (cfd);
      }
    }
    free (path);
  }
  closedir (d);
  return r;
}

void
pc_export_touched (struct pc_export *x)
{
  x->whole = true;
}

int
pc_export_verify (struct pc_export *x)
{
  size_t seen = 0, expect = 0;
  struct stat st;
  int r;

  if (x->whole)
    return 1;
  if (fstat (x->fd, &st) < 0)
    return -errno;
  r = same_stat (&st, &x->root) ? walk_verify (x, x->fd, "", &seen) : 1;
  for (size_t i = 0; r == 0 && i < x->n; i++)
    expect += x->v[i].type != PC_ENTRY_OTHER;
  if (r == 0 && seen != expect)
    r = 1;
  if (r != 0)
    x->whole = true;
  return r;
}
