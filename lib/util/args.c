/* args.c: option values the commands share: numbers and shards. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/args.h"

int
pc_parse_uint (const char *s, unsigned long max, unsigned long *ret)
{
  char *end;
  unsigned long v;

  if (*s < '0' || *s > '9')
    return -EINVAL;
  errno = 0;
  v = strtoul (s, &end, 10);
  if (errno || *end || v > max)
    return -EINVAL;
  *ret = v;
  return 0;
}

/* An index a of a count b: 0 <= a < b. */
static int
index_of (const char *a, const char *b, unsigned long lo, unsigned *i, unsigned *n)
{
  unsigned long x, y;

  if (pc_parse_uint (a, PC_SHARDS_MAX, &x) < 0 || x < lo ||
      pc_parse_uint (b, PC_SHARDS_MAX, &y) < 0 || y == 0 || x - lo >= y)
    return -EINVAL;
  *i = (unsigned) (x - lo);
  *n = (unsigned) y;
  return 0;
}

int
pc_parse_shard (const char *s, unsigned *i, unsigned *n)
{
  const char *slash = strchr (s, '/');
  char buf[64];

  if (slash == NULL || (size_t) (slash - s) >= sizeof buf)
    return -EINVAL;
  memcpy (buf, s, (size_t) (slash - s));
  buf[slash - s] = '\0';
  return index_of (buf, slash + 1, 0, i, n);
}

int
pc_env_shard (unsigned *i, unsigned *n)
{
  const char *id = getenv ("SLURM_ARRAY_TASK_ID"), *cnt = getenv ("SLURM_ARRAY_TASK_COUNT");
  const char *min = getenv ("SLURM_ARRAY_TASK_MIN");
  unsigned long lo = 0;

  if (id && cnt) {
    if (min && pc_parse_uint (min, PC_SHARDS_MAX, &lo) < 0)
      return -EINVAL;
    return index_of (id, cnt, lo, i, n) < 0 ? -EINVAL : 1;
  }
  id = getenv ("JOB_COMPLETION_INDEX");
  cnt = getenv ("POWERCUT_SHARDS");
  if (!(id && cnt))
    return 0;
  return index_of (id, cnt, 0, i, n) < 0 ? -EINVAL : 1;
}

const char *
pc_command_here (const char *cmd, char *buf, size_t len)
{
  size_t w = strcspn (cmd, " \t\n");
  char word[PATH_MAX], abs[PATH_MAX];

  if (cmd[0] == '/' || w >= sizeof word || memchr (cmd, '/', w) == NULL)
    return cmd;
  memcpy (word, cmd, w);
  word[w] = '\0';
  if (strpbrk (word, "'\"\\$`*?[~=;&|<>(){}") || realpath (word, abs) == NULL ||
      strchr (abs, '\''))
    return cmd;
  if ((size_t) snprintf (buf, len, "'%s'%s", abs, cmd + w) >= len)
    return cmd;
  return buf;
}
