/* traceint.h: the inside of the tracer, shared by its files: the traced
 * threads, the shared file mappings it follows, the table of calls it
 * stops at, and the decoding of one call into its events. */
#ifndef POWERCUT_TRACEINT_H
#define POWERCUT_TRACEINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "format/event.h"
#include "trace/tracer.h"

/* The tracer knows x86-64's calls only: elsewhere pc_tracer_run says so
 * (-ENOTSUP), and the table and the decoding of the calls are not built. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define PC_TRACE_ARCH 1
#else
#define PC_TRACE_ARCH 0
#endif

/* The seccomp data of a call of another ABI (32-bit, x32): the filter's
 * bad-arch action. */
#define PC_TRACE_BADARCH 0xffff

struct pc_text;

/* One call of the table (syscalls.c). */
struct pc_sysent {
  int nr;                   /* x86-64 number */
  const char *name;
  uint8_t op;               /* enum pc_event_op */
};

/* The entry for nr, or NULL if the tracer does not stop at it. */
const struct pc_sysent *pc_trace_sysent (long nr);
/* Builds the seccomp filter (a scmp_filter_ctx) that stops at the table's
 * calls; NULL with the reason in err. */
void *pc_trace_filter (struct pc_err *err);

/* What a reported entry keeps for its exit. */
struct pc_call {
  struct pc_event ev;       /* the entry event, made into the exit */
  uint64_t args[6];
  int file;                 /* ours: the file whose blocks the exit hashes, or -1 */
  uint64_t old_size;        /* truncate: the size before */
  bool silent;              /* no event of its own: a write to the pipe of the
                             * acknowledgements, whose exit tells its lines */
};

/* pc_trace_decode's answer for a call whose exit must be seen but which
 * is no event itself (a write to the acknowledgements' pipe). */
#define PC_DECODE_SILENT 2

/* The program's standard output read as acknowledgements (acks.c): a
 * pipe, read by a thread of the tracer as it fills and copied on to the
 * tracer's standard output, its lines taken at the exits of the writes to
 * it and at the end. */
struct pc_acks;
/* The pipe (both ends close-on-exec).  Returns 0 or -errno. */
int pc_acks_new (struct pc_acks **ret);
/* The end the program's standard output becomes (in the child). */
int pc_acks_child_fd (const struct pc_acks *a);
/* In the tracer, once the child has its end: closes ours, starts reading.
 * Returns 0 or -errno. */
int pc_acks_start (struct pc_acks *a);
/* Is the file st the pipe? (a NULL: no) */
bool pc_acks_is_pipe (const struct pc_acks *a, const struct stat *st);
/* Calls fn on every whole line read so far (without its newline), in
 * order, and, with all, on what follows the last one; stops at fn's first
 * non-zero answer and returns it. */
int pc_acks_take (struct pc_acks *a, bool all, int (*fn) (void *, const char *, size_t),
                  void *arg);
/* Stops reading (the program has ended). */
void pc_acks_stop (struct pc_acks *a);
void pc_acks_free (struct pc_acks *a);

struct pc_task {
  pid_t tid, tgid;
  bool in_call;             /* an entry reported, its exit not yet */
  bool told_badarch;        /* a 32-bit call was reported once */
  struct pc_call *call;     /* malloc'd on first use, kept */
  /* Seen stopped before the event of the call that made it: held there,
   * not resumed, until that event is told (so what the parent had is
   * copied first) or its parent process is gone. */
  bool held;
  int held_status;          /* the stop it is held at */
  pid_t held_parent;        /* the process that made it */
};

/* A shared writable mapping of a file, as the tracer follows it. */
struct pc_mapping {
  pid_t tgid;               /* the address space (a process) */
  uint64_t start, len;      /* page-rounded */
  uint64_t off;             /* the file offset of start */
  int file;                 /* ours, read-only */
  uint64_t dev, ino;
  char *path;
};

/* A directory descriptor a reported call used (an *at call's, an fsync's):
 * its close is reported too; other directories' closes are not (every
 * program opens directories to read them). */
