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

#include "judge/fstree.h"
#include "judge/mnttree.h"
#include "format/acl.h"
#include "util/util.h"
#include "util/xxh.h"

#define READ_SIZE (1 << 16)

struct walk {
  struct pc_mark *m;
  size_t cap;
  dev_t dev;                    /* the mounted filesystem's */
  uint64_t hash_limit;
  char *buf;                    /* READ_SIZE */
  char *problems;
  size_t plen, ppos;
  bool no_memory;
  ino_t *dirs;                  /* the directories walked, against loops */
  size_t ndirs, capdirs;
};

static void
problem (struct walk *w, const char *path, const char *what, int err)
{
  if (err == ENOMEM)
    w->no_memory = true;
  if (w->ppos + 1 >= w->plen)
    return;
  w->ppos += (size_t) snprintf (w->problems + w->ppos, w->plen - w->ppos, "%s%s: %s%s%s",
                                w->ppos ? "\n" : "", path[0] ? path : "/", what,
                                err ? ": " : "", err ? strerror (err) : "");
  if (w->ppos >= w->plen)
    w->ppos = w->plen - 1;
}

static int
xattr_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_xattr *) a)->name, ((const struct pc_xattr *) b)->name);
}

/* The extended attributes of name in the directory dirfd into ent, sorted
 * by name, an ACL by its meaning; if they cannot be read, none, and
 * ent->xattrs_unknown. */
static void
read_xattrs (struct walk *w, int dirfd, const char *name, struct pc_entry *ent)
{
  char at[64 + 4096], *names = NULL, *val = NULL;
  ssize_t n = -1;
  size_t cap = 0;
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
    enum pc_acl_kind k = pc_acl_kind (xn);
    ssize_t vl = lgetxattr (at, xn, val, XATTR_SIZE_MAX);
    uint64_t hash = 0;
    struct pc_xattr *x;
    if (vl < 0) {
      err = errno == ENODATA ? 0 : errno;
      continue;                 /* gone since listed: not there */
    }
    /* as fstree.c keeps them: an ACL that only repeats the mode is none */
    if (k != PC_ACL_NONE) {
      int m = pc_acl_meaning (k, val, (size_t) vl, &hash);
      if (m == 0)
        continue;
      if (m < 0)
        hash = XXH3_64bits (val, (size_t) vl);
    }
    else
      hash = XXH3_64bits (val, (size_t) vl);
    if (pc_grow (&ent->xattrs, &cap, ent->nxattrs + 1, sizeof *ent->xattrs, 4) < 0 ||
        (ent->xattrs[ent->nxattrs].name = strdup (xn)) == NULL) {
      err = ENOMEM;
      break;
    }
    x = &ent->xattrs[ent->nxattrs++];
    x->hash = hash;
  }
  free (names);
  free (val);
  if (err) {
    for (size_t i = 0; i < ent->nxattrs; i++)
      free (ent->xattrs[i].name);
    free (ent->xattrs);
    ent->xattrs = NULL;
    ent->nxattrs = 0;
    ent->xattrs_unknown = true;
    if (err == ENOMEM)
      w->no_memory = true;
    return;
  }
  if (ent->nxattrs > 1)
    qsort (ent->xattrs, ent->nxattrs, sizeof *ent->xattrs, xattr_cmp);
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
  if (!whole || err) {
    if (!whole)
      memset (ent->hash, 0, sizeof ent->hash);
    ent->zero_blocks = 0;       /* not read: not known to be zeros */
    free (ent->blocks);         /* nor its blocks */
    ent->blocks = NULL;
    ent->nblocks = 0;
  }
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

/* Has the walk been in the directory of inode ino before (a loop)? */
static bool
seen_dir (struct walk *w, ino_t ino)
{
  for (size_t i = 0; i < w->ndirs; i++)
    if (w->dirs[i] == ino)
      return true;
  if (pc_grow (&w->dirs, &w->capdirs, w->ndirs + 1, sizeof *w->dirs, 64) == 0)
    w->dirs[w->ndirs++] = ino;
  return false;
}

