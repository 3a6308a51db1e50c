/* initramfs.c: the guest's initramfs, a cpio archive. */
#include <config.h>

#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/proc.h"
#include "util/util.h"
#include "util/xxh.h"
#include "guest/initramfs.h"

static void
cpio_pad (struct cpio *c, size_t n)
{
  static const char z[4];

  if (n % 4 && fwrite (z, 1, 4 - n % 4, c->f) != 4 - n % 4)
    c->err = -EIO;
}

void
pc_cpio_entry (struct cpio *c, const char *name, unsigned mode, const void *data, size_t len)
{
  char hdr[160];
  size_t nlen = strlen (name) + 1;

  snprintf (hdr, sizeof hdr, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
            ++c->ino, mode, 0u, 0u, 1u, 0u, (unsigned) len, 0u, 0u, 0u, 0u,
            (unsigned) nlen, 0u);
  if (fwrite (hdr, 1, 110, c->f) != 110 || fwrite (name, 1, nlen, c->f) != nlen)
    c->err = -EIO;
  cpio_pad (c, 110 + nlen);
  if (len && fwrite (data, 1, len, c->f) != len)
    c->err = -EIO;
  cpio_pad (c, len);
}

/* Is directory name in the archive already?  If not, it is now known to
 * be, and true is returned only after the caller writes its entry. */
static bool
dir_known (struct cpio *c, const char *name)
{
  char **n;

  for (size_t i = 0; i < c->ndirs; i++)
    if (strcmp (c->dirs[i], name) == 0)
      return true;
  n = realloc (c->dirs, (c->ndirs + 1) * sizeof *n);
  if (n == NULL || (n[c->ndirs] = strdup (name)) == NULL) {
    if (n)
      c->dirs = n;
    c->err = -ENOMEM;
    return true;
  }
  c->dirs = n;
  c->ndirs++;
  return false;
}

/* Adds the directories above name (a path without a leading '/'). */
static void
cpio_parents (struct cpio *c, const char *name)
{
  char buf[PATH_MAX];

  snprintf (buf, sizeof buf, "%s", name);
  for (char *p = strchr (buf, '/'); p; p = strchr (p + 1, '/')) {
    *p = '\0';
    if (!dir_known (c, buf))
      pc_cpio_entry (c, buf, 040755, NULL, 0);
    *p = '/';
  }
}

int
pc_read_file (const char *path, char **ret, size_t *ret_len)
{
  struct stat st;
  char *buf;
  int fd = open (path, O_RDONLY | O_CLOEXEC), r;

  if (fd < 0)
    return -errno;
  if (fstat (fd, &st) < 0 || (buf = malloc ((size_t) st.st_size + 1)) == NULL) {
    close (fd);
    return -ENOMEM;
  }
  r = pc_read_all (fd, buf, (size_t) st.st_size);
  close (fd);
  if (r < 0) {
    free (buf);
    return r;
  }
  buf[st.st_size] = '\0';
  *ret = buf;
  *ret_len = (size_t) st.st_size;
  return 0;
}

/* Copies the host file src into the archive as dst (no leading '/'). */
int
pc_cpio_copy (struct cpio *c, const char *src, const char *dst, unsigned mode)
{
  char *data;
  size_t len;
  int r = pc_read_file (src, &data, &len);

  if (r < 0)
    return r;
  cpio_parents (c, dst);
  pc_cpio_entry (c, dst, mode, data, len);
  free (data);
  return c->err;
}

