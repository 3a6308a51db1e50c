/* check_trace.c: unit tests of trace/tracer: every family of calls
 * tests/trace/trace-prog makes, seen with its paths, ranges, sizes and
 * block hashes, its failures with their errno and no data; threads,
 * forks, untraceable calls, mappings, a callback that holds a call, and
 * programs that change nothing. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "format/event.h"
#include "trace/tracer.h"
#include "util/xxh.h"
#include "unit.h"
#include "../trace/trace-prog.h"

#define BLOCK PC_EVENT_BLOCK

/* What a run told: a copy of every event, each checked to survive its
 * encoding. */
struct tlog {
  struct pc_event *ev;
  size_t n, cap;
  char dir[4096];
  int (*hook) (const struct pc_event *, struct tlog *);   /* besides recording */
  long hold_ms;                                           /* measured by hooks */
  char seen[64];
};

static int
record (const struct pc_event *ev, void *arg)
{
  struct tlog *l = arg;
  struct pc_event *c, d;
  uint8_t *buf;
  size_t len;
  struct pc_err err;

  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->ev = realloc (l->ev, l->cap * sizeof *l->ev);
    ck_assert_ptr_nonnull (l->ev);
  }
  c = &l->ev[l->n++];
  *c = *ev;
  c->hashes = NULL;
  if (ev->nhashes) {
    c->hashes = malloc (ev->nhashes * sizeof *c->hashes);
    ck_assert_ptr_nonnull (c->hashes);
    memcpy (c->hashes, ev->hashes, ev->nhashes * sizeof *c->hashes);
  }
  /* every event the tracer makes is one the decoder takes */
  ck_assert_int_eq (pc_event_encode (ev, &buf, &len), 0);
  ck_assert_msg (pc_event_decode (buf, len, &d, &err) == 0, "%s: %s", ev->text, err.msg);
  ck_assert_uint_eq (d.seq, ev->seq);
  ck_assert_str_eq (d.text, ev->text);
  ck_assert_uint_eq (d.nhashes, ev->nhashes);
  pc_event_free (&d);
  free (buf);
  return l->hook ? l->hook (ev, l) : 0;
}

static void
tlog_free (struct tlog *l)
{
  for (size_t i = 0; i < l->n; i++)
    free (l->ev[i].hashes);
  free (l->ev);
  l->ev = NULL;
  l->n = l->cap = 0;
}

static const char *
prog (void)
{
  static char p[4096];
  const char *b = getenv ("top_builddir");
  char rel[4096];

  /* absolute: it runs in a directory of its own */
  snprintf (rel, sizeof rel, "%s/tests/trace/trace-prog", b ? b : ".");
  ck_assert_ptr_nonnull (realpath (rel, p));
  return p;
}

/* Where the tests' directories go: made and removed by the test runner
 * itself (an unchecked fixture), so that a failed test, whose process
 * ends at once, leaves nothing behind.  On the build tree's filesystem
 * when there is one (a real one, with xattrs and every fallocate mode). */
static char base_dir[4096];

static void
base_setup (void)
{
  const char *b = getenv ("top_builddir");

  if (b)
    snprintf (base_dir, sizeof base_dir, "%s/tests/trace/tmp.XXXXXX", b);
  else
    snprintf (base_dir, sizeof base_dir, "/tmp/check_trace.XXXXXX");
  if (mkdtemp (base_dir) == NULL) {
    perror (base_dir);
    exit (EXIT_FAILURE);
  }
}

static void
base_teardown (void)
{
  char cmd[4200];

  snprintf (cmd, sizeof cmd, "rm -rf '%s'", base_dir);
  if (system (cmd) != 0)
    fprintf (stderr, "%s: not removed\n", base_dir);
}

/* A directory of the test's own. */
static void
mkdir_temp (char *dir)
{
  char t[4200];

  snprintf (t, sizeof t, "%s/t.XXXXXX", base_dir);
  ck_assert_ptr_nonnull (mkdtemp (t));
  ck_assert_ptr_nonnull (realpath (t, dir));
}

static void
rm_temp (const char *dir)
{
  char cmd[4200];

  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq (system (cmd), 0);
}

/* Output and errors to /dev/null: a program's writes to them are not
 * files' (the test's log may be a file). */
static void
quiet (void)
{
  int fd = open ("/dev/null", O_WRONLY);

  ck_assert_int_ge (fd, 0);
  dup2 (fd, 1);
  dup2 (fd, 2);
  close (fd);
}

/* Runs trace-prog SCENARIO DIR in a new directory; returns its status. */
static int
run (const char *scenario, struct tlog *l)
{
  struct pc_tracer_opts o = { .on_call = record, .arg = l };
  struct pc_err err = { "" };
  char *argv[4];
  int r;

  mkdir_temp (l->dir);
  argv[0] = (char *) prog ();
  argv[1] = (char *) scenario;
  argv[2] = l->dir;
  argv[3] = NULL;
  o.cwd = l->dir;
  quiet ();
  r = pc_tracer_run (argv, &o, &err);
  ck_assert_msg (r >= 0, "%s", err.msg);
  return r;
}

static char *
in_dir (const struct tlog *l, const char *name)
{
  static char p[4][sizeof l->dir + 64];
  static int k;
  char *s = p[k++ % 4];

  snprintf (s, sizeof p[0], "%s/%s", l->dir, name);
  return s;
}

/* The next call named name from *at on: its entry, and its exit (the
 * next exit of the same thread) in *ret_exit. */
