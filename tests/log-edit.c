/* log-edit.c: damages powercut logs the way the tests need, keeping their
 * checksums valid so that the damage is what a reader must catch:
 *   log-edit LOG version N            sets the header's format version
 *   log-edit LOG header OFF HEX       sets the header's bytes from OFF to
 *                                     HEX's (two digits a byte)
 *   log-edit LOG replace SEQ FROM TO  replaces FROM by TO (same length;
 *                                     "%00" is a NUL) in record SEQ's payload
 *   log-edit LOG zero SEQ OFF LEN     zeroes LEN bytes at OFF of record SEQ's
 *                                     payload (a write's data reads as zeros)
 *   log-edit LOG zero-data STRING     zeroes STRING wherever a write's data
 *                                     holds it (prints how many times)
 *   log-edit LOG zero-block STRING    zeroes every 4 KiB block of the device
 *                                     that a write's data holding STRING
 *                                     writes there (prints how many)
 *   log-edit LOG find-data STRING     prints the numbers of the writes whose
 *                                     data holds STRING, one a line
 *   log-edit LOG move SEQ AFTER       moves record SEQ to just after record
 *                                     AFTER (> SEQ), with AFTER's time, and
 *                                     numbers the records in order again: a
 *                                     write that reached the disk later than
 *                                     it did (an fsync that returned first);
 *                                     DONE records name their requests anew */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "format/log.h"
#include "util/util.h"

static size_t
unescape (const char *in, char *out)
{
  size_t n = 0;

  while (*in) {
    if (strncmp (in, "%00", 3) == 0) {
      out[n++] = '\0';
      in += 3;
    }
    else
      out[n++] = *in++;
  }
  return n;
}

/* The record with sequence number seq: its header in *h, its payload's
 * length in *dlen; -ENOENT if there is none. */
static int
find_record (uint8_t *buf, size_t size, unsigned long long seq, uint8_t **h, uint32_t *dlen)
{
  size_t off = PC_LOG_HEADER_SIZE;

  while (off + PC_REC_HEADER_SIZE <= size) {
    uint32_t n = pc_get_le32 (buf + off + 28);
    if (off + PC_REC_HEADER_SIZE + n > size)
      break;
    if (pc_get_le64 (buf + off + 8) == seq) {
      *h = buf + off;
      *dlen = n;
      return 0;
    }
    off += PC_REC_HEADER_SIZE + n;
  }
  return -ENOENT;
}

/* Sets a record's checksum after its payload changed. */
static void
reseal (uint8_t *h, uint32_t dlen)
{
  XXH3_state_t st;

  XXH3_64bits_reset (&st);
  XXH3_64bits_update (&st, h, 48);
  XXH3_64bits_update (&st, h + PC_REC_HEADER_SIZE, dlen);
  pc_put_le64 (h + 48, XXH3_64bits_digest (&st));
}

static int
zero (uint8_t *buf, size_t size, unsigned long long seq, unsigned long long off,
      unsigned long long len)
{
  uint8_t *h;
  uint32_t dlen;

  if (find_record (buf, size, seq, &h, &dlen) < 0)
    return -ENOENT;
  if (off > dlen || len > dlen - off)
    return -ERANGE;
  memset (h + PC_REC_HEADER_SIZE + off, 0, len);
  reseal (h, dlen);
  return 0;
}

