/* trace-prog.h: what tests/trace/trace-prog writes and where, so that
 * check_trace can compute the hashes the tracer must report. */
#ifndef POWERCUT_TRACE_PROG_H
#define POWERCUT_TRACE_PROG_H

#include <stddef.h>
#include <stdint.h>

/* The bytes a scenario writes: seed s, n bytes. */
static inline void
tp_fill (uint8_t *buf, size_t n, unsigned s)
{
  for (size_t i = 0; i < n; i++)
    buf[i] = (uint8_t) (s + i * 7 + (i >> 8));
}

/* write: sizes and offsets */
#define TP_W1 5000              /* write at 0, seed 1 */
#define TP_PW_OFF 10000         /* pwrite64 of TP_W1 bytes, seed 2 */
#define TP_V1 3000              /* writev of two buffers, seeds 3 and 4 */
#define TP_V2 1500
#define TP_PWV_OFF 20000        /* pwritev of one buffer of TP_V1, seed 5 */
#define TP_PWV2 100             /* pwritev2 at the position, RWF_DSYNC, seed 6 */

/* truncate */
#define TP_T0 10000             /* the file's size first, seed 7 */
#define TP_T1 5000              /* ftruncate to */
#define TP_T2 20000             /* truncate to */

/* fallocate: a file of TP_F0 bytes, seed 8 */
#define TP_F0 65536

/* mmap: two pages mapped, seed 9 written into the second page */
#define TP_M_LEN 8192
#define TP_M_OFF 4096
#define TP_M_N 100

/* forks: every other child writes its byte of a shared mapping, msync */
#define TP_FORKS 200

/* copy: the source has TP_C0 bytes, seed 10 */
#define TP_C0 6000

#endif