static const struct pc_event *
next_call (const struct tlog *l, size_t *at, const char *name, const struct pc_event **ret_exit)
{
  for (size_t i = *at; i < l->n; i++) {
    const struct pc_event *e = &l->ev[i];
    if (e->kind != PC_EVENT_ENTRY || strcmp (e->name, name) != 0)
      continue;
    for (size_t j = i + 1; j < l->n; j++)
      if (l->ev[j].kind == PC_EVENT_EXIT && l->ev[j].tid == e->tid) {
        const struct pc_event *x = &l->ev[j];
        ck_assert_str_eq (x->name, e->name);
        ck_assert_int_eq (x->op, e->op);
        ck_assert_int_eq (x->nr, e->nr);
        ck_assert_uint_gt (x->seq, e->seq);
        ck_assert_uint_ge (x->mono_ns, e->mono_ns);
        *ret_exit = x;
        *at = i + 1;
        return e;
      }
    ck_abort_msg ("%s: no exit", e->text);
  }
  ck_abort_msg ("no %s call after event %zu", name, *at);
  return NULL;
}

static size_t
count (const struct tlog *l, uint8_t op, uint8_t kind)
{
  size_t n = 0;

  for (size_t i = 0; i < l->n; i++)
    n += l->ev[i].op == op && l->ev[i].kind == kind;
  return n;
}

/* The exit carries [off, off + len) of a file whose content is now
 * content[0..size), with the hashes of its blocks from the one at hashed
 * on. */
static void
assert_hashed (const struct pc_event *x, const uint8_t *content, uint64_t size,
               uint64_t off, uint64_t len, uint64_t hashed)
{
  uint64_t end = off + len < size ? off + len : size;

  ck_assert_msg (x->result >= 0, "%s", x->text);
  ck_assert_msg (x->flags & PC_EVENT_F_RANGE, "%s: no range", x->text);
  ck_assert_msg (x->flags & PC_EVENT_F_SIZE, "%s: no size", x->text);
  ck_assert_uint_eq (x->offset, off);
  ck_assert_uint_eq (x->length, len);
  ck_assert_uint_eq (x->size, size);
  ck_assert (!(x->flags & (PC_EVENT_F_UNHASHED | PC_EVENT_F_HASHES_CUT)));
  if (end <= off) {
    ck_assert_uint_eq (x->nhashes, 0);
    return;
  }
  ck_assert_uint_eq (x->first_block, hashed / BLOCK);
  ck_assert_uint_eq (x->nhashes, (end - 1) / BLOCK - hashed / BLOCK + 1);
  for (uint32_t i = 0; i < x->nhashes; i++) {
    uint64_t b = (x->first_block + i) * BLOCK;
    size_t n = size - b < BLOCK ? (size_t) (size - b) : BLOCK;
    ck_assert_msg (x->hashes[i] == XXH3_64bits (content + b, n), "%s: block %llu",
                   x->text, (unsigned long long) (x->first_block + i));
  }
}

static void
assert_changed (const struct pc_event *x, const uint8_t *content, uint64_t size,
                uint64_t off, uint64_t len)
{
  assert_hashed (x, content, size, off, len, off);
}

/* A write at off past the file's end old: the block the old end was in
 * reads with a tail of zeros now, and is hashed too. */
static void
assert_grown (const struct pc_event *x, const uint8_t *content, uint64_t size,
              uint64_t off, uint64_t len, uint64_t old)
{
  ck_assert (old < off && old % BLOCK);
  assert_hashed (x, content, size, off, len, old - old % BLOCK);
}

/* A call that failed: its errno, and nothing changed. */
static void
assert_failed (const struct pc_event *x, int errnum)
{
  ck_assert_msg (x->result == -errnum, "%s: not %d", x->text, -errnum);
  ck_assert_uint_eq (x->nhashes, 0);
  ck_assert (!(x->flags & (PC_EVENT_F_RANGE | PC_EVENT_F_SIZE)));
  ck_assert_ptr_nonnull (strstr (x->text, " = -1 E"));
}

static void
assert_identity (const struct pc_event *e, const char *path)
{
  struct stat st;

  ck_assert_int_eq (stat (path, &st), 0);
  ck_assert_msg (e->flags & PC_EVENT_F_IDENTITY, "%s: no identity", e->text);
  ck_assert_uint_eq (e->dev, st.st_dev);
  ck_assert_uint_eq (e->ino, st.st_ino);
}

static void
put (uint8_t *model, uint64_t off, unsigned seed, size_t n)
{
  tp_fill (model + off, n, seed);
}

