/* relay.c: a file descriptor pair relayed to a Unix socket. */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/relay.h"

/* Writes all of buf to fd.  Returns false if fd takes no more. */
static bool
put_all (int fd, const char *buf, ssize_t n)
{
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write (fd, buf + off, (size_t) (n - off));
    if (w <= 0)
      return false;
    off += w;
  }
  return true;
}

/* Relays until the socket is done or out takes no more. */
static void
relay (int fd, int in, int out)
{
  static char buf[1 << 16];
  struct pollfd p[2];
  bool in_open = true;

  for (;;) {
    ssize_t n;
    p[0] = (struct pollfd) { .fd = in_open ? in : -1, .events = POLLIN };
    p[1] = (struct pollfd) { .fd = fd, .events = POLLIN };
    if (poll (p, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    if (p[0].revents) {
      n = read (in, buf, sizeof buf);
      if (n <= 0) {
        in_open = false;
        shutdown (fd, SHUT_WR);
      }
      else if (send (fd, buf, (size_t) n, MSG_NOSIGNAL) != n)
        return;
    }
    if (p[1].revents) {
      n = recv (fd, buf, sizeof buf, 0);
      if (n <= 0 || !put_all (out, buf, n))
        return;
    }
  }
}

int
pc_relay_unix (const char *path, int in, int out, struct pc_err *err)
{
  struct sockaddr_un sun;
  int fd;

  memset (&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  if (strlen (path) >= sizeof sun.sun_path)
    return pc_err_set (err, ENAMETOOLONG, "%s: path too long", path);
  strcpy (sun.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect (fd, (struct sockaddr *) &sun, sizeof sun) < 0) {
    int e = errno;
    if (fd >= 0)
      close (fd);
    return pc_err_set (err, e, "%s: %s", path, strerror (e));
  }
  relay (fd, in, out);
  close (fd);
  return 0;
}
