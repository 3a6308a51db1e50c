/* check_serve.c: unit tests of lib/record/serve and the control client's
 * stop: a recorder started in a child process serves once the call
 * returns (its pid file written, its control socket answering), stops on
 * a stop request leaving a log with an end record, and one that cannot
 * start says why and leaves no child behind; the control socket that goes
 * with an NBD socket. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/control.h"
#include "format/logsum.h"
#include "record/serve.h"
#include "unit.h"

static char dir[64];
static char logp[128], sock[128], ctl[128], pidf[128];

static void
setup (void)
{
  strcpy (dir, "/tmp/check_serve.XXXXXX");
  ck_assert_ptr_nonnull (mkdtemp (dir));
  snprintf (logp, sizeof logp, "%s/r.pclog", dir);
  snprintf (sock, sizeof sock, "%s/nbd.sock", dir);
  snprintf (ctl, sizeof ctl, "%s/ctl.sock", dir);
  snprintf (pidf, sizeof pidf, "%s/rec.pid", dir);
}

static void
teardown (void)
{
  unlink (logp);
  unlink (pidf);
  unlink (sock);
  unlink (ctl);
  rmdir (dir);
}

START_TEST (test_spawn_and_stop)
{
  struct pc_recorder_config cfg = { .log_path = logp, .size = 1 << 20, .socket_path = sock,
                                    .control_path = ctl };
  struct pc_err err = { "" };
  struct pc_log_summary s;
  char buf[32] = "";
  pid_t pid = 0;
  int st = -1;
  FILE *f;

  ck_assert_msg (pc_recorder_spawn (&cfg, pidf, &pid, &err) == 0, "%s", err.msg);
  ck_assert_int_gt (pid, 0);
  /* it serves: its pid file says so, its sockets are there, it answers */
  f = fopen (pidf, "re");
  ck_assert_ptr_nonnull (f);
  ck_assert_ptr_nonnull (fgets (buf, sizeof buf, f));
  fclose (f);
  ck_assert_int_eq (atol (buf), pid);
  ck_assert_int_eq (access (sock, F_OK), 0);
  ck_assert_int_eq (waitpid (pid, &st, WNOHANG), 0);
  /* stopped, it ends its log, lets go of its sockets and exits 0 */
  ck_assert_msg (pc_control_stop (ctl, 30000, 10000, &err) == 0, "%s", err.msg);
  ck_assert_int_eq (access (ctl, F_OK), -1);
  ck_assert_int_eq (waitpid (pid, &st, 0), pid);
  ck_assert (WIFEXITED (st) && WEXITSTATUS (st) == 0);
  ck_assert_int_eq (access (pidf, F_OK), -1);
  ck_assert_int_eq (pc_log_summarize (logp, &s, &err), 0);
  ck_assert_int_eq (s.ending.end, PC_END_CLEAN);
  ck_assert_uint_eq (s.count[PC_REC_END], 1);
  pc_log_summary_free (&s);
  /* stopping again: no one is there */
  ck_assert_int_lt (pc_control_stop (ctl, 1000, 0, &err), 0);
  ck_assert_msg (strncmp (err.msg, ctl, strlen (ctl)) == 0, "%s", err.msg);
}
END_TEST

START_TEST (test_spawn_fails)
{
  struct pc_recorder_config cfg = { .log_path = logp, .size = 1 << 20, .socket_path = sock,
                                    .control_path = ctl };
  struct pc_err err = { "" };
  pid_t pid = 0;
  FILE *f = fopen (logp, "we");

  /* a log there already, and no --force */
  ck_assert_ptr_nonnull (f);
  fclose (f);
  ck_assert_int_eq (pc_recorder_spawn (&cfg, pidf, &pid, &err), -EEXIST);
  ck_assert_msg (strstr (err.msg, logp) != NULL && strstr (err.msg, "--force") != NULL,
                 "%s", err.msg);
  ck_assert_int_eq (pid, 0);
  /* nothing left: no child, no socket, no pid file */
  ck_assert_int_eq (waitpid (-1, NULL, WNOHANG), -1);
  ck_assert_int_eq (errno, ECHILD);
  ck_assert_int_eq (access (sock, F_OK), -1);
  ck_assert_int_eq (access (pidf, F_OK), -1);
  /* the pid file cannot be written: said, and nothing left either */
  cfg.force = true;
  ck_assert_int_eq (pc_recorder_spawn (&cfg, "/nonexistent/x.pid", &pid, &err), -ENOENT);
  ck_assert_str_eq (err.msg, "/nonexistent/x.pid: No such file or directory");
  ck_assert_int_eq (waitpid (-1, NULL, WNOHANG), -1);
  ck_assert_int_eq (access (sock, F_OK), -1);
}
END_TEST

START_TEST (test_control_for)
{
  static const struct { const char *sock, *want; } cases[] = {
    { NULL, "powercut.ctl" }, { "powercut.sock", "powercut.ctl" },
    { "/run/a.sock", "/run/a.ctl" }, { "/run/a", "/run/a.ctl" }, { "x.sock", "x.ctl" },
    { ".sock", ".sock.ctl" }, { "a.socket", "a.socket.ctl" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *c = pc_recorder_control_for (cases[i].sock, "powercut.sock", "powercut.ctl");
    ck_assert_ptr_nonnull (c);
    ck_assert_str_eq (c, cases[i].want);
    free (c);
  }
}
END_TEST

int
main (void)
{
  Suite *su = suite_create ("serve");
  TCase *tc = tcase_create ("serve");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_spawn_and_stop);
  tcase_add_test (tc, test_spawn_fails);
  tcase_add_test (tc, test_control_for);
  suite_add_tcase (su, tc);
  return pc_unit_run (su);
}
