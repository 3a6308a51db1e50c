/* check_history.c: unit tests of lib/oracle/history on hand-made logs of
 * events: what a crash state's file may hold after a program's calls, and
 * what each finding rests on. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "format/event.h"
#include "format/log.h"
#include "format/mark.h"
#include "oracle/history.h"
#include "util/xxh.h"
#include "unit.h"

#define MAXREC 64

static struct pc_index ix;
static struct pc_record recs[MAXREC];
static uint8_t *payload[MAXREC];
static int32_t next_tid = 100;

static void
reset (void)
{
  for (unsigned i = 0; i < MAXREC; i++) {
    free (payload[i]);
    payload[i] = NULL;
  }
  memset (recs, 0, sizeof recs);
  memset (&ix, 0, sizeof ix);
  ix.recs = recs;
}

static uint64_t
add_rec (enum pc_rec_type type, uint8_t *data, size_t len)
{
  uint64_t i = ix.n++;

  ck_assert_uint_lt (i, MAXREC);
  recs[i].type = type;
  recs[i].seq = i;
  recs[i].time_ns = i * UINT64_C(100000000);   /* record i at i / 10 s */
  recs[i].data = data;
  recs[i].datalen = (uint32_t) len;
  payload[i] = data;
  return i;
}

/* The first mark: an empty root but lost+found, synced. */
static void
mkfs_mark (void)
{
  struct pc_mark m = { 0 };
  struct pc_entry e = { 0 };
  uint8_t *buf;
  size_t len;

  e.path = (char *) "lost+found";
  e.type = PC_ENTRY_DIR;
  e.mode = 040700;
  m.name = (char *) "mkfs";
  m.flags = PC_MARK_F_SYNC | PC_MARK_F_MANIFEST;
  m.entries = &e;
  m.nentries = 1;
  ck_assert_int_eq (pc_mark_encode (&m, &buf, &len), 0);
  add_rec (PC_REC_MARK, buf, len);
}

/* A call: its entry and exit events (ev's kind set for each).  Returns
 * the record of its entry. */
static uint64_t
call (struct pc_event *ev, int64_t result)
{
  uint8_t *buf;
  size_t len;
  uint64_t at;

  struct pc_event in = *ev;

  ev->tid = ev->pid = in.tid = in.pid = next_tid++;
  /* what the entry cannot know yet: the result, the size, the hashes */
  in.kind = PC_EVENT_ENTRY;
  in.result = 0;
  in.flags &= ~PC_EVENT_F_SIZE;
  in.size = 0;
  in.nhashes = 0;
  in.hashes = NULL;
  in.first_block = 0;
  ck_assert_int_eq (pc_event_encode (&in, &buf, &len), 0);
  at = add_rec (PC_REC_EVENT, buf, len);
  ev->kind = PC_EVENT_EXIT;
  ev->result = result;
  ck_assert_int_eq (pc_event_encode (ev, &buf, &len), 0);
  add_rec (PC_REC_EVENT, buf, len);
  return at;
}

static void ev_init (struct pc_event *ev, uint8_t op, const char *name, const char *path);

/* A call's entry by thread tid of process pid (what the entry cannot
 * know yet left out); its record. */
static uint64_t
entry_of (const struct pc_event *ev, int32_t pid, int32_t tid)
{
  struct pc_event in = *ev;
  uint8_t *buf;
  size_t len;

  in.pid = pid;
  in.tid = tid;
  in.kind = PC_EVENT_ENTRY;
  in.result = 0;
  in.flags &= ~PC_EVENT_F_SIZE;
  in.size = 0;
  in.nhashes = 0;
  in.hashes = NULL;
  in.first_block = 0;
  ck_assert_int_eq (pc_event_encode (&in, &buf, &len), 0);
  return add_rec (PC_REC_EVENT, buf, len);
}

/* ... and its exit, with its result. */
static uint64_t
exit_of (struct pc_event *ev, int32_t pid, int32_t tid, int64_t result)
{
  uint8_t *buf;
  size_t len;

  ev->pid = pid;
  ev->tid = tid;
  ev->kind = PC_EVENT_EXIT;
  ev->result = result;
  ck_assert_int_eq (pc_event_encode (ev, &buf, &len), 0);
  return add_rec (PC_REC_EVENT, buf, len);
}

/* A write of content (whole file, from 0) to path (inode ino), as an
 * exit event would carry it, into ev. */
static void
write_ev (struct pc_event *ev, const char *path, uint64_t ino, const char *content,
          uint64_t *hash)
{
  ev_init (ev, PC_OP_WRITE, "write", path);
  ev->fd = 3;
  ev->fd_flags = PC_FD_WRITE;
  ev->flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE | PC_EVENT_F_RANGE;
  ev->ino = ino;
  ev->length = strlen (content);
  ev->size = strlen (content);
  *hash = XXH3_64bits (content, strlen (content));
  ev->nhashes = 1;
  ev->hashes = hash;
}

static void
ev_init (struct pc_event *ev, uint8_t op, const char *name, const char *path)
{
  memset (ev, 0, sizeof *ev);
  ev->op = op;
  ev->fd = -1;
  snprintf (ev->name, sizeof ev->name, "%s", name);
  snprintf (ev->text, sizeof ev->text, "%s(\"%s\")", name, path);
  snprintf (ev->path[0], sizeof ev->path[0], "%s", path);
}

/* open(path, O_WRONLY|O_CREAT|O_TRUNC) of a file whose inode is ino. */
static void
creat_file (const char *path, uint64_t ino)
{
  struct pc_event ev;

  ev_init (&ev, PC_OP_OPEN, "openat", path);
  ev.arg_flags = O_WRONLY | O_CREAT | O_TRUNC;
  ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE;
  ev.ino = ino;
  ev.fd = 3;
  snprintf (ev.path[1], sizeof ev.path[1], "%s", path);
  call (&ev, 3);
}

/* The file now holds content (len bytes): a write of its last bytes from
 * off, with the hashes of the blocks it touched. */
static void
write_file (const char *path, uint64_t ino, const char *content, size_t off, int64_t result)
{
  struct pc_event ev;
  uint64_t hashes[4];
  size_t len = strlen (content);

  ev_init (&ev, PC_OP_WRITE, "write", path);
  snprintf (ev.text, sizeof ev.text, "write(3</%s>, \"%s\", %zu)", path + 1, content + off,
            len - off);
  ev.fd = 3;
  ev.fd_flags = PC_FD_WRITE;
  ev.flags = PC_EVENT_F_IDENTITY;
  ev.ino = ino;
  if (result >= 0) {
    ev.flags |= PC_EVENT_F_SIZE | PC_EVENT_F_RANGE;
    ev.offset = off;
    ev.length = len - off;
    ev.size = len;
    ev.first_block = off / 4096;
    ev.nhashes = (uint32_t) ((len - 1) / 4096 - off / 4096 + 1);
    for (uint32_t i = 0; i < ev.nhashes; i++) {
      size_t b = (ev.first_block + i) * 4096;
      hashes[i] = XXH3_64bits (content + b, len - b < 4096 ? len - b : 4096);
    }
    ev.hashes = hashes;
  }
  call (&ev, result);
}

/* A write like write_file's, and what makes it durable: extra fd_flags
 * (O_SYNC, O_DSYNC) and arg_flags (RWF_SYNC, RWF_DSYNC). */
static void
write_flags (const char *path, uint64_t ino, const char *content, size_t off,
             uint32_t fd_flags, uint32_t arg_flags)
{
  struct pc_event ev;
  uint64_t hashes[4];
  size_t len = strlen (content);

  ev_init (&ev, PC_OP_WRITE, "pwritev2", path);
  ev.fd = 3;
  ev.fd_flags = PC_FD_WRITE | fd_flags;
  ev.arg_flags = arg_flags;
  ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE | PC_EVENT_F_RANGE;
  ev.ino = ino;
  ev.offset = off;
  ev.length = len - off;
  ev.size = len;
  ev.first_block = off / 4096;
  ev.nhashes = (uint32_t) ((len - 1) / 4096 - off / 4096 + 1);
  for (uint32_t i = 0; i < ev.nhashes; i++) {
    size_t b = (ev.first_block + i) * 4096;
    hashes[i] = XXH3_64bits (content + b, len - b < 4096 ? len - b : 4096);
  }
  ev.hashes = hashes;
  call (&ev, (int64_t) (len - off));
}

static void
fsync_file (const char *path, uint64_t ino)
{
  struct pc_event ev;

  ev_init (&ev, PC_OP_FSYNC, "fsync", path);
  ev.fd = 3;
  ev.flags = PC_EVENT_F_IDENTITY;
  ev.ino = ino;
  call (&ev, 0);
}

/* What a crash state holds at path: a file of content (NULL: absent). */
static struct pc_entry *
found (const char *path, const char *content)
{
  static struct pc_entry e;
  static uint64_t blocks[4];
  size_t len;

  if (content == NULL)
    return NULL;
  memset (&e, 0, sizeof e);
  len = strlen (content);
  e.path = (char *) path;
  e.type = PC_ENTRY_FILE;
  e.mode = 0100644;
  e.size = len;
  e.nblocks = (len + 4095) / 4096;
  for (size_t b = 0; b < e.nblocks; b++)
    blocks[b] = XXH3_64bits (content + b * 4096, len - b * 4096 < 4096 ? len - b * 4096 : 4096);
  e.blocks = blocks;
  return &e;
}

/* A file of len bytes, its first keep of content's, the rest zeros. */
static struct pc_entry *
found_zeros (const char *path, const char *content, size_t keep)
{
  static char buf[16384];
  struct pc_entry *e;
  size_t len = strlen (content);
  static uint64_t blocks[4];

  memset (buf, 0, sizeof buf);
  memcpy (buf, content, keep);
  e = found (path, "x");
  e->size = len;
  e->nblocks = (len + 4095) / 4096;
  e->zero_blocks = 0;
  for (size_t b = 0; b < e->nblocks; b++) {
    size_t n = len - b * 4096 < 4096 ? len - b * 4096 : 4096;
    blocks[b] = XXH3_64bits (buf + b * 4096, n);
    e->zero_blocks += buf[b * 4096] == 0 && memcmp (buf + b * 4096, buf + b * 4096 + 1, n - 1) == 0;
  }
  e->blocks = blocks;
  return e;
}

