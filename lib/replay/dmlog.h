/* dmlog.h: interchange with the Linux dm-log-writes format.
 *
 * dm-log-writes (and qemu's blklogwrites) write one log device: sector 0
 * holds a super block (u64 magic 0x6a736677736872, u64 version 1, u64 number
 * of entries, u32 sector size), then each entry takes one sector (u64
 * sector, u64 number of sectors, u64 flags, u64 data length, then a mark's
 * name) followed by its data sectors.  Flags: FLUSH 1, FUA 2, DISCARD 4,
 * MARK 8.  xfstests' replay-log replays such a log onto a device.
 *
 * Export: WRITE becomes a write entry (FUA kept), TRIM a discard entry,
 * WRITE_ZEROES a write of zeros, FLUSH a flush entry, MARK a mark entry with
 * the mark's name (its manifest has no place there), END nothing.
 * Import: the reverse; entries are numbered as records in log order, and a
 * mark name is made a valid powercut mark name (other bytes become '_').
 */
#ifndef POWERCUT_DMLOG_H
#define POWERCUT_DMLOG_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PC_DMLOG_MAGIC   UINT64_C(0x6a736677736872)
#define PC_DMLOG_VERSION 1
#define PC_DMLOG_FLUSH   (1u << 0)
#define PC_DMLOG_FUA     (1u << 1)
#define PC_DMLOG_DISCARD (1u << 2)
#define PC_DMLOG_MARK    (1u << 3)

/* Writes the powercut log at in as a dm-log-writes log at out, which is
 * synced if it is a regular file or a block device (a pipe, a character
 * device or a socket is written, not synced).  Returns 0 or -errno with a
 * one-line reason in why (naming the step that failed: write, fsync...). */
int pc_dmlog_export (const char *in, const char *out, struct pc_err *why);

/* Reads the dm-log-writes log at in and writes a powercut log at out (synced
 * as by pc_dmlog_export), for a device of size bytes (0: the end of the last
 * entry, rounded up to 1 MiB).  Returns 0 or -errno with a one-line reason
 * in why. */
int pc_dmlog_import (const char *in, const char *out, uint64_t size, struct pc_err *why);

#endif
