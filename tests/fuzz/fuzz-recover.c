/* fuzz-recover.c: the in-process journal recovery on damaged journals.
 *
 * The input is a journal: its bytes replace the start of the journal (in
 * journal block order, through the journal inode's map) of a template
 * crash state, the last flush-model state of the golden log
 * tests/golden/rename-fsync that needs recovery ($top_srcdir, or the
 * current directory, locates it).  Where pc_recover() replays that
 * journal, `e2fsck -y -E journal_only` must recover the same state too and
 * leave the very same image (but s_kbytes_written, recover.h): anything
 * else aborts.  Where pc_recover() declines, e2fsck is the one to do it,
 * and nothing is compared. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "replay/crash.h"
#include "judge/fsck.h"
#include "fuzz.h"
#include "replay/memio.h"
#include "replay/recover.h"
#include "util/util.h"

#define NOW 1700000000
#define SB_KBYTES_WRITTEN 0x178
#define SB_CHECKSUM       0x3fc

static struct {
  uint8_t *img;
  uint64_t size;
  uint64_t *map;                /* journal block -> filesystem block */
  uint64_t nmap;
  unsigned bs;
  struct pc_image *im;          /* the template, each input in an overlay */
  struct pc_recover_cache *cache;
  int fd;                       /* the template as a file, for e2fsck */
  char path[64];
  uint8_t *buf;
} T;

static int
note (ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref, int off, void *priv)
{
  (void) fs; (void) ref; (void) off; (void) priv;
  if (blockcnt >= 0 && (uint64_t) blockcnt < T.nmap)
    T.map[blockcnt] = *blocknr;
  return 0;
}

static void
setup (void)
{
  const char *src = getenv ("top_srcdir");
  char path[4096];
  struct pc_model model = { PC_MODEL_FLUSH, PC_MODEL_DEFAULT_K, 0 };
  struct pc_state *st = NULL;
  struct pc_image *im = NULL;
  struct pc_index ix;
  struct ext2_inode inode;
  ext2_filsys fs;
  uint64_t cursor = 0;
  size_t n = 0;

  snprintf (path, sizeof path, "%s/tests/golden/rename-fsync/recording.pclog", src ? src : ".");
  if (pc_index_load (path, &ix) < 0 || pc_states_enumerate (&ix, &model, 0, &st, &n) < 0 ||
      pc_image_new (ix.hdr.devsize, NULL, -1, 0, &im) < 0) {
    fprintf (stderr, "fuzz-recover: %s: cannot load the template log\n", path);
    abort ();
  }
  T.size = ix.hdr.devsize;
  for (size_t i = 0; i < n; i++) {
    if (pc_state_build (&ix, &st[i], im, &cursor) < 0)
      abort ();
    if (pc_ext_needs_recovery (pc_image_data (im) + 1024)) {
      free (T.img);
      T.img = malloc (T.size);
      if (T.img == NULL)
        abort ();
      memcpy (T.img, pc_image_data (im), T.size);
    }
  }
  if (T.img == NULL || pc_memio_open (T.img, T.size, EXT2_FLAG_64BITS, &fs, NULL) != 0 ||
      ext2fs_read_inode (fs, EXT2_JOURNAL_INO, &inode) != 0)
    abort ();
  T.bs = fs->blocksize;
  T.nmap = EXT2_I_SIZE (&inode) / fs->blocksize;
  T.map = calloc (T.nmap, sizeof *T.map);
  if (T.map == NULL ||
      ext2fs_block_iterate3 (fs, EXT2_JOURNAL_INO, BLOCK_FLAG_READ_ONLY, NULL, note, NULL) != 0 ||
      pc_recover_cache_new (&T.cache) < 0 ||
      pc_image_new (T.size, T.img, -1, PC_IMAGE_HASH, &T.im) < 0 ||
      (T.fd = fuzz_memfile (T.img, T.size, T.path)) < 0 || (T.buf = malloc (T.size)) == NULL)
    abort ();
  snprintf (T.path, sizeof T.path, "/proc/%d/fd/%d", (int) getpid (), T.fd);
  ext2fs_close_free (&fs);
  pc_image_free (im);
  pc_states_free (st, n);
  pc_index_free (&ix);
}

/* Puts blocks [first, first+count) of the template back into the file. */
static void
restore (uint64_t first, uint64_t count)
{
  uint64_t off = first * PC_IMAGE_BLOCK, len = count * PC_IMAGE_BLOCK;

  if (off >= T.size)
    return;
  if (len > T.size - off)
    len = T.size - off;
  if (pwrite (T.fd, T.img + off, len, (off_t) off) != (ssize_t) len)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const uint8_t *ours;
  struct pc_fsck_result fr;
  struct pc_fsck_io io;
  struct pc_err err;
  int r;

  if (T.img == NULL)
    setup ();
  ours = pc_image_data (T.im);
  /* The input over the template's journal, in an overlay and in the file. */
  if (pc_image_overlay_begin (T.im) < 0)
    abort ();
  for (uint64_t b = 0; b < T.nmap && b * T.bs < size; b++) {
    size_t n = size - b * T.bs < T.bs ? size - b * T.bs : T.bs;
    if (pc_image_write (T.im, T.map[b] * T.bs, data + b * T.bs, n) < 0 ||
        pwrite (T.fd, data + b * T.bs, n, (off_t) (T.map[b] * T.bs)) != (ssize_t) n)
      abort ();
  }
  r = pc_recover (T.im, NOW, T.cache, &err);
  if (r == 1) {
    /* e2fsck on the same state: it must agree. */
    if (pc_fsck_recover (T.path, 30, NOW, &fr, &io) < 0)
      abort ();
    if (fr.verdict != PC_V_OK) {
      fprintf (stderr, "fuzz-recover: replayed here, but e2fsck failed: %s\n", fr.evidence);
      abort ();
    }
    if (pc_pread_all (T.fd, T.buf, T.size, 0) < 0)
      abort ();
    memcpy (T.buf + 1024 + SB_KBYTES_WRITTEN, ours + 1024 + SB_KBYTES_WRITTEN, 8);
    pc_put_le32 (T.buf + 1024 + SB_CHECKSUM, ext2fs_crc32c_le (~0u, T.buf + 1024, SB_CHECKSUM));
    if (memcmp (T.buf, ours, T.size) != 0) {
      uint64_t off = 0;
      while (T.buf[off] == ours[off])
        off++;
      fprintf (stderr, "fuzz-recover: the image differs from e2fsck's at byte %llu\n",
               (unsigned long long) off);
      abort ();
    }
    if (!io.known)
      restore (0, (T.size + PC_IMAGE_BLOCK - 1) / PC_IMAGE_BLOCK);
    for (size_t i = 0; i < io.written.n; i++)
      restore (io.written.first[i], io.written.count[i]);
    pc_fsck_io_free (&io);
  }
  else if (r < 0 && r != -ENOTSUP)
    abort ();
  /* Back to the template, in memory and in the file. */
  if (pc_image_overlay_end (T.im) < 0)
    abort ();
  for (uint64_t b = 0; b < T.nmap && b * T.bs < size; b++)
    if (pwrite (T.fd, T.img + T.map[b] * T.bs, T.bs, (off_t) (T.map[b] * T.bs)) != (ssize_t) T.bs)
      abort ();
  return 0;
}