/* Judges what is at path at point; the finding kind (0: none), its
 * cause in *c (freed by the caller). */
/* judge() as of a filesystem without a journal */
static bool no_journal;

static int
judge (uint64_t point, const char *path, const struct pc_entry *f, struct pc_cause *c)
{
  struct pc_history *h;
  struct pc_history_verdict v;
  struct pc_err err;

  ck_assert_msg (pc_history_new (&ix, true, &h, &err) == 0, "%s", err.msg);
  pc_history_set_no_journal (h, no_journal);
  ck_assert_int_eq (pc_history_judge (h, point, path, f, &v), 0);
  pc_history_free (h);
  *c = v.cause;
  return v.kind;
}

static int
kind_of (uint64_t point, const char *path, const struct pc_entry *f)
{
  struct pc_cause c;
  int k = judge (point, path, f, &c);

  pc_cause_clear (&c);
  return k;
}

/* An append-only log, no fsync: any prefix that ends at a write is what
 * the program had; empty is zero-length; zeros or bytes never written in
 * its tail are flagged. */
START_TEST (test_append)
{
  struct pc_cause c;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/log", 12);
  write_file ("/log", 12, "A\n", 0, 2);
  write_file ("/log", 12, "A\nB\n", 2, 2);
  write_file ("/log", 12, "A\nB\nC\n", 4, 2);
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "log", found ("log", "A\n")), 0);
  ck_assert_int_eq (kind_of (end, "log", found ("log", "A\nB\n")), 0);
  ck_assert_int_eq (kind_of (end, "log", found ("log", "A\nB\nC\n")), 0);
  /* absent: the name was never made durable */
  ck_assert_int_eq (kind_of (end, "log", NULL), 0);
  /* empty where the program had data: the seed's case, an exposure */
  ck_assert_int_eq (judge (end, "log", found ("log", ""), &c), PC_V_ZERO_LENGTH);
  ck_assert (c.known && !c.promise);
  ck_assert_msg (c.call && strstr (c.call, "\"C") != NULL, "%s", c.call);
  ck_assert_msg (c.fix && strstr (c.fix, "fsync of log") != NULL, "%s", c.fix);
  ck_assert_int_eq (c.durable_ns, -1);
  pc_cause_clear (&c);
  /* a tail of zeros where the program wrote */
  ck_assert_int_eq (kind_of (end, "log", found_zeros ("log", "A\nB\nC\n", 4)), PC_V_MISMATCH);
  /* ... and bytes it never wrote */
  ck_assert_int_eq (kind_of (end, "log", found ("log", "A\nX\n")), PC_V_MISMATCH);
  /* before the second write started, its data is not expected */
  ck_assert_int_eq (kind_of (4, "log", found ("log", "A\nB\n")), PC_V_MISMATCH);
  ck_assert_int_eq (kind_of (4, "log", found ("log", "A\n")), 0);
}
END_TEST

/* fsync makes the file's data durable: older is durable-lost, empty is a
 * broken promise; a failed write is no version. */
START_TEST (test_fsync_and_failures)
{
  struct pc_cause c;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/f", 13);
  write_file ("/f", 13, "one\n", 0, 4);
  write_file ("/f", 13, "one\ntwo\n", 4, 4);
  fsync_file ("/f", 13);
  write_file ("/f", 13, "one\ntwo\nbad\n", 8, -28);   /* ENOSPC: nothing written */
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "f", found ("f", "one\ntwo\n")), 0);
  /* the failed write's data was never a version */
  ck_assert_int_eq (kind_of (end, "f", found ("f", "one\ntwo\nbad\n")), PC_V_MISMATCH);
  /* older than what fsync made durable */
  ck_assert_int_eq (judge (end, "f", found ("f", "one\n"), &c), PC_V_DURABLE_LOST);
  ck_assert (c.known && c.promise);
  ck_assert_msg (c.durable_by && strstr (c.durable_by, "fsync") != NULL, "%s", c.durable_by);
  ck_assert_int_ge (c.durable_ns, 0);
  pc_cause_clear (&c);
  /* empty after fsync: a broken promise */
  ck_assert_int_eq (judge (end, "f", found ("f", ""), &c), PC_V_ZERO_LENGTH);
  ck_assert (c.known && c.promise);
  pc_cause_clear (&c);
  /* zeros where fsync'd data was: zero-filled, a broken promise */
  ck_assert_int_eq (judge (end, "f", found_zeros ("f", "one\ntwo\n", 0), &c), PC_V_ZERO_FILLED);
  ck_assert (c.promise);
  pc_cause_clear (&c);
}
END_TEST

/* Rename over an existing file: before the directory is synced the name
 * may hold either file; after a sync, only the new one. */
START_TEST (test_rename)
{
  struct pc_event ev;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/cfg", 20);
  write_file ("/cfg", 20, "v1\n", 0, 3);
  ev_init (&ev, PC_OP_SYNC, "sync", "");
  call (&ev, 0);
  creat_file ("/cfg.tmp", 21);
  write_file ("/cfg.tmp", 21, "v2\n", 0, 3);
  fsync_file ("/cfg.tmp", 21);
  ev_init (&ev, PC_OP_RENAME, "rename", "/cfg.tmp");
  snprintf (ev.path[1], sizeof ev.path[1], "/cfg");
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "cfg", found ("cfg", "v1\n")), 0);
  ck_assert_int_eq (kind_of (end, "cfg", found ("cfg", "v2\n")), 0);
  ck_assert_int_eq (kind_of (end, "cfg", found ("cfg", "v3\n")), PC_V_MISMATCH);
  /* the old name may be there still, or gone */
  ck_assert_int_eq (kind_of (end, "cfg.tmp", NULL), 0);
  ck_assert_int_eq (kind_of (end, "cfg.tmp", found ("cfg.tmp", "v2\n")), 0);
  /* synced: the name holds the new file, its data durable */
  ev_init (&ev, PC_OP_SYNCFS, "syncfs", "/");
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "cfg", found ("cfg", "v2\n")), 0);
  ck_assert_int_eq (kind_of (end, "cfg", NULL), PC_V_MISSING);
  ck_assert_int_eq (kind_of (end, "cfg.tmp", NULL), 0);
}
END_TEST

/* A rename over an empty durable file, its directory not synced: the
 * old empty file is a state the name may hold, and not a zero-length
 * loss; the new file found empty (its inode) lost what fsync made
 * durable; another name's data is judged as before. */
START_TEST (test_rename_over_empty)
{
  struct pc_event ev;
  struct pc_entry *e;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/f", 20);
  ev_init (&ev, PC_OP_SYNC, "sync", "");
  call (&ev, 0);
  creat_file ("/f.new", 21);
  write_file ("/f.new", 21, "new\n", 0, 4);
  fsync_file ("/f.new", 21);
  ev_init (&ev, PC_OP_RENAME, "rename", "/f.new");
  snprintf (ev.path[1], sizeof ev.path[1], "/f");
  call (&ev, 0);
  end = ix.n - 1;
  e = found ("f", "");
  e->ino = 20;
  ck_assert_int_eq (kind_of (end, "f", e), 0);
  e = found ("f", "");
  ck_assert_int_eq (kind_of (end, "f", e), 0);       /* its inode not known */
  ck_assert_int_eq (kind_of (end, "f", found ("f", "new\n")), 0);
  e = found ("f", "");
  e->ino = 21;
  ck_assert_int_eq (kind_of (end, "f", e), PC_V_ZERO_LENGTH);
  ck_assert_int_eq (kind_of (end, "f", found ("f", "old\n")), PC_V_MISMATCH);
}
END_TEST

/* Whose fault a loss of data never made durable is: the program's where
 * it gave up a durable version (a rename over it, an unlink and a new
 * file), nobody's where the durable file was moved to another name and
 * the name made anew; and a rename over an empty file never synced, found
 * not yet done (its inode), is no loss at all. */
START_TEST (test_gave_up)
{
  struct pc_event ev;
  struct pc_entry *e;
  struct pc_cause c;
  uint64_t end;

  /* f empty, never synced; f.new fsync'd, renamed over it */
  reset ();
  mkfs_mark ();
  creat_file ("/f", 20);
  creat_file ("/f.new", 21);
  write_file ("/f.new", 21, "new\n", 0, 4);
  fsync_file ("/f.new", 21);
  ev_init (&ev, PC_OP_RENAME, "rename", "/f.new");
  snprintf (ev.path[1], sizeof ev.path[1], "/f");
  call (&ev, 0);
  end = ix.n - 1;
  e = found ("f", "");
  e->ino = 20;
  ck_assert_int_eq (kind_of (end, "f", e), 0);
  e = found ("f", "");
  e->ino = 21;
  ck_assert_int_eq (judge (end, "f", e, &c), PC_V_ZERO_LENGTH);
  ck_assert (c.promise);
  pc_cause_clear (&c);

  /* g synced with data, then unlinked and made anew by the process's
   * next call, as install does, not synced: found empty, the program
   * gave up its durable version; made anew later (a scratch file
   * deleted, then made again): a deletion, nobody's */
  for (int later = 0; later < 2; later++) {
    reset ();
    mkfs_mark ();
    creat_file ("/g", 30);
    write_file ("/g", 30, "old\n", 0, 4);
    ev_init (&ev, PC_OP_SYNC, "sync", "");
    call (&ev, 0);
    ev_init (&ev, PC_OP_UNLINK, "unlink", "/g");
    entry_of (&ev, 7, 7);
    exit_of (&ev, 7, 7, 0);
    if (later) {
      ev_init (&ev, PC_OP_UNLINK, "unlink", "/other");
      entry_of (&ev, 7, 7);
      exit_of (&ev, 7, 7, 0);
    }
    ev_init (&ev, PC_OP_OPEN, "openat", "/g");
    ev.arg_flags = O_WRONLY | O_CREAT | O_TRUNC;
    ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE;
    ev.ino = 31;
    ev.fd = 3;
    snprintf (ev.path[1], sizeof ev.path[1], "/g");
    entry_of (&ev, 7, 7);
    exit_of (&ev, 7, 7, 3);
    write_file ("/g", 31, "newer\n", 0, 6);
    end = ix.n - 1;
    ck_assert_int_eq (judge (end, "g", found ("g", ""), &c), PC_V_ZERO_LENGTH);
    ck_assert (!c.promise);
    ck_assert (c.program == !later);
    if (!later) {
      ck_assert_ptr_nonnull (strstr (c.rule, "unlink(\"/g\") removed it"));
      ck_assert_ptr_nonnull (strstr (c.fix, "rename it over g"));
    }
    pc_cause_clear (&c);
  }

  /* the synced file moved to h.done (and deleted there later), g made
   * anew: nothing durable lost at g */
  reset ();
  mkfs_mark ();
  creat_file ("/g", 30);
  write_file ("/g", 30, "old\n", 0, 4);
  ev_init (&ev, PC_OP_SYNC, "sync", "");
  call (&ev, 0);
  ev_init (&ev, PC_OP_RENAME, "rename", "/g");
  snprintf (ev.path[1], sizeof ev.path[1], "/h.done");
  call (&ev, 0);
  creat_file ("/g", 31);
  write_file ("/g", 31, "newer\n", 0, 6);
  ev_init (&ev, PC_OP_UNLINK, "unlink", "/h.done");
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (judge (end, "g", found ("g", ""), &c), PC_V_ZERO_LENGTH);
  ck_assert (!c.promise && !c.program);
  pc_cause_clear (&c);
}
END_TEST

