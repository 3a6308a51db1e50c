/* fuzz-request.c: the recorder's NBD request parser.  A canned, valid
 * handshake (fixed newstyle, then NBD_OPT_GO, after NBD_OPT_STRUCTURED_REPLY
 * when bit 0 of the first byte is set) comes first, so every input is
 * spent on transmission: requests, write payloads, and what follows them.
 * Bit 1 serves a base image read on demand instead of zeros. */
#include <config.h>

#include <string.h>

#include "fuzz.h"
#include "format/nbd-proto.h"
#include "util/util.h"

static size_t
option (uint8_t *p, uint32_t opt, const uint8_t *data, uint32_t len)
{
  pc_put_be64 (p, NBD_IHAVEOPT);
  pc_put_be32 (p + 8, opt);
  pc_put_be32 (p + 12, len);
  if (len > 0)
    memcpy (p + 16, data, len);
  return 16 + len;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const uint8_t go[6];     /* empty name, no information requests */
  uint8_t pre[64];
  size_t n = 4;

  if (size == 0)
    return 0;
  pc_put_be32 (pre, NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES);
  if (data[0] & 1)
    n += option (pre + n, NBD_OPT_STRUCTURED_REPLY, NULL, 0);
  n += option (pre + n, NBD_OPT_GO, go, sizeof go);
  fuzz_session (false, data[0] & 2, pre, n, data + 1, size - 1);
  return 0;
}
