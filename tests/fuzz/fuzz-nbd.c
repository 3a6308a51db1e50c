/* fuzz-nbd.c: the recorder's NBD handshake and option parser, and its
 * control protocol, on any bytes a client may send: it must never crash or
 * hang, and its log must read back valid afterwards.  The first byte picks
 * the socket (even: NBD, odd: control); the rest is what the client sends
 * before it closes its side. */
#include <config.h>

#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size > 0)
    fuzz_session (data[0] & 1, false, NULL, 0, data + 1, size - 1);
  return 0;
}
