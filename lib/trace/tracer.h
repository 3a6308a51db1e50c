/* tracer.h: running a program under ptrace and telling a callback each
 * call it makes that can change a file, before and after the call.
 *
 * A seccomp filter stops the program only at the calls that can change a
 * file or make it durable (the list is in syscalls.c and
 * format/event.h); reads and everything else run at full speed.  At each
 * stop the tracer decodes the call into an entry event (format/event.h:
 * paths resolved against the caller's directory or the *at descriptor
 * before the call changes the tree, the descriptor's file and identity)
 * and calls on_call; the program's call runs only when on_call returns.
 * After the call the tracer calls on_call again with the exit event: the
 * result and, for a call that changed a file's data, the range, the size
 * and the hash of each 4 KiB block touched.  Calls that change nothing
 * the oracle cares about (a write to a pipe, a read-only open, the close
 * of a file open read-only) give no events.
 *
 * Every process and thread the program starts is followed (fork, vfork,
 * clone, clone3, exec).  Calls whose effect cannot be seen (io_uring,
 * Linux AIO, 32-bit calls) are reported as PC_OP_UNTRACEABLE.  x86-64
 * only.  Run by root, the filter is loaded without no_new_privs (so that
 * set-user-ID programs it runs keep working); by anyone else, with.
 *
 * The file reads it makes (to hash blocks) do not change access times.
 * The program runs with detect_leaks=0 added to ASAN_OPTIONS and
 * LSAN_OPTIONS: LeakSanitizer cannot stop a traced program's threads.
 */
#ifndef POWERCUT_TRACER_H
#define POWERCUT_TRACER_H

#include <stdbool.h>

#include "format/event.h"
#include "util/err.h"

/* Told each event.  ev and what it points to are valid until it returns;
 * the traced thread (and, as the tracer serves one stop at a time, every
 * traced thread) waits until then.  Returns 0, or a negative errno to
 * stop: the program is killed and pc_tracer_run returns that value. */
typedef int (*pc_tracer_fn) (const struct pc_event *ev, void *arg);

struct pc_tracer_opts {
  pc_tracer_fn on_call;     /* required */
  void *arg;                /* its second argument */
  const char *cwd;          /* the program's directory (NULL: ours) */
  bool acks;                /* the program's standard output is a pipe the tracer
                             * reads: each line written there is an ACK event,
                             * told at the exit of the write that completed it
                             * (the rest at the end), and every byte is copied
                             * on to the tracer's own standard output */
  char *left;               /* if not NULL (left_len bytes): the processes the
                             * program left running when its first process
                             * ended, which the tracer then killed, as
                             * "PID (NAME), ..."; "" if none */
  size_t left_len;
};

/* Runs argv (looked up in PATH) under the tracer, in the calling thread,
 * until its first process has ended; what it started and left running
 * then is killed (and named in opts->left).  Standard input, output and
 * error are ours.  The calling thread waits for any of its children
 * (waitpid -1, __WALL, __WNOTHREAD): it must have no other child of its
 * own to wait for while this runs.  If pc_interrupted() becomes true
 * (seen when the wait is interrupted by a signal, or between stops) the
 * program is killed and -EINTR returned.
 *
 * Returns the program's exit status (0..255), 256 + the signal that
 * killed it, or a negative errno with the reason in err: -ENOTSUP (not
 * x86-64), -ENOENT and the like (the program could not be run), -EPERM
 * (ptrace or seccomp refused), or what on_call returned. */
int pc_tracer_run (char *const argv[], const struct pc_tracer_opts *opts,
                   struct pc_err *err);

#endif
