/* record.c: powercut record: start the recording NBD server. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "format/control.h"
#include "util/disk.h"
#include "record/recorder.h"
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

static int
write_pidfile (const char *path)
{
  char buf[32];
  int fd, r;

  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  snprintf (buf, sizeof buf, "%ld\n", (long) getpid ());
  r = pc_write_all (fd, buf, strlen (buf));
  if (close (fd) < 0 && r == 0)
    r = -errno;
  return r;
}

int
cmd_record (int argc, char **argv)
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
  struct pc_recorder_config cfg = { 0 };
  struct pc_recorder *rec = NULL;
  const char *pidfile = NULL, *size_arg = NULL;
  char why[PATH_MAX + 256];
  char *control = NULL;
  bool foreground = false;
  int c, r, ready[2] = { -1, -1 };
  pid_t pid;

  while ((c = getopt_long (argc, argv, "l:s:b:S:L:c:p:fh", opts, NULL)) != -1) {
    switch (c) {
    case 'l': cfg.log_path = optarg; break;
    case 's': size_arg = optarg; break;
    case 'b': cfg.base_path = optarg; break;
    case 'S': cfg.socket_path = optarg; break;
    case 'L': cfg.listen_addr = optarg; break;
    case 'c': cfg.control_path = optarg; break;
    case 'p': pidfile = optarg; break;
    case 'f': foreground = true; break;
    case OPT_FORCE: cfg.force = true; break;
    case 'h': usage (stdout); return EXIT_OK;
    default: return pc_usage_error ("record");
    }
  }
  if (optind < argc) {
    cmd_err ("record", "unexpected argument '%s'", argv[optind]);
    return pc_usage_error ("record");
  }
  if (cfg.log_path == NULL) {
    cmd_err ("record", "--log FILE is required");
    return pc_usage_error ("record");
  }
  if ((size_arg == NULL) == (cfg.base_path == NULL)) {
    cmd_err ("record", "give exactly one of --size SIZE and --base IMAGE");
    return pc_usage_error ("record");
  }
  if (cfg.socket_path && cfg.listen_addr) {
    cmd_err ("record", "--socket and --listen exclude each other");
    return pc_usage_error ("record");
  }
  if (cfg.listen_addr) {
    char host[256], port[8];
    if (pc_parse_host_port (cfg.listen_addr, "127.0.0.1", host, sizeof host, port,
                            sizeof port) < 0) {
      cmd_err ("record", "--listen %s: not [HOST:]PORT with a port from 1 to 65535",
              cfg.listen_addr);
      return pc_usage_error ("record");
    }
  }
  if (size_arg) {
    r = pc_parse_size (size_arg, &cfg.size);
    if (r < 0 || cfg.size == 0 || cfg.size % PC_NBD_MIN_BLOCK != 0 ||
        cfg.size > PC_DISK_MAX_SIZE) {
      cmd_err ("record", "--size %s: not a multiple of %u bytes from %u bytes to 64 TiB",
              size_arg, PC_NBD_MIN_BLOCK, PC_NBD_MIN_BLOCK);
      return EXIT_ERROR;
    }
  }
  if (cfg.socket_path == NULL && cfg.listen_addr == NULL)
    cfg.socket_path = DEFAULT_SOCKET;
  if (cfg.control_path == NULL) {
    if (cfg.socket_path && strcmp (cfg.socket_path, DEFAULT_SOCKET) != 0) {
      size_t n = strlen (cfg.socket_path);
      control = malloc (n + 5);
      if (control == NULL)
        return EXIT_ERROR;
      memcpy (control, cfg.socket_path, n);
      if (n > 5 && strcmp (cfg.socket_path + n - 5, ".sock") == 0)
        n -= 5;
      strcpy (control + n, ".ctl");
      cfg.control_path = control;
    }
    else
      cfg.control_path = DEFAULT_CONTROL;
  }

  r = pc_recorder_new (&cfg, &rec, why, sizeof why);
  if (r < 0) {
    cmd_err ("record", "%s", why);
    free (control);
    return EXIT_ERROR;
  }

  if (!foreground) {
    if (pipe2 (ready, O_CLOEXEC) < 0) {
      cmd_err ("record", "pipe: %s", strerror (errno));
      goto fail;
    }
    pid = fork ();
    if (pid < 0) {
      cmd_err ("record", "fork: %s", strerror (errno));
      goto fail;
    }
    if (pid > 0) {
      /* The parent returns once the server is ready, with its status. */
      char st = 1;
      close (ready[1]);
      if (read (ready[0], &st, 1) != 1)
        st = 1;
      _exit (st == 0 ? EXIT_OK : EXIT_ERROR);
    }
    close (ready[0]);
    setsid ();
    int nul = open ("/dev/null", O_RDWR);
    if (nul >= 0) {
      dup2 (nul, 0);
      dup2 (nul, 1);
      if (nul > 1)
        close (nul);
    }
  }
  if (pidfile && (r = write_pidfile (pidfile)) < 0) {
    cmd_err ("record", "%s: %s", pidfile, strerror (-r));
    goto fail;
  }
  r = pc_recorder_start (rec);
  if (r < 0) {
    cmd_err ("record", "io_uring: %s", strerror (-r));
    if (pidfile)
      unlink (pidfile);
    goto fail;
  }
  if (!foreground) {
    char st = 0;
    /* stderr stays open until the server is ready, then goes too. */
    int nul = open ("/dev/null", O_RDWR);
    if (write (ready[1], &st, 1) != 1) { /* parent gone: carry on */ }
    close (ready[1]);
    if (nul >= 0) {
      dup2 (nul, 2);
      close (nul);
    }
  }
  r = pc_recorder_run (rec);
  if (r < 0)
    cmd_err ("record", "%s: %s", cfg.log_path, strerror (-r));
  pc_recorder_free (rec);
  if (pidfile)
    unlink (pidfile);
  free (control);
  return r < 0 ? EXIT_ERROR : EXIT_OK;

fail:
  pc_recorder_free (rec);
  free (control);
  return EXIT_ERROR;
}
