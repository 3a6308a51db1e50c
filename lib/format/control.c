/* control.c: client side of the control protocol, and Unix socket helpers. */
#include <config.h>

#include <errno.h>
#include <netdb.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "format/control.h"
#include "format/mark.h"
#include "util/util.h"

static int
unix_addr (const char *path, struct sockaddr_un *sun)
{
  memset (sun, 0, sizeof *sun);
  sun->sun_family = AF_UNIX;
  if (strlen (path) >= sizeof sun->sun_path)
    return -ENAMETOOLONG;
  strcpy (sun->sun_path, path);
  return 0;
}

static int
unix_connect (const char *path)
{
  struct sockaddr_un sun;
  int fd, r;

  r = unix_addr (path, &sun);
  if (r < 0)
    return r;
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  if (connect (fd, (struct sockaddr *) &sun, sizeof sun) < 0) {
    r = -errno;
    close (fd);
    return r;
  }
  return fd;
}

int
pc_unix_listen (const char *path)
{
  struct sockaddr_un sun;
  mode_t old;
  int fd, r;

  r = unix_addr (path, &sun);
  if (r < 0)
    return r;
  /* A stale socket from a recorder that died may be replaced; a live one not. */
  fd = unix_connect (path);
  if (fd >= 0) {
    close (fd);
    return -EADDRINUSE;
  }
  if (fd == -ECONNREFUSED) {
    struct stat st;
    if (lstat (path, &st) == 0 && S_ISSOCK (st.st_mode))
      unlink (path);
  }
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  old = umask (0177);
  r = bind (fd, (struct sockaddr *) &sun, sizeof sun);
  umask (old);
  if (r < 0 || chmod (path, 0600) < 0 || listen (fd, 128) < 0) {
    r = -errno;
    close (fd);
    return r;
  }
  return fd;
}

static int
wait_fd (int fd, short events, int timeout_ms)
{
  struct pollfd p = { .fd = fd, .events = events };
  int r;

  if (timeout_ms <= 0)
    return 0;
  do
    r = poll (&p, 1, timeout_ms);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return -errno;
  return r == 0 ? -ETIMEDOUT : 0;
}

int
pc_parse_host_port (const char *spec, const char *dflt, char *host, size_t hostlen,
                    char *port, size_t portlen)
{
  const char *colon = strrchr (spec, ':'), *p = colon ? colon + 1 : spec;
  size_t n = colon ? (size_t) (colon - spec) : 0;
  unsigned long num;
  char *end;

  errno = 0;
  num = strtoul (p, &end, 10);
  if (p[0] < '0' || p[0] > '9' || *end != '\0' || errno != 0 || num == 0 || num > 65535 ||
      strlen (p) >= portlen)
    return -EINVAL;
  if (n == 0) {
    if (dflt == NULL || strlen (dflt) >= hostlen)
      return -EINVAL;
    snprintf (host, hostlen, "%s", dflt);
  }
  else {
    if (spec[0] == '[' && n > 2 && spec[n - 1] == ']') {
      spec++;                   /* [::1] */
      n -= 2;
    }
    if (n >= hostlen)
      return -EINVAL;
    memcpy (host, spec, n);
    host[n] = '\0';
  }
  snprintf (port, portlen, "%s", p);
  return 0;
}

/* Connects to "tcp:HOST:PORT" (a control socket forwarded over TCP, as a
 * qemu guest reaches its host's recorder), or to a Unix socket path. */
static int
control_connect (const char *addr)
{
  struct addrinfo hints, *res = NULL, *ai;
  char host[256], port[8];
  int fd = -ECONNREFUSED;

  if (strncmp (addr, "tcp:", 4) != 0)
    return unix_connect (addr);
  if (pc_parse_host_port (addr + 4, NULL, host, sizeof host, port, sizeof port) < 0)
    return -EDESTADDRREQ;
  memset (&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  if (getaddrinfo (host, port, &hints, &res) != 0)
    return -EHOSTUNREACH;
  for (ai = res; ai; ai = ai->ai_next) {
    fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      fd = -errno;
      continue;
    }
    if (connect (fd, ai->ai_addr, ai->ai_addrlen) == 0)
      break;
    close (fd);
    fd = -errno;
  }
  freeaddrinfo (res);
  return fd;
}

void
pc_ctl_request_encode (uint8_t *hdr, uint32_t cmd, uint32_t len)
{
  pc_put_le32 (hdr, PC_CTL_MAGIC);
  pc_put_le32 (hdr + 4, cmd);
  pc_put_le32 (hdr + 8, len);
}

