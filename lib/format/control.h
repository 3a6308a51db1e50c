/* control.h: the recorder's control socket protocol (marks and stop).
 *
 * A client connects to the control socket (a Unix socket), sends one request
 * and reads one reply, then may send further requests on the same connection.
 *   request: u32 magic "PCCT", u32 command, u32 length, then length bytes
 *   reply:   u32 magic "PCCR", i32 status (0 or -errno), u64 record number
 * All integers little-endian.  PC_CTL_MARK carries an encoded mark (mark.h);
 * the reply comes once the MARK record is in the log and on stable storage.
 * PC_CTL_STOP carries nothing; the reply comes once the END record is on
 * stable storage, and the recorder then exits.  PC_CTL_EVENT carries an
 * encoded event of a traced program (event.h); the reply comes once the
 * EVENT record is in the log (in order with every request answered before
 * it), without waiting for stable storage: an event is not the disk's.
 */
#ifndef POWERCUT_CONTROL_H
#define POWERCUT_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PC_CTL_MAGIC        0x54434350u   /* "PCCT" */
#define PC_CTL_REPLY_MAGIC  0x52434350u   /* "PCCR" */
#define PC_CTL_HEADER_SIZE  12
#define PC_CTL_REPLY_SIZE   16
#define PC_CTL_MAX_PAYLOAD  (64u << 20)

enum pc_ctl_cmd {
  PC_CTL_MARK = 1,
  PC_CTL_STOP = 2,
  PC_CTL_EVENT = 3,
};

/* The wire format, for both ends: the client below and the recorder's
 * control server (recctl.c). */
void pc_ctl_request_encode (uint8_t *hdr, uint32_t cmd, uint32_t len);
/* Returns 0 with the command and payload length, or -EBADMSG: not a
 * request (bad magic, or a payload over PC_CTL_MAX_PAYLOAD). */
int pc_ctl_request_decode (const uint8_t *hdr, uint32_t *ret_cmd, uint32_t *ret_len);
void pc_ctl_reply_encode (uint8_t *rep, int status, uint64_t seq);
/* Returns the reply's status (0 or -errno), with *ret_seq (may be NULL)
 * set for 0, or -EPROTO: not a reply. */
int pc_ctl_reply_decode (const uint8_t *rep, uint64_t *ret_seq);

/* Sends one request to the control socket at path ("tcp:HOST:PORT" for one
 * forwarded over TCP) and waits for the reply
 * (up to timeout_ms; 0 waits forever).  Returns 0 with *ret_seq set, the
 * recorder's -errno status, or -errno for a local failure (-ENOENT,
 * -ECONNREFUSED: no recorder there; -ETIMEDOUT; -EDESTADDRREQ: not
 * tcp:HOST:PORT with a port from 1 to 65535; -EHOSTUNREACH: HOST does not
 * resolve). */
int pc_control_call (const char *path, enum pc_ctl_cmd cmd, const void *payload,
                     size_t len, int timeout_ms, uint64_t *ret_seq);

/* A connection to a control socket, for many requests in a row (a traced
 * program's events): pc_control_open connects (0, or -errno as
 * pc_control_call's local failures), pc_control_request sends one request
 * and waits for its reply (as pc_control_call, after the replies of any
 * requests sent before it), pc_control_close (NULL: nothing) hangs up.
 * pc_control_send sends a request without waiting (0 or -errno); its reply
 * is read by the next pc_control_request or by pc_control_collect, which
 * reads every reply outstanding and returns the first failure among them
 * (the recorder handles a connection's requests in order, so once a reply
 * is read, every request sent before it is done). */
struct pc_control_conn;
int pc_control_open (const char *path, struct pc_control_conn **ret);
int pc_control_request (struct pc_control_conn *c, enum pc_ctl_cmd cmd, const void *payload,
                        size_t len, int timeout_ms, uint64_t *ret_seq);
int pc_control_send (struct pc_control_conn *c, enum pc_ctl_cmd cmd, const void *payload,
                     size_t len);
int pc_control_collect (struct pc_control_conn *c, int timeout_ms);
void pc_control_close (struct pc_control_conn *c);

/* Places mark name on the recording behind the control socket.  With dir:
 * syncfs() it first if sync, record the manifest of the tree under dir, and
 * the durable paths (absolute, or relative to the current directory; under
 * dir).  Returns 0 or -errno, with the reason in err (one line naming the
 * path or the control socket at fault). */
int pc_control_mark (const char *control, const char *name, const char *dir, bool sync,
                     char *const *durable, size_t ndurable, int timeout_ms,
                     struct pc_err *err);

/* Asks the recorder at path to stop (PC_CTL_STOP: its log then ends with
 * an END record and is synced) and waits, up to wait_ms, for it to let go
 * of that socket (its file gone: a new recording can take it at once).
 * Returns 0, or -errno with "PATH: WORDS" (pc_control_strerror) in err. */
int pc_control_stop (const char *path, int timeout_ms, int wait_ms, struct pc_err *err);

/* The words for an error of pc_control_call() on the control socket
 * ("no recorder is listening there", ...), for messages "SOCKET: WORDS". */
const char *pc_control_strerror (int r);

/* Creates a listening Unix stream socket at path with mode 0600 (an existing
 * socket file is replaced only if nothing answers on it).  Returns the fd or
 * -errno (-EADDRINUSE: a live server is there). */
int pc_unix_listen (const char *path);

/* Parses "HOST:PORT" ("[::1]:PORT" too; with dflt, "PORT" alone means
 * dflt:PORT) into host and port, the port a number from 1 to 65535
 * (getaddrinfo would take 99999 as 34463).  Returns 0, or -EINVAL. */
int pc_parse_host_port (const char *spec, const char *dflt, char *host, size_t hostlen,
                        char *port, size_t portlen);

#endif
