/* args.h: the values of command-line options and of the environment that
 * the commands share: numbers, and a shard of a sharded check ("I/N", or
 * a batch system's array index and count).
 */
#ifndef POWERCUT_ARGS_H
#define POWERCUT_ARGS_H

#include <stddef.h>

/* Parses a decimal number from 0 to max: digits only, no sign, no blank.
 * Returns 0 with *ret, or -EINVAL. */
int pc_parse_uint (const char *s, unsigned long max, unsigned long *ret);

#define PC_SHARDS_MAX (1u << 20)

/* Parses "I/N" with 0 <= I < N <= PC_SHARDS_MAX.  Returns 0 with *i and
 * *n, or -EINVAL. */
int pc_parse_shard (const char *s, unsigned *i, unsigned *n);

/* The shard a batch system's environment gives: SLURM_ARRAY_TASK_ID of
 * SLURM_ARRAY_TASK_COUNT (from SLURM_ARRAY_TASK_MIN, if set: an array may
 * be --array=1-N), else JOB_COMPLETION_INDEX of POWERCUT_SHARDS (a
 * Kubernetes indexed job).  Returns 1 with *i and *n, 0 if neither pair is
 * set, or -EINVAL if the set one is not a valid index and count. */
int pc_env_shard (unsigned *i, unsigned *n);

/* A shell command (--verify) run in another directory than the one it was
 * given in: if its first word is a relative path with a '/' that names an
 * existing file from here, the command with that word made absolute (in single quotes),
 * written to buf (len bytes); else (or if it does not fit) cmd itself. */
const char *pc_command_here (const char *cmd, char *buf, size_t len);

#endif
