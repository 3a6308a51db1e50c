/* log.c: encoding of the log's file header and records, and a checking reader. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/log.h"
#include "util/util.h"
#include "util/xxh.h"

#define PC_LOG_READER_MAGIC 0x70636c72u

struct pc_log {
  uint32_t magic;
  int fd;
  const uint8_t *map;
  uint64_t size;
  struct pc_log_header hdr;
  uint64_t cursor;          /* file offset of the next record */
  uint64_t next_seq;
  bool done;
  enum pc_log_end end;
  uint64_t bad_seq, bad_offset;
  const char *reason;
};

bool
pc_rec_is_disk (const struct pc_record *r)
{
  return r->type >= PC_REC_WRITE && r->type <= PC_REC_END;
}

const char *
pc_rec_type_name (unsigned type)
{
  switch (type) {
  case PC_REC_WRITE: return "write";
  case PC_REC_TRIM: return "trim";
  case PC_REC_WRITE_ZEROES: return "write-zeroes";
  case PC_REC_FLUSH: return "flush";
  case PC_REC_MARK: return "mark";
  case PC_REC_END: return "end";
  case PC_REC_EVENT: return "event";
  case PC_REC_DONE: return "done";
  default: return "unknown";
  }
}

void
pc_log_header_encode (const struct pc_log_header *h, uint8_t *buf)
{
  memset (buf, 0, PC_LOG_HEADER_SIZE);
  memcpy (buf, PC_LOG_MAGIC, 8);
  pc_put_le32 (buf + 8, h->version);
  pc_put_le32 (buf + 12, PC_LOG_HEADER_SIZE);
  pc_put_le32 (buf + 16, h->compat);
  pc_put_le32 (buf + 20, h->incompat);
  pc_put_le64 (buf + 24, h->devsize);
  pc_put_le32 (buf + 32, h->sector);
  pc_put_le32 (buf + 36, h->flags);
  pc_put_le64 (buf + 40, h->start_ns);
  memcpy (buf + 48, h->basehash, 16);
  pc_put_le64 (buf + 64, h->basesize);
  memcpy (buf + 72, h->basename, strnlen (h->basename, 127));
  if (h->compat & PC_LOG_COMPAT_CLOCK) {
    pc_put_le64 (buf + 200, h->start_mono);
    memcpy (buf + 208, h->boot_id, 16);
  }
  pc_put_le64 (buf + 248, XXH3_64bits (buf, 248));
}

int
pc_log_header_decode (const uint8_t *buf, size_t len, struct pc_log_header *ret_h)
{
  struct pc_log_header h;

  if (len < PC_LOG_HEADER_SIZE || memcmp (buf, PC_LOG_MAGIC, 8) != 0)
    return -EBADMSG;
  if (pc_get_le64 (buf + 248) != XXH3_64bits (buf, 248))
    return -EBADMSG;
  memset (&h, 0, sizeof h);
  h.version = pc_get_le32 (buf + 8);
  h.compat = pc_get_le32 (buf + 16);
  h.incompat = pc_get_le32 (buf + 20);
  if (h.version == 0)
    return -EBADMSG;
  if (h.version > PC_LOG_VERSION || h.incompat != 0)
    return -EPROTONOSUPPORT;
  if (pc_get_le32 (buf + 12) != PC_LOG_HEADER_SIZE)
    return -EBADMSG;
  h.devsize = pc_get_le64 (buf + 24);
  h.sector = pc_get_le32 (buf + 32);
  h.flags = pc_get_le32 (buf + 36);
  h.start_ns = pc_get_le64 (buf + 40);
  memcpy (h.basehash, buf + 48, 16);
  h.basesize = pc_get_le64 (buf + 64);
  memcpy (h.basename, buf + 72, 127);
  h.basename[127] = '\0';
  if (h.compat & PC_LOG_COMPAT_CLOCK) {
    h.start_mono = pc_get_le64 (buf + 200);
    memcpy (h.boot_id, buf + 208, 16);
  }
  if (h.sector < 512 || h.sector > 65536 || (h.sector & (h.sector - 1)) != 0 ||
      h.devsize == 0 || h.devsize % h.sector != 0)
    return -EBADMSG;
  *ret_h = h;
  return 0;
}

static uint64_t
rec_checksum (const uint8_t *hdr, const void *data, size_t datalen)
{
  XXH3_state_t st;

  if (datalen == 0)
    return XXH3_64bits (hdr, 48);
  XXH3_64bits_reset (&st);
  XXH3_64bits_update (&st, hdr, 48);
  XXH3_64bits_update (&st, data, datalen);
  return XXH3_64bits_digest (&st);
}

