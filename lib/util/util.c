/* util.c: size parsing, time and full-length I/O helpers. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

int
pc_parse_size (const char *s, uint64_t *ret_size)
{
  char *end;
  double v;
  uint64_t mult = 1;

  if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
    return -EINVAL;
  errno = 0;
  v = strtod (s, &end);
  if (errno != 0 || end == s || !(v >= 0))
    return -EINVAL;
  switch (*end) {
  case '\0': break;
  case 'b': case 'B': mult = 1; end++; break;
  case 'k': case 'K': mult = UINT64_C(1) << 10; end++; break;
  case 'm': case 'M': mult = UINT64_C(1) << 20; end++; break;
  case 'g': case 'G': mult = UINT64_C(1) << 30; end++; break;
  case 't': case 'T': mult = UINT64_C(1) << 40; end++; break;
  default: return -EINVAL;
  }
  if (mult > 1 && (strcmp (end, "iB") == 0 || strcmp (end, "B") == 0))
    end += strlen (end);
  if (*end != '\0')
    return -EINVAL;
  v *= (double) mult;
  if (v >= 18446744073709551615.0)
    return -ERANGE;
  if (v != floor (v))
    return -EINVAL;
  *ret_size = (uint64_t) v;
  return 0;
}

char *
pc_format_size (uint64_t bytes, char *buf, size_t len)
{
  static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  double v = (double) bytes;
  size_t u = 0;

  while (v >= 1024 && u + 1 < PC_ARRAY_SIZE (units)) {
    v /= 1024;
    u++;
  }
  if (u == 0)
    snprintf (buf, len, "%" PRIu64 " B", bytes);
  else
    snprintf (buf, len, "%.1f %s", v, units[u]);
  return buf;
}

static uint64_t
now_ns (clockid_t clk)
{
  struct timespec ts;

  clock_gettime (clk, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

uint64_t pc_now_mono_ns (void) { return now_ns (CLOCK_MONOTONIC); }
uint64_t pc_now_real_ns (void) { return now_ns (CLOCK_REALTIME); }

int
pc_boot_id (uint8_t id[16])
{
  char text[64], *p = text;
  FILE *f = fopen ("/proc/sys/kernel/random/boot_id", "re");
  size_t n = 0;

  if (f == NULL)
    return -errno;
  if (fgets (text, sizeof text, f) == NULL) {
    fclose (f);
    return -EIO;
  }
  fclose (f);
  /* 36 characters: 32 hex digits and 4 dashes */
  while (*p && n < 32) {
    int v;
    if (*p == '-') {
      p++;
      continue;
    }
    if (*p >= '0' && *p <= '9')
      v = *p - '0';
    else if (*p >= 'a' && *p <= 'f')
      v = *p - 'a' + 10;
    else
      return -EIO;
    id[n / 2] = (uint8_t) (n % 2 ? (id[n / 2] | v) : v << 4);
    n++;
    p++;
  }
  return n == 32 ? 0 : -EIO;
}

int
pc_write_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;

  while (len > 0) {
    ssize_t n = write (fd, p, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    p += n;
    len -= (size_t) n;
  }
  return 0;
}

int
pc_read_all (int fd, void *buf, size_t len)
{
  char *p = buf;

  while (len > 0) {
    ssize_t n = read (fd, p, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    if (n == 0)
      return -EPIPE;
    p += n;
    len -= (size_t) n;
  }
  return 0;
}

int
pc_pread_all (int fd, void *buf, uint64_t len, uint64_t off)
{
  uint8_t *p = buf;

  while (len > 0) {
    ssize_t n = pread (fd, p, len > (1u << 30) ? (1u << 30) : (size_t) len, (off_t) off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? -errno : -EIO;
    p += n;
    off += (uint64_t) n;
    len -= (uint64_t) n;
  }
  return 0;
}

int
pc_map_input (int fd, uint64_t size, const uint8_t **ret_map)
{
  const size_t chunk = 1 << 20;
  uint8_t *buf = malloc (chunk);
  void *m;
  int r = 0;

  if (buf == NULL)
    return -ENOMEM;
  for (uint64_t off = 0; off < size && r == 0; off += chunk)
    r = pc_pread_all (fd, buf, size - off < chunk ? size - off : chunk, off);
  free (buf);
  if (r < 0)
    return r;
  m = mmap (NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED)
    return -errno;
  *ret_map = m;
  return 0;
}

size_t
pc_shell_quote (const char *s, char *buf, size_t len)
{
  size_t pos = 0;

  if (len < 3) {
    if (len)
      buf[0] = '\0';
    return 0;
  }
  buf[pos++] = '\'';
  for (; *s && pos + 6 < len; s++) {
    if (*s == '\'') {
      memcpy (buf + pos, "'\\''", 4);
      pos += 4;
    }
    else
      buf[pos++] = *s;
  }
  buf[pos++] = '\'';
  buf[pos] = '\0';
  return pos;
}

int
pc_grow (void *pv, size_t *cap, size_t need, size_t elem, size_t first)
{
  void **v = pv, *n;
  size_t ncap = *cap ? *cap : first;

  if (need <= *cap)
    return 0;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2 / elem)
      return -ENOMEM;
    ncap *= 2;
  }
  n = realloc (*v, ncap * elem);
  if (n == NULL)
    return -ENOMEM;
  *v = n;
  *cap = ncap;
  return 0;
}

int
pc_mkdir_p (const char *path)
{
  char buf[PATH_MAX];

  snprintf (buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir (buf, 0755) < 0 && errno != EEXIST)
        return -errno;
      *p = '/';
    }
  if (mkdir (buf, 0755) < 0 && errno != EEXIST)
    return -errno;
  return 0;
}
