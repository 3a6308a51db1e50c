/* sysctl.c: writeback knobs set for a run and put back. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysctl.h"
#include "util.h"

/* /proc/sys/vm/dirty_expire_centisecs for vm.dirty_expire_centisecs. */
static void
proc_path (const char *name, char *buf, size_t len)
{
  size_t k = (size_t) snprintf (buf, len, "/proc/sys/");

  for (const char *p = name; *p && k + 1 < len; p++)
    buf[k++] = *p == '.' ? '/' : *p;
  buf[k] = '\0';
}

int
pc_sysctl_parse (const char *s, struct pc_sysctl *ret, char *why, size_t len)
{
  const char *eq = strchr (s, '=');
  size_t nlen = eq ? (size_t) (eq - s) : 0;

  memset (ret, 0, sizeof *ret);
  if (eq == NULL || nlen == 0 || nlen >= sizeof ret->name || strncmp (s, "vm.dirty_", 9) != 0 ||
      nlen != strspn (s, "abcdefghijklmnopqrstuvwxyz_.")) {
    snprintf (why, len, "%s: not vm.dirty_NAME=VALUE (only the writeback knobs can be set)", s);
    return -EINVAL;
  }
  if (eq[1] == '\0' || strlen (eq + 1) >= sizeof ret->value ||
      strspn (eq + 1, "0123456789") != strlen (eq + 1)) {
    snprintf (why, len, "%s: the value is not a number", s);
    return -EINVAL;
  }
  memcpy (ret->name, s, nlen);
  snprintf (ret->value, sizeof ret->value, "%s", eq + 1);
  return 0;
}

static int
read_knob (const char *name, char *buf, size_t len)
{
  char path[128];
  int fd, r;
  ssize_t n;

  proc_path (name, path, sizeof path);
  if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
    return -errno;
  n = read (fd, buf, len - 1);
  r = n < 0 ? -errno : 0;
  close (fd);
  if (r < 0)
    return r;
  buf[n] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  return 0;
}

static int
write_knob (const char *name, const char *value)
{
  char path[128];
  int fd, r;

  proc_path (name, path, sizeof path);
  if ((fd = open (path, O_WRONLY | O_CLOEXEC)) < 0)
    return -errno;
  r = pc_write_all (fd, value, strlen (value));
  if (close (fd) < 0 && r == 0)
    r = -errno;
  return r;
}

/* Writes the old values to path, durably.  Returns 0 or -errno. */
static int
save (const struct pc_sysctl *v, size_t n, const char *path)
{
  char tmp[4200], buf[4096];
  size_t k = 0;
  int fd, r;

  for (size_t i = 0; i < n; i++)
    k += (size_t) snprintf (buf + k, sizeof buf - k, "%s=%s\n", v[i].name, v[i].old);
  if (k >= sizeof buf)
    return -E2BIG;
  snprintf (tmp, sizeof tmp, "%s.tmp", path);
  if ((fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
    return -errno;
  r = pc_write_all (fd, buf, k);
  if (r == 0 && fsync (fd) < 0)
    r = -errno;
  if (close (fd) < 0 && r == 0)
    r = -errno;
  if (r == 0 && rename (tmp, path) < 0)
    r = -errno;
  if (r < 0)
    unlink (tmp);
  return r;
}

int
pc_sysctl_apply (struct pc_sysctl *v, size_t n, const char *save_path, char *why, size_t len)
{
  int r;

  for (size_t i = 0; i < n; i++) {
    v[i].set = false;
    r = read_knob (v[i].name, v[i].old, sizeof v[i].old);
    if (r < 0) {
      snprintf (why, len, "%s: %s", v[i].name, strerror (-r));
      return r;
    }
  }
  if (n == 0)
    return 0;
  r = save (v, n, save_path);
  if (r < 0) {
    snprintf (why, len, "%s: %s", save_path, strerror (-r));
    return r;
  }
  for (size_t i = 0; i < n; i++) {
    r = write_knob (v[i].name, v[i].value);
    if (r < 0) {
      char ignored[64];
      snprintf (why, len, "%s=%s: %s", v[i].name, v[i].value, strerror (-r));
      pc_sysctl_restore (v, i, save_path, ignored, sizeof ignored);
      if (i == 0)
        unlink (save_path);
      return r;
    }
    v[i].set = true;
  }
  return 0;
}

int
pc_sysctl_restore (struct pc_sysctl *v, size_t n, const char *save_path, char *why, size_t len)
{
  int r = 0;

  /* In reverse: a knob set twice ends as it was first. */
  for (size_t i = n; i-- > 0;) {
    int e;
    if (!v[i].set)
      continue;
    e = write_knob (v[i].name, v[i].old);
    if (e < 0 && r == 0) {
      snprintf (why, len, "%s: cannot put back %s: %s", v[i].name, v[i].old, strerror (-e));
      r = e;
    }
    if (e == 0)
      v[i].set = false;
  }
  if (r == 0 && n > 0 && unlink (save_path) < 0 && errno != ENOENT) {
    r = -errno;
    snprintf (why, len, "%s: %s", save_path, strerror (errno));
  }
  return r;
}

int
pc_sysctl_recover (const char *save_path, char *done, size_t donelen, char *why, size_t len)
{
  FILE *f = fopen (save_path, "re");
  char line[256];
  size_t k = 0;
  int n = 0;

  done[0] = '\0';
  if (f == NULL) {
    if (errno == ENOENT)
      return 0;
    snprintf (why, len, "%s: %s", save_path, strerror (errno));
    return -errno;
  }
  while (fgets (line, sizeof line, f)) {
    struct pc_sysctl v;
    int r;
    line[strcspn (line, "\n")] = '\0';
    if (pc_sysctl_parse (line, &v, why, len) < 0) {
      fclose (f);
      return -EINVAL;
    }
    r = write_knob (v.name, v.value);
    if (r < 0) {
      snprintf (why, len, "%s: cannot put back %s: %s", v.name, v.value, strerror (-r));
      fclose (f);
      return r;
    }
    k += (size_t) snprintf (done + k, k < donelen ? donelen - k : 0, "%s%s", n ? " " : "", line);
    n++;
  }
  fclose (f);
  if (unlink (save_path) < 0) {
    snprintf (why, len, "%s: %s", save_path, strerror (errno));
    return -errno;
  }
  return n;
}
