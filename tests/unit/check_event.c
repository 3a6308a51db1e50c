/* check_event.c: unit tests of format/event: encoding, decoding, refusing. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/event.h"
#include "util/util.h"
#include "unit.h"

/* A write's exit event with every field set. */
static void
sample (struct pc_event *ev, uint64_t *hashes, uint32_t nhashes)
{
  memset (ev, 0, sizeof *ev);
  ev->kind = PC_EVENT_EXIT;
  ev->op = PC_OP_WRITE;
  ev->flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_RANGE | PC_EVENT_F_SIZE;
  ev->seq = 42;
  ev->pid = 1234;
  ev->tid = 1236;
  ev->mono_ns = UINT64_C (123456789012345);
  ev->real_ns = UINT64_C (1700000000123456789);
  ev->nr = 18;
  snprintf (ev->name, sizeof ev->name, "pwrite64");
  snprintf (ev->text, sizeof ev->text,
            "pwrite64(3</repo/a>, \"abc\"..., 8192, 4096) = 8192");
  ev->result = 8192;
  ev->fd = 3;
  ev->dev = 0x803;
  ev->ino = UINT64_C (0x123456789a);
  ev->fd_flags = PC_FD_WRITE | PC_FD_DSYNC;
  ev->offset = 4096;
  ev->length = 8192;
  ev->arg_flags = 0x2;
  ev->mode = 0644;
  ev->addr = UINT64_C (0x7f0000001000);
  ev->size = 12288;
  ev->value_hash = UINT64_C (0xdeadbeefcafef00d);
  snprintf (ev->path[0], sizeof ev->path[0], "/repo/a");
  snprintf (ev->path[1], sizeof ev->path[1], "/repo/b with space");
  ev->first_block = 1;
  ev->nhashes = nhashes;
  ev->hashes = hashes;
}

static void
assert_same (const struct pc_event *a, const struct pc_event *b)
{
  ck_assert_uint_eq (a->kind, b->kind);
  ck_assert_uint_eq (a->op, b->op);
  ck_assert_uint_eq (a->flags, b->flags);
  ck_assert_uint_eq (a->seq, b->seq);
  ck_assert_int_eq (a->pid, b->pid);
  ck_assert_int_eq (a->tid, b->tid);
  ck_assert_uint_eq (a->mono_ns, b->mono_ns);
  ck_assert_uint_eq (a->real_ns, b->real_ns);
  ck_assert_int_eq (a->nr, b->nr);
  ck_assert_str_eq (a->name, b->name);
  ck_assert_str_eq (a->text, b->text);
  ck_assert_int_eq (a->result, b->result);
  ck_assert_int_eq (a->fd, b->fd);
  ck_assert_uint_eq (a->dev, b->dev);
  ck_assert_uint_eq (a->ino, b->ino);
  ck_assert_uint_eq (a->fd_flags, b->fd_flags);
  ck_assert_uint_eq (a->offset, b->offset);
  ck_assert_uint_eq (a->length, b->length);
  ck_assert_uint_eq (a->arg_flags, b->arg_flags);
  ck_assert_uint_eq (a->mode, b->mode);
  ck_assert_uint_eq (a->addr, b->addr);
  ck_assert_uint_eq (a->size, b->size);
  ck_assert_uint_eq (a->value_hash, b->value_hash);
  ck_assert_str_eq (a->path[0], b->path[0]);
  ck_assert_str_eq (a->path[1], b->path[1]);
  ck_assert_uint_eq (a->first_block, b->first_block);
  ck_assert_uint_eq (a->nhashes, b->nhashes);
  for (uint32_t i = 0; i < a->nhashes; i++)
    ck_assert_uint_eq (a->hashes[i], b->hashes[i]);
}

START_TEST (test_roundtrip)
{
  uint64_t hashes[3] = { 1, UINT64_MAX, 0x0102030405060708 };
  struct pc_event ev, d;
  struct pc_err err;
  uint8_t *buf;
  size_t len;

  sample (&ev, hashes, 3);
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), 0);
  ck_assert_uint_eq (pc_get_le32 (buf), PC_EVENT_MAGIC);
  ck_assert_int_eq (memcmp (buf, "PCEV", 4), 0);
  ck_assert_int_eq (pc_event_decode (buf, len, &d, &err), 0);
  assert_same (&ev, &d);
  pc_event_free (&d);
  ck_assert_ptr_null (d.hashes);
  free (buf);

  /* An entry: no result, size or hashes; negative numbers kept. */
  sample (&ev, NULL, 0);
  ev.kind = PC_EVENT_ENTRY;
  ev.op = PC_OP_RENAME;
  ev.flags = 0;
  ev.result = 0;
  ev.fd = -1;
  ev.pid = -7;
  ev.text[0] = '\0';
  ev.path[1][0] = '\0';
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), 0);
  ck_assert_int_eq (pc_event_decode (buf, len, &d, &err), 0);
  assert_same (&ev, &d);
  ck_assert_ptr_null (d.hashes);
  free (buf);

  /* A failed exit: its errno, nothing else. */
  sample (&ev, NULL, 0);
  ev.flags = PC_EVENT_F_IDENTITY;
  ev.result = -EBADF;
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), 0);
  ck_assert_int_eq (pc_event_decode (buf, len, &d, &err), 0);
  ck_assert_int_eq (d.result, -EBADF);
  free (buf);
}
END_TEST