/* Adds an executable and every shared library ldd says it needs. */
int
pc_cpio_program (struct cpio *c, const char *path, const char *dst, struct pc_err *why)
{
  char *argv[] = { "ldd", (char *) path, NULL }, out[8192];
  int r = pc_cpio_copy (c, path, dst, 0100755);

  if (r < 0) {
    pc_err_msg (why, "%s: %s", path, strerror (-r));
    return r;
  }
  /* A static program makes ldd fail: it needs nothing. */
  if (pc_proc_run (argv, 60, out, sizeof out) != 0)
    return 0;
  for (char *l = strtok (out, "\n"); l; l = strtok (NULL, "\n")) {
    char *lib = strstr (l, "=> ");
    char *sp;
    lib = lib ? lib + 3 : l;
    while (*lib == ' ' || *lib == '\t')
      lib++;
    if (*lib != '/')
      continue;
    sp = strchr (lib, ' ');
    if (sp)
      *sp = '\0';
    r = pc_cpio_copy (c, lib, lib + 1, 0100755);
    if (r < 0) {
      pc_err_msg (why, "%s: %s", lib, strerror (-r));
      return r;
    }
  }
  return 0;
}

/* Writes a module, decompressed, as lib/modules/NAME.ko. */
static int
cpio_module (struct cpio *c, const char *moddir, const char *rel, struct pc_err *why)
{
  char src[PATH_MAX], tmp[] = "/tmp/powercut-ko.XXXXXX", name[128], dst[160];
  const char *base = strrchr (rel, '/') ? strrchr (rel, '/') + 1 : rel;
  size_t n = strcspn (base, ".");
  int r, fd;
  pid_t pid;

  snprintf (src, sizeof src, "%s/%s", moddir, rel);
  snprintf (name, sizeof name, "%.*s", (int) n, base);
  for (char *p = name; *p; p++)
    if (*p == '-')
      *p = '_';
  snprintf (dst, sizeof dst, "lib/modules/%s.ko", name);
  if (strstr (base, ".ko.xz") == NULL && strstr (base, ".ko.zst") == NULL &&
      strstr (base, ".ko.gz") == NULL)
    return pc_cpio_copy (c, src, dst, 0100644);
  fd = mkstemp (tmp);
  if (fd < 0)
    return -errno;
  pid = fork ();
  if (pid == 0) {
    const char *tool = strstr (base, ".xz") ? "xz" : strstr (base, ".zst") ? "zstd" : "gzip";
    dup2 (fd, 1);
    execlp (tool, tool, "-dc", src, (char *) NULL);
    _exit (127);
  }
  close (fd);
  if (pid < 0 || waitpid (pid, &r, 0) < 0 || !WIFEXITED (r) || WEXITSTATUS (r) != 0) {
    unlink (tmp);
    pc_err_msg (why, "%s: cannot decompress it (xz installed?)", src);
    return -EIO;
  }
  r = pc_cpio_copy (c, tmp, dst, 0100644);
  unlink (tmp);
  return r;
}

/* The module name of a modules.dep path: "kernel/fs/jbd2/jbd2.ko.xz" ->
 * "jbd2" (dashes as underscores, as the kernel names modules). */
static void
mod_name (const char *path, size_t len, char *out, size_t olen)
{
  const char *b = path;

  for (size_t i = 0; i < len; i++)
    if (path[i] == '/')
      b = path + i + 1;
  snprintf (out, olen, "%.*s", (int) strcspn (b, ".: "), b);
  for (char *q = out; *q; q++)
    if (*q == '-')
      *q = '_';
}

/* The module an alias of moddir's modules.alias names ("crc32" ->
 * "crc32_generic"), the generic one where several do (it runs on any
 * CPU), into out; false if none does (a part of the kernel itself). */
static bool
alias_module (const char *moddir, const char *alias, char *out, size_t olen)
{
  char path[PATH_MAX + 16], line[512], a[256], m[128];
  FILE *f;
  bool found = false;

  snprintf (path, sizeof path, "%s/modules.alias", moddir);
  f = fopen (path, "re");
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "alias %255s %127s", a, m) == 2 && strcmp (a, alias) == 0 &&
        (!found || (strlen (m) > 8 && strcmp (m + strlen (m) - 8, "_generic") == 0))) {
      snprintf (out, olen, "%s", m);
      found = true;
    }
  if (f)
    fclose (f);
  return found;
}

