/* mark.c: building marks and their manifests (encoding and decoding
 * them: markcodec.c). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/mark.h"
#include "util/util.h"
#include "util/xxh.h"

#define SCAN_MAX_DEPTH 256

/* Opens name under dirfd for the manifest without touching its access
 * time: reading a file or a directory would otherwise update its atime
 * (relatime does, once after each change), a change of the filesystem
 * under test that the workload did not make, in the transaction its
 * next operation joins.  O_NOATIME needs the file's owner or
 * CAP_FOWNER; without them, an open as any reader's. */
static int
open_noatime (int dirfd, const char *name, int flags)
{
  int fd = openat (dirfd, name, flags | O_NOATIME);

  if (fd < 0 && errno == EPERM)
    fd = openat (dirfd, name, flags);
  return fd;
}

const char *
pc_mark_peek_name (const uint8_t *data, size_t len, size_t *ret_len)
{
  size_t n;

  /* magic, version, flags (8 bytes), then the u16-prefixed name */
  if (len < 10)
    return NULL;
  n = pc_get_le16 (data + 8);
  if (10 + n > len)
    return NULL;
  *ret_len = n;
  return (const char *) data + 10;
}

enum pc_run_mark
pc_mark_run_kind (const struct pc_mark *m)
{
  if (m->name == NULL || (m->flags & (PC_MARK_F_SYNC | PC_MARK_F_MANIFEST)) || m->ndurable)
    return PC_RUN_MARK_NONE;
  if (strcmp (m->name, PC_MARK_COMMAND_END) == 0)
    return PC_RUN_MARK_COMMAND_END;
  if (strcmp (m->name, PC_MARK_SETTLE_END) == 0)
    return PC_RUN_MARK_SETTLE_END;
  return PC_RUN_MARK_NONE;
}

bool
pc_mark_name_valid (const char *name)
{
  size_t n = strlen (name);

  if (n == 0 || n > PC_MARK_NAME_MAX)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      return false;
  }
  return true;
}

bool
pc_mark_path_valid (const char *path, size_t len)
{
  size_t i = 0;

  if (len == 0 || len > PC_MARK_PATH_MAX || path[0] == '/' || path[len - 1] == '/')
    return false;
  if (memchr (path, '\0', len) != NULL)
    return false;
  while (i < len) {
    const char *c = path + i;
    const char *slash = memchr (c, '/', len - i);
    size_t clen = slash ? (size_t) (slash - c) : len - i;
    if (clen == 0 || (clen == 1 && c[0] == '.') ||
        (clen == 2 && c[0] == '.' && c[1] == '.'))
      return false;
    i += clen + 1;
  }
  return true;
}

/* A file's content being hashed: the hash, and the 4 KiB block it is in. */
struct entry_hash {
  XXH3_state_t st;
  XXH3_state_t block;           /* the current block's */
  uint64_t off;                 /* bytes so far */
  bool nonzero;                 /* the current block has a byte that is not zero */
  size_t cap;                   /* room in the entry's blocks */
  bool no_blocks;               /* no memory for them: none are kept */
};

/* Ends the current block: its hash into e's blocks. */
static void
block_done (struct entry_hash *h, struct pc_entry *e)
{
  if (!h->no_blocks && pc_grow (&e->blocks, &h->cap, e->nblocks + 1, sizeof *e->blocks, 16) < 0) {
    free (e->blocks);
    e->blocks = NULL;
    e->nblocks = 0;
    h->no_blocks = true;
  }
  if (!h->no_blocks)
    e->blocks[e->nblocks++] = XXH3_64bits_digest (&h->block);
  XXH3_64bits_reset (&h->block);
}

static bool
all_zero (const uint8_t *p, size_t n)
{
  return n == 0 || (p[0] == 0 && memcmp (p, p + 1, n - 1) == 0);
}

void *
pc_entry_hash_begin (struct pc_entry *e)
{
  struct entry_hash *h = malloc (sizeof *h);

  if (h) {
    XXH3_128bits_reset (&h->st);
    XXH3_64bits_reset (&h->block);
    h->off = 0;
    h->nonzero = false;
    h->cap = 0;
    h->no_blocks = false;
  }
  e->headlen = 0;
  e->zero_blocks = 0;
  free (e->blocks);
  e->blocks = NULL;
  e->nblocks = 0;
  return h;
}

void
pc_entry_hash_update (void *hp, struct pc_entry *e, const void *buf, size_t n)
{
  struct entry_hash *h = hp;
  const uint8_t *p = buf;

  if (e->headlen < PC_ENTRY_HEAD) {
    size_t k = PC_ENTRY_HEAD - e->headlen < n ? PC_ENTRY_HEAD - e->headlen : n;
    memcpy (e->head + e->headlen, buf, k);
    e->headlen += (uint8_t) k;
  }
  XXH3_128bits_update (&h->st, buf, n);
  /* Count the blocks that are all zeros, piece by piece up to each
   * block's end. */
  while (n > 0) {
    size_t room = PC_ENTRY_ZERO_BLOCK - (size_t) (h->off % PC_ENTRY_ZERO_BLOCK);
    size_t k = n < room ? n : room;
    if (!h->nonzero && !all_zero (p, k))
      h->nonzero = true;
    XXH3_64bits_update (&h->block, p, k);
    h->off += k;
    p += k;
    n -= k;
    if (k == room) {
      e->zero_blocks += !h->nonzero;
      h->nonzero = false;
      block_done (h, e);
    }
  }
}

