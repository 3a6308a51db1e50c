/* attach.c: the ways a recorder's device appears to a kernel (attach.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/attach.h"
#include "util/kmount.h"
#include "util/proc.h"
#include "util/util.h"

#define CMD_TIMEOUT_S 120

static void
msleep (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

  nanosleep (&ts, NULL);
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
attach_nbd (struct pc_attachment *a, struct pc_err *err)
{
  char out[4096], bs[16];

  snprintf (bs, sizeof bs, "%u", a->block_size ? a->block_size : 4096);
  /* The first /dev/nbdN without a client. */
  for (int i = 0; i < 128; i++) {
    char pidf[64], dev[32];
    char *argv[] = { "nbd-client", "-unix", (char *) a->sock, dev, "-b", bs, "-N", "", NULL };
    struct stat st;
    int s;

    snprintf (dev, sizeof dev, "/dev/nbd%d", i);
    snprintf (pidf, sizeof pidf, "/sys/block/nbd%d/pid", i);
    if (stat (dev, &st) < 0)
      break;
    if (access (pidf, F_OK) == 0 || (a->taken && a->taken (dev, a->taken_arg)))
      continue;
    s = pc_proc_run (argv, CMD_TIMEOUT_S, out, sizeof out);
    /* another recording (explore's batches side by side) took it between
     * the look and the attach (its client shows in sysfs once
     * connected): the next one */
    for (int k = 0; s > 0 && s < 127 && k < 50 && access (pidf, F_OK) < 0; k++)
      msleep (20);
    if (s > 0 && s < 127 && access (pidf, F_OK) == 0)
      continue;
    if (s == -EINTR)
      return pc_err_set (err, EINTR, "interrupted");
    if (s == 127)
      return pc_err_set (err, ENOENT, "nbd-client: not found (is it installed?)");
    if (s == -ETIME)
      return pc_err_set (err, ETIME, "nbd-client: no answer within %d s", CMD_TIMEOUT_S);
    if (s != 0) {
      out[strcspn (out, "\n")] = '\0';
      return pc_err_set (err, EIO, "nbd-client: %s", out[0] ? out : "(no output)");
    }
    snprintf (a->dev, sizeof a->dev, "%s", dev);
    a->nbd = true;
    return 0;
  }
  return pc_err_set (err, ENODEV, "no free /dev/nbdN (is the nbd module loaded?)");
}

static void
detach_nbd (struct pc_attachment *a)
{
  char out[4096];
  char *argv[] = { "nbd-client", "-d", a->dev, NULL };

  if (a->nbd)
    pc_proc_run (argv, 30, out, sizeof out);
  a->nbd = false;
}

static int
attach_fuse (struct pc_attachment *a, struct pc_err *err)
{
  char nbdfile[4200];
  pid_t parent = getpid (), pid;
  int fd;

  if (mkdir (a->fusedir, 0700) < 0)
    return pc_err_set (err, errno, "%s: %s", a->fusedir, strerror (errno));
  pid = fork ();
  if (pid < 0)
    return pc_err_set (err, errno, "fork: %s", strerror (errno));
  if (pid == 0) {
    int nul = open ("/dev/null", O_RDWR);
    if (a->die_with_parent && (prctl (PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid () != parent))
      _exit (126);
    if (nul >= 0) {
      dup2 (nul, 0);
      dup2 (nul, 1);
    }
    setpgid (0, 0);             /* a terminal's ^C is for powercut, which undoes this */
    execlp ("nbdfuse", "nbdfuse", a->fusedir, "--unix", a->sock, (char *) NULL);
    _exit (127);                /* not reached unless nbdfuse is missing */
  }
  a->nbdfuse = pid;
  snprintf (nbdfile, sizeof nbdfile, "%s/nbd", a->fusedir);
  for (int i = 0; i < 2000 && access (nbdfile, F_OK) < 0; i++) {
    int st;
    if (waitpid (pid, &st, WNOHANG) == pid) {
      a->nbdfuse = 0;
      return pc_err_set (err, EIO, "nbdfuse exited (status %d): is it installed, and FUSE usable?",
                         WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st));
    }
    if (pc_interrupted ())
      return pc_err_set (err, EINTR, "interrupted");
    msleep (5);
  }
  if (access (nbdfile, F_OK) < 0)
    return pc_err_set (err, ETIME, "nbdfuse: %s did not appear", nbdfile);
  fd = pc_loop_attach (nbdfile, false, a->dev, sizeof a->dev, err);
  if (fd < 0)
    return fd;
  a->loop_fd = fd;
  a->loop = true;
  return 0;
}

/* Undoes attach_fuse, as far as it went: lets go of the loop device
 * (it detaches itself once its filesystem is unmounted too), then ends
 * nbdfuse once its file is no longer busy. */
static void
detach_fuse (struct pc_attachment *a)
{
  char out[4096];
  char *argv[] = { "fusermount3", "-u", (char *) a->fusedir, NULL };

  if (a->loop)
    close (a->loop_fd);
  a->loop = false;
  if (a->nbdfuse > 0) {
    /* the loop device may let go of the file a moment after */
    for (int i = 0; i < 250; i++) {
      if (pc_proc_run (argv, 30, out, sizeof out) == 0)
        break;
      msleep (i < 50 ? 5 : 50);
    }
    pc_proc_reap (a->nbdfuse, 10, SIGTERM);
    a->nbdfuse = 0;
  }
}

static const struct pc_attach_way ways[] = {
  /* auto takes the first here that is usable */
  { PC_ATTACH_NBD, "nbd", true, nbd_usable, attach_nbd, detach_nbd },
  { PC_ATTACH_FUSE, "nbdfuse + loop", true, NULL, attach_fuse, detach_fuse },
  { PC_ATTACH_VM, "a qemu guest's disk", false, NULL, NULL, NULL },
};

const struct pc_attach_way *
pc_attach_of (enum pc_attach kind)
{
  for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++)
    if (ways[i].kind == kind)
      return &ways[i];
  return NULL;
}

enum pc_attach
pc_attach_pick (void)
{
  for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++)
    if (ways[i].here && (ways[i].usable == NULL || ways[i].usable ()))
      return ways[i].kind;
  return PC_ATTACH_FUSE;
}
