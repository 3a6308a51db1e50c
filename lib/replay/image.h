/* image.h: a disk image being rebuilt from a log.
 *
 * The image lives in memory (sparse: untouched pages cost nothing) and can
 * mirror itself into a file (a crash state that e2fsck can read): changes
 * are noted block by block and written to the file by pc_image_sync(), so
 * a state that no program reads costs no file I/O.  It
 * can keep a content signature up to date as it changes: the XOR over its
 * 4 KiB blocks of XXH3-128(block, seed = block number), all-zero blocks
 * counting as zero, so identical images have identical signatures whatever
 * order they were built in, at a cost proportional to the bytes changed.
 *
 * An overlay is a set of changes that can be undone: between
 * pc_image_overlay_begin() and pc_image_overlay_end() every change saves
 * what it overwrites, and the end puts it all back (in memory, and in the
 * file at the next sync).  Overlays nest: an end undoes what was changed
 * since the matching begin.
 */
#ifndef POWERCUT_IMAGE_H
#define POWERCUT_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "format/log.h"

#define PC_IMAGE_BLOCK 4096u
#define PC_IMAGE_OVERLAY_MAX 4

struct pc_image;

#define PC_IMAGE_HASH          (1u << 0)   /* maintain the signature */
#define PC_IMAGE_KEEP_TRIMMED  (1u << 1)   /* trims leave old data in place */

/* Creates an image of size bytes, zeroed or a copy of base (size bytes).
 * fd >= 0: the file mirrors the image (it is sized and filled now, and
 * brought up to date by each pc_image_sync()).  Returns 0 or -errno. */
int pc_image_new (uint64_t size, const void *base, int fd, unsigned flags,
                  struct pc_image **ret_im);

/* The same, told by nonzero (a bit per PC_IMAGE_BLOCK of base, set where
 * the block is not all zeros: disk.h's pc_image_read_map) which blocks to
 * copy, so that base's zeros are never read (each read of an untouched
 * page of it would fault it in); NULL: found by reading base. */
int pc_image_new_map (uint64_t size, const void *base, const uint64_t *nonzero, int fd,
                      unsigned flags, struct pc_image **ret_im);
void pc_image_free (struct pc_image *im);

/* Applies a WRITE, TRIM or WRITE_ZEROES record (others are no-ops).  With
 * sectors != NULL only the record's sectors i with sectors[i] != 0 are
 * applied (sector size: the log's).  Returns 0 or -errno (file I/O). */
int pc_image_apply (struct pc_image *im, const struct pc_record *r,
                    uint32_t sector, const uint8_t *sectors);

/* Writes len bytes of data at off (in the overlay, if one is open).
 * Returns 0, -EINVAL (beyond the end) or -ENOMEM. */
int pc_image_write (struct pc_image *im, uint64_t off, const void *data, uint64_t len);

/* begin returns 0, or -EBUSY with PC_IMAGE_OVERLAY_MAX already open; end
 * (a no-op with none open) returns 0 or -ENOMEM. */
int pc_image_overlay_begin (struct pc_image *im);
int pc_image_overlay_end (struct pc_image *im);
/* Ends the innermost overlay keeping its changes: the enclosing overlay
 * (if any) undoes them with its own. */
int pc_image_overlay_merge (struct pc_image *im);
unsigned pc_image_overlay_depth (const struct pc_image *im);

/* Writes every block changed since the last sync to the mirror file (a
 * no-op without one).  Returns 0 or -errno; what failed is tried again by
 * the next sync. */
int pc_image_sync (struct pc_image *im);

/* The current signature (PC_IMAGE_HASH), 16 bytes. */
void pc_image_signature (const struct pc_image *im, uint8_t sig[16]);

/* The bytes of the image (read-only view). */
const uint8_t *pc_image_data (const struct pc_image *im);
uint64_t pc_image_size (const struct pc_image *im);

/* Writes the image as it is now into the empty file fd, sparse: its size,
 * and every block that is not all zeros (those stay holes).  For a copy of
 * a state that another program may change (the kernel, replaying its
 * journal), which the image, its overlays and its mirror file must never
 * see.  Returns 0 or -errno. */
int pc_image_copy_sparse (const struct pc_image *im, int fd);

/* The hash of block b (PC_IMAGE_HASH): 16 bytes, all zero for a block of
 * zeros, equal for equal content at the same block number; NULL without
 * PC_IMAGE_HASH or beyond the end.  Valid until the next change. */
const void *pc_image_block_hash (const struct pc_image *im, uint64_t b);

/* The hashes of blocks first .. first+count-1, one after another (16
 * bytes each), or NULL as above. */
const void *pc_image_block_hashes (const struct pc_image *im, uint64_t first, uint64_t count);

#endif
