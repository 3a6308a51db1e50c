/* traced.c: a traced program's events, sent to a recording. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "format/acksel.h"
#include "format/control.h"
#include "format/event.h"
#include "run/traced.h"
#include "trace/tracer.h"
#include "util/util.h"

#define EVENT_TIMEOUT_MS 120000

struct sink {
  struct pc_traced *t;
  struct pc_control_conn *conn;
  int failed;                   /* the recorder's answer that stopped us */
  bool all;                     /* no root: every event */
  dev_t dev;                    /* the root's filesystem */
  char root[PATH_MAX];          /* its path, absolute, without a final '/' */
  size_t rootlen;
  struct pending { int32_t tid; bool ours; } *pend;   /* calls entered, by thread */
  size_t npend, cappend;
  struct pc_event ev;           /* the one being sent, its paths from the root */
};

static bool
under (const struct sink *s, const char *path)
{
  return strncmp (path, s->root, s->rootlen) == 0 &&
         (path[s->rootlen] == '/' || path[s->rootlen] == '\0');
}

/* Does ev concern the recorded filesystem? */
static bool
ours (const struct sink *s, const struct pc_event *ev)
{
  if (s->all || ev->op == PC_OP_SYNC || ev->op == PC_OP_UNTRACEABLE || ev->op == PC_OP_ACK)
    return true;
  if (ev->flags & PC_EVENT_F_IDENTITY)
    return ev->dev == (uint64_t) s->dev;
  return under (s, ev->path[0]) || under (s, ev->path[1]);
}

/* ours() for an entry event, remembered for its thread's exit event: the
 * two are logged or left out together, although the exit says more (an
 * open's entry names a path, its exit the file's identity). */
static bool
decide (struct sink *s, const struct pc_event *ev)
{
  size_t i;
  bool o;

  for (i = 0; i < s->npend && s->pend[i].tid != ev->tid; i++)
    ;
  if (ev->kind == PC_EVENT_EXIT && i < s->npend) {
    o = s->pend[i].ours;
    s->pend[i] = s->pend[--s->npend];
    return o;
  }
  o = ours (s, ev);
  if (ev->kind == PC_EVENT_ENTRY) {
    if (i == s->npend &&
        pc_grow (&s->pend, &s->cappend, s->npend + 1, sizeof *s->pend, 16) == 0)
      s->npend++;
    if (i < s->npend)
      s->pend[i] = (struct pending) { ev->tid, o };
  }
  return o;
}

/* A path under the root as seen from the recorded filesystem: the root's
 * own prefix off ("/mnt/a/b" -> "/a/b", "/mnt" -> "/"). */
static void
from_root (const struct sink *s, char *path)
{
  if (s->rootlen == 0 || !under (s, path))
    return;
  if (path[s->rootlen] == '\0')
    strcpy (path, "/");
  else
    memmove (path, path + s->rootlen, strlen (path + s->rootlen) + 1);
}

/* The call's text with the root's own prefix off every path in it, so that
 * it reads the same wherever the filesystem was mounted ("/mnt/a" is "/a",
 * "3</mnt>" is "3</>"). */
static void
text_from_root (const struct sink *s, char *text)
{
  char out[PC_EVENT_TEXT_MAX];
  size_t o = 0;

  for (const char *p = text; *p && o + 1 < sizeof out;) {
    if (strncmp (p, s->root, s->rootlen) == 0 &&
        (p[s->rootlen] == '/' || p[s->rootlen] == '>' || p[s->rootlen] == '"')) {
      p += s->rootlen;
      if (*p != '/')
        out[o++] = '/';
      continue;
    }
    out[o++] = *p++;
  }
  out[o] = '\0';
  memcpy (text, out, o + 1);
}

static int
send_event (const struct pc_event *orig, void *arg)
{
  struct sink *s = arg;
  struct pc_event *ev = &s->ev;
  uint8_t *buf;
  size_t len;
  int r;

  if (orig->op == PC_OP_ACK && !pc_acksel_match (s->t->acksel, orig->text))
    return 0;                   /* a line that acknowledges nothing (--acks) */
  if (!decide (s, orig)) {
    s->t->elsewhere++;
    return 0;
  }
  *ev = *orig;
  if (!s->all && s->rootlen > 0) {
    from_root (s, ev->path[0]);
    from_root (s, ev->path[1]);
    text_from_root (s, ev->text);
  }
  r = pc_event_encode (ev, &buf, &len);
  if (r < 0)
    return r;
  /* An entry waits for the recorder: the call's writes must come after it
   * in the log; so does an acknowledgement (what the program does next
   * comes after it).  An exit need not (nothing it tells is ordered
   * against the disk): its reply is read with the next entry's, or at the
   * end. */
  if (ev->kind == PC_EVENT_EXIT && ev->op != PC_OP_ACK)
    r = pc_control_send (s->conn, PC_CTL_EVENT, buf, len);
  else
    r = pc_control_request (s->conn, PC_CTL_EVENT, buf, len, EVENT_TIMEOUT_MS, NULL);
  free (buf);
  if (r < 0) {
    s->failed = r;
    return r;
  }
  s->t->events++;
  s->t->nacks += ev->op == PC_OP_ACK;
  return 0;
}

int
pc_traced_run (char *const argv[], struct pc_traced *t, struct pc_err *err)
{
  struct sink s = { .t = t, .all = t->root == NULL };
  struct pc_tracer_opts o = { send_event, &s, t->cwd, t->acks, t->left, sizeof t->left };
  struct stat st;
  int r;

  t->events = t->elsewhere = t->nacks = 0;
  if (t->root) {
    if (realpath (t->root, s.root) == NULL || stat (s.root, &st) < 0)
      return pc_err_set (err, errno, "%s: %s", t->root, strerror (errno));
    s.dev = st.st_dev;
    s.rootlen = strlen (s.root);
    if (s.rootlen == 1)
      s.rootlen = 0;            /* "/": every path is under it */
  }
  r = pc_control_open (t->control, &s.conn);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", t->control, pc_control_strerror (r));
  if (!t->all_cpus) {
    /* the program inherits it */
    cpu_set_t set;
    int cpu = sched_getcpu ();
    CPU_ZERO (&set);
    if (cpu >= 0) {
      CPU_SET (cpu, &set);
      sched_setaffinity (0, sizeof set, &set);
    }
  }
  r = pc_tracer_run (argv, &o, err);
  if (r >= 0 && !s.failed) {
    int c = pc_control_collect (s.conn, EVENT_TIMEOUT_MS);
    if (c < 0) {
      s.failed = c;
      r = c;
    }
  }
  {
    struct rusage ru;
    t->peak_kib = getrusage (RUSAGE_SELF, &ru) == 0 ? (uint64_t) ru.ru_maxrss : 0;
  }
  if (r < 0 && s.failed)
    pc_err_set (err, -s.failed, "%s: event %llu: %s (%s was stopped)", t->control,
                (unsigned long long) t->events + 1, pc_control_strerror (s.failed), argv[0]);
  pc_control_close (s.conn);
  free (s.pend);
  return r;
}
