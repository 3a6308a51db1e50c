/* kmount.c: loop devices, a private mount namespace and the kernel's log
 * (kmount.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "util/kmount.h"

#ifndef LOOP_CONFIGURE
#define LOOP_CONFIGURE 0x4C0A   /* Linux 5.8 */
struct loop_config {
  __u32 fd;
  __u32 block_size;
  struct loop_info64 info;
  __u64 __reserved[8];
};
#endif

/* Binds the file fd to the loop device lfd: in one call where the kernel
 * has LOOP_CONFIGURE, else in two.  Returns 0 or -errno. */
static int
configure (int lfd, int fd, bool read_only)
{
  struct loop_config cfg;
  struct loop_info64 info;

  memset (&cfg, 0, sizeof cfg);
  cfg.fd = (__u32) fd;
  cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (read_only ? LO_FLAGS_READ_ONLY : 0);
  if (ioctl (lfd, LOOP_CONFIGURE, &cfg) == 0)
    return 0;
  if (errno != EINVAL && errno != ENOTTY)
    return -errno;
  if (ioctl (lfd, LOOP_SET_FD, fd) < 0)
    return -errno;
  memset (&info, 0, sizeof info);
  info.lo_flags = LO_FLAGS_AUTOCLEAR;
  if (ioctl (lfd, LOOP_SET_STATUS64, &info) < 0) {
    int e = -errno;
    ioctl (lfd, LOOP_CLR_FD, 0);
    return e;
  }
  return 0;
}

int
pc_loop_attach (const char *path, bool read_only, char *name, size_t len, struct pc_err *err)
{
  int ctl, fd, r = -EBUSY;

  fd = open (path, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  if (fd < 0)
    return pc_err_set (err, errno, "%s: %s", path, strerror (errno));
  ctl = open ("/dev/loop-control", O_RDWR | O_CLOEXEC);
  if (ctl < 0) {
    r = pc_err_set (err, errno, "/dev/loop-control: %s", strerror (errno));
    close (fd);
    return r;
  }
  /* another process may take the device between asking and binding */
  for (int tries = 0; r == -EBUSY && tries < 64; tries++) {
    int n = ioctl (ctl, LOOP_CTL_GET_FREE), lfd;
    if (n < 0) {
      r = -errno;
      break;
    }
    snprintf (name, len, "/dev/loop%d", n);
    lfd = open (name, O_RDWR | O_CLOEXEC);
    if (lfd < 0) {
      r = -errno;
      break;
    }
    r = configure (lfd, fd, read_only);
    if (r == 0)
      r = lfd;
    else
      close (lfd);
  }
  close (ctl);
  close (fd);
  if (r < 0)
    return pc_err_set (err, -r, "attaching %s to a loop device: %s", path, strerror (-r));
  return r;
}

int
pc_mount_ns_private (struct pc_err *err)
{
  if (unshare (CLONE_NEWNS) < 0)
    return pc_err_set (err, errno, "a mount namespace of its own: %s", strerror (errno));
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return pc_err_set (err, errno, "private mounts: %s", strerror (errno));
  return 0;
}

int
pc_kmsg_open (void)
{
  int fd = open ("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0)
    return -errno;
  if (lseek (fd, 0, SEEK_END) < 0) {
    int e = -errno;
    close (fd);
    return e;
  }
  return fd;
}

void
pc_kmsg_read (int fd, const char *dev, char *buf, size_t len)
{
  char rec[8192];
  size_t used = strlen (buf);

  if (fd < 0)
    return;
  for (;;) {
    ssize_t n = read (fd, rec, sizeof rec - 1);
    const char *msg, *end;
    if (n < 0 && errno == EPIPE)
      continue;                 /* records overwritten meanwhile: go on */
    if (n <= 0)
      break;
    rec[n] = '\0';
    /* "prio,seq,usec,flags;text\n" then continuation lines */
    msg = strchr (rec, ';');
    if (msg == NULL || strstr (msg, dev) == NULL)
      continue;
    msg++;
    end = strchr (msg, '\n');
    if (end == NULL)
      end = msg + strlen (msg);
    if (used + (size_t) (end - msg) + 2 > len)
      break;
    used += (size_t) snprintf (buf + used, len - used, "%s%.*s", used ? "\n" : "",
                               (int) (end - msg), msg);
  }
  close (fd);
}

int
pc_unmount (const char *dir, char *out, size_t outlen)
{
  struct timespec pause = { 0, 10 * 1000000L };

  for (int i = 0; i < 150; i++) {
    if (umount2 (dir, UMOUNT_NOFOLLOW) == 0 || errno == EINVAL || errno == ENOENT)
      return 0;               /* unmounted, or nothing mounted there */
    if (out && outlen)
      snprintf (out, outlen, "umount %s: %s", dir, strerror (errno));
    if (errno != EBUSY)
      break;
    if (i == 100)
      pause.tv_nsec = 100 * 1000000L;   /* 1 s at 10 ms, then 4 s at 100 ms */
    nanosleep (&pause, NULL);
  }
  return umount2 (dir, MNT_DETACH | UMOUNT_NOFOLLOW) == 0 || errno == EINVAL ? 0 : -EBUSY;
}
