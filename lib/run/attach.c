/* attach.c: how the recorded device appears to this machine's kernel
 * (the attach table of runint.h: the nbd driver and nbd-client, nbdfuse
 * and a loop device, a qemu guest's disk), and the commands run.c and it
 * run on the way. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/initramfs.h"
#include "run/runint.h"
#include "util/proc.h"
#include "util/util.h"

/* The first line of a program's output, for error messages. */
const char *
pc_run_first_line (char *out)
{
  char *nl = strchr (out, '\n');

  if (nl)
    *nl = '\0';
  return out[0] ? out : "(no output)";
}

/* What a command's status s (pc_proc_run's) comes to: 0, or -errno
 * with its reason. */
int
pc_run_cmd_status (struct run *r, char *const argv[], int s)
{
  if (s == 0)
    return 0;
  if (s == -EINTR)
    return pc_run_fail (r, EINTR, "interrupted");
  if (s == 127)
    return pc_run_fail (r, ENOENT, "%s: not found (is it installed?)", argv[0]);
  if (s == -ETIME)
    return pc_run_fail (r, ETIME, "%s: no answer within %d s", argv[0], PC_RUN_CMD_TIMEOUT_S);
  return pc_run_fail (r, EIO, "%s: %s", argv[0], pc_run_first_line (r->out));
}

int
pc_run_cmd (struct run *r, char *const argv[])
{
  return pc_run_cmd_status (r, argv, pc_proc_run (argv, PC_RUN_CMD_TIMEOUT_S, r->out, sizeof r->out));
}

/* Waits for a child, killing it after timeout_s. Returns its wait status. */
int
pc_run_reap (pid_t pid, int timeout_s, int sig)
{
  int st = 0;

  /* short steps first: most children end within milliseconds */
  for (long waited = 0, step = 2; waited < timeout_s * 1000L; waited += step) {
    pid_t p = waitpid (pid, &st, WNOHANG);
    if (p == pid || (p < 0 && errno == ECHILD))
      return st;
    step = waited < 200 ? 2 : 50;
    pc_run_msleep (step);
  }
  kill (pid, sig);
  pc_run_msleep (200);
  kill (pid, SIGKILL);
  waitpid (pid, &st, 0);
  return st;
}

/* The kernel's nbd driver and its client are here. */
static bool
nbd_usable (void)
{
  struct stat st;
  char *client;

  if (stat ("/sys/module/nbd", &st) == 0 && stat ("/dev/nbd0", &st) == 0 &&
      (client = pc_which ("nbd-client")) != NULL) {
    free (client);
    return true;
  }
  return false;
}

static int
attach_fuse (struct run *r)
{
  char nbdfile[160];
  pid_t pid;

  if (mkdir (r->fusedir, 0700) < 0)
    return pc_run_fail (r, errno, "%s: %s", r->fusedir, strerror (errno));
  pid = fork ();
  if (pid < 0)
    return pc_run_fail (r, errno, "fork: %s", strerror (errno));
  if (pid == 0) {
    int nul = open ("/dev/null", O_RDWR);
    if (nul >= 0) {
      dup2 (nul, 0);
      dup2 (nul, 1);
    }
    setpgid (0, 0);
    execlp ("nbdfuse", "nbdfuse", r->fusedir, "--unix", r->sock, (char *) NULL);
    /* not reached unless nbdfuse is missing */
    _exit (127);
  }
  r->nbdfuse = pid;
  snprintf (nbdfile, sizeof nbdfile, "%s/nbd", r->fusedir);
  for (int i = 0; i < 2000 && access (nbdfile, F_OK) < 0; i++) {
    int st;
    if (waitpid (pid, &st, WNOHANG) == pid) {
      r->nbdfuse = 0;
      return pc_run_fail (r, EIO, "nbdfuse exited (status %d): is it installed, and FUSE usable?",
                   WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st));
    }
    if (pc_interrupted ())
      return pc_run_fail (r, EINTR, "interrupted");
    pc_run_msleep (5);
  }
  if (access (nbdfile, F_OK) < 0)
    return pc_run_fail (r, ETIME, "nbdfuse: %s did not appear", nbdfile);
  {
    char *argv[] = { "losetup", "-f", "--show", nbdfile, NULL };
    int e = pc_run_cmd (r, argv);
    if (e < 0)
      return e;
    const char *dev = pc_run_first_line (r->out);
    size_t n = strnlen (dev, sizeof r->dev - 1);
    memcpy (r->dev, dev, n);
    r->dev[n] = '\0';
    r->loop = strncmp (r->dev, "/dev/loop", 9) == 0;
    if (!r->loop)
      return pc_run_fail (r, EIO, "losetup: unexpected answer '%s'", r->dev);
  }
  return 0;
}

/* Has another device of r's set attached dev (its client may not have
 * shown in sysfs yet)? */