/* A synced file renamed over another synced one, then appended to and
 * never synced: the append lost is nobody's, the rename gave nothing up
 * (the hunt's rename.over f0 fsync; write.append.1 f1 fsync.parent).  The
 * same with a file whose data was not durable when renamed: the
 * program's. */
START_TEST (test_renamed_durable_then_appended)
{
  struct pc_event ev;
  struct pc_cause c;
  uint64_t end;
  int k;

  for (int synced = 0; synced < 2; synced++) {
    reset ();
    mkfs_mark ();
    creat_file ("/f1", 41);
    write_file ("/f1", 41, "one\n", 0, 4);
    if (!synced) {
      ev_init (&ev, PC_OP_SYNC, "sync", "");
      call (&ev, 0);
    }
    creat_file ("/f0", 40);
    write_file ("/f0", 40, "zero\n", 0, 5);
    if (synced) {
      ev_init (&ev, PC_OP_SYNC, "sync", "");
      call (&ev, 0);
    }
    ev_init (&ev, PC_OP_RENAME, "rename", "/f0");
    snprintf (ev.path[1], sizeof ev.path[1], "/f1");
    snprintf (ev.text, sizeof ev.text, "rename(\"f0\", \"f1\") = 0");
    call (&ev, 0);
    write_file ("/f1", 40, "zero\nb", 5, 1);
    end = ix.n - 1;
    {
      struct pc_entry *e = found_zeros ("f1", "zero\nb", synced ? 5 : 0);
      e->ino = 40;
      k = judge (end, "f1", e, &c);
    }
    ck_assert_msg (k != 0 && !c.promise && c.program == !synced, "synced %d: %s, promise %d, program %d",
                   synced, pc_finding_name (k), c.promise, c.program);
    pc_cause_clear (&c);
  }
}
END_TEST

/* A file written through io_uring is not judged. */
START_TEST (test_untraceable)
{
  struct pc_event ev;
  struct pc_cause c;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/db", 30);
  write_file ("/db", 30, "page\n", 0, 5);
  ev_init (&ev, PC_OP_UNTRACEABLE, "io_uring_enter", "/db");
  ev.flags = PC_EVENT_F_IDENTITY;
  ev.ino = 30;
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (judge (end, "db", found ("db", "anything else\n"), &c), PC_F_NOT_JUDGED);
  ck_assert_msg (c.rule && strstr (c.rule, "cannot follow") != NULL, "%s", c.rule);
  pc_cause_clear (&c);
  /* before it, judged as ever */
  ck_assert_int_eq (kind_of (end - 2, "db", found ("db", "anything else\n")), PC_V_MISMATCH);

  /* a shared mapping written and never msync'd or unmapped: not judged
   * from the mmap on */
  reset ();
  mkfs_mark ();
  creat_file ("/m", 31);
  write_file ("/m", 31, "page\n", 0, 5);
  ev_init (&ev, PC_OP_MMAP, "mmap", "/m");
  ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_RANGE;
  ev.ino = 31;
  ev.mode = PROT_READ | PROT_WRITE;
  ev.offset = 0;
  ev.length = 4096;
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (judge (end, "m", found ("m", "mapped\n"), &c), PC_F_NOT_JUDGED);
  ck_assert_msg (c.rule && strstr (c.rule, "never msync'd") != NULL, "%s", c.rule);
  ck_assert_msg (c.call && strstr (c.call, "mmap") != NULL, "%s", c.call);
  pc_cause_clear (&c);
  ck_assert_int_eq (kind_of (end - 2, "m", found ("m", "mapped\n")), PC_V_MISMATCH);

  /* a file the end of the recording holds as the program never had it:
   * something the tracer does not see wrote it */
  reset ();
  mkfs_mark ();
  creat_file ("/o", 32);
  write_file ("/o", 32, "mine\n", 0, 5);
  end = ix.n - 1;
  {
    struct pc_history *h;
    struct pc_history_verdict v;
    struct pc_err err;
    struct pc_mark m = { 0 };
    ck_assert_msg (pc_history_new (&ix, true, &h, &err) == 0, "%s", err.msg);
    m.entries = found ("o", "mine\n");
    m.nentries = 1;
    ck_assert_int_eq (pc_history_set_end (h, end, &m), 0);
    ck_assert_int_eq (pc_history_judge (h, end, "o", found ("o", "theirs\n"), &v), 0);
    ck_assert_int_eq (v.kind, PC_V_MISMATCH);
    pc_cause_clear (&v.cause);
    m.entries = found ("o", "theirs\n");
    ck_assert_int_eq (pc_history_set_end (h, end, &m), 0);
    ck_assert_int_eq (pc_history_judge (h, end, "o", found ("o", "theirs\n"), &v), 0);
    ck_assert_int_eq (v.kind, PC_F_NOT_JUDGED);
    ck_assert_msg (strstr (v.cause.rule, "does not see") != NULL, "%s", v.cause.rule);
    pc_cause_clear (&v.cause);
    /* zeros at the end are a loss, judged as ever */
    m.entries = found_zeros ("o", "mine\n", 0);
    ck_assert_int_eq (pc_history_set_end (h, end, &m), 0);
    ck_assert_int_eq (pc_history_judge (h, end, "o", found_zeros ("o", "mine\n", 0), &v), 0);
    ck_assert_int_eq (v.kind, PC_V_ZERO_FILLED);
    pc_cause_clear (&v.cause);
    pc_history_free (h);
  }
}
END_TEST

/* What an application's checker needed: the state holds the old ref,
 * which a crash may keep (the rename was never made durable), but the
 * program had renamed the new one over it by its acknowledgement. */
START_TEST (test_older)
{
  struct pc_history *h;
  struct pc_history_verdict v;
  struct pc_err err;
  struct pc_event ev;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/refs/master", 50);
  write_file ("/refs/master", 50, "c1\n", 0, 3);
  ev_init (&ev, PC_OP_SYNC, "sync", "");
  call (&ev, 0);
  creat_file ("/refs/master.lock", 51);
  write_file ("/refs/master.lock", 51, "c2\n", 0, 3);
  fsync_file ("/refs/master.lock", 51);
  ev_init (&ev, PC_OP_RENAME, "rename", "/refs/master.lock");
  snprintf (ev.text, sizeof ev.text, "rename(\"/refs/master.lock\", \"/refs/master\")");
  snprintf (ev.path[1], sizeof ev.path[1], "/refs/master");
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_msg (pc_history_new (&ix, true, &h, &err) == 0, "%s", err.msg);
  /* allowed: the rename was never made durable */
  ck_assert_int_eq (pc_history_judge (h, end, "refs/master", found ("refs/master", "c1\n"), &v), 0);
  /* but older than what the program had at end: the rename lost, and
   * what would have kept it */
  ck_assert_int_eq (pc_history_older (h, end, end, true, "refs/master", found ("refs/master", "c1\n"),
                                      &v), 0);
  ck_assert_int_eq (v.kind, PC_F_OLDER);
  ck_assert (v.name && v.cause.known && !v.cause.promise);
  ck_assert_msg (v.cause.call && strstr (v.cause.call, "rename(") != NULL, "%s", v.cause.call);
  ck_assert_msg (v.cause.fix && strstr (v.cause.fix, "fsync of the directory refs ") != NULL,
                 "%s", v.cause.fix);
  ck_assert_int_eq (v.cause.durable_ns, -1);
  pc_cause_clear (&v.cause);
  /* the lock file, renamed away by then, still there: more than the
   * program had, no acknowledged loss; for a checker's restore test, a
   * path older than at the acknowledgement all the same */
  ck_assert_int_eq (pc_history_older (h, end, end, true, "refs/master.lock",
                                      found ("refs/master.lock", "c2\n"), &v), 0);
  ck_assert_int_eq (v.kind, 0);
  ck_assert_int_eq (pc_history_older (h, end, end, false, "refs/master.lock",
                                      found ("refs/master.lock", "c2\n"), &v), 0);
  ck_assert_int_eq (v.kind, PC_F_OLDER);
  pc_cause_clear (&v.cause);
  /* what the program had: nothing lost */
  ck_assert_int_eq (pc_history_older (h, end, end, true, "refs/master", found ("refs/master", "c2\n"),
                                      &v), 0);
  ck_assert_int_eq (v.kind, 0);
  /* with the acknowledgement before the rename, the old ref is no loss */
  ck_assert_int_eq (pc_history_older (h, end, end - 2, true, "refs/master",
                                      found ("refs/master", "c1\n"), &v), 0);
  ck_assert_int_eq (v.kind, 0);
  pc_history_free (h);
}
END_TEST

