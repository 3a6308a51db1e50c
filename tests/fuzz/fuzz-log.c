/* fuzz-log.c: the log reader on any bytes: it must never crash, and what it
 * accepts must hold together (records numbered in order, within the file,
 * marks that decode or are reported). */
#include <config.h>

#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "format/log.h"
#include "format/mark.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char path[64];
  struct pc_log *log;
  struct pc_record r;
  uint64_t n = 0;
  int fd = fuzz_memfile (data, size, path);

  if (fd < 0)
    return 0;
  if (pc_log_open (path, &log) == 0) {
    while (pc_log_next (log, &r) == 1) {
      if (r.seq != n++ || r.file_offset + 56 + r.datalen > pc_log_file_size (log))
        abort ();
      if (r.type == PC_REC_MARK) {
        struct pc_mark m;
        if (pc_mark_decode (r.data, r.datalen, &m, NULL) == 0)
          pc_mark_free (&m);
      }
    }
    (void) pc_log_end_state (log, NULL, NULL, NULL);
    pc_log_close (log);
  }
  close (fd);
  return 0;
}
