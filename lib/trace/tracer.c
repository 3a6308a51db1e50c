/* tracer.c: running a program under ptrace and seccomp, following its
 * processes and threads, and handing each stop to the decoder. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace/traceint.h"

#define OPTIONS (PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
                 PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD | \
                 PTRACE_O_EXITKILL)

/* What the child says when it cannot run the program. */
struct child_fault {
  int stage;                /* 1: chdir, 2: the filter, 3: exec */
  int errnum;
};

static struct pc_task *
task_find (struct pc_tracer *tr, pid_t tid)
{
  for (size_t i = 0; i < tr->ntasks; i++)
    if (tr->tasks[i].tid == tid)
      return &tr->tasks[i];
  return NULL;
}

/* Adds a task; pointers to tasks are valid until the next add or remove. */
static struct pc_task *
task_add (struct pc_tracer *tr, pid_t tid, pid_t tgid)
{
  struct pc_task *t;

  if (tr->ntasks == tr->taskcap) {
    size_t ncap = tr->taskcap ? 2 * tr->taskcap : 16;
    struct pc_task *n = realloc (tr->tasks, ncap * sizeof *n);
    if (n == NULL)
      return NULL;
    tr->tasks = n;
    tr->taskcap = ncap;
  }
  t = &tr->tasks[tr->ntasks++];
  memset (t, 0, sizeof *t);
  t->tid = tid;
  t->tgid = tgid;
  return t;
}

static void
task_remove (struct pc_tracer *tr, struct pc_task *t)
{
  if (t->call && t->call->file >= 0)
    close (t->call->file);
  free (t->call);
  *t = tr->tasks[--tr->ntasks];
}

static bool
tgid_alive (struct pc_tracer *tr, pid_t tgid)
{
  for (size_t i = 0; i < tr->ntasks; i++)
    if (tr->tasks[i].tgid == tgid)
      return true;
  return false;
}

/* Stops the program: every traced thread is killed (and reaped by the
 * loop). */
static void
kill_all (struct pc_tracer *tr)
{
  for (size_t i = 0; i < tr->ntasks; i++)
    kill (tr->tasks[i].tid, SIGKILL);
}

/* Keeps the first reason to stop; from then on no event is told. */
static void
stop (struct pc_tracer *tr, int r)
{
  if (r < 0 && tr->stop == 0) {
    tr->stop = r;
    kill_all (tr);
  }
}

static int on_stop (struct pc_tracer *tr, struct pc_task *t, int status, int *inject);

/* A held task goes on from the stop it was held at. */
static int
release (struct pc_tracer *tr, struct pc_task *t)
{
  int how, inject;

  t->held = false;
  how = on_stop (tr, t, t->held_status, &inject);
  if (ptrace ((enum __ptrace_request) how, t->tid, 0, (void *) (long) inject) < 0 &&
      errno != ESRCH)
    return -errno;
  return 0;
}

/* A held task died before the event that made it was told: that event,
 * when it comes, adds nothing. */
static void
early_note (struct pc_tracer *tr, pid_t tid)
{
  if (tr->nearly == tr->earlycap) {
    size_t ncap = tr->earlycap ? 2 * tr->earlycap : 8;
    pid_t *n = realloc (tr->early, ncap * sizeof *n);
    if (n == NULL) {
      stop (tr, -ENOMEM);
      return;
    }
    tr->early = n;
    tr->earlycap = ncap;
  }
  tr->early[tr->nearly++] = tid;
}

static bool
early_take (struct pc_tracer *tr, pid_t tid)
{
  for (size_t i = 0; i < tr->nearly; i++)
    if (tr->early[i] == tid) {
      tr->early[i] = tr->early[--tr->nearly];
      return true;
    }
  return false;
}

/* A thread is gone: its call, if any, ends unknown, and with the last
 * thread of a process its mappings are reported unmapped, and what it
 * made and held goes on. */
static void
task_gone (struct pc_tracer *tr, struct pc_task *t)
{
  pid_t tgid = t->tgid;

  if (t->held)
    early_note (tr, t->tid);
  if (t->in_call && tr->stop == 0)
    stop (tr, pc_trace_exit (tr, t, 0, true));
  t->in_call = false;
  task_remove (tr, t);
  if (tgid_alive (tr, tgid))
    return;
  if (tr->stop == 0)
    stop (tr, pc_trace_proc_end (tr, tgid, false));
  /* what it made and never told of goes on without that event */
  for (size_t i = 0; i < tr->ntasks; i++)
    if (tr->tasks[i].held && tr->tasks[i].held_parent == tgid) {
      int r = release (tr, &tr->tasks[i]);
      if (r < 0)
        stop (tr, r);
    }
}

