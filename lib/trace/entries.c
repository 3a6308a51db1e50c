/* entries.c: the entry of each call the tracer stops at: its arguments
 * printed, its paths resolved and its descriptors looked up before it
 * runs, and what its exit will need kept. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "format/acl.h"
#include "trace/traceint.h"
#include "util/xxh.h"

#if PC_TRACE_ARCH

#define IOV_SHOWN 4                     /* iovecs printed, as strace does */
#define XATTR_VALUE_MAX 65536           /* the kernel's bound on a value */

static uint32_t
fd_flags_of (unsigned f)
{
  uint32_t r = 0;

  if ((f & O_ACCMODE) == O_WRONLY || (f & O_ACCMODE) == O_RDWR)
    r |= PC_FD_WRITE;
  if (f & O_APPEND)
    r |= PC_FD_APPEND;
  if ((f & O_SYNC) == O_SYNC)
    r |= PC_FD_SYNC;
  if (f & O_DSYNC)
    r |= PC_FD_DSYNC;
  if (f & O_DIRECT)
    r |= PC_FD_DIRECT;
  return r;
}

static bool
is_data (const struct pc_fdinfo *fi)
{
  return fi->ok && (S_ISREG (fi->st.st_mode) || S_ISBLK (fi->st.st_mode));
}

/* Reads the path at addr, prints it, and resolves it against dirfd into
 * ev->path[i]. */
static void
path_arg (struct pc_task *t, struct pc_event *ev, struct pc_text *txt, int i, int dirfd,
          uint64_t addr)
{
  char raw[PC_EVENT_PATH_MAX];
  long n = pc_peek_str (t->tid, addr, raw, sizeof raw);

  if (n < 0) {
    ev->flags |= PC_EVENT_F_NOPATH;
    pc_text_add (txt, "%#" PRIx64, addr);
    return;
  }
  pc_text_quote (txt, raw, (size_t) n, false);
  if (pc_resolve (t->tid, dirfd, raw, ev->path[i], sizeof ev->path[i]) < 0)
    ev->flags |= PC_EVENT_F_NOPATH;
}

/* The file of a path argument: its identity (not following a final
 * symlink unless follow), into ev. */
static void
path_identity (struct pc_event *ev, int i, bool follow)
{
  struct stat st;

  if (ev->path[i][0] && (follow ? stat : lstat) (ev->path[i], &st) == 0) {
    ev->dev = st.st_dev;
    ev->ino = st.st_ino;
    ev->flags |= PC_EVENT_F_IDENTITY;
  }
}

/* Looks descriptor fd up, prints it, and makes it the event's file. */
static void
fd_arg (struct pc_task *t, struct pc_event *ev, struct pc_text *txt, int fd, bool info,
        struct pc_fdinfo *fi)
{
  pc_fd_lookup (t->tid, fd, info, fi);
  ev->fd = fd;
  if (fi->ok) {
    memcpy (ev->path[0], fi->path, sizeof ev->path[0]);
    ev->dev = fi->st.st_dev;
    ev->ino = fi->st.st_ino;
    ev->flags |= PC_EVENT_F_IDENTITY;
    if (fi->has_info)
      ev->fd_flags = fd_flags_of (fi->flags);
  }
  pc_text_fd (txt, fd, fi->ok ? fi->path : NULL);
}

/* Prints an *at call's directory descriptor, and notes it. */
static void
dirfd_arg (struct pc_tracer *tr, struct pc_task *t, struct pc_text *txt, int dirfd)
{
  pc_text_dirfd (txt, dirfd, t->tid);
  if (dirfd != AT_FDCWD)
    pc_dirfd_note (tr, t->tgid, dirfd);
}

