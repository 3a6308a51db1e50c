/* image.h: a disk image being rebuilt from a log.
 *
 * The image lives in memory (sparse: untouched pages cost nothing) and can
 * mirror every change into a file (a crash state that e2fsck can read).  It
 * can keep a content signature up to date as it changes: the XOR over its
 * 4 KiB blocks of XXH3-128(block, seed = block number), all-zero blocks
 * counting as zero, so identical images have identical signatures whatever
 * order they were built in, at a cost proportional to the bytes changed.
 *
 * An overlay is a set of changes that can be undone: between
 * pc_image_overlay_begin() and pc_image_overlay_end() every change saves
 * what it overwrites, and the end puts it all back (in memory and file).
 */
#ifndef POWERCUT_IMAGE_H
#define POWERCUT_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "log.h"

#define PC_IMAGE_BLOCK 4096u

struct pc_image;

#define PC_IMAGE_HASH          (1u << 0)   /* maintain the signature */
#define PC_IMAGE_KEEP_TRIMMED  (1u << 1)   /* trims leave old data in place */

/* Creates an image of size bytes, zeroed or a copy of base (size bytes).
 * fd >= 0: the file mirrors the image (it is sized and filled now).
 * Returns 0 or -errno. */
int pc_image_new (uint64_t size, const void *base, int fd, unsigned flags,
                  struct pc_image **ret_im);
void pc_image_free (struct pc_image *im);

/* Applies a WRITE, TRIM or WRITE_ZEROES record (others are no-ops).  With
 * sectors != NULL only the record's sectors i with sectors[i] != 0 are
 * applied (sector size: the log's).  Returns 0 or -errno (file I/O). */
int pc_image_apply (struct pc_image *im, const struct pc_record *r,
                    uint32_t sector, const uint8_t *sectors);

int pc_image_overlay_begin (struct pc_image *im);
int pc_image_overlay_end (struct pc_image *im);

/* The current signature (PC_IMAGE_HASH), 16 bytes. */
void pc_image_signature (const struct pc_image *im, uint8_t sig[16]);

/* The bytes of the image (read-only view). */
const uint8_t *pc_image_data (const struct pc_image *im);
uint64_t pc_image_size (const struct pc_image *im);

/* Re-reads the mirror file's blocks over [off, off+len) from memory: used
 * after an external program changed the file. Returns 0 or -errno. */
int pc_image_rewrite (struct pc_image *im, uint64_t off, uint64_t len);

#endif
