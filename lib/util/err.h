/* err.h: how a library function says why it failed.
 *
 * A function that can fail for a reason a person must read takes a
 * struct pc_err as its last parameter and returns a negative errno; the
 * one line of text it leaves in err->msg says what failed and on what, in
 * lower case without a full stop ("app.log: record 1832: bad checksum").
 * The caller prints it (library code never prints).  err may be NULL: the
 * reason is not wanted.  On success err is left as it was.
 *
 * Interruption reaches the library one way: pc_interrupted() (set up by
 * the program with pc_interrupt_flag) says whether to stop, and a
 * function that stops for it returns -EINTR.
 */
#ifndef POWERCUT_ERR_H
#define POWERCUT_ERR_H

#include <signal.h>
#include <stdbool.h>

#define PC_ERR_MAX 1536

struct pc_err {
  char msg[PC_ERR_MAX];
};

/* Sets err's message (printf-style) and returns -errnum; errnum is a
 * positive errno value. */
int pc_err_set (struct pc_err *err, int errnum, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* Sets err's message (printf-style) only, for a function that returns its
 * errno apart. */
void pc_err_msg (struct pc_err *err, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Puts "PREFIX: " before err's message and returns -errnum. */
int pc_err_prefix (struct pc_err *err, int errnum, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* The flag a program's signal handler sets to ask the library to stop
 * (NULL: never).  Returns the flag before, so that a part that must not
 * be interrupted (tearing down) can set NULL and put it back. */
volatile sig_atomic_t *pc_interrupt_flag (volatile sig_atomic_t *flag);
/* Has the program asked the library to stop? */
bool pc_interrupted (void);

#endif
