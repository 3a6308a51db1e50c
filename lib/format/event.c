/* event.c: encoding and decoding the events of a traced program. */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/event.h"
#include "util/util.h"

static const char *const op_names[] = {
  [PC_OP_OPEN] = "open",
  [PC_OP_WRITE] = "write",
  [PC_OP_TRUNCATE] = "truncate",
  [PC_OP_FALLOCATE] = "fallocate",
  [PC_OP_COPY] = "copy",
  [PC_OP_RENAME] = "rename",
  [PC_OP_LINK] = "link",
  [PC_OP_SYMLINK] = "symlink",
  [PC_OP_UNLINK] = "unlink",
  [PC_OP_RMDIR] = "rmdir",
  [PC_OP_MKDIR] = "mkdir",
  [PC_OP_SETXATTR] = "setxattr",
  [PC_OP_REMOVEXATTR] = "removexattr",
  [PC_OP_MMAP] = "mmap",
  [PC_OP_MSYNC] = "msync",
  [PC_OP_MUNMAP] = "munmap",
  [PC_OP_MREMAP] = "mremap",
  [PC_OP_FSYNC] = "fsync",
  [PC_OP_FDATASYNC] = "fdatasync",
  [PC_OP_SYNC] = "sync",
  [PC_OP_SYNCFS] = "syncfs",
  [PC_OP_SYNC_RANGE] = "sync_file_range",
  [PC_OP_CLOSE] = "close",
  [PC_OP_UNTRACEABLE] = "untraceable",
  [PC_OP_ACK] = "ack",
};

const char *
pc_event_op_name (unsigned op)
{
  if (op >= PC_ARRAY_SIZE (op_names) || op_names[op] == NULL)
    return "?";
  return op_names[op];
}

/* The fixed part: everything but the strings and the hashes. */
#define FIXED_LEN (4 + 2 + 1 + 1 + 4 + 8 + 4 + 4 + 8 + 8 + 4 + 8 + 4 + 8 + 8 + 4 + \
                   7 * 8 + 8 + 4)

/* The length of a string held in an array of n bytes, or -1 if it has no
 * NUL there. */
static long
bounded_len (const char *s, size_t n)
{
  const char *z = memchr (s, '\0', n);

  return z ? (long) (z - s) : -1;
}

static uint8_t *
put_str (uint8_t *p, const char *s, size_t n, unsigned width)
{
  if (width == 1)
    *p++ = (uint8_t) n;
  else {
    pc_put_le16 (p, (uint16_t) n);
    p += 2;
  }
  memcpy (p, s, n);
  return p + n;
}

int
pc_event_encode (const struct pc_event *ev, uint8_t **ret_buf, size_t *ret_len)
{
  long name = bounded_len (ev->name, sizeof ev->name);
  long text = bounded_len (ev->text, sizeof ev->text);
  long p0 = bounded_len (ev->path[0], sizeof ev->path[0]);
  long p1 = bounded_len (ev->path[1], sizeof ev->path[1]);
  uint8_t *buf, *p;
  size_t len;

  if (name < 0 || text < 0 || p0 < 0 || p1 < 0 || ev->nhashes > PC_EVENT_HASHES_MAX ||
      (ev->nhashes > 0 && ev->hashes == NULL))
    return -EINVAL;
  len = FIXED_LEN + 1 + (size_t) name + 2 + (size_t) text + 2 + (size_t) p0 + 2 +
        (size_t) p1 + 8 * (size_t) ev->nhashes;
  buf = malloc (len);
  if (buf == NULL)
    return -ENOMEM;
  p = buf;
  pc_put_le32 (p, PC_EVENT_MAGIC); p += 4;
  pc_put_le16 (p, PC_EVENT_VERSION); p += 2;
  *p++ = ev->kind;
  *p++ = ev->op;
  pc_put_le32 (p, ev->flags); p += 4;
  pc_put_le64 (p, ev->seq); p += 8;
  pc_put_le32 (p, (uint32_t) ev->pid); p += 4;
  pc_put_le32 (p, (uint32_t) ev->tid); p += 4;
  pc_put_le64 (p, ev->mono_ns); p += 8;
  pc_put_le64 (p, ev->real_ns); p += 8;
  pc_put_le32 (p, (uint32_t) ev->nr); p += 4;
  p = put_str (p, ev->name, (size_t) name, 1);
  p = put_str (p, ev->text, (size_t) text, 2);
  pc_put_le64 (p, (uint64_t) ev->result); p += 8;
  pc_put_le32 (p, (uint32_t) ev->fd); p += 4;
  pc_put_le64 (p, ev->dev); p += 8;
  pc_put_le64 (p, ev->ino); p += 8;
  pc_put_le32 (p, ev->fd_flags); p += 4;
  pc_put_le64 (p, ev->offset); p += 8;
  pc_put_le64 (p, ev->length); p += 8;
  pc_put_le64 (p, ev->arg_flags); p += 8;
  pc_put_le64 (p, ev->mode); p += 8;
  pc_put_le64 (p, ev->addr); p += 8;
  pc_put_le64 (p, ev->size); p += 8;
  pc_put_le64 (p, ev->value_hash); p += 8;
  p = put_str (p, ev->path[0], (size_t) p0, 2);
  p = put_str (p, ev->path[1], (size_t) p1, 2);
  pc_put_le64 (p, ev->first_block); p += 8;
  pc_put_le32 (p, ev->nhashes); p += 4;
  for (uint32_t i = 0; i < ev->nhashes; i++, p += 8)
    pc_put_le64 (p, ev->hashes[i]);
  *ret_buf = buf;
  *ret_len = (size_t) (p - buf);
  return 0;
}

