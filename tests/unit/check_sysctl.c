/* check_sysctl.c: unit tests of lib/sysctl's host-wide record of the
 * writeback knobs runs set: taking, sharing, waiting, letting go, and
 * dropping holders that died, on a record and a knob tree of a temporary
 * directory (never the machine's /run or /proc/sys). */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/proc.h"
#include "run/sysctl.h"
#include "unit.h"
#include "util/err.h"

#define EXPIRE "vm.dirty_expire_centisecs"
#define WB "vm.dirty_writeback_centisecs"

static char top[64], proc[128], dir[128], recp[160];
static struct pc_sysctl_host host;
static struct pc_err why;

static void
put (const char *path, const char *text)
{
  FILE *f = fopen (path, "w");

  ck_assert_msg (f != NULL, "%s: %s", path, strerror (errno));
  fputs (text, f);
  ck_assert_int_eq (fclose (f), 0);
}

/* The knob name's value in the test's tree. */
static const char *
knob (const char *name)
{
  static char buf[64];
  char path[256];
  FILE *f;

  snprintf (path, sizeof path, "%s/vm/%s", proc, name + 3);
  f = fopen (path, "r");
  ck_assert_msg (f != NULL, "%s: %s", path, strerror (errno));
  ck_assert (fgets (buf, sizeof buf, f) != NULL);
  fclose (f);
  buf[strcspn (buf, "\n")] = '\0';
  return buf;
}

static bool
record_exists (void)
{
  return access (recp, F_OK) == 0;
}

/* This process's start time (/proc/self/stat field 22). */
static unsigned long long
self_start (void)
{
  char buf[1024], *p;
  FILE *f = fopen ("/proc/self/stat", "r");
  unsigned long long start = 0;

  ck_assert (f != NULL);
  ck_assert (fgets (buf, sizeof buf, f) != NULL);
  fclose (f);
  p = strrchr (buf, ')');
  ck_assert (p != NULL);
  ck_assert_int_eq (sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
                            "%*d %*d %*d %*d %*d %*d %llu", &start), 1);
  return start;
}

static void
setup (void)
{
  char path[256];

  snprintf (top, sizeof top, "/tmp/check_sysctl.XXXXXX");
  ck_assert (mkdtemp (top) != NULL);
  snprintf (proc, sizeof proc, "%s/proc", top);
  snprintf (dir, sizeof dir, "%s/run/sysctl", top);
  snprintf (recp, sizeof recp, "%s/record", dir);
  snprintf (path, sizeof path, "%s/vm", proc);
  ck_assert_int_eq (mkdir (proc, 0755), 0);
  ck_assert_int_eq (mkdir (path, 0755), 0);
  snprintf (path, sizeof path, "%s/vm/dirty_expire_centisecs", proc);
  put (path, "3000\n");
  snprintf (path, sizeof path, "%s/vm/dirty_writeback_centisecs", proc);
  put (path, "500\n");
  host.dir = dir;
  host.proc = proc;
  pc_interrupt_flag (NULL);
}

static void
teardown (void)
{
  char cmd[128];

  snprintf (cmd, sizeof cmd, "rm -rf '%s'", top);
  if (system (cmd) != 0)
    fprintf (stderr, "%s: not removed\n", top);
}

static void
knobs (struct pc_sysctl *v, size_t n, const char *const *nv)
{
  for (size_t i = 0; i < n; i++)
    ck_assert_msg (pc_sysctl_parse (nv[i], &v[i], &why) == 0, "%s", why.msg);
}

/* A child that takes nv (exit 3 if it cannot), says so on a pipe, then
 * waits for a byte on another: 'r' lets go and exits 0, 'x' exits without
 * letting go (a run that was killed). */
struct child {
  pid_t pid;
  int go;
};