/* A write past the end of a file whose last block is partial: that
 * block's tail reads as zeros from then on, hashed by the tracer with the
 * write (hashed_from 0) or, where it did not, unknown (hashed_from 1). */
START_TEST (test_gap)
{
  static char content[8192];
  struct pc_event ev;
  uint64_t hashes[2], end;
  struct pc_entry *e;

  for (int hashed_from = 0; hashed_from < 2; hashed_from++) {
    reset ();
    mkfs_mark ();
    creat_file ("/g", 80);
    write_file ("/g", 80, "head\n", 0, 5);
    memset (content, 0, sizeof content);
    memcpy (content, "head\n", 5);
    memcpy (content + 6000, "tail\n", 5);
    ev_init (&ev, PC_OP_WRITE, "pwrite64", "/g");
    ev.fd = 3;
    ev.fd_flags = PC_FD_WRITE;
    ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE | PC_EVENT_F_RANGE;
    ev.ino = 80;
    ev.offset = 6000;
    ev.length = 5;
    ev.size = 6005;
    ev.first_block = (uint64_t) hashed_from;
    ev.nhashes = 2 - (uint32_t) hashed_from;
    hashes[0] = XXH3_64bits (content, 4096);
    hashes[1] = XXH3_64bits (content + 4096, 6005 - 4096);
    ev.hashes = hashes + hashed_from;
    call (&ev, 5);
    end = ix.n - 1;
    /* what the program had: head, zeros, tail */
    e = found ("g", "x");
    e->size = 6005;
    e->nblocks = 2;
    e->blocks = hashes;
    e->zero_blocks = 0;
    ck_assert_int_eq (kind_of (end, "g", e), 0);
  }
}
END_TEST

/* A file of size bytes in two blocks whose hashes are h. */
static struct pc_entry *
two_blocks (const char *path, uint64_t size, uint64_t *h)
{
  struct pc_entry *e = found (path, "x");

  e->size = size;
  e->nblocks = 2;
  e->blocks = h;
  e->zero_blocks = 0;
  return e;
}

/* Call ev (its op and name set) on /t (inode 90) over [off, off + len),
 * the file then size bytes, as now holds them: blocks [first, first + n)
 * hashed up to the end, as the tracer does. */
static void
on_t (struct pc_event *ev, const char *now, uint64_t off, uint64_t len, uint64_t size,
      uint64_t first, uint32_t n, int64_t result)
{
  uint64_t h[4];

  ck_assert_uint_le (n, 4);
  ev->fd = 3;
  ev->flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE | PC_EVENT_F_RANGE;
  ev->ino = 90;
  ev->offset = off;
  ev->length = len;
  ev->size = size;
  ev->first_block = first;
  ev->nhashes = n;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t b = (first + i) * 4096;
    h[i] = XXH3_64bits (now + b, size - b < 4096 ? size - b : 4096);
  }
  ev->hashes = h;
  call (ev, result);
}

/* pwrite64 of len bytes at off to /t: the blocks it touched hashed. */
static void
pwrite_t (const char *now, uint64_t off, uint64_t len, uint64_t size)
{
  struct pc_event ev;

  ev_init (&ev, PC_OP_WRITE, "pwrite64", "/t");
  ev.fd_flags = PC_FD_WRITE;
  on_t (&ev, now, off, len, size, off / 4096,
        (uint32_t) ((off + len - 1) / 4096 - off / 4096 + 1), (int64_t) len);
}

/* fallocate(mode) of [off, off + len) of /t: blocks [first, first + n)
 * hashed (those the call changed, as the tracer finds them). */
static void
falloc_t (const char *now, unsigned mode, uint64_t off, uint64_t len, uint64_t size,
          uint64_t first, uint32_t n)
{
  struct pc_event ev;

  ev_init (&ev, PC_OP_FALLOCATE, "fallocate", "/t");
  ev.arg_flags = mode;
  on_t (&ev, now, off, len, size, first, n, 0);
}

/* ftruncate(size) of /t (inode 90), the file now content[0..size): the
 * block around the smaller of the old and new sizes hashed, as the tracer
 * does. */
static void
truncate_to (const char *content, uint64_t old, uint64_t size)
{
  struct pc_event ev;
  uint64_t lo = old < size ? old : size, h;

  ev_init (&ev, PC_OP_TRUNCATE, "ftruncate", "/t");
  ev.fd = 3;
  ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE | PC_EVENT_F_RANGE;
  ev.ino = 90;
  ev.offset = lo;
  ev.length = old < size ? size - old : old - size;
  ev.size = size;
  if (lo % 4096) {
    uint64_t b = lo / 4096 * 4096;
    h = XXH3_64bits (content + b, size - b < 4096 ? size - b : 4096);
    ev.first_block = lo / 4096;
    ev.nhashes = 1;
    ev.hashes = &h;
  }
  call (&ev, 0);
}

/* What fsync made durable stays, whatever changes the file later: a state
 * shorter than its durable size and every size since (a truncate up, an
 * append after it), or a block found as it was before the fsync or as
 * zeros under a later rewrite, lost the durable version: a broken promise
 * that names the fsync, in whatever form the loss takes. */
START_TEST (test_durable_behind_later)
{
  static char x12[12289], a12[12289], a16[16385], b12[12289], a8[8193], z12[12289];
  struct pc_cause c;
  uint64_t end;
  int k;

  memset (x12, 'x', 12288);
  memset (a12, 'a', 12288);
  memset (a16, 'a', 16384);
  memset (a16 + 12288, 'b', 4096);
  memcpy (b12, a12, 12288);
  memset (b12, 'b', 4096);
  memset (a8, 'a', 8192);
  for (int later = 0; later < 3; later++) {
    reset ();
    mkfs_mark ();
    creat_file ("/t", 90);
    write_file ("/t", 90, x12, 0, 12288);
    write_file ("/t", 90, a12, 0, 12288);
    fsync_file ("/t", 90);
    if (later == 0)
      truncate_to (a12, 12288, 16384);          /* a truncate up, unsynced */
    else if (later == 1)
      write_file ("/t", 90, a16, 12288, 4096);  /* an append, unsynced */
    else
      write_file ("/t", 90, b12, 0, 12288);     /* a rewrite in place, unsynced */
    end = ix.n - 1;
    /* 8 KiB of the durable 12: the durable size lost */
    k = judge (end, "t", found ("t", a8), &c);
    ck_assert_msg ((k == PC_V_MISMATCH || k == PC_V_DURABLE_LOST) && c.promise, "later %d: %s, promise %d", later,
                   pc_finding_name (k), c.promise);
    ck_assert_msg (c.durable_by && strncmp (c.durable_by, "fsync", 5) == 0, "%s", c.durable_by);
    ck_assert (c.call != NULL);
    pc_cause_clear (&c);
    /* empty: the same loss as zero-length */
    k = judge (end, "t", found ("t", ""), &c);
    ck_assert_msg (k == PC_V_ZERO_LENGTH && c.promise, "later %d: %s, promise %d", later,
                   pc_finding_name (k), c.promise);
    pc_cause_clear (&c);
    /* the durable size and every block as zeros: zero-filled, a promise */
    k = judge (end, "t", found_zeros ("t", a12, 0), &c);
    ck_assert_msg (k == PC_V_ZERO_FILLED && c.promise, "later %d: %s, promise %d", later,
                   pc_finding_name (k), c.promise);
    pc_cause_clear (&c);
    /* what the file held before the fsync: rolled back */
    k = judge (end, "t", found ("t", x12), &c);
    ck_assert_msg (c.promise && (k == PC_V_DURABLE_LOST || k == PC_V_MISMATCH),
                   "later %d: %s, promise %d", later, pc_finding_name (k), c.promise);
    pc_cause_clear (&c);
    /* what the program had: nothing lost */
    ck_assert_int_eq (kind_of (end, "t", found ("t", later == 2 ? b12 : a12)), 0);
  }
  /* the first block rewritten, found as zeros, the rest durable */
  {
    struct pc_entry *e = found ("t", a12);
    memset (z12, 0, 4096);
    e->blocks[0] = XXH3_64bits (z12, 4096);
    e->zero_blocks = 1;
    k = judge (end, "t", e, &c);
  }
  ck_assert_msg (k == PC_V_MISMATCH && c.promise, "%s, promise %d", pc_finding_name (k), c.promise);
  pc_cause_clear (&c);
}
END_TEST

/* Shrunk, then grown again: what was cut reads as zeros, not as the old
 * data; a file grown past blocks never written holds holes. */