/* Strings at their bounds pass; one byte more is refused on both sides. */
START_TEST (test_bounds)
{
  static struct pc_event ev, d;
  uint8_t *buf;
  size_t len;
  uint64_t *many;

  sample (&ev, NULL, 0);
  memset (ev.path[0], 'p', PC_EVENT_PATH_MAX - 1);
  ev.path[0][PC_EVENT_PATH_MAX - 1] = '\0';
  memset (ev.text, 't', PC_EVENT_TEXT_MAX - 1);
  ev.text[PC_EVENT_TEXT_MAX - 1] = '\0';
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), 0);
  ck_assert_int_eq (pc_event_decode (buf, len, &d, NULL), 0);
  assert_same (&ev, &d);
  free (buf);

  ev.path[0][PC_EVENT_PATH_MAX - 1] = 'p';
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), -EINVAL);
  sample (&ev, NULL, 0);
  memset (ev.name, 'n', sizeof ev.name);
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), -EINVAL);

  /* The most hashes, and one more. */
  many = calloc (PC_EVENT_HASHES_MAX + 1, sizeof *many);
  ck_assert_ptr_nonnull (many);
  for (uint32_t i = 0; i <= PC_EVENT_HASHES_MAX; i++)
    many[i] = i * UINT64_C (0x9e3779b97f4a7c15);
  sample (&ev, many, PC_EVENT_HASHES_MAX);
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), 0);
  ck_assert_int_eq (pc_event_decode (buf, len, &d, NULL), 0);
  assert_same (&ev, &d);
  pc_event_free (&d);
  free (buf);
  sample (&ev, many, PC_EVENT_HASHES_MAX + 1);
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), -EINVAL);
  free (many);
}
END_TEST

/* Every truncation is refused with a reason, never misread. */
START_TEST (test_truncated)
{
  uint64_t hashes[2] = { 5, 6 };
  struct pc_event ev, d;
  struct pc_err err;
  uint8_t *buf;
  size_t len;

  sample (&ev, hashes, 2);
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), 0);
  for (size_t cut = 0; cut < len; cut++) {
    err.msg[0] = '\0';
    ck_assert_int_eq (pc_event_decode (buf, cut, &d, &err), -EBADMSG);
    ck_assert_msg (strncmp (err.msg, "event: ", 7) == 0 && err.msg[7], "%s", err.msg);
    ck_assert_ptr_null (d.hashes);
  }
  free (buf);
}
END_TEST

/* Decodes buf after f changed it; returns the result, the reason in err. */
static int
garble (void (*f) (uint8_t *, size_t *), struct pc_err *err)
{
  uint64_t hashes[2] = { 5, 6 };
  struct pc_event ev, d;
  uint8_t *buf;
  size_t len;
  int r;

  sample (&ev, hashes, 2);
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), 0);
  buf = realloc (buf, len + 16);
  ck_assert_ptr_nonnull (buf);
  f (buf, &len);
  err->msg[0] = '\0';
  r = pc_event_decode (buf, len, &d, err);
  if (r == 0)
    pc_event_free (&d);
  free (buf);
  return r;
}

static uint8_t *
find (uint8_t *buf, size_t len, const char *s)
{
  uint8_t *p = memmem (buf, len, s, strlen (s));

  ck_assert_ptr_nonnull (p);
  return p;
}