/* One stop of a traced thread; returns how to resume it. */
static int
on_stop (struct pc_tracer *tr, struct pc_task *t, int status, int *inject)
{
  int sig = WSTOPSIG (status), event = (unsigned) status >> 16;
  int resume = t->in_call ? PTRACE_SYSCALL : PTRACE_CONT;
  struct __ptrace_syscall_info info;
  unsigned long msg = 0;
  pid_t pid = t->tid;

  *inject = 0;
  if (sig == (SIGTRAP | 0x80)) {
    /* the syscall-exit stop of a call whose entry was told */
    if (t->in_call) {
      if (ptrace (PTRACE_GET_SYSCALL_INFO, pid, sizeof info, &info) > 0 &&
          info.op == PTRACE_SYSCALL_INFO_EXIT)
        stop (tr, pc_trace_exit (tr, t, info.exit.rval, false));
      else
        stop (tr, pc_trace_exit (tr, t, 0, true));
    }
    return PTRACE_CONT;
  }
  switch (event) {
  case PTRACE_EVENT_SECCOMP:
    if (tr->stop == 0 &&
        ptrace (PTRACE_GET_SYSCALL_INFO, pid, sizeof info, &info) > 0 &&
        info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
      int r = pc_trace_entry (tr, t, info.arch, (long) info.seccomp.nr, info.seccomp.args);
      stop (tr, r);
      return r == 1 ? PTRACE_SYSCALL : PTRACE_CONT;
    }
    return PTRACE_CONT;
  case PTRACE_EVENT_FORK:
  case PTRACE_EVENT_VFORK:
  case PTRACE_EVENT_CLONE: {
    pid_t parent = t->tgid, child;
    struct pc_task *n;
    int r;
    if (ptrace (PTRACE_GETEVENTMSG, pid, 0, &msg) < 0)
      return resume;
    child = (pid_t) msg;
    n = task_find (tr, child);
    if (n == NULL && early_take (tr, child))
      return resume;     /* it has come and gone already */
    if (n == NULL)
      n = task_add (tr, child, event == PTRACE_EVENT_CLONE ? pc_tgid_of (child) : child);
    if (n == NULL)
      stop (tr, -ENOMEM);
    else {
      if (n->tgid != parent && tr->stop == 0)
        stop (tr, pc_trace_proc_fork (tr, parent, n->tgid));
      if (n->held && (r = release (tr, n)) < 0)
        stop (tr, r);
    }
    return resume;       /* t may have moved: the caller resumes by pid */
  }
  case PTRACE_EVENT_EXEC:
    /* A thread other than the leader that execs takes the leader's id;
     * the leader (t here) and the thread's old id are gone. */
    if (ptrace (PTRACE_GETEVENTMSG, pid, 0, &msg) == 0 && (pid_t) msg != pid) {
      struct pc_task *old = task_find (tr, (pid_t) msg);
      if (t->in_call && tr->stop == 0)
        stop (tr, pc_trace_exit (tr, t, 0, true));
      t->in_call = false;
      if (old) {
        t->told_badarch = old->told_badarch;
        task_remove (tr, old);
        t = task_find (tr, pid);
      }
    }
    if (tr->stop == 0)
      stop (tr, pc_trace_proc_end (tr, pid, true));
    return PTRACE_CONT;
  case PTRACE_EVENT_STOP:
    /* a group-stop (the program was stopped), or a new thread's first
     * stop */
    if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
      return PTRACE_LISTEN;
    return resume;
  case 0:
    *inject = sig;          /* a signal on its way: let it through */
    return resume;
  default:
    return resume;
  }
}

/* The first process has ended: what it left running is named and
 * killed (the loop reaps it). */
static void
leftovers (struct pc_tracer *tr)
{
  const struct pc_tracer_opts *o = tr->opts;
  size_t at = 0, n = 0;

  for (size_t i = 0; i < tr->ntasks; i++) {
    char path[64], name[32] = "?";
    FILE *f;
    bool seen = false;
    for (size_t k = 0; k < i && !seen; k++)
      seen = tr->tasks[k].tgid == tr->tasks[i].tgid;
    if (seen)
      continue;
    snprintf (path, sizeof path, "/proc/%d/comm", (int) tr->tasks[i].tgid);
    if ((f = fopen (path, "re")) != NULL) {
      if (fgets (name, sizeof name, f) == NULL)
        snprintf (name, sizeof name, "?");
      name[strcspn (name, "\n")] = '\0';
      fclose (f);
    }
    if (o->left && at < o->left_len && n < 8)
      at += (size_t) snprintf (o->left + at, o->left_len - at, "%s%d (%s)", n ? ", " : "",
                               (int) tr->tasks[i].tgid, name);
    n++;
  }
  if (o->left && n > 8 && at < o->left_len)
    snprintf (o->left + at, o->left_len - at, " and %zu more", n - 8);
  kill_all (tr);
}