static struct child
holder (const char *nv0, const char *nv1)
{
  int ready[2], go[2];
  struct child c;
  char b;

  ck_assert_int_eq (pipe (ready), 0);
  ck_assert_int_eq (pipe (go), 0);
  c.pid = fork ();
  ck_assert_int_ge (c.pid, 0);
  if (c.pid == 0) {
    const char *nv[2] = { nv0, nv1 };
    struct pc_sysctl v[2];
    struct pc_sysctl_busy busy;
    size_t n = nv1 ? 2 : 1;
    close (ready[0]);
    close (go[1]);
    for (size_t i = 0; i < n; i++)
      if (pc_sysctl_parse (nv[i], &v[i], &why) < 0)
        _exit (3);
    if (pc_sysctl_take (v, n, &host, &busy, &why) != 0)
      _exit (3);
    if (write (ready[1], "y", 1) != 1 || read (go[0], &b, 1) != 1)
      _exit (4);
    if (b == 'x')
      _exit (0);
    _exit (pc_sysctl_release (v, n, &host, &why) == 0 ? 0 : 5);
  }
  close (ready[1]);
  close (go[0]);
  ck_assert_int_eq (read (ready[0], &b, 1), 1);
  close (ready[0]);
  c.go = go[1];
  return c;
}

/* Tells the child what to do and waits for it; returns its exit status. */
static int
finish (struct child *c, char what)
{
  int st;

  ck_assert_int_eq (write (c->go, &what, 1), 1);
  close (c->go);
  ck_assert_int_eq (waitpid (c->pid, &st, 0), c->pid);
  return WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st);
}

