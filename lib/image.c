/* image.c: in-memory disk images rebuilt from a log, with signatures,
 * a mirror file and undoable overlays. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xxhash.h>

#include "image.h"

struct undo {
  uint64_t off;
  uint64_t len;
  uint8_t *old;
};

struct pc_image {
  uint8_t *mem;
  uint64_t size;
  int fd;
  unsigned flags;
  XXH128_hash_t *bh;          /* per-block hash (zero for a zero block) */
  XXH128_hash_t sig;
  bool overlay;
  struct undo *undo;
  size_t nundo, capundo;
};

static const uint8_t zero_block[PC_IMAGE_BLOCK];

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

static int
mirror (struct pc_image *im, uint64_t off, uint64_t len)
{
  while (im->fd >= 0 && len > 0) {
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

int
pc_image_new (uint64_t size, const void *base, int fd, unsigned flags,
              struct pc_image **ret_im)
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
  m = mmap (NULL, size, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    free (im);
    return -errno;
  }
  im->mem = m;
  if (flags & PC_IMAGE_HASH) {
    uint64_t nb = (size + PC_IMAGE_BLOCK - 1) / PC_IMAGE_BLOCK;
    im->bh = calloc (nb, sizeof *im->bh);
    if (im->bh == NULL) {
      pc_image_free (im);
      return -ENOMEM;
    }
  }
  if (base) {
    memcpy (im->mem, base, size);
    rehash (im, 0, size);
  }
  if (fd >= 0) {
    if (ftruncate (fd, 0) < 0 || ftruncate (fd, (off_t) size) < 0) {
      r = -errno;
      pc_image_free (im);
      return r;
    }
    if (base && (r = mirror (im, 0, size)) < 0) {
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
  if (im->mem)
    munmap (im->mem, im->size);
  free (im);
}

/* Saves what [off, off+len) holds before an overlay change. */
static int
save (struct pc_image *im, uint64_t off, uint64_t len)
{
  struct undo *u;

  if (!im->overlay)
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

static int
change (struct pc_image *im, uint64_t off, uint64_t len, const uint8_t *data)
{
  int r = save (im, off, len);

  if (r < 0)
    return r;
  if (data)
    memcpy (im->mem + off, data, len);
  else
    memset (im->mem + off, 0, len);
  rehash (im, off, len);
  return mirror (im, off, len);
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
  if (im->overlay)
    return -EBUSY;
  im->overlay = true;
  return 0;
}

int
pc_image_overlay_end (struct pc_image *im)
{
  int r = 0;

  im->overlay = false;
  while (im->nundo > 0) {
    struct undo *u = &im->undo[--im->nundo];
    memcpy (im->mem + u->off, u->old, u->len);
    rehash (im, u->off, u->len);
    if (r == 0)
      r = mirror (im, u->off, u->len);
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

int
pc_image_rewrite (struct pc_image *im, uint64_t off, uint64_t len)
{
  if (off > im->size)
    return -EINVAL;
  if (len > im->size - off)
    len = im->size - off;
  return mirror (im, off, len);
}
