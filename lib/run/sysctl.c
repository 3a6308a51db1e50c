/* sysctl.c: writeback knobs set for a run, shared with other runs through
 * a host-wide record, and put back. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/proc.h"
#include "run/sysctl.h"
#include "util/util.h"
#include "util/err.h"

#define MAX_KNOBS 32
#define MAX_HOLDS 256
#define POLL_MS 200

struct knob {
  char name[48], orig[32], value[32];
};

struct hold {
  char name[48];
  long pid;
  unsigned long long start;     /* /proc/PID/stat field 22 */
};

/* The record, as read under the lock. */
struct record {
  struct knob k[MAX_KNOBS];
  size_t nk;
  struct hold h[MAX_HOLDS];
  size_t nh;
  bool changed;                 /* to be written back */
};

/* The record's directory, locked. */
struct host {
  char dir[PATH_MAX];
  const char *proc;
  int lockfd;
};

/* /proc/sys/vm/dirty_expire_centisecs for vm.dirty_expire_centisecs. */
static void
knob_path (const char *proc, const char *name, char *buf, size_t len)
{
  size_t k = (size_t) snprintf (buf, len, "%s/", proc ? proc : "/proc/sys");

  for (const char *p = name; *p && k + 1 < len; p++)
    buf[k++] = *p == '.' ? '/' : *p;
  buf[k < len ? k : len - 1] = '\0';
}

int
pc_sysctl_parse (const char *s, struct pc_sysctl *ret, struct pc_err *why)
{
  const char *eq = strchr (s, '=');
  size_t nlen = eq ? (size_t) (eq - s) : 0;

  memset (ret, 0, sizeof *ret);
  if (eq == NULL || nlen == 0 || nlen >= sizeof ret->name || strncmp (s, "vm.dirty_", 9) != 0 ||
      nlen != strspn (s, "abcdefghijklmnopqrstuvwxyz_.")) {
    pc_err_msg (why, "%s: not vm.dirty_NAME=VALUE (only the writeback knobs can be set)", s);
    return -EINVAL;
  }
  if (eq[1] == '\0' || strlen (eq + 1) >= sizeof ret->value ||
      strspn (eq + 1, "0123456789") != strlen (eq + 1)) {
    pc_err_msg (why, "%s: the value is not a number", s);
    return -EINVAL;
  }
  memcpy (ret->name, s, nlen);
  snprintf (ret->value, sizeof ret->value, "%s", eq + 1);
  return 0;
}

static int
read_knob (const char *proc, const char *name, char *buf, size_t len)
{
  char path[PATH_MAX];
  int fd, r;
  ssize_t n;

  knob_path (proc, name, path, sizeof path);
  if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
    return -errno;
  n = read (fd, buf, len - 1);
  r = n < 0 ? -errno : 0;
  close (fd);
  if (r < 0)
    return r;
  buf[n] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  if (buf[0] == '\0' || strspn (buf, "0123456789") != strlen (buf))
    return -EINVAL;
  return 0;
}

