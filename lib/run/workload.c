/* workload.c: the built-in workloads of powercut run. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/control.h"
#include "util/util.h"
#include "run/workload.h"

#define FILE_SIZE   8192
#define MARK_TIMEOUT_MS 120000

static void
trace (const struct pc_workload_env *env, const char *fmt, ...)
{
  char line[512];
  va_list ap;

  if (env->trace == NULL)
    return;
  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  env->trace (env->trace_ctx, line);
}

/* Content that differs by file, version and seed, is never all zeros, and
 * reads well in a report: "file 3 version 2 seed 0 line 17\n"... */
static void
fill (uint8_t *buf, size_t len, uint64_t seed, unsigned file, unsigned version)
{
  char line[96];
  size_t pos = 0;

  for (unsigned n = 0; pos < len; n++) {
    int k = snprintf (line, sizeof line, "file %u version %u seed %llu line %u\n",
                      file, version, (unsigned long long) seed, n);
    size_t take = (size_t) k < len - pos ? (size_t) k : len - pos;
    memcpy (buf + pos, line, take);
    pos += take;
  }
}

/* Writes a whole file; fsync it if asked.  Returns 0 or -errno. */
static int
put_file (const char *path, int oflags, const uint8_t *buf, size_t len, bool do_fsync)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC | oflags, 0644), r;

  if (fd < 0)
    return -errno;
  r = pc_write_all (fd, buf, len);
  if (r == 0 && do_fsync && fsync (fd) < 0)
    r = -errno;
  if (close (fd) < 0 && r == 0)
    r = -errno;
  return r;
}

static int
fsync_path (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC), r = 0;

  if (fd < 0)
    return -errno;
  if (fsync (fd) < 0)
    r = -errno;
  close (fd);
  return r;
}

/* Writes back the recorded filesystem only (syncfs of the workload's
 * root), not sync(): that would write back every filesystem of the
 * machine, and disturb another recording running beside this one.
 * Returns 0 or -errno. */
