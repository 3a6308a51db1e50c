/* xxh.h: xxHash as the project uses it: the library's functions, and on
 * x86 its dispatcher, which gives the same hashes with the widest vector
 * instructions the CPU has (AVX2 or AVX-512: three times SSE2's speed on
 * a recorder's 64 KiB writes). */
#ifndef POWERCUT_XXH_H
#define POWERCUT_XXH_H

#define XXH_STATIC_LINKING_ONLY   /* XXH3_state_t on the stack */
#include <xxhash.h>
#if defined(HAVE_XXH_X86DISPATCH_H) && defined(HAVE_XXH3_64BITS_DISPATCH)
#include <xxh_x86dispatch.h>
#endif

#endif
