/* check_util.c: unit tests of lib/util (sizes, byte order) and of the one
 * HOST:PORT parser (control.h). */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/control.h"
#include "util/args.h"
#include "util/err.h"
#include "util/relay.h"
#include "util/util.h"
#include "unit.h"

START_TEST (test_sizes)
{
  uint64_t v;

  ck_assert_int_eq (pc_parse_size ("512", &v), 0);
  ck_assert_uint_eq (v, 512);
  ck_assert_int_eq (pc_parse_size ("64K", &v), 0);
  ck_assert_uint_eq (v, 65536);
  ck_assert_int_eq (pc_parse_size ("1.5G", &v), 0);
  ck_assert_uint_eq (v, 1610612736);
  ck_assert_int_eq (pc_parse_size ("2GiB", &v), 0);
  ck_assert_uint_eq (v, UINT64_C(2147483648));
  ck_assert_int_eq (pc_parse_size ("1T", &v), 0);
  ck_assert_uint_eq (v, UINT64_C(1) << 40);
}
END_TEST

START_TEST (test_bad_sizes)
{
  uint64_t v = 7;

  ck_assert_int_eq (pc_parse_size ("", &v), -EINVAL);
  ck_assert_int_eq (pc_parse_size ("-1", &v), -EINVAL);
  ck_assert_int_eq (pc_parse_size ("12Q", &v), -EINVAL);
  ck_assert_int_eq (pc_parse_size ("1.3", &v), -EINVAL);
  ck_assert_int_eq (pc_parse_size ("abc", &v), -EINVAL);
  ck_assert_int_eq (pc_parse_size ("99999999999T", &v), -ERANGE);
  ck_assert_uint_eq (v, 7);   /* untouched on failure */
}
END_TEST

START_TEST (test_byte_order)
{
  uint8_t b[8];

  pc_put_le64 (b, UINT64_C(0x0102030405060708));
  ck_assert_uint_eq (b[0], 8);
  ck_assert_uint_eq (pc_get_le64 (b), UINT64_C(0x0102030405060708));
  pc_put_be64 (b, UINT64_C(0x0102030405060708));
  ck_assert_uint_eq (b[0], 1);
  ck_assert_uint_eq (pc_get_be64 (b), UINT64_C(0x0102030405060708));
  pc_put_be16 (b, 0xabcd);
  ck_assert_uint_eq (pc_get_be16 (b), 0xabcd);
  pc_put_le32 (b, 0xdeadbeef);
  ck_assert_uint_eq (pc_get_le32 (b), 0xdeadbeef);
}
END_TEST

/* "host port" as parsed, or the error. */
static const char *
hp (const char *spec, const char *dflt)
{
  static char buf[300];
  char host[16], port[8];
  int r = pc_parse_host_port (spec, dflt, host, sizeof host, port, sizeof port);

  if (r < 0)
    snprintf (buf, sizeof buf, "error %d", r);
  else
    snprintf (buf, sizeof buf, "%s %s", host, port);
  return buf;
}

START_TEST (test_host_port)
{
  ck_assert_str_eq (hp ("10.0.2.100:10810", NULL), "10.0.2.100 10810");
  ck_assert_str_eq (hp ("[::1]:1", NULL), "::1 1");
  ck_assert_str_eq (hp ("localhost:65535", NULL), "localhost 65535");
  ck_assert_str_eq (hp ("10809", "127.0.0.1"), "127.0.0.1 10809");
  ck_assert_str_eq (hp (":10809", "127.0.0.1"), "127.0.0.1 10809");
  /* a port getaddrinfo would wrap, none, not a number, no host where one
   * is needed, a host too long for the buffer */
  ck_assert_str_eq (hp ("h:65536", NULL), "error -22");
  ck_assert_str_eq (hp ("h:0", NULL), "error -22");
  ck_assert_str_eq (hp ("h:", NULL), "error -22");
  ck_assert_str_eq (hp ("h:80x", NULL), "error -22");
  ck_assert_str_eq (hp ("h:+80", NULL), "error -22");
  ck_assert_str_eq (hp ("10809", NULL), "error -22");
  ck_assert_str_eq (hp ("a-very-long-host-name:80", NULL), "error -22");
}
END_TEST