int
pc_ctl_request_decode (const uint8_t *hdr, uint32_t *ret_cmd, uint32_t *ret_len)
{
  if (pc_get_le32 (hdr) != PC_CTL_MAGIC || pc_get_le32 (hdr + 8) > PC_CTL_MAX_PAYLOAD)
    return -EBADMSG;
  *ret_cmd = pc_get_le32 (hdr + 4);
  *ret_len = pc_get_le32 (hdr + 8);
  return 0;
}

void
pc_ctl_reply_encode (uint8_t *rep, int status, uint64_t seq)
{
  pc_put_le32 (rep, PC_CTL_REPLY_MAGIC);
  pc_put_le32 (rep + 4, (uint32_t) status);
  pc_put_le64 (rep + 8, seq);
}

int
pc_ctl_reply_decode (const uint8_t *rep, uint64_t *ret_seq)
{
  int32_t status = (int32_t) pc_get_le32 (rep + 4);

  if (pc_get_le32 (rep) != PC_CTL_REPLY_MAGIC || status > 0 || status < -4095)
    return -EPROTO;
  if (status == 0 && ret_seq)
    *ret_seq = pc_get_le64 (rep + 8);
  return status;
}

struct pc_control_conn {
  int fd;
  unsigned outstanding;         /* requests sent whose replies are unread */
};

/* Sends all of iov (n of them), retrying on EINTR and short sends; a
 * recorder that went away is -EPIPE, not SIGPIPE.  Returns 0 or -errno. */
static int
send_all (int fd, struct iovec *iov, int n)
{
  struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t) n };

  while (m.msg_iovlen > 0) {
    ssize_t k = sendmsg (fd, &m, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    while (m.msg_iovlen > 0 && (size_t) k >= m.msg_iov->iov_len) {
      k -= (ssize_t) m.msg_iov->iov_len;
      m.msg_iov++;
      m.msg_iovlen--;
    }
    if (m.msg_iovlen > 0) {
      m.msg_iov->iov_base = (char *) m.msg_iov->iov_base + k;
      m.msg_iov->iov_len -= (size_t) k;
    }
  }
  return 0;
}

int
pc_control_open (const char *path, struct pc_control_conn **ret)
{
  struct pc_control_conn *c = malloc (sizeof *c);
  int fd;

  if (c == NULL)
    return -ENOMEM;
  fd = control_connect (path);
  if (fd < 0) {
    free (c);
    return fd;
  }
  c->fd = fd;
  c->outstanding = 0;
  *ret = c;
  return 0;
}

int
pc_control_collect (struct pc_control_conn *c, int timeout_ms)
{
  uint8_t rep[PC_CTL_REPLY_SIZE];
  int first = 0;

  while (c->outstanding > 0) {
    int r = wait_fd (c->fd, POLLIN, timeout_ms);
    if (r == 0)
      r = pc_read_all (c->fd, rep, sizeof rep);
    if (r < 0)
      return r == -EPIPE ? -ECONNRESET : r;
    c->outstanding--;
    r = pc_ctl_reply_decode (rep, NULL);
    if (r < 0 && first == 0)
      first = r;
  }
  return first;
}

int
pc_control_send (struct pc_control_conn *c, enum pc_ctl_cmd cmd, const void *payload,
                 size_t len)
{
  uint8_t hdr[PC_CTL_HEADER_SIZE];
  struct iovec iov[2];
  int r;

  if (len > PC_CTL_MAX_PAYLOAD)
    return -E2BIG;
  pc_ctl_request_encode (hdr, cmd, (uint32_t) len);
  iov[0] = (struct iovec) { hdr, sizeof hdr };
  iov[1] = (struct iovec) { (void *) payload, len };
  r = send_all (c->fd, iov, len > 0 ? 2 : 1);
  if (r < 0)
    return r == -EPIPE ? -ECONNRESET : r;
  c->outstanding++;
  return 0;
}

