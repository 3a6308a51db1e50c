/* dmlog.c: export to and import from the dm-log-writes format. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/crash.h"
#include "replay/dmlog.h"
#include "format/mark.h"
#include "util/util.h"

/* The largest TRIM record an import makes (1 GiB: a whole number of any
 * sector size, and well within a record's 32-bit length). */
#define TRIM_PART (UINT64_C(1) << 30)

/* A buffered sequential writer: to a file, a block device, or a stream (a
 * pipe, a terminal, /dev/null, a socket).  what names the step that failed. */
struct out {
  int fd;
  uint8_t *buf;
  size_t len, cap;
  int err;
  const char *what;
};

static void
out_put (struct out *o, const void *p, size_t n)
{
  while (n > 0 && o->err == 0) {
    size_t k = o->cap - o->len < n ? o->cap - o->len : n;
    memcpy (o->buf + o->len, p, k);
    o->len += k;
    p = (const uint8_t *) p + k;
    n -= k;
    if (o->len == o->cap) {
      o->err = pc_write_all (o->fd, o->buf, o->len);
      o->what = "write";
      o->len = 0;
    }
  }
}

static void
out_zeros (struct out *o, size_t n)
{
  static const uint8_t z[4096];

  while (n > 0) {
    size_t k = n < sizeof z ? n : sizeof z;
    out_put (o, z, k);
    n -= k;
  }
}

static int
out_open (struct out *o, const char *path)
{
  memset (o, 0, sizeof o[0]);
  o->cap = 1 << 20;
  o->buf = malloc (o->cap);
  if (o->buf == NULL)
    return -ENOMEM;
  o->fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (o->fd < 0) {
    free (o->buf);
    return -errno;
  }
  return 0;
}

/* Makes what was written to fd durable, if fd is where data can be: a
 * regular file or a block device.  A pipe, a character device or a socket
 * holds nothing to sync (fsync fails on it with EINVAL), so it is not
 * synced; on a file, any error of fsync is one.  Returns 0 or -errno. */
static int
out_sync (int fd)
{
  struct stat st;

  if (fstat (fd, &st) < 0)
    return -errno;
  if (!S_ISREG (st.st_mode) && !S_ISBLK (st.st_mode))
    return 0;
  return fsync (fd) < 0 ? -errno : 0;
}

static int
out_close (struct out *o)
{
  int r = o->err;

  if (r == 0 && o->len) {
    r = pc_write_all (o->fd, o->buf, o->len);
    o->what = "write";
  }
  if (r == 0) {
    r = out_sync (o->fd);
    o->what = "fsync";
  }
  if (close (o->fd) < 0 && r == 0) {
    r = -errno;
    o->what = "close";
  }
  free (o->buf);
  return r;
}

static void
entry (struct out *o, uint32_t ss, uint64_t sector, uint64_t nr, uint64_t flags,
       const char *mark)
{
  uint8_t e[32];
  size_t ml = mark ? strlen (mark) : 0;

  if (ml > ss - 32)
    ml = ss - 32;
  pc_put_le64 (e, sector);
  pc_put_le64 (e + 8, nr);
  pc_put_le64 (e + 16, flags);
  pc_put_le64 (e + 24, ml);
  out_put (o, e, sizeof e);
  out_put (o, mark, ml);
  out_zeros (o, ss - 32 - ml);
}

