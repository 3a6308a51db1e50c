/* cmd-trace.c: powercut trace: run a program whose file-system calls are
 * recorded as events beside the disk's writes. */
#include <config.h>

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "run/traced.h"

static void
usage (void)
{
  printf ("usage: powercut trace [--control PATH] [--root DIR] [--all-cpus]\n"
          "                      [--acks stdout|none|REGEX] [--quiet] [--] COMMAND [ARG]...\n"
          "\n"
          "Run COMMAND, and every process it starts, under a tracer that logs each\n"
          "call that can change a file or make it durable (open for writing,\n"
          "write, truncate, rename, link, unlink, fsync, sync, msync ...) in the\n"
          "recording behind the control socket (default $POWERCUT_CONTROL, else\n"
          "%s; tcp:HOST:PORT for one forwarded over TCP), in order with the\n"
          "disk's writes.  powercut check then knows every version of every file\n"
          "the program wrote.  Only calls about the filesystem mounted at DIR\n"
          "(default $POWERCUT_MNT, if set; else every call) are logged.  Exit\n"
          "status: COMMAND's (128 + N if signal N killed it), or 2 if it could not\n"
          "be traced.\n"
          "\n"
          "COMMAND's standard output is read through a pipe and copied on to\n"
          "ours; each line it writes there (or each one --acks selects) is logged\n"
          "as an acknowledgement, before it goes on: powercut check judges what the\n"
          "program had acknowledged by each crash state's moment.\n"
          "\n"
          "  -c, --control PATH  the recorder's control socket\n"
          "  -r, --root DIR      the recorded filesystem's mount point\n"
          "      --all-cpus      let COMMAND run on every CPU (default: the CPU the\n"
          "                      tracer is on, where each traced call costs least)\n"
          "      --acks WHICH    which lines acknowledge: stdout (every line, the\n"
          "                      default), none (standard output left alone), or\n"
          "                      those an extended regular expression matches\n"
          "      --no-acks       the same as --acks none\n"
          "  -q, --quiet         no summary on standard error\n"
          "  -h, --help          show this help\n",
          DEFAULT_CONTROL);
}

int
cmd_trace (int argc, char **argv)
{
  static const struct option opts[] = {
    { "control", required_argument, NULL, 'c' },
    { "root", required_argument, NULL, 'r' },
    { "quiet", no_argument, NULL, 'q' },
    { "all-cpus", no_argument, NULL, 'A' },
    { "no-acks", no_argument, NULL, 'N' },
    { "acks", required_argument, NULL, 'K' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct pc_traced t = { .acks = true };
  struct pc_acksel sel;
  struct pc_err err;
  const char *control = NULL, *acks = NULL;
  bool quiet = false;
  int c, r;

  t.root = getenv ("POWERCUT_MNT");
  if (t.root && *t.root == '\0')
    t.root = NULL;
  while ((c = getopt_long (argc, argv, "+c:r:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'c': control = optarg; break;
    case 'r': t.root = optarg; break;
    case 'q': quiet = true; break;
    case 'A': t.all_cpus = true; break;
    case 'N': acks = "none"; break;
    case 'K': acks = optarg; break;
    case 'h': usage (); return EXIT_OK;
    default: return pc_usage_error ("trace");
    }
  }
  if (optind >= argc) {
    cmd_err ("trace", "a COMMAND to run is required");
    return pc_usage_error ("trace");
  }
  if (acks == NULL && getenv ("POWERCUT_ACKS") && *getenv ("POWERCUT_ACKS"))
    acks = getenv ("POWERCUT_ACKS");
  if (pc_acksel_parse (acks, &sel, &err) < 0) {
    cmd_err ("trace", "%s", err.msg);
    return pc_usage_error ("trace");
  }
  t.acks = sel.how != PC_ACKS_NONE;
  t.acksel = &sel;
  t.control = pc_control_path (control);
  r = pc_traced_run (argv + optind, &t, &err);
  pc_acksel_free (&sel);
  if (r < 0) {
    cmd_err ("trace", "%s", err.msg);
    return EXIT_ERROR;
  }
  if (!quiet)
    fprintf (stderr, "powercut trace: %s: %llu events logged (%llu acknowledgements), %llu "
             "about other files left out; the tracer's peak memory %llu KiB\n", argv[optind],
             (unsigned long long) t.events, (unsigned long long) t.nacks,
             (unsigned long long) t.elsewhere, (unsigned long long) t.peak_kib);
  if (t.left[0]) {
    cmd_err ("trace", "%s left processes running when it ended: %s (killed)", argv[optind],
             t.left);
    return EXIT_ERROR;
  }
  return r >= 256 ? 128 + (r - 256) : r;
}