/* A bounds-checked cursor for decoding; the first fault is kept. */
struct cursor {
  const uint8_t *p;
  size_t len, pos;
  const char *field;        /* the field being read */
  const char *fault;        /* what is wrong with it, once something is */
};

static const uint8_t *
take (struct cursor *c, size_t n)
{
  if (c->fault)
    return NULL;
  if (c->len - c->pos < n) {
    c->fault = "cut short";
    return NULL;
  }
  c->pos += n;
  return c->p + c->pos - n;
}

static uint8_t get8 (struct cursor *c) { const uint8_t *p = take (c, 1); return p ? *p : 0; }
static uint16_t get16 (struct cursor *c) { const uint8_t *p = take (c, 2); return p ? pc_get_le16 (p) : 0; }
static uint32_t get32 (struct cursor *c) { const uint8_t *p = take (c, 4); return p ? pc_get_le32 (p) : 0; }
static uint64_t get64 (struct cursor *c) { const uint8_t *p = take (c, 8); return p ? pc_get_le64 (p) : 0; }

/* Names the field read next (the one a fault is in), until one is. */
static void
at (struct cursor *c, const char *field)
{
  if (c->fault == NULL)
    c->field = field;
}

static void
bad (struct cursor *c, const char *field, const char *what)
{
  if (c->fault == NULL) {
    c->field = field;
    c->fault = what;
  }
}

/* Reads a string of a width-byte length into dst (room for cap bytes with
 * the NUL). */
static void
get_str (struct cursor *c, const char *field, unsigned width, char *dst, size_t cap)
{
  size_t n;
  const uint8_t *p;

  if (c->fault)
    return;
  at (c, field);
  n = width == 1 ? get8 (c) : get16 (c);
  if (c->fault)
    return;
  if (n >= cap) {
    bad (c, field, "longer than its bound");
    return;
  }
  p = take (c, n);
  if (p == NULL)
    return;
  if (memchr (p, '\0', n)) {
    bad (c, field, "a NUL byte inside");
    return;
  }
  memcpy (dst, p, n);
  dst[n] = '\0';
}