void
pc_entry_hash_end (void *hp, struct pc_entry *e)
{
  struct entry_hash *h = hp;

  if (h->off % PC_ENTRY_ZERO_BLOCK) {
    e->zero_blocks += !h->nonzero;   /* the short last block */
    block_done (h, e);
  }
  XXH128_canonicalFromHash ((XXH128_canonical_t *) e->hash, XXH3_128bits_digest (&h->st));
  free (h);
}

static int
hash_file (int dirfd, const char *name, struct pc_entry *e)
{
  static const size_t bufsz = 1 << 20;
  void *h;
  char *buf;
  int fd, r = 0;

  fd = open_noatime (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return -errno;
  buf = malloc (bufsz);
  h = pc_entry_hash_begin (e);
  if (buf == NULL || h == NULL) {
    r = -ENOMEM;
    goto out;
  }
  for (;;) {
    ssize_t n = read (fd, buf, bufsz);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      r = -errno;
      goto out;
    }
    if (n == 0)
      break;
    pc_entry_hash_update (h, e, buf, (size_t) n);
  }
out:
  if (h)
    pc_entry_hash_end (h, e);
  free (buf);
  close (fd);
  return r;
}

struct scan {
  struct pc_mark *m;
  size_t cap;
  dev_t dev;
  char path[PC_MARK_PATH_MAX + 1];
  char *bad;                  /* the path at fault, once one failed */
};

void
pc_entry_clear (struct pc_entry *e)
{
  free (e->path);
  free (e->target);
  free (e->blocks);
  for (size_t i = 0; i < e->nxattrs; i++)
    free (e->xattrs[i].name);
  free (e->xattrs);
  e->path = e->target = NULL;
  e->blocks = NULL;
  e->xattrs = NULL;
  e->nblocks = 0;
  e->nxattrs = 0;
}

int
pc_mark_add_entry (struct pc_mark *m, size_t *cap, const struct pc_entry *e)
{
  if (m->nentries == *cap) {
    size_t ncap = *cap ? *cap * 2 : 64;
    struct pc_entry *n = realloc (m->entries, ncap * sizeof *n);
    if (n == NULL)
      return -ENOMEM;
    m->entries = n;
    *cap = ncap;
  }
  m->entries[m->nentries++] = *e;
  return 0;
}

static int
scan_dir (struct scan *s, int dirfd, size_t plen, int depth)
{
  DIR *d;
  struct dirent *de;
  int r = 0;

  if (depth > SCAN_MAX_DEPTH)
    return -ELOOP;
  d = fdopendir (dirfd);
  if (d == NULL) {
    r = -errno;
    close (dirfd);
    return r;
  }
  while ((errno = 0, de = readdir (d)) != NULL) {
    struct pc_entry e;
    struct stat st;
    size_t nlen = strlen (de->d_name), elen;

    if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
      continue;
    elen = plen + (plen ? 1 : 0) + nlen;
    if (elen > PC_MARK_PATH_MAX) {
      r = -ENAMETOOLONG;
      break;
    }
    if (plen)
      s->path[plen] = '/';
    memcpy (s->path + plen + (plen ? 1 : 0), de->d_name, nlen + 1);
    if (fstatat (dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
      r = -errno;
      break;
    }
    memset (&e, 0, sizeof e);
    e.mode = st.st_mode;
    e.nlink = (uint32_t) st.st_nlink;
    e.ino = st.st_ino;
    e.size = (uint64_t) st.st_size;
    if (S_ISREG (st.st_mode)) {
      e.type = PC_ENTRY_FILE;
      r = hash_file (dirfd, de->d_name, &e);
    }
    else if (S_ISDIR (st.st_mode)) {
      e.type = PC_ENTRY_DIR;
      e.size = 0;
    }
    else if (S_ISLNK (st.st_mode)) {
      char t[PATH_MAX];
      ssize_t n = readlinkat (dirfd, de->d_name, t, sizeof t - 1);
      e.type = PC_ENTRY_SYMLINK;
      if (n < 0)
        r = -errno;
      else {
        t[n] = '\0';
        e.target = strdup (t);
        if (e.target == NULL)
          r = -ENOMEM;
      }
    }
    else {
      e.type = PC_ENTRY_OTHER;
      e.size = 0;
    }
    if (r == 0) {
      e.path = strdup (s->path);
      if (e.path == NULL)
        r = -ENOMEM;
    }
    if (r == 0)
      r = pc_mark_add_entry (s->m, &s->cap, &e);
    if (r < 0) {
      free (e.path);
      free (e.target);
      free (e.blocks);
      break;
    }
    if (S_ISDIR (st.st_mode) && st.st_dev == s->dev) {
      int fd = open_noatime (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        r = -errno;
        break;
      }
      r = scan_dir (s, fd, elen, depth + 1);
      if (r < 0)
        break;
    }
    s->path[plen] = '\0';
  }
  if (r == 0 && errno != 0)
    r = -errno;
  if (r < 0 && s->bad == NULL)
    s->bad = strdup (s->path);
  s->path[plen] = '\0';
  closedir (d);
  return r;
}

static int
entry_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_entry *) a)->path,
                 ((const struct pc_entry *) b)->path);
}