/* The control protocol's wire format, as both ends see it. */
START_TEST (test_ctl_wire)
{
  uint8_t hdr[PC_CTL_HEADER_SIZE], rep[PC_CTL_REPLY_SIZE];
  uint32_t cmd, len;
  uint64_t seq = 0;

  pc_ctl_request_encode (hdr, PC_CTL_MARK, 300);
  ck_assert_int_eq (pc_ctl_request_decode (hdr, &cmd, &len), 0);
  ck_assert_uint_eq (cmd, PC_CTL_MARK);
  ck_assert_uint_eq (len, 300);
  pc_ctl_request_encode (hdr, PC_CTL_MARK, PC_CTL_MAX_PAYLOAD + 1);
  ck_assert_int_eq (pc_ctl_request_decode (hdr, &cmd, &len), -EBADMSG);
  pc_ctl_request_encode (hdr, PC_CTL_STOP, 0);
  hdr[0] ^= 1;
  ck_assert_int_eq (pc_ctl_request_decode (hdr, &cmd, &len), -EBADMSG);

  pc_ctl_reply_encode (rep, 0, 42);
  ck_assert_int_eq (pc_ctl_reply_decode (rep, &seq), 0);
  ck_assert_uint_eq (seq, 42);
  pc_ctl_reply_encode (rep, -EEXIST, 7);
  ck_assert_int_eq (pc_ctl_reply_decode (rep, &seq), -EEXIST);
  ck_assert_uint_eq (seq, 42);            /* untouched on an error */
  pc_ctl_reply_encode (rep, 5, 0);        /* a positive status is no reply */
  ck_assert_int_eq (pc_ctl_reply_decode (rep, NULL), -EPROTO);
  pc_ctl_reply_encode (rep, 0, 0);
  rep[3] ^= 0x80;
  ck_assert_int_eq (pc_ctl_reply_decode (rep, NULL), -EPROTO);
}
END_TEST

START_TEST (test_err)
{
  struct pc_err err = { "" };
  static char big[3000];
  volatile sig_atomic_t flag = 0;

  /* a reason, and the errno returned */
  ck_assert_int_eq (pc_err_set (&err, ENOENT, "%s: %s", "app.log", "no such file"), -ENOENT);
  ck_assert_str_eq (err.msg, "app.log: no such file");
  ck_assert_int_eq (pc_err_prefix (&err, ENOENT, "record %d", 3), -ENOENT);
  ck_assert_str_eq (err.msg, "record 3: app.log: no such file");
  /* no err: only the errno */
  ck_assert_int_eq (pc_err_set (NULL, EIO, "x"), -EIO);
  ck_assert_int_eq (pc_err_prefix (NULL, EIO, "x"), -EIO);
  /* whatever the lengths, a string that fits */
  memset (big, 'a', sizeof big - 1);
  pc_err_set (&err, EINVAL, "%s", big);
  ck_assert_uint_eq (strlen (err.msg), PC_ERR_MAX - 1);
  pc_err_prefix (&err, EINVAL, "%s", big);
  ck_assert_uint_lt (strlen (err.msg), PC_ERR_MAX);
  pc_err_set (&err, EINVAL, "tail");
  pc_err_prefix (&err, EINVAL, "%s", big);
  ck_assert_uint_lt (strlen (err.msg), PC_ERR_MAX);
  /* interruption: one flag, set by the program */
  ck_assert (!pc_interrupted ());
  pc_interrupt_flag (&flag);
  ck_assert (!pc_interrupted ());
  flag = 1;
  ck_assert (pc_interrupted ());
  pc_interrupt_flag (NULL);
  ck_assert (!pc_interrupted ());
}
END_TEST

START_TEST (test_parse_uint)
{
  static const char *const bad[] = { "", "-1", "+1", " 1", "1 ", "1x", "0x10", "11" };
  unsigned long v = 7;

  ck_assert_int_eq (pc_parse_uint ("0", 10, &v), 0);
  ck_assert_uint_eq (v, 0);
  ck_assert_int_eq (pc_parse_uint ("10", 10, &v), 0);
  ck_assert_uint_eq (v, 10);
  ck_assert_int_eq (pc_parse_uint ("007", 10, &v), 0);
  ck_assert_uint_eq (v, 7);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg (pc_parse_uint (bad[i], 10, &v) == -EINVAL, "'%s'", bad[i]);
  ck_assert_int_eq (pc_parse_uint ("18446744073709551616", ~0ul, &v), -EINVAL);
  ck_assert_int_eq (pc_parse_uint ("18446744073709551615", ~0ul, &v), 0);
}
END_TEST

