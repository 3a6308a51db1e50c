/* image.c: in-memory disk images rebuilt from a log, with signatures,
 * a mirror file and undoable overlays. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/image.h"
#include "util/disk.h"
#include "util/util.h"
#include "util/xxh.h"

struct undo {
  uint64_t off;
  uint64_t len;
  uint8_t *old;
};

struct pc_image {
  uint8_t *mem;
  uint64_t size;
  uint64_t nblocks;
  int fd;
  unsigned flags;
  XXH128_hash_t *bh;          /* per-block hash (zero for a zero block) */
  XXH128_hash_t sig;
  unsigned depth;             /* overlays open */
  size_t begin[PC_IMAGE_OVERLAY_MAX];   /* where each began in undo */
  struct undo *undo;
  size_t nundo, capundo;
  uint64_t *dirty;            /* one bit per block the file does not have yet */
  uint64_t *dlist;            /* those blocks, in the order they changed */
  size_t ndirty, capdirty;
};

static const uint8_t zero_block[PC_IMAGE_BLOCK];
_Static_assert (PC_IMAGE_BLOCK == PC_IMAGE_MAP_BLOCK, "a base's map is of image blocks");

static XXH128_hash_t
block_hash (const struct pc_image *im, uint64_t b)
{
  uint64_t off = b * PC_IMAGE_BLOCK;
  size_t len = off + PC_IMAGE_BLOCK <= im->size ? PC_IMAGE_BLOCK : (size_t) (im->size - off);
  XXH128_hash_t z = { 0, 0 };

  if (memcmp (im->mem + off, zero_block, len) == 0)
    return z;
  return XXH3_128bits_withSeed (im->mem + off, len, b);
}

static void
rehash (struct pc_image *im, uint64_t off, uint64_t len)
{
  if (!(im->flags & PC_IMAGE_HASH) || len == 0)
    return;
  for (uint64_t b = off / PC_IMAGE_BLOCK; b <= (off + len - 1) / PC_IMAGE_BLOCK; b++) {
    XXH128_hash_t h = block_hash (im, b);
    im->sig.low64 ^= im->bh[b].low64 ^ h.low64;
    im->sig.high64 ^= im->bh[b].high64 ^ h.high64;
    im->bh[b] = h;
  }
}

/* Writes [off, off+len) of memory to the file. */
static int
write_range (struct pc_image *im, uint64_t off, uint64_t len)
{
  while (len > 0) {
    ssize_t n = pwrite (im->fd, im->mem + off, len, (off_t) off);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    off += (uint64_t) n;
    len -= (uint64_t) n;
  }
  return 0;
}

/* Notes that the file lacks the blocks of [off, off+len). */
static int
mark_dirty (struct pc_image *im, uint64_t off, uint64_t len)
{
  if (im->fd < 0 || len == 0)
    return 0;
  for (uint64_t b = off / PC_IMAGE_BLOCK; b <= (off + len - 1) / PC_IMAGE_BLOCK; b++) {
    uint64_t bit = UINT64_C(1) << (b % 64);
    if (im->dirty[b / 64] & bit)
      continue;
    if (pc_grow (&im->dlist, &im->capdirty, im->ndirty + 1, sizeof *im->dlist, 1024) < 0)
      return -ENOMEM;
    im->dirty[b / 64] |= bit;
    im->dlist[im->ndirty++] = b;
  }
  return 0;
}

static bool
block_is_zero (const struct pc_image *im, uint64_t b)
{
  uint64_t off = b * PC_IMAGE_BLOCK;
  size_t len = off + PC_IMAGE_BLOCK <= im->size ? PC_IMAGE_BLOCK : (size_t) (im->size - off);

  if (im->bh)
    return im->bh[b].low64 == 0 && im->bh[b].high64 == 0;
  return memcmp (im->mem + off, zero_block, len) == 0;
}