START_TEST (test_take_release)
{
  static const char *const nv[] = { EXPIRE "=100", WB "=50" };
  struct pc_sysctl v[2];
  struct pc_sysctl_busy busy;
  struct stat st;

  knobs (v, 2, nv);
  ck_assert_msg (pc_sysctl_take (v, 2, &host, &busy, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (knob (EXPIRE), "100");
  ck_assert_str_eq (knob (WB), "50");
  ck_assert_str_eq (v[0].old, "3000");
  ck_assert_str_eq (v[1].old, "500");
  ck_assert (v[0].set && v[1].set);
  /* the record is there, in a directory only its owner can enter */
  ck_assert (record_exists ());
  ck_assert_int_eq (stat (dir, &st), 0);
  ck_assert_int_eq (st.st_mode & 0777, 0700);
  ck_assert_msg (pc_sysctl_release (v, 2, &host, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (knob (EXPIRE), "3000");
  ck_assert_str_eq (knob (WB), "500");
  ck_assert (!v[0].set && !v[1].set);
  ck_assert (!record_exists ());
}
END_TEST

START_TEST (test_same_value_shared)
{
  static const char *const nv[] = { EXPIRE "=100" };
  struct pc_sysctl v[1];
  struct pc_sysctl_busy busy;
  struct child c = holder (EXPIRE "=100", NULL);

  knobs (v, 1, nv);
  ck_assert_msg (pc_sysctl_take (v, 1, &host, &busy, &why) == 0, "%s", why.msg);
  /* the machine's own value, not the other run's */
  ck_assert_str_eq (v[0].old, "3000");
  ck_assert_msg (pc_sysctl_release (v, 1, &host, &why) == 0, "%s", why.msg);
  /* the other run still holds it */
  ck_assert_str_eq (knob (EXPIRE), "100");
  ck_assert (record_exists ());
  /* the last one out puts it back */
  ck_assert_int_eq (finish (&c, 'r'), 0);
  ck_assert_str_eq (knob (EXPIRE), "3000");
  ck_assert (!record_exists ());
}
END_TEST

START_TEST (test_other_value_waits_all_or_none)
{
  static const char *const nv[] = { WB "=50", EXPIRE "=200" };
  struct pc_sysctl v[2];
  struct pc_sysctl_busy busy = { "", 0 };
  struct child c = holder (EXPIRE "=100", NULL);

  knobs (v, 2, nv);
  ck_assert_int_eq (pc_sysctl_take (v, 2, &host, &busy, &why), 1);
  ck_assert_str_eq (busy.name, EXPIRE);
  ck_assert_int_eq (busy.pid, c.pid);
  /* nothing taken: not even the knob no one held */
  ck_assert (!v[0].set && !v[1].set);
  ck_assert_str_eq (knob (EXPIRE), "100");
  ck_assert_str_eq (knob (WB), "500");
  /* once the holder let go, the knobs are free */
  ck_assert_int_eq (finish (&c, 'r'), 0);
  ck_assert_str_eq (knob (EXPIRE), "3000");
  ck_assert_msg (pc_sysctl_take (v, 2, &host, &busy, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (knob (EXPIRE), "200");
  ck_assert_str_eq (v[1].old, "3000");
  ck_assert_msg (pc_sysctl_release (v, 2, &host, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (knob (EXPIRE), "3000");
  ck_assert_str_eq (knob (WB), "500");
  ck_assert (!record_exists ());
}
END_TEST

/* A holder that died (a zombie not reaped yet, then gone) is dropped by
 * the next to take the lock, which puts back what only it held. */
START_TEST (test_dead_holder_dropped)
{
  static const char *const nv[] = { EXPIRE "=200" };
  struct pc_sysctl v[1];
  struct pc_sysctl_busy busy;
  char done[256];
  struct child c = holder (EXPIRE "=100", WB "=50");
  siginfo_t si;

  ck_assert_int_eq (write (c.go, "x", 1), 1);
  close (c.go);
  /* exited, not reaped: a zombie is no holder */
  ck_assert_int_eq (waitid (P_PID, (id_t) c.pid, &si, WEXITED | WNOWAIT), 0);
  knobs (v, 1, nv);
  ck_assert_msg (pc_sysctl_take (v, 1, &host, &busy, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (v[0].old, "3000");
  ck_assert_str_eq (knob (EXPIRE), "200");
  /* the knob only the dead one held is back already */
  ck_assert_str_eq (knob (WB), "500");
  ck_assert_int_eq (waitpid (c.pid, NULL, 0), c.pid);
  ck_assert_msg (pc_sysctl_release (v, 1, &host, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (knob (EXPIRE), "3000");
  ck_assert (!record_exists ());

  /* recover, with no one left: all back, and said */
  c = holder (EXPIRE "=100", WB "=50");
  ck_assert_int_eq (finish (&c, 'x'), 0);
  ck_assert_int_eq (pc_sysctl_recover (&host, done, sizeof done, &why), 2);
  ck_assert_str_eq (done, EXPIRE "=3000 " WB "=500");
  ck_assert_str_eq (knob (EXPIRE), "3000");
  ck_assert_str_eq (knob (WB), "500");
  ck_assert (!record_exists ());
  /* nothing more to do */
  ck_assert_int_eq (pc_sysctl_recover (&host, done, sizeof done, &why), 0);
}
END_TEST

/* A PID alone is not a holder: the start time must be the same. */
START_TEST (test_reused_pid)
{
  char text[512], done[256], path[256];

  ck_assert_int_eq (pc_sysctl_recover (&host, done, sizeof done, &why), 0);
  snprintf (path, sizeof path, "%s/vm/dirty_expire_centisecs", proc);
  put (path, "77\n");
  snprintf (text, sizeof text, "knob " EXPIRE " 3000 77\nhold " EXPIRE " %ld %llu\n",
            (long) getpid (), self_start () + 1);
  put (recp, text);
  ck_assert_int_eq (pc_sysctl_recover (&host, done, sizeof done, &why), 1);
  ck_assert_str_eq (knob (EXPIRE), "3000");
  ck_assert (!record_exists ());

  /* with this process's own start time, it is held: left alone */
  put (path, "77\n");
  snprintf (text, sizeof text, "knob " EXPIRE " 3000 77\nhold " EXPIRE " %ld %llu\n",
            (long) getpid (), self_start ());
  put (recp, text);
  ck_assert_int_eq (pc_sysctl_recover (&host, done, sizeof done, &why), 0);
  ck_assert_str_eq (knob (EXPIRE), "77");
  ck_assert (record_exists ());
}
END_TEST

static int waited;
static long waited_pid;

static void
on_wait (void *ctx, const char *name, long pid)
{
  ck_assert_ptr_eq (ctx, &waited);
  ck_assert_str_eq (name, EXPIRE);
  waited++;
  waited_pid = pid;
}

/* apply waits, saying so once, until the holder lets go. */
START_TEST (test_apply_waits)
{
  static const char *const nv[] = { EXPIRE "=200" };
  struct pc_sysctl v[1];
  struct child c = holder (EXPIRE "=100", NULL);
  pid_t timer;

  timer = fork ();
  ck_assert_int_ge (timer, 0);
  if (timer == 0) {
    usleep (700000);
    _exit (write (c.go, "r", 1) == 1 ? 0 : 1);
  }
  close (c.go);
  knobs (v, 1, nv);
  waited = 0;
  ck_assert_msg (pc_sysctl_apply (v, 1, &host, on_wait, &waited, &why) == 0, "%s", why.msg);
  ck_assert_int_eq (waited, 1);
  ck_assert_int_eq (waited_pid, c.pid);
  ck_assert_str_eq (knob (EXPIRE), "200");
  ck_assert_str_eq (v[0].old, "3000");
  ck_assert_int_eq (waitpid (timer, NULL, 0), timer);
  ck_assert_int_eq (waitpid (c.pid, NULL, 0), c.pid);
  ck_assert_msg (pc_sysctl_release (v, 1, &host, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (knob (EXPIRE), "3000");
}
END_TEST

START_TEST (test_apply_interrupted)
{
  static const char *const nv[] = { EXPIRE "=200" };
  static volatile sig_atomic_t stop = 1;
  struct pc_sysctl v[1];
  struct child c = holder (EXPIRE "=100", NULL);

  knobs (v, 1, nv);
  pc_interrupt_flag (&stop);
  ck_assert_int_eq (pc_sysctl_apply (v, 1, &host, NULL, NULL, &why), -EINTR);
  pc_interrupt_flag (NULL);
  ck_assert (!v[0].set);
  ck_assert_int_eq (finish (&c, 'r'), 0);
  ck_assert_str_eq (knob (EXPIRE), "3000");
}
END_TEST

START_TEST (test_twice_and_bad)
{
  static const char *const nv[] = { EXPIRE "=1", EXPIRE "=2" };
  static const char *const none[] = { "vm.dirty_nothing=1" };
  struct pc_sysctl v[2];
  struct pc_sysctl_busy busy;
  char done[64];

  /* a knob given twice ends with its last value */
  knobs (v, 2, nv);
  ck_assert_msg (pc_sysctl_take (v, 2, &host, &busy, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (knob (EXPIRE), "2");
  ck_assert_str_eq (v[0].old, "3000");
  ck_assert_str_eq (v[1].old, "3000");
  ck_assert_msg (pc_sysctl_release (v, 2, &host, &why) == 0, "%s", why.msg);
  ck_assert_str_eq (knob (EXPIRE), "3000");
  ck_assert (!record_exists ());

  /* a knob the kernel does not have: nothing taken */
  knobs (v, 1, none);
  ck_assert_int_eq (pc_sysctl_take (v, 1, &host, &busy, &why), -ENOENT);
  ck_assert_ptr_ne (strstr (why.msg, "vm.dirty_nothing"), NULL);
  ck_assert (!record_exists ());

  /* a record that is not one: named */
  put (recp, "knob vm.dirty_expire_centisecs /etc/passwd 1\n");
  ck_assert_int_eq (pc_sysctl_recover (&host, done, sizeof done, &why), -EINVAL);
  ck_assert_ptr_ne (strstr (why.msg, recp), NULL);
  unlink (recp);

  /* a directory others can write to is not trusted */
  ck_assert_int_eq (chmod (dir, 0777), 0);
  ck_assert_int_eq (pc_sysctl_recover (&host, done, sizeof done, &why), -EPERM);
  ck_assert_ptr_ne (strstr (why.msg, dir), NULL);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("sysctl");
  TCase *tc = tcase_create ("record");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_take_release);
  tcase_add_test (tc, test_same_value_shared);
  tcase_add_test (tc, test_other_value_waits_all_or_none);
  tcase_add_test (tc, test_dead_holder_dropped);
  tcase_add_test (tc, test_reused_pid);
  tcase_add_test (tc, test_apply_waits);
  tcase_add_test (tc, test_apply_interrupted);
  tcase_add_test (tc, test_twice_and_bad);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
