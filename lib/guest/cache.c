/* cache.c: the caller's own folder of files kept between runs. */
#include <config.h>

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest/cache.h"
#include "util/err.h"

/* Is st something only the effective user may change? */
static const char *
not_private (const struct stat *st, mode_t others)
{
  if (st->st_uid != geteuid ())
    return "owned by another user";
  if (st->st_mode & others)
    return S_ISDIR (st->st_mode) ? "open to group or others (it must be mode 0700)"
                                 : "writable by group or others";
  return NULL;
}

int
pc_cache_open (char *path, size_t len, struct pc_err *why)
{
  const char *xdg = getenv ("XDG_CACHE_HOME"), *home = getenv ("HOME"), *bad;
  struct stat st;
  int fd;

  if (xdg && xdg[0] == '/')
    snprintf (path, len, "%s/powercut", xdg);
  else if (home && home[0] == '/')
    snprintf (path, len, "%s/.cache/powercut", home);
  else if (geteuid () == 0)
    snprintf (path, len, "/var/cache/powercut");
  else
    return pc_err_set (why, ENOENT, "no folder for powercut's cache (HOME is not set)");

  /* Every missing folder on the way, private; existing ones as they are
   * (what matters is the last, checked below through its descriptor). */
  for (char *p = strchr (path + 1, '/'); ; p = strchr (p + 1, '/')) {
    if (p)
      *p = '\0';
    if (mkdir (path, 0700) < 0 && errno != EEXIST) {
      int e = errno;
      if (p)
        *p = '/';
      return pc_err_set (why, e, "%s: %s", path, strerror (e));
    }
    if (p == NULL)
      break;
    *p = '/';
  }
  fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ELOOP || e == ENOTDIR)
      return pc_err_set (why, e, "%s: the cache folder is not a directory of its own (a "
                         "symbolic link?); refusing it", path);
    return pc_err_set (why, e, "%s: %s", path, strerror (e));
  }
  if (fstat (fd, &st) < 0) {
    int e = errno;
    close (fd);
    return pc_err_set (why, e, "%s: %s", path, strerror (e));
  }
  if ((bad = not_private (&st, 077)) != NULL) {
    close (fd);
    return pc_err_set (why, EPERM, "%s: the cache folder is %s; refusing it", path, bad);
  }
  return fd;
}

int
pc_cache_read (int dirfd, const char *dir, const char *name, struct pc_err *why)
{
  int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  const char *bad;

  if (fd < 0) {
    int e = errno;
    if (e == ENOENT)
      return -ENOENT;
    if (e == ELOOP)
      return pc_err_set (why, e, "%s/%s: a symbolic link in the cache folder; refusing it",
                         dir, name);
    return pc_err_set (why, e, "%s/%s: %s", dir, name, strerror (e));
  }
  if (fstat (fd, &st) < 0) {
    int e = errno;
    close (fd);
    return pc_err_set (why, e, "%s/%s: %s", dir, name, strerror (e));
  }
  bad = !S_ISREG (st.st_mode) ? "not a regular file" : not_private (&st, 022);
  if (bad == NULL && st.st_nlink != 1)
    bad = "linked under another name";
  if (bad) {
    close (fd);
    return pc_err_set (why, EPERM, "%s/%s: %s; refusing it", dir, name, bad);
  }
  fcntl (fd, F_SETFL, 0);
  return fd;
}

int
pc_cache_create (int dirfd, const char *dir, const char *name, char *tmp, size_t tlen,
                 struct pc_err *why)
{
  int fd;

  for (unsigned i = 0; i < 100; i++) {
    snprintf (tmp, tlen, "%s.%ld.%u", name, (long) getpid (), i);
    fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
      return fd;
    if (errno != EEXIST)
      break;
  }
  {
    int e = errno;
    return pc_err_set (why, e, "%s/%s: %s", dir, tmp, strerror (e));
  }
}

int
pc_cache_commit (int dirfd, const char *dir, int fd, const char *tmp, const char *name,
                 struct pc_err *why)
{
  if (fsync (fd) < 0 || renameat (dirfd, tmp, dirfd, name) < 0) {
    int e = errno;
    unlinkat (dirfd, tmp, 0);
    return pc_err_set (why, e, "%s/%s: %s", dir, name, strerror (e));
  }
  return 0;
}
