/* disk.c: in-memory device images for the recorder, over a base image read
 * on demand, with what is in the log read back from the log. */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/disk.h"
#include "util/util.h"
#include "util/xxh.h"

int
pc_disk_open_zero (struct pc_disk *d, uint64_t size)
{
  void *m;

  memset (d, 0, sizeof *d);
  d->base_fd = -1;
  d->log_fd = -1;
  if (size == 0 || size > PC_DISK_MAX_SIZE)
    return -EINVAL;
  m = mmap (NULL, size, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return -errno;
  d->mem = m;
  d->size = size;
  d->base_fd = -1;
  d->log_fd = -1;
  return 0;
}

int
pc_disk_use_log (struct pc_disk *d, int fd)
{
  void *m = mmap (NULL, d->size / PC_DISK_SECTOR * sizeof *d->logged, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

  if (m == MAP_FAILED)
    return -ENOMEM;
  d->logged = m;
  d->log_fd = fd;
  return 0;
}

/* The sectors of [off, off + len) are no longer in the log. */
static void
unlog (struct pc_disk *d, uint64_t off, uint64_t len)
{
  if (d->logged)
    memset (d->logged + off / PC_DISK_SECTOR, 0, len / PC_DISK_SECTOR * sizeof *d->logged);
}

static bool
loaded (const struct pc_disk *d, uint64_t s)
{
  return d->loaded[s / 64] & (UINT64_C(1) << (s % 64));
}

/* Marks the sectors of [off, off + len) as held in mem. */
static void
mark_loaded (struct pc_disk *d, uint64_t off, uint64_t len)
{
  uint64_t s = off / PC_DISK_SECTOR, e = (off + len) / PC_DISK_SECTOR;

  if (d->loaded == NULL)
    return;
  for (; s < e && s % 64 != 0; s++)
    d->loaded[s / 64] |= UINT64_C(1) << (s % 64);
  for (; s + 64 <= e; s += 64)
    d->loaded[s / 64] = UINT64_MAX;
  for (; s < e; s++)
    d->loaded[s / 64] |= UINT64_C(1) << (s % 64);
}

/* Opens the image at path and checks it is a regular file of a size that
 * is not 0, a multiple of sector (if not 0) and expect_size (if not 0).
 * Returns the descriptor, with *sb filled, or -errno. */
static int
image_open (const char *path, uint64_t expect_size, uint32_t sector, struct stat *sb)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC), r;

  if (fd < 0)
    return -errno;
  if (fstat (fd, sb) < 0)
    r = -errno;
  else if (!S_ISREG (sb->st_mode) || sb->st_size == 0 ||
           (sector && sb->st_size % sector != 0) ||
           (expect_size && (uint64_t) sb->st_size != expect_size))
    r = S_ISDIR (sb->st_mode) ? -EISDIR : -EINVAL;
  else
    return fd;
  close (fd);
  return r;
}

#define SCAN_CHUNK (1 << 16)
#define SCAN_MEMOS 8
#define RACY_NS 20000000        /* 20 ms: more than a tick of the file clock */

/* What a scan of an image found, kept for the life of the process and of
 * the children it forks after: an image unchanged since (same_file: what
 * a recorder trusts of its base, see base_unchanged) is not read and hashed again; its hash is known, and
 * which of its chunks are zeros.  explore's runs, each a recorder and a
 * check over the same base image, read it once. */
struct scan_memo {
  bool used;
  struct stat st;               /* the file as it was read */
  uint8_t hash[16];
  uint64_t *zero;               /* a bit per SCAN_CHUNK bytes of zeros */
};

static struct scan_memo memos[SCAN_MEMOS];
static unsigned next_memo;

/* Nanoseconds from t to now (negative if t is later), within a day. */
static int64_t
ns_since (struct timespec t, struct timespec now)
{
  int64_t sec = (int64_t) now.tv_sec - (int64_t) t.tv_sec;

  if (sec > 86400)
    sec = 86400;
  else if (sec < -86400)
    sec = -86400;
  return sec * 1000000000 + (now.tv_nsec - t.tv_nsec);
}

static bool
same_time (struct timespec a, struct timespec b)
{
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Are a and b the same file, unchanged (size, mtime and ctime)? */
static bool
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         same_time (a->st_mtim, b->st_mtim) && same_time (a->st_ctim, b->st_ctim);
}

static struct scan_memo *
memo_find (const struct stat *sb)
{
  for (unsigned i = 0; i < SCAN_MEMOS; i++)
    if (memos[i].used && same_file (&memos[i].st, sb))
      return &memos[i];
  return NULL;
}