static int
open_entry (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c, struct pc_text *txt,
            long nr, const uint64_t *a)
{
  struct pc_event *ev = &c->ev;
  uint64_t flags, mode = 0, resolve = 0;
  int dirfd = AT_FDCWD;
  uint64_t path = a[0];

  /* flags and mode are ints: the registers' upper halves mean nothing */
  if (nr == SYS_open || nr == SYS_creat) {
    flags = nr == SYS_creat ? O_CREAT | O_WRONLY | O_TRUNC : (uint32_t) a[1];
    mode = (uint32_t) (nr == SYS_creat ? a[1] : a[2]);
  }
  else {
    dirfd = (int) a[0];
    path = a[1];
    flags = (uint32_t) a[2];
    mode = (uint32_t) a[3];
    if (nr == SYS_openat2) {
      struct open_how how = { 0 };
      if (pc_peek (t->tid, a[2], &how, a[3] < sizeof how ? a[3] : sizeof how) < 0)
        return 0;           /* it fails with EFAULT, having opened nothing */
      flags = how.flags;
      mode = how.mode;
      resolve = how.resolve;
    }
  }
  if ((flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC)))
    return 0;
  if (!(flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE)
    mode = 0;
  ev->arg_flags = flags;
  ev->mode = mode;
  ev->fd_flags = fd_flags_of ((unsigned) flags);
  pc_text_add (txt, "%s(", ev->name);
  if (nr != SYS_open && nr != SYS_creat) {
    dirfd_arg (tr, t, txt, dirfd);
    pc_text_add (txt, ", ");
  }
  path_arg (t, ev, txt, 0, dirfd, path);
  if (nr == SYS_creat)
    pc_text_add (txt, ", %#" PRIo64 ")", mode);
  else if (nr == SYS_openat2) {
    pc_text_add (txt, ", {flags=");
    pc_text_open_flags (txt, flags);
    pc_text_add (txt, ", mode=%#" PRIo64 ", resolve=%#" PRIx64 "}, %" PRIu64 ")", mode,
                 resolve, a[3]);
  }
  else {
    pc_text_add (txt, ", ");
    pc_text_open_flags (txt, flags);
    if (ev->mode)
      pc_text_add (txt, ", %#" PRIo64, mode);
    pc_text_add (txt, ")");
  }
  return 1;
}

/* The iovecs of a vectored write: their total length; the first shown. */
static uint64_t
iov_arg (pid_t tid, struct pc_text *txt, uint64_t addr, uint64_t cnt)
{
  struct iovec v[16];
  uint64_t total = 0;

  pc_text_add (txt, "[");
  for (uint64_t i = 0; i < cnt && i < 1024; i += 16) {
    size_t k = cnt - i < 16 ? (size_t) (cnt - i) : 16;
    if (pc_peek (tid, addr + i * sizeof *v, v, k * sizeof *v) < 0) {
      pc_text_add (txt, "%#" PRIx64, addr);
      break;
    }
    for (size_t j = 0; j < k; j++) {
      total += v[j].iov_len;
      if (i + j < IOV_SHOWN) {
        pc_text_add (txt, "%s{iov_base=", i + j ? ", " : "");
        pc_text_data (txt, tid, (uintptr_t) v[j].iov_base, v[j].iov_len);
        pc_text_add (txt, ", iov_len=%zu}", v[j].iov_len);
      }
      else if (i + j == IOV_SHOWN)
        pc_text_add (txt, ", ...");
    }
  }
  pc_text_add (txt, "]");
  return total;
}

/* The position a write without an offset starts at: the descriptor's. */
static uint64_t
position (const struct pc_fdinfo *fi)
{
  return fi->has_info ? fi->pos : 0;
}