void
pc_rec_encode (const struct pc_record *r, const void *data, uint8_t *buf)
{
  pc_put_le32 (buf, PC_REC_MAGIC);
  pc_put_le16 (buf + 4, (uint16_t) r->type);
  pc_put_le16 (buf + 6, r->flags);
  pc_put_le64 (buf + 8, r->seq);
  pc_put_le64 (buf + 16, r->offset);
  pc_put_le32 (buf + 24, r->length);
  pc_put_le32 (buf + 28, r->datalen);
  pc_put_le64 (buf + 32, r->time_ns);
  pc_put_le32 (buf + 40, r->conn);
  pc_put_le32 (buf + 44, (uint32_t) XXH3_64bits (buf, 44));
  pc_put_le64 (buf + 48, rec_checksum (buf, data, r->datalen));
}

const char *
pc_log_strerror (int r)
{
  if (r == -EBADMSG)
    return "not a powercut log (bad header)";
  if (r == -EPROTONOSUPPORT)
    return "written by a newer powercut (unknown format version)";
  if (r == -ENODATA)
    return "a powercut log cut short inside its header";
  return strerror (-r);
}

int
pc_log_open (const char *path, struct pc_log **ret_log)
{
  struct pc_log *log;
  struct stat st;
  int r;

  log = calloc (1, sizeof *log);
  if (log == NULL)
    return -ENOMEM;
  log->magic = PC_LOG_READER_MAGIC;
  log->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (log->fd < 0) {
    r = -errno;
    goto fail;
  }
  if (fstat (log->fd, &st) < 0) {
    r = -errno;
    goto fail;
  }
  if (!S_ISREG (st.st_mode)) {
    r = S_ISDIR (st.st_mode) ? -EISDIR : -EINVAL;
    goto fail;
  }
  log->size = (uint64_t) st.st_size;
  if (log->size < PC_LOG_HEADER_SIZE) {
    char head[8];
    ssize_t n = pread (log->fd, head, sizeof head, 0);
    /* A file that starts as a log does but stops inside the header. */
    r = (n == (ssize_t) sizeof head && memcmp (head, PC_LOG_MAGIC, 8) == 0) ? -ENODATA
        : -EBADMSG;
    goto fail;
  }
  r = pc_map_input (log->fd, log->size, &log->map);
  if (r < 0)
    goto fail;
  madvise ((void *) log->map, log->size, MADV_SEQUENTIAL);
  r = pc_log_header_decode (log->map, log->size, &log->hdr);
  if (r < 0)
    goto fail;
  pc_log_rewind (log);
  *ret_log = log;
  return 0;

fail:
  pc_log_close (log);
  return r;
}

void
pc_log_close (struct pc_log *log)
{
  if (log == NULL || log->magic != PC_LOG_READER_MAGIC)
    return;
  if (log->map)
    munmap ((void *) log->map, log->size);
  if (log->fd >= 0)
    close (log->fd);
  log->magic = 0;
  free (log);
}

const struct pc_log_header *
pc_log_get_header (const struct pc_log *log)
{
  return &log->hdr;
}

uint64_t
pc_log_file_size (const struct pc_log *log)
{
  return log->size;
}

void
pc_log_rewind (struct pc_log *log)
{
  log->cursor = PC_LOG_HEADER_SIZE;
  log->next_seq = 0;
  log->done = false;
  log->end = PC_END_CUT;
  log->bad_seq = 0;
  log->bad_offset = 0;
  log->reason = NULL;
}

static int
stop (struct pc_log *log, enum pc_log_end end, const char *reason)
{
  log->done = true;
  log->end = end;
  log->bad_seq = log->next_seq;
  log->bad_offset = log->cursor;
  log->reason = reason;
  return 0;
}

/* May the log hold record types this reader does not know (a compat bit
 * this reader does not know either)? */
static bool
newer_types (const struct pc_log *log)
{
  return (log->hdr.compat & ~PC_LOG_COMPAT_KNOWN) != 0;
}