static void g_magic (uint8_t *b, size_t *n) { b[0] = 'X'; }
static void g_version (uint8_t *b, size_t *n) { b[4] = 2; }
static void g_kind (uint8_t *b, size_t *n) { b[6] = 3; }
static void g_op (uint8_t *b, size_t *n) { b[7] = PC_OP_MAX_ + 1; }
static void g_op0 (uint8_t *b, size_t *n) { b[7] = 0; }
static void g_flags (uint8_t *b, size_t *n) { b[11] = 0x80; }
static void g_name (uint8_t *b, size_t *n) { find (b, *n, "pwrite64")[0] = 'P'; }
static void g_name_empty (uint8_t *b, size_t *n) { find (b, *n, "pwrite64")[-1] = 0; }
static void g_path_nul (uint8_t *b, size_t *n) { find (b, *n, "/repo/b")[3] = 0; }
static void g_path_long (uint8_t *b, size_t *n)
{
  pc_put_le16 (find (b, *n, "/repo/b with") - 2, PC_EVENT_PATH_MAX);
}
static void g_text_nul (uint8_t *b, size_t *n) { find (b, *n, "pwrite64(")[0] = 0; }
static void g_trailing (uint8_t *b, size_t *n) { b[(*n)++] = 0; }
static void g_nhashes (uint8_t *b, size_t *n) { pc_put_le32 (b + *n - 20, 3); }
static void g_nhashes_huge (uint8_t *b, size_t *n) { pc_put_le32 (b + *n - 20, 0xffffffffu); }
static void g_first_block (uint8_t *b, size_t *n) { pc_put_le64 (b + *n - 28, UINT64_MAX - 1); }
static void g_entry_hashes (uint8_t *b, size_t *n) { b[6] = PC_EVENT_ENTRY; }
static void g_fdflags (uint8_t *b, size_t *n)
{
  /* fd_flags follows dev and ino, which follow the result and the fd */
  uint8_t *p = find (b, *n, "= 8192") + 6 + 8 + 4 + 8 + 8;
  pc_put_le32 (p, 0x100);
}
static void g_failed_size (uint8_t *b, size_t *n)
{
  pc_put_le64 (find (b, *n, "= 8192") + 6, (uint64_t) -EIO);
}

START_TEST (test_garbled)
{
  static const struct {
    void (*f) (uint8_t *, size_t *);
    const char *why;
  } cases[] = {
    { g_magic, "magic: not PCEV" },
    { g_version, "version: not 1" },
    { g_kind, "kind: neither" },
    { g_op, "op: unknown" },
    { g_op0, "op: unknown" },
    { g_flags, "flags: unknown bits" },
    { g_name, "name: not a call's name" },
    { g_name_empty, "name: " },
    { g_path_nul, "path[1]: a NUL byte inside" },
    { g_path_long, "path[1]: longer than its bound" },
    { g_text_nul, "text: a NUL byte inside" },
    { g_trailing, "end: bytes after the hashes" },
    { g_nhashes, "hashes: more than the payload holds" },
    { g_nhashes_huge, "hashes: more than PC_EVENT_HASHES_MAX" },
    { g_first_block, "hashes: blocks past" },
    { g_entry_hashes, "an entry with a result" },
    { g_fdflags, "fd_flags: unknown bits" },
    { g_failed_size, "a failed or lost call" },
  };
  struct pc_err err;

  for (size_t i = 0; i < PC_ARRAY_SIZE (cases); i++) {
    ck_assert_int_eq (garble (cases[i].f, &err), -EBADMSG);
    ck_assert_msg (strstr (err.msg, cases[i].why) != NULL, "case %zu: \"%s\" lacks \"%s\"",
                   i, err.msg, cases[i].why);
    ck_assert_msg (strncmp (err.msg, "event: ", 7) == 0, "%s", err.msg);
  }
}
END_TEST

/* Any byte changed anywhere: a valid event or a refusal, never a crash or
 * a string without its end. */
START_TEST (test_flips)
{
  uint64_t hashes[4] = { 1, 2, 3, 4 }, x = 7;
  struct pc_event ev, d;
  uint8_t *buf;
  size_t len;

  sample (&ev, hashes, 4);
  ck_assert_int_eq (pc_event_encode (&ev, &buf, &len), 0);
  for (int round = 0; round < 20000; round++) {
    size_t at = pc_splitmix64 (&x) % len;
    uint8_t old = buf[at];
    int r;

    buf[at] ^= (uint8_t) (1 + pc_splitmix64 (&x) % 255);
    r = pc_event_decode (buf, len, &d, NULL);
    ck_assert (r == 0 || r == -EBADMSG);
    if (r == 0) {
      ck_assert_ptr_nonnull (memchr (d.path[0], 0, sizeof d.path[0]));
      ck_assert_ptr_nonnull (memchr (d.text, 0, sizeof d.text));
      pc_event_free (&d);
    }
    buf[at] = old;
  }
  free (buf);
}
END_TEST

START_TEST (test_op_names)
{
  ck_assert_str_eq (pc_event_op_name (PC_OP_WRITE), "write");
  ck_assert_str_eq (pc_event_op_name (PC_OP_UNTRACEABLE), "untraceable");
  ck_assert_str_eq (pc_event_op_name (0), "?");
  ck_assert_str_eq (pc_event_op_name (PC_OP_MAX_ + 1), "?");
  for (unsigned op = 1; op <= PC_OP_MAX_; op++)
    ck_assert_str_ne (pc_event_op_name (op), "?");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("event");
  TCase *tc = tcase_create ("encoding");

  tcase_add_test (tc, test_roundtrip);
  tcase_add_test (tc, test_bounds);
  tcase_add_test (tc, test_truncated);
  tcase_add_test (tc, test_garbled);
  tcase_add_test (tc, test_flips);
  tcase_add_test (tc, test_op_names);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
