/* event.h: what a traced program did to its files, one system call at a time.
 *
 * The tracer (trace/tracer.h) describes each call that can change a file
 * twice: an entry event before the call runs (paths resolved while the
 * tree is still as the call found it), and an exit event after it, with
 * the result and, when the call changed a file's data, what changed:
 * the byte range, the file's size after, and the XXH3-64 hash of every
 * PC_EVENT_BLOCK-byte block the range touches as the file then holds it
 * (a final block cut short by the end of the file hashes only the bytes
 * it has).  Every entry event is followed by exactly one exit event of
 * the same thread, with the same pid, tid, nr and op and a larger seq
 * (other threads' events may come between); an ACK is an exit event
 * alone.  An exit event whose result
 * is negative (-errno) changed nothing: it carries no range, size or
 * hashes, and a reader must not take its data as a version.
 *
 * What each op's fields hold (unused fields are zero, fd is -1):
 *   OPEN       path[0] the name as given, resolved; at exit, on success,
 *              path[1] the file really opened (symlinks followed), fd the
 *              new descriptor, dev/ino, size; arg_flags the open flags,
 *              mode the creation mode.  Read-only opens are not events.
 *   WRITE      fd, path[0] (the fd's name), dev/ino, fd_flags; arg_flags
 *              RWF_* (pwritev2); offset/length as asked (an append: at the
 *              size the file had); at exit offset/length the bytes written
 *              (an append: the size after less the bytes written), size,
 *              hashes.  Writes to anything but a regular file or a block
 *              device are not events.
 *   TRUNCATE   path[0] (or fd's), dev/ino, length the new size; at exit
 *              offset/length the bytes between the old and new size, size,
 *              and the hash of the block holding the boundary when it is
 *              partial (the rest of the range reads as zeros, or is gone).
 *   FALLOCATE  fd, path[0], dev/ino, arg_flags the mode (FALLOC_FL_*),
 *              offset/length as asked; at exit size, and hashes of
 *              the range for PUNCH_HOLE and ZERO_RANGE, of everything from
 *              offset to the end for COLLAPSE_RANGE and INSERT_RANGE (a
 *              plain or KEEP_SIZE allocation changes no bytes: no hashes).
 *   COPY       copy_file_range, sendfile, splice into a regular file: fd,
 *              path[0] the file written, path[1] the file read; at exit as
 *              WRITE.
 *   RENAME     path[0] old, path[1] new, arg_flags RENAME_*.
 *   LINK       path[0] the existing name, path[1] the new one, arg_flags AT_*.
 *   SYMLINK    path[0] the new link, path[1] its target as given (not
 *              resolved: it is the link's content).
 *   UNLINK     path[0]; RMDIR path[0] (rmdir, unlinkat AT_REMOVEDIR).
 *   MKDIR      path[0], mode.
 *   SETXATTR   path[0] (or fd's), path[1] the attribute's name, length the
 *              value's size, value_hash its XXH3-64, arg_flags XATTR_*;
 *              for a POSIX ACL (acl.h) value_hash the hash of its meaning
 *              (PC_EVENT_F_ACL), or PC_EVENT_F_ACL_NONE where the kernel
 *              stores no attribute for the value (an ACL of no entries,
 *              an access ACL equivalent to the mode): that removes it.
 *   REMOVEXATTR path[0] (or fd's), path[1] the attribute's name.
 *   MMAP       a shared writable mapping of a file: fd, path[0], dev/ino,
 *              offset the file offset, length, mode the PROT_* bits,
 *              arg_flags the MAP_* flags; at exit addr the mapping.
 *   MSYNC      addr, arg_flags MS_*; path[0], dev/ino, offset/length the
 *              file range the synced memory maps; at exit hashes of it.
 *              Before the first ACK of a write to standard output, one
 *              that no call made for each file the program has a
 *              writable shared mapping of (nr -1, name "ack", MS_ASYNC:
 *              nothing made durable): the span of its mappings, hashed
 *              as the program has it then.
 *   MUNMAP     as MSYNC for the part of a tracked mapping unmapped (its
 *              data stays in the file, written back some time later).  A
 *              process that ends or execs with mappings left gets one
 *              MUNMAP each that no call made: nr -1, name "exit" or
 *              "execve".
 *   MREMAP     as MUNMAP for the old range; at exit addr the new address,
 *              length the new size.
 *   FSYNC, FDATASYNC, SYNCFS, CLOSE  fd, path[0], dev/ino (close: only of a
 *              file open for writing, or of a directory a reported call
 *              used: an fsync's, an *at call's).  At the exit of an fsync
 *              or fdatasync of a file with shared writable mappings the
 *              tracer follows: offset/length the span they cover (up to
 *              the file's size), size, and hashes of it: what the
 *              mappings wrote, which the call made durable.
 *   SYNC       nothing.
 *   SYNC_RANGE fd, path[0], dev/ino, offset/length, arg_flags.
 *   ACK        a line the program wrote on its standard output: what it
 *              acknowledged (an exit event alone, no call behind it: nr
 *              -1, fd 1, name "ack"); text the line without its newline
 *              (cut to fit), pid/tid the process and thread whose write
 *              completed it.  Logged before the program goes on.
 *   UNTRACEABLE a call whose effect on files cannot be seen (io_uring_*,
 *              io_submit, and the first call of another ABI of each
 *              thread: int 0x80, x32; PC_EVENT_F_BADARCH, nr its number
 *              there); text lists the files the process had open for
 *              writing then, path[0] and dev/ino are the first of them.
 * text is the call as strace prints it, bounded; at exit followed by
 * " = RESULT".
 *
 * Encoded (little-endian), every length bounded by the PC_EVENT_*_MAX:
 *   u32 magic "PCEV", u16 version (1), u8 kind, u8 op, u32 flags, u64 seq,
 *   u32 pid, u32 tid, u64 mono_ns, u64 real_ns, u32 nr,
 *   u8 namelen, name, u16 textlen, text, i64 result, i32 fd, u64 dev,
 *   u64 ino, u32 fd_flags, u64 offset, u64 length, u64 arg_flags, u64 mode,
 *   u64 addr, u64 size, u64 value_hash, u16 len + path[0], u16 len + path[1],
 *   u64 first_block, u32 nhashes, nhashes * u64
 */