int
pc_log_next (struct pc_log *log, struct pc_record *ret_rec)
{
  const uint8_t *p;
  uint64_t left, end;
  struct pc_record r;
  uint32_t sector = log->hdr.sector;

  if (log->done)
    return 0;
  left = log->size - log->cursor;
  if (left == 0)
    return stop (log, PC_END_CUT, "no end record");
  if (left < PC_REC_HEADER_SIZE)
    return stop (log, PC_END_TORN, "partial record header");
  p = log->map + log->cursor;
  if (pc_get_le32 (p) != PC_REC_MAGIC)
    return stop (log, PC_END_CORRUPT, "bad record magic");
  /* A whole header that fails its own checksum is damage, even where its
   * length would run past the end of the file. */
  if ((log->hdr.compat & PC_LOG_COMPAT_HDRSUM) &&
      pc_get_le32 (p + 44) != (uint32_t) XXH3_64bits (p, 44))
    return stop (log, PC_END_CORRUPT, "bad record header checksum");

  memset (&r, 0, sizeof r);
  r.type = pc_get_le16 (p + 4);
  r.flags = pc_get_le16 (p + 6);
  r.seq = pc_get_le64 (p + 8);
  r.offset = pc_get_le64 (p + 16);
  r.length = pc_get_le32 (p + 24);
  r.datalen = pc_get_le32 (p + 28);
  r.time_ns = pc_get_le64 (p + 32);
  r.conn = pc_get_le32 (p + 40);
  r.file_offset = log->cursor;

  if (r.datalen > PC_REC_MAX_DATA)
    return stop (log, PC_END_CORRUPT, "implausible payload length");
  /* The payload length each type must have, before a short file is taken
   * for a torn end: a damaged length in the middle is corruption. */
  if (r.type < PC_REC_WRITE || (r.type > PC_REC_LAST && !newer_types (log)))
    return stop (log, PC_END_CORRUPT, "unknown record type");
  if (r.type > PC_REC_LAST ? false
      : r.type == PC_REC_WRITE ? r.datalen != r.length
      : r.type == PC_REC_MARK || r.type == PC_REC_EVENT ? r.datalen == 0 : r.datalen != 0)
    return stop (log, PC_END_CORRUPT, "payload length does not fit the record type");
  if (PC_REC_HEADER_SIZE + (uint64_t) r.datalen > left)
    return stop (log, PC_END_TORN, "partial record");
  r.data = p + PC_REC_HEADER_SIZE;
  if (pc_get_le64 (p + 48) != rec_checksum (p, r.data, r.datalen))
    return stop (log, PC_END_CORRUPT, "bad checksum");
  if (r.seq != log->next_seq)
    return stop (log, PC_END_CORRUPT, "out-of-order record number");

  switch (r.type) {
  case PC_REC_WRITE:
    if (r.datalen != r.length)
      return stop (log, PC_END_CORRUPT, "write data length differs from its length");
    /* fall through */
  case PC_REC_TRIM:
  case PC_REC_WRITE_ZEROES:
    if (r.type != PC_REC_WRITE && r.datalen != 0)
      return stop (log, PC_END_CORRUPT, "unexpected payload");
    end = r.offset + r.length;
    if (r.length == 0 || end < r.offset || end > log->hdr.devsize)
      return stop (log, PC_END_CORRUPT, "request beyond the end of the device");
    if (r.offset % sector != 0 || r.length % sector != 0)
      return stop (log, PC_END_CORRUPT, "request not aligned to the sector size");
    break;
  case PC_REC_FLUSH:
  case PC_REC_END:
    if (r.datalen != 0)
      return stop (log, PC_END_CORRUPT, "unexpected payload");
    break;
  case PC_REC_DONE:
    if (r.datalen != 0)
      return stop (log, PC_END_CORRUPT, "unexpected payload");
    if (r.offset >= r.seq)
      return stop (log, PC_END_CORRUPT, "a request done before it was logged");
    break;
  case PC_REC_MARK:
    if (r.datalen == 0)
      return stop (log, PC_END_CORRUPT, "mark without payload");
    break;
  case PC_REC_EVENT:
    if (r.datalen == 0)
      return stop (log, PC_END_CORRUPT, "event without payload");
    break;
  default:
    break;                      /* a newer writer's: read over (newer_types) */
  }

  log->cursor += PC_REC_HEADER_SIZE + r.datalen;
  log->next_seq++;
  if (r.type == PC_REC_END) {
    log->done = true;
    log->end = PC_END_CLEAN;
  }
  *ret_rec = r;
  return 1;
}

enum pc_log_end
pc_log_end_state (const struct pc_log *log, uint64_t *ret_seq,
                  uint64_t *ret_offset, const char **ret_reason)
{
  if (ret_seq)
    *ret_seq = log->bad_seq;
  if (ret_offset)
    *ret_offset = log->bad_offset;
  if (ret_reason)
    *ret_reason = log->reason;
  return log->end;
}

char *
pc_log_corrupt_message (const struct pc_log *log, char *buf, size_t len)
{
  snprintf (buf, len, "record %" PRIu64 " at offset %" PRIu64 ": %s", log->bad_seq,
            log->bad_offset, log->reason ? log->reason : "?");
  return buf;
}