static int
zero_data (uint8_t *buf, size_t size, const char *str, bool block)
{
  size_t off = PC_LOG_HEADER_SIZE, sl = strlen (str);
  int n = 0;

  if (sl == 0)
    return -EINVAL;
  while (off + PC_REC_HEADER_SIZE <= size) {
    uint8_t *h = buf + off, *data = h + PC_REC_HEADER_SIZE;
    uint32_t dlen = pc_get_le32 (h + 28);
    bool hit = false;
    if (off + PC_REC_HEADER_SIZE + dlen > size)
      break;
    for (size_t i = 0; pc_get_le16 (h + 4) == PC_REC_WRITE && i + sl <= dlen; i++)
      if (memcmp (data + i, str, sl) == 0) {
        if (block) {
          /* the device's 4 KiB block at the write's offset + i */
          uint64_t dev = pc_get_le64 (h + 16) + i, lo = dev - dev % 4096;
          size_t a = lo > pc_get_le64 (h + 16) ? (size_t) (lo - pc_get_le64 (h + 16)) : 0;
          size_t z = (size_t) (lo + 4096 - pc_get_le64 (h + 16));
          memset (data + a, 0, (z < dlen ? z : dlen) - a);
          i = (z < dlen ? z : dlen) - 1;
        }
        else
          memset (data + i, 0, sl);
        hit = true;
        n++;
      }
    if (hit)
      reseal (h, dlen);
    off += PC_REC_HEADER_SIZE + dlen;
  }
  printf ("%d\n", n);
  return n ? 0 : -ENOENT;
}

/* Sets a record's header checksum (if the log has them) and its
 * checksum after its header changed. */
static void
reseal_header (const uint8_t *buf, uint8_t *h, uint32_t dlen)
{
  if (pc_get_le32 (buf + 16) & PC_LOG_COMPAT_HDRSUM)
    pc_put_le32 (h + 44, (uint32_t) XXH3_64bits (h, 44));
  reseal (h, dlen);
}

static int
find_data (uint8_t *buf, size_t size, const char *str)
{
  size_t off = PC_LOG_HEADER_SIZE, sl = strlen (str);
  int n = 0;

  while (sl && off + PC_REC_HEADER_SIZE <= size) {
    uint8_t *h = buf + off, *data = h + PC_REC_HEADER_SIZE;
    uint32_t dlen = pc_get_le32 (h + 28);
    if (off + PC_REC_HEADER_SIZE + dlen > size)
      break;
    for (size_t i = 0; pc_get_le16 (h + 4) == PC_REC_WRITE && i + sl <= dlen; i++)
      if (memcmp (data + i, str, sl) == 0) {
        printf ("%llu\n", (unsigned long long) pc_get_le64 (h + 8));
        n++;
        break;
      }
    off += PC_REC_HEADER_SIZE + dlen;
  }
  return n ? 0 : -ENOENT;
}

static int
move (uint8_t *buf, size_t size, unsigned long long seq, unsigned long long after)
{
  uint8_t *h, *a, *tmp;
  uint32_t dlen, alen;
  size_t len, span;
  uint64_t time;
  unsigned long long k = seq;

  if (after <= seq || find_record (buf, size, seq, &h, &dlen) < 0 ||
      find_record (buf, size, after, &a, &alen) < 0)
    return -ENOENT;
  len = PC_REC_HEADER_SIZE + dlen;
  span = (size_t) (a + PC_REC_HEADER_SIZE + alen - (h + len));
  time = pc_get_le64 (a + 32);
  if ((tmp = malloc (len)) == NULL)
    return -ENOMEM;
  memcpy (tmp, h, len);
  memmove (h, h + len, span);
  memcpy (h + span, tmp, len);
  pc_put_le64 (h + span + 32, time);
  free (tmp);
  /* the records from seq to after, numbered anew */
  for (uint8_t *r = h; r <= h + span; k++) {
    uint32_t n = pc_get_le32 (r + 28);
    pc_put_le64 (r + 8, k);
    reseal_header (buf, r, n);
    r += PC_REC_HEADER_SIZE + n;
  }
  /* and every DONE record names its request by its new number */
  for (size_t off = PC_LOG_HEADER_SIZE; off + PC_REC_HEADER_SIZE <= size;) {
    uint8_t *r = buf + off;
    uint32_t n = pc_get_le32 (r + 28);
    uint64_t o = pc_get_le64 (r + 16);
    if (pc_get_le16 (r + 4) == PC_REC_DONE && o >= seq && o <= after) {
      pc_put_le64 (r + 16, o == seq ? after : o - 1);
      reseal_header (buf, r, n);
    }
    off += PC_REC_HEADER_SIZE + n;
  }
  return 0;
}

