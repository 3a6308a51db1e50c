/* acksel.h: which lines a traced program prints are acknowledgements
 * (--acks on run, trace and check).
 *
 * A traced program's standard output is its acknowledgements: each line
 * it prints says "done" to whoever reads it (trace/tracer.h logs each as
 * an ACK event).  Some programs print progress instead ("Unpacking ...",
 * "Setting up ..."): the user says which lines count.
 *
 *   stdout   every line (the default)
 *   none     none: the program acknowledges nothing
 *   REGEX    the lines an extended regular expression (regex(7)) matches
 *            anywhere in them
 *
 * A selection is set once and read by any number of callers.
 */
#ifndef POWERCUT_ACKSEL_H
#define POWERCUT_ACKSEL_H

#include <regex.h>
#include <stdbool.h>

#include "util/err.h"

enum pc_acks_how { PC_ACKS_STDOUT, PC_ACKS_NONE, PC_ACKS_REGEX };

struct pc_acksel {
  enum pc_acks_how how;
  const char *spec;             /* as given ("stdout", "none", the regex) */
  regex_t re;                   /* PC_ACKS_REGEX: compiled */
};

/* Reads spec (NULL: "stdout") into *ret.  Returns 0, or -EINVAL with the
 * reason in err: an empty spec, a regex that does not compile.  spec
 * must outlive *ret. */
int pc_acksel_parse (const char *spec, struct pc_acksel *ret, struct pc_err *err);

/* Is line (a NUL-terminated line, without its newline) an
 * acknowledgement?  s NULL: every line is. */
bool pc_acksel_match (const struct pc_acksel *s, const char *line);

/* Frees what pc_acksel_parse allocated (s may be zeroed, or NULL). */
void pc_acksel_free (struct pc_acksel *s);

#endif
