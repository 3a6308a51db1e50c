/* cmd-vm.c: powercut vm: run a script in a qemu guest whose disks are
 * NBD servers (recorders, or anything else that speaks NBD), with the
 * guest kernel's own drivers: what a setup the host kernel cannot build
 * needs (md RAID on a host without the md driver), for recording and for
 * checking alike. */
#include <config.h>

#define _GNU_SOURCE 1
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "guest/vm.h"
#include "util/util.h"

/* A wrong command line exits 2, as every powercut command does (nothing
 * ran); once the script is to run, the guest's own failures exit 125, as
 * timeout(1)'s and env(1)'s do: every other status is the script's. */
#define EXIT_VM_FAILED 125
#define MAX_LIST 32

static void
usage (void)
{
  printf ("usage: powercut vm [OPTION]... SCRIPT [ARG]...\n"
"\n"
"Boot a qemu guest with a kernel of the host's /boot, attach each --disk as\n"
"/dev/nbd0, /dev/nbd1, ... through the guest's own NBD driver, and run\n"
"SCRIPT (a shell script, copied in) as root in the guest's /host, where the\n"
"--copy files are.  Its environment has POWERCUT_DEV_NAME (the device of\n"
"disk NAME), POWERCUT_CONTROL_NAME (its recorder's control socket, for\n"
"'powercut mark') and POWERCUT; the guest has busybox, nbd-client, mke2fs,\n"
"powercut and the --program programs, and the modules for e1000, nbd, ext4\n"
"and the --module ones.  What SCRIPT prints is printed here, once the\n"
"guest is off.\n"
"\n"
"  --disk NAME:SOCKET[:CONTROL]  an NBD server on the Unix socket SOCKET (and\n"
"                        the recorder's control socket), in order; NAME is\n"
"                        letters, digits and '_'\n"
"  --module NAME         load this module of the guest's kernel too\n"
"  --program PROG        copy this program (name in PATH, or path), with its\n"
"                        libraries, into the guest's /bin\n"
"  --copy PATH           copy this file or directory into the guest's /host\n"
"  --connections N       NBD connections per disk (default 1)\n"
"  --memory MIB          the guest's memory (default 768)\n"
"  --timeout S           stop the guest after S seconds (default 600)\n"
"  --kernel FILE         the kernel to boot (default: the newest /boot/vmlinuz-*)\n"
"  --modules DIR         its modules (default: /lib/modules/VERSION)\n"
"  --console FILE        keep the guest's console in FILE\n"
"  --output FILE         what SCRIPT writes to $POWERCUT_OUT (the guest's second\n"
"                        serial port) goes to FILE, byte for byte\n"
"  -h, --help            show this help\n"
"\n"
"Exits with SCRIPT's status, 2 for a wrong command line, or 125 when the\n"
"guest could not run it.\n");
}

static int
add (char **list, size_t *n, char *s)
{
  if (*n + 1 >= MAX_LIST)
    return -1;
  list[(*n)++] = s;
  list[*n] = NULL;
  return 0;
}

static int
parse_disk (char *arg, struct pc_vm_disk *d)
{
  char *sock = strchr (arg, ':'), *ctl;

  if (sock == NULL)
    return -1;
  *sock++ = '\0';
  ctl = strchr (sock, ':');
  if (ctl)
    *ctl++ = '\0';
  if (*arg == '\0' || strspn (arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                              "0123456789_") != strlen (arg) || *sock == '\0' ||
      (ctl && *ctl == '\0'))
    return -1;
  d->name = arg;
  d->nbd_sock = sock;
  d->ctl_sock = ctl;
  return 0;
}

/* Prints the script's lines of the console. */
static void
print_output (const char *console)
{
  FILE *f = fopen (console, "re");
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;

  if (f == NULL)
    return;
  while ((n = getline (&line, &cap, f)) > 0) {
    char *p = strstr (line, "POWERCUT-OUT ");
    if (p == NULL)
      continue;
    p += 13;
    p[strcspn (p, "\r\n")] = '\0';
    puts (p);
  }
  free (line);
  fclose (f);
  fflush (stdout);
}

/* What the command line asks for. */
struct vm_args {
  struct pc_vm_disk disks[MAX_LIST];
  char *mods[MAX_LIST], *progs[MAX_LIST], *copies[MAX_LIST];   /* NULL-terminated */
  size_t ndisks, nmods, nprogs, ncopies;
  struct pc_vm_config vc;
};

static int check_args (int argc, char **argv, const struct vm_args *a);