static int
write_entry (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c, struct pc_text *txt,
             long nr, const uint64_t *a)
{
  struct pc_event *ev = &c->ev;
  struct pc_fdinfo fi;
  int fd = (int) a[0];
  uint64_t len, off;

  pc_text_add (txt, "%s(", ev->name);
  fd_arg (t, ev, txt, fd, true, &fi);
  if (fi.ok && !is_data (&fi))
    return fi.ok && pc_acks_is_pipe (tr->acks, &fi.st) ? PC_DECODE_SILENT : 0;
  pc_text_add (txt, ", ");
  if (nr == SYS_write || nr == SYS_pwrite64) {
    len = a[2];
    pc_text_data (txt, t->tid, a[1], len);
    pc_text_add (txt, ", %" PRIu64, len);
  }
  else {
    len = iov_arg (t->tid, txt, a[1], a[2]);
    pc_text_add (txt, ", %" PRIu64, a[2]);
  }
  if (nr == SYS_write || nr == SYS_writev)
    off = position (&fi);
  else {
    off = a[3];
    pc_text_add (txt, ", %" PRId64, (int64_t) off);
    if (nr == SYS_pwritev2) {
      ev->arg_flags = (uint32_t) a[5];
      pc_text_add (txt, ", ");
      pc_text_flags (txt, a[5], pc_rwf_flags);
      if ((int64_t) off == -1)
        off = position (&fi);
    }
  }
  pc_text_add (txt, ")");
  /* An append goes at the end, whatever the offset (pwrite included);
   * the exit says where it went. */
  if (fi.ok && S_ISREG (fi.st.st_mode) &&
      ((ev->fd_flags & PC_FD_APPEND) || (nr == SYS_pwritev2 && (a[5] & RWF_APPEND))))
    off = (uint64_t) fi.st.st_size;
  ev->offset = off;
  ev->length = len;
  ev->flags |= PC_EVENT_F_RANGE;
  if (is_data (&fi))
    c->file = pc_fd_open (t->tid, fd);
  if (fi.ok && S_ISREG (fi.st.st_mode))
    c->old_size = (uint64_t) fi.st.st_size;
  return 1;
}

