/* markcodec.c: marks and their manifests encoded for the log, and
 * decoded back (mark.h: pc_mark_encode, pc_mark_decode; the format is
 * powercut-log(5)'s). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/mark.h"
#include "util/util.h"

/* A growable byte buffer for encoding. */
struct obuf {
  uint8_t *p;
  size_t len, cap;
  int err;
};

static uint8_t *
ob_room (struct obuf *b, size_t n)
{
  if (b->err)
    return NULL;
  if (b->len + n > b->cap) {
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + n)
      ncap *= 2;
    uint8_t *np = realloc (b->p, ncap);
    if (np == NULL) {
      b->err = -ENOMEM;
      return NULL;
    }
    b->p = np;
    b->cap = ncap;
  }
  b->len += n;
  return b->p + b->len - n;
}

static void ob_u8 (struct obuf *b, uint8_t v) { uint8_t *p = ob_room (b, 1); if (p) *p = v; }
static void ob_u16 (struct obuf *b, uint16_t v) { uint8_t *p = ob_room (b, 2); if (p) pc_put_le16 (p, v); }
static void ob_u32 (struct obuf *b, uint32_t v) { uint8_t *p = ob_room (b, 4); if (p) pc_put_le32 (p, v); }
static void ob_u64 (struct obuf *b, uint64_t v) { uint8_t *p = ob_room (b, 8); if (p) pc_put_le64 (p, v); }
static void ob_bytes (struct obuf *b, const void *s, size_t n) { uint8_t *p = ob_room (b, n); if (p && n) memcpy (p, s, n); }

static void
ob_str16 (struct obuf *b, const char *s)
{
  size_t n = s ? strlen (s) : 0;

  if (n > UINT16_MAX) {
    b->err = -ENAMETOOLONG;
    return;
  }
  ob_u16 (b, (uint16_t) n);
  ob_bytes (b, s, n);
}

int
pc_mark_encode (const struct pc_mark *m, uint8_t **ret_buf, size_t *ret_len)
{
  struct obuf b = { 0 };

  if (!pc_mark_name_valid (m->name))
    return -EINVAL;
  ob_u32 (&b, PC_MARK_MAGIC);
  ob_u16 (&b, PC_MARK_VERSION);
  ob_u16 (&b, m->flags);
  ob_str16 (&b, m->name);
  ob_u32 (&b, (uint32_t) m->ndurable);
  for (size_t i = 0; i < m->ndurable; i++)
    ob_str16 (&b, m->durable[i]);
  ob_u32 (&b, (uint32_t) m->nentries);
  for (size_t i = 0; i < m->nentries; i++) {
    const struct pc_entry *e = &m->entries[i];
    ob_str16 (&b, e->path);
    ob_u8 (&b, e->type);
    ob_u8 (&b, 0);
    ob_u32 (&b, e->mode);
    ob_u32 (&b, e->nlink);
    ob_u64 (&b, e->ino);
    ob_u64 (&b, e->size);
    ob_bytes (&b, e->hash, 16);
    ob_u8 (&b, e->headlen);
    ob_bytes (&b, e->head, e->headlen);
    ob_str16 (&b, e->target);
  }
  if (b.err) {
    free (b.p);
    return b.err;
  }
  *ret_buf = b.p;
  *ret_len = b.len;
  return 0;
}

/* A bounds-checked cursor for decoding. */
struct ibuf {
  const uint8_t *p;
  size_t len, pos;
  bool bad;
  const char *fault;        /* what is wrong, once bad */
};

static const uint8_t *
ib_take (struct ibuf *b, size_t n)
{
  if (b->bad || b->len - b->pos < n) {
    if (!b->bad)
      b->fault = "cut short";
    b->bad = true;
    return NULL;
  }
  b->pos += n;
  return b->p + b->pos - n;
}

static uint8_t ib_u8 (struct ibuf *b) { const uint8_t *p = ib_take (b, 1); return p ? *p : 0; }
static uint16_t ib_u16 (struct ibuf *b) { const uint8_t *p = ib_take (b, 2); return p ? pc_get_le16 (p) : 0; }
static uint32_t ib_u32 (struct ibuf *b) { const uint8_t *p = ib_take (b, 4); return p ? pc_get_le32 (p) : 0; }
static uint64_t ib_u64 (struct ibuf *b) { const uint8_t *p = ib_take (b, 8); return p ? pc_get_le64 (p) : 0; }

/* Reads a u16-length string; path says whether it must be a valid path. */
static char *
ib_str16 (struct ibuf *b, bool path, int *err)
{
  uint16_t n = ib_u16 (b);
  const uint8_t *p = ib_take (b, n);
  char *s;

  if (p == NULL)
    return NULL;
  if (path && !pc_mark_path_valid ((const char *) p, n)) {
    b->fault = memchr (p, '\0', n) ? "a path with a NUL byte"
               : "not a relative path of names (empty, absolute, '.' or '..')";
    b->bad = true;
    return NULL;
  }
  if (!path && memchr (p, '\0', n) != NULL) {
    b->fault = "a NUL byte inside a string";
    b->bad = true;
    return NULL;
  }
  s = malloc ((size_t) n + 1);
  if (s == NULL) {
    *err = -ENOMEM;
    b->fault = "out of memory";
    b->bad = true;
    return NULL;
  }
  memcpy (s, p, n);
  s[n] = '\0';
  return s;
}

