/* disk.c: in-memory device images for the recorder. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "disk.h"

int
pc_disk_open_zero (struct pc_disk *d, uint64_t size)
{
  void *m;

  memset (d, 0, sizeof *d);
  if (size == 0 || size > PC_DISK_MAX_SIZE)
    return -EINVAL;
  m = mmap (NULL, size, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return -errno;
  d->mem = m;
  d->size = size;
  return 0;
}

int
pc_disk_open_base (struct pc_disk *d, const char *path, uint32_t sector)
{
  struct stat st;
  void *m;
  int fd, r;

  memset (d, 0, sizeof *d);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (fstat (fd, &st) < 0) {
    r = -errno;
    close (fd);
    return r;
  }
  if (S_ISBLK (st.st_mode) || !S_ISREG (st.st_mode) || st.st_size == 0 ||
      st.st_size % sector != 0) {
    close (fd);
    return S_ISDIR (st.st_mode) ? -EISDIR : -EINVAL;
  }
  m = mmap (NULL, (size_t) st.st_size, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_NORESERVE, fd, 0);
  r = -errno;
  close (fd);
  if (m == MAP_FAILED)
    return r;
  d->mem = m;
  d->size = (uint64_t) st.st_size;
  d->has_base = true;
  XXH128_canonicalFromHash ((XXH128_canonical_t *) d->basehash,
                            XXH3_128bits (d->mem, d->size));
  return 0;
}

void
pc_disk_write (struct pc_disk *d, uint64_t off, const void *buf, uint64_t len)
{
  memcpy (d->mem + off, buf, len);
}

void
pc_disk_zero (struct pc_disk *d, uint64_t off, uint64_t len)
{
  const uint64_t page = 4096;
  uint64_t a = (off + page - 1) & ~(page - 1), b = (off + len) & ~(page - 1);

  /* Whole anonymous pages are handed back to the kernel and read as zeros. */
  if (!d->has_base && b > a + page) {
    memset (d->mem + off, 0, a - off);
    madvise (d->mem + a, b - a, MADV_DONTNEED);
    memset (d->mem + b, 0, off + len - b);
  }
  else
    memset (d->mem + off, 0, len);
}

void
pc_disk_close (struct pc_disk *d)
{
  if (d->mem)
    munmap (d->mem, d->size);
  memset (d, 0, sizeof *d);
}