static int
truncate_entry (struct pc_task *t, struct pc_call *c, struct pc_text *txt, long nr,
                const uint64_t *a)
{
  struct pc_event *ev = &c->ev;
  struct stat st;

  pc_text_add (txt, "%s(", ev->name);
  if (nr == SYS_ftruncate) {
    struct pc_fdinfo fi;
    fd_arg (t, ev, txt, (int) a[0], true, &fi);
    if (fi.ok && !S_ISREG (fi.st.st_mode))
      return 0;
    if (fi.ok)
      c->file = pc_fd_open (t->tid, (int) a[0]);
  }
  else {
    path_arg (t, ev, txt, 0, AT_FDCWD, a[0]);
    path_identity (ev, 0, true);
    /* opened only if a regular file: opening a device may do things */
    if ((ev->flags & PC_EVENT_F_IDENTITY) && stat (ev->path[0], &st) == 0 &&
        S_ISREG (st.st_mode)) {
      c->file = open (ev->path[0], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOATIME);
      if (c->file < 0 && errno == EPERM)
        c->file = open (ev->path[0], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    }
  }
  c->old_size = UINT64_MAX;
  if (c->file >= 0 && fstat (c->file, &st) == 0 && S_ISREG (st.st_mode))
    c->old_size = (uint64_t) st.st_size;
  ev->length = a[1];
  pc_text_add (txt, ", %" PRId64 ")", (int64_t) a[1]);
  return 1;
}

static int
fallocate_entry (struct pc_task *t, struct pc_call *c, struct pc_text *txt, const uint64_t *a)
{
  struct pc_event *ev = &c->ev;
  struct pc_fdinfo fi;

  pc_text_add (txt, "fallocate(");
  fd_arg (t, ev, txt, (int) a[0], true, &fi);
  if (fi.ok && !is_data (&fi))
    return 0;
  if (fi.ok)
    c->file = pc_fd_open (t->tid, (int) a[0]);
  ev->arg_flags = (uint32_t) a[1];
  ev->offset = a[2];
  ev->length = a[3];
  ev->flags |= PC_EVENT_F_RANGE;
  pc_text_add (txt, ", ");
  pc_text_flags (txt, a[1], pc_falloc_flags);
  pc_text_add (txt, ", %" PRId64 ", %" PRId64 ")", (int64_t) a[2], (int64_t) a[3]);
  return 1;
}

/* An offset argument given by address: "[N]", or "NULL". */
static bool
offset_ptr (pid_t tid, struct pc_text *txt, uint64_t addr, uint64_t *ret)
{
  if (addr == 0) {
    pc_text_add (txt, "NULL");
    return false;
  }
  if (pc_peek (tid, addr, ret, sizeof *ret) < 0) {
    pc_text_add (txt, "%#" PRIx64, addr);
    return false;
  }
  pc_text_add (txt, "[%" PRId64 "]", (int64_t) *ret);
  return true;
}

static int
copy_entry (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c, struct pc_text *txt,
            long nr, const uint64_t *a)
{
  struct pc_event *ev = &c->ev;
  struct pc_fdinfo out, in;
  uint64_t off = 0;
  bool has_off = false;
  int fdout = (int) (nr == SYS_sendfile ? a[0] : a[2]);
  int fdin = (int) (nr == SYS_sendfile ? a[1] : a[0]);
  char tin[PC_EVENT_TEXT_MAX], tout[PC_EVENT_TEXT_MAX];
  struct pc_text ti, to;

  /* Print each side apart, then in the call's order. */
  pc_text_init (&to, tout, sizeof tout);
  pc_text_init (&ti, tin, sizeof tin);
  fd_arg (t, ev, &to, fdout, true, &out);
  if (out.ok && !is_data (&out))
    return pc_acks_is_pipe (tr->acks, &out.st) ? PC_DECODE_SILENT : 0;
  pc_fd_lookup (t->tid, fdin, false, &in);
  pc_text_fd (&ti, fdin, in.ok ? in.path : NULL);
  if (in.ok)
    memcpy (ev->path[1], in.path, sizeof ev->path[1]);
  pc_text_add (txt, "%s(", ev->name);
  if (nr == SYS_sendfile) {
    uint64_t inoff;
    pc_text_add (txt, "%s, %s, ", tout, tin);
    offset_ptr (t->tid, txt, a[2], &inoff);
    ev->length = a[3];
    pc_text_add (txt, ", %" PRIu64 ")", a[3]);
  }
  else {
    uint64_t inoff;
    pc_text_add (txt, "%s, ", tin);
    offset_ptr (t->tid, txt, a[1], &inoff);
    pc_text_add (txt, ", %s, ", tout);
    has_off = offset_ptr (t->tid, txt, a[3], &off);
    ev->length = a[4];
    ev->arg_flags = (uint32_t) a[5];
    pc_text_add (txt, ", %" PRIu64 ", %#" PRIx64 ")", a[4], a[5]);
  }
  ev->offset = has_off ? off : position (&out);
  ev->flags |= PC_EVENT_F_RANGE;
  if (out.ok)
    c->file = pc_fd_open (t->tid, fdout);
  return 1;
}

static int
names_entry (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c, struct pc_text *txt,
             long nr, const uint64_t *a)
{
  struct pc_event *ev = &c->ev;
  char raw[PC_EVENT_PATH_MAX];
  long n;

  pc_text_add (txt, "%s(", ev->name);
  switch (nr) {
  case SYS_rename:
  case SYS_link:
    path_arg (t, ev, txt, 0, AT_FDCWD, a[0]);
    pc_text_add (txt, ", ");
    path_arg (t, ev, txt, 1, AT_FDCWD, a[1]);
    break;
  case SYS_renameat:
  case SYS_renameat2:
  case SYS_linkat:
    dirfd_arg (tr, t, txt, (int) a[0]);
    pc_text_add (txt, ", ");
    path_arg (t, ev, txt, 0, (int) a[0], a[1]);
    pc_text_add (txt, ", ");
    dirfd_arg (tr, t, txt, (int) a[2]);
    pc_text_add (txt, ", ");
    path_arg (t, ev, txt, 1, (int) a[2], a[3]);
    if (nr != SYS_renameat) {
      ev->arg_flags = (uint32_t) a[4];
      pc_text_add (txt, ", ");
      pc_text_flags (txt, a[4], nr == SYS_linkat ? pc_at_flags : pc_rename_flags);
    }
    break;
  case SYS_symlink:
  case SYS_symlinkat:
    n = pc_peek_str (t->tid, a[0], raw, sizeof raw);
    if (n >= 0) {
      memcpy (ev->path[1], raw, (size_t) n + 1);
      pc_text_quote (txt, raw, (size_t) n, false);
    }
    else
      pc_text_add (txt, "%#" PRIx64, a[0]);
    pc_text_add (txt, ", ");
    if (nr == SYS_symlinkat) {
      dirfd_arg (tr, t, txt, (int) a[1]);
      pc_text_add (txt, ", ");
      path_arg (t, ev, txt, 0, (int) a[1], a[2]);
    }
    else
      path_arg (t, ev, txt, 0, AT_FDCWD, a[1]);
    break;
  case SYS_unlink:
  case SYS_rmdir:
    path_arg (t, ev, txt, 0, AT_FDCWD, a[0]);
    break;
  case SYS_unlinkat:
    dirfd_arg (tr, t, txt, (int) a[0]);
    pc_text_add (txt, ", ");
    path_arg (t, ev, txt, 0, (int) a[0], a[1]);
    ev->arg_flags = (uint32_t) a[2];
    if (a[2] & AT_REMOVEDIR)
      ev->op = PC_OP_RMDIR;
    pc_text_add (txt, ", ");
    pc_text_flags (txt, a[2], pc_at_flags);
    break;
  case SYS_mkdir:
    path_arg (t, ev, txt, 0, AT_FDCWD, a[0]);
    ev->mode = (uint32_t) a[1];
    pc_text_add (txt, ", %#" PRIo64, a[1]);
    break;
  case SYS_mkdirat:
    dirfd_arg (tr, t, txt, (int) a[0]);
    pc_text_add (txt, ", ");
    path_arg (t, ev, txt, 0, (int) a[0], a[1]);
    ev->mode = (uint32_t) a[2];
    pc_text_add (txt, ", %#" PRIo64, a[2]);
    break;
  }
  pc_text_add (txt, ")");
  return 1;
}

static int
xattr_entry (struct pc_task *t, struct pc_call *c, struct pc_text *txt, long nr,
             const uint64_t *a)
{
  struct pc_event *ev = &c->ev;
  bool byfd = nr == SYS_fsetxattr || nr == SYS_fremovexattr;
  bool set = ev->op == PC_OP_SETXATTR;
  char name[256];
  long n;

  pc_text_add (txt, "%s(", ev->name);
  if (byfd) {
    struct pc_fdinfo fi;
    fd_arg (t, ev, txt, (int) a[0], false, &fi);
  }
  else {
    path_arg (t, ev, txt, 0, AT_FDCWD, a[0]);
    path_identity (ev, 0, nr == SYS_setxattr || nr == SYS_removexattr);
  }
  pc_text_add (txt, ", ");
  n = pc_peek_str (t->tid, a[1], name, sizeof name);
  if (n >= 0) {
    memcpy (ev->path[1], name, (size_t) n + 1);
    pc_text_quote (txt, name, (size_t) n, false);
  }
  else
    pc_text_add (txt, "%#" PRIx64, a[1]);
  if (set) {
    ev->length = a[3];
    ev->arg_flags = (uint32_t) a[4];
    pc_text_add (txt, ", ");
    pc_text_data (txt, t->tid, a[2], a[3]);
    if (a[3] <= XATTR_VALUE_MAX) {
      char *v = malloc (a[3] ? a[3] : 1);
      if (v && pc_peek (t->tid, a[2], v, a[3]) == 0) {
        enum pc_acl_kind k = n >= 0 ? pc_acl_kind (name) : PC_ACL_NONE;
        int m = k != PC_ACL_NONE ? pc_acl_meaning (k, v, a[3], &ev->value_hash) : -EINVAL;
        /* an ACL by what it means (the kernel keeps that, not the bytes) */
        if (m == 0)
          ev->flags |= PC_EVENT_F_ACL_NONE;
        else if (m == 1)
          ev->flags |= PC_EVENT_F_VALUE_HASH | PC_EVENT_F_ACL;
        else {
          ev->value_hash = XXH3_64bits (v, a[3]);
          ev->flags |= PC_EVENT_F_VALUE_HASH;
        }
      }
      free (v);
    }
    pc_text_add (txt, ", %" PRIu64 ", ", a[3]);
    pc_text_flags (txt, a[4], pc_xattr_flags);
  }
  pc_text_add (txt, ")");
  return 1;
}

/* The mapping a memory call is about, as a file range into ev; 0 if the
 * tracer follows none there. */
static int
mapping_arg (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c, uint64_t addr,
             uint64_t len, bool within)
{
  struct pc_event *ev = &c->ev;
  struct pc_mapping *m = pc_maps_find (tr, t->tgid, addr, within ? 0 : len);
  uint64_t start, end;

  if (m == NULL)
    return 0;
  start = addr > m->start ? addr : m->start;
  end = addr + len < m->start + m->len ? addr + len : m->start + m->len;
  if (end < start)
    end = start;
  snprintf (ev->path[0], sizeof ev->path[0], "%s", m->path ? m->path : "");
  ev->dev = m->dev;
  ev->ino = m->ino;
  ev->offset = m->off + (start - m->start);
  ev->length = end - start;
  ev->flags |= PC_EVENT_F_IDENTITY | PC_EVENT_F_RANGE;
  c->file = dup (m->file);
  return 1;
}

static int
memory_entry (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c,
              struct pc_text *txt, long nr, const uint64_t *a)
{
  struct pc_event *ev = &c->ev;

  pc_text_add (txt, "%s(", ev->name);
  if (nr == SYS_mmap) {
    struct pc_fdinfo fi;
    pc_text_add (txt, "%#" PRIx64 ", %" PRIu64 ", ", a[0], a[1]);
    pc_text_flags (txt, a[2], pc_prot_flags);
    pc_text_add (txt, ", ");
    pc_text_flags (txt, a[3], pc_map_flags);
    pc_text_add (txt, ", ");
    fd_arg (t, ev, txt, (int) a[4], true, &fi);
    pc_text_add (txt, ", %#" PRIx64 ")", a[5]);
    if (!is_data (&fi))
      return 0;
    ev->offset = a[5];
    ev->length = a[1];
    ev->mode = (uint32_t) a[2];
    ev->arg_flags = (uint32_t) a[3];
    ev->addr = a[0];
    ev->flags |= PC_EVENT_F_RANGE;
    c->file = pc_fd_open (t->tid, (int) a[4]);
    return 1;
  }
  ev->addr = a[0];
  pc_text_add (txt, "%#" PRIx64 ", %" PRIu64, a[0], a[1]);
  if (nr == SYS_msync) {
    ev->arg_flags = (uint32_t) a[2];
    pc_text_add (txt, ", ");
    pc_text_flags (txt, a[2], pc_ms_flags);
  }
  else if (nr == SYS_mremap) {
    ev->arg_flags = (uint32_t) a[3];
    pc_text_add (txt, ", %" PRIu64 ", ", a[2]);
    pc_text_flags (txt, a[3], pc_mremap_flags);
    if (a[3] & MREMAP_FIXED)
      pc_text_add (txt, ", %#" PRIx64, a[4]);
  }
  pc_text_add (txt, ")");
  return mapping_arg (tr, t, c, a[0], nr == SYS_mremap ? PC_PAGE_UP (a[1]) : a[1],
                      nr == SYS_msync);
}

static int
sync_entry (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c, struct pc_text *txt,
            long nr, const uint64_t *a)
{
  struct pc_event *ev = &c->ev;
  struct pc_fdinfo fi;

  /* Most closes are of descriptors open for reading only, which tell
   * nothing: the mode of /proc's link says so at the cost of one lstat. */
  if (nr == SYS_close && !pc_dirfd_has (tr, t->tgid, (int) a[0]) &&
      !pc_fd_writable (t->tid, (int) a[0]))
    return 0;
  pc_text_add (txt, "%s(", ev->name);
  if (nr == SYS_sync) {
    pc_text_add (txt, ")");
    return 1;
  }
  fd_arg (t, ev, txt, (int) a[0], nr == SYS_close, &fi);
  if (nr == SYS_sync_file_range) {
    ev->offset = a[1];
    ev->length = a[2];
    ev->arg_flags = (uint32_t) a[3];
    ev->flags |= PC_EVENT_F_RANGE;
    pc_text_add (txt, ", %" PRId64 ", %" PRId64 ", ", (int64_t) a[1], (int64_t) a[2]);
    pc_text_flags (txt, a[3], pc_sfr_flags);
  }
  pc_text_add (txt, ")");
  if (!fi.ok)
    return 1;               /* it fails: EBADF */
  if (S_ISDIR (fi.st.st_mode)) {
    if (nr != SYS_close) {
      pc_dirfd_note (tr, t->tgid, (int) a[0]);
      return 1;
    }
    return pc_dirfd_take (tr, t->tgid, (int) a[0]);
  }
  if (!is_data (&fi))
    return 0;
  return nr != SYS_close || (ev->fd_flags & PC_FD_WRITE);
}

/* Lists in txt the regular files tid has open for writing. */
static void
writable_files (struct pc_task *t, struct pc_event *ev, struct pc_text *txt)
{
  char p[64];
  struct dirent *de;
  DIR *d;
  bool first = true;

  snprintf (p, sizeof p, "/proc/%d/fd", (int) t->tid);
  d = opendir (p);
  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL) {
    struct pc_fdinfo fi;
    if (de->d_name[0] < '0' || de->d_name[0] > '9')
      continue;
    pc_fd_lookup (t->tid, atoi (de->d_name), true, &fi);
    if (!is_data (&fi) || !fi.has_info || !(fd_flags_of (fi.flags) & PC_FD_WRITE))
      continue;
    if (first) {
      memcpy (ev->path[0], fi.path, sizeof ev->path[0]);
      ev->dev = fi.st.st_dev;
      ev->ino = fi.st.st_ino;
      ev->flags |= PC_EVENT_F_IDENTITY;
    }
    pc_text_add (txt, "%s", first ? " /* open for writing: " : ", ");
    pc_text_fd (txt, fi.fd, fi.path);
    first = false;
  }
  closedir (d);
  if (!first)
    pc_text_add (txt, " */");
}