int
pc_control_request (struct pc_control_conn *c, enum pc_ctl_cmd cmd, const void *payload,
                    size_t len, int timeout_ms, uint64_t *ret_seq)
{
  uint8_t hdr[PC_CTL_HEADER_SIZE], rep[PC_CTL_REPLY_SIZE];
  struct iovec iov[2];
  int r;

  if (len > PC_CTL_MAX_PAYLOAD)
    return -E2BIG;
  r = pc_control_collect (c, timeout_ms);
  if (r < 0)
    return r;
  pc_ctl_request_encode (hdr, cmd, (uint32_t) len);
  iov[0] = (struct iovec) { hdr, sizeof hdr };
  iov[1] = (struct iovec) { (void *) payload, len };
  r = send_all (c->fd, iov, len > 0 ? 2 : 1);
  if (r == 0)
    r = wait_fd (c->fd, POLLIN, timeout_ms);
  if (r == 0)
    r = pc_read_all (c->fd, rep, sizeof rep);
  if (r < 0)
    return r == -EPIPE ? -ECONNRESET : r;
  return pc_ctl_reply_decode (rep, ret_seq);
}

void
pc_control_close (struct pc_control_conn *c)
{
  if (c) {
    close (c->fd);
    free (c);
  }
}

int
pc_control_call (const char *path, enum pc_ctl_cmd cmd, const void *payload,
                 size_t len, int timeout_ms, uint64_t *ret_seq)
{
  struct pc_control_conn *c;
  int r;

  if (len > PC_CTL_MAX_PAYLOAD)
    return -E2BIG;
  r = pc_control_open (path, &c);
  if (r < 0)
    return r;
  r = pc_control_request (c, cmd, payload, len, timeout_ms, ret_seq);
  pc_control_close (c);
  return r;
}

int
pc_control_stop (const char *path, int timeout_ms, int wait_ms, struct pc_err *err)
{
  int r = pc_control_call (path, PC_CTL_STOP, NULL, 0, timeout_ms, NULL);

  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", path, pc_control_strerror (r));
  for (int i = 0; i < wait_ms / 10 && access (path, F_OK) == 0; i++)
    usleep (10000);
  return 0;
}

const char *
pc_control_strerror (int r)
{
  switch (-r) {
  case ENOENT:
  case ECONNREFUSED: return "no recorder is listening there";
  case ESHUTDOWN: return "the recording is stopping";
  case EEXIST: return "the recording has a mark of that name already";
  case EBADMSG: return "the recorder rejected the request as malformed";
  case ETIMEDOUT: return "no answer from the recorder";
  case EDESTADDRREQ: return "not tcp:HOST:PORT with a port from 1 to 65535";
  case EHOSTUNREACH: return "the host cannot be resolved";
  default: return strerror (-r);
  }
}

int
pc_control_mark (const char *control, const char *name, const char *dir, bool sync,
                 char *const *durable, size_t ndurable, int timeout_ms,
                 struct pc_err *why)
{
  struct pc_mark m = { 0 };
  uint8_t *buf = NULL;
  size_t len;
  int r;

  if (!pc_mark_name_valid (name) || ((sync || ndurable) && dir == NULL)) {
    return pc_err_set (why, EINVAL, "'%s': not a valid mark name, or no directory to sync",
                       name);
  }
  m.name = strdup (name);
  if (m.name == NULL) {
    return pc_err_set (why, ENOMEM, "mark %s: %s", name, strerror (ENOMEM));
  }
  if (sync) {
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || syncfs (fd) < 0) {
      r = -errno;
      pc_err_msg (why, "%s: %s%s", dir, fd >= 0 ? "syncfs: " : "", strerror (-r));
      if (fd >= 0)
        close (fd);
      goto out;
    }
    close (fd);
    m.flags |= PC_MARK_F_SYNC;
  }
  for (size_t i = 0; i < ndurable; i++) {
    char *rel;
    r = pc_mark_relpath (dir, durable[i], &rel);
    if (r == 0) {
      r = pc_mark_add_durable (&m, rel);
      free (rel);
    }
    if (r < 0) {
      pc_err_msg (why, "%s: %s", durable[i],
                  r == -EXDEV ? "not under the manifest directory"
                  : r == -EINVAL ? "not a path a manifest can hold" : strerror (-r));
      goto out;
    }
  }
  if (dir) {
    r = pc_mark_scan (&m, dir, why);
    if (r < 0)
      goto out;
  }
  r = pc_mark_encode (&m, &buf, &len);
  if (r == 0)
    r = len > PC_CTL_MAX_PAYLOAD ? -E2BIG
        : pc_control_call (control, PC_CTL_MARK, buf, len, timeout_ms, NULL);
  if (r < 0)
    pc_err_msg (why, "%s: %s", control, pc_control_strerror (r));
out:
  free (buf);
  pc_mark_free (&m);
  return r;
}