int
pc_mark_scan (struct pc_mark *m, const char *dir, struct pc_err *why)
{
  struct scan s;
  struct stat st;
  int fd, r;

  memset (&s, 0, sizeof s);
  s.m = m;
  s.cap = m->nentries;
  fd = open_noatime (AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0) {
    r = -errno;
    if (fd >= 0)
      close (fd);
    return pc_err_set (why, -r, "%s: %s", dir, strerror (-r));
  }
  s.dev = st.st_dev;
  r = scan_dir (&s, fd, 0, 0);
  if (r < 0) {
    pc_err_msg (why, "%s%s%s: %s", dir, s.bad && *s.bad ? "/" : "",
                s.bad ? s.bad : "", strerror (-r));
    free (s.bad);
    return r;
  }
  if (m->nentries > 0)
    qsort (m->entries, m->nentries, sizeof *m->entries, entry_cmp);
  m->flags |= PC_MARK_F_MANIFEST;
  return 0;
}

/* Lexically normalises an absolute path in place ("a/./b/../c" -> "a/c"). */
static void
normalise (char *p)
{
  char *out = p, *in = p;

  while (*in) {
    while (*in == '/')
      in++;
    if (*in == '\0')
      break;
    char *seg = in;
    while (*in && *in != '/')
      in++;
    size_t len = (size_t) (in - seg);
    if (len == 1 && seg[0] == '.')
      continue;
    if (len == 2 && seg[0] == '.' && seg[1] == '.') {
      while (out > p && *--out != '/')
        ;
      continue;
    }
    *out++ = '/';
    memmove (out, seg, len);
    out += len;
  }
  if (out == p)
    *out++ = '/';
  *out = '\0';
}

int
pc_mark_relpath (const char *dir, const char *path, char **ret_rel)
{
  char root[PATH_MAX], parent[PATH_MAX], abs[2 * PATH_MAX + 2];
  char *slash, *rel;
  size_t rlen;

  if (realpath (dir, root) == NULL)
    return -errno;
  if (path[0] == '/')
    snprintf (abs, sizeof abs, "%s", path);
  else {
    char cwd[PATH_MAX];
    if (getcwd (cwd, sizeof cwd) == NULL)
      return -errno;
    snprintf (abs, sizeof abs, "%s/%s", cwd, path);
  }
  normalise (abs);
  slash = strrchr (abs, '/');
  if (slash == abs || slash[1] == '\0')
    return -EXDEV;
  *slash = '\0';
  if (realpath (abs, parent) == NULL)
    return -errno;
  rlen = strlen (root);
  if (strcmp (parent, root) == 0)
    rel = strdup (slash + 1);
  else if (strncmp (parent, root, rlen) == 0 &&
           (parent[rlen] == '/' || rlen == 1)) {
    size_t n = strlen (parent + rlen + (rlen == 1 ? 0 : 1)) + strlen (slash + 1) + 2;
    rel = malloc (n);
    if (rel)
      snprintf (rel, n, "%s/%s", parent + rlen + (rlen == 1 ? 0 : 1), slash + 1);
  }
  else
    return -EXDEV;
  if (rel == NULL)
    return -ENOMEM;
  if (!pc_mark_path_valid (rel, strlen (rel))) {
    free (rel);
    return -EINVAL;
  }
  *ret_rel = rel;
  return 0;
}

int
pc_mark_add_durable (struct pc_mark *m, const char *rel)
{
  char **n = realloc (m->durable, (m->ndurable + 1) * sizeof *n);

  if (n == NULL)
    return -ENOMEM;
  m->durable = n;
  n[m->ndurable] = strdup (rel);
  if (n[m->ndurable] == NULL)
    return -ENOMEM;
  m->ndurable++;
  return 0;
}

static int
find_cmp (const void *key, const void *elem)
{
  return strcmp (key, ((const struct pc_entry *) elem)->path);
}

const struct pc_entry *
pc_mark_find (const struct pc_mark *m, const char *path)
{
  if (m->nentries == 0)
    return NULL;
  return bsearch (path, m->entries, m->nentries, sizeof *m->entries, find_cmp);
}

void
pc_mark_free (struct pc_mark *m)
{
  if (m == NULL)
    return;
  free (m->name);
  for (size_t i = 0; i < m->ndurable; i++)
    free (m->durable[i]);
  free (m->durable);
  for (size_t i = 0; i < m->nentries; i++)
    pc_entry_clear (&m->entries[i]);
  free (m->entries);
  memset (m, 0, sizeof *m);
}