/* Parses the options into a.  Returns -1 to go on, else the exit status. */
static int
parse_args (int argc, char **argv, struct vm_args *a)
{
  enum { O_DISK = 256, O_MODULE, O_PROGRAM, O_COPY, O_CONN, O_MEM, O_TIMEOUT, O_KERNEL,
         O_MODULES, O_CONSOLE, O_OUTPUT };
  static const struct option opts[] = {
    { "disk", required_argument, NULL, O_DISK },
    { "module", required_argument, NULL, O_MODULE },
    { "program", required_argument, NULL, O_PROGRAM },
    { "copy", required_argument, NULL, O_COPY },
    { "connections", required_argument, NULL, O_CONN },
    { "memory", required_argument, NULL, O_MEM },
    { "timeout", required_argument, NULL, O_TIMEOUT },
    { "kernel", required_argument, NULL, O_KERNEL },
    { "modules", required_argument, NULL, O_MODULES },
    { "console", required_argument, NULL, O_CONSOLE },
    { "output", required_argument, NULL, O_OUTPUT },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  struct pc_vm_config *vc = &a->vc;
  unsigned long v;
  char *end;
  int c;

  while ((c = getopt_long (argc, argv, "+h", opts, NULL)) != -1) {
    switch (c) {
    case O_DISK:
      if (a->ndisks >= MAX_LIST || parse_disk (optarg, &a->disks[a->ndisks]) < 0) {
        cmd_err ("vm", "--disk %s: not NAME:SOCKET[:CONTROL] (or too many disks)", optarg);
        return EXIT_ERROR;
      }
      a->ndisks++;
      break;
    case O_MODULE:
    case O_PROGRAM:
    case O_COPY:
      if (add (c == O_MODULE ? a->mods : c == O_PROGRAM ? a->progs : a->copies,
               c == O_MODULE ? &a->nmods : c == O_PROGRAM ? &a->nprogs : &a->ncopies,
               optarg) < 0) {
        cmd_err ("vm", "too many --%s options", opts[c - O_DISK].name);
        return EXIT_ERROR;
      }
      break;
    case O_CONN:
    case O_MEM:
    case O_TIMEOUT:
      errno = 0;
      v = strtoul (optarg, &end, 10);
      if (errno || end == optarg || *end || v == 0 || v > (c == O_CONN ? 16 : 1000000)) {
        cmd_err ("vm", "--%s %s: not a positive number in range", opts[c - O_DISK].name, optarg);
        return EXIT_ERROR;
      }
      if (c == O_CONN)
        vc->connections = (unsigned) v;
      else if (c == O_MEM)
        vc->memory_mb = (unsigned) v;
      else
        vc->timeout_s = (int) v;
      break;
    case O_KERNEL:
      vc->kernel = optarg;
      break;
    case O_MODULES:
      vc->modules = optarg;
      break;
    case O_CONSOLE:
      vc->console_path = optarg;
      break;
    case O_OUTPUT:
      vc->out_path = optarg;
      break;
    case 'h':
      usage ();
      return EXIT_OK;
    default:
      return pc_usage_error ("vm");
    }
  }
  return check_args (argc, argv, a);
}

/* What the options cannot say alone: a script, disks named once each.
 * Returns -1 to go on, else the exit status. */
static int
check_args (int argc, char **argv, const struct vm_args *a)
{
  if (optind >= argc) {
    cmd_err ("vm", "no script to run");
    return pc_usage_error ("vm");
  }
  if (access (argv[optind], R_OK) < 0) {
    cmd_err ("vm", "%s: %s", argv[optind], strerror (errno));
    return EXIT_ERROR;
  }
  for (size_t i = 0; i < a->ndisks; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp (a->disks[i].name, a->disks[j].name) == 0) {
        cmd_err ("vm", "--disk %s: named twice", a->disks[i].name);
        return EXIT_ERROR;
      }
  return -1;
}

int
cmd_vm (int argc, char **argv)
{
  struct vm_args *a = calloc (1, sizeof *a);
  char self[PATH_MAX], work[PATH_MAX], console[PATH_MAX + 16];
  const char *tmp = getenv ("TMPDIR");
  struct pc_vm_config *vc;
  struct pc_err err;
  int status = -1, r;
  ssize_t n;

  if (a == NULL) {
    cmd_err ("vm", "%s", strerror (ENOMEM));
    return EXIT_ERROR;
  }
  vc = &a->vc;
  vc->timeout_s = 600;
  if ((r = parse_args (argc, argv, a)) >= 0)
    goto out;
  r = EXIT_VM_FAILED;
  n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    cmd_err ("vm", "/proc/self/exe: %s", strerror (errno));
    goto out;
  }
  self[n] = '\0';
  snprintf (work, sizeof work, "%s/powercut-vm.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
  if (mkdtemp (work) == NULL) {
    cmd_err ("vm", "%s: %s", work, strerror (errno));
    goto out;
  }
  if (vc->console_path == NULL) {
    snprintf (console, sizeof console, "%s/console.txt", work);
    vc->console_path = console;
  }
  vc->self = self;
  vc->script_mode = true;
  vc->script = argv[optind];
  vc->script_args = argv + optind + 1;
  vc->disks = a->disks;
  vc->ndisks = a->ndisks;
  vc->extra_modules = a->mods;
  vc->programs = a->progs;
  vc->copies = a->copies;
  vc->work_dir = work;
  vc->script_status = &status;
  pc_catch_stop_signals ();
  if (pc_vm_run (vc, &err) < 0) {
    print_output (vc->console_path);    /* what the script said, even cut short */
    /* the console the message names is kept (its directory with it) */
    cmd_err ("vm", "%s", err.msg);
    rmdir (work);       /* only if it holds nothing: a guest that never started */
    goto out;
  }
  print_output (vc->console_path);
  if (vc->console_path == console)
    unlink (console);
  rmdir (work);
  r = status;
out:
  free (a);
  return r;
}
