/* cmd.h: the subcommands of powercut(1) and what they share. */
#ifndef POWERCUT_CMD_H
#define POWERCUT_CMD_H

#include <signal.h>

#define EXIT_OK       0    /* ran and found no problem */
#define EXIT_PROBLEMS 1    /* ran and found problems */
#define EXIT_ERROR    2    /* usage or runtime error */

#define DEFAULT_SOCKET  "powercut.sock"
#define DEFAULT_CONTROL "powercut.ctl"

int cmd_record (int argc, char **argv);
int cmd_mark (int argc, char **argv);
int cmd_stop (int argc, char **argv);
int cmd_log (int argc, char **argv);
int cmd_replay (int argc, char **argv);
int cmd_check (int argc, char **argv);
int cmd_merge (int argc, char **argv);
int cmd_run (int argc, char **argv);
int cmd_workload (int argc, char **argv);
int cmd_trace (int argc, char **argv);
int cmd_explore (int argc, char **argv);
int cmd_pipe (int argc, char **argv);
int cmd_vm (int argc, char **argv);

struct pc_index;
/* Prints "powercut SUB: message" to stderr (printf-style). */
void cmd_err (const char *sub, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Prints the usage hint for a bad command line and returns EXIT_ERROR. */
int pc_usage_error (const char *sub);

struct pc_err;
/* Prints the result of a check's reports or pc_merge_report (their reason
 * when they failed, or when not every point was checked) and returns the
 * exit status. */
int cmd_report_status (const char *sub, int r, const struct pc_err *err);

/* Set by SIGINT, SIGTERM or SIGHUP once pc_catch_stop_signals() ran: the
 * long commands (check, run) stop, clean up and exit 2. */
extern volatile sig_atomic_t pc_stop_requested;
void pc_catch_stop_signals (void);

/* The control socket: the option, else $POWERCUT_CONTROL, else the default. */
const char *pc_control_path (const char *opt);

#endif