#ifndef POWERCUT_EVENT_H
#define POWERCUT_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PC_EVENT_MAGIC      0x56454350u   /* "PCEV" */
#define PC_EVENT_VERSION    1
#define PC_EVENT_NAME_MAX   24            /* a call's name, with its NUL */
#define PC_EVENT_TEXT_MAX   512           /* its printable form, with its NUL */
#define PC_EVENT_PATH_MAX   4096          /* a path, with its NUL */
#define PC_EVENT_BLOCK      4096          /* the blocks hashes are of */
#define PC_EVENT_HASHES_MAX 262144        /* 1 GiB of blocks */

enum pc_event_kind {
  PC_EVENT_ENTRY = 1,       /* the call is about to run */
  PC_EVENT_EXIT = 2,        /* it has returned */
};

enum pc_event_op {
  PC_OP_OPEN = 1,
  PC_OP_WRITE,
  PC_OP_TRUNCATE,
  PC_OP_FALLOCATE,
  PC_OP_COPY,
  PC_OP_RENAME,
  PC_OP_LINK,
  PC_OP_SYMLINK,
  PC_OP_UNLINK,
  PC_OP_RMDIR,
  PC_OP_MKDIR,
  PC_OP_SETXATTR,
  PC_OP_REMOVEXATTR,
  PC_OP_MMAP,
  PC_OP_MSYNC,
  PC_OP_MUNMAP,
  PC_OP_MREMAP,
  PC_OP_FSYNC,
  PC_OP_FDATASYNC,
  PC_OP_SYNC,
  PC_OP_SYNCFS,
  PC_OP_SYNC_RANGE,
  PC_OP_CLOSE,
  PC_OP_UNTRACEABLE,
  PC_OP_ACK,
  PC_OP_MAX_ = PC_OP_ACK
};

