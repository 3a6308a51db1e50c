/* decode.c: one call made into its entry and exit events: the events
 * told, and at exit what the call changed (the range, the size, the
 * hashes of the blocks), the mappings it made or unmade. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/falloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "trace/traceint.h"
#include "util/xxh.h"

#define BLOCK PC_EVENT_BLOCK
#define READ_BLOCKS 64                          /* blocks read at a time to hash */
#define ENTRY_TEXT (PC_EVENT_TEXT_MAX - 64)     /* the rest: the exit's result */
#define X32_BIT 0x40000000

/* Restart codes the kernel leaves at a syscall exit when a signal comes. */
#define ERESTARTSYS 512
#define ERESTART_RESTARTBLOCK 516

static int
emit (struct pc_tracer *tr, struct pc_event *ev)
{
  struct timespec ts;
  int r;

  ev->seq = ++tr->seq;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  ev->mono_ns = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
  clock_gettime (CLOCK_REALTIME, &ts);
  ev->real_ns = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
  r = tr->opts->on_call (ev, tr->opts->arg);
  if (r < 0)
    return r;
  /* asked to stop while the call waited: it must not run */
  return pc_interrupted () ? -EINTR : 0;
}

/* The largest gap a write past a file's end may leave for the block of
 * the old end to be hashed with it. */
#define GAP_HASHED (1u << 20)

/* A file's size as the tracer's descriptor f sees it; -1 if unknown. */
static int64_t
file_size (int f)
{
  struct stat st;

  if (f < 0 || fstat (f, &st) < 0)
    return -1;
  if (S_ISREG (st.st_mode))
    return st.st_size;
  return lseek (f, 0, SEEK_END);
}

/* Hashes into ev the blocks of [off, off + len) the file f (of size size)
 * holds, each as far as the file goes. */
static void
hash_range (struct pc_tracer *tr, struct pc_event *ev, int f, uint64_t off, uint64_t len,
            int64_t size)
{
  uint64_t end = off + len, first, n;

  ev->nhashes = 0;
  if (len == 0)
    return;
  if (f < 0 || size < 0) {
    ev->flags |= PC_EVENT_F_UNHASHED;
    return;
  }
  if (end > (uint64_t) size)
    end = (uint64_t) size;
  if (off >= end)
    return;
  first = off / BLOCK;
  n = (end - 1) / BLOCK - first + 1;
  if (n > PC_EVENT_HASHES_MAX) {
    n = PC_EVENT_HASHES_MAX;
    ev->flags |= PC_EVENT_F_HASHES_CUT;
  }
  if (tr->hashcap < n) {
    uint64_t *h = realloc (tr->hashes, n * sizeof *h);
    if (h == NULL) {
      ev->flags |= PC_EVENT_F_UNHASHED;
      return;
    }
    tr->hashes = h;
    tr->hashcap = n;
  }
  if (tr->blocks == NULL && (tr->blocks = malloc (READ_BLOCKS * BLOCK)) == NULL) {
    ev->flags |= PC_EVENT_F_UNHASHED;
    return;
  }
  for (uint64_t b = 0; b < n; b += READ_BLOCKS) {
    uint64_t at = (first + b) * BLOCK, want = READ_BLOCKS * BLOCK, got = 0;
    if (want > (uint64_t) size - at)
      want = (uint64_t) size - at;
    while (got < want) {
      ssize_t k = pread (f, tr->blocks + got, want - got, (off_t) (at + got));
      if (k < 0 && errno == EINTR)
        continue;
      if (k < 0) {
        ev->flags |= PC_EVENT_F_UNHASHED;
        return;
      }
      if (k == 0)
        break;              /* the file shrank meanwhile: hash what is there */
      got += (uint64_t) k;
    }
    for (uint64_t i = 0; i < READ_BLOCKS && b + i < n; i++) {
      uint64_t s = i * BLOCK, m = got > s ? got - s : 0;
      tr->hashes[b + i] = XXH3_64bits (tr->blocks + s, m < BLOCK ? m : BLOCK);
    }
  }
  ev->first_block = first;
  ev->nhashes = (uint32_t) n;
  ev->hashes = tr->hashes;
}

