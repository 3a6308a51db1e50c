/* recover-diff.c: powercut's in-process journal recovery against e2fsck's,
 * state by state.
 *
 *   recover-diff LOG [MODEL] [TMPDIR] [EVERY]
 *
 * For every crash state of LOG under MODEL (default flush) whose journal
 * needs recovery, the state is recovered both ways: pc_recover() on the
 * image in memory (one image brought from state to state, with its
 * checksum cache, as a checker worker does) and `e2fsck -y -E
 * journal_only` on a copy, told the same time.  Where pc_recover()
 * replays, the two images must be identical, byte for byte, but for the
 * superblock's s_kbytes_written (e2fsck adds what its block cache wrote;
 * recover.h) and so its checksum; where it refuses, e2fsck does it anyway.
 * With EVERY, only every EVERY-th state is compared (the others are still
 * recovered here, so the checksum cache is exercised as in a check).
 * Prints one line per refusal and a summary; exits 1 on any difference. */
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
#include "replay/recover.h"
#include "util/util.h"

#define SB_KBYTES_WRITTEN 0x178       /* in the superblock: __u64 */
#define SB_CHECKSUM       0x3fc
#define SB_RO_COMPAT      0x64
#define RO_METADATA_CSUM  0x400

/* e2fsck's image with our s_kbytes_written (and the checksum redone). */
static void
mask_kbytes (uint8_t *sb, const uint8_t *ours)
{
  memcpy (sb + SB_KBYTES_WRITTEN, ours + SB_KBYTES_WRITTEN, 8);
  if (pc_get_le32 (sb + SB_RO_COMPAT) & RO_METADATA_CSUM)
    pc_put_le32 (sb + SB_CHECKSUM, ext2fs_crc32c_le (~0u, sb, SB_CHECKSUM));
}

/* Compares the file at path with mem; returns the first differing byte
 * offset, or -1 if equal. */
static int64_t
compare (const char *path, const uint8_t *mem, uint64_t size)
{
  static uint8_t buf[1 << 20];
  int fd = open (path, O_RDONLY);
  int64_t at = -1;

  if (fd < 0)
    return 0;
  for (uint64_t off = 0; off < size && at < 0; off += sizeof buf) {
    size_t n = size - off < sizeof buf ? (size_t) (size - off) : sizeof buf;
    if (pc_pread_all (fd, buf, n, off) < 0)
      at = (int64_t) off;
    else {
      if (off == 0)
        mask_kbytes (buf + 1024, mem + 1024);
      for (size_t i = 0; i < n && at < 0; i++)
        if (buf[i] != mem[off + i])
          at = (int64_t) (off + i);
    }
  }
  close (fd);
  return at;
}

int
main (int argc, char **argv)
{
  const char *log = argc > 1 ? argv[1] : NULL;
  const char *tmp = argc > 3 ? argv[3] : "/tmp";
  size_t every = argc > 4 ? strtoul (argv[4], NULL, 10) : 1;
  struct pc_model model = { PC_MODEL_FLUSH, PC_MODEL_DEFAULT_K, 0 };
  struct pc_recover_cache *cache = NULL;
  struct pc_image *im = NULL, *copy = NULL;
  struct pc_state *st = NULL;
  struct pc_index ix;
  size_t n = 0, same = 0, refused = 0, clean = 0, differ = 0;
  uint64_t cursor = 0;
  int64_t now = 1700000000;
  char path[4096];
  int fd, r;

  if (log == NULL || (argc > 2 && pc_model_spec_parse (argv[2], &model, NULL) < 0)) {
    fprintf (stderr, "usage: recover-diff LOG [MODEL] [TMPDIR]\n");
    return 2;
  }
  if (pc_index_load (log, &ix) < 0 || pc_states_enumerate (&ix, &model, 0, &st, &n) < 0 ||
      pc_image_new (ix.hdr.devsize, NULL, -1, PC_IMAGE_HASH, &im) < 0 ||
      pc_recover_cache_new (&cache) < 0) {
    fprintf (stderr, "recover-diff: %s: cannot load\n", log);
    return 2;
  }
  snprintf (path, sizeof path, "%s/recover-diff.%d.img", tmp, (int) getpid ());
  for (size_t i = 0; i < n; i++) {
    char id[PC_ID_MAX];
    struct pc_err err;
    struct pc_fsck_result fr;
    int built = pc_state_build (&ix, &st[i], im, &cursor);
    if (built < 0) {
      fprintf (stderr, "recover-diff: state %zu: %s\n", i, strerror (-built));
      return 2;
    }
    pc_state_id (&st[i], &model, id, sizeof id);
    if (!pc_ext_needs_recovery (pc_image_data (im) + 1024)) {
      clean++;
      goto next;
    }
    if (every > 1 && i % every != 0) {
      pc_image_overlay_begin (im);
      r = pc_recover (im, now, cache, &err);
      pc_image_overlay_end (im);
      goto next;
    }
    /* e2fsck's way, on a copy of the unrecovered state. */
    fd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || pc_image_new (ix.hdr.devsize, pc_image_data (im), fd, 0, &copy) < 0) {
      fprintf (stderr, "recover-diff: %s: %s\n", path, strerror (errno));
      return 2;
    }
    pc_image_free (copy);
    close (fd);
    if (pc_fsck_recover (path, 60, now, &fr, NULL) < 0) {
      fprintf (stderr, "recover-diff: e2fsck cannot be run\n");
      return 2;
    }
    /* Ours, in an overlay undone below. */
    pc_image_overlay_begin (im);
    r = pc_recover (im, now, cache, &err);
    if (r == -ENOTSUP) {
      refused++;
      printf ("%s: refused: %s (e2fsck: %s)\n", id, err.msg,
              fr.verdict == PC_V_OK ? "recovered" : "failed");
    }
    else if (r < 0) {
      fprintf (stderr, "recover-diff: %s: %s\n", id, strerror (-r));
      return 2;
    }
    else if (fr.verdict != PC_V_OK) {
      differ++;
      printf ("%s: DIFFERENT: replayed here, e2fsck failed: %s\n", id, fr.evidence);
    }
    else {
      int64_t at = compare (path, pc_image_data (im), pc_image_size (im));
      if (at < 0)
        same++;
      else {
        differ++;
        printf ("%s: DIFFERENT at byte %lld (block %lld)\n", id, (long long) at,
                (long long) (at / 4096));
      }
    }
    pc_image_overlay_end (im);
next:
    if (built == 1)
      pc_image_overlay_end (im);
  }
  unlink (path);
  printf ("%zu states (every %zu-th compared): %zu replayed identically, %zu different, %zu left to e2fsck, "
          "%zu needing no recovery\n", n, every, same, differ, refused, clean);
  pc_recover_cache_free (cache);
  pc_image_free (im);
  pc_states_free (st, n);
  pc_index_free (&ix);
  return differ ? 1 : 0;
}
