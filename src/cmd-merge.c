/* cmd-merge.c: powercut merge: the JSON reports of a check's shards
 * joined into the report an unsharded check gives. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "report/outputs.h"
#include "util/err.h"

static void
merge_usage (void)
{
  printf ("usage: powercut merge [--json OUT] [--html OUT] [--fail-on WHAT] [--quiet]\n"
          "                      REPORT.json...\n"
          "\n"
          "Join the JSON reports of the shards of one check into the report an\n"
          "unsharded check gives: text on stdout, JSON or HTML to OUT.\n"
          "--fail-on promises makes only a crash point that broke a promise fail\n"
          "it, --fail-on program one that is the program's fault too (as powercut\n"
          "check).\n"
          "\n"
          "Exit status: 0 every crash point survived, 1 some did not, 2 error or some\n"
          "point could not be checked.\n");
}

int
cmd_merge (int argc, char **argv)
{
  static const struct option opts[] = {
    { "json", required_argument, NULL, 'o' },
    { "html", required_argument, NULL, 'H' },
    { "fail-on", required_argument, NULL, 'f' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct pc_outputs out = { stdout, NULL, NULL, PC_FAIL_ON_EXPOSURE };
  struct pc_err err;
  int c, r;

  while ((c = getopt_long (argc, argv, "o:H:f:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (pc_fail_on_parse (optarg, &out.fail_on) < 0) {
        cmd_err ("merge", "--fail-on %s: not exposure, program or promises", optarg);
        return pc_usage_error ("merge");
      }
      break;
    case 'o': out.json = optarg; break;
    case 'H': out.html = optarg; break;
    case 'q': out.text = NULL; break;
    case 'h': merge_usage (); return EXIT_OK;
    default: return pc_usage_error ("merge");
    }
  }
  if (argc - optind < 1) {
    cmd_err ("merge", "at least one REPORT.json is required");
    return pc_usage_error ("merge");
  }
  r = pc_merge_report (argv + optind, (size_t) (argc - optind), &out, &err);
  return cmd_report_status ("merge", r, &err);
}
