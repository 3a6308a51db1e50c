/* trace-prog.c: programs for check_trace to trace: each scenario makes
 * the calls of one family in the current directory (good ones and one
 * that fails), as trace-prog.h says. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "trace-prog.h"

extern char **environ;

static uint8_t buf[7][65536];

static const uint8_t *
pat (unsigned seed, size_t n)
{
  static unsigned next;
  uint8_t *b = buf[next++ % 7];

  tp_fill (b, n, seed);
  return b;
}

static int
make (const char *name, unsigned seed, size_t n)
{
  int fd = open (name, O_CREAT | O_RDWR | O_TRUNC, 0644);

  if (n && write (fd, pat (seed, n), n) != (ssize_t) n)
    exit (90);
  return fd;
}

static void
s_write (void)
{
  struct iovec v[2];
  int fd = open ("w", O_CREAT | O_WRONLY | O_TRUNC, 0644), p[2];

  if (write (fd, pat (1, TP_W1), TP_W1) != TP_W1)
    exit (91);
  pwrite (fd, pat (2, TP_W1), TP_W1, TP_PW_OFF);
  v[0].iov_base = (void *) pat (3, TP_V1);
  v[0].iov_len = TP_V1;
  v[1].iov_base = (void *) pat (4, TP_V2);
  v[1].iov_len = TP_V2;
  writev (fd, v, 2);
  v[0].iov_base = (void *) pat (5, TP_V1);
  pwritev (fd, v, 1, TP_PWV_OFF);
  v[0].iov_base = (void *) pat (6, TP_PWV2);
  v[0].iov_len = TP_PWV2;
  pwritev2 (fd, v, 1, -1, RWF_DSYNC);
  write (99, "x", 1);                         /* EBADF */
  if (pipe (p) == 0)
    write (p[1], "pipe", 4);                  /* not a file: no event */
  close (fd);
  fd = open ("a", O_CREAT | O_WRONLY | O_APPEND, 0644);
  write (fd, pat (1, TP_W1), TP_W1);
  write (fd, pat (2, 100), 100);
  close (fd);
}

static void
s_open (const char *dir)
{
  struct open_how how = { .flags = O_CREAT | O_WRONLY | O_DSYNC, .mode = 0600 };
  char abs[4096];
  int dfd;

  mkdir ("sub", 0755);
  open ("o1", O_CREAT | O_WRONLY, 0600);
  dfd = open ("sub", O_RDONLY | O_DIRECTORY);           /* read-only: no event */
  openat (dfd, "o2", O_CREAT | O_RDWR | O_SYNC, 0640);
  snprintf (abs, sizeof abs, "%s/o3", dir);
  syscall (SYS_openat2, AT_FDCWD, abs, &how, sizeof how);
  creat ("sub/../o4", 0644);
  open ("o1", O_CREAT | O_EXCL | O_WRONLY, 0600);       /* EEXIST */
  open ("o1", O_RDONLY);                                /* no event */
  open ("missing/x", O_WRONLY);                         /* ENOENT */
  open ("od", O_CREAT | O_WRONLY | O_DIRECT, 0644);
  symlink ("o1", "ln");
  open ("ln", O_WRONLY | O_APPEND);                     /* o1, through ln */
}

static void
s_truncate (void)
{
  int fd = make ("t", 7, TP_T0);

  ftruncate (fd, TP_T1);
  truncate ("t", TP_T2);
  truncate ("nope", 1);                                 /* ENOENT */
  ftruncate (99, 1);                                    /* EBADF */
}

static void
s_fallocate (void)
{
  static const struct { const char *name; int mode; off_t off, len; } m[] = {
    { "f-plain", 0, TP_F0, 8192 },
    { "f-keep", FALLOC_FL_KEEP_SIZE, TP_F0, 8192 },
    { "f-punch", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1000, 10000 },
    { "f-zero", FALLOC_FL_ZERO_RANGE, 5000, 3000 },
    { "f-collapse", FALLOC_FL_COLLAPSE_RANGE, 8192, 8192 },
    { "f-insert", FALLOC_FL_INSERT_RANGE, 4096, 4096 },
    { "f-bad", FALLOC_FL_COLLAPSE_RANGE, 100, 100 },    /* EINVAL */
  };

  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
    int fd = make (m[i].name, 8, TP_F0);
    fallocate (fd, m[i].mode, m[i].off, m[i].len);
    close (fd);
  }
}