/* The state a reported call keeps, cleared for a new one. */
static struct pc_call *
begin (struct pc_task *t, long nr, const char *name, uint8_t op, const uint64_t *args)
{
  struct pc_call *c = t->call;

  if (c == NULL && (c = t->call = malloc (sizeof *c)) == NULL)
    return NULL;
  memset (&c->ev, 0, offsetof (struct pc_event, path));
  c->ev.path[0][0] = c->ev.path[1][0] = '\0';
  c->ev.first_block = 0;
  c->ev.nhashes = 0;
  c->ev.hashes = NULL;
  c->ev.kind = PC_EVENT_ENTRY;
  c->ev.op = op;
  c->ev.pid = t->tgid;
  c->ev.tid = t->tid;
  c->ev.nr = (int32_t) nr;
  c->ev.fd = -1;
  snprintf (c->ev.name, sizeof c->ev.name, "%s", name);
  memcpy (c->args, args, sizeof c->args);
  c->file = -1;
  c->old_size = UINT64_MAX;
  c->silent = false;
  return c;
}

static void
end_call (struct pc_call *c)
{
  if (c->file >= 0)
    close (c->file);
  c->file = -1;
  c->ev.hashes = NULL;
  c->ev.nhashes = 0;
}

int
pc_trace_entry (struct pc_tracer *tr, struct pc_task *t, uint32_t arch, long nr,
                const uint64_t args[6])
{
  const struct pc_sysent *se;
  struct pc_call *c;
  struct pc_text txt;
  int want, r;

  if (arch != AUDIT_ARCH_X86_64 || (nr & X32_BIT)) {
    if (t->told_badarch)
      return 0;
    t->told_badarch = true;
    c = begin (t, nr, arch == AUDIT_ARCH_I386 ? "ia32" : "x32", PC_OP_UNTRACEABLE, args);
    if (c == NULL)
      return -ENOMEM;
    c->ev.flags |= PC_EVENT_F_BADARCH;
    pc_text_init (&txt, c->ev.text, ENTRY_TEXT);
    pc_text_add (&txt, "%s call %ld (calls of another ABI are not decoded)", c->ev.name,
                 nr & ~(long) X32_BIT);
    want = 1;
  }
  else {
    se = pc_trace_sysent (nr);
    if (se == NULL)
      return 0;
    c = begin (t, nr, se->name, se->op, args);
    if (c == NULL)
      return -ENOMEM;
    pc_text_init (&txt, c->ev.text, ENTRY_TEXT);
    want = pc_trace_decode (tr, t, c, &txt, nr, args);
  }
  if (!want) {
    end_call (c);
    return 0;
  }
  if (want == PC_DECODE_SILENT) {
    c->silent = true;
    t->in_call = true;
    return 1;
  }
  r = emit (tr, &c->ev);
  if (r < 0) {
    end_call (c);
    return r;
  }
  t->in_call = true;
  return 1;
}