static bool
name_valid (const char *s)
{
  if (*s == '\0')
    return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

int
pc_event_decode (const uint8_t *buf, size_t len, struct pc_event *ret,
                 struct pc_err *err)
{
  struct cursor c = { .p = buf, .len = len, .field = "magic" };
  struct pc_event *ev = ret;

  memset (ev, 0, sizeof *ev);
  if (get32 (&c) != PC_EVENT_MAGIC && c.fault == NULL)
    bad (&c, "magic", "not PCEV");
  at (&c, "version");
  if (get16 (&c) != PC_EVENT_VERSION && c.fault == NULL)
    bad (&c, "version", "not 1");
  at (&c, "kind");
  ev->kind = get8 (&c);
  if (c.fault == NULL && ev->kind != PC_EVENT_ENTRY && ev->kind != PC_EVENT_EXIT)
    bad (&c, "kind", "neither entry nor exit");
  at (&c, "op");
  ev->op = get8 (&c);
  if (c.fault == NULL && (ev->op < 1 || ev->op > PC_OP_MAX_))
    bad (&c, "op", "unknown");
  at (&c, "flags");
  ev->flags = get32 (&c);
  if (c.fault == NULL && (ev->flags & ~PC_EVENT_F_ALL_))
    bad (&c, "flags", "unknown bits");
  at (&c, "header");
  ev->seq = get64 (&c);
  ev->pid = (int32_t) get32 (&c);
  ev->tid = (int32_t) get32 (&c);
  ev->mono_ns = get64 (&c);
  ev->real_ns = get64 (&c);
  ev->nr = (int32_t) get32 (&c);
  get_str (&c, "name", 1, ev->name, sizeof ev->name);
  if (c.fault == NULL && !name_valid (ev->name))
    bad (&c, "name", "not a call's name");
  get_str (&c, "text", 2, ev->text, sizeof ev->text);
  at (&c, "numbers");
  ev->result = (int64_t) get64 (&c);
  ev->fd = (int32_t) get32 (&c);
  ev->dev = get64 (&c);
  ev->ino = get64 (&c);
  ev->fd_flags = get32 (&c);
  if (c.fault == NULL && (ev->fd_flags & ~PC_FD_ALL_))
    bad (&c, "fd_flags", "unknown bits");
  ev->offset = get64 (&c);
  ev->length = get64 (&c);
  ev->arg_flags = get64 (&c);
  ev->mode = get64 (&c);
  ev->addr = get64 (&c);
  ev->size = get64 (&c);
  ev->value_hash = get64 (&c);
  get_str (&c, "path[0]", 2, ev->path[0], sizeof ev->path[0]);
  get_str (&c, "path[1]", 2, ev->path[1], sizeof ev->path[1]);
  at (&c, "hashes");
  ev->first_block = get64 (&c);
  ev->nhashes = get32 (&c);
  if (c.fault == NULL) {
    if (ev->nhashes > PC_EVENT_HASHES_MAX)
      bad (&c, "hashes", "more than PC_EVENT_HASHES_MAX");
    else if (ev->nhashes > (c.len - c.pos) / 8)
      bad (&c, "hashes", "more than the payload holds");
    else if (ev->first_block > UINT64_MAX / PC_EVENT_BLOCK - ev->nhashes)
      bad (&c, "hashes", "blocks past the largest offset");
    else if (c.len - c.pos != 8 * (size_t) ev->nhashes)
      bad (&c, "end", "bytes after the hashes");
  }
  /* What only an exit that changed something carries. */
  if (c.fault == NULL && ev->kind == PC_EVENT_ENTRY &&
      (ev->result != 0 || ev->nhashes || (ev->flags & PC_EVENT_F_SIZE)))
    bad (&c, "kind", "an entry with a result, a size or hashes");
  if (c.fault == NULL && ev->kind == PC_EVENT_EXIT &&
      (ev->result < 0 || (ev->flags & PC_EVENT_F_LOST)) &&
      (ev->nhashes || (ev->flags & (PC_EVENT_F_SIZE | PC_EVENT_F_RANGE))))
    bad (&c, "result", "a failed or lost call with a range, a size or hashes");
  if (c.fault == NULL && ev->nhashes > 0) {
    ev->hashes = malloc (8 * (size_t) ev->nhashes);
    if (ev->hashes == NULL) {
      memset (ev, 0, sizeof *ev);
      return pc_err_set (err, ENOMEM, "event: hashes: out of memory");
    }
    for (uint32_t i = 0; i < ev->nhashes; i++)
      ev->hashes[i] = get64 (&c);
  }
  if (c.fault) {
    pc_err_set (err, EBADMSG, "event: %s: %s (byte %zu of %zu)", c.field, c.fault,
                c.pos, len);
    memset (ev, 0, sizeof *ev);
    return -EBADMSG;
  }
  return 0;
}

void
pc_event_free (struct pc_event *ev)
{
  free (ev->hashes);
  ev->hashes = NULL;
  ev->nhashes = 0;
}