int
pc_dmlog_export (const char *in, const char *outp, struct pc_err *why)
{
  struct pc_index ix;
  struct out o;
  uint64_t nent = 0;
  uint32_t ss;
  uint8_t super[28];
  int r;

  r = pc_index_load (in, &ix);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", in, pc_log_strerror (r));
    return r;
  }
  ss = ix.hdr.sector;
  if (ix.hdr.flags & PC_LOG_F_BASE) {
    pc_err_msg (why, "%s: the recording started from a base image, which "
                "dm-log-writes has no place for", in);
    pc_index_free (&ix);
    return -EINVAL;
  }
  r = out_open (&o, outp);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", outp, strerror (-r));
    pc_index_free (&ix);
    return r;
  }
  /* dm-log-writes has no place for the end, nor for a traced program's
   * events (or records a newer powercut wrote): left out. */
  for (uint64_t i = 0; i < ix.n; i++)
    nent += pc_rec_is_disk (&ix.recs[i]) && ix.recs[i].type != PC_REC_END;
  pc_put_le64 (super, PC_DMLOG_MAGIC);
  pc_put_le64 (super + 8, PC_DMLOG_VERSION);
  pc_put_le64 (super + 16, nent);
  pc_put_le32 (super + 24, ss);
  out_put (&o, super, sizeof super);
  out_zeros (&o, ss - 28);
  for (uint64_t i = 0; i < ix.n && o.err == 0; i++) {
    const struct pc_record *rec = &ix.recs[i];
    uint64_t fua = (rec->flags & PC_REC_F_FUA) ? PC_DMLOG_FUA : 0;
    switch (rec->type) {
    case PC_REC_WRITE:
      entry (&o, ss, rec->offset / ss, rec->length / ss, fua, NULL);
      out_put (&o, rec->data, rec->length);
      break;
    case PC_REC_WRITE_ZEROES:
      entry (&o, ss, rec->offset / ss, rec->length / ss, fua, NULL);
      out_zeros (&o, rec->length);
      break;
    case PC_REC_TRIM:
      entry (&o, ss, rec->offset / ss, rec->length / ss, PC_DMLOG_DISCARD | fua, NULL);
      break;
    case PC_REC_FLUSH:
      entry (&o, ss, 0, 0, PC_DMLOG_FLUSH, NULL);
      break;
    case PC_REC_MARK: {
      struct pc_mark m;
      if (pc_mark_decode (rec->data, rec->datalen, &m, NULL) == 0) {
        entry (&o, ss, 0, 0, PC_DMLOG_MARK, m.name);
        pc_mark_free (&m);
      }
      else
        entry (&o, ss, 0, 0, PC_DMLOG_MARK, "undecodable");
      break;
    }
    default:
      break;
    }
  }
  pc_index_free (&ix);
  r = out_close (&o);
  if (r < 0)
    pc_err_msg (why, "%s: %s: %s", outp, o.what, strerror (-r));
  return r;
}

/* Appends one record to a powercut log being written. */
static void
put_record (struct out *o, struct pc_record *r, const void *data, uint64_t *seq)
{
  uint8_t h[PC_REC_HEADER_SIZE];

  r->seq = (*seq)++;
  pc_rec_encode (r, data, h);
  out_put (o, h, sizeof h);
  out_put (o, data, r->datalen);
}