/* What a call that succeeded changed, into its exit event. */
static void
changes (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c)
{
  struct pc_event *ev = &c->ev;
  const uint64_t *a = c->args;
  int64_t size = -1;
  uint64_t n = (uint64_t) ev->result;

  switch (ev->op) {
  case PC_OP_OPEN: {
    struct pc_fdinfo fi;
    pc_fd_lookup (t->tid, (int) ev->result, false, &fi);
    ev->fd = (int32_t) ev->result;
    if (fi.ok) {
      memcpy (ev->path[1], fi.path, sizeof ev->path[1]);
      ev->dev = fi.st.st_dev;
      ev->ino = fi.st.st_ino;
      ev->size = (uint64_t) fi.st.st_size;
      ev->flags |= PC_EVENT_F_IDENTITY | PC_EVENT_F_SIZE;
    }
    return;
  }
  case PC_OP_WRITE:
  case PC_OP_COPY:
    size = file_size (c->file);
    if (size >= 0 && ((ev->fd_flags & PC_FD_APPEND) ||
                      (ev->nr == SYS_pwritev2 && (ev->arg_flags & RWF_APPEND))))
      ev->offset = (uint64_t) size >= n ? (uint64_t) size - n : 0;
    ev->length = n;
    /* A write past the end leaves a gap that reads as zeros: the block
     * the old end was in changed too (its tail), so it is hashed with
     * the rest when the gap is small (else the history takes it as
     * unknown). */
    if (c->old_size != UINT64_MAX && c->old_size < ev->offset && c->old_size % BLOCK &&
        ev->offset - c->old_size <= GAP_HASHED) {
      uint64_t lo = c->old_size - c->old_size % BLOCK;
      hash_range (tr, ev, c->file, lo, ev->offset + n - lo, size);
    }
    else
      hash_range (tr, ev, c->file, ev->offset, n, size);
    break;
  case PC_OP_TRUNCATE: {
    uint64_t new = a[1], old = c->old_size, lo;
    size = file_size (c->file);
    if (old == UINT64_MAX) {
      ev->flags |= PC_EVENT_F_UNHASHED;
      break;
    }
    lo = old < new ? old : new;
    ev->offset = lo;
    ev->length = old < new ? new - old : old - new;
    ev->flags |= PC_EVENT_F_RANGE;
    if (lo % BLOCK)
      hash_range (tr, ev, c->file, lo - lo % BLOCK, BLOCK, size);
    break;
  }
  case PC_OP_FALLOCATE:
    size = file_size (c->file);
    if (a[1] & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
      hash_range (tr, ev, c->file, a[2], a[3], size);
    else if (a[1] & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE))
      hash_range (tr, ev, c->file, a[2], size > (int64_t) a[2] ? (uint64_t) size - a[2] : 0,
                  size);
    break;
  case PC_OP_MMAP: {
    struct pc_mapping m = {
      .tgid = t->tgid, .start = n, .len = PC_PAGE_UP (a[1]), .off = a[5], .file = c->file,
      .dev = ev->dev, .ino = ev->ino, .path = strdup (ev->path[0]),
    };
    ev->addr = n;
    pc_maps_trim (tr, t->tgid, m.start, m.len);   /* what it mapped over */
    if (m.path && pc_maps_add (tr, &m) == 0)
      c->file = -1;
    else
      free (m.path);
    return;
  }
  case PC_OP_FSYNC:
  case PC_OP_FDATASYNC: {
    /* A file with a writable shared mapping: what it holds now, what the
     * mappings wrote with it, is what the call made durable.  The span
     * of its mappings is hashed through one of them. */
    uint64_t lo = UINT64_MAX, hi = 0;
    int f = -1;
    if (!(ev->flags & PC_EVENT_F_IDENTITY))
      return;
    for (size_t i = 0; i < tr->nmaps; i++) {
      const struct pc_mapping *m = &tr->maps[i];
      if (m->dev != ev->dev || m->ino != ev->ino || m->file < 0)
        continue;
      lo = m->off < lo ? m->off : lo;
      hi = m->off + m->len > hi ? m->off + m->len : hi;
      f = m->file;
    }
    if (f < 0)
      return;
    size = file_size (f);
    if (size >= 0 && (uint64_t) size < hi)
      hi = (uint64_t) size;
    if (lo >= hi)
      return;
    ev->offset = lo;
    ev->length = hi - lo;
    ev->flags |= PC_EVENT_F_RANGE;
    hash_range (tr, ev, f, lo, hi - lo, size);
    break;
  }
  case PC_OP_MSYNC:
  case PC_OP_MUNMAP:
  case PC_OP_MREMAP:
    size = file_size (c->file);
    hash_range (tr, ev, c->file, ev->offset, ev->length, size);
    if (ev->op == PC_OP_MREMAP) {
      struct pc_mapping m = {
        .tgid = t->tgid, .start = n, .len = PC_PAGE_UP (a[2]), .off = ev->offset,
        .file = c->file >= 0 ? dup (c->file) : -1, .dev = ev->dev, .ino = ev->ino,
        .path = strdup (ev->path[0]),
      };
      if (!(a[3] & MREMAP_DONTUNMAP))
        pc_maps_trim (tr, t->tgid, a[0], PC_PAGE_UP (a[1]));
      pc_maps_trim (tr, t->tgid, m.start, m.len);
      if ((c->file >= 0 && m.file < 0) || m.path == NULL || pc_maps_add (tr, &m) < 0) {
        if (m.file >= 0)
          close (m.file);
        free (m.path);
      }
      ev->addr = n;
      ev->length = a[2];
    }
    else if (ev->op == PC_OP_MUNMAP)
      pc_maps_trim (tr, t->tgid, a[0], PC_PAGE_UP (a[1]));
    break;
  default:
    return;
  }
  if (size >= 0) {
    ev->size = (uint64_t) size;
    ev->flags |= PC_EVENT_F_SIZE;
  }
}