/* Keeps what a scan of the file of sb found (zero: its bitmap, taken). */
static void
memo_keep (const struct stat *sb, const uint8_t hash[16], uint64_t *zero)
{
  struct scan_memo *m = &memos[next_memo++ % SCAN_MEMOS];

  free (m->zero);
  *m = (struct scan_memo) { .used = true, .st = *sb, .zero = zero };
  memcpy (m->hash, hash, 16);
}

/* Reads size bytes of fd (whose stat is sb) once through, into hash
 * (XXH128), calling chunk (ctx, off, buf, len, zero) for each piece
 * read.  An image a scan of this process read already, unchanged since,
 * is not read again: its hash is the memo's, its zero pieces are passed
 * as buf NULL, and the others are read only if data (else buf NULL too).
 * Returns 0 or -errno (an I/O error, -EIO if the file was shorter than it
 * said). */
static int
image_scan (int fd, const struct stat *sb, uint64_t size, uint8_t hash[16], bool data,
            void (*chunk) (void *ctx, uint64_t off, const uint8_t *buf, size_t len, bool zero),
            void *ctx)
{
  static const uint8_t zero[SCAN_CHUNK];
  const struct scan_memo *m = memo_find (sb);
  uint64_t nchunks = (size + SCAN_CHUNK - 1) / SCAN_CHUNK;
  uint64_t *zbits = NULL;
  XXH3_state_t *st = NULL;
  uint8_t *buf = malloc (SCAN_CHUNK);
  struct timespec start;
  bool racy;
  int r = 0;

  if (m && (uint64_t) m->st.st_size == size) {
    struct stat now;
    for (uint64_t off = 0, c = 0; r == 0 && off < size; off += SCAN_CHUNK, c++) {
      size_t want = size - off < SCAN_CHUNK ? (size_t) (size - off) : SCAN_CHUNK;
      bool z = m->zero[c / 64] & (UINT64_C(1) << (c % 64));
      if (z || !data)
        chunk (ctx, off, NULL, want, z);
      else if (buf == NULL)
        r = -ENOMEM;
      else if ((r = pc_pread_all (fd, buf, want, off)) == 0)
        chunk (ctx, off, buf, want, false);
    }
    /* what was read is the memo's image only if it did not change
     * meanwhile: else the image is read whole */
    if (r == 0 && fstat (fd, &now) == 0 && same_file (&m->st, &now)) {
      memcpy (hash, m->hash, 16);
      free (buf);
      return 0;
    }
    if (r < 0) {
      free (buf);
      return r;
    }
  }
  /* a memo of a file changed in the clock tick it was read in would
   * hold after a second change in that tick: kept only of a file whose
   * last change is older than the tick (file times come from a coarse
   * clock, a few milliseconds) */
  clock_gettime (CLOCK_REALTIME, &start);
  racy = ns_since (sb->st_ctim, start) < RACY_NS;
  st = XXH3_createState ();
  zbits = calloc ((nchunks + 63) / 64, sizeof *zbits);
  if (st == NULL || buf == NULL || zbits == NULL)
    r = -ENOMEM;
  else
    XXH3_128bits_reset (st);
  for (uint64_t off = 0, c = 0, next = 0; r == 0 && off < size; c++) {
    size_t want = size - off < SCAN_CHUNK ? (size_t) (size - off) : SCAN_CHUNK;
    bool z;
    /* a hole of a sparse file is zeros, not read: where the next data
     * is (a filesystem that cannot say has data everywhere) */
    if (next < off) {
      off_t d = lseek (fd, (off_t) off, SEEK_DATA);
      next = d >= 0 ? (uint64_t) d : errno == ENXIO ? size : off;
    }
    if (next >= off + want)
      z = true;
    else if ((r = pc_pread_all (fd, buf, want, off)) < 0)
      break;
    else
      z = memcmp (buf, zero, want) == 0;
    if (z)
      zbits[c / 64] |= UINT64_C(1) << (c % 64);
    chunk (ctx, off, z ? zero : buf, want, z);
    XXH3_128bits_update (st, z ? zero : buf, want);
    off += want;
  }
  if (r == 0) {
    struct stat now;
    XXH128_canonicalFromHash ((XXH128_canonical_t *) hash, XXH3_128bits_digest (st));
    /* kept only if the file did not change while it was read */
    if (!racy && fstat (fd, &now) == 0 && same_file (sb, &now) &&
        (uint64_t) now.st_size == size) {
      memo_keep (sb, hash, zbits);
      zbits = NULL;
    }
  }
  XXH3_freeState (st);
  free (zbits);
  free (buf);
  return r;
}

struct copy {
  uint8_t *mem;
  uint64_t *nonzero;            /* or NULL */
};