static void
s_rename (const char *dir)
{
  char abs[4096];
  int dfd;

  close (make ("r1", 0, 0));
  close (make ("r2", 0, 0));
  close (make ("r3", 0, 0));
  mkdir ("d1", 0755);
  rename ("r1", "r1b");
  dfd = open ("d1", O_RDONLY | O_DIRECTORY);
  renameat (AT_FDCWD, "r2", dfd, "r2b");
  renameat2 (AT_FDCWD, "r1b", AT_FDCWD, "r3", RENAME_NOREPLACE);   /* EEXIST */
  renameat2 (AT_FDCWD, "r1b", AT_FDCWD, "r3", RENAME_EXCHANGE);
  snprintf (abs, sizeof abs, "%s/r3", dir);
  renameat2 (AT_FDCWD, abs, AT_FDCWD, "d1/./../r4", RENAME_WHITEOUT);
  rename ("missing", "x");                                         /* ENOENT */
}

static void
s_link (void)
{
  int fd = make ("l1", 0, 0);
  int dfd;

  mkdir ("ld", 0755);
  dfd = open ("ld", O_RDONLY | O_DIRECTORY);
  link ("l1", "l2");
  linkat (AT_FDCWD, "l1", dfd, "l3", 0);
  linkat (fd, "", AT_FDCWD, "l4", AT_EMPTY_PATH);
  link ("l1", "l2");                                    /* EEXIST */
}

static void
s_symlink (void)
{
  int dfd;

  mkdir ("sd", 0755);
  dfd = open ("sd", O_RDONLY | O_DIRECTORY);
  symlink ("target/x", "s1");
  symlinkat ("../t", dfd, "s2");
  symlink ("a", "s1");                                  /* EEXIST */
}

static void
s_unlink (void)
{
  close (make ("u1", 0, 0));
  close (make ("u2", 0, 0));
  mkdir ("ud", 0755);
  mkdir ("ud2", 0755);
  symlink ("u2", "u3");
  unlink ("u1");
  unlinkat (AT_FDCWD, "u2", 0);
  unlinkat (AT_FDCWD, "ud", AT_REMOVEDIR);
  rmdir ("ud2");
  unlink ("u3");                                        /* the link, not u2 */
  unlink ("u1");                                        /* ENOENT */
  rmdir ("nope");                                       /* ENOENT */
}

static void
s_mkdir (void)
{
  int dfd;

  mkdir ("m1", 0755);
  dfd = open ("m1", O_RDONLY | O_DIRECTORY);
  mkdirat (dfd, "m2", 0700);
  mkdir ("m1", 0755);                                   /* EEXIST */
}

static void
s_xattr (void)
{
  int fd = make ("x1", 0, 0);

  setxattr ("x1", "user.a", "value1", 6, 0);
  symlink ("x1", "xl");
  lsetxattr ("xl", "user.b", "v", 1, 0);                /* EPERM: a symlink */
  fsetxattr (fd, "user.c", "vv", 2, XATTR_CREATE);
  removexattr ("x1", "user.a");
  lremovexattr ("xl", "user.b");                        /* fails */
  fremovexattr (fd, "user.c");
  removexattr ("x1", "user.nope");                      /* ENODATA */
}

