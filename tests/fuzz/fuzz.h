/* fuzz.h: what the fuzzing harnesses share: an input as a file. */
#ifndef POWERCUT_FUZZ_H
#define POWERCUT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Puts data in an anonymous in-memory file; writes its /proc path into
 * path (64 bytes) and returns the descriptor, or -1. */
int fuzz_memfile (const uint8_t *data, size_t size, char *path);

#endif
