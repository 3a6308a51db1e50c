/* fsck.c: blkid, and e2fsck with what it read and wrote, on a crash state image. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <blkid/blkid.h>

#include "judge/fsck.h"
#include "replay/image.h"
#include "util/proc.h"
#include "util/util.h"

#define OUT_MAX 8192

/* Replaces every occurrence of the scratch image's path with "IMAGE": the
 * file is gone by the time anyone reads the evidence. */
static void
hide_path (char *out, const char *path)
{
  size_t pl = strlen (path);
  char *p;

  while (pl > 5 && (p = strstr (out, path)) != NULL) {
    memcpy (p, "IMAGE", 5);
    memmove (p + 5, p + pl, strlen (p + pl) + 1);
  }
}

/* Keeps the lines of e2fsck's output that say something, up to a few. */
static void
evidence (char *dst, size_t len, const char *prefix, const char *out)
{
  size_t pos = (size_t) snprintf (dst, len, "%s", prefix);
  int lines = 0;

  for (const char *l = out; *l && lines < 8 && pos + 2 < len;) {
    const char *nl = strchr (l, '\n');
    size_t n = nl ? (size_t) (nl - l) : strlen (l);
    bool skip = n == 0 || strncmp (l, "e2fsck ", 7) == 0 ||
                strncmp (l, "Pass ", 5) == 0 || strncmp (l, "Overwriting", 11) == 0 ||
                strncmp (l, "    e2undo", 10) == 0;
    if (!skip) {
      if (pos > 0 && pos + 1 < len)
        dst[pos++] = '\n';
      if (n > len - pos - 1)
        n = len - pos - 1;
      memcpy (dst + pos, l, n);
      pos += n;
      dst[pos] = '\0';
      lines++;
    }
    l = nl ? nl + 1 : l + n;
  }
}

bool
pc_ext_needs_recovery (const uint8_t *sb)
{
  /* s_feature_compat & HAS_JOURNAL, s_feature_incompat & RECOVER */
  return (pc_get_le32 (sb + 0x5c) & 0x4) && (pc_get_le32 (sb + 0x60) & 0x4);
}

bool
pc_ext_has_journal (const uint8_t *sb)
{
  /* s_feature_compat & HAS_JOURNAL */
  return (pc_get_le32 (sb + 0x5c) & 0x4) != 0;
}

bool
pc_ext_fast_commit (const uint8_t *sb)
{
  /* s_feature_compat & FAST_COMMIT */
  return (pc_get_le32 (sb + 0x5c) & 0x400) != 0;
}

int
pc_ext_probe (const char *path, char *type, size_t len)
{
  blkid_probe pr = blkid_new_probe_from_filename (path);
  const char *t = NULL;

  type[0] = '\0';
  if (pr == NULL)
    return -EIO;
  blkid_probe_enable_superblocks (pr, 1);
  blkid_probe_set_superblocks_flags (pr, BLKID_SUBLKS_TYPE);
  if (blkid_do_safeprobe (pr) == 0 &&
      blkid_probe_lookup_value (pr, "TYPE", &t, NULL) == 0 && t)
    snprintf (type, len, "%s", t);
  blkid_free_probe (pr);
  return strcmp (type, "ext2") == 0 || strcmp (type, "ext3") == 0 ||
         strcmp (type, "ext4") == 0;
}

void
pc_blocks_free (struct pc_blocks *b)
{
  free (b->first);
  free (b->count);
  memset (b, 0, sizeof *b);
}

uint64_t
pc_blocks_total (const struct pc_blocks *b)
{
  uint64_t t = 0;

  for (size_t i = 0; i < b->n; i++)
    t += b->count[i];
  return t;
}

void
pc_fsck_io_free (struct pc_fsck_io *io)
{
  pc_blocks_free (&io->read);
  pc_blocks_free (&io->written);
  io->known = false;
}

/* Appends the blocks holding bytes [off, off+len) (kept unsorted). */
static int
blocks_add (struct pc_blocks *b, uint64_t off, uint64_t len)
{
  if (len == 0)
    return 0;
  if (b->n == b->cap) {
    size_t cap = b->cap;
    if (pc_grow (&b->first, &cap, b->n + 1, sizeof *b->first, 256) < 0 ||
        pc_grow (&b->count, &b->cap, b->n + 1, sizeof *b->count, 256) < 0)
      return -ENOMEM;
  }
  b->first[b->n] = off / PC_IMAGE_BLOCK;
  b->count[b->n] = (off + len - 1) / PC_IMAGE_BLOCK - off / PC_IMAGE_BLOCK + 1;
  b->n++;
  return 0;
}

