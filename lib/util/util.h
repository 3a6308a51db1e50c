/* util.h: small helpers shared by the parts of libpowercut (byte order, sizes, time). */
#ifndef POWERCUT_UTIL_H
#define POWERCUT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PC_ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))

/* Little-endian stores and loads at any alignment. */
static inline void pc_put_le16 (void *p, uint16_t v)
{
  uint8_t *b = p;
  b[0] = v; b[1] = v >> 8;
}
static inline void pc_put_le32 (void *p, uint32_t v)
{
  uint8_t *b = p;
  b[0] = v; b[1] = v >> 8; b[2] = v >> 16; b[3] = v >> 24;
}
static inline void pc_put_le64 (void *p, uint64_t v)
{
  pc_put_le32 (p, (uint32_t) v);
  pc_put_le32 ((uint8_t *) p + 4, (uint32_t) (v >> 32));
}
static inline uint16_t pc_get_le16 (const void *p)
{
  const uint8_t *b = p;
  return (uint16_t) (b[0] | b[1] << 8);
}
static inline uint32_t pc_get_le32 (const void *p)
{
  const uint8_t *b = p;
  return (uint32_t) b[0] | (uint32_t) b[1] << 8 |
         (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
}
static inline uint64_t pc_get_le64 (const void *p)
{
  return pc_get_le32 (p) | (uint64_t) pc_get_le32 ((const uint8_t *) p + 4) << 32;
}

/* Big-endian (network order, as NBD uses). */
static inline void pc_put_be16 (void *p, uint16_t v)
{
  uint8_t *b = p;
  b[0] = v >> 8; b[1] = v;
}
static inline void pc_put_be32 (void *p, uint32_t v)
{
  uint8_t *b = p;
  b[0] = v >> 24; b[1] = v >> 16; b[2] = v >> 8; b[3] = v;
}
static inline void pc_put_be64 (void *p, uint64_t v)
{
  pc_put_be32 (p, (uint32_t) (v >> 32));
  pc_put_be32 ((uint8_t *) p + 4, (uint32_t) v);
}
static inline uint16_t pc_get_be16 (const void *p)
{
  const uint8_t *b = p;
  return (uint16_t) (b[0] << 8 | b[1]);
}
static inline uint32_t pc_get_be32 (const void *p)
{
  const uint8_t *b = p;
  return (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 |
         (uint32_t) b[2] << 8 | (uint32_t) b[3];
}
static inline uint64_t pc_get_be64 (const void *p)
{
  return (uint64_t) pc_get_be32 (p) << 32 | pc_get_be32 ((const uint8_t *) p + 4);
}

/* A small, fast pseudo-random generator (splitmix64): the next value from
 * the state *x.  Deterministic: seeded workloads and sampled crash states
 * repeat exactly. */
static inline uint64_t
pc_splitmix64 (uint64_t *x)
{
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Parses a size such as "512", "64K", "1.5G" or "2GiB" (binary units).
 * Returns 0 and stores the byte count, or -EINVAL (not a size) or
 * -ERANGE (too large). */
int pc_parse_size (const char *s, uint64_t *ret_size);

/* Formats a byte count for people ("1.5 GiB") into buf; returns buf. */
char *pc_format_size (uint64_t bytes, char *buf, size_t len);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
uint64_t pc_now_mono_ns (void);
uint64_t pc_now_real_ns (void);
/* The running boot's id (/proc/sys/kernel/random/boot_id, 16 bytes):
 * CLOCK_MONOTONIC counts within it.  Returns 0 or -errno. */
int pc_boot_id (uint8_t id[16]);

/* Writes all of buf to fd, retrying on EINTR and short writes.
 * Returns 0 or -errno. */
int pc_write_all (int fd, const void *buf, size_t len);

/* Writes s single-quoted for a POSIX shell into buf (len bytes, always
 * NUL-terminated; a value too long is cut, its quotes kept balanced).
 * Returns the length written. */
size_t pc_shell_quote (const char *s, char *buf, size_t len);

/* Reads exactly len bytes.  Returns 0, -EPIPE on early end of file, or -errno. */
int pc_read_all (int fd, void *buf, size_t len);

/* Reads exactly len bytes at off.  Returns 0, or -errno (-EIO if the file
 * ends first: it was shorter than it said). */
int pc_pread_all (int fd, void *buf, uint64_t len, uint64_t off);

/* Makes room for at least need elements of elem bytes in the array *pv,
 * which has room for *cap: doubles it (from first) as needed.  Returns 0
 * or -ENOMEM (the array is unchanged then). */
int pc_grow (void *pv, size_t *cap, size_t need, size_t elem, size_t first);

/* Maps the first size bytes of fd read-only (shared), after reading them
 * through once, so that a file that cannot be read is an error here
 * (-EIO) rather than a SIGBUS at some later access.  Returns 0 or -errno;
 * unmap with munmap(). */
int pc_map_input (int fd, uint64_t size, const uint8_t **ret_map);

/* mkdir -p: path and its missing parents (0755).  Returns 0 or -errno. */
int pc_mkdir_p (const char *path);

#endif