/* What modprobe loads before module name though modules.dep does not say
 * (its "softdep NAME pre:" lines in moddir's modules.softdep: crypto
 * algorithms it asks for by name, crc32c for ext4, crc32 for f2fs), as
 * module names into out[] (at most max).  Returns how many. */
static size_t
soft_pre (const char *moddir, const char *name, char out[][128], size_t max)
{
  char path[PATH_MAX + 16], line[1024];
  size_t n = 0;
  FILE *f;

  snprintf (path, sizeof path, "%s/modules.softdep", moddir);
  f = fopen (path, "re");
  while (f && fgets (line, sizeof line, f)) {
    char *save = NULL, *w = strtok_r (line, " \t\n", &save);
    bool pre = false;
    if (w == NULL || strcmp (w, "softdep") != 0 ||
        (w = strtok_r (NULL, " \t\n", &save)) == NULL || strcmp (w, name) != 0)
      continue;
    while ((w = strtok_r (NULL, " \t\n", &save)) != NULL && n < max) {
      if (strcmp (w, "pre:") == 0 || strcmp (w, "post:") == 0)
        pre = strcmp (w, "pre:") == 0;
      else if (pre && alias_module (moddir, w, out[n], sizeof out[n]))
        n++;
    }
  }
  if (f)
    fclose (f);
  return n;
}

const char *
pc_modules_id (const char *moddir, char *out, size_t len)
{
  char dep[PATH_MAX + 16];
  struct stat st;

  snprintf (dep, sizeof dep, "%s/modules.dep", moddir);
  if (stat (dep, &st) < 0)
    memset (&st, 0, sizeof st);
  snprintf (out, len, "custom-%llx-%llx", (unsigned long long) XXH64 (moddir, strlen (moddir), 0),
            (unsigned long long) st.st_mtime);
  return out;
}

/* Is module name built into the kernel of moddir (a line of its
 * modules.builtin, "kernel/fs/ext4/ext4.ko", names it)? */
static bool
builtin_module (const char *moddir, const char *name)
{
  char path[PATH_MAX + 16], line[512], n[128];
  bool found = false;
  FILE *f;

  snprintf (path, sizeof path, "%s/modules.builtin", moddir);
  f = fopen (path, "re");
  while (f && !found && fgets (line, sizeof line, f)) {
    mod_name (line, strcspn (line, "\n"), n, sizeof n);
    found = strcmp (n, name) == 0;
  }
  if (f)
    fclose (f);
  return found;
}

/* Adds module name and, first, what modules.dep says it needs; appends
 * the load order to order (" a b c "); a module built into the kernel
 * adds nothing. */
int
pc_cpio_module (struct cpio *c, const char *moddir, const char *dep, const char *name,
            char *order, size_t olen, int depth, struct pc_err *why)
{
  char key[160], path[512], deps[32][128];
  const char *line = NULL;
  size_t ndeps = 0;
  int r;

  snprintf (key, sizeof key, " %s ", name);
  if (depth > 16 || strstr (order, key))
    return 0;
  /* Its line: "PATH: DEP DEP ..." where PATH names the module. */
  for (const char *l = dep; *l; ) {
    const char *colon = strchr (l, ':'), *nl = strchr (l, '\n');
    char n[128];
    if (colon == NULL)
      break;
    if (nl == NULL)
      nl = l + strlen (l);
    if (colon < nl) {
      mod_name (l, (size_t) (colon - l), n, sizeof n);
      if (strcmp (n, name) == 0) {
        line = l;
        break;
      }
    }
    l = *nl ? nl + 1 : nl;
  }
  if (line == NULL && builtin_module (moddir, name))
    return 0;
  if (line == NULL) {
    pc_err_msg (why, "%s: no module %s in its modules.dep or modules.builtin", moddir, name);
    return -ENOENT;
  }
  {
    const char *colon = strchr (line, ':'), *nl = strchr (line, '\n'), *d;
    if (nl == NULL)
      nl = line + strlen (line);
    snprintf (path, sizeof path, "%.*s", (int) (colon - line), line);
    for (d = colon + 1; d < nl && ndeps < 32;) {
      size_t len;
      while (d < nl && *d == ' ')
        d++;
      len = strcspn (d, " \n");
      if (len == 0)
        break;
      mod_name (d, len, deps[ndeps++], sizeof deps[0]);
      d += len;
    }
  }
  /* what modprobe loads first, then what it needs */
  {
    char soft[8][128];
    size_t nsoft = soft_pre (moddir, name, soft, 8);
    for (size_t i = 0; i < nsoft; i++) {
      r = pc_cpio_module (c, moddir, dep, soft[i], order, olen, depth + 1, why);
      if (r < 0)
        return r;
    }
  }
  for (size_t i = 0; i < ndeps; i++) {
    r = pc_cpio_module (c, moddir, dep, deps[i], order, olen, depth + 1, why);
    if (r < 0)
      return r;
  }
  r = cpio_module (c, moddir, path, why);
  if (r < 0)
    return r;
  snprintf (order + strlen (order), olen - strlen (order), "%s ", name);
  return 0;
}

