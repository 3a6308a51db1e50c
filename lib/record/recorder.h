/* recorder.h: the recording NBD server.
 *
 * A recorder serves one export over NBD (fixed newstyle handshake, simple and
 * structured replies, multi-conn) from an in-memory disk, and appends every
 * write (with its data), trim, write-zeroes and flush to a log (log.h) before
 * it replies.  Requests from all connections get one global order: the order
 * of their records in the log.  A write is applied to the disk, and answered,
 * only once its record is in the log; a flush, a FUA write and a mark are
 * answered only once the log is on stable storage (fdatasync).  Socket I/O
 * and the log's fdatasync go through one io_uring, driven by one thread;
 * log records are written from it in batches (logwriter.h).
 */
#ifndef POWERCUT_RECORDER_H
#define POWERCUT_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PC_NBD_MIN_BLOCK    512
#define PC_NBD_PREF_BLOCK   4096
#define PC_NBD_MAX_BLOCK    (32u << 20)

struct pc_recorder_config {
  const char *log_path;
  bool force;                 /* replace an existing log file */
  uint64_t size;              /* with no base image */
  const char *base_path;      /* or a base image (never modified) */
  const char *socket_path;    /* Unix socket for NBD, or NULL with listen */
  const char *listen_addr;    /* "[HOST:]PORT" for TCP (HOST defaults to loopback) */
  const char *control_path;   /* control socket (marks, stop) */
  bool die_with_parent;       /* pc_recorder_spawn: stopped (SIGTERM) when the
                               * process that spawned it ends */
};

struct pc_recorder;

/* Opens the disk, creates the log (header written and synced) and binds the
 * sockets.  Returns 0, or -errno with a one-line reason in why, naming the
 * path or address that failed ("app.log: file exists (use --force to
 * replace it)"). */
int pc_recorder_new (const struct pc_recorder_config *cfg, struct pc_recorder **ret_rec,
                     struct pc_err *why);

/* Sets up the event loop (io_uring, signals) in the thread that will run
 * it.  Returns 0 or -errno. */
int pc_recorder_start (struct pc_recorder *rec);

/* Serves until a stop request, SIGINT, SIGTERM or SIGHUP; the log then ends
 * with an END record and is synced.  Returns 0, or -errno if the event loop
 * itself failed. */
int pc_recorder_run (struct pc_recorder *rec);

/* For tests and fuzzing: serves fd (a connected stream socket) as a new NBD
 * (or control) connection, and runs the event loop until no connection is
 * left and the log is idle.  Both return 0 or -errno. */
int pc_recorder_adopt (struct pc_recorder *rec, int fd, bool control);
int pc_recorder_run_until_idle (struct pc_recorder *rec);

/* Closes everything and removes the socket files.  Accepts NULL. */
void pc_recorder_free (struct pc_recorder *rec);

#endif