START_TEST (test_write)
{
  static uint8_t w[32768], a[8192];
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("write", &l), 0);
  e = next_call (&l, &at, "openat", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "w"));
  ck_assert (e->arg_flags & O_CREAT);
  ck_assert_int_ge (x->result, 0);
  ck_assert_str_eq (x->path[1], in_dir (&l, "w"));
  assert_identity (x, in_dir (&l, "w"));

  e = next_call (&l, &at, "write", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "w"));
  ck_assert_int_eq (e->fd, x->fd);
  assert_identity (e, in_dir (&l, "w"));
  ck_assert (e->fd_flags & PC_FD_WRITE);
  ck_assert_ptr_nonnull (strstr (e->text, "write("));
  ck_assert_ptr_nonnull (strstr (e->text, "</"));
  ck_assert_ptr_nonnull (strstr (e->text, "\"..., 5000)"));
  ck_assert_uint_eq (x->result, TP_W1);
  put (w, 0, 1, TP_W1);
  assert_changed (x, w, TP_W1, 0, TP_W1);

  e = next_call (&l, &at, "pwrite64", &x);
  put (w, TP_PW_OFF, 2, TP_W1);
  assert_grown (x, w, TP_PW_OFF + TP_W1, TP_PW_OFF, TP_W1, TP_W1);

  e = next_call (&l, &at, "writev", &x);
  ck_assert_uint_eq (e->length, TP_V1 + TP_V2);
  put (w, TP_W1, 3, TP_V1);
  put (w, TP_W1 + TP_V1, 4, TP_V2);
  assert_changed (x, w, TP_PW_OFF + TP_W1, TP_W1, TP_V1 + TP_V2);

  e = next_call (&l, &at, "pwritev", &x);
  put (w, TP_PWV_OFF, 5, TP_V1);
  assert_grown (x, w, TP_PWV_OFF + TP_V1, TP_PWV_OFF, TP_V1, TP_PW_OFF + TP_W1);

  e = next_call (&l, &at, "pwritev2", &x);
  ck_assert_uint_eq (e->arg_flags, RWF_DSYNC);
  ck_assert_ptr_nonnull (strstr (e->text, "RWF_DSYNC"));
  put (w, TP_W1 + TP_V1 + TP_V2, 6, TP_PWV2);
  assert_changed (x, w, TP_PWV_OFF + TP_V1, TP_W1 + TP_V1 + TP_V2, TP_PWV2);

  /* a bad descriptor: its errno, no file, no data */
  e = next_call (&l, &at, "write", &x);
  ck_assert_int_eq (e->fd, 99);
  ck_assert (!(e->flags & PC_EVENT_F_IDENTITY));
  assert_failed (x, EBADF);
  ck_assert_ptr_nonnull (strstr (x->text, "EBADF"));

  /* the pipe gave nothing; the appends are at the end of the file */
  for (size_t i = 0; i < l.n; i++)
    ck_assert_ptr_null (strstr (l.ev[i].text, "pipe:"));
  next_call (&l, &at, "close", &x);
  next_call (&l, &at, "openat", &x);
  e = next_call (&l, &at, "write", &x);
  ck_assert (e->fd_flags & PC_FD_APPEND);
  put (a, 0, 1, TP_W1);
  assert_changed (x, a, TP_W1, 0, TP_W1);
  e = next_call (&l, &at, "write", &x);
  ck_assert_uint_eq (e->offset, TP_W1);
  put (a, TP_W1, 2, 100);
  assert_changed (x, a, TP_W1 + 100, TP_W1, 100);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_open)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("open", &l), 0);
  /* read-only opens are not stopped at */
  ck_assert_uint_eq (count (&l, PC_OP_OPEN, PC_EVENT_ENTRY), 8);
  e = next_call (&l, &at, "openat", &x);                    /* relative */
  ck_assert_str_eq (e->path[0], in_dir (&l, "o1"));
  ck_assert_uint_eq (e->mode, 0600);
  ck_assert_int_eq (x->fd, x->result);
  ck_assert_uint_eq (x->size, 0);
  ck_assert (x->flags & PC_EVENT_F_SIZE);
  assert_identity (x, in_dir (&l, "o1"));
  e = next_call (&l, &at, "openat", &x);                    /* at a dirfd */
  ck_assert_str_eq (e->path[0], in_dir (&l, "sub/o2"));
  ck_assert_uint_eq (e->fd_flags & (PC_FD_SYNC | PC_FD_DSYNC), PC_FD_SYNC | PC_FD_DSYNC);
  ck_assert_ptr_nonnull (strstr (e->text, "</"));
  ck_assert_ptr_nonnull (strstr (e->text, "sub>, \"o2\", O_RDWR|O_SYNC|O_CREAT, 0640)"));
  ck_assert_int_ge (x->result, 0);
  e = next_call (&l, &at, "openat2", &x);                   /* absolute */
  ck_assert_str_eq (e->path[0], in_dir (&l, "o3"));
  ck_assert_uint_eq (e->fd_flags & (PC_FD_SYNC | PC_FD_DSYNC), PC_FD_DSYNC);
  ck_assert_int_ge (x->result, 0);
  e = next_call (&l, &at, "creat", &x);                     /* "sub/../o4" */
  ck_assert_str_eq (e->path[0], in_dir (&l, "o4"));
  ck_assert_uint_eq (e->arg_flags & (O_CREAT | O_TRUNC | O_ACCMODE), O_CREAT | O_TRUNC | O_WRONLY);
  ck_assert_int_ge (x->result, 0);
  e = next_call (&l, &at, "openat", &x);                    /* O_EXCL */
  ck_assert_str_eq (e->path[0], in_dir (&l, "o1"));
  assert_failed (x, EEXIST);
  ck_assert_str_eq (x->path[1], "");
  e = next_call (&l, &at, "openat", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "missing/x"));
  assert_failed (x, ENOENT);
  e = next_call (&l, &at, "openat", &x);                    /* O_DIRECT */
  ck_assert (e->fd_flags & PC_FD_DIRECT);
  ck_assert (x->result >= 0 || x->result == -EINVAL);
  e = next_call (&l, &at, "openat", &x);                    /* through a link */
  ck_assert_str_eq (e->path[0], in_dir (&l, "ln"));
  ck_assert_str_eq (x->path[1], in_dir (&l, "o1"));
  ck_assert (e->fd_flags & PC_FD_APPEND);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_truncate)
{
  static uint8_t t[TP_T2];
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("truncate", &l), 0);
  put (t, 0, 7, TP_T0);
  next_call (&l, &at, "write", &x);
  e = next_call (&l, &at, "ftruncate", &x);
  ck_assert_uint_eq (e->length, TP_T1);
  assert_identity (e, in_dir (&l, "t"));
  memset (t + TP_T1, 0, sizeof t - TP_T1);
  /* the bytes between the sizes; the block holding the new end */
  ck_assert_int_eq (x->result, 0);
  ck_assert_uint_eq (x->offset, TP_T1);
  ck_assert_uint_eq (x->length, TP_T0 - TP_T1);
  ck_assert_uint_eq (x->size, TP_T1);
  ck_assert_uint_eq (x->nhashes, 1);
  ck_assert_uint_eq (x->first_block, TP_T1 / BLOCK);
  ck_assert (x->hashes[0] == XXH3_64bits (t + BLOCK, TP_T1 - BLOCK));
  e = next_call (&l, &at, "truncate", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "t"));
  assert_identity (e, in_dir (&l, "t"));
  ck_assert_uint_eq (x->offset, TP_T1);
  ck_assert_uint_eq (x->length, TP_T2 - TP_T1);
  ck_assert_uint_eq (x->size, TP_T2);
  ck_assert_uint_eq (x->nhashes, 1);
  ck_assert_uint_eq (x->first_block, TP_T1 / BLOCK);
  ck_assert (x->hashes[0] == XXH3_64bits (t + BLOCK, BLOCK));
  e = next_call (&l, &at, "truncate", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "nope"));
  assert_failed (x, ENOENT);
  e = next_call (&l, &at, "ftruncate", &x);
  assert_failed (x, EBADF);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_fallocate)
{
  static uint8_t f[TP_F0 + 8192];
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("fallocate", &l), 0);
  /* plain: the size grows, no byte changes */
  e = next_call (&l, &at, "fallocate", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "f-plain"));
  ck_assert_uint_eq (e->arg_flags, 0);
  ck_assert_int_eq (x->result, 0);
  ck_assert_uint_eq (x->size, TP_F0 + 8192);
  ck_assert_uint_eq (x->nhashes, 0);
  ck_assert_uint_eq (x->offset, TP_F0);
  ck_assert_uint_eq (x->length, 8192);
  /* keep size */
  e = next_call (&l, &at, "fallocate", &x);
  ck_assert_uint_eq (e->arg_flags, FALLOC_FL_KEEP_SIZE);
  ck_assert_uint_eq (x->size, TP_F0);
  ck_assert_uint_eq (x->nhashes, 0);
  /* a hole punched: zeros, edges included */
  e = next_call (&l, &at, "fallocate", &x);
  ck_assert_ptr_nonnull (strstr (e->text, "FALLOC_FL_PUNCH_HOLE"));
  put (f, 0, 8, TP_F0);
  memset (f + 1000, 0, 10000);
  assert_changed (x, f, TP_F0, 1000, 10000);
  /* zero range */
  e = next_call (&l, &at, "fallocate", &x);
  ck_assert_uint_eq (e->arg_flags, FALLOC_FL_ZERO_RANGE);
  put (f, 0, 8, TP_F0);
  memset (f + 5000, 0, 3000);
  assert_changed (x, f, TP_F0, 5000, 3000);
  /* collapse: everything after the offset moved */
  e = next_call (&l, &at, "fallocate", &x);
  if (x->result == 0) {
    put (f, 0, 8, TP_F0);
    memmove (f + 8192, f + 16384, TP_F0 - 16384);
    ck_assert_uint_eq (x->size, TP_F0 - 8192);
    ck_assert_uint_eq (x->nhashes, (TP_F0 - 8192 - 8192) / BLOCK);
    for (uint32_t i = 0; i < x->nhashes; i++)
      ck_assert (x->hashes[i] == XXH3_64bits (f + (x->first_block + i) * BLOCK, BLOCK));
  }
  else
    assert_failed (x, EOPNOTSUPP);
  /* insert */
  e = next_call (&l, &at, "fallocate", &x);
  if (x->result == 0) {
    put (f, 0, 8, TP_F0);
    memmove (f + 8192, f + 4096, TP_F0 - 4096);
    memset (f + 4096, 0, 4096);
    ck_assert_uint_eq (x->size, TP_F0 + 4096);
    ck_assert_uint_eq (x->first_block, 1);
    ck_assert_uint_eq (x->nhashes, TP_F0 / BLOCK);
    for (uint32_t i = 0; i < x->nhashes; i++)
      ck_assert (x->hashes[i] == XXH3_64bits (f + (x->first_block + i) * BLOCK, BLOCK));
  }
  else
    assert_failed (x, EOPNOTSUPP);
  /* misaligned collapse: refused */
  e = next_call (&l, &at, "fallocate", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "f-bad"));
  ck_assert (x->result < 0);
  assert_failed (x, (int) -x->result);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_rename)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("rename", &l), 0);
  e = next_call (&l, &at, "rename", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "r1"));
  ck_assert_str_eq (e->path[1], in_dir (&l, "r1b"));
  ck_assert_str_eq (e->text, "rename(\"r1\", \"r1b\")");
  ck_assert_str_eq (x->text, "rename(\"r1\", \"r1b\") = 0");
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "renameat", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "r2"));
  ck_assert_str_eq (e->path[1], in_dir (&l, "d1/r2b"));
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "renameat2", &x);
  ck_assert_uint_eq (e->arg_flags, RENAME_NOREPLACE);
  assert_failed (x, EEXIST);
  e = next_call (&l, &at, "renameat2", &x);
  ck_assert_uint_eq (e->arg_flags, RENAME_EXCHANGE);
  ck_assert_str_eq (e->path[1], in_dir (&l, "r3"));
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "renameat2", &x);                 /* absolute, "d1/./../r4" */
  ck_assert_uint_eq (e->arg_flags, RENAME_WHITEOUT);
  ck_assert_str_eq (e->path[0], in_dir (&l, "r3"));
  ck_assert_str_eq (e->path[1], in_dir (&l, "r4"));
  e = next_call (&l, &at, "rename", &x);
  assert_failed (x, ENOENT);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_link)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("link", &l), 0);
  e = next_call (&l, &at, "link", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "l1"));
  ck_assert_str_eq (e->path[1], in_dir (&l, "l2"));
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "linkat", &x);
  ck_assert_str_eq (e->path[1], in_dir (&l, "ld/l3"));
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "linkat", &x);                    /* AT_EMPTY_PATH: the fd's file */
  ck_assert_str_eq (e->path[0], in_dir (&l, "l1"));
  ck_assert_str_eq (e->path[1], in_dir (&l, "l4"));
  ck_assert_uint_eq (e->arg_flags, AT_EMPTY_PATH);
  e = next_call (&l, &at, "link", &x);
  assert_failed (x, EEXIST);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_symlink)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("symlink", &l), 0);
  e = next_call (&l, &at, "symlink", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "s1"));
  ck_assert_str_eq (e->path[1], "target/x");               /* as given */
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "symlinkat", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "sd/s2"));
  ck_assert_str_eq (e->path[1], "../t");
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "symlink", &x);
  assert_failed (x, EEXIST);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_unlink)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("unlink", &l), 0);
  e = next_call (&l, &at, "unlink", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "u1"));
  ck_assert_int_eq (e->op, PC_OP_UNLINK);
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "unlinkat", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "u2"));
  ck_assert_int_eq (e->op, PC_OP_UNLINK);
  e = next_call (&l, &at, "unlinkat", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "ud"));
  ck_assert_int_eq (e->op, PC_OP_RMDIR);
  ck_assert_uint_eq (e->arg_flags, AT_REMOVEDIR);
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "rmdir", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "ud2"));
  ck_assert_int_eq (e->op, PC_OP_RMDIR);
  e = next_call (&l, &at, "unlink", &x);                    /* the link itself */
  ck_assert_str_eq (e->path[0], in_dir (&l, "u3"));
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "unlink", &x);
  assert_failed (x, ENOENT);
  e = next_call (&l, &at, "rmdir", &x);
  assert_failed (x, ENOENT);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_mkdir)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("mkdir", &l), 0);
  e = next_call (&l, &at, "mkdir", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "m1"));
  ck_assert_uint_eq (e->mode, 0755);
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "mkdirat", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "m1/m2"));
  ck_assert_uint_eq (e->mode, 0700);
  e = next_call (&l, &at, "mkdir", &x);
  assert_failed (x, EEXIST);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_xattr)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("xattr", &l), 0);
  e = next_call (&l, &at, "setxattr", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "x1"));
  ck_assert_str_eq (e->path[1], "user.a");
  ck_assert_uint_eq (e->length, 6);
  ck_assert (e->flags & PC_EVENT_F_VALUE_HASH);
  ck_assert (e->value_hash == XXH3_64bits ("value1", 6));
  assert_identity (e, in_dir (&l, "x1"));
  /* a filesystem without user attributes refuses them all */
  if (x->result == -EOPNOTSUPP) {
    rm_temp (l.dir);
    tlog_free (&l);
    return;
  }
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "lsetxattr", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "xl"));
  ck_assert (x->result < 0);
  assert_failed (x, (int) -x->result);
  e = next_call (&l, &at, "fsetxattr", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "x1"));
  ck_assert_str_eq (e->path[1], "user.c");
  ck_assert_uint_eq (e->arg_flags, XATTR_CREATE);
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "removexattr", &x);
  ck_assert_str_eq (e->path[1], "user.a");
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "lremovexattr", &x);
  ck_assert (x->result < 0);
  e = next_call (&l, &at, "fremovexattr", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "x1"));
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "removexattr", &x);
  assert_failed (x, ENODATA);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_copy)
{
  static uint8_t c1[TP_C0 + 100], c2[3000], c3[550], src[TP_C0];
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("copy", &l), 0);
  put (src, 0, 10, TP_C0);
  e = next_call (&l, &at, "copy_file_range", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "c1"));
  ck_assert_str_eq (e->path[1], in_dir (&l, "c0"));
  memcpy (c1 + 100, src, TP_C0);
  assert_changed (x, c1, TP_C0 + 100, 100, TP_C0);
  e = next_call (&l, &at, "sendfile", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "c2"));
  memcpy (c2, src + 1000, 3000);
  assert_changed (x, c2, 3000, 0, 3000);
  e = next_call (&l, &at, "splice", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "c3"));
  put (c3, 50, 11, 500);
  assert_changed (x, c3, 550, 50, 500);
  e = next_call (&l, &at, "copy_file_range", &x);
  assert_failed (x, EBADF);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_mmap)
{
  static uint8_t m[3 * 4096];
  struct tlog l = { 0 };
  const struct pc_event *e, *x, *map;
  size_t at = 0;
  uint64_t addr;

  ck_assert_int_eq (run ("mmap", &l), 0);
  e = next_call (&l, &at, "mmap", &map);
  ck_assert_str_eq (e->path[0], in_dir (&l, "m"));
  ck_assert_uint_eq (e->offset, TP_M_OFF);
  ck_assert_uint_eq (e->length, TP_M_LEN);
  ck_assert_uint_eq (e->mode, PROT_READ | PROT_WRITE);
  assert_identity (e, in_dir (&l, "m"));
  addr = (uint64_t) map->result;
  ck_assert_uint_eq (map->addr, addr);
  /* msync: the file range the memory maps, as the file holds it */
  e = next_call (&l, &at, "msync", &x);
  ck_assert_uint_eq (e->addr, addr);
  ck_assert_uint_eq (e->arg_flags, MS_SYNC);
  ck_assert_str_eq (e->path[0], in_dir (&l, "m"));
  put (m, TP_M_OFF + 4096, 9, TP_M_N);
  assert_changed (x, m, sizeof m, TP_M_OFF, TP_M_LEN);
  e = next_call (&l, &at, "msync", &x);
  assert_failed (x, EINVAL);
  /* written, not synced, unmapped */
  next_call (&l, &at, "mmap", &x);
  e = next_call (&l, &at, "munmap", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "m"));
  put (m, 0, 11, 50);
  assert_changed (x, m, sizeof m, 0, 4096);
  /* a mapping refused */
  e = next_call (&l, &at, "mmap", &x);
  assert_failed (x, EINVAL);
  /* left mapped until the end of the process */
  next_call (&l, &at, "mmap", &x);
  put (m, 2 * 4096 + 200, 12, 10);
  /* moved and grown: its unmapping at the new place covers the new size */
  next_call (&l, &at, "mmap", &map);
  e = next_call (&l, &at, "mremap", &x);
  ck_assert_uint_eq (e->addr, (uint64_t) map->result);
  ck_assert_uint_eq (e->offset, 0);
  ck_assert_uint_eq (e->length, 4096);
  ck_assert_int_gt (x->result, 0);
  ck_assert_uint_eq (x->addr, (uint64_t) x->result);
  addr = x->addr;
  e = next_call (&l, &at, "munmap", &x);
  ck_assert_uint_eq (e->addr, addr);
  ck_assert_uint_eq (e->offset, 0);
  ck_assert_uint_eq (e->length, 2 * 4096);
  put (m, 4096 + 300, 13, 20);
  assert_changed (x, m, sizeof m, 0, 2 * 4096);
  /* the end of the process unmaps the two left: their file ranges now */
  e = next_call (&l, &at, "exit", &x);
  ck_assert_int_eq (e->nr, -1);
  ck_assert_int_eq (e->op, PC_OP_MUNMAP);
  ck_assert_uint_eq (e->offset, TP_M_OFF);
  ck_assert_uint_eq (e->length, TP_M_LEN);
  assert_changed (x, m, sizeof m, e->offset, e->length);
  e = next_call (&l, &at, "exit", &x);
  ck_assert_uint_eq (e->offset, 2 * 4096);
  assert_changed (x, m, sizeof m, e->offset, e->length);
  ck_assert_uint_eq (count (&l, PC_OP_MUNMAP, PC_EVENT_EXIT), 4);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_sync)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;

  ck_assert_int_eq (run ("sync", &l), 0);
  e = next_call (&l, &at, "fsync", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "y"));
  ck_assert_int_eq (e->op, PC_OP_FSYNC);
  assert_identity (e, in_dir (&l, "y"));
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "fdatasync", &x);
  ck_assert_int_eq (e->op, PC_OP_FDATASYNC);
  e = next_call (&l, &at, "sync", &x);
  ck_assert_int_eq (e->op, PC_OP_SYNC);
  ck_assert_str_eq (x->text, "sync() = 0");
  e = next_call (&l, &at, "syncfs", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "y"));
  e = next_call (&l, &at, "sync_file_range", &x);
  ck_assert_uint_eq (e->offset, 0);
  ck_assert_uint_eq (e->length, 3);
  ck_assert_int_eq (x->result, 0);
  e = next_call (&l, &at, "close", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "y"));
  e = next_call (&l, &at, "fsync", &x);                     /* the directory */
  ck_assert_str_eq (e->path[0], l.dir);
  e = next_call (&l, &at, "close", &x);
  ck_assert_str_eq (e->path[0], l.dir);
  e = next_call (&l, &at, "fsync", &x);
  assert_failed (x, EBADF);
  e = next_call (&l, &at, "close", &x);                     /* not y read-only */
  ck_assert_int_eq (e->fd, 99);
  assert_failed (x, EBADF);
  ck_assert_uint_eq (count (&l, PC_OP_CLOSE, PC_EVENT_ENTRY), 3);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_untraceable)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;
  char want[4200];

  ck_assert_int_eq (run ("untraceable", &l), 0);
  /* the files it has open for writing (others it inherited too) */
  snprintf (want, sizeof want, "<%s>", in_dir (&l, "u"));
  e = next_call (&l, &at, "io_uring_setup", &x);
  ck_assert_int_eq (e->op, PC_OP_UNTRACEABLE);
  ck_assert_msg (strstr (e->text, "/* open for writing: ") != NULL, "%s", e->text);
  ck_assert_msg (strstr (e->text, want) != NULL, "%s", e->text);
  ck_assert_str_ne (e->path[0], "");
  e = next_call (&l, &at, "io_submit", &x);
  ck_assert_int_eq (e->op, PC_OP_UNTRACEABLE);
  ck_assert_msg (strstr (e->text, want) != NULL, "%s", e->text);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

