/* runint.h: the insides of run.c and runcmd.c: one device being
 * recorded (struct run), and the workload run on it in a child process. */
#ifndef POWERCUT_RUNINT_H
#define POWERCUT_RUNINT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "run/run.h"
#include "util/err.h"

#define OUT_MAX 4096

struct run {
  const struct pc_run_config *cfg;
  char rt[80];                  /* private runtime directory */
  char sock[128], ctl[128], fusedir[128], mnt[128], pidfile[128];
  pid_t recorder;
  const struct pc_attach_way *attach;  /* how the device appeared (attach.h), or NULL */
  struct pc_attachment at;      /* the device: at.dev */
  bool mounted;                 /* for the teardown */
  struct pc_err why;            /* the first reason (fail) */
  char out[OUT_MAX];
  char *const *command;         /* cfg->command, its program named absolutely
                                 * (in the workload's child) */
  const char *name;             /* a device of a set: its name, else NULL */
  const struct run *set;        /* the first device of its set (or r itself) */
  size_t nset;                  /* the set's devices (1: one device) */
};

/* Sets r's reason (the first one wins) and returns -err.  (Here, so
 * that run.c and runcmd.c share it without calling each other.) */
static inline int pc_run_fail (struct run *r, int err, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));
static inline int
pc_run_fail (struct run *r, int err, const char *fmt, ...)
{
  va_list ap;

  if (r->why.msg[0] == '\0') {
    va_start (ap, fmt);
    vsnprintf (r->why.msg, sizeof r->why.msg, fmt, ap);
    va_end (ap);
  }
  return -err;
}

static inline void
pc_run_msleep (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

  nanosleep (&ts, NULL);
}

/* runcmd.c: the first line of a program's output, for messages; what
 * a command's status (as pc_proc_run gives it) comes to: 0, or -errno
 * with r's reason set; a command run within PC_RUN_CMD_TIMEOUT_S, its
 * output in r->out.  (A child is waited for with pc_proc_reap.) */
#define PC_RUN_CMD_TIMEOUT_S 120
const char *pc_run_first_line (char *out);
int pc_run_cmd_status (struct run *r, char *const argv[], int s);
int pc_run_cmd (struct run *r, char *const argv[]);

/* Runs the workload (a built-in one, or the command, traced or not) in a
 * child process in r's mount point, within the time limit.  Returns 0,
 * or -errno with r's reason set. */
int pc_run_workload (struct run *r, unsigned commit_s);

/* Did the recorder of r (or of a device of its set) end (its process a
 * zombie or gone)?  *ret_name: the device's name, or "". */
bool pc_run_recorder_ended (const struct run *r, const char **ret_name);

#endif
