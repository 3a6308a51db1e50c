/* fuzz-dmlog.c: the dm-log-writes importer on any bytes: no crash, and a
 * log it imports reads back whole and clean. */
#include <config.h>

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/dmlog.h"
#include "fuzz.h"
#include "format/log.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char in[64], out[64];
  struct pc_err why;
  int ifd = fuzz_memfile (data, size, in), ofd = fuzz_memfile (NULL, 0, out);

  if (ifd >= 0 && ofd >= 0 && pc_dmlog_import (in, out, 0, &why) == 0) {
    struct pc_log *log;
    struct pc_record r;
    if (pc_log_open (out, &log) < 0)
      abort ();
    while (pc_log_next (log, &r) == 1)
      ;
    if (pc_log_end_state (log, NULL, NULL, NULL) != PC_END_CLEAN)
      abort ();
    pc_log_close (log);
  }
  if (ifd >= 0)
    close (ifd);
  if (ofd >= 0)
    close (ofd);
  return 0;
}