static void
copy_chunk (void *ctx, uint64_t off, const uint8_t *buf, size_t len, bool zero)
{
  static const uint8_t zero_block[PC_IMAGE_MAP_BLOCK];
  struct copy *c = ctx;

  if (zero)                     /* the anonymous memory is zeros already */
    return;
  memcpy (c->mem + off, buf, len);
  /* SCAN_CHUNK is whole blocks, and so is off */
  for (size_t b = 0; c->nonzero && b < len; b += PC_IMAGE_MAP_BLOCK) {
    size_t n = len - b < PC_IMAGE_MAP_BLOCK ? len - b : PC_IMAGE_MAP_BLOCK;
    uint64_t k = (off + b) / PC_IMAGE_MAP_BLOCK;
    if (memcmp (buf + b, zero_block, n) != 0)
      c->nonzero[k / 64] |= UINT64_C(1) << (k % 64);
  }
}

int
pc_image_read (const char *path, uint64_t expect_size, uint32_t sector,
               uint8_t **ret_mem, uint64_t *ret_size, uint8_t hash[16])
{
  return pc_image_read_map (path, expect_size, sector, ret_mem, ret_size, hash, NULL);
}

int
pc_image_read_map (const char *path, uint64_t expect_size, uint32_t sector,
                   uint8_t **ret_mem, uint64_t *ret_size, uint8_t hash[16],
                   uint64_t **ret_nonzero)
{
  struct stat sb;
  struct copy c = { NULL, NULL };
  uint64_t size;
  uint8_t *mem;
  int fd, r;

  fd = image_open (path, expect_size, sector, &sb);
  if (fd < 0)
    return fd;
  size = (uint64_t) sb.st_size;
  mem = mmap (NULL, size, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED)
    r = -ENOMEM;
  else if (ret_nonzero &&
           (c.nonzero = calloc ((size / PC_IMAGE_MAP_BLOCK + 64) / 64, sizeof *c.nonzero)) == NULL) {
    munmap (mem, size);
    r = -ENOMEM;
  }
  else if ((c.mem = mem, r = image_scan (fd, &sb, size, hash, true, copy_chunk, &c)) < 0) {
    munmap (mem, size);
    free (c.nonzero);
  }
  else {
    *ret_mem = mem;
    *ret_size = size;
    if (ret_nonzero)
      *ret_nonzero = c.nonzero;
  }
  close (fd);
  return r;
}

static void
no_chunk (void *ctx, uint64_t off, const uint8_t *buf, size_t len, bool zero)
{
  (void) ctx, (void) off, (void) buf, (void) len, (void) zero;
}

int
pc_image_remember (const char *path)
{
  struct stat sb;
  uint8_t hash[16];
  int fd = image_open (path, 0, 0, &sb), r;
  struct timespec now;

  if (fd < 0)
    return fd;
  /* just made (explore's base): wait out the tick it was changed in, so
   * that the scan is not racy and its memo is kept */
  clock_gettime (CLOCK_REALTIME, &now);
  {
    int64_t age = ns_since (sb.st_ctim, now);
    if (age < RACY_NS + 1000000) {
      struct timespec d = { 0, (long) (RACY_NS + 1000000 - (age > 0 ? age : 0)) };
      nanosleep (&d, NULL);
    }
  }
  r = image_scan (fd, &sb, (uint64_t) sb.st_size, hash, false, no_chunk, NULL);
  close (fd);
  return r;
}

void
pc_image_unmap (uint8_t *mem, uint64_t size)
{
  if (mem)
    munmap (mem, size);
}

static void
mark_zero_chunk (void *ctx, uint64_t off, const uint8_t *buf, size_t len, bool zero)
{
  (void) buf;
  if (zero)                     /* already so in mem: never read again */
    mark_loaded (ctx, off, len);
}

int
pc_disk_open_base (struct pc_disk *d, const char *path)
{
  struct stat sb;
  int fd, r;

  memset (d, 0, sizeof *d);
  d->base_fd = -1;
  d->log_fd = -1;
  fd = image_open (path, 0, PC_DISK_SECTOR, &sb);
  if (fd < 0)
    return fd;
  r = pc_disk_open_zero (d, (uint64_t) sb.st_size);
  if (r == 0) {
    d->loaded = calloc ((d->size / PC_DISK_SECTOR + 63) / 64, sizeof *d->loaded);
    r = d->loaded ? 0 : -ENOMEM;
  }
  /* One pass for the hash; what is not zeros is left to pc_disk_load,
   * and out of the page cache. */
  if (r == 0)
    r = image_scan (fd, &sb, d->size, d->basehash, false, mark_zero_chunk, d);
  if (r < 0) {
    close (fd);
    pc_disk_close (d);
    return r;
  }
  posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  d->base_mtime = sb.st_mtim;
  d->base_ctime = sb.st_ctim;
  d->has_base = true;
  d->base_fd = fd;
  return 0;
}

