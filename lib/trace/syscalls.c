/* syscalls.c: the calls the tracer stops at, and the seccomp filter that
 * stops the program at them and at nothing else. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace/traceint.h"
#include "util/util.h"

#if PC_TRACE_ARCH

static const struct pc_sysent table[] = {
  { SYS_open, "open", PC_OP_OPEN },
  { SYS_openat, "openat", PC_OP_OPEN },
  { SYS_openat2, "openat2", PC_OP_OPEN },
  { SYS_creat, "creat", PC_OP_OPEN },
  { SYS_write, "write", PC_OP_WRITE },
  { SYS_pwrite64, "pwrite64", PC_OP_WRITE },
  { SYS_writev, "writev", PC_OP_WRITE },
  { SYS_pwritev, "pwritev", PC_OP_WRITE },
  { SYS_pwritev2, "pwritev2", PC_OP_WRITE },
  { SYS_truncate, "truncate", PC_OP_TRUNCATE },
  { SYS_ftruncate, "ftruncate", PC_OP_TRUNCATE },
  { SYS_fallocate, "fallocate", PC_OP_FALLOCATE },
  { SYS_copy_file_range, "copy_file_range", PC_OP_COPY },
  { SYS_sendfile, "sendfile", PC_OP_COPY },
  { SYS_splice, "splice", PC_OP_COPY },
  { SYS_rename, "rename", PC_OP_RENAME },
  { SYS_renameat, "renameat", PC_OP_RENAME },
  { SYS_renameat2, "renameat2", PC_OP_RENAME },
  { SYS_link, "link", PC_OP_LINK },
  { SYS_linkat, "linkat", PC_OP_LINK },
  { SYS_symlink, "symlink", PC_OP_SYMLINK },
  { SYS_symlinkat, "symlinkat", PC_OP_SYMLINK },
  { SYS_unlink, "unlink", PC_OP_UNLINK },
  { SYS_unlinkat, "unlinkat", PC_OP_UNLINK },    /* AT_REMOVEDIR: RMDIR */
  { SYS_rmdir, "rmdir", PC_OP_RMDIR },
  { SYS_mkdir, "mkdir", PC_OP_MKDIR },
  { SYS_mkdirat, "mkdirat", PC_OP_MKDIR },
  { SYS_setxattr, "setxattr", PC_OP_SETXATTR },
  { SYS_lsetxattr, "lsetxattr", PC_OP_SETXATTR },
  { SYS_fsetxattr, "fsetxattr", PC_OP_SETXATTR },
  { SYS_removexattr, "removexattr", PC_OP_REMOVEXATTR },
  { SYS_lremovexattr, "lremovexattr", PC_OP_REMOVEXATTR },
  { SYS_fremovexattr, "fremovexattr", PC_OP_REMOVEXATTR },
  { SYS_mmap, "mmap", PC_OP_MMAP },
  { SYS_msync, "msync", PC_OP_MSYNC },
  { SYS_munmap, "munmap", PC_OP_MUNMAP },
  { SYS_mremap, "mremap", PC_OP_MREMAP },
  { SYS_fsync, "fsync", PC_OP_FSYNC },
  { SYS_fdatasync, "fdatasync", PC_OP_FDATASYNC },
  { SYS_sync, "sync", PC_OP_SYNC },
  { SYS_syncfs, "syncfs", PC_OP_SYNCFS },
  { SYS_sync_file_range, "sync_file_range", PC_OP_SYNC_RANGE },
  { SYS_close, "close", PC_OP_CLOSE },
  { SYS_io_uring_setup, "io_uring_setup", PC_OP_UNTRACEABLE },
  { SYS_io_uring_enter, "io_uring_enter", PC_OP_UNTRACEABLE },
  { SYS_io_uring_register, "io_uring_register", PC_OP_UNTRACEABLE },
  { SYS_io_submit, "io_submit", PC_OP_UNTRACEABLE },
};

const struct pc_sysent *
pc_trace_sysent (long nr)
{
  for (size_t i = 0; i < PC_ARRAY_SIZE (table); i++)
    if (table[i].nr == nr)
      return &table[i];
  return NULL;
}

/* Opens: only those that may write or create; the flags are argument
 * flagarg.  Any of the four conditions is enough (rules of one call are
 * or'ed). */
static int
add_open (scmp_filter_ctx ctx, int nr, unsigned flagarg)
{
  static const struct { uint64_t mask, val; } any[] = {
    { O_ACCMODE, O_WRONLY }, { O_ACCMODE, O_RDWR }, { O_CREAT, O_CREAT }, { O_TRUNC, O_TRUNC },
  };
  int r = 0;

  for (size_t i = 0; i < PC_ARRAY_SIZE (any) && r == 0; i++) {
    struct scmp_arg_cmp c = { flagarg, SCMP_CMP_MASKED_EQ, any[i].mask, any[i].val };
    r = seccomp_rule_add_array (ctx, SCMP_ACT_TRACE (0), nr, 1, &c);
  }
  return r;
}

void *
pc_trace_filter (struct pc_err *err)
{
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  int r;

  if (ctx == NULL)
    return pc_err_set (err, ENOMEM, "seccomp: cannot make a filter"), NULL;
  /* Root may load a filter without no_new_privs (so that set-user-ID
   * programs keep working under it); anyone else must set it. */
  r = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, geteuid () == 0 ? 0 : 1);
  /* Calls of another ABI (int 0x80, x32) stop too, to be reported. */
  if (r == 0)
    r = seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_TRACE (PC_TRACE_BADARCH));
  for (size_t i = 0; i < PC_ARRAY_SIZE (table) && r == 0; i++) {
    int nr = table[i].nr;
    if (nr == SYS_open)
      r = add_open (ctx, nr, 1);
    else if (nr == SYS_openat)
      r = add_open (ctx, nr, 2);
    else if (nr == SYS_mmap)
      /* writable, shared (MAP_SHARED_VALIDATE too), of a file */
      r = seccomp_rule_add (ctx, SCMP_ACT_TRACE (0), nr, 2,
                            SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_WRITE, PROT_WRITE),
                            SCMP_A3 (SCMP_CMP_MASKED_EQ, MAP_SHARED | MAP_ANONYMOUS,
                                     MAP_SHARED));
    else
      r = seccomp_rule_add (ctx, SCMP_ACT_TRACE (0), nr, 0);
  }
  if (r < 0) {
    seccomp_release (ctx);
    pc_err_set (err, -r, "seccomp: cannot make the filter: %s", strerror (-r));
    return NULL;
  }
  return ctx;
}

#else

const struct pc_sysent *
pc_trace_sysent (long nr)
{
  return NULL;
}

void *
pc_trace_filter (struct pc_err *err)
{
  return pc_err_set (err, ENOTSUP, "seccomp: no filter for this architecture"), NULL;
}

#endif
