/* cmd.h: the subcommands of powercut(1) and what they share. */
#ifndef POWERCUT_CMD_H
#define POWERCUT_CMD_H

#define EXIT_OK       0    /* ran and found no problem */
#define EXIT_PROBLEMS 1    /* ran and found problems */
#define EXIT_ERROR    2    /* usage or runtime error */

#define DEFAULT_SOCKET  "powercut.sock"
#define DEFAULT_CONTROL "powercut.ctl"

int cmd_record (int argc, char **argv);
int cmd_mark (int argc, char **argv);
int cmd_stop (int argc, char **argv);
int cmd_log (int argc, char **argv);

/* Prints "powercut SUB: message" to stderr (printf-style). */
void pc_err (const char *sub, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* Prints the usage hint for a bad command line and returns EXIT_ERROR. */
int pc_usage_error (const char *sub);

/* The control socket: the option, else $POWERCUT_CONTROL, else the default. */
const char *pc_control_path (const char *opt);

#endif
