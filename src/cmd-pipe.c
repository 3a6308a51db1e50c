/* cmd-pipe.c: powercut pipe: relay standard input and output to a Unix
 * socket, one connection per invocation (what a qemu guest's forwarded
 * connections run through: guestfwd=...-cmd:powercut pipe SOCKET). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "util/relay.h"

int
cmd_pipe (int argc, char **argv)
{
  struct pc_err err;

  if (argc != 2 || strcmp (argv[1], "--help") == 0) {
    printf ("usage: powercut pipe SOCKET\n"
            "\n"
            "Relay standard input to the Unix socket SOCKET and what it sends to\n"
            "standard output, until both sides are done.\n");
    return argc == 2 ? EXIT_OK : EXIT_ERROR;
  }
  if (pc_relay_unix (argv[1], 0, 1, &err) < 0) {
    cmd_err ("pipe", "%s", err.msg);
    return EXIT_ERROR;
  }
  return EXIT_OK;
}
