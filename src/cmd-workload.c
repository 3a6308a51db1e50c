/* cmd-workload.c: powercut workload: run one built-in workload in a
 * directory of a filesystem that is being recorded (what run does inside a
 * qemu guest; usable on any mount of one's own). */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "run/workload.h"
#include "util/args.h"

static void
trace_line (void *ctx, const char *line)
{
  (void) ctx;
  printf ("%s\n", line);
  fflush (stdout);
}

static void
usage (void)
{
  printf ("usage: powercut workload NAME [--control PATH] [--dir DIR] [--seed N]\n"
          "                         [--files N] [--commit S] [--seconds S]\n"
          "\n"
          "Run a built-in workload (see 'powercut run --list-workloads') in DIR\n"
          "(default: the current directory), a filesystem being recorded, placing\n"
          "its marks through the control socket (default $POWERCUT_CONTROL, else\n"
          "%s; tcp:HOST:PORT for one forwarded over TCP).  --commit says the\n"
          "journal commit interval the filesystem was mounted with (default 1);\n"
          "--seconds how long a timed workload writes (steady: default 60,\n"
          "rename-over: 20).\n",
          DEFAULT_CONTROL);
}

int
cmd_workload (int argc, char **argv)
{
  enum { OPT_SEED = 256, OPT_FILES, OPT_COMMIT, OPT_SECONDS };
  static const struct option opts[] = {
    { "control", required_argument, NULL, 'c' },
    { "dir", required_argument, NULL, 'd' },
    { "seed", required_argument, NULL, OPT_SEED },
    { "files", required_argument, NULL, OPT_FILES },
    { "commit", required_argument, NULL, OPT_COMMIT },
    { "seconds", required_argument, NULL, OPT_SECONDS },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct pc_workload_env env = { .root = ".", .trace = trace_line };
  const struct pc_workload *w;
  const char *control = NULL, *dir = NULL;
  unsigned long v;
  int c, r;

  while ((c = getopt_long (argc, argv, "c:d:h", opts, NULL)) != -1) {
    if (c >= OPT_SEED && c <= OPT_SECONDS &&
        pc_parse_uint (optarg, c == OPT_SEED ? ~0ul : 100000, &v) < 0) {
      cmd_err ("workload", "%s: not a number", optarg);
      return EXIT_ERROR;
    }
    switch (c) {
    case 'c': control = optarg; break;
    case 'd': dir = optarg; break;
    case OPT_SEED: env.seed = v; break;
    case OPT_FILES: env.files = (unsigned) v; break;
    case OPT_SECONDS: env.seconds = (unsigned) v; break;
    case OPT_COMMIT: env.commit_s = (unsigned) v; break;
    case 'h': usage (); return EXIT_OK;
    default: return pc_usage_error ("workload");
    }
  }
  if (optind + 1 != argc) {
    cmd_err ("workload", "one workload NAME is required");
    return pc_usage_error ("workload");
  }
  w = pc_workload_find (argv[optind]);
  if (w == NULL) {
    cmd_err ("workload", "%s: no such workload (see 'powercut run --list-workloads')",
             argv[optind]);
    return EXIT_ERROR;
  }
  if (dir && chdir (dir) < 0) {
    cmd_err ("workload", "%s: %s", dir, strerror (errno));
    return EXIT_ERROR;
  }
  env.control = pc_control_path (control);
  if (env.commit_s == 0)
    env.commit_s = 1;
  r = w->run (&env);
  if (r < 0) {
    cmd_err ("workload", "%s: %s", w->name, strerror (-r));
    return EXIT_ERROR;
  }
  return EXIT_OK;
}