/* A 32-bit call (int 0x80) is not taken for the 64-bit call of its
 * number: it is said to be untraceable. */
START_TEST (test_ia32)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;
  int st = run ("ia32", &l);

  if (st == 256 + SIGSEGV) {    /* a kernel without 32-bit calls */
    ck_assert_uint_eq (l.n, 0);
    rm_temp (l.dir);
    tlog_free (&l);
    return;
  }
  ck_assert_int_eq (st, 0);
  e = next_call (&l, &at, "ia32", &x);
  ck_assert_int_eq (e->op, PC_OP_UNTRACEABLE);
  ck_assert (e->flags & PC_EVENT_F_BADARCH);
  ck_assert_int_eq (e->nr, 20);
  ck_assert_int_gt (x->result, 0);          /* getpid */
  ck_assert_uint_eq (count (&l, PC_OP_UNTRACEABLE, PC_EVENT_ENTRY), 1);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_threads)
{
  static uint8_t f[2][10000];
  struct tlog l = { 0 };
  int tid[2] = { 0, 0 };
  size_t nw[2] = { 0, 0 };

  ck_assert_int_eq (run ("threads", &l), 0);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 10; i++)
      put (f[k], (uint64_t) i * 1000, 20 + (unsigned) k + (unsigned) i * 2, 1000);
  for (size_t i = 0; i < l.n; i++) {
    const struct pc_event *x = &l.ev[i];
    int k;
    if (x->kind != PC_EVENT_EXIT || x->op != PC_OP_WRITE)
      continue;
    k = strcmp (x->path[0], in_dir (&l, "t1")) == 0 ? 0 : 1;
    ck_assert_str_eq (x->path[0], in_dir (&l, k ? "t2" : "t1"));
    ck_assert_int_ne (x->tid, x->pid);     /* not the main thread */
    if (tid[k] == 0)
      tid[k] = x->tid;
    ck_assert_int_eq (x->tid, tid[k]);
    assert_changed (x, f[k], (nw[k] + 1) * 1000, nw[k] * 1000, 1000);
    nw[k]++;
  }
  ck_assert_uint_eq (nw[0], 10);
  ck_assert_uint_eq (nw[1], 10);
  ck_assert_int_ne (tid[0], tid[1]);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

