/* fuzz-mark.c: the mark (manifest) decoder on any bytes: no crash, a reason
 * for what it refuses, and what it accepts encodes back to the same bytes. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "format/mark.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct pc_mark m;
  uint8_t *buf;
  size_t len;
  struct pc_err why = { "" };

  /* A refusal always says why. */
  if (pc_mark_decode (data, size, &m, &why) < 0) {
    if (why.msg[0] == '\0' || strlen (why.msg) >= sizeof why.msg)
      abort ();
    return 0;
  }
  /* Every path it accepted is one a manifest may hold. */
  for (size_t i = 0; i < m.nentries; i++)
    if (!pc_mark_path_valid (m.entries[i].path, strlen (m.entries[i].path)))
      abort ();
  if (pc_mark_encode (&m, &buf, &len) == 0) {
    if (len != size || memcmp (buf, data, size) != 0)
      abort ();
    free (buf);
  }
  pc_mark_free (&m);
  return 0;
}