START_TEST (test_shrink_grow)
{
  static char full[8192], cut[8192];
  uint64_t h[2];

  reset ();
  mkfs_mark ();
  memset (full, 'd', sizeof full);
  full[sizeof full - 1] = '\0';
  creat_file ("/t", 90);
  write_file ("/t", 90, full, 0, 8191);
  memcpy (cut, full, 100);
  truncate_to (cut, 8191, 100);
  /* the old size over the block the truncate zeroed past its new end (as
   * ext4 writes it before the new size is committed): allowed */
  h[0] = XXH3_64bits (cut, 4096);
  h[1] = XXH3_64bits (full + 4096, 8191 - 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", two_blocks ("t", 8191, h)), 0);
  truncate_to (cut, 100, 8191);
  /* what the program had last: 100 bytes of data, then zeros */
  h[0] = XXH3_64bits (cut, 4096);
  h[1] = XXH3_64bits (cut + 4096, 8191 - 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", two_blocks ("t", 8191, h)), 0);
  /* not synced: the old data, or a mix, may be there still */
  ck_assert_int_eq (kind_of (ix.n - 1, "t", found ("t", full)), 0);
  h[1] = XXH3_64bits (full + 4096, 8191 - 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", two_blocks ("t", 8191, h)), 0);
  /* once synced, only the last: what was cut reads as zeros */
  fsync_file ("/t", 90);
  h[1] = XXH3_64bits (cut + 4096, 8191 - 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", two_blocks ("t", 8191, h)), 0);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", found ("t", full)), PC_V_DURABLE_LOST);
  h[1] = XXH3_64bits (full + 4096, 8191 - 4096);
  ck_assert_int_ne (kind_of (ix.n - 1, "t", two_blocks ("t", 8191, h)), 0);
}
END_TEST

/* A write that grows a file by more than a block: writeback may set the
 * size on disk to the end of any block it wrote first, so a crash may
 * find the file cut at a block boundary between its sizes, its data the
 * program's; not cut elsewhere, and not past its last size. */
START_TEST (test_grown_by_blocks)
{
  static char data[12289];
  uint64_t h[2];

  reset ();
  mkfs_mark ();
  memset (data, 'g', sizeof data - 1);
  creat_file ("/t", 90);
  write_file ("/t", 90, data, 0, 12288);
  h[0] = XXH3_64bits (data, 4096);
  h[1] = XXH3_64bits (data + 4096, 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", two_blocks ("t", 8192, h)), 0);
  {
    struct pc_entry *e = two_blocks ("t", 4096, h);
    e->nblocks = 1;
    ck_assert_int_eq (kind_of (ix.n - 1, "t", e), 0);
  }
  h[1] = XXH3_64bits (data + 4096, 4000);
  ck_assert_int_ne (kind_of (ix.n - 1, "t", two_blocks ("t", 8096, h)), 0);
}
END_TEST

/* fallocate(INSERT_RANGE) moves a file's blocks; not synced, a crash may
 * find them mapped where they were, holding what was written since where
 * they are now (found by powercut explore --random: an insert, then a
 * zero range over a moved block's tail).  What none of them held is still
 * a mismatch. */
START_TEST (test_shifted)
{
  static char had[12289], now[16385];
  uint64_t h[4];
  struct pc_entry *e;

  reset ();
  mkfs_mark ();
  memset (had, 'a', 4096);
  memset (had + 4096, 'b', 4096);
  memset (had + 8192, 'c', 4096);
  creat_file ("/t", 90);
  write_file ("/t", 90, had, 0, 12288);
  fsync_file ("/t", 90);
  /* insert a block at 4096: a, zeros, b, c */
  memcpy (now, had, 4096);
  memcpy (now + 8192, had + 4096, 8192);
  falloc_t (now, FALLOC_FL_INSERT_RANGE, 4096, 4096, 16384, 1, 3);
  /* then b's block, now the third, rewritten */
  memset (now + 8192, 'B', 4096);
  pwrite_t (now, 8192, 4096, 16384);
  /* the old mapping, b's block holding what was written to it since */
  e = found ("t", "x");
  e->size = 12288;
  e->nblocks = 3;
  h[0] = XXH3_64bits (had, 4096);
  h[1] = XXH3_64bits (now + 8192, 4096);
  h[2] = XXH3_64bits (had + 8192, 4096);
  e->blocks = h;
  e->zero_blocks = 0;
  ck_assert_int_eq (kind_of (ix.n - 1, "t", e), 0);
  /* a block none of them held */
  h[1] = XXH3_64bits ("x", 1);
  ck_assert_int_ne (kind_of (ix.n - 1, "t", e), 0);
}
END_TEST

/* fallocate(ZERO_RANGE) from below a partial last block's end to past it:
 * the new size may reach the disk before the block's zeroed bytes do
 * (found by powercut explore --random on data=journal), so until that is
 * durable the block is not judged; once it is, it is. */
START_TEST (test_zero_range_across_end)
{
  static char had[6001], now[9001], seen[9001];
  uint64_t h[3];
  struct pc_entry *e;

  reset ();
  mkfs_mark ();
  memset (had, 'a', 6000);
  creat_file ("/t", 90);
  write_file ("/t", 90, had, 0, 6000);
  fsync_file ("/t", 90);
  memcpy (now, had, 5000);              /* zeros from 5000 to 9000 */
  falloc_t (now, FALLOC_FL_ZERO_RANGE, 5000, 4000, 9000, 1, 2);
  /* the new size over the old bytes of the block across the old end */
  memcpy (seen, had, 6000);
  e = found ("t", "x");
  e->size = 9000;
  e->nblocks = 3;
  h[0] = XXH3_64bits (seen, 4096);
  h[1] = XXH3_64bits (seen + 4096, 4096);
  h[2] = XXH3_64bits (seen + 8192, 9000 - 8192);
  e->blocks = h;
  e->zero_blocks = 1;
  ck_assert_int_eq (kind_of (ix.n - 1, "t", e), 0);
  fsync_file ("/t", 90);
  ck_assert_int_ne (kind_of (ix.n - 1, "t", e), 0);
  h[1] = XXH3_64bits (now + 4096, 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", e), 0);
}
END_TEST

/* A file grown over a block (a truncate up; fallocate does the same),
 * synced, then written from inside that block on: the block read as
 * zeros under the older size, and a crash that keeps that size shows them
 * (found by powercut explore: falloc.plain.straddle, then write.append).
 * Zeros under the newer size, where the write put data, are not. */
START_TEST (test_grown_then_written)
{
  static char had[8192], now[8192];
  uint64_t h[2];

  reset ();
  mkfs_mark ();
  memset (had, 'd', 100);
  creat_file ("/t", 90);
  write_file ("/t", 90, had, 0, 100);
  truncate_to (had, 100, 6000);
  fsync_file ("/t", 90);
  memcpy (now, had, sizeof now);
  memset (now + 6000, 'e', 8191 - 6000);
  pwrite_t (now, 6000, 8191 - 6000, 8191);
  h[0] = XXH3_64bits (had, 4096);
  h[1] = XXH3_64bits (had + 4096, 6000 - 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", two_blocks ("t", 6000, h)), 0);
  h[1] = XXH3_64bits (now + 4096, 8191 - 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", two_blocks ("t", 8191, h)), 0);
  h[1] = XXH3_64bits (had + 4096, 8191 - 4096);
  ck_assert_int_ne (kind_of (ix.n - 1, "t", two_blocks ("t", 8191, h)), 0);
}
END_TEST

/* A durable last block that is all zeros up to the file's end (a
 * fallocate ZERO_RANGE past the end, synced), then an append not synced:
 * a crash that finds the new size over the block's old zeros and zeros
 * past them (the append's data never written: ext4's unwritten extents,
 * found by the hunt: falloc.zero.straddle f0 sync; write.append.4096 f0)
 * lost only what was never made durable, no promise. */
START_TEST (test_zero_tail_grown)
{
  static char had[6001], now[10096], zeros[4096];
  uint64_t h[3];
  struct pc_entry *e;
  struct pc_cause c;
  int k;

  reset ();
  mkfs_mark ();
  memset (had, 'a', 6000);
  creat_file ("/t", 90);
  write_file ("/t", 90, had, 0, 6000);
  fsync_file ("/t", 90);
  /* zeros from 4096 to 6096: block 1 all zeros, 2000 bytes of it */
  memcpy (now, had, 4096);
  falloc_t (now, FALLOC_FL_ZERO_RANGE, 4096, 2000, 6096, 1, 1);
  fsync_file ("/t", 90);
  /* 'b' from 6096 to 10096, never synced */
  memset (now + 6096, 'b', 4000);
  pwrite_t (now, 6096, 4000, 10096);
  /* the new size, the durable zeros, and zeros where the append wrote */
  e = found ("t", "x");
  e->size = 10096;
  e->nblocks = 3;
  h[0] = XXH3_64bits (had, 4096);
  h[1] = XXH3_64bits (zeros, 4096);
  h[2] = XXH3_64bits (zeros, 10096 - 8192);
  e->blocks = h;
  e->zero_blocks = 2;
  k = judge (ix.n - 1, "t", e, &c);
  ck_assert_msg (k != 0 && k != PC_V_DURABLE_LOST && c.known && !c.promise,
                 "%s, promise %d", pc_finding_name (k), c.promise);
  pc_cause_clear (&c);
  /* where the durable block held data up to the end ('a'), zeros under
   * the longer size lost it: a broken promise */
  reset ();
  mkfs_mark ();
  creat_file ("/t", 90);
  write_file ("/t", 90, had, 0, 6000);
  fsync_file ("/t", 90);
  memcpy (now, had, 6000);
  memset (now + 6000, 'b', 4000);
  pwrite_t (now, 6000, 4000, 10000);
  e = found ("t", "x");
  e->size = 10000;
  e->nblocks = 3;
  h[2] = XXH3_64bits (zeros, 10000 - 8192);
  e->blocks = h;
  e->zero_blocks = 2;
  k = judge (ix.n - 1, "t", e, &c);
  ck_assert_msg (k != 0 && c.promise, "%s, promise %d", pc_finding_name (k), c.promise);
  pc_cause_clear (&c);
}
END_TEST

/* A file that was there before the program (8192 bytes it never saw
 * written: any content), appended to: past its first size it held
 * nothing, so zeros where the append wrote are data lost, never made
 * durable (the hunt's falloc.zero.straddle f0 sync; write.append.4096
 * f0, once the durable zeros of f0's last block were seen as kept). */
START_TEST (test_base_then_appended)
{
  static char now[12288];
  uint64_t h[3];
  struct pc_event ev;
  struct pc_entry *e;
  struct pc_cause c;
  int k;

  reset ();
  mkfs_mark ();
  ev_init (&ev, PC_OP_OPEN, "openat", "/t");
  ev.arg_flags = O_RDWR;
  ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE;
  ev.ino = 90;
  ev.fd = 3;
  ev.size = 8192;
  snprintf (ev.path[1], sizeof ev.path[1], "/t");
  call (&ev, 3);
  memset (now + 8192, 'c', 4096);
  pwrite_t (now, 8192, 4096, 12288);
  e = found ("t", "x");
  e->size = 12288;
  e->nblocks = 3;
  h[0] = XXH3_64bits ("anything", 8);
  h[1] = XXH3_64bits ("else", 4);
  h[2] = XXH3_64bits (now, 4096);       /* zeros */
  e->blocks = h;
  e->zero_blocks = 1;
  k = judge (ix.n - 1, "t", e, &c);
  ck_assert_msg (k != 0 && c.known && !c.promise, "%s, promise %d", pc_finding_name (k), c.promise);
  pc_cause_clear (&c);
  /* the append's data there: what the program had */
  h[2] = XXH3_64bits (now + 8192, 4096);
  ck_assert_int_eq (kind_of (ix.n - 1, "t", e), 0);
}
END_TEST

/* setxattr or removexattr (value NULL) of name on /x (inode 95). */
static void
xattr_call (const char *name, const char *value)
{
  struct pc_event ev;

  ev_init (&ev, value ? PC_OP_SETXATTR : PC_OP_REMOVEXATTR, value ? "setxattr" : "removexattr",
           "/x");
  snprintf (ev.path[1], sizeof ev.path[1], "%s", name);
  ev.flags = PC_EVENT_F_IDENTITY;
  ev.ino = 95;
  if (value) {
    ev.value_hash = XXH3_64bits (value, strlen (value));
    ev.flags |= PC_EVENT_F_VALUE_HASH;
  }
  call (&ev, 0);
}

/* /x as found, with the attribute user.a of value (NULL: none). */
static struct pc_entry *
with_xattr (const char *value)
{
  static struct pc_xattr x;
  struct pc_entry *e = found ("x", "data\n");

  x.name = (char *) "user.a";
  e->xattrs = value ? &x : NULL;
  e->nxattrs = value != NULL;
  if (value)
    x.hash = XXH3_64bits (value, strlen (value));
  return e;
}

/* Extended attributes are versions too: any state since the last fsync
 * (not fdatasync) of the file; a state never set is a mismatch, and one
 * made durable and lost a broken promise. */
START_TEST (test_xattrs)
{
  struct pc_cause c;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/x", 95);
  write_file ("/x", 95, "data\n", 0, 5);
  fsync_file ("/x", 95);
  xattr_call ("user.a", "one");
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "x", with_xattr ("one")), 0);
  ck_assert_int_eq (kind_of (end, "x", with_xattr (NULL)), 0);     /* not yet durable */
  ck_assert_int_eq (judge (end, "x", with_xattr ("two"), &c), PC_V_MISMATCH);
  ck_assert (!c.promise && c.call && strstr (c.call, "setxattr") != NULL);
  ck_assert_msg (c.rule && strstr (c.rule, "user.a") != NULL, "%s", c.rule);
  pc_cause_clear (&c);
  /* fdatasync does not make it durable; fsync does */
  {
    struct pc_event ev;
    ev_init (&ev, PC_OP_FDATASYNC, "fdatasync", "/x");
    ev.fd = 3;
    ev.flags = PC_EVENT_F_IDENTITY;
    ev.ino = 95;
    call (&ev, 0);
  }
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "x", with_xattr (NULL)), 0);
  fsync_file ("/x", 95);
  end = ix.n - 1;
  ck_assert_int_eq (judge (end, "x", with_xattr (NULL), &c), PC_V_DURABLE_LOST);
  ck_assert (c.promise);
  ck_assert_msg (c.durable_by && strstr (c.durable_by, "fsync") != NULL, "%s", c.durable_by);
  pc_cause_clear (&c);
  /* removed, not yet durable: either */
  xattr_call ("user.a", NULL);
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "x", with_xattr (NULL)), 0);
  ck_assert_int_eq (kind_of (end, "x", with_xattr ("one")), 0);
  /* an attribute the program never touched is not judged */
  {
    struct pc_entry *e = with_xattr ("one");
    e->xattrs[0].name = (char *) "security.selinux";
    ck_assert_int_eq (kind_of (end, "x", e), 0);
  }
}
END_TEST

