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

#include "crash.h"
#include "fsck.h"
#include "fuzz.h"
#include "memio.h"
#include "recover.h"
#include "util.h"

#define NOW 1700000000
#define SB_KBYTES_WRITTEN 0x178
#define SB_CHECKSUM       0x3fc

static struct {
  uint8_t *img;
  uint64_t size;
  uint64_t *map;                /* journal block -> filesystem block */
  uint64_t nmap;
  unsigned bs;
  struct pc_recover_cache *cache;
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
    if (pc_fs_needs_recovery (pc_image_data (im) + 1024)) {
      free (T.img);
      T.img = malloc (T.size);
      if (T.img == NULL)
        abort ();
      memcpy (T.img, pc_image_data (im), T.size);
    }
  }
  if (T.img == NULL || pc_memio_open (T.img, T.size, EXT2_FLAG_64BITS, &fs) != 0 ||
      ext2fs_read_inode (fs, EXT2_JOURNAL_INO, &inode) != 0)
    abort ();
  T.bs = fs->blocksize;
  T.nmap = EXT2_I_SIZE (&inode) / fs->blocksize;
  T.map = calloc (T.nmap, sizeof *T.map);
  if (T.map == NULL ||
      ext2fs_block_iterate3 (fs, EXT2_JOURNAL_INO, BLOCK_FLAG_READ_ONLY, NULL, note, NULL) != 0 ||
      pc_recover_cache_new (&T.cache) < 0)
    abort ();
  ext2fs_close_free (&fs);
  pc_image_free (im);
  pc_states_free (st, n);
  pc_index_free (&ix);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct pc_fsck_result fr;
  struct pc_image *im;
  uint8_t *state;
  char why[256], path[64];
  int fd, r;

  if (T.img == NULL)
    setup ();
  state = malloc (T.size);
  if (state == NULL)
    abort ();
  memcpy (state, T.img, T.size);
  for (uint64_t b = 0; b < T.nmap && b * T.bs < size; b++) {
    size_t n = size - b * T.bs < T.bs ? size - b * T.bs : T.bs;
    memcpy (state + T.map[b] * T.bs, data + b * T.bs, n);
  }
  if (pc_image_new (T.size, state, -1, PC_IMAGE_HASH, &im) < 0)
    abort ();
  r = pc_recover (im, NOW, T.cache, why, sizeof why);
  if (r == 1) {
    /* e2fsck on the same state: it must agree. */
    fd = fuzz_memfile (state, T.size, path);
    if (fd < 0)
      abort ();
    snprintf (path, sizeof path, "/proc/%d/fd/%d", (int) getpid (), fd);
    if (pc_fsck_recover (path, 30, NOW, &fr, NULL) < 0)
      abort ();
    if (fr.verdict != PC_V_OK) {
      fprintf (stderr, "fuzz-recover: replayed here, but e2fsck failed: %s\n", fr.evidence);
      abort ();
    }
    if (pc_pread_all (fd, state, T.size, 0) < 0)
      abort ();
    memcpy (state + 1024 + SB_KBYTES_WRITTEN, pc_image_data (im) + 1024 + SB_KBYTES_WRITTEN, 8);
    pc_put_le32 (state + 1024 + SB_CHECKSUM, ext2fs_crc32c_le (~0u, state + 1024, SB_CHECKSUM));
    for (uint64_t off = 0; off < T.size; off++)
      if (state[off] != pc_image_data (im)[off]) {
        fprintf (stderr, "fuzz-recover: the image differs from e2fsck's at byte %llu\n",
                 (unsigned long long) off);
        abort ();
      }
    close (fd);
  }
  else if (r < 0 && r != -ENOTSUP)
    abort ();
  pc_image_free (im);
  free (state);
  return 0;
}