int
pc_dmlog_import (const char *in, const char *outp, uint64_t size, struct pc_err *why)
{
  const uint8_t *map;
  struct stat st;
  struct out o;
  struct pc_log_header h;
  uint8_t hb[PC_LOG_HEADER_SIZE];
  uint64_t nent, pos, end = 0, seq = 0;
  uint32_t ss;
  int fd, r = 0;

  fd = open (in, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0) {
    r = -errno;
    pc_err_msg (why, "%s: %s", in, strerror (-r));
    if (fd >= 0)
      close (fd);
    return r;
  }
  if (st.st_size < 512) {
    pc_err_msg (why, "%s: not a dm-log-writes log (too short)", in);
    close (fd);
    return -EBADMSG;
  }
  r = pc_map_input (fd, (uint64_t) st.st_size, &map);
  close (fd);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", in, strerror (-r));
    return r;
  }
  ss = pc_get_le32 (map + 24);
  nent = pc_get_le64 (map + 16);
  if (pc_get_le64 (map) != PC_DMLOG_MAGIC || pc_get_le64 (map + 8) != PC_DMLOG_VERSION ||
      ss < 512 || ss > 65536 || (ss & (ss - 1)) || (uint64_t) st.st_size < ss) {
    pc_err_msg (why, "%s: not a dm-log-writes log (bad super block)", in);
    r = -EBADMSG;
    goto out_map;
  }

  /* First pass: check every entry and find the device's extent. */
  pos = ss;
  for (uint64_t i = 0; i < nent; i++) {
    uint64_t sector, nr, flags, bytes;
    if (pos + ss > (uint64_t) st.st_size) {
      pc_err_msg (why, "%s: entry %" PRIu64 " at offset %" PRIu64 ": the log ends there",
                  in, i, pos);
      r = -EBADMSG;
      goto out_map;
    }
    sector = pc_get_le64 (map + pos);
    nr = pc_get_le64 (map + pos + 8);
    flags = pc_get_le64 (map + pos + 16);
    if (flags & ~(uint64_t) 0x1f || nr > (UINT64_C(1) << 40) / ss ||
        (nr && sector > (UINT64_C(1) << 46) / ss)) {
      pc_err_msg (why, "%s: entry %" PRIu64 " at offset %" PRIu64 ": malformed",
                  in, i, pos);
      r = -EBADMSG;
      goto out_map;
    }
    bytes = (flags & PC_DMLOG_DISCARD) ? 0 : nr * ss;
    if (nr && (sector + nr) * ss > end)
      end = (sector + nr) * ss;
    pos += ss + bytes;
    if (pos > (uint64_t) st.st_size || (nr * ss > PC_REC_MAX_DATA && !(flags & PC_DMLOG_DISCARD))) {
      pc_err_msg (why, "%s: entry %" PRIu64 ": data beyond the end of the log or too large",
                  in, i);
      r = -EBADMSG;
      goto out_map;
    }
  }
  if (size == 0)
    size = (end + (1u << 20) - 1) & ~(uint64_t) ((1u << 20) - 1);
  if (size == 0)
    size = 1u << 20;
  if (size < end || size % ss) {
    pc_err_msg (why, "--size: smaller than the log's writes (%" PRIu64 " bytes) "
                "or not a multiple of its %u-byte sectors", end, ss);
    r = -EINVAL;
    goto out_map;
  }

  r = out_open (&o, outp);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", outp, strerror (-r));
    goto out_map;
  }
  memset (&h, 0, sizeof h);
  h.version = PC_LOG_VERSION;
  h.devsize = size;
  h.sector = ss;
  h.compat = PC_LOG_COMPAT_HDRSUM;
  h.start_ns = pc_now_real_ns ();
  pc_log_header_encode (&h, hb);
  out_put (&o, hb, sizeof hb);
  pos = ss;
  for (uint64_t i = 0; i < nent && o.err == 0; i++) {
    uint64_t sector = pc_get_le64 (map + pos), nr = pc_get_le64 (map + pos + 8);
    uint64_t flags = pc_get_le64 (map + pos + 16), dlen = pc_get_le64 (map + pos + 24);
    struct pc_record rec;
    memset (&rec, 0, sizeof rec);
    if (flags & PC_DMLOG_FLUSH) {
      rec.type = PC_REC_FLUSH;
      put_record (&o, &rec, NULL, &seq);
      memset (&rec, 0, sizeof rec);
    }
    if (flags & PC_DMLOG_MARK) {
      struct pc_mark m = { 0 };
      uint8_t *buf;
      size_t len, n = dlen < ss - 32 ? (size_t) dlen : ss - 32;
      char name[PC_MARK_NAME_MAX + 1];
      if (n > PC_MARK_NAME_MAX)
        n = PC_MARK_NAME_MAX;
      for (size_t k = 0; k < n; k++) {
        char c = (char) map[pos + 32 + k];
        name[k] = pc_mark_name_valid ((char[]) { c, 0 }) ? c : '_';
      }
      name[n] = '\0';
      if (n == 0)
        strcpy (name, "mark");
      m.name = name;
      if (pc_mark_encode (&m, &buf, &len) == 0) {
        rec.type = PC_REC_MARK;
        rec.datalen = (uint32_t) len;
        put_record (&o, &rec, buf, &seq);
        free (buf);
      }
    }
    else if (nr > 0 && (flags & PC_DMLOG_DISCARD)) {
      /* A discard may be larger than a record's 32-bit length: split it
       * (the FUA flag, if any, on the last part). */
      uint64_t off = sector * ss, left = nr * ss;
      while (left > 0 && o.err == 0) {
        uint64_t part = left < TRIM_PART ? left : TRIM_PART;
        memset (&rec, 0, sizeof rec);
        rec.type = PC_REC_TRIM;
        rec.flags = (flags & PC_DMLOG_FUA) && part == left ? PC_REC_F_FUA : 0;
        rec.offset = off;
        rec.length = (uint32_t) part;
        put_record (&o, &rec, NULL, &seq);
        off += part;
        left -= part;
      }
    }
    else if (nr > 0) {
      rec.type = PC_REC_WRITE;
      rec.flags = (flags & PC_DMLOG_FUA) ? PC_REC_F_FUA : 0;
      rec.offset = sector * ss;
      rec.length = (uint32_t) (nr * ss);
      rec.datalen = rec.length;
      put_record (&o, &rec, map + pos + ss, &seq);
    }
    pos += ss + ((flags & PC_DMLOG_DISCARD) ? 0 : nr * ss);
  }
  {
    struct pc_record rec;
    memset (&rec, 0, sizeof rec);
    rec.type = PC_REC_END;
    put_record (&o, &rec, NULL, &seq);
  }
  r = out_close (&o);
  if (r < 0)
    pc_err_msg (why, "%s: %s: %s", outp, o.what, strerror (-r));
out_map:
  munmap ((void *) map, (size_t) st.st_size);
  return r;
}