int
pc_trace_exit (struct pc_tracer *tr, struct pc_task *t, int64_t rval, bool lost)
{
  struct pc_call *c = t->call;
  struct pc_event *ev = &c->ev;
  struct pc_text txt;
  int r;

  t->in_call = false;
  if (tr->stop < 0) {         /* stopping: no more events */
    end_call (c);
    return 0;
  }
  if (c->silent) {
    end_call (c);
    return pc_trace_acks (tr, t->tgid, t->tid, false);
  }
  ev->kind = PC_EVENT_EXIT;
  txt.s = ev->text;
  txt.cap = sizeof ev->text;
  txt.len = strlen (ev->text);
  txt.cut = false;
  if (lost) {
    ev->result = 0;
    ev->flags |= PC_EVENT_F_LOST;
    pc_text_add (&txt, " = ? <the thread ended first>");
  }
  else {
    if (rval <= -ERESTARTSYS && rval >= -ERESTART_RESTARTBLOCK) {
      ev->result = -EINTR;
      ev->flags |= PC_EVENT_F_RESTART;
    }
    else
      ev->result = rval;
    pc_text_result (&txt, ev->result, ev->op == PC_OP_MMAP || ev->op == PC_OP_MREMAP);
  }
  if (ev->result >= 0 && !lost)
    changes (tr, t, c);
  else
    ev->flags &= ~(PC_EVENT_F_RANGE | PC_EVENT_F_SIZE);
  r = emit (tr, ev);
  end_call (c);
  return r;
}

/* What every file with a writable shared mapping the tracer follows
 * holds when the program acknowledges (before its first ACK event): the
 * stores it made through them are then versions it had.  One MSYNC event
 * pair per file that no call made (nr -1, name "ack", MS_ASYNC: it makes
 * nothing durable), the span of its mappings hashed as an fsync's. */
static int
snap_mappings (struct pc_tracer *tr, pid_t pid, pid_t tid)
{
  for (size_t i = 0; i < tr->nmaps; i++) {
    const struct pc_mapping *m = &tr->maps[i];
    struct pc_task t = { .tid = tid, .tgid = pid };
    struct pc_call c;
    struct pc_text txt;
    uint64_t args[6] = { m->start, m->len, MS_ASYNC };
    uint64_t lo = UINT64_MAX, hi = 0;
    bool earlier = false;
    int64_t size;
    int r;

    if (m->file < 0)
      continue;
    for (size_t j = 0; j < tr->nmaps && !earlier; j++) {
      const struct pc_mapping *o = &tr->maps[j];
      if (o->dev != m->dev || o->ino != m->ino || o->file < 0)
        continue;
      earlier = j < i;
      lo = o->off < lo ? o->off : lo;
      hi = o->off + o->len > hi ? o->off + o->len : hi;
    }
    if (earlier)
      continue;                 /* the file was read with its first mapping */
    size = file_size (m->file);
    if (size >= 0 && (uint64_t) size < hi)
      hi = (uint64_t) size;
    if (lo >= hi)
      continue;
    t.call = &c;
    begin (&t, -1, "ack", PC_OP_MSYNC, args);
    snprintf (c.ev.path[0], sizeof c.ev.path[0], "%s", m->path ? m->path : "");
    c.ev.dev = m->dev;
    c.ev.ino = m->ino;
    c.ev.addr = m->start;
    c.ev.arg_flags = MS_ASYNC;
    c.ev.offset = lo;
    c.ev.length = hi - lo;
    c.ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_RANGE;
    pc_text_init (&txt, c.ev.text, ENTRY_TEXT);
    pc_text_add (&txt, "stores through the mapping of ");
    pc_text_quote (&txt, m->path ? m->path : "?", m->path ? strlen (m->path) : 1, false);
    pc_text_add (&txt, " (bytes %" PRIu64 "..%" PRIu64 ") seen at an acknowledgement", lo, hi);
    r = emit (tr, &c.ev);
    if (r == 0) {
      c.ev.kind = PC_EVENT_EXIT;
      txt.cap = sizeof c.ev.text;
      pc_text_result (&txt, 0, false);
      hash_range (tr, &c.ev, m->file, lo, hi - lo, size);
      if (size >= 0) {
        c.ev.size = (uint64_t) size;
        c.ev.flags |= PC_EVENT_F_SIZE;
      }
      r = emit (tr, &c.ev);
    }
    if (r < 0)
      return r;
  }
  return 0;
}