/* Two threads of one process, and a child process, writing at once: each
 * call's exit is matched to its own thread's entry, and each file is
 * judged by its own calls. */
START_TEST (test_threads)
{
  struct pc_event a, b, s;
  uint64_t ha, hb, a_in, end;
  struct pc_cause c;

  reset ();
  mkfs_mark ();
  creat_file ("/a", 101);
  creat_file ("/b", 102);
  write_ev (&a, "/a", 101, "from thread one\n", &ha);
  write_ev (&b, "/b", 102, "from thread two\n", &hb);
  a_in = entry_of (&a, 700, 700);
  entry_of (&b, 700, 701);
  exit_of (&b, 700, 701, 16);
  /* the child's fsync of b, while thread one's write is still in it */
  ev_init (&s, PC_OP_FSYNC, "fsync", "/b");
  s.fd = 4;
  s.flags = PC_EVENT_F_IDENTITY;
  s.ino = 102;
  entry_of (&s, 710, 710);
  exit_of (&s, 710, 710, 0);
  exit_of (&a, 700, 700, 16);
  end = ix.n - 1;
  /* thread one's write had started: its data may be there from its entry */
  ck_assert_int_eq (kind_of (a_in, "a", found ("a", "from thread one\n")), 0);
  ck_assert_int_eq (kind_of (a_in - 1, "a", found ("a", "from thread one\n")), PC_V_MISMATCH);
  ck_assert_int_eq (kind_of (end, "b", found ("b", "from thread two\n")), 0);
  /* b was synced by the child: empty is a broken promise; a, exposure */
  ck_assert_int_eq (judge (end, "b", found ("b", ""), &c), PC_V_ZERO_LENGTH);
  ck_assert (c.promise);
  ck_assert_msg (c.call && strstr (c.call, "write") != NULL, "%s", c.call);
  ck_assert_int_eq (c.pid, 700);
  pc_cause_clear (&c);
  ck_assert_int_eq (judge (end, "a", found ("a", ""), &c), PC_V_ZERO_LENGTH);
  ck_assert (!c.promise);
  pc_cause_clear (&c);
}
END_TEST

/* A file created anew is a new file though its inode number is one a
 * file gone since had: its history starts empty. */
START_TEST (test_inode_reused)
{
  struct pc_event ev;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/a", 60);
  write_file ("/a", 60, "old data\n", 0, 9);
  fsync_file ("/a", 60);
  ev_init (&ev, PC_OP_UNLINK, "unlink", "/a");
  call (&ev, 0);
  ev_init (&ev, PC_OP_OPEN, "openat", "/b");
  ev.arg_flags = O_RDWR | O_CREAT | O_EXCL;
  ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE;
  ev.ino = 60;
  snprintf (ev.path[1], sizeof ev.path[1], "/b");
  call (&ev, 3);
  end = ix.n - 1;
  /* b was empty, never more: no zero-length, and never a.'s data */
  ck_assert_int_eq (kind_of (end, "b", found ("b", "")), 0);
  ck_assert_int_eq (kind_of (end, "b", found ("b", "old data\n")), PC_V_MISMATCH);
  write_file ("/b", 60, "new\n", 0, 4);
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "b", found ("b", "new\n")), 0);
}
END_TEST

/* Each durability source makes what it covers a promise: O_SYNC, O_DSYNC,
 * RWF_SYNC, RWF_DSYNC (the range, at the write's return), fdatasync,
 * msync(MS_SYNC) of a range, syncfs; sync_file_range makes nothing
 * durable. */
START_TEST (test_durability_sources)
{
  static const struct { uint32_t fd_flags, arg_flags; } w[] = {
    { PC_FD_SYNC | PC_FD_DSYNC, 0 }, { PC_FD_DSYNC, 0 }, { 0, RWF_SYNC }, { 0, RWF_DSYNC },
  };
  struct pc_event ev;
  struct pc_cause c;
  uint64_t end;

  for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
    reset ();
    mkfs_mark ();
    creat_file ("/f", 70);
    write_flags ("/f", 70, "synced\n", 0, w[i].fd_flags, w[i].arg_flags);
    end = ix.n - 1;
    ck_assert_int_eq (kind_of (end, "f", found ("f", "synced\n")), 0);
    ck_assert_int_eq (judge (end, "f", found ("f", ""), &c), PC_V_ZERO_LENGTH);
    ck_assert_msg (c.promise, "source %zu", i);
    pc_cause_clear (&c);
    ck_assert_int_eq (judge (end, "f", found_zeros ("f", "synced\n", 0), &c), PC_V_ZERO_FILLED);
    ck_assert_msg (c.promise, "source %zu", i);
    pc_cause_clear (&c);
    /* a plain write after it: its data is exposure */
    write_file ("/f", 70, "synced\nplain\n", 7, 6);
    end = ix.n - 1;
    ck_assert_int_eq (kind_of (end, "f", found ("f", "synced\n")), 0);
    ck_assert_int_eq (judge (end, "f", found_zeros ("f", "synced\nplain\n", 7), &c),
                      PC_V_MISMATCH);   /* a block part zeros: not all zeros */
    ck_assert_msg (!c.promise, "source %zu", i);
    pc_cause_clear (&c);
  }

  /* fdatasync, syncfs: the whole file; sync_file_range: nothing */
  for (int op = 0; op < 3; op++) {
    reset ();
    mkfs_mark ();
    creat_file ("/f", 71);
    write_file ("/f", 71, "data\n", 0, 5);
    ev_init (&ev, op == 0 ? PC_OP_FDATASYNC : op == 1 ? PC_OP_SYNCFS : PC_OP_SYNC_RANGE,
             op == 0 ? "fdatasync" : op == 1 ? "syncfs" : "sync_file_range", "/f");
    ev.fd = 3;
    ev.flags = PC_EVENT_F_IDENTITY;
    ev.ino = 71;
    call (&ev, 0);
    end = ix.n - 1;
    ck_assert_int_eq (judge (end, "f", found ("f", ""), &c), PC_V_ZERO_LENGTH);
    ck_assert_msg (c.promise == (op != 2), "op %d", op);
    pc_cause_clear (&c);
    /* the name: made durable by syncfs only (fdatasync syncs no directory) */
    ck_assert_int_eq (kind_of (end, "f", NULL), op == 1 ? PC_V_MISSING : 0);
  }

  /* msync(MS_SYNC) of a range of a shared mapping */
  reset ();
  mkfs_mark ();
  creat_file ("/m", 72);
  write_file ("/m", 72, "mapped\n", 0, 7);
  ev_init (&ev, PC_OP_MSYNC, "msync", "/m");
  ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_RANGE;
  ev.ino = 72;
  ev.arg_flags = MS_SYNC;
  ev.offset = 0;
  ev.length = 4096;
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (judge (end, "m", found_zeros ("m", "mapped\n", 0), &c), PC_V_ZERO_FILLED);
  ck_assert (c.promise);
  pc_cause_clear (&c);

  /* fsync of a directory: its entries */
  reset ();
  mkfs_mark ();
  creat_file ("/d/new", 73);
  ev_init (&ev, PC_OP_MKDIR, "mkdir", "/d");
  call (&ev, 0);
  ev_init (&ev, PC_OP_FSYNC, "fsync", "/d");
  ev.fd = 4;
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (judge (end, "d/new", NULL, &c), PC_V_MISSING);
  ck_assert (c.promise);
  pc_cause_clear (&c);
  ck_assert_int_eq (kind_of (end, "d/new", found ("d/new", "")), 0);
}
END_TEST

