/* memfile.c: inputs as in-memory files, for harnesses of code that reads paths. */
#include <config.h>

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/util.h"

int
fuzz_memfile (const uint8_t *data, size_t size, char *path)
{
  int fd = memfd_create ("fuzz", MFD_CLOEXEC);

  if (fd < 0)
    return -1;
  if (pc_write_all (fd, data, size) < 0) {
    close (fd);
    return -1;
  }
  snprintf (path, 64, "/proc/self/fd/%d", fd);
  return fd;
}