/* Sets b's fault (if none yet) and says where: part, and entry i or -1. */
static void
fault (struct ibuf *b, const char *what)
{
  if (b->fault == NULL)
    b->fault = what;
  b->bad = true;
}

/* Reads a u32 count of items that take at least min bytes each of what is
 * left, and allocates room for them (size bytes each).  NULL: b is bad,
 * or *err says out of memory. */
static void *
ib_array (struct ibuf *b, size_t min, size_t size, uint32_t *ret_n, int *err)
{
  uint32_t n = ib_u32 (b);
  void *a;

  if (b->bad)
    return NULL;
  if (n > (b->len - b->pos) / min) {
    fault (b, "more than the payload can hold");
    return NULL;
  }
  a = calloc (n ? n : 1, size);
  if (a == NULL) {
    *err = -ENOMEM;
    fault (b, "out of memory");
    return NULL;
  }
  *ret_n = n;
  return a;
}

int
pc_mark_decode (const uint8_t *buf, size_t len, struct pc_mark *ret,
                struct pc_err *why)
{
  struct ibuf b = { buf, len, 0, false, NULL };
  struct pc_mark m;
  const char *part = "header";
  int64_t at = -1;
  uint32_t n;
  int err = 0;

  memset (&m, 0, sizeof m);
  if (ib_u32 (&b) != PC_MARK_MAGIC || ib_u16 (&b) != PC_MARK_VERSION) {
    fault (&b, "not a mark (magic or version)");
    goto bad;
  }
  m.flags = ib_u16 (&b);
  part = "name";
  m.name = ib_str16 (&b, false, &err);
  if (m.name == NULL)
    goto bad;
  if (!pc_mark_name_valid (m.name)) {
    fault (&b, "not a valid mark name");
    goto bad;
  }
  part = "durable paths";
  m.durable = ib_array (&b, 2, sizeof *m.durable, &n, &err);
  if (m.durable == NULL)
    goto bad;
  part = "durable path";
  for (uint32_t i = 0; i < n; i++) {
    at = i;
    m.durable[i] = ib_str16 (&b, true, &err);
    if (m.durable[i] == NULL)
      goto bad;
    m.ndurable++;
  }
  part = "entries";
  at = -1;
  m.entries = ib_array (&b, 47, sizeof *m.entries, &n, &err);
  if (m.entries == NULL)
    goto bad;
  part = "entry";
  for (uint32_t i = 0; i < n; i++) {
    struct pc_entry *e = &m.entries[i];
    const uint8_t *h;
    at = i;
    e->path = ib_str16 (&b, true, &err);
    if (e->path == NULL)
      goto bad;
    m.nentries++;
    e->type = ib_u8 (&b);
    if (ib_u8 (&b) != 0) {
      fault (&b, "reserved byte not zero");
      goto bad;
    }
    e->mode = ib_u32 (&b);
    e->nlink = ib_u32 (&b);
    e->ino = ib_u64 (&b);
    e->size = ib_u64 (&b);
    h = ib_take (&b, 16);
    if (h)
      memcpy (e->hash, h, 16);
    e->headlen = ib_u8 (&b);
    if (e->headlen > PC_ENTRY_HEAD) {
      fault (&b, "first bytes longer than kept");
      goto bad;
    }
    h = ib_take (&b, e->headlen);
    if (h && e->headlen)
      memcpy (e->head, h, e->headlen);
    e->target = ib_str16 (&b, false, &err);
    if (e->target == NULL)
      goto bad;
    if (e->target[0] == '\0' && e->type != PC_ENTRY_SYMLINK) {
      free (e->target);
      e->target = NULL;
    }
    if (b.bad)
      goto bad;
    if (e->type != PC_ENTRY_FILE && e->type != PC_ENTRY_DIR &&
        e->type != PC_ENTRY_SYMLINK && e->type != PC_ENTRY_OTHER) {
      fault (&b, "unknown type");
      goto bad;
    }
    if (i > 0 && strcmp (m.entries[i - 1].path, e->path) >= 0) {
      fault (&b, "not sorted after the entry before it");
      goto bad;
    }
  }
  part = "payload";
  at = -1;
  if (b.bad)
    goto bad;
  if (b.pos != len) {
    fault (&b, "bytes after the last entry");
    goto bad;
  }
  *ret = m;
  return 0;

bad:
  if (at >= 0)
    pc_err_msg (why, "%s %" PRId64 ": %s", part, at, b.fault ? b.fault : "malformed");
  else
    pc_err_msg (why, "%s: %s", part, b.fault ? b.fault : "malformed");
  pc_mark_free (&m);
  return err ? err : -EBADMSG;
}
