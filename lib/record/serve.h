/* serve.h: a recorder (recorder.h) serving until it is stopped, in this
 * process or in a child process of its own.
 *
 * Stopping it is the recorder's: a stop request on its control socket
 * (control.h), or SIGINT, SIGTERM or SIGHUP; its log then ends with an
 * END record and is synced.
 */
#ifndef POWERCUT_SERVE_H
#define POWERCUT_SERVE_H

#include <sys/types.h>

#include "record/recorder.h"
#include "util/err.h"

/* Makes the recorder of cfg, writes this process's id to pidfile (if not
 * NULL), sets up its loop, calls ready(ctx) (if not NULL) once it serves,
 * and serves until it is stopped; then frees it and removes pidfile.
 * Returns 0, or -errno with a reason in err: pc_recorder_new's, "PIDFILE:
 * REASON", "io_uring: REASON", or "LOG: REASON" if the loop failed. */
int pc_recorder_serve (const struct pc_recorder_config *cfg, const char *pidfile,
                       void (*ready) (void *ctx), void *ctx, struct pc_err *err);

/* pc_recorder_serve in a new child process, in a session of its own (a
 * terminal's ^C is not for it), with /dev/null as its standard input,
 * output and error and none of this process's other files open.  Returns
 * once it serves, with its id in *ret_pid (the caller stops it, and
 * waits for it with waitpid), or -errno with its reason in err (the child
 * is gone then).  The child ends with _exit: 0 once stopped, 2 if it
 * failed. */
int pc_recorder_spawn (const struct pc_recorder_config *cfg, const char *pidfile,
                       pid_t *ret_pid, struct pc_err *err);

/* The control socket that goes with the NBD socket socket_path: its
 * path with ".sock" replaced by ".ctl", or with ".ctl" added; the default
 * control socket dflt_control for no socket path (a TCP listener) or the
 * default socket dflt_socket.  Returns a malloc'd string, or NULL without
 * memory. */
char *pc_recorder_control_for (const char *socket_path, const char *dflt_socket,
                               const char *dflt_control);

#endif
