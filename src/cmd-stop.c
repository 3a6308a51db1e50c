/* cmd-stop.c: powercut stop: end a recording cleanly. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "format/control.h"
#include "util/err.h"

#define CALL_TIMEOUT_MS 120000

int
cmd_stop (int argc, char **argv)
{
  static const struct option opts[] = {
    { "control", required_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *control = NULL;
  struct pc_err err;
  int c;

  while ((c = getopt_long (argc, argv, "c:h", opts, NULL)) != -1) {
    switch (c) {
    case 'c': control = optarg; break;
    case 'h':
      printf ("usage: powercut stop [--control PATH]\n"
              "\n"
              "End the running recording cleanly: the log gets its end record, is\n"
              "synced, and the recorder exits.\n"
              "\n"
              "  -c, --control PATH   the recorder's control socket (default\n"
              "                       $POWERCUT_CONTROL, else %s)\n"
              "  -h, --help           show this help\n", DEFAULT_CONTROL);
      return EXIT_OK;
    default: return pc_usage_error ("stop");
    }
  }
  if (optind < argc) {
    cmd_err ("stop", "unexpected argument '%s'", argv[optind]);
    return pc_usage_error ("stop");
  }
  /* The log is complete once it answers; it waits (briefly) for the
   * recorder to let go of its sockets, so that a new recording can take
   * them at once. */
  if (pc_control_stop (pc_control_path (control), CALL_TIMEOUT_MS, 10000, &err) < 0) {
    cmd_err ("stop", "%s", err.msg);
    return EXIT_ERROR;
  }
  return EXIT_OK;
}
