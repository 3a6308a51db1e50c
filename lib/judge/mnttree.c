/* mnttree.c: the file tree of a mounted filesystem (mnttree.h). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "judge/mnttree.h"
#include "judge/treewalk.h"
#include "util/util.h"
#include "util/xxh.h"

#define READ_SIZE (1 << 16)

/* The source of the tree (treewalk.h): a mounted directory, each
 * directory's handle an open descriptor of it. */
struct walk {
  struct pc_treewalk *tw;       /* the walk being fed */
  dev_t dev;                    /* the mounted filesystem's */
  uint64_t hash_limit;
  char *buf;                    /* READ_SIZE */
};

static void
problem (struct walk *w, const char *path, const char *what, int err)
{
  if (err == ENOMEM)
    pc_treewalk_no_memory (w->tw);
  pc_treewalk_problem (w->tw, path, what, err ? strerror (err) : NULL);
}

/* The extended attributes of name in the directory dirfd into ent, sorted
 * by name, an ACL by its meaning; if they cannot be read, none, and
 * ent->xattrs_unknown. */
static void
read_xattrs (struct walk *w, int dirfd, const char *name, struct pc_entry *ent)
{
  char at[64 + 4096], *names = NULL, *val = NULL;
  ssize_t n = -1;
  int err = 0;


  /* the entry by its directory's descriptor, not followed if a link */
  if ((size_t) snprintf (at, sizeof at, "/proc/self/fd/%d/%s", dirfd, name) >= sizeof at) {
    ent->xattrs_unknown = true;
    return;
  }
  /* the list's size, then the list (again if it grew in between) */
  for (int tries = 0; err == 0 && n < 0 && tries < 3; tries++) {
    ssize_t need = llistxattr (at, NULL, 0);
    if (need < 0) {
      if (errno == ENOTSUP)
        n = 0;                  /* no attributes on this filesystem */
      else
        err = errno;
      break;
    }
    free (names);
    if ((names = malloc ((size_t) need + 1)) == NULL) {
      err = ENOMEM;
      break;
    }
    n = llistxattr (at, names, (size_t) need + 1);
    if (n < 0 && errno != ERANGE)
      err = errno;
  }
  if (err == 0 && n < 0)
    err = ERANGE;
  if (err == 0 && (val = malloc (XATTR_SIZE_MAX)) == NULL)
    err = ENOMEM;
  for (ssize_t off = 0; err == 0 && off < n; off += (ssize_t) strlen (names + off) + 1) {
    const char *xn = names + off;
    ssize_t vl = lgetxattr (at, xn, val, XATTR_SIZE_MAX);
    if (vl < 0) {
      err = errno == ENODATA ? 0 : errno;
      continue;                 /* gone since listed: not there */
    }
    if (pc_treewalk_add_xattr (ent, xn, val, (size_t) vl) < 0)
      err = ENOMEM;
  }
  free (names);
  free (val);
  if (err == ENOMEM)
    pc_treewalk_no_memory (w->tw);
  pc_treewalk_xattrs_done (ent, err != 0);
}

/* Hashes a regular file's content (the first READ_SIZE bytes only when it
 * is larger than the limit, then no hash); returns 0 or an errno. */
static int
hash_file (struct walk *w, int dirfd, const char *name, struct pc_entry *ent)
{
  bool whole = ent->size <= w->hash_limit;
  void *h;
  int fd, err = 0;
  ssize_t got;

  fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return errno;
  if ((h = pc_entry_hash_begin (ent)) == NULL) {
    close (fd);
    return ENOMEM;
  }
  do {
    got = read (fd, w->buf, READ_SIZE);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      err = errno;
    else if (got > 0)
      pc_entry_hash_update (h, ent, w->buf, (size_t) got);
  } while (err == 0 && got != 0 && whole);
  close (fd);
  pc_entry_hash_end (h, ent);
  pc_treewalk_hash_done (ent, whole, err != 0);
  return err;
}

static int
read_link (int dirfd, const char *name, uint64_t size, char **ret)
{
  size_t cap = size < 4096 ? 4096 : (size_t) size + 1;
  char *t = malloc (cap);
  ssize_t n;

  if (t == NULL)
    return ENOMEM;
  n = readlinkat (dirfd, name, t, cap - 1);
  if (n < 0) {
    int e = errno;
    free (t);
    return e;
  }
  t[n] = '\0';
  *ret = t;
  return 0;
}

static int
name_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_treewalk_name *) a)->name,
                 ((const struct pc_treewalk_name *) b)->name);
}