static int
name_cmp (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in the directory dirfd (not . and ..), sorted, into *ret. */
static int
list_dir (int dirfd, char ***ret, size_t *ret_n, int *ret_err)
{
  int fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d;
  char **v = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;

  *ret = NULL;
  *ret_n = 0;
  *ret_err = 0;
  if (fd < 0 || (d = fdopendir (fd)) == NULL) {
    *ret_err = errno;
    if (fd >= 0)
      close (fd);
    return 0;
  }
  for (;;) {
    errno = 0;
    de = readdir (d);
    if (de == NULL) {
      *ret_err = errno;
      break;
    }
    if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
      continue;
    if (n >= PC_FSTREE_MAX_ENTRIES)
      break;
    if (pc_grow (&v, &cap, n + 1, sizeof *v, 32) < 0 || (v[n] = strdup (de->d_name)) == NULL) {
      closedir (d);
      for (size_t i = 0; i < n; i++)
        free (v[i]);
      free (v);
      return -ENOMEM;
    }
    n++;
  }
  closedir (d);
  if (n > 1)
    qsort (v, n, sizeof *v, name_cmp);
  *ret = v;
  *ret_n = n;
  return 0;
}

static int
walk_dir (struct walk *w, int dirfd, const char *prefix, int depth)
{
  char **names;
  size_t n;
  int err, r;

  if (depth > PC_FSTREE_MAX_DEPTH) {
    problem (w, prefix, "directories nested too deep", 0);
    return 0;
  }
  r = list_dir (dirfd, &names, &n, &err);
  if (r < 0)
    return r;
  if (err)
    problem (w, prefix, "cannot read directory", err);
  for (size_t i = 0; i < n && r == 0; i++) {
    struct pc_entry ent;
    struct stat st;
    char *path;
    size_t pl = strlen (prefix);

    if ((path = malloc (pl + strlen (names[i]) + 2)) == NULL) {
      r = -ENOMEM;
      break;
    }
    if (pl)
      sprintf (path, "%s/%s", prefix, names[i]);
    else
      strcpy (path, names[i]);
    if (w->m->nentries >= PC_FSTREE_MAX_ENTRIES) {
      problem (w, path, "too many entries: the walk stops here", 0);
      free (path);
      break;
    }
    if (fstatat (dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
      problem (w, path, "cannot read inode", errno);
      free (path);
      continue;
    }
    memset (&ent, 0, sizeof ent);
    ent.path = path;
    ent.mode = st.st_mode;
    ent.nlink = (uint32_t) st.st_nlink;
    ent.ino = st.st_ino;
    ent.size = (uint64_t) st.st_size;
    read_xattrs (w, dirfd, names[i], &ent);
    if (S_ISREG (st.st_mode)) {
      ent.type = PC_ENTRY_FILE;
      if ((err = hash_file (w, dirfd, names[i], &ent)) != 0)
        problem (w, path, "cannot read file data", err);
    }
    else if (S_ISDIR (st.st_mode)) {
      ent.type = PC_ENTRY_DIR;
      ent.size = 0;
    }
    else if (S_ISLNK (st.st_mode)) {
      ent.type = PC_ENTRY_SYMLINK;
      if ((err = read_link (dirfd, names[i], ent.size, &ent.target)) != 0) {
        problem (w, path, "cannot read symlink", err);
        ent.target = strdup ("");
      }
    }
    else {
      ent.type = PC_ENTRY_OTHER;
      ent.size = 0;
    }
    r = pc_mark_add_entry (w->m, &w->cap, &ent);
    if (r < 0) {
      pc_entry_clear (&ent);
      break;
    }
    if (ent.type == PC_ENTRY_DIR) {
      int fd;
      if (st.st_dev != w->dev)
        continue;               /* another filesystem mounted there */
      if (seen_dir (w, st.st_ino)) {
        problem (w, path, "directory reached twice (a loop)", 0);
        continue;
      }
      fd = openat (dirfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        problem (w, path, "cannot read directory", errno);
        continue;
      }
      r = walk_dir (w, fd, path, depth + 1);
      close (fd);
    }
  }
  for (size_t i = 0; i < n; i++)
    free (names[i]);
  free (names);
  return r;
}

static int
entry_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_entry *) a)->path, ((const struct pc_entry *) b)->path);
}

int
pc_mnttree_read (const char *dir, uint64_t hash_limit, struct pc_mark *ret, char *problems,
                 size_t plen)
{
  struct walk w;
  struct stat st;
  int fd, r;

  memset (ret, 0, sizeof *ret);
  memset (&w, 0, sizeof w);
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
  w.m = ret;
  w.dev = st.st_dev;
  w.hash_limit = hash_limit;
  w.problems = problems;
  w.plen = plen;
  seen_dir (&w, st.st_ino);
  r = walk_dir (&w, fd, "", 0);
  close (fd);
  free (w.buf);
  free (w.dirs);
  if (r == 0 && w.no_memory)
    r = -ENOMEM;
  if (r < 0) {
    pc_mark_free (ret);
    return r;
  }
  if (ret->nentries > 1)
    qsort (ret->entries, ret->nentries, sizeof *ret->entries, entry_cmp);
  return 0;
}