struct pc_dirfd {
  pid_t tgid;
  int fd;
};

struct pc_tracer {
  const struct pc_tracer_opts *opts;
  pid_t child;              /* the program's first process */
  struct pc_task *tasks;
  size_t ntasks, taskcap;
  struct pc_mapping *maps;
  size_t nmaps, mapcap;
  struct pc_dirfd *dirfds;
  size_t ndirfds, dirfdcap;
  uint64_t seq;
  uint64_t *hashes;         /* room for an exit event's hashes */
  size_t hashcap;
  uint8_t *blocks;          /* room for reading blocks to hash */
  struct pc_acks *acks;     /* the program's standard output, or NULL */
  pid_t *early;             /* held tasks that died before their making was */
  size_t nearly, earlycap;  /* told: that event adds nothing */
  int stop;                 /* < 0: stopping: what on_call returned, -EINTR */
};

#define PC_PAGE_UP(n) (((n) + 4095) & ~(uint64_t) 4095)

/* Decodes the entry of the call c was begun for (entries.c): its event
 * and text, and what its exit needs (c->file, c->old_size).  Returns 1 if
 * it is an event, 0 if not (a write to a pipe, the close of a file open
 * read-only), PC_DECODE_SILENT for a write to the acknowledgements'
 * pipe. */
int pc_trace_decode (struct pc_tracer *tr, struct pc_task *t, struct pc_call *c,
                     struct pc_text *txt, long nr, const uint64_t a[6]);

/* Decodes the call the task is stopped at (seccomp stop: nr and args) and
 * tells on_call its entry.  Returns 1 if the exit must be seen
 * (t->in_call set), 0 if not (no event, or one that needs no exit), or
 * a negative errno if on_call asked to stop. */
int pc_trace_entry (struct pc_tracer *tr, struct pc_task *t, uint32_t arch, long nr,
                    const uint64_t args[6]);
/* Tells on_call the exit of t's call, whose result is rval (what the
 * kernel left: -ERESTART* codes included), or lost if the thread died
 * before it returned; clears t->in_call.  Returns 0 or what on_call
 * returned. */
int pc_trace_exit (struct pc_tracer *tr, struct pc_task *t, int64_t rval, bool lost);
/* Tells on_call an ACK event for each line the program completed on its
 * standard output (with all, what follows the last one too), as written
 * by pid/tid.  Returns 0 or what on_call returned. */
int pc_trace_acks (struct pc_tracer *tr, pid_t pid, pid_t tid, bool all);

/* Processes (procs.c): a process starts with a copy of its parent's
 * mappings (proc_fork), and ends or execs with its mappings reported
 * unmapped and forgotten, and, if it ends, its directory descriptors
 * forgotten (proc_end, decode.c: returns 0 or what on_call returned). */
int pc_trace_proc_fork (struct pc_tracer *tr, pid_t parent, pid_t child);
int pc_trace_proc_end (struct pc_tracer *tr, pid_t tgid, bool exec);
void pc_trace_procs_free (struct pc_tracer *tr);
/* The first mapping of tgid that overlaps [addr, addr + len) (len 0: that
 * holds addr), or NULL; valid until the next change of the list. */
struct pc_mapping *pc_maps_find (struct pc_tracer *tr, pid_t tgid, uint64_t addr,
                                 uint64_t len);
/* Adds m (its file and path are the list's from then on). */
int pc_maps_add (struct pc_tracer *tr, const struct pc_mapping *m);
/* Forgets [addr, addr + len) of tgid's mappings, cutting them as munmap does. */
void pc_maps_trim (struct pc_tracer *tr, pid_t tgid, uint64_t addr, uint64_t len);
void pc_maps_remove (struct pc_tracer *tr, size_t i);
/* Directory descriptors (procs.c): noted when a reported call uses one;
 * taken (forgotten, and said whether it was noted) at its close;
 * forgotten with their process. */
void pc_dirfd_note (struct pc_tracer *tr, pid_t tgid, int fd);
bool pc_dirfd_take (struct pc_tracer *tr, pid_t tgid, int fd);
bool pc_dirfd_has (const struct pc_tracer *tr, pid_t tgid, int fd);
void pc_dirfd_forget (struct pc_tracer *tr, pid_t tgid);