/* Follows every traced thread until none is left; *ret_status gets the
 * first process's status. */
static int
trace_loop (struct pc_tracer *tr, int *ret_status, struct pc_err *err)
{
  while (tr->ntasks > 0) {
    struct pc_task *t;
    int status, how, inject;
    pid_t pid = waitpid (-1, &status, __WALL | __WNOTHREAD);

    if (pid < 0) {
      if (errno == EINTR) {
        if (pc_interrupted ())
          stop (tr, -EINTR);
        continue;
      }
      if (errno == ECHILD)
        break;
      return pc_err_set (err, errno, "waiting for the traced program: %s", strerror (errno));
    }
    if (pc_interrupted ())
      stop (tr, -EINTR);
    t = task_find (tr, pid);
    if (WIFEXITED (status) || WIFSIGNALED (status)) {
      if (t)
        task_gone (tr, t);
      if (pid == tr->child) {
        *ret_status = WIFEXITED (status) ? WEXITSTATUS (status) : 256 + WTERMSIG (status);
        leftovers (tr);
      }
      continue;
    }
    if (!WIFSTOPPED (status))
      continue;
    if (t == NULL) {
      /* A new thread or process, stopped before its parent's fork, vfork
       * or clone event was reported: held until it is, so that event (the
       * parent's mappings copied) comes before anything it does. */
      pid_t tgid = pc_tgid_of (pid), parent = tgid != pid ? tgid : pc_ppid_of (pid);
      bool hold = tr->stop == 0 && parent > 0 && tgid_alive (tr, parent);
      if ((t = task_add (tr, pid, tgid)) == NULL) {
        stop (tr, -ENOMEM);
        ptrace (PTRACE_CONT, pid, 0, 0);
        continue;
      }
      if (hold) {
        t->held = true;
        t->held_status = status;
        t->held_parent = parent;
        continue;
      }
    }
    how = on_stop (tr, t, status, &inject);
    /* ESRCH: it died meanwhile (killed); its end is reported next. */
    if (ptrace ((enum __ptrace_request) how, pid, 0, (void *) (long) inject) < 0 &&
        errno != ESRCH)
      return pc_err_set (err, errno, "ptrace: resuming %d: %s", (int) pid, strerror (errno));
  }
  return 0;
}

static void
child_fail (int pipe_fd, int stage, int errnum)
{
  struct child_fault f = { stage, errnum };
  ssize_t n = write (pipe_fd, &f, sizeof f);

  (void) n;
  _exit (127);
}

/* LeakSanitizer stops the world with ptrace at exit, which a traced
 * program cannot: one built with it (powercut itself, in a sanitizer
 * build) dies instead.  The programs the tracer runs check no leaks. */
static void
no_leak_check (void)
{
  static const char *const vars[] = { "ASAN_OPTIONS", "LSAN_OPTIONS" };

  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *old = getenv (vars[i]);
    char *v = NULL;
    if (asprintf (&v, "%s%sdetect_leaks=0", old ? old : "", old && *old ? ":" : "") > 0)
      setenv (vars[i], v, 1);
    free (v);
  }
}

/* The child: stops until the tracer holds it, loads the filter, runs the
 * program. */
static void
child_run (char *const argv[], const char *cwd, void *filter, int pipe_fd, int out_fd)
{
  sigset_t none;
  int r;

  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  if (out_fd >= 0 && dup2 (out_fd, 1) < 0)
    child_fail (pipe_fd, 3, errno);
  if (cwd && chdir (cwd) < 0)
    child_fail (pipe_fd, 1, errno);
  no_leak_check ();
  raise (SIGSTOP);
  r = seccomp_load (filter);
  if (r < 0)
    child_fail (pipe_fd, 2, -r);
  execvp (argv[0], argv);
  child_fail (pipe_fd, 3, errno);
}

static void
tracer_free (struct pc_tracer *tr)
{
  while (tr->ntasks > 0)
    task_remove (tr, &tr->tasks[0]);
  free (tr->tasks);
  free (tr->early);
  pc_trace_procs_free (tr);
  free (tr->hashes);
  free (tr->blocks);
  pc_acks_free (tr->acks);
  tr->acks = NULL;
}

