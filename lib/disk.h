/* disk.h: the device image a recorder serves: sparse anonymous memory, or a
 * private copy-on-write mapping of a base image (the image is never written). */
#ifndef POWERCUT_DISK_H
#define POWERCUT_DISK_H

#include <stdbool.h>
#include <stdint.h>

#define PC_DISK_MAX_SIZE (UINT64_C(1) << 46)

struct pc_disk {
  uint8_t *mem;
  uint64_t size;
  bool has_base;
  uint8_t basehash[16];     /* XXH128 of the base image */
};

/* Creates a zeroed disk of size bytes (untouched pages cost no memory).
 * Returns 0 or -errno. */
int pc_disk_open_zero (struct pc_disk *d, uint64_t size);

/* Maps the base image privately; its size becomes the disk size and its
 * content hash is computed.  Returns 0 or -errno (-EINVAL: empty image, or
 * its size is not a multiple of sector). */
int pc_disk_open_base (struct pc_disk *d, const char *path, uint32_t sector);

/* Range operations; the caller has checked the range. */
void pc_disk_write (struct pc_disk *d, uint64_t off, const void *buf, uint64_t len);
void pc_disk_zero (struct pc_disk *d, uint64_t off, uint64_t len);

void pc_disk_close (struct pc_disk *d);

#endif
