/* cmd-mark.c: powercut mark and powercut stop: the control socket clients. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "format/control.h"
#include "format/mark.h"

#define CALL_TIMEOUT_MS 120000

static void
mark_usage (FILE *f)
{
  fprintf (f,
"usage: powercut mark [--control PATH] NAME [--manifest DIR] [--sync] [--durable PATH]...\n"
"\n"
"Append a named mark to the running recording.  The mark is in the log,\n"
"after every request answered before it, when this command returns.\n"
"\n"
"  -c, --control PATH   the recorder's control socket (default $POWERCUT_CONTROL,\n"
"                       else %s)\n"
"  -m, --manifest DIR   record the logical state of the tree under DIR: every\n"
"                       path's type, mode, size, content hash, symlink target\n"
"  -s, --sync           syncfs() DIR first: the whole manifest is durable\n"
"  -d, --durable PATH   the workload made PATH durable (fsync): its current\n"
"                       version must survive (needs --manifest; repeatable)\n"
"  -h, --help           show this help\n"
"\n"
"NAME: 1 to %d characters of A-Z a-z 0-9 . _ -\n",
           DEFAULT_CONTROL, PC_MARK_NAME_MAX);
}

int
cmd_mark (int argc, char **argv)
{
  static const struct option opts[] = {
    { "control", required_argument, NULL, 'c' },
    { "manifest", required_argument, NULL, 'm' },
    { "sync", no_argument, NULL, 's' },
    { "durable", required_argument, NULL, 'd' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *control = NULL, *dir = NULL, *name = NULL;
  char **durable = NULL;
  size_t ndurable = 0;
  bool sync = false;
  struct pc_err why;
  int c, r, ret = EXIT_ERROR;

  while ((c = getopt_long (argc, argv, "+c:m:sd:h", opts, NULL)) != -1 ||
         (optind < argc && name == NULL && (name = argv[optind++]) != NULL)) {
    /* NAME may come before or after the options. */
    if (c == -1)
      continue;
    switch (c) {
    case 'c': control = optarg; break;
    case 'm': dir = optarg; break;
    case 's': sync = true; break;
    case 'd': {
      char **n = realloc (durable, (ndurable + 1) * sizeof *n);
      if (n == NULL)
        goto out;
      durable = n;
      durable[ndurable++] = optarg;
      break;
    }
    case 'h': mark_usage (stdout); ret = EXIT_OK; goto out;
    default: ret = pc_usage_error ("mark"); goto out;
    }
  }
  if (optind < argc) {
    cmd_err ("mark", "unexpected argument '%s'", argv[optind]);
    ret = pc_usage_error ("mark");
    goto out;
  }
  if (name == NULL) {
    cmd_err ("mark", "a mark NAME is required");
    ret = pc_usage_error ("mark");
    goto out;
  }
  if (!pc_mark_name_valid (name)) {
    cmd_err ("mark", "'%s': not a valid mark name (1 to %d characters of A-Z a-z 0-9 . _ -)",
            name, PC_MARK_NAME_MAX);
    goto out;
  }
  if ((sync || ndurable) && dir == NULL) {
    cmd_err ("mark", "%s needs --manifest DIR", sync ? "--sync" : "--durable");
    ret = pc_usage_error ("mark");
    goto out;
  }
  control = pc_control_path (control);
  r = pc_control_mark (control, name, dir, sync, durable, ndurable, CALL_TIMEOUT_MS, &why);
  if (r < 0) {
    cmd_err ("mark", "%s", why.msg);
    goto out;
  }
  ret = EXIT_OK;
out:
  free (durable);
  return ret;
}