START_TEST (test_fork)
{
  struct tlog l = { 0 };
  const struct pc_event *x = NULL, *e;
  bool f = false, g = false, parent = false;
  int main_pid = 0;

  ck_assert_int_eq (run ("fork", &l), 0);
  for (size_t i = 0; i < l.n; i++) {
    e = &l.ev[i];
    if (e->kind == PC_EVENT_EXIT && e->op == PC_OP_OPEN &&
        strcmp (e->path[0], in_dir (&l, "parent")) == 0) {
      main_pid = e->pid;
      parent = true;
    }
  }
  ck_assert (parent);
  for (size_t i = 0; i < l.n; i++) {
    x = &l.ev[i];
    if (x->kind != PC_EVENT_EXIT || x->op != PC_OP_WRITE)
      continue;
    ck_assert_int_ne (x->pid, main_pid);        /* by the shells */
    if (strcmp (x->path[0], in_dir (&l, "f")) == 0) {
      assert_changed (x, (const uint8_t *) "x\n", 2, 0, 2);
      f = true;
    }
    else if (strcmp (x->path[0], in_dir (&l, "g")) == 0) {
      assert_changed (x, (const uint8_t *) "y\n", 2, 0, 2);
      g = true;
    }
  }
  ck_assert (f);
  ck_assert (g);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

/* Children that come and go, half of them syncing the mapping they
 * inherited: each msync is told with the file (the parent's mappings were
 * the child's before it ran), and no child is taken for one left
 * running. */
START_TEST (test_forks)
{
  static uint8_t m[4096];
  struct tlog l = { 0 };
  struct pc_tracer_opts o = { .on_call = record, .arg = &l };
  struct pc_err err = { "" };
  char left[256] = "unset";
  char *argv[4];
  const struct pc_event *e, *x;
  size_t at = 0;
  int last = 0, cpu = sched_getcpu ();
  cpu_set_t all, one;

  /* on one CPU, as powercut runs a traced program: a new child may run
   * before its parent stops at the fork event */
  ck_assert_int_eq (sched_getaffinity (0, sizeof all, &all), 0);
  CPU_ZERO (&one);
  CPU_SET (cpu >= 0 ? cpu : 0, &one);
  ck_assert_int_eq (sched_setaffinity (0, sizeof one, &one), 0);
  o.left = left;
  o.left_len = sizeof left;
  mkdir_temp (l.dir);
  argv[0] = (char *) prog ();
  argv[1] = (char *) "forks";
  argv[2] = l.dir;
  argv[3] = NULL;
  o.cwd = l.dir;
  quiet ();
  ck_assert_int_eq (pc_tracer_run (argv, &o, &err), 0);
  sched_setaffinity (0, sizeof all, &all);
  ck_assert_str_eq (left, "");
  for (int i = 0; i < TP_FORKS / 2; i++) {
    e = next_call (&l, &at, "msync", &x);
    ck_assert_str_eq (e->path[0], in_dir (&l, "m"));
    ck_assert_int_ne (e->pid, last);
    last = e->pid;
    m[i] = (uint8_t) (i + 1);
    assert_changed (x, m, sizeof m, 0, 4096);
  }
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

/* A thread that is not the first execs: the new program has the
 * process's id, and is followed. */
START_TEST (test_thread_exec)
{
  struct tlog l = { 0 };
  const struct pc_event *x;
  bool h = false;
  int pid = 0;

  ck_assert_int_eq (run ("thread-exec", &l), 0);
  for (size_t i = 0; i < l.n; i++) {
    x = &l.ev[i];
    if (x->kind != PC_EVENT_EXIT || x->op != PC_OP_WRITE)
      continue;
    ck_assert_str_eq (x->path[0], in_dir (&l, "h"));
    assert_changed (x, (const uint8_t *) "z\n", 2, 0, 2);
    pid = x->pid;
    ck_assert_int_eq (x->tid, pid);
    h = true;
  }
  ck_assert (h);
  /* the same process as the thread that ran before */
  for (size_t i = 0; i < l.n; i++)
    ck_assert_int_eq (l.ev[i].pid, pid);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

/* A signal reaches its handler; a stopped program is continued. */
START_TEST (test_signals)
{
  struct tlog l = { 0 };
  const struct pc_event *e, *x;
  size_t at = 0;
  uint8_t one;

  ck_assert_int_eq (run ("signals", &l), 0);
  e = next_call (&l, &at, "write", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "sig"));
  tp_fill (&one, 1, 1);                 /* seed 1: the handler ran */
  assert_changed (x, &one, 1, 0, 1);
  e = next_call (&l, &at, "write", &x);
  ck_assert_str_eq (e->path[0], in_dir (&l, "cont"));
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

/* The callback holds the call: the file is as it was until it returns. */
static int
hold (const struct pc_event *ev, struct tlog *l)
{
  char p[4200], buf[16] = "";
  struct timespec d = { 0, 200 * 1000 * 1000 };
  int fd;
  ssize_t n;

  if (ev->op != PC_OP_WRITE || strcmp (ev->path[0], in_dir (l, "slow")) != 0)
    return 0;
  snprintf (p, sizeof p, "%s/slow", l->dir);
  if (ev->kind == PC_EVENT_ENTRY)
    nanosleep (&d, NULL);
  fd = open (p, O_RDONLY);
  ck_assert_int_ge (fd, 0);
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  buf[n > 0 ? n : 0] = '\0';
  strncat (l->seen, buf, sizeof l->seen - strlen (l->seen) - 2);
  strcat (l->seen, "|");
  return 0;
}

START_TEST (test_block)
{
  struct pc_tracer_opts o = { .on_call = record };
  struct tlog l = { .hook = hold };
  struct pc_err err;
  const struct pc_event *e, *x;
  char *argv[4], p[4200];
  size_t at = 0;
  int fd;

  mkdir_temp (l.dir);
  snprintf (p, sizeof p, "%s/slow", l.dir);
  fd = open (p, O_CREAT | O_WRONLY, 0644);
  ck_assert_int_eq (write (fd, "old", 3), 3);
  close (fd);
  argv[0] = (char *) prog ();
  argv[1] = (char *) "block";
  argv[2] = l.dir;
  argv[3] = NULL;
  o.arg = &l;
  o.cwd = l.dir;
  quiet ();
  ck_assert_int_eq (pc_tracer_run (argv, &o, &err), 0);
  ck_assert_str_eq (l.seen, "old|new|");
  e = next_call (&l, &at, "write", &x);
  ck_assert_uint_ge (x->mono_ns - e->mono_ns, 200u * 1000 * 1000);
  rm_temp (l.dir);
  tlog_free (&l);
}
END_TEST

/* A program that only reads gives no event at all. */
START_TEST (test_readonly)
{
  struct pc_tracer_opts o = { .on_call = record };
  struct tlog l = { 0 };
  struct pc_err err;
  char *argv[] = { (char *) "cat", (char *) "/etc/passwd", NULL };

  o.arg = &l;
  quiet ();
  ck_assert_int_eq (pc_tracer_run (argv, &o, &err), 0);
  ck_assert_uint_eq (l.n, 0);
  tlog_free (&l);
}
END_TEST

START_TEST (test_status)
{
  struct pc_tracer_opts o = { .on_call = record };
  struct tlog l = { 0 };
  struct pc_err err;
  char *ex[] = { (char *) prog (), (char *) "exit", (char *) "7", NULL };
  char *sig[] = { (char *) "sh", (char *) "-c", (char *) "kill -9 $$", NULL };
  char *none[] = { (char *) "/nonexistent/prog", NULL };

  o.arg = &l;
  quiet ();
  ck_assert_int_eq (pc_tracer_run (ex, &o, &err), 7);
  ck_assert_int_eq (pc_tracer_run (sig, &o, &err), 256 + SIGKILL);
  ck_assert_int_eq (pc_tracer_run (none, &o, &err), -ENOENT);
  ck_assert_msg (strstr (err.msg, "/nonexistent/prog") != NULL, "%s", err.msg);
  tlog_free (&l);
}
END_TEST

/* Interrupted (the program's signal handler would set the flag): the
 * program is killed, -EINTR. */
static volatile sig_atomic_t interrupt;

static int
interrupt_at_first (const struct pc_event *ev, void *arg)
{
  interrupt = 1;
  return 0;
}

START_TEST (test_interrupt)
{
  struct pc_tracer_opts o = { .on_call = interrupt_at_first };
  struct pc_err err;
  volatile sig_atomic_t *was;
  char dir[4096], p[4200], *argv[4];

  mkdir_temp (dir);
  argv[0] = (char *) prog ();
  argv[1] = (char *) "write";
  argv[2] = dir;
  argv[3] = NULL;
  o.cwd = dir;
  was = pc_interrupt_flag (&interrupt);
  quiet ();
  ck_assert_int_eq (pc_tracer_run (argv, &o, &err), -EINTR);
  pc_interrupt_flag (was);
  ck_assert_ptr_nonnull (strstr (err.msg, "interrupted"));
  /* killed at the open's entry: no write ran */
  snprintf (p, sizeof p, "%s/w", dir);
  ck_assert_int_eq (access (p, F_OK), -1);
  rm_temp (dir);
}
END_TEST

/* The callback stops the program: killed before its first file call ran. */
static int
refuse (const struct pc_event *ev, void *arg)
{
  int *n = arg;

  (*n)++;
  return -ECANCELED;
}

START_TEST (test_stop)
{
  struct pc_tracer_opts o = { .on_call = refuse };
  struct pc_err err;
  char dir[4096], p[4200], *argv[4];
  int n = 0;

  mkdir_temp (dir);
  argv[0] = (char *) prog ();
  argv[1] = (char *) "write";
  argv[2] = dir;
  argv[3] = NULL;
  o.arg = &n;
  o.cwd = dir;
  quiet ();
  ck_assert_int_eq (pc_tracer_run (argv, &o, &err), -ECANCELED);
  ck_assert_int_eq (n, 1);
  ck_assert_ptr_nonnull (strstr (err.msg, "callback"));
  snprintf (p, sizeof p, "%s/w", dir);
  ck_assert_int_eq (access (p, F_OK), -1);
  rm_temp (dir);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("trace");
  TCase *tc = tcase_create ("families");
  TCase *tp = tcase_create ("processes");

  tcase_add_test (tc, test_write);
  tcase_add_test (tc, test_open);
  tcase_add_test (tc, test_truncate);
  tcase_add_test (tc, test_fallocate);
  tcase_add_test (tc, test_rename);
  tcase_add_test (tc, test_link);
  tcase_add_test (tc, test_symlink);
  tcase_add_test (tc, test_unlink);
  tcase_add_test (tc, test_mkdir);
  tcase_add_test (tc, test_xattr);
  tcase_add_test (tc, test_copy);
  tcase_add_test (tc, test_mmap);
  tcase_add_test (tc, test_sync);
  tcase_add_test (tc, test_untraceable);
  tcase_add_test (tc, test_ia32);
  tcase_add_test (tp, test_threads);
  tcase_add_test (tp, test_fork);
  tcase_add_test (tp, test_forks);
  tcase_add_test (tp, test_thread_exec);
  tcase_add_test (tp, test_signals);
  tcase_add_test (tp, test_block);
  tcase_add_test (tp, test_readonly);
  tcase_add_test (tp, test_status);
  tcase_add_test (tp, test_stop);
  tcase_add_test (tp, test_interrupt);
  tcase_add_unchecked_fixture (tc, base_setup, base_teardown);
  tcase_add_unchecked_fixture (tp, base_setup, base_teardown);
  suite_add_tcase (s, tc);
  suite_add_tcase (s, tp);
  return pc_unit_run (s);
}