const char *
pc_find_program (const char *const *cands)
{
  for (; *cands; cands++)
    if (access (*cands, X_OK) == 0)
      return *cands;
  return NULL;
}
int
pc_cpio_tree (struct cpio *c, const char *src, const char *dst, struct pc_err *why)
{
  struct stat st;
  DIR *d;
  struct dirent *de;
  int r = 0;

  if (lstat (src, &st) < 0) {
    r = -errno;
    pc_err_msg (why, "%s: %s", src, strerror (-r));
    return r;
  }
  if (S_ISLNK (st.st_mode)) {
    char target[PATH_MAX];
    ssize_t n = readlink (src, target, sizeof target);
    if (n < 0 || (size_t) n >= sizeof target) {
      pc_err_msg (why, "%s: cannot read the link", src);
      return -EIO;
    }
    cpio_parents (c, dst);
    pc_cpio_entry (c, dst, 0120777, target, (size_t) n);
    return c->err;
  }
  if (S_ISREG (st.st_mode)) {
    r = pc_cpio_copy (c, src, dst, 0100000 | (st.st_mode & 07777));
    if (r < 0)
      pc_err_msg (why, "%s: %s", src, strerror (-r));
    return r;
  }
  if (!S_ISDIR (st.st_mode)) {
    pc_err_msg (why, "%s: not a file, directory or link", src);
    return -EINVAL;
  }
  cpio_parents (c, dst);
  if (!dir_known (c, dst))      /* its own mode, not the parents' 0755 */
    pc_cpio_entry (c, dst, 040000 | (st.st_mode & 07777), NULL, 0);
  d = opendir (src);
  if (d == NULL) {
    r = -errno;
    pc_err_msg (why, "%s: %s", src, strerror (-r));
    return r;
  }
  while (r == 0 && (de = readdir (d)) != NULL) {
    char s[PATH_MAX], t[PATH_MAX];
    if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
      continue;
    if ((size_t) snprintf (s, sizeof s, "%s/%s", src, de->d_name) >= sizeof s ||
        (size_t) snprintf (t, sizeof t, "%s/%s", dst, de->d_name) >= sizeof t) {
      pc_err_msg (why, "%s/%s: path too long", src, de->d_name);
      r = -ENAMETOOLONG;
      break;
    }
    r = pc_cpio_tree (c, s, t, why);
  }
  closedir (d);
  return r;
}

int
pc_cpio_end (struct cpio *c)
{
  pc_cpio_entry (c, "TRAILER!!!", 0, NULL, 0);
  if (fclose (c->f) != 0 && c->err == 0)
    c->err = -EIO;
  c->f = NULL;
  return c->err;
}

void
pc_cpio_free (struct cpio *c)
{
  for (size_t i = 0; i < c->ndirs; i++)
    free (c->dirs[i]);
  free (c->dirs);
  c->dirs = NULL;
  c->ndirs = 0;
}