/* Writes blocks [first, last] to the file: holes where they are zeros. */
static int
write_blocks (struct pc_image *im, uint64_t first, uint64_t last)
{
  for (uint64_t b = first; b <= last;) {
    bool zero = block_is_zero (im, b);
    uint64_t e = b + 1, off = b * PC_IMAGE_BLOCK, end;
    int r;
    while (e <= last && block_is_zero (im, e) == zero)
      e++;
    end = e * PC_IMAGE_BLOCK < im->size ? e * PC_IMAGE_BLOCK : im->size;
    if (zero && fallocate (im->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                           (off_t) off, (off_t) (end - off)) == 0)
      r = 0;
    else
      r = write_range (im, off, end - off);
    if (r < 0)
      return r;
    b = e;
  }
  return 0;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

int
pc_image_sync (struct pc_image *im)
{
  int r = 0;

  if (im->fd < 0 || im->ndirty == 0)
    return 0;
  qsort (im->dlist, im->ndirty, sizeof *im->dlist, cmp_u64);
  for (size_t i = 0; i < im->ndirty && r == 0;) {
    size_t j = i + 1;
    while (j < im->ndirty && im->dlist[j] == im->dlist[j - 1] + 1)
      j++;
    r = write_blocks (im, im->dlist[i], im->dlist[j - 1]);
    i = j;
  }
  if (r < 0)
    return r;           /* the blocks stay listed: a later sync tries again */
  for (size_t i = 0; i < im->ndirty; i++)
    im->dirty[im->dlist[i] / 64] = 0;
  im->ndirty = 0;
  return 0;
}

int
pc_image_new (uint64_t size, const void *base, int fd, unsigned flags,
              struct pc_image **ret_im)
{
  return pc_image_new_map (size, base, NULL, fd, flags, ret_im);
}

int
pc_image_new_map (uint64_t size, const void *base, const uint64_t *nonzero, int fd,
                  unsigned flags, struct pc_image **ret_im)
{
  struct pc_image *im;
  void *m;
  int r;

  if (size == 0)
    return -EINVAL;
  im = calloc (1, sizeof *im);
  if (im == NULL)
    return -ENOMEM;
  im->fd = fd;
  im->flags = flags;
  im->size = size;
  im->nblocks = (size + PC_IMAGE_BLOCK - 1) / PC_IMAGE_BLOCK;
  m = mmap (NULL, size, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    free (im);
    return -errno;
  }
  im->mem = m;
  if (flags & PC_IMAGE_HASH) {
    im->bh = calloc (im->nblocks, sizeof *im->bh);
    if (im->bh == NULL) {
      pc_image_free (im);
      return -ENOMEM;
    }
  }
  if (fd >= 0) {
    im->dirty = calloc ((im->nblocks + 63) / 64, sizeof *im->dirty);
    if (im->dirty == NULL) {
      pc_image_free (im);
      return -ENOMEM;
    }
  }
  if (fd >= 0 && (ftruncate (fd, 0) < 0 || ftruncate (fd, (off_t) size) < 0)) {
    r = -errno;
    pc_image_free (im);
    return r;
  }
  /* The mapping and the file read as zeros: only the base's other blocks
   * are copied, hashed and written, so that the pages of its zeros are
   * never touched (a read of one would fault it in). */
  for (uint64_t off = 0, b = 0; base && off < size; off += PC_IMAGE_BLOCK, b++) {
    size_t len = off + PC_IMAGE_BLOCK <= size ? PC_IMAGE_BLOCK : (size_t) (size - off);
    if (nonzero) {
      /* the map says: whole words of zero blocks skipped at once */
      if (b % 64 == 0 && nonzero[b / 64] == 0 && off + 64 * PC_IMAGE_BLOCK <= size) {
        off += 63 * PC_IMAGE_BLOCK;
        b += 63;
        continue;
      }
      if (!(nonzero[b / 64] & (UINT64_C(1) << (b % 64))))
        continue;
    }
    else if (memcmp ((const uint8_t *) base + off, zero_block, len) == 0)
      continue;
    memcpy (im->mem + off, (const uint8_t *) base + off, len);
    rehash (im, off, len);
    if (fd >= 0 && (r = write_range (im, off, len)) < 0) {
      pc_image_free (im);
      return r;
    }
  }
  *ret_im = im;
  return 0;
}

void
pc_image_free (struct pc_image *im)
{
  if (im == NULL)
    return;
  for (size_t i = 0; i < im->nundo; i++)
    free (im->undo[i].old);
  free (im->undo);
  free (im->bh);
  free (im->dirty);
  free (im->dlist);
  if (im->mem)
    munmap (im->mem, im->size);
  free (im);
}

/* Saves what [off, off+len) holds before an overlay change. */
static int
save (struct pc_image *im, uint64_t off, uint64_t len)
{
  struct undo *u;

  if (im->depth == 0)
    return 0;
  if (im->nundo == im->capundo) {
    size_t ncap = im->capundo ? im->capundo * 2 : 16;
    u = realloc (im->undo, ncap * sizeof *u);
    if (u == NULL)
      return -ENOMEM;
    im->undo = u;
    im->capundo = ncap;
  }
  u = &im->undo[im->nundo];
  u->old = malloc (len);
  if (u->old == NULL)
    return -ENOMEM;
  memcpy (u->old, im->mem + off, len);
  u->off = off;
  u->len = len;
  im->nundo++;
  return 0;
}

/* Zeroes [off, off+len): whole pages are given back (they read as zeros
 * again, and a trim of the whole device costs no memory). */
static void
zero_range (struct pc_image *im, uint64_t off, uint64_t len)
{
  uint64_t a = (off + PC_IMAGE_BLOCK - 1) / PC_IMAGE_BLOCK * PC_IMAGE_BLOCK;
  uint64_t b = (off + len) / PC_IMAGE_BLOCK * PC_IMAGE_BLOCK;

  if (b <= a || b - a < 16 * PC_IMAGE_BLOCK ||
      madvise (im->mem + a, b - a, MADV_DONTNEED) < 0) {
    memset (im->mem + off, 0, len);
    return;
  }
  memset (im->mem + off, 0, a - off);
  memset (im->mem + b, 0, off + len - b);
}

/* rehash() after zero_range(): whole blocks hash to zero unread. */
static void
rehash_zero (struct pc_image *im, uint64_t off, uint64_t len)
{
  uint64_t a = (off + PC_IMAGE_BLOCK - 1) / PC_IMAGE_BLOCK;
  uint64_t b = (off + len) / PC_IMAGE_BLOCK;

  if (!(im->flags & PC_IMAGE_HASH) || len == 0)
    return;
  if (off + len == im->size)
    b = im->nblocks;            /* a short last block is whole too */
  if (b <= a) {
    rehash (im, off, len);
    return;
  }
  if (off < a * PC_IMAGE_BLOCK)
    rehash (im, off, a * PC_IMAGE_BLOCK - off);
  for (uint64_t k = a; k < b; k++)
    if (im->bh[k].low64 | im->bh[k].high64) {   /* (untouched pages stay so) */
      im->sig.low64 ^= im->bh[k].low64;
      im->sig.high64 ^= im->bh[k].high64;
      im->bh[k].low64 = im->bh[k].high64 = 0;
    }
  if (b * PC_IMAGE_BLOCK < off + len)
    rehash (im, b * PC_IMAGE_BLOCK, off + len - b * PC_IMAGE_BLOCK);
}

static int
change (struct pc_image *im, uint64_t off, uint64_t len, const uint8_t *data)
{
  int r = save (im, off, len);

  if (r < 0)
    return r;
  if (data) {
    memcpy (im->mem + off, data, len);
    rehash (im, off, len);
  }
  else {
    zero_range (im, off, len);
    rehash_zero (im, off, len);
  }
  return mark_dirty (im, off, len);
}

int
pc_image_write (struct pc_image *im, uint64_t off, const void *data, uint64_t len)
{
  if (off > im->size || len > im->size - off)
    return -EINVAL;
  return change (im, off, len, data);
}

int
pc_image_apply (struct pc_image *im, const struct pc_record *r,
                uint32_t sector, const uint8_t *sectors)
{
  const uint8_t *data;
  int ret = 0;

  switch (r->type) {
  case PC_REC_WRITE:
    data = r->data;
    break;
  case PC_REC_TRIM:
    if (im->flags & PC_IMAGE_KEEP_TRIMMED)
      return 0;
    data = NULL;
    break;
  case PC_REC_WRITE_ZEROES:
    data = NULL;
    break;
  default:
    return 0;
  }
  if (r->offset > im->size || r->length > im->size - r->offset)
    return -EINVAL;
  if (sectors == NULL)
    return change (im, r->offset, r->length, data);
  /* Apply runs of kept sectors. */
  for (uint32_t i = 0, n = r->length / sector; i < n && ret == 0;) {
    uint32_t j = i;
    if (!sectors[i]) {
      i++;
      continue;
    }
    while (j < n && sectors[j])
      j++;
    ret = change (im, r->offset + (uint64_t) i * sector, (uint64_t) (j - i) * sector,
                  data ? data + (size_t) i * sector : NULL);
    i = j;
  }
  return ret;
}

int
pc_image_overlay_begin (struct pc_image *im)
{
  if (im->depth == PC_IMAGE_OVERLAY_MAX)
    return -EBUSY;
  im->begin[im->depth++] = im->nundo;
  return 0;
}

int
pc_image_overlay_end (struct pc_image *im)
{
  size_t stop;
  int r = 0;

  if (im->depth == 0)
    return 0;
  stop = im->begin[--im->depth];
  while (im->nundo > stop) {
    struct undo *u = &im->undo[--im->nundo];
    memcpy (im->mem + u->off, u->old, u->len);
    rehash (im, u->off, u->len);
    if (r == 0)
      r = mark_dirty (im, u->off, u->len);
    free (u->old);
  }
  return r;
}

void
pc_image_signature (const struct pc_image *im, uint8_t sig[16])
{
  XXH128_canonicalFromHash ((XXH128_canonical_t *) sig, im->sig);
}

const uint8_t *
pc_image_data (const struct pc_image *im)
{
  return im->mem;
}

uint64_t
pc_image_size (const struct pc_image *im)
{
  return im->size;
}

/* Is block b of im all zeros (by its hash, where the image keeps them)? */
static bool
block_zero (const struct pc_image *im, uint64_t b)
{
  static const uint8_t zero[16];
  uint64_t off = b * PC_IMAGE_BLOCK, n = im->size - off < PC_IMAGE_BLOCK ? im->size - off
                                                                       : PC_IMAGE_BLOCK;

  if (im->bh)
    return memcmp (&im->bh[b], zero, sizeof zero) == 0;
  return im->mem[off] == 0 && memcmp (im->mem + off, im->mem + off + 1, n - 1) == 0;
}

int
pc_image_copy_sparse (const struct pc_image *im, int fd)
{
  uint64_t nb = (im->size + PC_IMAGE_BLOCK - 1) / PC_IMAGE_BLOCK;

  if (ftruncate (fd, (off_t) im->size) < 0)
    return -errno;
  for (uint64_t b = 0; b < nb;) {
    uint64_t e, off, len;
    if (block_zero (im, b)) {
      b++;
      continue;
    }
    for (e = b + 1; e < nb && !block_zero (im, e); e++)
      ;
    off = b * PC_IMAGE_BLOCK;
    len = (e * PC_IMAGE_BLOCK < im->size ? e * PC_IMAGE_BLOCK : im->size) - off;
    while (len > 0) {
      ssize_t w = pwrite (fd, im->mem + off, len, (off_t) off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return w < 0 ? -errno : -EIO;
      off += (uint64_t) w;
      len -= (uint64_t) w;
    }
    b = e;
  }
  return 0;
}

const void *
pc_image_block_hash (const struct pc_image *im, uint64_t b)
{
  return im->bh && b < im->nblocks ? &im->bh[b] : NULL;
}

const void *
pc_image_block_hashes (const struct pc_image *im, uint64_t first, uint64_t count)
{
  return im->bh && first < im->nblocks && count <= im->nblocks - first ? &im->bh[first] : NULL;
}

int
pc_image_overlay_merge (struct pc_image *im)
{
  size_t stop;

  if (im->depth == 0)
    return 0;
  stop = im->begin[--im->depth];
  if (im->depth == 0) {
    /* No overlay is left to undo them: the changes stay. */
    while (im->nundo > stop)
      free (im->undo[--im->nundo].old);
  }
  return 0;
}

unsigned
pc_image_overlay_depth (const struct pc_image *im)
{
  return im->depth;
}
