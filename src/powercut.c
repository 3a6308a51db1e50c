/* powercut.c: the powercut command: dispatches to its subcommands. */
#include <config.h>

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/outputs.h"
#include "util/err.h"

static const struct {
  const char *name;
  int (*fn) (int, char **);
  const char *what;
} commands[] = {
  { "record", cmd_record, "serve a disk over NBD and log every request" },
  { "mark", cmd_mark, "append a named mark (and manifest) to a recording" },
  { "stop", cmd_stop, "end a recording cleanly" },
  { "log", cmd_log, "summarise or dump a log" },
  { "replay", cmd_replay, "write the disk as found at one crash point" },
  { "check", cmd_check, "check every crash point of a log" },
  { "merge", cmd_merge, "join the JSON reports of shards" },
  { "run", cmd_run, "record a workload on a fresh filesystem and check it" },
  { "workload", cmd_workload, "run a built-in workload on a recorded filesystem" },
  { "trace", cmd_trace, "run a program whose file-system calls are recorded" },
  { "explore", cmd_explore, "run many small generated workloads, shrink what fails" },
  { "pipe", cmd_pipe, "relay standard input and output to a Unix socket" },
  { "vm", cmd_vm, "run a script in a qemu guest whose disks are NBD servers" },
};

void
cmd_err (const char *sub, const char *fmt, ...)
{
  va_list ap;

  fprintf (stderr, "powercut%s%s: ", sub ? " " : "", sub ? sub : "");
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

int
pc_usage_error (const char *sub)
{
  fprintf (stderr, "try 'powercut %s --help'\n", sub);
  return EXIT_ERROR;
}

volatile sig_atomic_t pc_stop_requested;

static void
on_stop_signal (int sig)
{
  (void) sig;
  pc_stop_requested = 1;
}

void
pc_catch_stop_signals (void)
{
  signal (SIGINT, on_stop_signal);
  signal (SIGTERM, on_stop_signal);
  signal (SIGHUP, on_stop_signal);
}

const char *
pc_control_path (const char *opt)
{
  const char *env = getenv ("POWERCUT_CONTROL");

  if (opt)
    return opt;
  if (env && *env)
    return env;
  return DEFAULT_CONTROL;
}

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: powercut COMMAND [OPTION]... [ARG]...\n"
           "\n"
           "What would you find after a power cut at any moment of a workload?\n"
           "\n"
           "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf (f, "  %-8s %s\n", commands[i].name, commands[i].what);
  fprintf (f,
           "\n"
           "'powercut COMMAND --help' tells more; see also powercut(1).\n"
           "exit status: 0 no problem found, 1 problems found, 2 usage or runtime error\n");
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  /* The library stops where pc_catch_stop_signals() says to (err.h). */
  pc_interrupt_flag (&pc_stop_requested);
  if (argc < 2) {
    usage (stderr);
    return EXIT_ERROR;
  }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 ||
      strcmp (argv[1], "help") == 0) {
    usage (stdout);
    return EXIT_OK;
  }
  if (strcmp (argv[1], "--version") == 0 || strcmp (argv[1], "-V") == 0) {
    printf ("powercut %s\n", PACKAGE_VERSION);
    return EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    char prog[64];
    if (strcmp (argv[1], commands[i].name) != 0)
      continue;
    for (int a = 2; a < argc && strcmp (argv[a], "--") != 0; a++)
      if (strcmp (argv[a], "--version") == 0) {
        printf ("powercut %s\n", PACKAGE_VERSION);
        return EXIT_OK;
      }
    /* getopt names the program in its messages: "powercut record: ..." */
    snprintf (prog, sizeof prog, "powercut %s", commands[i].name);
    argv[1] = prog;
    return commands[i].fn (argc - 1, argv + 1);
  }
  cmd_err (NULL, "unknown command '%s'", argv[1]);
  fprintf (stderr, "try 'powercut --help'\n");
  return EXIT_ERROR;
}

int
cmd_report_status (const char *sub, int r, const struct pc_err *err)
{
  if (r < 0 || r == PC_CHECK_UNFINISHED) {
    cmd_err (sub, "%s", err->msg);
    return EXIT_ERROR;
  }
  return r == PC_CHECK_FAILED ? EXIT_PROBLEMS : EXIT_OK;
}