int
pc_tracer_run (char *const argv[], const struct pc_tracer_opts *opts, struct pc_err *err)
{
  struct pc_tracer tr;
  struct child_fault fault;
  void *filter;
  int fds[2], status = -1, st, r;
  pid_t pid;

#if !PC_TRACE_ARCH
  return pc_err_set (err, ENOTSUP, "tracing a program: only on x86-64, where the "
                     "system calls it decodes are numbered as it knows");
#endif
  if (argv == NULL || argv[0] == NULL || opts == NULL || opts->on_call == NULL)
    return pc_err_set (err, EINVAL, "tracing a program: no program or no callback");
  memset (&tr, 0, sizeof tr);
  tr.opts = opts;
  if (opts->left && opts->left_len)
    opts->left[0] = '\0';
  filter = pc_trace_filter (err);
  if (filter == NULL)
    return -ENOMEM;
  if (opts->acks && (r = pc_acks_new (&tr.acks)) < 0) {
    seccomp_release (filter);
    return pc_err_set (err, -r, "pipe: %s", strerror (-r));
  }
  if (pipe2 (fds, O_CLOEXEC) < 0) {
    r = -errno;
    seccomp_release (filter);
    pc_acks_free (tr.acks);
    return pc_err_set (err, -r, "pipe: %s", strerror (-r));
  }
  pid = fork ();
  if (pid < 0) {
    r = -errno;
    seccomp_release (filter);
    close (fds[0]);
    close (fds[1]);
    pc_acks_free (tr.acks);
    return pc_err_set (err, -r, "fork: %s", strerror (-r));
  }
  if (pid == 0) {
    close (fds[0]);
    child_run (argv, opts->cwd, filter, fds[1], tr.acks ? pc_acks_child_fd (tr.acks) : -1);
  }
  close (fds[1]);
  seccomp_release (filter);
  tr.child = pid;
  if (tr.acks && (r = pc_acks_start (tr.acks)) < 0) {
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    close (fds[0]);
    tracer_free (&tr);
    return pc_err_set (err, -r, "tracing %s: reading its output: %s", argv[0], strerror (-r));
  }

  /* Hold it while it is stopped, then let it go on. */
  while ((r = waitpid (pid, &st, WUNTRACED)) < 0 && errno == EINTR)
    ;
  if (r < 0 || !WIFSTOPPED (st)) {
    r = -ECHILD;
    tracer_free (&tr);
    goto no_program;
  }
  if (ptrace (PTRACE_SEIZE, pid, 0, (void *) (long) OPTIONS) < 0) {
    r = -errno;
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    close (fds[0]);
    tracer_free (&tr);
    return pc_err_set (err, -r, "ptrace: cannot trace %s: %s", argv[0], strerror (-r));
  }
  if (task_add (&tr, pid, pid) == NULL) {
    kill (pid, SIGKILL);
    waitpid (pid, &st, __WALL);
    close (fds[0]);
    tracer_free (&tr);
    return pc_err_set (err, ENOMEM, "tracing %s: out of memory", argv[0]);
  }
  kill (pid, SIGCONT);
  r = trace_loop (&tr, &status, err);
  if (tr.acks) {
    /* what the program printed last, without a newline too */
    pc_acks_stop (tr.acks);
    if (r == 0)
      stop (&tr, pc_trace_acks (&tr, pid, pid, true));
  }
  if (r < 0) {
    kill_all (&tr);
    while (waitpid (-1, &st, __WALL | __WNOTHREAD) > 0 || errno == EINTR)
      ;
    tracer_free (&tr);
    close (fds[0]);
    return r;
  }
  tracer_free (&tr);
  if (tr.stop < 0) {
    close (fds[0]);
    if (tr.stop == -EINTR)
      return pc_err_set (err, EINTR, "tracing %s: interrupted", argv[0]);
    return pc_err_set (err, -tr.stop, "tracing %s: the event callback stopped it: %s",
                       argv[0], strerror (-tr.stop));
  }
  r = 0;
no_program:
  /* Did the child say why it could not run the program? */
  if (read (fds[0], &fault, sizeof fault) == (ssize_t) sizeof fault) {
    static const char *const what[] = { "", "cannot enter its directory",
                                        "cannot load the seccomp filter", "cannot run it" };
    close (fds[0]);
    if (fault.stage == 1)
      return pc_err_set (err, fault.errnum, "%s: %s", opts->cwd, strerror (fault.errnum));
    return pc_err_set (err, fault.errnum, "%s: %s: %s", argv[0],
                       what[fault.stage >= 1 && fault.stage <= 3 ? fault.stage : 3],
                       strerror (fault.errnum));
  }
  close (fds[0]);
  if (r < 0 || status < 0)
    return pc_err_set (err, ECHILD, "tracing %s: its end was not seen", argv[0]);
  return status;
}