START_TEST (test_shards)
{
  static const char *const bad[] = { "1", "1/1", "2/1", "/2", "1/", "a/2", "0/0", "-1/2",
                                     "0/1048577", "1 /2" };
  unsigned i = 9, n = 9;

  ck_assert_int_eq (pc_parse_shard ("0/1", &i, &n), 0);
  ck_assert (i == 0 && n == 1);
  ck_assert_int_eq (pc_parse_shard ("3/4", &i, &n), 0);
  ck_assert (i == 3 && n == 4);
  ck_assert_int_eq (pc_parse_shard ("0/1048576", &i, &n), 0);
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    ck_assert_msg (pc_parse_shard (bad[k], &i, &n) == -EINVAL, "'%s'", bad[k]);

  /* from the environment: Slurm's array, from its first id, else an
   * indexed job's */
  unsetenv ("SLURM_ARRAY_TASK_ID");
  unsetenv ("SLURM_ARRAY_TASK_COUNT");
  unsetenv ("SLURM_ARRAY_TASK_MIN");
  unsetenv ("JOB_COMPLETION_INDEX");
  unsetenv ("POWERCUT_SHARDS");
  ck_assert_int_eq (pc_env_shard (&i, &n), 0);
  setenv ("JOB_COMPLETION_INDEX", "2", 1);
  ck_assert_int_eq (pc_env_shard (&i, &n), 0);
  setenv ("POWERCUT_SHARDS", "3", 1);
  ck_assert_int_eq (pc_env_shard (&i, &n), 1);
  ck_assert (i == 2 && n == 3);
  setenv ("POWERCUT_SHARDS", "2", 1);
  ck_assert_int_eq (pc_env_shard (&i, &n), -EINVAL);
  setenv ("SLURM_ARRAY_TASK_ID", "5", 1);
  setenv ("SLURM_ARRAY_TASK_COUNT", "4", 1);
  ck_assert_int_eq (pc_env_shard (&i, &n), -EINVAL);
  setenv ("SLURM_ARRAY_TASK_MIN", "2", 1);
  ck_assert_int_eq (pc_env_shard (&i, &n), 1);
  ck_assert (i == 3 && n == 4);
  setenv ("SLURM_ARRAY_TASK_MIN", "6", 1);
  ck_assert_int_eq (pc_env_shard (&i, &n), -EINVAL);
  setenv ("SLURM_ARRAY_TASK_MIN", "x", 1);
  ck_assert_int_eq (pc_env_shard (&i, &n), -EINVAL);
}
END_TEST

/* Reads fd to its end into buf (NUL-terminated). */
static void
read_to_end (int fd, char *buf, size_t len)
{
  size_t n = 0;
  ssize_t r;

  while (n + 1 < len && (r = read (fd, buf + n, len - 1 - n)) > 0)
    n += (size_t) r;
  buf[n] = '\0';
}

/* What the relay is given goes to the socket, and what the socket sends
 * comes out; the end of its input ends the socket's sending side. */
START_TEST (test_relay)
{
  char dir[] = "/tmp/check_util.XXXXXX", sock[64], got[128];
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  struct pc_err err = { "" };
  int lfd, cfd, in[2], out[2], st;
  pid_t pid;

  ck_assert_ptr_nonnull (mkdtemp (dir));
  snprintf (sock, sizeof sock, "%s/s", dir);
  strcpy (sun.sun_path, sock);
  lfd = socket (AF_UNIX, SOCK_STREAM, 0);
  ck_assert_int_eq (bind (lfd, (struct sockaddr *) &sun, sizeof sun), 0);
  ck_assert_int_eq (listen (lfd, 1), 0);
  ck_assert_int_eq (pipe (in), 0);
  ck_assert_int_eq (pipe (out), 0);
  pid = fork ();
  ck_assert_int_ge (pid, 0);
  if (pid == 0) {
    close (in[1]);
    close (out[0]);
    _exit (pc_relay_unix (sock, in[0], out[1], NULL) == 0 ? 0 : 1);
  }
  close (in[0]);
  close (out[1]);
  cfd = accept (lfd, NULL, NULL);
  ck_assert_int_ge (cfd, 0);
  ck_assert_int_eq (write (in[1], "hello", 5), 5);
  close (in[1]);
  read_to_end (cfd, got, sizeof got);
  ck_assert_str_eq (got, "hello");
  ck_assert_int_eq (write (cfd, "world", 5), 5);
  close (cfd);
  read_to_end (out[0], got, sizeof got);
  ck_assert_str_eq (got, "world");
  close (out[0]);
  ck_assert_int_eq (waitpid (pid, &st, 0), pid);
  ck_assert (WIFEXITED (st) && WEXITSTATUS (st) == 0);
  close (lfd);
  unlink (sock);
  /* no one there */
  ck_assert_int_eq (pc_relay_unix (sock, 0, 1, &err), -ENOENT);
  snprintf (got, sizeof got, "%s: No such file or directory", sock);
  ck_assert_str_eq (err.msg, got);
  rmdir (dir);
  ck_assert_int_eq (pc_relay_unix ("/tmp/a-path-longer-than-a-unix-socket-path-can-be-"
                                   "0123456789012345678901234567890123456789012345678901234567890123456789",
                                   0, 1, &err), -ENAMETOOLONG);
  ck_assert_msg (strstr (err.msg, ": path too long") != NULL, "%s", err.msg);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("util");
  TCase *tc = tcase_create ("core");

  tcase_add_test (tc, test_sizes);
  tcase_add_test (tc, test_bad_sizes);
  tcase_add_test (tc, test_byte_order);
  tcase_add_test (tc, test_host_port);
  tcase_add_test (tc, test_ctl_wire);
  tcase_add_test (tc, test_err);
  tcase_add_test (tc, test_parse_uint);
  tcase_add_test (tc, test_shards);
  tcase_add_test (tc, test_relay);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
