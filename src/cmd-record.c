/* cmd-record.c: powercut record: start the recording NBD server. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cmd.h"
#include "format/control.h"
#include "record/serve.h"
#include "util/disk.h"
#include "util/util.h"

static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut record --log FILE (--size SIZE | --base IMAGE) [OPTION]...\n"
"\n"
"Serve a disk over NBD and log every write (with its data), trim,\n"
"write-zeroes and flush, in completion order, before answering it.\n"
"\n"
"  -l, --log FILE        the log to create\n"
"  -s, --size SIZE       an empty (zeroed) disk of SIZE bytes (K, M, G, T suffixes)\n"
"  -b, --base IMAGE      start from a copy of IMAGE (the file is never modified)\n"
"  -S, --socket PATH     NBD on this Unix socket (default %s)\n"
"  -L, --listen [HOST:]PORT  NBD on TCP instead (HOST defaults to 127.0.0.1)\n"
"  -c, --control PATH    control socket for marks and stop (default: the\n"
"                        NBD socket's path with .ctl, or %s)\n"
"  -p, --pidfile FILE    write the server's process id to FILE\n"
"  -f, --foreground      do not detach\n"
"      --force           replace an existing log\n"
"  -h, --help            show this help\n"
"\n"
"Without --foreground the command returns once the server is listening.\n"
"End the recording with 'powercut stop' (or SIGTERM): the log then ends\n"
"with an end record.  See powercut-record(1) and powercut-log(5).\n",
           DEFAULT_SOCKET, DEFAULT_CONTROL);
}

/* What the command line gives. */
struct args {
  struct pc_recorder_config cfg;
  const char *pidfile, *size_arg;
  bool foreground;
};

/* Checks what the options say together: -1 to go on, or an exit status. */
static int
check_args (struct args *a)
{
  struct pc_recorder_config *cfg = &a->cfg;
  char host[256], port[8];

  if (cfg->log_path == NULL) {
    cmd_err ("record", "--log FILE is required");
    return pc_usage_error ("record");
  }
  if ((a->size_arg == NULL) == (cfg->base_path == NULL)) {
    cmd_err ("record", "give exactly one of --size SIZE and --base IMAGE");
    return pc_usage_error ("record");
  }
  if (cfg->socket_path && cfg->listen_addr) {
    cmd_err ("record", "--socket and --listen exclude each other");
    return pc_usage_error ("record");
  }
  if (cfg->listen_addr && pc_parse_host_port (cfg->listen_addr, "127.0.0.1", host, sizeof host,
                                              port, sizeof port) < 0) {
    cmd_err ("record", "--listen %s: not [HOST:]PORT with a port from 1 to 65535",
             cfg->listen_addr);
    return pc_usage_error ("record");
  }
  if (a->size_arg && (pc_parse_size (a->size_arg, &cfg->size) < 0 || cfg->size == 0 ||
                      cfg->size % PC_NBD_MIN_BLOCK != 0 || cfg->size > PC_DISK_MAX_SIZE)) {
    cmd_err ("record", "--size %s: not a multiple of %u bytes from %u bytes to 64 TiB",
             a->size_arg, PC_NBD_MIN_BLOCK, PC_NBD_MIN_BLOCK);
    return EXIT_ERROR;
  }
  if (cfg->socket_path == NULL && cfg->listen_addr == NULL)
    cfg->socket_path = DEFAULT_SOCKET;
  return -1;
}

static int
parse_args (int argc, char **argv, struct args *a)
{
  enum { OPT_FORCE = 256 };
  static const struct option opts[] = {
    { "log", required_argument, NULL, 'l' },
    { "size", required_argument, NULL, 's' },
    { "base", required_argument, NULL, 'b' },
    { "socket", required_argument, NULL, 'S' },
    { "listen", required_argument, NULL, 'L' },
    { "control", required_argument, NULL, 'c' },
    { "pidfile", required_argument, NULL, 'p' },
    { "foreground", no_argument, NULL, 'f' },
    { "force", no_argument, NULL, OPT_FORCE },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  while ((c = getopt_long (argc, argv, "l:s:b:S:L:c:p:fh", opts, NULL)) != -1) {
    switch (c) {
    case 'l': a->cfg.log_path = optarg; break;
    case 's': a->size_arg = optarg; break;
    case 'b': a->cfg.base_path = optarg; break;
    case 'S': a->cfg.socket_path = optarg; break;
    case 'L': a->cfg.listen_addr = optarg; break;
    case 'c': a->cfg.control_path = optarg; break;
    case 'p': a->pidfile = optarg; break;
    case 'f': a->foreground = true; break;
    case OPT_FORCE: a->cfg.force = true; break;
    case 'h': usage (stdout); return EXIT_OK;
    default: return pc_usage_error ("record");
    }
  }
  if (optind < argc) {
    cmd_err ("record", "unexpected argument '%s'", argv[optind]);
    return pc_usage_error ("record");
  }
  return check_args (a);
}

int
cmd_record (int argc, char **argv)
{
  struct args a = { 0 };
  struct pc_err err;
  char *control = NULL;
  pid_t pid;
  int r;

  if ((r = parse_args (argc, argv, &a)) >= 0)
    return r;
  if (a.cfg.control_path == NULL) {
    control = pc_recorder_control_for (a.cfg.socket_path, DEFAULT_SOCKET, DEFAULT_CONTROL);
    if (control == NULL)
      return EXIT_ERROR;
    a.cfg.control_path = control;
  }
  /* In the foreground it serves here; else in a child process, and this
   * one returns once it serves. */
  if (a.foreground)
    r = pc_recorder_serve (&a.cfg, a.pidfile, NULL, NULL, &err);
  else
    r = pc_recorder_spawn (&a.cfg, a.pidfile, &pid, &err);
  free (control);
  if (r < 0) {
    cmd_err ("record", "%s", err.msg);
    return EXIT_ERROR;
  }
  return EXIT_OK;
}