/* Is the base image still as it was hashed? (Checked after each read, so
 * that what was read is known to be from the hashed image.) */
static bool
base_unchanged (const struct pc_disk *d)
{
  struct stat sb;

  return fstat (d->base_fd, &sb) == 0 && (uint64_t) sb.st_size == d->size &&
         same_time (sb.st_mtim, d->base_mtime) && same_time (sb.st_ctim, d->base_ctime);
}

int
pc_disk_load (struct pc_disk *d, uint64_t off, uint64_t len)
{
  uint64_t s = off / PC_DISK_SECTOR, e = (off + len) / PC_DISK_SECTOR;

  if (d->loaded == NULL)
    return 0;
  while (s < e) {
    uint64_t t;
    int r;

    if (loaded (d, s)) {
      s++;
      continue;
    }
    for (t = s + 1; t < e && !loaded (d, t); t++)
      ;
    r = pc_pread_all (d->base_fd, d->mem + s * PC_DISK_SECTOR,
                   (t - s) * PC_DISK_SECTOR, s * PC_DISK_SECTOR);
    if (r < 0)
      return r;                 /* the range stays unread: tried again */
    if (!base_unchanged (d))
      return -ESTALE;
    mark_loaded (d, s * PC_DISK_SECTOR, (t - s) * PC_DISK_SECTOR);
    s = t;
  }
  return 0;
}

void
pc_disk_write (struct pc_disk *d, uint64_t off, const void *buf, uint64_t len)
{
  memcpy (d->mem + off, buf, len);
  mark_loaded (d, off, len);
  unlog (d, off, len);
}

void
pc_disk_write_logged (struct pc_disk *d, uint64_t off, uint64_t len, uint64_t log_off)
{
  uint64_t *e = d->logged + off / PC_DISK_SECTOR;

  for (uint64_t i = 0; i < len / PC_DISK_SECTOR; i++)
    e[i] = 1 + log_off + i * PC_DISK_SECTOR;
  mark_loaded (d, off, len);     /* the base is never read for it again */
}

void
pc_disk_zero (struct pc_disk *d, uint64_t off, uint64_t len)
{
  const uint64_t page = 4096;
  uint64_t a = (off + page - 1) & ~(page - 1), b = (off + len) & ~(page - 1);

  /* Whole pages are handed back to the kernel and read as zeros (what came
   * from the base image, too, is a copy in anonymous memory). */
  if (b > a + page) {
    memset (d->mem + off, 0, a - off);
    madvise (d->mem + a, b - a, MADV_DONTNEED);
    memset (d->mem + b, 0, off + len - b);
  }
  else
    memset (d->mem + off, 0, len);
  mark_loaded (d, off, len);
  unlog (d, off, len);
}

const uint8_t *
pc_disk_mem (const struct pc_disk *d, uint64_t off, uint64_t len)
{
  if (d->logged)
    for (uint64_t s = off / PC_DISK_SECTOR; s < (off + len) / PC_DISK_SECTOR; s++)
      if (d->logged[s])
        return NULL;
  return d->mem + off;
}

int
pc_disk_read (struct pc_disk *d, uint64_t off, uint64_t len, void *buf)
{
  uint64_t s = off / PC_DISK_SECTOR, e = (off + len) / PC_DISK_SECTOR;
  uint8_t *out = buf;

  while (s < e) {
    uint64_t first = d->logged ? d->logged[s] : 0, t = s + 1, n;
    int r;

    /* A run from mem, or from one stretch of the log. */
    if (first == 0)
      while (t < e && (d->logged == NULL || d->logged[t] == 0))
        t++;
    else
      while (t < e && d->logged[t] == first + (t - s) * PC_DISK_SECTOR)
        t++;
    n = (t - s) * PC_DISK_SECTOR;
    if (first == 0) {
      r = pc_disk_load (d, s * PC_DISK_SECTOR, n);
      if (r == 0)
        memcpy (out, d->mem + s * PC_DISK_SECTOR, n);
    }
    else
      r = pc_pread_all (d->log_fd, out, n, first - 1);
    if (r < 0)
      return r;
    out += n;
    s = t;
  }
  return 0;
}

void
pc_disk_close (struct pc_disk *d)
{
  if (d->mem)
    munmap (d->mem, d->size);
  if (d->has_base && d->base_fd >= 0)
    close (d->base_fd);
  free (d->loaded);
  if (d->logged)
    munmap (d->logged, d->size / PC_DISK_SECTOR * sizeof *d->logged);
  memset (d, 0, sizeof *d);
  d->base_fd = -1;
  d->log_fd = -1;
}