/* The names in the directory dir (not . and ..), sorted. */
static int
list_dir (struct pc_treewalk *tw, uint64_t dir, const char *path,
          struct pc_treewalk_name **ret, size_t *ret_n)
{
  struct walk *w = pc_treewalk_source_data (tw);
  int fd = openat ((int) dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct pc_treewalk_name *v = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  DIR *d;

  w->tw = tw;
  if (fd < 0 || (d = fdopendir (fd)) == NULL) {
    problem (w, path, "cannot read directory", errno);
    if (fd >= 0)
      close (fd);
    return 0;
  }
  for (;;) {
    errno = 0;
    de = readdir (d);
    if (de == NULL) {
      if (errno)
        problem (w, path, "cannot read directory", errno);
      break;
    }
    if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
      continue;
    if (n >= PC_TREEWALK_MAX_ENTRIES)
      break;
    if (pc_grow (&v, &cap, n + 1, sizeof *v, 32) < 0 || (v[n].name = strdup (de->d_name)) == NULL) {
      closedir (d);
      for (size_t i = 0; i < n; i++)
        free (v[i].name);
      free (v);
      return -ENOMEM;
    }
    v[n++].key = de->d_ino;
  }
  closedir (d);
  if (n > 1)
    qsort (v, n, sizeof *v, name_cmp);
  *ret = v;
  *ret_n = n;
  return 0;
}

static int
stat_entry (struct pc_treewalk *tw, uint64_t dir, const struct pc_treewalk_name *nm,
            struct pc_entry *ent)
{
  struct walk *w = pc_treewalk_source_data (tw);
  struct stat st;

  w->tw = tw;
  if (fstatat ((int) dir, nm->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
    problem (w, ent->path, "cannot read inode", errno);
    return PC_TREEWALK_SKIP;
  }
  ent->mode = st.st_mode;
  ent->nlink = (uint32_t) st.st_nlink;
  ent->ino = st.st_ino;
  ent->size = (uint64_t) st.st_size;
  read_xattrs (w, (int) dir, nm->name, ent);
  if (S_ISDIR (st.st_mode) && st.st_dev != w->dev)
    return PC_TREEWALK_LEAF;    /* another filesystem mounted there */
  return PC_TREEWALK_ENTRY;
}

static void
hash_entry (struct pc_treewalk *tw, uint64_t dir, const struct pc_treewalk_name *nm,
            struct pc_entry *ent)
{
  struct walk *w = pc_treewalk_source_data (tw);
  int err = hash_file (w, (int) dir, nm->name, ent);

  if (err)
    problem (w, ent->path, "cannot read file data", err);
}

static void
link_entry (struct pc_treewalk *tw, uint64_t dir, const struct pc_treewalk_name *nm,
            struct pc_entry *ent)
{
  struct walk *w = pc_treewalk_source_data (tw);
  int err = read_link ((int) dir, nm->name, ent->size, &ent->target);

  if (err)
    problem (w, ent->path, "cannot read symlink", err);
}

static int
enter_dir (struct pc_treewalk *tw, uint64_t dir, const struct pc_treewalk_name *nm,
           const char *path, uint64_t *ret)
{
  struct walk *w = pc_treewalk_source_data (tw);
  int fd = openat ((int) dir, nm->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0) {
    problem (w, path, "cannot read directory", errno);
    return 1;
  }
  *ret = (uint64_t) fd;
  return 0;
}

static void
leave_dir (struct pc_treewalk *tw, uint64_t dir)
{
  (void) tw;
  close ((int) dir);
}

static const struct pc_treewalk_source mount_source = {
  .list = list_dir,
  .stat = stat_entry,
  .hash = hash_entry,
  .link = link_entry,
  .enter = enter_dir,
  .leave = leave_dir,
};

int
pc_mnttree_read (const char *dir, uint64_t hash_limit, struct pc_mark *ret, char *problems,
                 size_t plen)
{
  struct walk w = { .hash_limit = hash_limit };
  struct stat st;
  int fd, r;

  memset (ret, 0, sizeof *ret);
  if (plen)
    problems[0] = '\0';
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (fstat (fd, &st) < 0 || (w.buf = malloc (READ_SIZE)) == NULL) {
    r = w.buf ? -errno : -ENOMEM;
    close (fd);
    return r;
  }
  w.dev = st.st_dev;
  r = pc_treewalk (&mount_source, &w, (uint64_t) fd, st.st_ino, ret, problems, plen);
  close (fd);
  free (w.buf);
  return r;
}