struct range {
  uint64_t first, count;
};

static int
range_cmp (const void *a, const void *b)
{
  const struct range *x = a, *y = b;

  return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorts the ranges and merges those that overlap or touch. */
static int
blocks_normalize (struct pc_blocks *b)
{
  struct range *r;
  size_t n = 0;

  if (b->n < 2)
    return 0;
  r = malloc (b->n * sizeof *r);
  if (r == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < b->n; i++)
    r[i] = (struct range) { b->first[i], b->count[i] };
  qsort (r, b->n, sizeof *r, range_cmp);
  for (size_t i = 0; i < b->n; i++) {
    if (n > 0 && r[i].first <= b->first[n - 1] + b->count[n - 1]) {
      uint64_t end = r[i].first + r[i].count;
      if (end > b->first[n - 1] + b->count[n - 1])
        b->count[n - 1] = end - b->first[n - 1];
      continue;
    }
    b->first[n] = r[i].first;
    b->count[n] = r[i].count;
    n++;
  }
  b->n = n;
  free (r);
  return 0;
}

/* Reads "NAME(A, B)" at p, NAME being one of test_io's operations: *ret_op
 * is its index in ops, or -1 if the line is none of them.  Returns false if
 * it is one of them but its numbers do not read. */
static bool
io_line (const char *p, const char *const *ops, int *ret_op, long long *a, long long *b)
{
  char *end;

  *ret_op = -1;
  for (int k = 0; ops[k]; k++) {
    size_t n = strlen (ops[k]);
    if (strncmp (p, ops[k], n) == 0 && p[n] == '(') {
      *ret_op = k;
      p += n + 1;
      break;
    }
  }
  if (*ret_op < 0)
    return true;
  errno = 0;
  *a = strtoll (p, &end, 10);
  if (end == p || errno)
    return false;
  if (*end == ')') {          /* set_blksize(N) */
    *b = 0;
    return true;
  }
  if (end[0] != ',' || end[1] != ' ')
    return false;
  p = end + 2;
  *b = strtoll (p, &end, 10);
  return end != p && *end == ')' && errno == 0;
}

int
pc_fsck_parse_io_log (const char *log, struct pc_fsck_io *io)
{
  enum { SET_BLKSIZE, READ_BLK64, READ_BLK, WRITE_BLK64, WRITE_BLK, WRITE_BYTE, DISCARD, ZEROOUT };
  static const char *const ops[] = { "set_blksize", "read_blk64", "read_blk", "write_blk64",
                                     "write_blk", "write_byte", "discard", "zeroout", NULL };
  uint64_t bs = 1024;           /* a channel's block size when it opens */
  int r = 0;

  memset (io, 0, sizeof *io);
  for (const char *l = log; *l && r == 0;) {
    const char *nl = strchr (l, '\n');
    long long a, b;
    int op;
    if (strncmp (l, "Test_io: ", 9) != 0 || !io_line (l + 9, ops, &op, &a, &b) ||
        (op >= 0 && a < 0) || (op >= DISCARD && b < 0))
      r = -EPROTO;
    else if (op == SET_BLKSIZE) {
      if (a <= 0)
        r = -EPROTO;
      bs = (uint64_t) a;
    }
    else if (op == READ_BLK64 || op == READ_BLK)
      r = blocks_add (&io->read, (uint64_t) a * bs, b < 0 ? (uint64_t) -b : (uint64_t) b * bs);
    else if (op == WRITE_BLK64 || op == WRITE_BLK)
      r = blocks_add (&io->written, (uint64_t) a * bs, b < 0 ? (uint64_t) -b : (uint64_t) b * bs);
    else if (op == WRITE_BYTE)
      r = b < 0 ? -EPROTO : blocks_add (&io->written, (uint64_t) a, (uint64_t) b);
    else if (op == DISCARD || op == ZEROOUT)
      r = blocks_add (&io->written, (uint64_t) a * bs, (uint64_t) b * bs);
    else if (strncmp (l + 9, "read", 4) == 0 || strncmp (l + 9, "write", 5) == 0)
      r = -EPROTO;              /* moves data, but not in a form known here */
    /* flush, readahead, set_option: no data */
    l = nl ? nl + 1 : l + strlen (l);
  }
  if (r == 0)
    r = blocks_normalize (&io->read);
  if (r == 0)
    r = blocks_normalize (&io->written);
  if (r < 0) {
    pc_fsck_io_free (io);
    return r;
  }
  io->known = true;
  return 0;
}

/* The flags of test_io's log: reads, writes, block size, discard, zeroout. */
#define TEST_IO_FLAGS "TEST_IO_FLAGS=0x147"

/* Runs e2fsck with args on path; out gets its output, io (if not NULL)
 * what it read and wrote. */
static int
run_e2fsck (const char *const *args, const char *path, int timeout_s, int64_t now,
            char *out, size_t outlen, struct pc_fsck_io *io)
{
  char *argv[8], when[48];
  char *env[] = { when, (char *) TEST_IO_FLAGS, (char *) "TEST_IO_LOGFILE=/dev/fd/3", NULL };
  struct pc_proc_extra x = { .env = env, .side = io != NULL };
  size_t n = 0;
  int r;

  argv[n++] = (char *) "e2fsck";
  for (; *args && n < 6; args++)
    argv[n++] = (char *) *args;
  argv[n++] = (char *) path;
  argv[n] = NULL;
  snprintf (when, sizeof when, "E2FSCK_TIME=%" PRId64, now);
  if (io == NULL)
    env[1] = NULL;
  r = pc_proc_run_extra (argv, &x, timeout_s, out, outlen);
  if (io) {
    memset (io, 0, sizeof *io);
    if (x.side_buf && !x.side_truncated && r >= 0 && r < 256)
      pc_fsck_parse_io_log (x.side_buf, io);
    free (x.side_buf);
  }
  if (r == PC_E2FSCK_NOT_FOUND || r == -ENOENT)
    return -ENOENT;
  return r;
}

/* Did e2fsck fail for reasons of its own rather than the filesystem's?
 * A time limit, a signal, an exit status e2fsck(8) does not define for a
 * check, an interruption, or an operational error (8) that says it ran out
 * of memory.  Then nothing is known of the filesystem: the evidence says
 * why (what names the run, "e2fsck -fn" say) and the state is not checked. */
static bool
tool_failed (int r, const char *out, const char *what, int timeout_s,
             struct pc_fsck_result *res)
{
  if (r == -ETIME)
    snprintf (res->evidence, sizeof res->evidence, "%s did not finish within %d s "
              "(give check a longer --timeout)", what, timeout_s);
  else if (r < 0)
    snprintf (res->evidence, sizeof res->evidence, "%s could not be run: %s", what,
              strerror (-r));
  else if (r >= 256)
    snprintf (res->evidence, sizeof res->evidence, "%s was killed by signal %d (%s)", what,
              r - 256, strsignal (r - 256));
  else if (r >= PC_E2FSCK_USAGE)
    snprintf (res->evidence, sizeof res->evidence, "%s failed with exit status %d", what, r);
  else if ((r & PC_E2FSCK_ERROR) && (strstr (out, "memory") || strstr (out, "Memory"))) {
    char pfx[64];
    snprintf (pfx, sizeof pfx, "%s ran out of memory:", what);
    evidence (res->evidence, sizeof res->evidence, pfx, out);
  }
  else
    return false;
  res->verdict = PC_V_NOT_CHECKED;
  return true;
}

/* What journal_only's exit status and output say. */
static void
judge_recovery (int r, char *out, const char *path, int timeout_s, struct pc_fsck_result *res)
{
  if (r >= 0 && r <= (PC_E2FSCK_CORRECTED | PC_E2FSCK_REBOOT)) {
    res->verdict = PC_V_OK;
    return;
  }
  hide_path (out, path);
  if (tool_failed (r, out, "e2fsck -E journal_only", timeout_s, res))
    return;
  res->verdict = PC_V_UNMOUNTABLE;
  evidence (res->evidence, sizeof res->evidence, "journal recovery failed:", out);
}

/* What -fn's exit status and output say. */
static void
judge_check (int r, char *out, const char *path, int timeout_s, struct pc_fsck_result *res)
{
  if (r == 0) {
    res->verdict = PC_V_OK;
    return;
  }
  hide_path (out, path);
  if (tool_failed (r, out, "e2fsck -fn", timeout_s, res))
    return;
  res->verdict = r >= PC_E2FSCK_ERROR ? PC_V_UNMOUNTABLE : PC_V_FS_CORRUPT;
  evidence (res->evidence, sizeof res->evidence, "", out);
}

/* What -p's exit status and output say. */
static void
judge_preen (int r, char *out, const char *path, int timeout_s, struct pc_fsck_result *res)
{
  hide_path (out, path);
  if (r >= 0 && r <= (PC_E2FSCK_CORRECTED | PC_E2FSCK_REBOOT)) {
    res->verdict = PC_V_OK;
    res->repaired = r != 0;
    if (res->repaired)
      evidence (res->evidence, sizeof res->evidence, "", out);
    return;
  }
  if (tool_failed (r, out, "e2fsck -p", timeout_s, res))
    return;
  res->verdict = r >= PC_E2FSCK_ERROR ? PC_V_UNMOUNTABLE : PC_V_FS_CORRUPT;
  evidence (res->evidence, sizeof res->evidence,
            "e2fsck -p cannot repair it (a boot stops for e2fsck by hand):", out);
}

/* What -fy's exit status and output say: repaired (its output, what it
 * fixed, is the evidence), or not. */
static void
judge_repair (int r, char *out, const char *path, int timeout_s, struct pc_fsck_result *res)
{
  hide_path (out, path);
  if (r >= 0 && r <= (PC_E2FSCK_CORRECTED | PC_E2FSCK_REBOOT)) {
    res->verdict = PC_V_OK;
    res->repaired = r != 0;
    evidence (res->evidence, sizeof res->evidence, "", out);
    return;
  }
  if (tool_failed (r, out, "e2fsck -fy", timeout_s, res))
    return;
  res->verdict = r >= PC_E2FSCK_ERROR ? PC_V_UNMOUNTABLE : PC_V_FS_CORRUPT;
  evidence (res->evidence, sizeof res->evidence, "e2fsck -fy cannot repair it either:", out);
}

/* Runs e2fsck with args; judge() turns its status and output into res. */
static int
fsck_run (const char *const *args, const char *path, int timeout_s, int64_t now,
          struct pc_fsck_result *res, struct pc_fsck_io *io,
          void (*judge) (int r, char *out, const char *path, int timeout_s,
                         struct pc_fsck_result *res))
{
  char *out = malloc (OUT_MAX);
  int r;

  memset (res, 0, sizeof *res);
  if (io)
    memset (io, 0, sizeof *io);
  if (out == NULL)
    return -ENOMEM;
  r = run_e2fsck (args, path, timeout_s, now, out, OUT_MAX, io);
  if (r != -ENOENT) {
    judge (r, out, path, timeout_s, res);
    r = 0;
  }
  free (out);
  return r;
}

int
pc_fsck_recover (const char *path, int timeout_s, int64_t now,
                 struct pc_fsck_result *res, struct pc_fsck_io *io)
{
  static const char *const args[] = { "-y", "-E", "journal_only", NULL };

  return fsck_run (args, path, timeout_s, now, res, io, judge_recovery);
}

int
pc_fsck_preen (const char *path, int timeout_s, int64_t now,
               struct pc_fsck_result *res, struct pc_fsck_io *io)
{
  static const char *const args[] = { "-p", NULL };

  return fsck_run (args, path, timeout_s, now, res, io, judge_preen);
}

int
pc_fsck_repair (const char *path, int timeout_s, int64_t now,
                struct pc_fsck_result *res, struct pc_fsck_io *io)
{
  static const char *const args[] = { "-f", "-y", NULL };

  return fsck_run (args, path, timeout_s, now, res, io, judge_repair);
}

int
pc_fsck_check (const char *path, int timeout_s, int64_t now,
               struct pc_fsck_result *res, struct pc_fsck_io *io)
{
  static const char *const args[] = { "-f", "-n", NULL };
  int r = fsck_run (args, path, timeout_s, now, res, io, judge_check);

  /* A run that wrote (it must not) tells nothing another image may take;
   * one that did not end by itself has no log (run_e2fsck). */
  if (r == 0 && io && io->written.n > 0)
    pc_fsck_io_free (io);
  return r;
}