/* flags */
#define PC_EVENT_F_IDENTITY   (1u << 0)   /* dev and ino are the file's */
#define PC_EVENT_F_RANGE      (1u << 1)   /* offset and length hold a range */
#define PC_EVENT_F_SIZE       (1u << 2)   /* size is the file's size after */
#define PC_EVENT_F_HASHES_CUT (1u << 3)   /* the range has more blocks than hashed */
#define PC_EVENT_F_UNHASHED   (1u << 4)   /* the range changed but could not be read */
#define PC_EVENT_F_NOPATH     (1u << 5)   /* a path could not be resolved (empty) */
#define PC_EVENT_F_RESTART    (1u << 6)   /* interrupted, to be run again: result -EINTR */
#define PC_EVENT_F_LOST       (1u << 7)   /* the thread died before the call returned:
                                           * result unknown (0), changes unknown */
#define PC_EVENT_F_BADARCH    (1u << 8)   /* a call of another ABI (32-bit) */
#define PC_EVENT_F_VALUE_HASH (1u << 9)   /* value_hash is set */
#define PC_EVENT_F_ACL        (1u << 10)  /* value_hash is a POSIX ACL's meaning */
#define PC_EVENT_F_ACL_NONE   (1u << 11)  /* an ACL the kernel stores as none */
#define PC_EVENT_F_ALL_       ((1u << 12) - 1)

/* fd_flags: how the file's descriptor was opened, as far as durability goes */
#define PC_FD_WRITE   (1u << 0)   /* O_WRONLY or O_RDWR */
#define PC_FD_APPEND  (1u << 1)
#define PC_FD_SYNC    (1u << 2)   /* O_SYNC */
#define PC_FD_DSYNC   (1u << 3)   /* O_DSYNC (or O_SYNC) */
#define PC_FD_DIRECT  (1u << 4)
#define PC_FD_ALL_    ((1u << 5) - 1)

struct pc_event {
  uint8_t kind;                         /* enum pc_event_kind */
  uint8_t op;                           /* enum pc_event_op */
  uint32_t flags;                       /* PC_EVENT_F_* */
  uint64_t seq;                         /* 1, 2, ... over the whole run */
  int32_t pid, tid;                     /* process (thread group) and thread */
  uint64_t mono_ns, real_ns;            /* CLOCK_MONOTONIC, CLOCK_REALTIME */
  int32_t nr;                           /* the x86-64 call number (-1: none) */
  char name[PC_EVENT_NAME_MAX];         /* "renameat2" */
  char text[PC_EVENT_TEXT_MAX];         /* "rename(\"a.tmp\", \"a\")" */
  int64_t result;                       /* exit: the value or -errno */
  int32_t fd;                           /* the descriptor concerned, or -1 */
  uint64_t dev, ino;                    /* its file (PC_EVENT_F_IDENTITY) */
  uint32_t fd_flags;                    /* PC_FD_* */
  uint64_t offset, length;
  uint64_t arg_flags, mode, addr;
  uint64_t size;                        /* PC_EVENT_F_SIZE */
  uint64_t value_hash;                  /* PC_EVENT_F_VALUE_HASH */
  char path[2][PC_EVENT_PATH_MAX];      /* absolute, normalised; "" if none */
  uint64_t first_block;                 /* of hashes[0] */
  uint32_t nhashes;
  uint64_t *hashes;                     /* nhashes; owned by whoever filled the
                                         * event (decode: free with
                                         * pc_event_free) */
};

/* The op's name ("write", "rename", "untraceable"), or "?" . */
const char *pc_event_op_name (unsigned op);

/* Encodes ev; *ret_buf is malloc'd.  Returns 0, -EINVAL (a field out of
 * its bounds: a string without its NUL in its array, too many hashes) or
 * -ENOMEM. */
int pc_event_encode (const struct pc_event *ev, uint8_t **ret_buf, size_t *ret_len);

/* Decodes and validates an encoded event into *ret (its hashes malloc'd:
 * pc_event_free).  Returns 0, -EBADMSG (malformed: err says what and
 * where, as "event: path[1]: a NUL byte inside") or -ENOMEM.  On failure
 * *ret holds nothing to free. */
int pc_event_decode (const uint8_t *buf, size_t len, struct pc_event *ret,
                     struct pc_err *err);

/* Frees what a decoded event owns (its hashes), and clears them. */
void pc_event_free (struct pc_event *ev);

#endif