static bool
taken (const struct run *r, const char *dev)
{
  for (size_t i = 0; i < r->nset; i++)
    if (&r->set[i] != r && strcmp (r->set[i].dev, dev) == 0)
      return true;
  return false;
}

static int
attach_nbd (struct run *r)
{
  /* The first /dev/nbdN without a client. */
  for (int i = 0; i < 128; i++) {
    char pidf[64], dev[32];
    struct stat st;
    snprintf (dev, sizeof dev, "/dev/nbd%d", i);
    snprintf (pidf, sizeof pidf, "/sys/block/nbd%d/pid", i);
    if (stat (dev, &st) < 0)
      break;
    if (access (pidf, F_OK) == 0 || taken (r, dev))
      continue;
    {
      /* a base image was made on a file, whose sectors are 512 bytes
       * (XFS then has 512-byte sectors, which a device of 4 KiB blocks
       * refuses to mount: "Function not implemented") */
      char *argv[] = { "nbd-client", "-unix", r->sock, dev, "-b",
                       r->cfg->base_path ? "512" : "4096", "-N", "", NULL };
      int s = pc_proc_run (argv, PC_RUN_CMD_TIMEOUT_S, r->out, sizeof r->out);
      /* another recording (explore's batches side by side) took it
       * between the look and the attach (its client shows in sysfs once
       * connected): the next one */
      for (int k = 0; s > 0 && s < 127 && k < 50 && access (pidf, F_OK) < 0; k++)
        pc_run_msleep (20);
      if (s > 0 && s < 127 && access (pidf, F_OK) == 0)
        continue;
      if (s != 0)
        return pc_run_cmd_status (r, argv, s);
    }
    snprintf (r->dev, sizeof r->dev, "%s", dev);
    r->nbd = true;
    return 0;
  }
  return pc_run_fail (r, ENODEV, "no free /dev/nbdN (is the nbd module loaded?)");
}

/* The loop device over r's nbdfuse file, if one is attached, into r->dev
 * (the kernel names its file by the real path). */
static bool
loop_over_fuse (struct run *r)
{
  char nbdfile[sizeof r->fusedir + 8], real[PATH_MAX];

  snprintf (nbdfile, sizeof nbdfile, "%s/nbd", r->fusedir);
  return pc_loop_of (realpath (nbdfile, real) ? real : nbdfile, r->dev, sizeof r->dev) == 1;
}

/* Undoes attach_fuse, as far as it went: the loop device (found again if
 * losetup was killed once it had attached), then nbdfuse.  While the
 * FUSE file stays busy, a loop device over it is looked for again: an
 * attach that ended after the first look (a losetup killed with its
 * process group, its ioctl still running) is undone too. */
static void
detach_fuse (struct run *r)
{
  char *detach_argv[] = { "losetup", "-d", r->dev, NULL };
  char *fuse_argv[] = { "fusermount3", "-u", r->fusedir, NULL };

  if (!r->loop && r->nbdfuse > 0)
    r->loop = loop_over_fuse (r);
  if (r->loop)
    pc_proc_run (detach_argv, 30, r->out, sizeof r->out);
  r->loop = false;
  if (r->nbdfuse > 0) {
    /* The loop device may let go of the file a moment after losetup -d. */
    for (int i = 0; i < 250; i++) {
      if (pc_proc_run (fuse_argv, 30, r->out, sizeof r->out) == 0)
        break;
      if (i % 20 == 19 && loop_over_fuse (r))
        pc_proc_run (detach_argv, 30, r->out, sizeof r->out);
      pc_run_msleep (i < 50 ? 5 : 50);
    }
    pc_run_reap (r->nbdfuse, 10, SIGTERM);
    r->nbdfuse = 0;
  }
}

static void
detach_nbd (struct run *r)
{
  char *nbd_argv[] = { "nbd-client", "-d", r->dev, NULL };

  if (r->nbd)
    pc_proc_run (nbd_argv, 30, r->out, sizeof r->out);
  r->nbd = false;
}


static const struct attach attaches[] = {
  /* auto takes the first here that is usable */
  { PC_ATTACH_NBD, "nbd", true, nbd_usable, attach_nbd, detach_nbd },
  { PC_ATTACH_FUSE, "nbdfuse + loop", true, NULL, attach_fuse, detach_fuse },
  { PC_ATTACH_VM, "a qemu guest's disk", false, NULL, NULL, NULL },
};

const struct attach *
pc_run_attach_of (enum pc_attach kind)
{
  for (size_t i = 0; i < sizeof attaches / sizeof attaches[0]; i++)
    if (attaches[i].kind == kind)
      return &attaches[i];
  return NULL;
}

enum pc_attach
pc_run_pick_attach (void)
{
  for (size_t i = 0; i < sizeof attaches / sizeof attaches[0]; i++)
    if (attaches[i].here && (attaches[i].usable == NULL || attaches[i].usable ()))
      return attaches[i].kind;
  return PC_ATTACH_FUSE;
}