static int
write_knob (const char *proc, const char *name, const char *value)
{
  char path[PATH_MAX];
  int fd, r;

  /* (O_TRUNC does nothing to /proc/sys, as with a shell's >; a test's
   * plain file needs it.) */
  knob_path (proc, name, path, sizeof path);
  if ((fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
    return -errno;
  r = pc_write_all (fd, value, strlen (value));
  if (close (fd) < 0 && r == 0)
    r = -errno;
  return r;
}

/* The state letter and the start time (field 22) of process pid.  Returns
 * 0, or -errno (-ENOENT: there is no such process). */
static int
proc_stat (long pid, char *state, unsigned long long *start)
{
  char path[64], buf[1024], *p, *tok, *save = NULL;
  ssize_t n;
  int fd, field = 3;

  if (pid <= 0)
    return -ENOENT;
  snprintf (path, sizeof path, "/proc/%ld/stat", pid);
  if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
    return -errno;
  n = read (fd, buf, sizeof buf - 1);
  if (n < 0) {
    int e = errno;
    close (fd);
    return e == ESRCH ? -ENOENT : -e;
  }
  close (fd);
  buf[n] = '\0';
  /* Field 2, the command name in parentheses, may hold blanks and ')'. */
  if ((p = strrchr (buf, ')')) == NULL)
    return -EIO;
  for (tok = strtok_r (p + 1, " ", &save); tok; tok = strtok_r (NULL, " ", &save), field++) {
    if (field == 3)
      *state = tok[0];
    if (field == 22) {
      *start = strtoull (tok, NULL, 10);
      return 0;
    }
  }
  return -EIO;
}

/* Is the holder still the process that registered (not dead, not a
 * zombie, not another process with its PID)?  When it cannot tell: yes. */
static bool
holder_alive (const struct hold *h)
{
  unsigned long long start;
  char state;
  int r = proc_stat (h->pid, &state, &start);

  if (r == -ENOENT || r == -ESRCH)
    return false;
  if (r < 0)
    return true;
  return state != 'Z' && state != 'X' && start == h->start;
}

static int
self_id (long *pid, unsigned long long *start, struct pc_err *why)
{
  char state;
  int r;

  *pid = (long) getpid ();
  r = proc_stat (*pid, &state, start);
  if (r < 0)
    pc_err_msg (why, "/proc/%ld/stat: %s", *pid, strerror (-r));
  return r;
}

/* Makes the directory (0700) and its parent if missing, checks that no one
 * else can write there, and takes the lock. */
static int
host_open (struct host *o, const struct pc_sysctl_host *h, struct pc_err *why)
{
  const char *dir = h && h->dir ? h->dir : PC_SYSCTL_DIR;
  char parent[PATH_MAX], lockp[PATH_MAX + 8], *slash;
  struct stat st;
  int fd, e;

  o->proc = h ? h->proc : NULL;
  o->lockfd = -1;
  if (strlen (dir) >= sizeof o->dir - 16) {
    pc_err_msg (why, "%s: too long a path", dir);
    return -ENAMETOOLONG;
  }
  snprintf (o->dir, sizeof o->dir, "%s", dir);
  snprintf (parent, sizeof parent, "%s", dir);
  slash = strrchr (parent, '/');
  if (slash && slash != parent) {
    *slash = '\0';
    if (mkdir (parent, 0700) < 0 && errno != EEXIST)
      goto sys;
  }
  if (mkdir (dir, 0700) < 0 && errno != EEXIST)
    goto sys;
  if (lstat (dir, &st) < 0)
    goto sys;
  if (!S_ISDIR (st.st_mode) || st.st_uid != geteuid () || (st.st_mode & 022)) {
    pc_err_msg (why, "%s: not a directory of this user's that only it can write", dir);
    return -EPERM;
  }
  snprintf (lockp, sizeof lockp, "%s/lock", dir);
  if ((fd = open (lockp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
    pc_err_msg (why, "%s: %s", lockp, strerror (errno));
    return -errno;
  }
  while (flock (fd, LOCK_EX) < 0)
    if (errno != EINTR) {
      e = errno;
      pc_err_msg (why, "%s: %s", lockp, strerror (e));
      close (fd);
      return -e;
    }
  o->lockfd = fd;
  return 0;

sys:
  e = errno;
  pc_err_msg (why, "%s: %s", dir, strerror (e));
  return -e;
}

/* Lets go of the lock. */
static void
host_close (struct host *o)
{
  if (o->lockfd >= 0)
    close (o->lockfd);
  o->lockfd = -1;
}

static struct knob *
find_knob (struct record *rec, const char *name)
{
  for (size_t i = 0; i < rec->nk; i++)
    if (strcmp (rec->k[i].name, name) == 0)
      return &rec->k[i];
  return NULL;
}

/* The first hold on name, or NULL. */
static const struct hold *
find_hold (const struct record *rec, const char *name)
{
  for (size_t i = 0; i < rec->nh; i++)
    if (strcmp (rec->h[i].name, name) == 0)
      return &rec->h[i];
  return NULL;
}

static bool
holds (const struct record *rec, const char *name, long pid, unsigned long long start)
{
  for (size_t i = 0; i < rec->nh; i++)
    if (strcmp (rec->h[i].name, name) == 0 && rec->h[i].pid == pid && rec->h[i].start == start)
      return true;
  return false;
}

static bool
number (const char *s)
{
  return s[0] && strspn (s, "0123456789") == strlen (s);
}

/* Reads DIR/record ("knob NAME ORIGINAL VALUE" and "hold NAME PID START"
 * lines); none is an empty record. */
static int
load (const struct host *o, struct record *rec, struct pc_err *why)
{
  char path[PATH_MAX + 16], line[256];
  unsigned lineno = 0;
  size_t j = 0;
  FILE *f;

  memset (rec, 0, sizeof *rec);
  snprintf (path, sizeof path, "%s/record", o->dir);
  if ((f = fopen (path, "re")) == NULL) {
    if (errno == ENOENT)
      return 0;
    pc_err_msg (why, "%s: %s", path, strerror (errno));
    return -errno;
  }
  while (fgets (line, sizeof line, f)) {
    char kind[8], name[48], a[32], b[32], nv[96];
    struct pc_sysctl v;
    lineno++;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    if (sscanf (line, "%7s %47s %31s %31s", kind, name, a, b) != 4 || !number (b))
      goto bad;
    snprintf (nv, sizeof nv, "%s=%s", name, a);
    if (pc_sysctl_parse (nv, &v, NULL) < 0)
      goto bad;
    if (strcmp (kind, "knob") == 0) {
      struct knob *k;
      if (rec->nk == MAX_KNOBS || find_knob (rec, name))
        goto bad;
      k = &rec->k[rec->nk++];
      snprintf (k->name, sizeof k->name, "%s", name);
      snprintf (k->orig, sizeof k->orig, "%s", a);
      snprintf (k->value, sizeof k->value, "%s", b);
    }
    else if (strcmp (kind, "hold") == 0) {
      struct hold *h;
      if (rec->nh == MAX_HOLDS)
        goto bad;
      h = &rec->h[rec->nh++];
      snprintf (h->name, sizeof h->name, "%s", name);
      h->pid = atol (a);
      h->start = strtoull (b, NULL, 10);
    }
    else
      goto bad;
  }
  fclose (f);
  /* A hold on a knob not recorded holds nothing. */
  for (size_t i = 0; i < rec->nh; i++)
    if (find_knob (rec, rec->h[i].name))
      rec->h[j++] = rec->h[i];
  rec->changed = j != rec->nh;
  rec->nh = j;
  return 0;

bad:
  fclose (f);
  pc_err_msg (why, "%s: line %u: not a knob or hold line (the file can be removed "
              "once the knobs are right)", path, lineno);
  return -EINVAL;
}

/* Writes the record durably: a temporary file, synced, renamed over it,
 * the directory synced; with no knob left, removes it.  Returns 0 or
 * -errno with why. */
static int
save (const struct host *o, const struct record *rec, struct pc_err *why)
{
  char path[PATH_MAX + 16], tmp[PATH_MAX + 16], *buf;
  size_t cap = 128 + rec->nk * 160 + rec->nh * 128, k = 0;
  int fd, r = 0;

  snprintf (path, sizeof path, "%s/record", o->dir);
  snprintf (tmp, sizeof tmp, "%s/record.tmp", o->dir);
  if (rec->nk == 0) {
    if (unlink (path) < 0 && errno != ENOENT) {
      pc_err_msg (why, "%s: %s", path, strerror (errno));
      return -errno;
    }
  }
  else {
    if ((buf = malloc (cap)) == NULL) {
      pc_err_msg (why, "%s: %s", path, strerror (ENOMEM));
      return -ENOMEM;
    }
    k += (size_t) snprintf (buf + k, cap - k, "# powercut: the writeback knobs runs set, "
                            "their original values and holders (sysctl.h)\n");
    for (size_t i = 0; i < rec->nk; i++)
      k += (size_t) snprintf (buf + k, cap - k, "knob %s %s %s\n", rec->k[i].name,
                              rec->k[i].orig, rec->k[i].value);
    for (size_t i = 0; i < rec->nh; i++)
      k += (size_t) snprintf (buf + k, cap - k, "hold %s %ld %llu\n", rec->h[i].name,
                              rec->h[i].pid, rec->h[i].start);
    fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
      r = -errno;
    else {
      r = pc_write_all (fd, buf, k);
      if (r == 0 && fsync (fd) < 0)
        r = -errno;
      if (close (fd) < 0 && r == 0)
        r = -errno;
      if (r == 0 && rename (tmp, path) < 0)
        r = -errno;
      if (r < 0)
        unlink (tmp);
    }
    free (buf);
    if (r < 0) {
      pc_err_msg (why, "%s: %s", path, strerror (-r));
      return r;
    }
  }
  if ((fd = open (o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fsync (fd) < 0)
    r = -errno;
  if (fd >= 0)
    close (fd);
  if (r < 0)
    pc_err_msg (why, "%s: %s", o->dir, strerror (-r));
  return r;
}

/* Drops the holds of processes that are gone, and puts back every knob no
 * hold is left on; what it put back is appended to done (if not NULL).
 * Returns how many, or -errno (the first failure) with why: a knob that
 * could not be put back stays. */
static int
settle (const struct host *o, struct record *rec, char *done, size_t donelen, struct pc_err *why)
{
  size_t j = 0, dl = done ? strlen (done) : 0;
  int n = 0, r = 0;

  for (size_t i = 0; i < rec->nh; i++)
    if (holder_alive (&rec->h[i]))
      rec->h[j++] = rec->h[i];
  if (j != rec->nh)
    rec->changed = true;
  rec->nh = j;
  j = 0;
  for (size_t i = 0; i < rec->nk; i++) {
    struct knob k = rec->k[i];
    int e;
    if (find_hold (rec, k.name)) {
      rec->k[j++] = k;
      continue;
    }
    e = write_knob (o->proc, k.name, k.orig);
    if (e < 0) {
      if (r == 0)
        pc_err_msg (why, "%s: cannot put back %s: %s", k.name, k.orig, strerror (-e));
      r = r ? r : e;
      rec->k[j++] = k;
      continue;
    }
    rec->changed = true;
    if (done && dl < donelen)
      dl += (size_t) snprintf (done + dl, donelen - dl, "%s%s=%s", dl ? " " : "", k.name, k.orig);
    n++;
  }
  rec->nk = j;
  return r < 0 ? r : n;
}

/* Writes the record back if it changed, and lets go of the lock; returns
 * r, or the failure to write if r was not one. */
static int
host_done (struct host *o, struct record *rec, int r, struct pc_err *why)
{
  if (rec->changed) {
    struct pc_err swhy;
    int e = save (o, rec, &swhy);
    if (e < 0 && r >= 0) {
      pc_err_msg (why, "%s", swhy.msg);
      r = e;
    }
  }
  host_close (o);
  return r;
}

/* Is v[i] given again later (where its last value is)? */
static bool
given_later (const struct pc_sysctl *v, size_t n, size_t i)
{
  for (size_t j = i + 1; j < n; j++)
    if (strcmp (v[j].name, v[i].name) == 0)
      return true;
  return false;
}

/* Opens the record, locked, and reads it into a new *ret; on failure
 * nothing stays open.  Returns 0 or -errno. */
static int
host_load (struct host *o, const struct pc_sysctl_host *h, struct record **ret,
           struct pc_err *why)
{
  struct record *rec = malloc (sizeof *rec);
  int r;

  if (rec == NULL) {
    pc_err_msg (why, "the knobs' record: %s", strerror (ENOMEM));
    return -ENOMEM;
  }
  if ((r = host_open (o, h, why)) < 0) {
    free (rec);
    return r;
  }
  if ((r = load (o, rec, why)) < 0) {
    host_close (o);
    free (rec);
    return r;
  }
  *ret = rec;
  return 0;
}

int
pc_sysctl_take (struct pc_sysctl *v, size_t n, const struct pc_sysctl_host *h,
                struct pc_sysctl_busy *busy, struct pc_err *why)
{
  struct host o;
  struct record *rec;
  unsigned long long start;
  size_t nk0, nh0;
  long pid;
  int r;

  for (size_t i = 0; i < n; i++)
    v[i].set = false;
  if (n == 0)
    return 0;
  if ((r = self_id (&pid, &start, why)) < 0 || (r = host_load (&o, h, &rec, why)) < 0)
    return r;
  if ((r = settle (&o, rec, NULL, 0, why)) < 0)
    goto out;

  /* A knob set to another value and held: wait, taking nothing. */
  for (size_t i = 0; i < n; i++) {
    const struct knob *k = find_knob (rec, v[i].name);
    const struct hold *ho;
    if (given_later (v, n, i) || k == NULL || strcmp (k->value, v[i].value) == 0)
      continue;
    ho = find_hold (rec, k->name);
    if (holds (rec, k->name, pid, start)) {
      pc_err_msg (why, "%s: this run holds it already, at %s", k->name, k->value);
      r = -EDEADLK;
      goto out;
    }
    snprintf (busy->name, sizeof busy->name, "%s", k->name);
    busy->pid = ho ? ho->pid : 0;
    r = 1;
    goto out;
  }

  /* New knobs: their original values.  Then this process holds them all. */
  nk0 = rec->nk;
  nh0 = rec->nh;
  for (size_t i = 0; i < n; i++) {
    struct knob *k = find_knob (rec, v[i].name);
    if (given_later (v, n, i))
      continue;
    if (k == NULL) {
      if (rec->nk == MAX_KNOBS) {
        r = -E2BIG;
        pc_err_msg (why, "%s: %s in the knobs' record", v[i].name, strerror (-r));
        goto undo;
      }
      k = &rec->k[rec->nk++];
      snprintf (k->name, sizeof k->name, "%s", v[i].name);
      snprintf (k->value, sizeof k->value, "%s", v[i].value);
      if ((r = read_knob (o.proc, k->name, k->orig, sizeof k->orig)) < 0) {
        pc_err_msg (why, "%s: %s", k->name, strerror (-r));
        goto undo;
      }
    }
    if (!holds (rec, k->name, pid, start)) {
      struct hold *ho;
      if (rec->nh == MAX_HOLDS) {
        r = -E2BIG;
        pc_err_msg (why, "%s: %s in the knobs' record", v[i].name, strerror (-r));
        goto undo;
      }
      ho = &rec->h[rec->nh++];
      snprintf (ho->name, sizeof ho->name, "%s", k->name);
      ho->pid = pid;
      ho->start = start;
    }
  }
  /* The record first, durably: whatever happens next, it says how to put
   * the knobs back. */
  if ((r = save (&o, rec, why)) < 0) {
    rec->nk = nk0;
    rec->nh = nh0;
    rec->changed = false;       /* (the file is as it was) */
    goto out;
  }
  rec->changed = false;
  for (size_t i = nk0; i < rec->nk; i++) {
    if ((r = write_knob (o.proc, rec->k[i].name, rec->k[i].value)) < 0) {
      pc_err_msg (why, "%s=%s: %s", rec->k[i].name, rec->k[i].value, strerror (-r));
      for (size_t j = nk0; j < i; j++)
        write_knob (o.proc, rec->k[j].name, rec->k[j].orig);
      goto undo;
    }
  }
  for (size_t i = 0; i < n; i++) {
    const struct knob *k = find_knob (rec, v[i].name);
    snprintf (v[i].old, sizeof v[i].old, "%s", k->orig);
    v[i].set = true;
  }
  r = 0;
  goto out;

undo:
  rec->nk = nk0;
  rec->nh = nh0;
  rec->changed = true;
out:
  r = host_done (&o, rec, r, why);
  free (rec);
  return r;
}

int
pc_sysctl_apply (struct pc_sysctl *v, size_t n, const struct pc_sysctl_host *h,
                 void (*waiting) (void *ctx, const char *name, long pid), void *ctx,
                 struct pc_err *why)
{
  struct pc_sysctl_busy told = { "", 0 };

  for (;;) {
    struct pc_sysctl_busy busy = { "", 0 };
    int r = pc_sysctl_take (v, n, h, &busy, why);
    if (r != 1)
      return r;
    if (busy.pid != told.pid || strcmp (busy.name, told.name) != 0) {
      told = busy;
      if (waiting)
        waiting (ctx, busy.name, busy.pid);
    }
    for (int i = 0; i < POLL_MS / 50; i++) {
      struct timespec ts = { 0, 50 * 1000000 };
      if (pc_interrupted ()) {
        pc_err_msg (why, "interrupted while waiting for %s", busy.name);
        return -EINTR;
      }
      nanosleep (&ts, NULL);
    }
  }
}

int
pc_sysctl_release (struct pc_sysctl *v, size_t n, const struct pc_sysctl_host *h,
                   struct pc_err *why)
{
  struct host o;
  struct record *rec;
  unsigned long long start;
  bool any = false;
  size_t j = 0;
  long pid;
  int r;

  for (size_t i = 0; i < n; i++)
    any |= v[i].set;
  if (!any)
    return 0;
  if ((r = self_id (&pid, &start, why)) < 0 || (r = host_load (&o, h, &rec, why)) < 0)
    return r;
  for (size_t i = 0; i < rec->nh; i++) {
    const struct hold *ho = &rec->h[i];
    bool mine = false;
    for (size_t k = 0; k < n && !mine; k++)
      mine = v[k].set && ho->pid == pid && ho->start == start && strcmp (ho->name, v[k].name) == 0;
    if (!mine)
      rec->h[j++] = *ho;
  }
  if (j != rec->nh)
    rec->changed = true;
  rec->nh = j;
  for (size_t i = 0; i < n; i++)
    v[i].set = false;
  r = settle (&o, rec, NULL, 0, why);
  r = host_done (&o, rec, r < 0 ? r : 0, why);
  free (rec);
  return r;
}

int
pc_sysctl_recover (const struct pc_sysctl_host *h, char *done, size_t donelen, struct pc_err *why)
{
  struct host o;
  struct record *rec;
  int r;

  if (donelen > 0)
    done[0] = '\0';
  if ((r = host_load (&o, h, &rec, why)) < 0)
    return r;
  r = settle (&o, rec, done, donelen, why);
  r = host_done (&o, rec, r, why);
  free (rec);
  return r;
}
