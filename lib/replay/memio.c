/* memio.c: an io_manager over a range of memory. */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/memio.h"

#define MEMIO_MAGIC 0x706d696fL       /* checked on every call, as e2fsprogs does */

struct memio {
  long magic;
  const uint8_t *mem;
  uint64_t size;
};

static struct struct_io_manager memio_manager;

static errcode_t
memio_open (const char *name, int flags, io_channel *ret)
{
  struct memio *m = NULL;
  io_channel io = NULL;
  void *mem;
  unsigned long long size;

  if (flags & IO_FLAG_RW)
    return EROFS;
  if (sscanf (name, "pc-memio:%p:%llu", &mem, &size) != 2)
    return EXT2_ET_BAD_DEVICE_NAME;
  io = calloc (1, sizeof *io);
  m = calloc (1, sizeof *m);
  if (io == NULL || m == NULL || (io->name = strdup (name)) == NULL) {
    free (io);
    free (m);
    return EXT2_ET_NO_MEMORY;
  }
  m->magic = MEMIO_MAGIC;
  m->mem = mem;
  m->size = size;
  io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
  io->manager = &memio_manager;
  io->block_size = 1024;
  io->refcount = 1;
  io->private_data = m;
  *ret = io;
  return 0;
}

static struct memio *
priv (io_channel io)
{
  struct memio *m = io->private_data;

  return m && m->magic == MEMIO_MAGIC ? m : NULL;
}

static errcode_t
memio_close (io_channel io)
{
  if (--io->refcount > 0)
    return 0;
  free (io->private_data);
  free (io->name);
  free (io);
  return 0;
}

static errcode_t
memio_set_blksize (io_channel io, int blksize)
{
  if (blksize <= 0)
    return EINVAL;
  io->block_size = blksize;
  return 0;
}

static errcode_t
memio_read_blk64 (io_channel io, unsigned long long block, int count, void *buf)
{
  struct memio *m = priv (io);
  uint64_t len = count < 0 ? (uint64_t) -(int64_t) count
                           : (uint64_t) count * (uint64_t) io->block_size;
  uint64_t off = block * (uint64_t) io->block_size, have;

  if (m == NULL)
    return EXT2_ET_MAGIC_IO_CHANNEL;
  if ((int64_t) off < 0) {
    /* unix_io's offset is signed: its seek there fails with EINVAL */
    memset (buf, 0, len);
    return EINVAL;
  }
  if (io->block_size && block > m->size / (uint64_t) io->block_size)
    off = m->size;              /* beyond the end (and no overflow) */
  have = off < m->size ? m->size - off : 0;
  if (have > len)
    have = len;
  memcpy (buf, m->mem + off, have);
  if (have < len) {
    memset ((uint8_t *) buf + have, 0, len - have);
    return EXT2_ET_SHORT_READ;
  }
  return 0;
}

static errcode_t
memio_read_blk (io_channel io, unsigned long block, int count, void *buf)
{
  return memio_read_blk64 (io, block, count, buf);
}

static errcode_t
memio_write_blk64 (io_channel io, unsigned long long block, int count, const void *buf)
{
  (void) io; (void) block; (void) count; (void) buf;
  return EROFS;
}

static errcode_t
memio_write_blk (io_channel io, unsigned long block, int count, const void *buf)
{
  return memio_write_blk64 (io, block, count, buf);
}

static errcode_t
memio_flush (io_channel io)
{
  (void) io;
  return 0;
}

static struct struct_io_manager memio_manager = {
  .magic = EXT2_ET_MAGIC_IO_MANAGER,
  .name = "powercut memory I/O manager",
  .open = memio_open,
  .close = memio_close,
  .set_blksize = memio_set_blksize,
  .read_blk = memio_read_blk,
  .write_blk = memio_write_blk,
  .flush = memio_flush,
  .read_blk64 = memio_read_blk64,
  .write_blk64 = memio_write_blk64,
};

void
pc_ext2fs_init (void)
{
  static bool done;

  if (!done) {
    initialize_ext2_error_table ();
    done = true;
  }
}

int
pc_ext2fs_errno (errcode_t e)
{
  return e == 0 ? 0 : e == EXT2_ET_NO_MEMORY || e == ENOMEM ? -ENOMEM : -EIO;
}

int
pc_memio_open (const void *mem, uint64_t size, int flags, ext2_filsys *ret_fs,
               struct pc_err *err)
{
  char name[64];
  errcode_t e;

  pc_ext2fs_init ();
  if (flags & EXT2_FLAG_RW)
    return pc_err_set (err, EROFS, "the filesystem in memory is read-only");
  snprintf (name, sizeof name, "pc-memio:%p:%" PRIu64, mem, size);
  e = ext2fs_open2 (name, NULL, flags, 0, 0, &memio_manager, ret_fs);
  if (e)
    return pc_err_set (err, -pc_ext2fs_errno (e), "libext2fs cannot open the filesystem: %s",
                       error_message (e));
  return 0;
}