static int
sync_root (const struct pc_workload_env *env)
{
  int fd = open (env->root ? env->root : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;

  if (fd < 0)
    return -errno;
  if (syncfs (fd) < 0)
    r = -errno;
  close (fd);
  return r;
}

static int
mark (const struct pc_workload_env *env, const char *name, bool sync,
      char *const *durable, size_t ndurable)
{
  struct pc_err why;
  int r = pc_control_mark (env->control, name, ".", sync, durable, ndurable,
                           MARK_TIMEOUT_MS, &why);

  trace (env, "mark %s%s%s%s%s%s", name, sync ? " (synced)" : "",
         ndurable ? " durable " : "", ndurable ? durable[0] : "",
         r < 0 ? ": " : "", r < 0 ? why.msg : "");
  return r;
}

static void
wait_commit (const struct pc_workload_env *env)
{
  trace (env, "wait %u s for the journal to commit on its own", env->commit_s + 1);
  sleep (env->commit_s + 1);
}

static unsigned
nfiles (const struct pc_workload_env *env)
{
  return env->files ? env->files : 20;
}

/* Writes version 1 of every file, syncs, and marks v1. */
static int
setup_v1 (const struct pc_workload_env *env, uint8_t *buf)
{
  char path[64];
  int r;

  for (unsigned i = 0; i < nfiles (env); i++) {
    snprintf (path, sizeof path, "f%02u", i);
    fill (buf, FILE_SIZE, env->seed, i, 1);
    r = put_file (path, O_TRUNC, buf, FILE_SIZE, false);
    if (r < 0)
      return r;
  }
  trace (env, "wrote %u files, version 1; sync", nfiles (env));
  r = sync_root (env);
  return r < 0 ? r : mark (env, "v1", true, NULL, 0);
}

static int
finish (const struct pc_workload_env *env, bool wait)
{
  int r;

  if (wait)
    wait_commit (env);
  trace (env, "sync");
  r = sync_root (env);
  return r < 0 ? r : mark (env, "end", true, NULL, 0);
}

static int
rewrite (const struct pc_workload_env *env, bool rename_over, bool safe)
{
  uint8_t *buf = malloc (FILE_SIZE);
  char path[64], tmp[64], name[64];
  int r;

  if (buf == NULL)
    return -ENOMEM;
  r = setup_v1 (env, buf);
  for (unsigned i = 0; r == 0 && i < nfiles (env); i++) {
    char *d[1] = { path };
    snprintf (path, sizeof path, "f%02u", i);
    snprintf (tmp, sizeof tmp, "f%02u.tmp", i);
    fill (buf, FILE_SIZE, env->seed, i, 2);
    if (rename_over) {
      r = put_file (tmp, O_TRUNC, buf, FILE_SIZE, safe);
      if (r == 0 && rename (tmp, path) < 0)
        r = -errno;
      if (r == 0 && safe)
        r = fsync_path (".");
    }
    else
      r = put_file (path, O_TRUNC, buf, FILE_SIZE, safe);
    if (r == 0 && safe) {
      snprintf (name, sizeof name, "v2-f%02u", i);
      r = mark (env, name, false, d, 1);
    }
  }
  if (r == 0)
    trace (env, "rewrote %u files by %s, %s", nfiles (env),
           rename_over ? "write-temp-and-rename" : "truncate-and-rewrite",
           safe ? "with fsync" : "without fsync");
  if (r == 0 && !safe)
    r = mark (env, "v2", false, NULL, 0);
  if (r == 0)
    r = finish (env, !safe);
  free (buf);
  return r;
}

static int wl_replace_rename (const struct pc_workload_env *e) { return rewrite (e, true, false); }
static int wl_replace_rename_fsync (const struct pc_workload_env *e) { return rewrite (e, true, true); }
static int wl_truncate_rewrite (const struct pc_workload_env *e) { return rewrite (e, false, false); }
static int wl_truncate_rewrite_fsync (const struct pc_workload_env *e) { return rewrite (e, false, true); }

static int
wl_append (const struct pc_workload_env *env)
{
  uint8_t buf[4096];
  char name[32], *d[1] = { "journal.log" };
  int fd, r;

  fd = open ("journal.log", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  r = sync_root (env);
  if (r == 0)
    r = mark (env, "start", true, NULL, 0);
  for (unsigned i = 1; r == 0 && i <= nfiles (env); i++) {
    fill (buf, sizeof buf, env->seed, 0, i);
    r = pc_write_all (fd, buf, sizeof buf);
    snprintf (name, sizeof name, "append-%02u", i);
    if (r == 0 && i % 5 == 0) {
      r = fdatasync (fd) < 0 ? -errno : 0;
      if (r == 0)
        r = mark (env, name, false, d, 1);
    }
    else if (r == 0)
      r = mark (env, name, false, NULL, 0);
  }
  close (fd);
  if (r == 0)
    trace (env, "appended %u records of 4 KiB, fdatasync every 5", nfiles (env));
  if (r == 0)
    r = finish (env, true);
  return r;
}

/* The random workload: a model of a small tree, driven by a seeded PRNG.
 * Names: d0..d2 (directories) and f0..f7 in the root or a directory. */
#define R_DIRS   3
#define R_FILES  8
#define R_OPS    60

struct rmodel {
  bool dir[R_DIRS];
  bool file[R_DIRS + 1][R_FILES];   /* [R_DIRS]: the root */
};

static void
rpath (char *buf, size_t len, unsigned d, unsigned f)
{
  if (d == R_DIRS)
    snprintf (buf, len, "f%u", f);
  else
    snprintf (buf, len, "d%u/f%u", d, f);
}

static int
wl_random (const struct pc_workload_env *env)
{
  struct rmodel m = { 0 };
  uint64_t x = env->seed * 2654435761u + 17;
  uint8_t *buf = malloc (3 * FILE_SIZE);
  char p[32], q[32], name[32];
  int r = 0;

  if (buf == NULL)
    return -ENOMEM;
  r = sync_root (env);
  if (r == 0)
    r = mark (env, "start", true, NULL, 0);
  for (unsigned op = 0; r == 0 && op < R_OPS; op++) {
    unsigned kind = (unsigned) (pc_splitmix64 (&x) % 12);
    unsigned d = (unsigned) (pc_splitmix64 (&x) % (R_DIRS + 1)), f = (unsigned) (pc_splitmix64 (&x) % R_FILES);
    unsigned d2 = (unsigned) (pc_splitmix64 (&x) % (R_DIRS + 1)), f2 = (unsigned) (pc_splitmix64 (&x) % R_FILES);
    size_t len = (size_t) (pc_splitmix64 (&x) % (3 * FILE_SIZE)) + 1;
    bool durable = false, synced = false;

    if (d < R_DIRS && !m.dir[d])
      kind = 0;                               /* make the directory first */
    rpath (p, sizeof p, d, f);
    rpath (q, sizeof q, d2, f2);
    switch (kind) {
    case 0:                                   /* mkdir */
      if (d == R_DIRS || m.dir[d])
        continue;
      snprintf (p, sizeof p, "d%u", d);
      r = mkdir (p, 0755) < 0 ? -errno : 0;
      m.dir[d] = true;
      trace (env, "mkdir %s", p);
      break;
    case 1: case 2:                           /* create or overwrite whole */
      fill (buf, len, env->seed, d * R_FILES + f, op);
      r = put_file (p, O_TRUNC, buf, len, false);
      m.file[d][f] = true;
      trace (env, "write %s (%zu bytes)", p, len);
      break;
    case 3:                                   /* write in the middle */
      if (!m.file[d][f])
        continue;
      {
        int fd = open (p, O_WRONLY | O_CLOEXEC);
        off_t at = (off_t) (pc_splitmix64 (&x) % FILE_SIZE);
        fill (buf, 4096, env->seed, d * R_FILES + f, op);
        if (fd < 0)
          r = -errno;
        else {
          r = pwrite (fd, buf, 4096, at) == 4096 ? 0 : -EIO;
          close (fd);
        }
        trace (env, "pwrite %s at %lld", p, (long long) at);
      }
      break;
    case 4:                                   /* append */
      if (!m.file[d][f])
        continue;
      fill (buf, len, env->seed, d * R_FILES + f, op);
      r = put_file (p, O_APPEND, buf, len, false);
      trace (env, "append %s (%zu bytes)", p, len);
      break;
    case 5:                                   /* truncate */
      if (!m.file[d][f])
        continue;
      r = truncate (p, (off_t) (len / 2)) < 0 ? -errno : 0;
      trace (env, "truncate %s to %zu", p, len / 2);
      break;
    case 6:                                   /* rename, maybe over another */
      if (!m.file[d][f] || (d2 < R_DIRS && !m.dir[d2]) || (d == d2 && f == f2))
        continue;
      {
        /* Renaming a name onto a hard link of itself does nothing: unlink. */
        struct stat a, b;
        if (stat (p, &a) == 0 && stat (q, &b) == 0 && a.st_ino == b.st_ino)
          r = unlink (p) < 0 ? -errno : 0;
        else
          r = rename (p, q) < 0 ? -errno : 0;
      }
      m.file[d][f] = false;
      m.file[d2][f2] = true;
      trace (env, "rename %s %s", p, q);
      break;
    case 7:                                   /* hard link */
      if (!m.file[d][f] || (d2 < R_DIRS && !m.dir[d2]) || m.file[d2][f2])
        continue;
      r = link (p, q) < 0 ? -errno : 0;
      m.file[d2][f2] = true;
      trace (env, "link %s %s", p, q);
      break;
    case 8:                                   /* unlink */
      if (!m.file[d][f])
        continue;
      r = unlink (p) < 0 ? -errno : 0;
      m.file[d][f] = false;
      trace (env, "unlink %s", p);
      break;
    case 9: {                                 /* rmdir (if empty) */
      bool empty = true;
      if (d == R_DIRS || !m.dir[d])
        continue;
      for (unsigned k = 0; k < R_FILES; k++)
        empty = empty && !m.file[d][k];
      if (!empty)
        continue;
      snprintf (p, sizeof p, "d%u", d);
      r = rmdir (p) < 0 ? -errno : 0;
      m.dir[d] = false;
      trace (env, "rmdir %s", p);
      break;
    }
    case 10:                                  /* fsync or fdatasync, and the directory */
      if (!m.file[d][f])
        continue;
      {
        int fd = open (p, O_WRONLY | O_CLOEXEC);
        bool data = pc_splitmix64 (&x) & 1;
        if (fd < 0)
          r = -errno;
        else {
          r = (data ? fdatasync (fd) : fsync (fd)) < 0 ? -errno : 0;
          close (fd);
        }
        if (r == 0)
          r = fsync_path (d == R_DIRS ? "." : (snprintf (q, sizeof q, "d%u", d), q));
        durable = true;
        trace (env, "%s %s and its directory", data ? "fdatasync" : "fsync", p);
      }
      break;
    case 11:                                  /* sync (of this filesystem) */
      r = sync_root (env);
      synced = true;
      trace (env, "sync");
      break;
    }
    if (r < 0)
      break;
    /* A mark after every operation: each is a version the tree had. */
    snprintf (name, sizeof name, "op%02u", op);
    {
      char *dp[1] = { p };
      r = mark (env, name, synced, dp, durable ? 1 : 0);
    }
  }
  if (r == 0)
    r = finish (env, false);
  free (buf);
  return r;
}

#ifndef EXT4_IOC_ALLOC_DA_BLKS
#define EXT4_IOC_ALLOC_DA_BLKS _IO ('f', 12)
#endif

/* A vm.* writeback knob in centiseconds, or dflt if it cannot be read. */
static unsigned
knob_cs (const char *name, unsigned dflt)
{
  char path[96], buf[32];
  int fd;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/sys/vm/%s", name);
  if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
    return dflt;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return dflt;
  buf[n] = '\0';
  return (unsigned) strtoul (buf, NULL, 10);
}

/* Asks ext4 to allocate the delayed blocks of path now (trace says if the
 * filesystem cannot: ext2/ext3 allocate at once anyway). */
static void
alloc_now (const struct pc_workload_env *env, const char *path, int fd)
{
  if (ioctl (fd, EXT4_IOC_ALLOC_DA_BLKS) < 0)
    trace (env, "EXT4_IOC_ALLOC_DA_BLKS %s: %s", path, strerror (errno));
}

/* One rewrite of path in the way its directory names. */
static int
steady_write (const struct pc_workload_env *env, const char *way, const char *path,
              const uint8_t *buf, size_t len)
{
  char tmp[100];
  bool alloc = strstr (way, "-alloc") != NULL, fs = strcmp (way, "rename-fsync") == 0;
  int fd, r;

  snprintf (tmp, sizeof tmp, "%s.tmp", path);
  if (strncmp (way, "truncate", 8) == 0)
    fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  else
    fd = open (strcmp (way, "new") == 0 ? path : tmp,
               O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  r = pc_write_all (fd, buf, len);
  if (r == 0 && alloc)
    alloc_now (env, path, fd);
  if (r == 0 && fs && fsync (fd) < 0)
    r = -errno;
  if (close (fd) < 0 && r == 0)
    r = -errno;
  if (r == 0 && strncmp (way, "rename", 6) == 0 && rename (tmp, path) < 0)
    r = -errno;
  if (r == 0 && fs)
    r = fsync_path (way);
  return r;
}

/* One second of the steady workload: the file of second t in each way. */
static int
steady_second (const struct pc_workload_env *env, const char *const *ways, unsigned nways,
               unsigned t, unsigned per, uint8_t *buf)
{
  char path[80], name[32];
  int r = 0;

  for (unsigned w = 0; w < nways && r == 0; w++) {
    unsigned f = strcmp (ways[w], "new") == 0 ? t : t % per;
    snprintf (path, sizeof path, "%s/f%03u", ways[w], f);
    fill (buf, FILE_SIZE, env->seed, w * 1000 + f, t);
    r = steady_write (env, ways[w], path, buf, FILE_SIZE);
  }
  snprintf (name, sizeof name, "t%03u", t);
  return r ? r : mark (env, name, false, NULL, 0);
}

/* Sleeps until t seconds after t0. */
static void
sleep_until (uint64_t t0, unsigned t)
{
  uint64_t due = t0 + (uint64_t) t * 1000000000u, now = pc_now_mono_ns ();

  if (due > now)
    usleep ((useconds_t) ((due - now) / 1000));
}

static int
wl_steady (const struct pc_workload_env *env)
{
  /* The ways without fsync first, together: an fsync commits the journal,
   * and with it everything the others did, so the fsync'd way comes after,
   * alone, for contrast. */
  static const char *const ways[] = { "rename", "truncate", "new", "rename-alloc",
                                      "truncate-alloc", "rename-fsync" };
  const unsigned nways = sizeof ways / sizeof ways[0];
  unsigned seconds = env->seconds ? env->seconds : 60, per = nfiles (env) / (nways - 1);
  unsigned fsecs = seconds < 10 ? seconds : 10;
  unsigned expire = knob_cs ("dirty_expire_centisecs", 3000);
  unsigned wb = knob_cs ("dirty_writeback_centisecs", 500);
  unsigned idle = (expire + wb + 99) / 100 + env->commit_s + 3;
  uint64_t t0;
  uint8_t *buf = malloc (FILE_SIZE);
  int r = 0;

  if (buf == NULL)
    return -ENOMEM;
  if (per == 0)
    per = 1;
  for (unsigned w = 0; w < nways && r == 0; w++)
    if (mkdir (ways[w], 0755) < 0 && errno != EEXIST)
      r = -errno;
  if (r == 0)
    r = sync_root (env);
  if (r == 0)
    r = mark (env, "start", true, NULL, 0);
  trace (env, "every second for %u s: one file of %u in each of %u ways; %u s idle "
         "(dirty_expire %u cs, dirty_writeback %u cs, commit %u s); %u s of rename-fsync",
         seconds, per, nways - 1, idle, expire, wb, env->commit_s, fsecs);
  t0 = pc_now_mono_ns ();
  for (unsigned t = 1; t <= seconds && r == 0; t++) {
    sleep_until (t0, t);
    r = steady_second (env, ways, nways - 1, t, per, buf);
  }
  if (r == 0) {
    trace (env, "idle %u s: the kernel writes back on its own", idle);
    sleep (idle);
  }
  t0 = pc_now_mono_ns ();
  for (unsigned t = 1; t <= fsecs && r == 0; t++) {
    sleep_until (t0, t);
    r = steady_second (env, ways + nways - 1, 1, seconds + t, per, buf);
  }
  if (r == 0) {
    sleep (1);
    r = finish (env, false);
  }
  free (buf);
  return r;
}

/* The rename-over workload: rounds of rewriting every file by
 * write-temp-then-rename, without fsync, as an editor or a configuration
 * tool saves; in real time, with the kernel's own timing.  Round k starts
 * 1 s and a seeded random fraction of a second after round k - 1, so that
 * the rounds fall anywhere between the journal's commits, as a real
 * application's saves do.  Then idle until the kernel wrote everything
 * back on its own timers, and a final sync. */
static int
wl_rename_over (const struct pc_workload_env *env)
{
  unsigned seconds = env->seconds ? env->seconds : 20;
  unsigned expire = knob_cs ("dirty_expire_centisecs", 3000);
  unsigned wb = knob_cs ("dirty_writeback_centisecs", 500);
  unsigned commit = env->commit_s ? env->commit_s : 5;       /* ext4's default */
  unsigned idle = (expire + wb + 99) / 100 + commit + 3, round = 0;
  uint64_t x = env->seed ^ UINT64_C(0x72656e616d65), t0, due = 0;
  uint8_t *buf = malloc (FILE_SIZE);
  char path[64], tmp[64], name[32];
  int r;

  if (buf == NULL)
    return -ENOMEM;
  r = setup_v1 (env, buf);
  trace (env, "for %u s: rounds of rewriting %u files by write-temp-then-rename, "
         "without fsync, each 1 to 2 s after the last; %u s idle "
         "(dirty_expire %u cs, dirty_writeback %u cs, commit %u s)",
         seconds, nfiles (env), idle, expire, wb, commit);
  t0 = pc_now_mono_ns ();
  while (r == 0) {
    due += 1000000000u + pc_splitmix64 (&x) % 1000000000u;
    if (due > (uint64_t) seconds * 1000000000u)
      break;
    while (pc_now_mono_ns () < t0 + due)
      usleep ((useconds_t) ((t0 + due - pc_now_mono_ns ()) / 1000 + 1));
    round++;
    for (unsigned i = 0; r == 0 && i < nfiles (env); i++) {
      snprintf (path, sizeof path, "f%02u", i);
      snprintf (tmp, sizeof tmp, "f%02u.tmp", i);
      fill (buf, FILE_SIZE, env->seed, i, round + 1);
      r = put_file (tmp, O_TRUNC, buf, FILE_SIZE, false);
      if (r == 0 && rename (tmp, path) < 0)
        r = -errno;
    }
    snprintf (name, sizeof name, "r%03u", round);
    if (r == 0)
      r = mark (env, name, false, NULL, 0);
  }
  if (r == 0) {
    trace (env, "%u rounds; idle %u s: the kernel writes back on its own", round, idle);
    sleep (idle);
    r = finish (env, false);
  }
  free (buf);
  return r;
}

static const struct pc_workload workloads[] = {
  { "replace-rename", "rewrite files by write-temp-and-rename, without fsync",
    wl_replace_rename, 1 },
  { "replace-rename-fsync", "rewrite files by write-temp-and-rename, with fsync of file and directory",
    wl_replace_rename_fsync, 1 },
  { "truncate-rewrite", "truncate files and write them again in place, without fsync",
    wl_truncate_rewrite, 1 },
  { "truncate-rewrite-fsync", "truncate files and write them again in place, with fsync",
    wl_truncate_rewrite_fsync, 1 },
  { "append", "append records to a log file, fdatasync every fifth",
    wl_append, 1 },
  { "random", "a seeded mix of creates, writes, renames, links, unlinks, dirs and syncs",
    wl_random, 300 },
  { "steady", "in real time: rewrite files every second six ways (rename, truncate, new, "
    "with EXT4_IOC_ALLOC_DA_BLKS, fsync), kernel timing", wl_steady, 0 },
  { "rename-over", "in real time: rounds of rewriting files by write-temp-then-rename "
    "without fsync, at seeded moments, kernel timing", wl_rename_over, 0 },
};

const struct pc_workload *
pc_workloads (size_t *ret_n)
{
  *ret_n = sizeof workloads / sizeof workloads[0];
  return workloads;
}

const struct pc_workload *
pc_workload_find (const char *name)
{
  for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
    if (strcmp (workloads[i].name, name) == 0)
      return &workloads[i];
  return NULL;
}
