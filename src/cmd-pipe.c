/* cmd-pipe.c: powercut pipe: relay standard input and output to a Unix
 * socket, one connection per invocation (what a qemu guest's forwarded
 * connections run through: guestfwd=...-cmd:powercut pipe SOCKET). */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd.h"

int
cmd_pipe (int argc, char **argv)
{
  struct sockaddr_un sun;
  struct pollfd p[2];
  char buf[1 << 16];
  bool in_open = true;
  int fd;

  if (argc != 2 || strcmp (argv[1], "--help") == 0) {
    printf ("usage: powercut pipe SOCKET\n"
            "\n"
            "Relay standard input to the Unix socket SOCKET and what it sends to\n"
            "standard output, until both sides are done.\n");
    return argc == 2 ? EXIT_OK : EXIT_ERROR;
  }
  memset (&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  if (strlen (argv[1]) >= sizeof sun.sun_path) {
    cmd_err ("pipe", "%s: path too long", argv[1]);
    return EXIT_ERROR;
  }
  strcpy (sun.sun_path, argv[1]);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect (fd, (struct sockaddr *) &sun, sizeof sun) < 0) {
    cmd_err ("pipe", "%s: %s", argv[1], strerror (errno));
    return EXIT_ERROR;
  }
  for (;;) {
    ssize_t n;
    p[0] = (struct pollfd) { .fd = in_open ? 0 : -1, .events = POLLIN };
    p[1] = (struct pollfd) { .fd = fd, .events = POLLIN };
    if (poll (p, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (p[0].revents) {
      n = read (0, buf, sizeof buf);
      if (n <= 0) {
        in_open = false;
        shutdown (fd, SHUT_WR);
      }
      else if (send (fd, buf, (size_t) n, MSG_NOSIGNAL) != n)
        break;
    }
    if (p[1].revents) {
      n = recv (fd, buf, sizeof buf, 0);
      if (n <= 0)
        break;
      for (ssize_t off = 0; off < n;) {
        ssize_t w = write (1, buf + off, (size_t) (n - off));
        if (w <= 0)
          return EXIT_OK;
        off += w;
      }
    }
  }
  close (fd);
  return EXIT_OK;
}
