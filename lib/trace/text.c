/* text.c: a call's printable form, as strace prints it, within a bound. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/xattr.h>

#include "trace/traceint.h"

#define DATA_SHOWN 32           /* bytes of a buffer shown, as strace does */

const struct pc_flagname pc_open_flags[] = {
  { O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_NOCTTY, "O_NOCTTY" },
  { O_TRUNC, "O_TRUNC" }, { O_APPEND, "O_APPEND" }, { O_NONBLOCK, "O_NONBLOCK" },
  { O_SYNC, "O_SYNC" }, { O_DSYNC, "O_DSYNC" }, { O_DIRECT, "O_DIRECT" },
  { O_LARGEFILE, "O_LARGEFILE" }, { O_TMPFILE, "O_TMPFILE" },
  { O_DIRECTORY, "O_DIRECTORY" }, { O_NOFOLLOW, "O_NOFOLLOW" },
  { O_NOATIME, "O_NOATIME" }, { O_CLOEXEC, "O_CLOEXEC" }, { O_PATH, "O_PATH" },
  { 0, NULL },
};
const struct pc_flagname pc_falloc_flags[] = {
  { FALLOC_FL_KEEP_SIZE, "FALLOC_FL_KEEP_SIZE" },
  { FALLOC_FL_PUNCH_HOLE, "FALLOC_FL_PUNCH_HOLE" },
  { FALLOC_FL_COLLAPSE_RANGE, "FALLOC_FL_COLLAPSE_RANGE" },
  { FALLOC_FL_ZERO_RANGE, "FALLOC_FL_ZERO_RANGE" },
  { FALLOC_FL_INSERT_RANGE, "FALLOC_FL_INSERT_RANGE" },
  { FALLOC_FL_UNSHARE_RANGE, "FALLOC_FL_UNSHARE_RANGE" },
  { 0, NULL },
};
const struct pc_flagname pc_rename_flags[] = {
  { RENAME_NOREPLACE, "RENAME_NOREPLACE" }, { RENAME_EXCHANGE, "RENAME_EXCHANGE" },
  { RENAME_WHITEOUT, "RENAME_WHITEOUT" }, { 0, NULL },
};
const struct pc_flagname pc_at_flags[] = {
  { AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW" }, { AT_REMOVEDIR, "AT_REMOVEDIR" },
  { AT_SYMLINK_FOLLOW, "AT_SYMLINK_FOLLOW" }, { AT_EMPTY_PATH, "AT_EMPTY_PATH" },
  { 0, NULL },
};
const struct pc_flagname pc_ms_flags[] = {
  { MS_ASYNC, "MS_ASYNC" }, { MS_INVALIDATE, "MS_INVALIDATE" }, { MS_SYNC, "MS_SYNC" },
  { 0, NULL },
};
const struct pc_flagname pc_rwf_flags[] = {
  { RWF_HIPRI, "RWF_HIPRI" }, { RWF_DSYNC, "RWF_DSYNC" }, { RWF_SYNC, "RWF_SYNC" },
  { RWF_NOWAIT, "RWF_NOWAIT" }, { RWF_APPEND, "RWF_APPEND" }, { 0, NULL },
};
const struct pc_flagname pc_prot_flags[] = {
  { PROT_READ, "PROT_READ" }, { PROT_WRITE, "PROT_WRITE" }, { PROT_EXEC, "PROT_EXEC" },
  { 0, NULL },
};
const struct pc_flagname pc_map_flags[] = {
  { MAP_SHARED_VALIDATE, "MAP_SHARED_VALIDATE" }, { MAP_SHARED, "MAP_SHARED" },
  { MAP_FIXED, "MAP_FIXED" }, { MAP_POPULATE, "MAP_POPULATE" },
  { MAP_NORESERVE, "MAP_NORESERVE" }, { MAP_LOCKED, "MAP_LOCKED" },
  { MAP_FIXED_NOREPLACE, "MAP_FIXED_NOREPLACE" }, { MAP_SYNC, "MAP_SYNC" },
  { 0, NULL },
};
const struct pc_flagname pc_xattr_flags[] = {
  { XATTR_CREATE, "XATTR_CREATE" }, { XATTR_REPLACE, "XATTR_REPLACE" }, { 0, NULL },
};
const struct pc_flagname pc_sfr_flags[] = {
  { SYNC_FILE_RANGE_WAIT_BEFORE, "SYNC_FILE_RANGE_WAIT_BEFORE" },
  { SYNC_FILE_RANGE_WRITE, "SYNC_FILE_RANGE_WRITE" },
  { SYNC_FILE_RANGE_WAIT_AFTER, "SYNC_FILE_RANGE_WAIT_AFTER" }, { 0, NULL },
};
const struct pc_flagname pc_mremap_flags[] = {
  { MREMAP_MAYMOVE, "MREMAP_MAYMOVE" }, { MREMAP_FIXED, "MREMAP_FIXED" },
  { MREMAP_DONTUNMAP, "MREMAP_DONTUNMAP" }, { 0, NULL },
};

void
pc_text_init (struct pc_text *t, char *buf, size_t cap)
{
  t->s = buf;
  t->cap = cap;
  t->len = 0;
  t->cut = false;
  buf[0] = '\0';
}

/* Appends n bytes; what would pass the bound is cut, and "..." ends it. */
static void
put (struct pc_text *t, const char *s, size_t n)
{
  size_t room;

  if (t->cut)
    return;
  room = t->cap - 4 - t->len;       /* "..." and the NUL stay free */
  if (n > room) {
    memcpy (t->s + t->len, s, room);
    memcpy (t->s + t->len + room, "...", 4);
    t->len += room + 3;
    t->cut = true;
    return;
  }
  memcpy (t->s + t->len, s, n);
  t->len += n;
  t->s[t->len] = '\0';
}

void
pc_text_add (struct pc_text *t, const char *fmt, ...)
{
  char buf[PC_EVENT_TEXT_MAX];
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  if (n < 0)
    return;
  put (t, buf, (size_t) n < sizeof buf ? (size_t) n : sizeof buf - 1);
}

void
pc_text_quote (struct pc_text *t, const char *s, size_t n, bool more)
{
  put (t, "\"", 1);
  for (size_t i = 0; i < n && !t->cut; i++) {
    unsigned char c = (unsigned char) s[i];
    char e[8];

    switch (c) {
    case '"': put (t, "\\\"", 2); break;
    case '\\': put (t, "\\\\", 2); break;
    case '\n': put (t, "\\n", 2); break;
    case '\t': put (t, "\\t", 2); break;
    case '\r': put (t, "\\r", 2); break;
    default:
      if (c >= 0x20 && c < 0x7f)
        put (t, (const char *) &c, 1);
      else {
        snprintf (e, sizeof e, "\\%o", c);
        put (t, e, strlen (e));
      }
    }
  }
  put (t, "\"", 1);
  if (more)
    put (t, "...", 3);
}

void
pc_text_data (struct pc_text *t, pid_t tid, uint64_t addr, uint64_t count)
{
  char buf[DATA_SHOWN];
  size_t n = count < DATA_SHOWN ? (size_t) count : DATA_SHOWN;

  if (pc_peek (tid, addr, buf, n) < 0) {
    pc_text_add (t, "%#" PRIx64, addr);
    return;
  }
  pc_text_quote (t, buf, n, count > n);
}

void
pc_text_fd (struct pc_text *t, int fd, const char *path)
{
  if (path && *path)
    pc_text_add (t, "%d<%s>", fd, path);
  else
    pc_text_add (t, "%d", fd);
}

void
pc_text_dirfd (struct pc_text *t, int dirfd, pid_t tid)
{
  char link[64], path[PC_EVENT_PATH_MAX];
  ssize_t n;

  if (dirfd == AT_FDCWD) {
    pc_text_add (t, "AT_FDCWD");
    return;
  }
  snprintf (link, sizeof link, "/proc/%d/fd/%d", (int) tid, dirfd);
  n = readlink (link, path, sizeof path - 1);
  path[n > 0 ? n : 0] = '\0';
  pc_text_fd (t, dirfd, path);
}

void
pc_text_flags (struct pc_text *t, uint64_t v, const struct pc_flagname *names)
{
  bool first = true;

  for (; names->name; names++)
    if (names->bit && (v & names->bit) == names->bit) {
      pc_text_add (t, "%s%s", first ? "" : "|", names->name);
      v &= ~names->bit;
      first = false;
    }
  if (v || first)
    pc_text_add (t, "%s%#" PRIx64, first ? "" : "|", v);
}

void
pc_text_open_flags (struct pc_text *t, uint64_t v)
{
  static const char *const modes[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };

  pc_text_add (t, "%s", modes[v & O_ACCMODE]);
  v &= ~(uint64_t) O_ACCMODE;
  /* O_SYNC holds O_DSYNC's bit, O_TMPFILE O_DIRECTORY's: the larger first */
  if ((v & O_SYNC) == O_SYNC) {
    pc_text_add (t, "|O_SYNC");
    v &= ~(uint64_t) O_SYNC;
  }
  if ((v & O_TMPFILE) == O_TMPFILE) {
    pc_text_add (t, "|O_TMPFILE");
    v &= ~(uint64_t) O_TMPFILE;
  }
  if (v) {
    pc_text_add (t, "|");
    pc_text_flags (t, v, pc_open_flags);
  }
}

void
pc_text_result (struct pc_text *t, int64_t r, bool hex)
{
  t->cut = false;               /* the result is shown after a cut call */
  if (r < 0 && r >= -4095) {
    const char *name = strerrorname_np ((int) -r);
    if (name)
      pc_text_add (t, " = -1 %s (%s)", name, strerror ((int) -r));
    else
      pc_text_add (t, " = -1 E%d", (int) -r);
  }
  else if (hex)
    pc_text_add (t, " = %#" PRIx64, (uint64_t) r);
  else
    pc_text_add (t, " = %" PRId64, r);
}