static int
untraceable_entry (struct pc_task *t, struct pc_call *c, struct pc_text *txt, long nr,
                   const uint64_t *a)
{
  switch (nr) {
  case SYS_io_uring_setup:
    pc_text_add (txt, "io_uring_setup(%" PRIu64 ", %#" PRIx64 ")", a[0], a[1]);
    break;
  case SYS_io_uring_enter:
    pc_text_add (txt, "io_uring_enter(%d, %" PRIu64 ", %" PRIu64 ", %#" PRIx64 ", %#" PRIx64
                 ", %" PRIu64 ")", (int) a[0], a[1], a[2], a[3], a[4], a[5]);
    break;
  case SYS_io_uring_register:
    pc_text_add (txt, "io_uring_register(%d, %" PRIu64 ", %#" PRIx64 ", %" PRIu64 ")",
                 (int) a[0], a[1], a[2], a[3]);
    break;
  default:
    pc_text_add (txt, "io_submit(%#" PRIx64 ", %" PRId64 ", %#" PRIx64 ")", a[0],
                 (int64_t) a[1], a[2]);
  }
  writable_files (t, &c->ev, txt);
  return 1;
}

int
pc_trace_decode (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c,
                 struct pc_text *txt, long nr, const uint64_t a[6])
{
  switch (c->ev.op) {
  case PC_OP_OPEN: return open_entry (tr, t, c, txt, nr, a);
  case PC_OP_WRITE: return write_entry (tr, t, c, txt, nr, a);
  case PC_OP_TRUNCATE: return truncate_entry (t, c, txt, nr, a);
  case PC_OP_FALLOCATE: return fallocate_entry (t, c, txt, a);
  case PC_OP_COPY: return copy_entry (tr, t, c, txt, nr, a);
  case PC_OP_SETXATTR:
  case PC_OP_REMOVEXATTR: return xattr_entry (t, c, txt, nr, a);
  case PC_OP_MMAP:
  case PC_OP_MSYNC:
  case PC_OP_MUNMAP:
  case PC_OP_MREMAP: return memory_entry (tr, t, c, txt, nr, a);
  case PC_OP_FSYNC:
  case PC_OP_FDATASYNC:
  case PC_OP_SYNC:
  case PC_OP_SYNCFS:
  case PC_OP_SYNC_RANGE:
  case PC_OP_CLOSE: return sync_entry (tr, t, c, txt, nr, a);
  case PC_OP_UNTRACEABLE: return untraceable_entry (t, c, txt, nr, a);
  default: return names_entry (tr, t, c, txt, nr, a);
  }
}

#else

int
pc_trace_decode (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c,
                 struct pc_text *txt, long nr, const uint64_t a[6])
{
  return 0;
}

#endif
