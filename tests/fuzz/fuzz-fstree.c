/* fuzz-fstree.c: the libext2fs tree walk on damaged filesystem images: it
 * must end (bounded) without crashing, whatever the image holds; and a
 * walk that takes files from the cache (fstree.h) must give the very tree
 * and problems that a walk reading everything gives. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/fstree.h"
#include "fuzz.h"

/* Aborts unless a and b list the same entries. */
static void
same_tree (const struct pc_mark *a, const struct pc_mark *b)
{
  if (a->nentries != b->nentries)
    abort ();
  for (size_t i = 0; i < a->nentries; i++) {
    const struct pc_entry *x = &a->entries[i], *y = &b->entries[i];
    if (strcmp (x->path, y->path) != 0 || x->type != y->type || x->mode != y->mode ||
        x->size != y->size || memcmp (x->hash, y->hash, 16) != 0 || x->headlen != y->headlen ||
        memcmp (x->head, y->head, x->headlen) != 0 ||
        strcmp (x->target ? x->target : "", y->target ? y->target : "") != 0) {
      fprintf (stderr, "fuzz-fstree: %s differs with the cache\n", x->path);
      abort ();
    }
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char path[64], problems[512], p2[512];
  struct pc_fstree_cache *cache;
  struct pc_image *im;
  struct pc_mark m, c;
  int fd = fuzz_memfile (data, size, path), r, rc;

  if (fd < 0)
    return 0;
  /* Files beyond 1 MiB (the seeds are smaller) are not read whole. */
  r = pc_fstree_read (path, 1 << 20, &m, problems, sizeof problems);
  close (fd);
  if (size == 0) {              /* no image to make in memory */
    if (r == 0)
      pc_mark_free (&m);
    return 0;
  }
  if (pc_image_new (size, data, -1, PC_IMAGE_HASH, &im) < 0 || pc_fstree_cache_new (&cache) < 0)
    abort ();
  /* Read with the cache twice: the second walk takes what it can. */
  for (int pass = 0; pass < 2; pass++) {
    rc = pc_fstree_read_image (im, cache, 1 << 20, &c, p2, sizeof p2);
    if ((rc == 0) != (r == 0) || strcmp (problems, p2) != 0) {
      fprintf (stderr, "fuzz-fstree: the walk from memory says otherwise (%d, %d)\n", r, rc);
      abort ();
    }
    if (rc == 0) {
      same_tree (&m, &c);
      pc_mark_free (&c);
    }
  }
  if (r == 0)
    pc_mark_free (&m);
  pc_fstree_cache_free (cache);
  pc_image_free (im);
  return 0;
}