static void
s_copy (void)
{
  int src = make ("c0", 10, TP_C0), d1, d2, d3, p[2];
  loff_t in = 0, out = 100;
  off_t soff = 1000;

  d1 = open ("c1", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  copy_file_range (src, &in, d1, &out, TP_C0, 0);
  d2 = open ("c2", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  sendfile (d2, src, &soff, 3000);
  d3 = open ("c3", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (pipe (p) == 0 && write (p[1], pat (11, 500), 500) == 500) {
    loff_t o = 50;
    splice (p[0], NULL, d3, &o, 500, 0);
  }
  copy_file_range (99, NULL, d1, NULL, 10, 0);           /* EBADF */
}

static void
s_mmap (void)
{
  int fd = open ("m", O_CREAT | O_RDWR | O_TRUNC, 0644);
  uint8_t *p, *q, *r;

  ftruncate (fd, 3 * 4096);
  p = mmap (NULL, TP_M_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, TP_M_OFF);
  if (p == MAP_FAILED)
    exit (92);
  memcpy (p + 4096, pat (9, TP_M_N), TP_M_N);
  msync (p, TP_M_LEN, MS_SYNC);
  msync (p + 1, 10, MS_ASYNC);                          /* EINVAL */
  q = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (q == MAP_FAILED)
    exit (93);
  memcpy (q, pat (11, 50), 50);
  munmap (q, 4096);
  /* EINVAL (the call itself: glibc's mmap refuses it before) */
  syscall (SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 100);
  r = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * 4096);
  if (r == MAP_FAILED)
    exit (94);
  memcpy (r + 200, pat (12, 10), 10);
  /* r is left mapped: the end of the process reports it */
  /* a mapping moved and grown, then written and unmapped at its new place */
  q = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (q == MAP_FAILED)
    exit (95);
  q = mremap (q, 4096, 2 * 4096, MREMAP_MAYMOVE);
  if (q == MAP_FAILED)
    exit (96);
  memcpy (q + 4096 + 300, pat (13, 20), 20);
  munmap (q, 2 * 4096);
}

static void
s_sync (void)
{
  int fd = open ("y", O_CREAT | O_WRONLY | O_TRUNC, 0644), dfd, rfd;

  write (fd, "abc", 3);
  fsync (fd);
  fdatasync (fd);
  sync ();
  syncfs (fd);
  sync_file_range (fd, 0, 3, SYNC_FILE_RANGE_WRITE);
  close (fd);
  dfd = open (".", O_RDONLY | O_DIRECTORY);
  fsync (dfd);
  close (dfd);
  rfd = open ("y", O_RDONLY);
  close (rfd);                                          /* read-only: no event */
  fsync (99);                                           /* EBADF */
  close (99);                                           /* EBADF */
}

static void
s_untraceable (void)
{
  struct io_uring_params p;
  aio_context_t ctx = 0;
  int fd = make ("u", 0, 0);

  memset (&p, 0, sizeof p);
  syscall (SYS_io_uring_setup, 4, &p);
  if (syscall (SYS_io_setup, 4, &ctx) == 0) {
    struct iocb cb;
    struct iocb *cbs[1] = { &cb };
    memset (&cb, 0, sizeof cb);
    cb.aio_fildes = (uint32_t) fd;
    cb.aio_lio_opcode = IOCB_CMD_PWRITE;
    cb.aio_buf = (uint64_t) (uintptr_t) "aio";
    cb.aio_nbytes = 3;
    syscall (SYS_io_submit, ctx, 1, cbs);
    syscall (SYS_io_destroy, ctx);
  }
  else
    syscall (SYS_io_submit, 0, 1, NULL);                /* EINVAL: still said */
}

static void
s_ia32 (void)
{
  long r = 20;                                          /* getpid, 32-bit */

  __asm__ volatile ("int $0x80" : "+a" (r) : : "memory");
}

static void *
writer (void *arg)
{
  const char *name = arg;
  int fd = open (name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  unsigned seed = name[1] == '1' ? 20 : 21;
  uint8_t b[1000];              /* its own: pat's buffers are not shared */

  for (int i = 0; i < 10; i++) {
    tp_fill (b, sizeof b, seed + (unsigned) i * 2);
    write (fd, b, sizeof b);
  }
  close (fd);
  return NULL;
}

static void
s_threads (void)
{
  pthread_t a, b;

  pthread_create (&a, NULL, writer, (void *) "t1");
  pthread_create (&b, NULL, writer, (void *) "t2");
  pthread_join (a, NULL);
  pthread_join (b, NULL);
}

static void
s_fork (void)
{
  char *const argv[] = { (char *) "sh", (char *) "-c", (char *) "echo y >> g", NULL };
  pid_t pid = fork (), spawned;
  int st;

  if (pid == 0) {
    execl ("/bin/sh", "sh", "-c", "echo x >> f", (char *) NULL);
    _exit (127);
  }
  waitpid (pid, &st, 0);
  /* posix_spawn: a vfork-like clone */
  if (posix_spawn (&spawned, "/bin/sh", NULL, NULL, argv, environ) == 0)
    waitpid (spawned, &st, 0);
  close (make ("parent", 0, 0));
}

/* Short-lived children, one after another: every other one writes its
 * byte of a mapping it inherited and syncs it, the others end at once.  A
 * child's whole life may reach the tracer before its parent's fork event
 * does. */
static void
s_forks (void)
{
  int fd = open ("m", O_CREAT | O_RDWR | O_TRUNC, 0644);
  uint8_t *p;

  ftruncate (fd, 4096);
  p = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    exit (92);
  for (int i = 0; i < TP_FORKS; i++) {
    pid_t pid = fork ();
    int st;
    if (pid == 0) {
      if (i % 2 == 0) {
        p[i / 2] = (uint8_t) (i / 2 + 1);
        msync (p, 4096, MS_SYNC);
      }
      _exit (0);
    }
    if (pid < 0 || waitpid (pid, &st, 0) != pid)
      exit (93);
  }
}

/* A thread other than the first execs: the process keeps its id. */
static void *
execer (void *arg)
{
  execl ("/bin/sh", "sh", "-c", "echo z >> h", (char *) NULL);
  return NULL;
}

static void
s_thread_exec (void)
{
  pthread_t a;

  pthread_create (&a, NULL, execer, NULL);
  pthread_join (a, NULL);               /* never returns: the exec ends us */
}

static volatile sig_atomic_t got;

static void
on_usr1 (int sig)
{
  got = sig;
}

/* A signal with a handler is delivered; a stop and a continue pass. */
static void
s_signals (void)
{
  pid_t pid;
  int st, done[2];
  char c;

  signal (SIGUSR1, on_usr1);
  raise (SIGUSR1);
  close (make ("sig", got == SIGUSR1 ? 1 : 2, 1));
  if (pipe2 (done, O_NONBLOCK) < 0)
    exit (97);
  pid = fork ();
  if (pid == 0) {
    /* continues its parent until told it has gone on, however late the
     * parent stops */
    while (read (done[0], &c, 1) != 1) {
      usleep (50 * 1000);
      kill (getppid (), SIGCONT);
    }
    _exit (0);
  }
  raise (SIGSTOP);                      /* until the child's SIGCONT */
  write (done[1], "x", 1);
  close (make ("cont", 3, 1));
  waitpid (pid, &st, 0);
}

static void
s_block (void)
{
  int fd = open ("slow", O_WRONLY);

  write (fd, "new", 3);
  close (fd);
}

int
main (int argc, char **argv)
{
  const char *s = argc > 1 ? argv[1] : "";
  const char *dir = argc > 2 ? argv[2] : ".";

  if (strcmp (s, "write") == 0) s_write ();
  else if (strcmp (s, "open") == 0) s_open (dir);
  else if (strcmp (s, "truncate") == 0) s_truncate ();
  else if (strcmp (s, "fallocate") == 0) s_fallocate ();
  else if (strcmp (s, "rename") == 0) s_rename (dir);
  else if (strcmp (s, "link") == 0) s_link ();
  else if (strcmp (s, "symlink") == 0) s_symlink ();
  else if (strcmp (s, "unlink") == 0) s_unlink ();
  else if (strcmp (s, "mkdir") == 0) s_mkdir ();
  else if (strcmp (s, "xattr") == 0) s_xattr ();
  else if (strcmp (s, "copy") == 0) s_copy ();
  else if (strcmp (s, "mmap") == 0) s_mmap ();
  else if (strcmp (s, "sync") == 0) s_sync ();
  else if (strcmp (s, "untraceable") == 0) s_untraceable ();
  else if (strcmp (s, "ia32") == 0) s_ia32 ();
  else if (strcmp (s, "threads") == 0) s_threads ();
  else if (strcmp (s, "fork") == 0) s_fork ();
  else if (strcmp (s, "forks") == 0) s_forks ();
  else if (strcmp (s, "thread-exec") == 0) s_thread_exec ();
  else if (strcmp (s, "signals") == 0) s_signals ();
  else if (strcmp (s, "block") == 0) s_block ();
  else if (strcmp (s, "exit") == 0) return atoi (dir);
  else return 2;
  return 0;
}