/* Without a journal, a directory's fsync makes its names durable, not
 * the files: a new file never synced itself, lost with its name, is
 * nobody's; once the file was synced too (fsync, or a sync), the
 * filesystem's.  With a journal, the filesystem's either way. */
START_TEST (test_no_journal_dir_fsync)
{
  struct pc_event ev;
  struct pc_cause c;
  uint64_t end;

  for (int synced = 0; synced < 3; synced++) {
    reset ();
    mkfs_mark ();
    ev_init (&ev, PC_OP_MKDIR, "mkdir", "/d");
    call (&ev, 0);
    creat_file ("/d/new", 73);
    if (synced == 1)
      fsync_file ("/d/new", 73);
    if (synced == 2) {
      ev_init (&ev, PC_OP_SYNC, "sync", "");
      call (&ev, 0);
    }
    ev_init (&ev, PC_OP_FSYNC, "fsync", "/d");
    ev.fd = 4;
    call (&ev, 0);
    end = ix.n - 1;
    for (int nj = 0; nj < 2; nj++) {
      no_journal = nj;
      ck_assert_int_eq (judge (end, "d/new", NULL, &c), PC_V_MISSING);
      ck_assert_msg (c.promise == (!nj || synced), "synced %d, no journal %d", synced, nj);
      ck_assert_msg ((strstr (c.rule, "no journal") != NULL) == (nj && !synced), "%s", c.rule);
      pc_cause_clear (&c);
      ck_assert_int_eq (kind_of (end, "d/new", found ("d/new", "")), 0);
    }
    no_journal = false;
  }
}
END_TEST

/* Judges path at point both ways: with a journal a broken promise; without
 * one, where nojournal_promise is false, an exposure by a no-journal rule.
 * Finding kind (-1: any). */
static void
both_ways (uint64_t point, const char *path, const struct pc_entry *f, int kind,
           bool nojournal_promise)
{
  struct pc_cause c;

  for (int nj = 0; nj < 2; nj++) {
    no_journal = nj;
    int k = judge (point, path, f, &c);
    ck_assert_msg (k == kind || (kind < 0 && k > 0), "%s, no journal %d: %d, not %d", path, nj,
                   k, kind);
    ck_assert_msg (c.promise == (!nj || nojournal_promise), "%s, no journal %d: %s", path, nj,
                   c.rule);
    ck_assert_msg ((strstr (c.rule, "no journal") != NULL) == (nj && !nojournal_promise), "%s",
                   c.rule);
    pc_cause_clear (&c);
  }
  no_journal = false;
}

/* fsync of the directory path (its own descriptor). */
static void
fsync_dir (const char *path)
{
  struct pc_event ev;

  ev_init (&ev, PC_OP_FSYNC, "fsync", path);
  ev.fd = 4;
  call (&ev, 0);
}

/* A file b (inode 30) holding "old\n", its data and name durable. */
static void
durable_b (void)
{
  reset ();
  mkfs_mark ();
  creat_file ("/b", 30);
  write_file ("/b", 30, "old\n", 0, 4);
  fsync_file ("/b", 30);
  fsync_dir ("/");
}

/* Without a journal nothing orders metadata writes: a durable name
 * changed since (a rename over it, an unlink and the inode reused), the
 * change not yet durable, found missing or holding the other file, is an
 * exposure (found holding its own data lost, not); and so is a
 * directory made or moved under a synced parent, never synced itself, or
 * a symbolic link made there, no sync since.  Synced since, each is a
 * broken promise either way. */
START_TEST (test_no_journal_unordered)
{
  struct pc_event ev;
  struct pc_entry *e;
  uint64_t end;

  for (int synced = 0; synced < 2; synced++) {
    /* mv -T a b over a durable b: b missing */
    durable_b ();
    creat_file ("/a", 31);
    write_file ("/a", 31, "new\n", 0, 4);
    ev_init (&ev, PC_OP_RENAME, "rename", "/a");
    snprintf (ev.path[1], sizeof ev.path[1], "/b");
    call (&ev, 0);
    if (synced) {
      ev_init (&ev, PC_OP_SYNC, "sync", "");
      call (&ev, 0);
    }
    end = ix.n - 1;
    both_ways (end, "b", NULL, PC_V_MISSING, synced);
    ck_assert_int_eq (kind_of (end, "b", found ("b", "old\n")) != 0, synced);

    /* rm b, then a new file reusing its inode: b found holding it */
    durable_b ();
    ev_init (&ev, PC_OP_UNLINK, "unlink", "/b");
    call (&ev, 0);
    creat_file ("/c", 30);
    write_file ("/c", 30, "other\n", 0, 6);
    fsync_file ("/c", 30);
    end = ix.n - 1;
    if (!synced) {
      both_ways (end, "b", found ("b", "other\n"), -1, false);
      ck_assert_int_eq (kind_of (end, "b", NULL), 0);
      /* its own data lost under it: not the unlink's doing (ext4's sync
       * that left an extent unwritten), a broken promise either way */
      both_ways (end, "b", found_zeros ("b", "old\n", 0), -1, true);
      /* found empty, its inode the new file's when it was made: that file */
      e = found ("b", "");
      e->ino = 30;
      both_ways (end, "b", e, -1, false);
      e->ino = 0;               /* no inode known: an empty file is no one's */
      both_ways (end, "b", e, -1, true);
    }

    /* mkdir d, fsync of its parent; then mv d e/d, fsync of e */
    reset ();
    mkfs_mark ();
    ev_init (&ev, PC_OP_MKDIR, "mkdir", "/e");
    call (&ev, 0);
    ev_init (&ev, PC_OP_MKDIR, "mkdir", "/d");
    call (&ev, 0);
    if (synced)
      fsync_dir ("/d");
    fsync_dir ("/");
    end = ix.n - 1;
    both_ways (end, "d", NULL, PC_V_MISSING, synced);
    ev_init (&ev, PC_OP_SYNC, "sync", "");
    call (&ev, 0);
    ev_init (&ev, PC_OP_RENAME, "rename", "/d");
    snprintf (ev.path[1], sizeof ev.path[1], "/e/d");
    call (&ev, 0);
    if (synced)
      fsync_dir ("/e/d");
    fsync_dir ("/e");
    end = ix.n - 1;
    both_ways (end, "e/d", NULL, PC_V_MISSING, synced);

    /* ln -s f s, fsync of its directory (a link cannot be fsync'd) */
    reset ();
    mkfs_mark ();
    ev_init (&ev, PC_OP_SYMLINK, "symlink", "/s");
    snprintf (ev.path[1], sizeof ev.path[1], "f");
    call (&ev, 0);
    if (synced) {
      ev_init (&ev, PC_OP_SYNC, "sync", "");
      call (&ev, 0);
    }
    fsync_dir ("/");
    end = ix.n - 1;
    both_ways (end, "s", NULL, PC_V_MISSING, synced);
  }
}
END_TEST

/* A synchronous write of a range promises that range and a size that
 * reaches it, not the rest of a file that buffered writes made longer. */
START_TEST (test_range_promise)
{
  static char ab[8193], cb[8193], c4[4097], a4[4097];
  struct pc_event ev;
  struct pc_cause c;
  uint64_t hash, end;

  memset (ab, 'a', 4096);
  memset (ab + 4096, 'b', 4096);
  memcpy (cb, ab, 8192);
  memset (cb, 'c', 4096);
  memset (c4, 'c', 4096);
  memset (a4, 'a', 4096);
  reset ();
  mkfs_mark ();
  creat_file ("/f", 80);
  write_file ("/f", 80, ab, 0, 8192);          /* buffered, never synced */
  ev_init (&ev, PC_OP_WRITE, "pwrite64", "/f");
  ev.fd = 3;
  ev.fd_flags = PC_FD_WRITE | PC_FD_SYNC | PC_FD_DSYNC | PC_FD_DIRECT;
  ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE | PC_EVENT_F_RANGE;
  ev.ino = 80;
  ev.offset = 0;
  ev.length = 4096;
  ev.size = 8192;
  hash = XXH3_64bits (c4, 4096);
  ev.nhashes = 1;
  ev.hashes = &hash;
  call (&ev, 4096);
  end = ix.n - 1;
  /* the range and a size that reaches it: nothing broken */
  ck_assert_int_eq (kind_of (end, "f", found ("f", c4)), 0);
  ck_assert_int_eq (kind_of (end, "f", found ("f", cb)), 0);
  /* the buffered half lost: exposure, not a broken promise */
  ck_assert_int_eq (judge (end, "f", found_zeros ("f", cb, 4096), &c), PC_V_MISMATCH);
  ck_assert (!c.promise);
  pc_cause_clear (&c);
  /* the range itself lost, or a size short of it: broken, by the write */
  ck_assert_int_eq (judge (end, "f", found ("f", a4), &c), PC_V_DURABLE_LOST);
  ck_assert (c.promise);
  ck_assert_ptr_nonnull (c.durable_by);
  ck_assert_msg (strncmp (c.durable_by, "pwrite64", 8) == 0, "%s", c.durable_by);
  pc_cause_clear (&c);
  ck_assert_int_eq (judge (end, "f", found ("f", ""), &c), PC_V_ZERO_LENGTH);
  ck_assert (c.promise);
  pc_cause_clear (&c);
  /* then a sync: the buffered half lost is a broken promise, and what made
   * its size durable is the sync, not the range's write before it */
  ev_init (&ev, PC_OP_SYNC, "sync", "");
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (judge (end, "f", found ("f", c4), &c), PC_V_DURABLE_LOST);
  ck_assert (c.promise);
  ck_assert_ptr_nonnull (c.durable_by);
  ck_assert_msg (strncmp (c.durable_by, "sync", 4) == 0, "%s", c.durable_by);
  pc_cause_clear (&c);
}
END_TEST