static int
replace (uint8_t *buf, size_t size, unsigned long long seq, const char *from, const char *to)
{
  char f[256], t[256];
  size_t fl, tl;
  uint8_t *h, *data;
  uint32_t dlen;

  if (strlen (from) >= sizeof f || strlen (to) >= sizeof t)
    return -EINVAL;
  fl = unescape (from, f);
  tl = unescape (to, t);
  if (fl != tl || fl == 0)
    return -EINVAL;
  if (find_record (buf, size, seq, &h, &dlen) < 0)
    return -ENOENT;
  data = h + PC_REC_HEADER_SIZE;
  for (size_t i = 0; i + fl <= dlen; i++)
    if (memcmp (data + i, f, fl) == 0) {
      memcpy (data + i, t, tl);
      reseal (h, dlen);
      return 0;
    }
  return -ENOENT;
}

int
main (int argc, char **argv)
{
  FILE *f;
  uint8_t *buf;
  long size;
  int r;

  if (argc < 4 || (f = fopen (argv[1], "r+b")) == NULL || fseek (f, 0, SEEK_END) < 0 ||
      (size = ftell (f)) < PC_LOG_HEADER_SIZE || (buf = malloc ((size_t) size)) == NULL) {
    fprintf (stderr, "usage: log-edit LOG version N | LOG replace SEQ FROM TO | LOG zero SEQ OFF LEN | "
             "LOG zero-data STRING | LOG zero-block STRING | LOG find-data STRING | LOG move SEQ AFTER\n");
    return 2;
  }
  rewind (f);
  if (fread (buf, 1, (size_t) size, f) != (size_t) size)
    return 2;
  if (strcmp (argv[2], "version") == 0) {
    pc_put_le32 (buf + 8, (uint32_t) strtoul (argv[3], NULL, 0));
    pc_put_le64 (buf + 248, XXH3_64bits (buf, 248));
    r = 0;
  }
  else if (strcmp (argv[2], "header") == 0 && argc == 5) {
    size_t off = strtoul (argv[3], NULL, 0), n = strlen (argv[4]) / 2;
    r = 0;
    if (off + n > 248 || (size_t) size < PC_LOG_HEADER_SIZE)
      r = -EINVAL;
    for (size_t i = 0; r == 0 && i < n; i++) {
      char two[3] = { argv[4][2 * i], argv[4][2 * i + 1], '\0' };
      buf[off + i] = (uint8_t) strtoul (two, NULL, 16);
    }
    if (r == 0)
      pc_put_le64 (buf + 248, XXH3_64bits (buf, 248));
  }
  else if (strcmp (argv[2], "replace") == 0 && argc == 6)
    r = replace (buf, (size_t) size, strtoull (argv[3], NULL, 0), argv[4], argv[5]);
  else if (strcmp (argv[2], "zero-data") == 0 && argc == 4)
    r = zero_data (buf, (size_t) size, argv[3], false);
  else if (strcmp (argv[2], "zero-block") == 0 && argc == 4)
    r = zero_data (buf, (size_t) size, argv[3], true);
  else if (strcmp (argv[2], "find-data") == 0 && argc == 4)
    r = find_data (buf, (size_t) size, argv[3]);
  else if (strcmp (argv[2], "move") == 0 && argc == 5)
    r = move (buf, (size_t) size, strtoull (argv[3], NULL, 0), strtoull (argv[4], NULL, 0));
  else if (strcmp (argv[2], "zero") == 0 && argc == 6)
    r = zero (buf, (size_t) size, strtoull (argv[3], NULL, 0), strtoull (argv[4], NULL, 0),
              strtoull (argv[5], NULL, 0));
  else
    r = -EINVAL;
  if (r < 0) {
    fprintf (stderr, "log-edit: %s: %s\n", argv[1], strerror (-r));
    free (buf);
    fclose (f);
    return 2;
  }
  rewind (f);
  if (fwrite (buf, 1, (size_t) size, f) != (size_t) size || fclose (f) != 0)
    return 2;
  free (buf);
  return 0;
}