/* An ACK event for one line, the mapped files read before the first. */
struct ack_line {
  struct pc_tracer *tr;
  pid_t pid, tid;
  bool snapped;
  struct pc_event ev;
};

static int
ack_line (void *arg, const char *line, size_t len)
{
  struct ack_line *l = arg;
  struct pc_event *ev = &l->ev;

  if (!l->snapped) {
    int r = snap_mappings (l->tr, l->pid, l->tid);
    l->snapped = true;
    if (r < 0)
      return r;
  }

  memset (ev, 0, offsetof (struct pc_event, path));
  ev->path[0][0] = ev->path[1][0] = '\0';
  ev->first_block = 0;
  ev->nhashes = 0;
  ev->hashes = NULL;
  ev->kind = PC_EVENT_EXIT;
  ev->op = PC_OP_ACK;
  ev->pid = l->pid;
  ev->tid = l->tid;
  ev->nr = -1;
  ev->fd = 1;
  snprintf (ev->name, sizeof ev->name, "ack");
  if (len > sizeof ev->text - 1)
    len = sizeof ev->text - 1;
  memcpy (ev->text, line, len);
  ev->text[len] = '\0';
  /* a NUL in the line ends it there */
  return emit (l->tr, ev);
}

int
pc_trace_acks (struct pc_tracer *tr, pid_t pid, pid_t tid, bool all)
{
  struct ack_line *l;
  int r;

  if (tr->acks == NULL || tr->stop < 0)
    return 0;
  if ((l = malloc (sizeof *l)) == NULL)
    return -ENOMEM;
  l->tr = tr;
  l->pid = pid;
  l->tid = tid;
  l->snapped = false;
  r = pc_acks_take (tr->acks, all, ack_line, l);
  free (l);
  return r;
}

int
pc_trace_proc_end (struct pc_tracer *tr, pid_t tgid, bool exec)
{
  if (!exec)
    pc_dirfd_forget (tr, tgid);
  for (size_t i = 0; i < tr->nmaps; i++) {
    struct pc_mapping *m = &tr->maps[i];
    struct pc_task t = { .tid = tgid, .tgid = tgid };
    struct pc_call c;
    struct pc_text txt;
    uint64_t args[6] = { m->start, m->len };
    int64_t size;
    int r;

    if (m->tgid != tgid)
      continue;
    /* Not a call: the end of the process unmapped it (nr -1). */
    t.call = &c;
    begin (&t, -1, exec ? "execve" : "exit", PC_OP_MUNMAP, args);
    snprintf (c.ev.path[0], sizeof c.ev.path[0], "%s", m->path ? m->path : "");
    c.ev.dev = m->dev;
    c.ev.ino = m->ino;
    c.ev.addr = m->start;
    c.ev.offset = m->off;
    c.ev.length = m->len;
    c.ev.flags = PC_EVENT_F_IDENTITY | PC_EVENT_F_RANGE;
    pc_text_init (&txt, c.ev.text, ENTRY_TEXT);
    pc_text_add (&txt, "munmap(%#" PRIx64 ", %" PRIu64 ") by %s", m->start, m->len,
                 c.ev.name);
    r = emit (tr, &c.ev);
    if (r == 0) {
      c.ev.kind = PC_EVENT_EXIT;
      txt.cap = sizeof c.ev.text;
      pc_text_result (&txt, 0, false);
      size = file_size (m->file);
      hash_range (tr, &c.ev, m->file, m->off, m->len, size);
      if (size >= 0) {
        c.ev.size = (uint64_t) size;
        c.ev.flags |= PC_EVENT_F_SIZE;
      }
      r = emit (tr, &c.ev);
    }
    pc_maps_remove (tr, i);
    i--;
    if (r < 0)
      return r;
  }
  return 0;
}