/* Every verdict the table gives a path comes out of the traced oracle
 * too: a new path verdict needs its case here and in histjudge.c. */
/* A durable file rewritten with O_TRUNC (shell >, cp over it), bigger,
 * never synced: the truncate gave its durable version up, so the new data
 * lost, whatever the form (zeros at the new size, an empty file, a block
 * still zeros), is the program's, never a broken promise; the durable
 * version found is no loss.  Rewritten in place instead (no truncate),
 * the durable bytes found as zeros stay the filesystem's. */
START_TEST (test_otrunc_given_up)
{
  static char a6[6001], b12[12001];
  struct pc_entry *e;
  struct pc_cause c;
  uint64_t end;
  int k;

  memset (a6, 'a', 6000);
  memset (b12, 'b', 12000);
  for (int trunc = 0; trunc < 2; trunc++) {
    reset ();
    mkfs_mark ();
    creat_file ("/t", 90);
    write_file ("/t", 90, a6, 0, 6000);
    fsync_file ("/t", 90);
    if (trunc)
      creat_file ("/t", 90);                    /* open O_TRUNC: size 0 */
    write_file ("/t", 90, b12, 0, 12000);
    end = ix.n - 1;
    /* the new size, every block zeros */
    k = judge (end, "t", found_zeros ("t", b12, 0), &c);
    ck_assert_msg (k == PC_V_ZERO_FILLED && c.promise == !trunc && c.program == trunc,
                   "trunc %d: %s, promise %d, program %d", trunc, pc_finding_name (k), c.promise,
                   c.program);
    ck_assert (pc_cause_fault (&c) == (trunc ? PC_FAULT_PROGRAM : PC_FAULT_FILESYSTEM));
    if (trunc)
      ck_assert_ptr_nonnull (strstr (c.rule, "cut it before the new data was durable"));
    pc_cause_clear (&c);
    /* the new size, its first block written, the others still zeros */
    e = found_zeros ("t", b12, 4096);
    k = judge (end, "t", e, &c);
    ck_assert_msg (k == PC_V_MISMATCH && c.promise == !trunc && c.program == trunc,
                   "trunc %d, a block written: %s, promise %d", trunc, pc_finding_name (k),
                   c.promise);
    pc_cause_clear (&c);
    if (!trunc)
      continue;
    /* empty: the program's too */
    k = judge (end, "t", found ("t", ""), &c);
    ck_assert (k == PC_V_ZERO_LENGTH && !c.promise && c.program);
    pc_cause_clear (&c);
    /* the durable version, or the new one: nothing lost */
    ck_assert_int_eq (kind_of (end, "t", found ("t", a6)), 0);
    ck_assert_int_eq (kind_of (end, "t", found ("t", b12)), 0);
  }
}
END_TEST

/* sed -i twice on a synced file, never syncing: the second temporary file
 * renamed over the first, found empty at the name.  The program's fault,
 * and the fix names the file found and the rename that put it there, not
 * the first rename. */
START_TEST (test_replaced_twice)
{
  struct pc_event ev;
  struct pc_cause c;
  uint64_t end;

  reset ();
  mkfs_mark ();
  creat_file ("/app.conf", 20);
  write_file ("/app.conf", 20, "one\n", 0, 4);
  ev_init (&ev, PC_OP_SYNC, "sync", "");
  call (&ev, 0);
  creat_file ("/sedAAAA", 21);
  write_file ("/sedAAAA", 21, "two\n", 0, 4);
  ev_init (&ev, PC_OP_RENAME, "rename", "/sedAAAA");
  snprintf (ev.path[1], sizeof ev.path[1], "/app.conf");
  snprintf (ev.text, sizeof ev.text, "rename(\"sedAAAA\", \"app.conf\") = 0");
  call (&ev, 0);
  creat_file ("/sedBBBB", 22);
  write_file ("/sedBBBB", 22, "three\n", 0, 6);
  ev_init (&ev, PC_OP_RENAME, "rename", "/sedBBBB");
  snprintf (ev.path[1], sizeof ev.path[1], "/app.conf");
  snprintf (ev.text, sizeof ev.text, "rename(\"sedBBBB\", \"app.conf\") = 0");
  call (&ev, 0);
  end = ix.n - 1;
  {
    struct pc_entry *e = found ("app.conf", "");
    e->ino = 22;
    ck_assert_int_eq (judge (end, "app.conf", e, &c), PC_V_ZERO_LENGTH);
  }
  ck_assert (!c.promise && c.program);
  ck_assert_msg (strstr (c.fix, "sedBBBB before rename(\"sedBBBB\"") != NULL, "%s", c.fix);
  pc_cause_clear (&c);
}
END_TEST

/* A symlink: made with its target, so that a durable name of it found
 * with another target (a log replay that kept the name, not the link's
 * content: btrfs before d0e64a981fd8) is a broken promise; before its
 * name is durable, a state may hold anything of it. */
START_TEST (test_symlink_target)
{
  static struct pc_entry e;
  struct pc_event ev;
  uint64_t end;

  reset ();
  mkfs_mark ();
  ev_init (&ev, PC_OP_SYMLINK, "symlink", "/ln");
  snprintf (ev.path[1], sizeof ev.path[1], "foo");
  call (&ev, 0);
  end = ix.n - 1;
  memset (&e, 0, sizeof e);
  e.path = (char *) "ln";
  e.type = PC_ENTRY_SYMLINK;
  e.mode = 0120777;
  e.target = (char *) "foo";
  ck_assert_int_eq (kind_of (end, "ln", &e), 0);
  ck_assert_int_eq (kind_of (end, "ln", NULL), 0);
  e.target = (char *) "";
  ck_assert_int_eq (kind_of (end, "ln", &e), PC_V_MISMATCH);
  ev_init (&ev, PC_OP_SYNCFS, "syncfs", "/");
  call (&ev, 0);
  end = ix.n - 1;
  ck_assert_int_eq (kind_of (end, "ln", &e), PC_V_DURABLE_LOST);
  ck_assert_int_eq (kind_of (end, "ln", NULL), PC_V_MISSING);
  e.target = (char *) "foo";
  ck_assert_int_eq (kind_of (end, "ln", &e), 0);
}
END_TEST

START_TEST (test_every_path_verdict)
{
  struct pc_event ev;
  uint64_t end;
  unsigned cases = 0;

  reset ();
  mkfs_mark ();
  creat_file ("/f", 30);
  write_file ("/f", 30, "one\n", 0, 4);
  creat_file ("/g", 31);
  write_file ("/g", 31, "old\n", 0, 4);
  write_file ("/g", 31, "new\n", 0, 4);
  ev_init (&ev, PC_OP_SYNCFS, "syncfs", "/");   /* names and data durable */
  call (&ev, 0);
  end = ix.n - 1;
  for (int v = 0; v < PC_V_COUNT; v++) {
    const struct pc_verdict_info *vi = pc_verdict_info (v);
    const char *path = "f";
    const struct pc_entry *e;
    int k;

    if (!vi->path)
      continue;
    switch ((enum pc_verdict) v) {
    case PC_V_ZERO_LENGTH:  e = found ("f", ""); break;
    case PC_V_ZERO_FILLED:  e = found_zeros ("f", "one\n", 0); break;
    case PC_V_MISSING:      e = NULL; break;
    case PC_V_MISMATCH:     e = found ("f", "six\n"); break;
    case PC_V_DURABLE_LOST: e = found ("g", "old\n"); path = "g"; break;
    case PC_V_ACK_LOST: {
      /* the oracle's name for what pc_history_older finds lost by an
       * acknowledgement (pc_oracle_older): g as before its last write */
      struct pc_history_verdict hv;
      struct pc_history *h;
      struct pc_err err;
      ck_assert_msg (pc_history_new (&ix, true, &h, &err) == 0, "%s", err.msg);
      ck_assert_int_eq (pc_history_older (h, end - 1, end - 1, true, "g", found ("g", "old\n"), &hv),
                        0);
      ck_assert_msg (hv.kind == PC_F_OLDER && !hv.cause.promise, "%s: got %s", vi->name,
                     pc_finding_name (hv.kind));
      pc_cause_clear (&hv.cause);
      pc_history_free (h);
      cases++;
      continue;
    }
    default:
      ck_abort_msg ("path verdict %s: no case in this test", vi->name);
    }
    k = kind_of (end, path, e);
    ck_assert_msg (k == v, "%s: got %s", vi->name, pc_finding_name (k));
    cases++;
  }
  ck_assert_uint_ge (cases, 5);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("history");
  TCase *tc = tcase_create ("history");
  int r;

  tcase_add_test (tc, test_append);
  tcase_add_test (tc, test_fsync_and_failures);
  tcase_add_test (tc, test_rename);
  tcase_add_test (tc, test_rename_over_empty);
  tcase_add_test (tc, test_gave_up);
  tcase_add_test (tc, test_durable_behind_later);
  tcase_add_test (tc, test_otrunc_given_up);
  tcase_add_test (tc, test_replaced_twice);
  tcase_add_test (tc, test_untraceable);
  tcase_add_test (tc, test_older);
  tcase_add_test (tc, test_inode_reused);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_shrink_grow);
  tcase_add_test (tc, test_grown_then_written);
  tcase_add_test (tc, test_zero_tail_grown);
  tcase_add_test (tc, test_base_then_appended);
  tcase_add_test (tc, test_renamed_durable_then_appended);
  tcase_add_test (tc, test_grown_by_blocks);
  tcase_add_test (tc, test_shifted);
  tcase_add_test (tc, test_zero_range_across_end);
  tcase_add_test (tc, test_xattrs);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_durability_sources);
  tcase_add_test (tc, test_no_journal_dir_fsync);
  tcase_add_test (tc, test_range_promise);
  tcase_add_test (tc, test_no_journal_unordered);
  tcase_add_test (tc, test_symlink_target);
  tcase_add_test (tc, test_every_path_verdict);
  suite_add_tcase (s, tc);
  r = pc_unit_run (s);
  reset ();
  return r;
}
