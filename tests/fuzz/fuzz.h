/* fuzz.h: what the fuzzing harnesses share: an input as a file, a client
 * session against a recorder. */
#ifndef POWERCUT_FUZZ_H
#define POWERCUT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Puts data in an anonymous in-memory file; writes its /proc path into
 * path (64 bytes) and returns the descriptor, or -1. */
int fuzz_memfile (const uint8_t *data, size_t size, char *path);

/* Runs one client session, prefix then data, against a fresh recorder of
 * 1 MiB (zeros, or a base image read on demand) on its NBD socket (or its
 * control socket), and aborts if the log it leaves does not read back
 * valid. */
void fuzz_session (bool control, bool base, const uint8_t *pre, size_t prelen,
                  const uint8_t *data, size_t size);

#endif
