/* disk.h: the device image a recorder serves: sparse anonymous memory, alone
 * or over a base image that is read on demand and never written, and the
 * sectors whose content is already in a log file, read back from there. */
#ifndef POWERCUT_DISK_H
#define POWERCUT_DISK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define PC_DISK_MAX_SIZE (UINT64_C(1) << 46)

#define PC_DISK_SECTOR 512

struct pc_disk {
  uint8_t *mem;
  uint64_t size;
  bool has_base;
  uint8_t basehash[16];     /* XXH128 of the base image */
  int base_fd;              /* the base image, or -1 */
  struct timespec base_mtime, base_ctime;   /* as hashed: it must not change */
  uint64_t *loaded;         /* with a base: one bit per sector whose current
                             * content is in mem (read, written or zeroed) */
  int log_fd;               /* with pc_disk_use_log: the file, or -1 */
  uint64_t *logged;         /* ...and per sector, 0 or 1 + the offset in it
                             * of the sector's current content */
};

/* Creates a zeroed disk of size bytes (untouched pages cost no memory).
 * Returns 0 or -errno. */
int pc_disk_open_zero (struct pc_disk *d, uint64_t size);

/* Opens a disk over the base image at path: its size becomes the disk size
 * and its content hash is computed by reading it once, now (so an image
 * that cannot be read is an error here), unless this process read it
 * already and it is unchanged (pc_image_remember).  Its all-zero parts cost nothing;
 * the rest is read again, a sector range at a time, when first needed by
 * pc_disk_load.  Returns 0 or -errno (-EINVAL: empty image, or its size is
 * not a multiple of PC_DISK_SECTOR). */
int pc_disk_open_base (struct pc_disk *d, const char *path);

/* Makes mem hold the current content of [off, off + len), reading from the
 * base image what neither a write nor an earlier read has brought in.
 * Returns 0 or -errno (the image's read error, -EIO if it got shorter,
 * -ESTALE if it was changed since it was hashed: what it holds now is not
 * what the log says the recording started from); what failed stays unread
 * and is tried again next time. */
int pc_disk_load (struct pc_disk *d, uint64_t off, uint64_t len);

/* Reads the image at path whole into new anonymous memory (all-zero parts
 * stay untouched, so a sparse image stays cheap), with its XXH128.  An I/O
 * error is returned (-EIO), never met later as a fault.  expect_size, if
 * not 0, is the size it must have; sector, if not 0, must divide it.
 * Returns 0 or -errno; free the memory with pc_image_unmap(). */
int pc_image_read (const char *path, uint64_t expect_size, uint32_t sector,
                   uint8_t **ret_mem, uint64_t *ret_size, uint8_t hash[16]);
void pc_image_unmap (uint8_t *mem, uint64_t size);

/* The blocks of PC_IMAGE_MAP_BLOCK bytes of an image read, as bits. */
#define PC_IMAGE_MAP_BLOCK 4096u

/* pc_image_read, and into *ret_nonzero (malloc'd; free it) a bit per
 * PC_IMAGE_MAP_BLOCK bytes of the image, set where they are not all
 * zeros: what a copy of the image must take (image.h's
 * pc_image_new_map), found while it was read, without reading the zeros
 * again. */
int pc_image_read_map (const char *path, uint64_t expect_size, uint32_t sector,
                       uint8_t **ret_mem, uint64_t *ret_size, uint8_t hash[16],
                       uint64_t **ret_nonzero);

/* Reads the image at path once, so that this process, and the children
 * it forks after, find its hash and its zero parts without reading it
 * again (pc_disk_open_base, pc_image_read) while it stays unchanged (the
 * same file, size, mtime and ctime).  The last 8 images are kept.
 * Returns 0 or -errno. */
int pc_image_remember (const char *path);

/* Lets pc_disk_write_logged name content in fd, a file open for reading
 * that keeps what it has been told of (a log only grows or is cut back past
 * what it no longer holds).  The disk's memory no longer receives such
 * writes: a recording costs the page cache of its log, not that and a copy.
 * Returns 0 or -ENOMEM. */
int pc_disk_use_log (struct pc_disk *d, int fd);

/* Range operations; the caller has checked the range, which is in whole
 * sectors.  pc_disk_write copies buf in; pc_disk_write_logged records that
 * the range's content is now the len bytes at log_off in the log file (no
 * copy; pc_disk_use_log first). */
void pc_disk_write (struct pc_disk *d, uint64_t off, const void *buf, uint64_t len);
void pc_disk_write_logged (struct pc_disk *d, uint64_t off, uint64_t len, uint64_t log_off);
void pc_disk_zero (struct pc_disk *d, uint64_t off, uint64_t len);

/* Reading a range: pc_disk_mem returns where mem holds it whole, after
 * pc_disk_load, or NULL if part of it is in the log; pc_disk_read copies it
 * into buf from wherever it is.  Returns 0 or -errno (of the base image, as
 * pc_disk_load, or of the log file; -EIO if it is shorter than it was). */
const uint8_t *pc_disk_mem (const struct pc_disk *d, uint64_t off, uint64_t len);
int pc_disk_read (struct pc_disk *d, uint64_t off, uint64_t len, void *buf);

void pc_disk_close (struct pc_disk *d);

#endif
