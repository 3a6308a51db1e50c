/* fuzz-fstree.c: the libext2fs tree walk on damaged filesystem images: it
 * must end (bounded) without crashing, whatever the image holds. */
#include <config.h>

#include <unistd.h>

#include "fstree.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char path[64], problems[512];
  struct pc_mark m;
  int fd = fuzz_memfile (data, size, path);

  if (fd < 0)
    return 0;
  /* Files beyond 1 MiB (the seeds are smaller) are not read whole. */
  if (pc_fstree_read (path, 1 << 20, &m, problems, sizeof problems) == 0)
    pc_mark_free (&m);
  close (fd);
  return 0;
}
