/* traced.h: a program run under the tracer (trace/tracer.h), each of its
 * events sent to a recording through its control socket and logged there
 * in order with the disk's requests.
 *
 * The program's call proceeds only once the recorder has its entry event
 * in the log: every write the call causes comes later in the log, so that
 * every crash point knows which calls had started.  One connection carries
 * every event, so the log holds them in the order the tracer saw them.
 *
 * With root, the events' paths under it are given from the recorded
 * filesystem's root ("/mnt/a/b" is "/a/b" for root /mnt), as marks'
 * manifests give them, whatever directory it was mounted on; and an
 * event is logged when it concerns the filesystem mounted there: its file is on that filesystem (the event has the file's
 * identity), or, for a call that names paths, one of them is under root;
 * sync() and calls whose effect cannot be seen always are.  A call's entry
 * and exit events carry the same paths and file, so both are logged or
 * neither.
 *
 * Each call the tracer stops costs two switches between the program and
 * the tracer; on one CPU that is a context switch, across two a wake-up
 * of another CPU, several times dearer (on virtual machines especially).
 * So unless all_cpus, the tracer and the program share one CPU.
 */
#ifndef POWERCUT_TRACED_H
#define POWERCUT_TRACED_H

#include <stdbool.h>
#include <stdint.h>

#include "format/acksel.h"
#include "util/err.h"

struct pc_traced {
  const char *control;          /* the recorder's control socket (control.h) */
  const char *cwd;              /* the program's directory (NULL: ours) */
  const char *root;             /* the recorded filesystem's mount point: only
                                 * events about it are logged (NULL: all) */
  bool all_cpus;                /* the program may run on every CPU; else it and
                                 * the tracer share the one the tracer is on */
  bool acks;                    /* each line the program writes on its standard
                                 * output is logged as an acknowledgement (an ACK
                                 * event, before the program goes on), and copied
                                 * on to ours (tracer.h) */
  const struct pc_acksel *acksel;       /* with acks, which lines are logged
                                         * (format/acksel.h; NULL: every one) */
  uint64_t events;              /* pc_traced_run: how many events were logged */
  uint64_t elsewhere;           /* ... and how many were about other files */
  uint64_t nacks;               /* ... and how many of them were acknowledgements */
  uint64_t peak_kib;            /* ... and the tracer's peak resident memory */
  char left[256];               /* ... and what the program left running when its
                                 * first process ended, killed ("" if nothing) */
};

/* Runs argv under the tracer until its first process has ended (what it
 * left running then is killed and named in t->left).
 * Returns its exit status (0..255, or 256 + the signal that killed it), or
 * -errno with the reason in err: the control socket could not be reached,
 * the recorder refused an event or went away (the program is killed then:
 * what it does must not go unrecorded), or the program could not be traced
 * or run (pc_tracer_run). */
int pc_traced_run (char *const argv[], struct pc_traced *t, struct pc_err *err);

#endif