/* Reading a traced thread and its files (peek.c). */
/* n bytes at addr of thread tid into buf: 0, or -errno (-EFAULT: fewer
 * were there).  By process_vm_readv, or where the kernel has none
 * (ENOSYS: built without CROSS_MEMORY_ATTACH) by its /proc/TID/mem. */
int pc_peek (pid_t tid, uint64_t addr, void *buf, size_t n);
/* A NUL-terminated string at addr into buf (at most cap - 1 bytes): its
 * length, or -errno (-ENAMETOOLONG: no NUL within cap - 1). */
long pc_peek_str (pid_t tid, uint64_t addr, char *buf, size_t cap);

struct pc_fdinfo {
  int fd;
  bool ok;                  /* the fd exists: st and path hold */
  bool has_info;            /* pos and flags hold */
  struct stat st;
  char path[PC_EVENT_PATH_MAX];
  uint64_t pos;             /* from /proc/TID/fdinfo */
  unsigned flags;           /* its open flags */
};

/* Is fd of tid open for writing (or not known: true)?  One lstat. */
bool pc_fd_writable (pid_t tid, int fd);

/* Looks fd of tid up: stat always, and for a file, a block device or a
 * directory its name, and position and flags if info. */
void pc_fd_lookup (pid_t tid, int fd, bool info, struct pc_fdinfo *ret);
/* Opens fd of tid read-only for the tracer (-1 if it cannot). */
int pc_fd_open (pid_t tid, int fd);
/* Resolves path (as the call got it) against dirfd of tid (AT_FDCWD: its
 * directory) into out, lexically, without following anything.  Returns 0
 * or -errno (out is then ""). */
int pc_resolve (pid_t tid, int dirfd, const char *path, char *out, size_t cap);
/* Lexically normalises an absolute path in place. */
void pc_normalise (char *p);
/* The thread group of tid (tid itself if /proc does not say). */
pid_t pc_tgid_of (pid_t tid);
/* The parent process of tid (0 if /proc does not say). */
pid_t pc_ppid_of (pid_t tid);

/* The printable form of a call (text.c), as strace prints it, kept within
 * cap bytes: what does not fit is cut and ends in "...". */
struct pc_text {
  char *s;
  size_t len, cap;
  bool cut;
};

struct pc_flagname {
  uint64_t bit;
  const char *name;
};

extern const struct pc_flagname pc_open_flags[], pc_falloc_flags[], pc_rename_flags[],
  pc_at_flags[], pc_ms_flags[], pc_rwf_flags[], pc_prot_flags[], pc_map_flags[],
  pc_xattr_flags[], pc_sfr_flags[], pc_mremap_flags[];

void pc_text_init (struct pc_text *t, char *buf, size_t cap);
void pc_text_add (struct pc_text *t, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
/* n bytes of s in quotes with C escapes; more: "..." after. */
void pc_text_quote (struct pc_text *t, const char *s, size_t n, bool more);
/* The first bytes of a buffer of the traced thread, quoted. */
void pc_text_data (struct pc_text *t, pid_t tid, uint64_t addr, uint64_t count);
/* A descriptor and its file, "3</a/b>"; a directory descriptor of an *at
 * call, "AT_FDCWD" for that one. */
void pc_text_fd (struct pc_text *t, int fd, const char *path);
void pc_text_dirfd (struct pc_text *t, int dirfd, pid_t tid);
/* v as names or'ed ("O_WRONLY|O_CREAT"), what no name covers in hex;
 * open flags take their access mode first. */
void pc_text_flags (struct pc_text *t, uint64_t v, const struct pc_flagname *names);
void pc_text_open_flags (struct pc_text *t, uint64_t v);
/* " = RESULT" as strace ends a line: "= -1 ENOENT (No such file or
 * directory)", hex for addresses. */
void pc_text_result (struct pc_text *t, int64_t r, bool hex);

#endif
