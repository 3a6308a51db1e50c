/* peek.c: reading a traced thread's memory, descriptors and directory. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "trace/traceint.h"

#define PAGE 4096

/* Set once process_vm_readv said ENOSYS: a kernel built without
 * CONFIG_CROSS_MEMORY_ATTACH (a small guest kernel) has none.  The
 * environment's POWERCUT_TRACE_PEEK=proc sets it from the start, so that
 * a test can compare the two ways on any kernel. */
static int no_vm_readv = -1;

int
pc_peek (pid_t tid, uint64_t addr, void *buf, size_t n)
{
  struct iovec local = { buf, n }, remote = { (void *) (uintptr_t) addr, n };
  char mem[32];
  ssize_t k;
  int fd;

  if (n == 0)
    return 0;
  if (no_vm_readv < 0) {
    const char *e = getenv ("POWERCUT_TRACE_PEEK");
    no_vm_readv = e && strcmp (e, "proc") == 0;
  }
  if (!no_vm_readv) {
    k = process_vm_readv (tid, &local, 1, &remote, 1, 0);
    if (k >= 0)
      return (size_t) k == n ? 0 : -EFAULT;
    if (errno != ENOSYS)
      return -errno;
    no_vm_readv = 1;
  }
  /* The thread's memory file, which its tracer may read. */
  snprintf (mem, sizeof mem, "/proc/%d/mem", (int) tid);
  fd = open (mem, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  k = pread (fd, buf, n, (off_t) addr);
  if (k < 0)
    k = -errno;
  close (fd);
  if (k < 0)
    return (int) k;
  return (size_t) k == n ? 0 : -EFAULT;
}

long
pc_peek_str (pid_t tid, uint64_t addr, char *buf, size_t cap)
{
  size_t len = 0;

  if (addr == 0)
    return -EFAULT;
  /* Page by page: a string may end just before memory that is not
   * mapped, and a read is all or nothing. */
  while (len < cap - 1) {
    size_t chunk = PAGE - (size_t) ((addr + len) % PAGE);
    char *z;
    int r;

    if (chunk > cap - 1 - len)
      chunk = cap - 1 - len;
    r = pc_peek (tid, addr + len, buf + len, chunk);
    if (r < 0)
      return r;
    z = memchr (buf + len, '\0', chunk);
    if (z)
      return z - buf;
    len += chunk;
  }
  buf[cap - 1] = '\0';
  return -ENAMETOOLONG;
}

/* readlink into buf, NUL-terminated; 0 or -errno. */
static int
read_link (const char *link, char *buf, size_t cap)
{
  ssize_t n = readlink (link, buf, cap);

  if (n < 0) {
    buf[0] = '\0';
    return -errno;
  }
  if ((size_t) n >= cap) {
    buf[0] = '\0';
    return -ENAMETOOLONG;
  }
  buf[n] = '\0';
  return 0;
}

void
pc_fd_lookup (pid_t tid, int fd, bool info, struct pc_fdinfo *ret)
{
  char p[64], text[512];
  int f;
  ssize_t n;

  memset (ret, 0, sizeof *ret);
  ret->fd = fd;
  if (fd < 0)
    return;
  snprintf (p, sizeof p, "/proc/%d/fd/%d", (int) tid, fd);
  if (stat (p, &ret->st) < 0)
    return;
  ret->ok = true;
  /* a pipe, a socket, a terminal: no name or flags needed, the call
   * tells nothing of a file */
  if (!S_ISREG (ret->st.st_mode) && !S_ISBLK (ret->st.st_mode) && !S_ISDIR (ret->st.st_mode))
    return;
  read_link (p, ret->path, sizeof ret->path);
  if (!info)
    return;
  snprintf (p, sizeof p, "/proc/%d/fdinfo/%d", (int) tid, fd);
  f = open (p, O_RDONLY | O_CLOEXEC);
  if (f < 0)
    return;
  n = read (f, text, sizeof text - 1);
  close (f);
  if (n <= 0)
    return;
  text[n] = '\0';
  if (sscanf (text, "pos: %" SCNu64 " flags: %o", &ret->pos, &ret->flags) == 2)
    ret->has_info = true;
}

bool
pc_fd_writable (pid_t tid, int fd)
{
  char p[64];
  struct stat st;

  snprintf (p, sizeof p, "/proc/%d/fd/%d", (int) tid, fd);
  /* the link's mode is the descriptor's: S_IWUSR when open for writing */
  return fd < 0 || lstat (p, &st) < 0 || (st.st_mode & S_IWUSR);
}

int
pc_fd_open (pid_t tid, int fd)
{
  char p[64];
  int f;

  snprintf (p, sizeof p, "/proc/%d/fd/%d", (int) tid, fd);
  /* Without touching the access time: the tracer's reads must not make
   * writes of their own on the filesystem being recorded. */
  f = open (p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOATIME);
  if (f < 0 && errno == EPERM)
    f = open (p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  return f;
}

void
pc_normalise (char *p)
{
  char *out = p, *in = p;

  while (*in) {
    char *seg;
    size_t len;

    while (*in == '/')
      in++;
    if (*in == '\0')
      break;
    seg = in;
    while (*in && *in != '/')
      in++;
    len = (size_t) (in - seg);
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
pc_resolve (pid_t tid, int dirfd, const char *path, char *out, size_t cap)
{
  char link[64];
  size_t blen, plen = strlen (path);
  int r;

  if (path[0] == '/') {
    if (plen >= cap) {
      out[0] = '\0';
      return -ENAMETOOLONG;
    }
    memcpy (out, path, plen + 1);
    pc_normalise (out);
    return 0;
  }
  if (dirfd == AT_FDCWD)
    snprintf (link, sizeof link, "/proc/%d/cwd", (int) tid);
  else
    snprintf (link, sizeof link, "/proc/%d/fd/%d", (int) tid, dirfd);
  r = read_link (link, out, cap);
  if (r < 0)
    return r;
  if (out[0] != '/') {        /* not a directory of a filesystem */
    out[0] = '\0';
    return -ENOTDIR;
  }
  blen = strlen (out);
  if (plen > 0) {
    if (blen + 1 + plen >= cap) {
      out[0] = '\0';
      return -ENAMETOOLONG;
    }
    out[blen] = '/';
    memcpy (out + blen + 1, path, plen + 1);
  }
  pc_normalise (out);
  return 0;
}

/* The number /proc/<tid>/status gives for name (with its colon), or
 * fallback if it does not say. */
static pid_t
status_field (pid_t tid, const char *name, pid_t fallback)
{
  char p[64], text[1024];
  const char *s;
  ssize_t n;
  int f;

  snprintf (p, sizeof p, "/proc/%d/status", (int) tid);
  f = open (p, O_RDONLY | O_CLOEXEC);
  if (f < 0)
    return fallback;
  n = read (f, text, sizeof text - 1);
  close (f);
  if (n <= 0)
    return fallback;
  text[n] = '\0';
  s = strstr (text, name);
  if (s == NULL)
    return fallback;
  return (pid_t) strtol (s + strlen (name), NULL, 10);
}

pid_t
pc_tgid_of (pid_t tid)
{
  return status_field (tid, "\nTgid:", tid);
}

pid_t
pc_ppid_of (pid_t tid)
{
  return status_field (tid, "\nPPid:", 0);
}
