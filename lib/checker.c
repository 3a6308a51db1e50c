/* checker.c: enumerate, deduplicate and check crash states with workers. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "checker.h"
#include "util.h"

#define CHUNK 8                 /* states a worker takes at a time */

enum slot_status { SLOT_PENDING, SLOT_RUNNING, SLOT_DONE };

/* Shared between the checking process and its workers. */
struct slot {
  int status;
  int verdict;
  char evidence[PC_EVIDENCE_MAX];
};

struct shared {
  size_t next;                  /* next chunk of unique states to hand out */
  size_t done;
  struct slot slots[];
};

struct ctx {
  const struct pc_check_config *cfg;
  struct pc_index ix;
  const uint8_t *base;
  struct pc_state *states;      /* this shard's states */
  size_t nstates;
  size_t *uniq;                 /* indexes into states of the images to check */
  size_t nuniq;
  struct shared *sh;
  size_t shsize;
  char *work;
  unsigned spawned;             /* workers started (their ids are 0..spawned-1) */
};

void
pc_check_result_recount (struct pc_check_result *res)
{
  memset (res->count, 0, sizeof res->count);
  for (size_t i = 0; i < res->npoints; i++)
    if ((unsigned) res->points[i].verdict < PC_V_COUNT)
      res->count[res->points[i].verdict]++;
}

void
pc_check_result_free (struct pc_check_result *res)
{
  if (res == NULL)
    return;
  free (res->log_path);
  free (res->points);
  free (res);
}

/* An open-addressing table from signature to first state index. */
struct sigtab {
  uint8_t (*sig)[16];
  size_t *idx;
  size_t cap;
};

static int
sig_lookup_or_add (struct sigtab *t, const uint8_t sig[16], size_t idx, size_t *ret_first)
{
  size_t h = (size_t) pc_get_le64 (sig) & (t->cap - 1);

  for (;;) {
    if (t->idx[h] == SIZE_MAX) {
      memcpy (t->sig[h], sig, 16);
      t->idx[h] = idx;
      *ret_first = idx;
      return 0;
    }
    if (memcmp (t->sig[h], sig, 16) == 0) {
      *ret_first = t->idx[h];
      return 1;
    }
    h = (h + 1) & (t->cap - 1);
  }
}

/* Computes every state's signature and keeps the first of each image. */
static int
dedupe (struct ctx *c, int64_t *same_as)
{
  struct pc_image *im;
  struct sigtab t;
  uint64_t cursor = 0;
  int r;

  t.cap = 16;
  while (t.cap < c->nstates * 2)
    t.cap *= 2;
  t.sig = malloc (t.cap * 16);
  t.idx = malloc (t.cap * sizeof *t.idx);
  c->uniq = malloc ((c->nstates ? c->nstates : 1) * sizeof *c->uniq);
  if (t.sig == NULL || t.idx == NULL || c->uniq == NULL) {
    r = -ENOMEM;
    goto out;
  }
  memset (t.idx, 0xff, t.cap * sizeof *t.idx);
  r = pc_image_new (c->ix.hdr.devsize, c->base, -1,
                    PC_IMAGE_HASH | (c->cfg->keep_trimmed ? PC_IMAGE_KEEP_TRIMMED : 0), &im);
  if (r < 0)
    goto out;
  for (size_t i = 0; i < c->nstates; i++) {
    uint8_t sig[16];
    size_t first;
    r = pc_state_build (&c->ix, &c->states[i], im, &cursor);
    if (r < 0)
      break;
    pc_image_signature (im, sig);
    if (r == 1)
      pc_image_overlay_end (im);
    r = 0;
    if (sig_lookup_or_add (&t, sig, i, &first) == 1)
      same_as[i] = (int64_t) first;
    else {
      same_as[i] = -1;
      c->uniq[c->nuniq++] = i;
    }
  }
  pc_image_free (im);
out:
  free (t.sig);
  free (t.idx);
  return r;
}

static void
copy_file (const char *from, const char *to)
{
  int in = open (from, O_RDONLY | O_CLOEXEC), out;
  char buf[1 << 16];
  ssize_t n;
  off_t pos = 0;

  if (in < 0)
    return;
  out = open (to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out >= 0) {
    struct stat st;
    if (fstat (in, &st) == 0 && ftruncate (out, st.st_size) == 0) {
      /* Sparse copy: all-zero blocks stay holes. */
      static const char zero[1 << 16];
      while ((n = read (in, buf, sizeof buf)) > 0) {
        if (memcmp (buf, zero, (size_t) n) != 0 && pwrite (out, buf, (size_t) n, pos) != n)
          break;
        pos += n;
      }
    }
    close (out);
  }
  close (in);
}

/* A worker: takes chunks of unique states in order and checks them. */
static void
worker (struct ctx *c, unsigned id)
{
  char img[4096], undo[4096];
  struct pc_image *im = NULL;
  uint64_t cursor = 0;
  int fd, r;

  snprintf (img, sizeof img, "%s/state-%u.img", c->work, id);
  snprintf (undo, sizeof undo, "%s/state-%u.undo", c->work, id);
  fd = open (img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    _exit (3);
  r = pc_image_new (c->ix.hdr.devsize, c->base, fd,
                    c->cfg->keep_trimmed ? PC_IMAGE_KEEP_TRIMMED : 0, &im);
  if (r < 0)
    _exit (3);
  for (size_t u = 0;; u++) {
    /* Chunks in order from the shared counter; once it runs out, any slot
     * still pending (left by a worker that died) is taken up. */
    if (u % CHUNK == 0 || u >= c->nuniq) {
      size_t start = __atomic_fetch_add (&c->sh->next, CHUNK, __ATOMIC_SEQ_CST);
      if (start < c->nuniq)
        u = start;
      else {
        while (u < c->nuniq && c->sh->slots[u].status != SLOT_PENDING)
          u++;
        if (u >= c->nuniq) {
          for (u = 0; u < c->nuniq && c->sh->slots[u].status != SLOT_PENDING; u++)
            ;
          if (u >= c->nuniq)
            break;
        }
      }
    }
    {
      struct slot *sl = &c->sh->slots[u];
      int expect = SLOT_PENDING;
      if (!__atomic_compare_exchange_n (&sl->status, &expect, SLOT_RUNNING, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        continue;
      const struct pc_state *s = &c->states[c->uniq[u]];
      struct pc_fsck_result fr;

      if (s->base < cursor) {
        /* Cannot go back: start again from the beginning. */
        pc_image_free (im);
        cursor = 0;
        if (pc_image_new (c->ix.hdr.devsize, c->base, fd,
                          c->cfg->keep_trimmed ? PC_IMAGE_KEEP_TRIMMED : 0, &im) < 0)
          _exit (3);
      }
      r = pc_state_build (&c->ix, s, im, &cursor);
      if (r < 0) {
        sl->verdict = PC_V_UNMOUNTABLE;
        snprintf (sl->evidence, sizeof sl->evidence,
                  "powercut could not rebuild this state: %s", strerror (-r));
      }
      else {
        bool overlay = r == 1;
        r = pc_fsck_image (img, undo, c->cfg->timeout_s, &fr);
        if (r < 0) {
          sl->verdict = PC_V_UNMOUNTABLE;
          snprintf (sl->evidence, sizeof sl->evidence,
                    "powercut could not check this state: %s", strerror (-r));
        }
        else {
          sl->verdict = fr.verdict;
          memcpy (sl->evidence, fr.evidence, sizeof sl->evidence);
        }
        if (fr.image_dirty)
          pc_image_rewrite (im, 0, UINT64_MAX);
        if (sl->verdict != PC_V_OK && c->cfg->keep_dir) {
          char sid[PC_ID_MAX], to[4096];
          pc_state_id (s, sid, sizeof sid);
          for (char *p = sid; *p; p++)
            if (*p == '/' || *p == ':' || *p == ',')
              *p = '_';
          snprintf (to, sizeof to, "%s/state-%s.img", c->cfg->keep_dir, sid);
          copy_file (img, to);
        }
        if (overlay)
          pc_image_overlay_end (im);
      }
      __atomic_store_n (&sl->status, SLOT_DONE, __ATOMIC_SEQ_CST);
      __atomic_fetch_add (&c->sh->done, 1, __ATOMIC_SEQ_CST);
    }
  }
  pc_image_free (im);
  close (fd);
  unlink (img);
  _exit (0);
}

static pid_t
spawn (struct ctx *c, unsigned id)
{
  pid_t pid = fork ();

  if (pid == 0) {
    signal (SIGINT, SIG_DFL);
    worker (c, id);
  }
  return pid;
}

static int
run_workers (struct ctx *c)
{
  unsigned jobs = c->cfg->jobs ? c->cfg->jobs : 1;
  pid_t *pids;
  unsigned alive = 0, next_id = 0, respawns = 0;
  size_t total = c->nuniq;
  int r = 0;

  if (total == 0)
    return 0;
  if (jobs > total)
    jobs = (unsigned) total;
  pids = calloc (jobs, sizeof *pids);
  if (pids == NULL)
    return -ENOMEM;
  for (unsigned i = 0; i < jobs; i++) {
    pids[i] = spawn (c, next_id++);
    if (pids[i] < 0) {
      r = -errno;
      break;
    }
    alive++;
  }
  while (alive > 0) {
    int status;
    pid_t p = waitpid (-1, &status, WNOHANG);
    if (p == 0) {
      struct timespec ts = { 0, 100 * 1000 * 1000 };
      if (c->cfg->progress)
        c->cfg->progress (c->cfg->progress_ctx, c->sh->done, total);
      nanosleep (&ts, NULL);
      continue;
    }
    if (p < 0) {
      if (errno == EINTR)
        continue;
      r = -errno;
      break;
    }
    for (unsigned i = 0; i < jobs; i++) {
      if (pids[i] != p)
        continue;
      alive--;
      pids[i] = 0;
      if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
        break;
      /* A worker died: what it was checking is reported, the rest goes on. */
      for (size_t u = 0; u < total; u++) {
        struct slot *sl = &c->sh->slots[u];
        if (__atomic_load_n (&sl->status, __ATOMIC_SEQ_CST) == SLOT_RUNNING) {
          sl->verdict = PC_V_UNMOUNTABLE;
          snprintf (sl->evidence, sizeof sl->evidence,
                    "the checker died on this state (%s %d)",
                    WIFSIGNALED (status) ? "signal" : "exit status",
                    WIFSIGNALED (status) ? WTERMSIG (status) : WEXITSTATUS (status));
          __atomic_store_n (&sl->status, SLOT_DONE, __ATOMIC_SEQ_CST);
          __atomic_fetch_add (&c->sh->done, 1, __ATOMIC_SEQ_CST);
        }
      }
      /* Its place is taken, a bounded number of times. */
      if (__atomic_load_n (&c->sh->done, __ATOMIC_SEQ_CST) < total && respawns < 16) {
        pid_t np = spawn (c, next_id++);
        respawns++;
        if (np > 0) {
          pids[i] = np;
          alive++;
        }
      }
      break;
    }
  }
  for (size_t u = 0; u < total; u++) {
    struct slot *sl = &c->sh->slots[u];
    if (sl->status != SLOT_DONE) {
      sl->verdict = PC_V_UNMOUNTABLE;
      snprintf (sl->evidence, sizeof sl->evidence, "no checker could be run on this state");
      sl->status = SLOT_DONE;
    }
  }
  c->spawned = next_id;
  if (c->cfg->progress)
    c->cfg->progress (c->cfg->progress_ctx, c->sh->done, total);
  free (pids);
  return r;
}

static const char *
default_tmp (void)
{
  const char *t = getenv ("TMPDIR");

  if (t && *t)
    return t;
  if (access ("/dev/shm", W_OK) == 0)
    return "/dev/shm";
  return "/tmp";
}

int
pc_check_run (const struct pc_check_config *cfg, struct pc_check_result **ret,
              char *why, size_t whylen)
{
  struct ctx c;
  struct pc_check_result *res = NULL;
  int64_t *same_as = NULL;
  uint64_t t0 = pc_now_mono_ns (), from = 0;
  struct pc_state *all = NULL;
  size_t nall = 0, lo, hi;
  void *basemap = MAP_FAILED;
  size_t basesize = 0;
  int r;

  memset (&c, 0, sizeof c);
  c.cfg = cfg;
  r = pc_index_load (cfg->log_path, &c.ix);
  if (r < 0) {
    snprintf (why, whylen, "%s: %s", cfg->log_path,
              r == -EBADMSG ? "not a powercut log (bad header)"
              : r == -EPROTONOSUPPORT ? "written by a newer powercut"
              : strerror (-r));
    return r;
  }
  if (c.ix.end == PC_END_CORRUPT) {
    uint64_t seq, off;
    const char *reason;
    pc_log_end_state (c.ix.log, &seq, &off, &reason);
    snprintf (why, whylen, "%s: record %" PRIu64 " at offset %" PRIu64 ": %s",
              cfg->log_path, seq, off, reason);
    r = -EBADMSG;
    goto out;
  }
  if (c.ix.hdr.flags & PC_LOG_F_BASE) {
    int fd;
    struct stat st;
    uint8_t h[16];
    if (cfg->base_path == NULL) {
      snprintf (why, whylen, "%s: the recording started from base image %s: give --base",
                cfg->log_path, c.ix.hdr.basename);
      r = -EINVAL;
      goto out;
    }
    fd = open (cfg->base_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat (fd, &st) < 0 || (uint64_t) st.st_size != c.ix.hdr.devsize) {
      snprintf (why, whylen, "%s: %s", cfg->base_path,
                fd < 0 ? strerror (errno) : "not the size of the recorded device");
      if (fd >= 0)
        close (fd);
      r = -EINVAL;
      goto out;
    }
    basesize = (size_t) st.st_size;
    basemap = mmap (NULL, basesize, PROT_READ, MAP_PRIVATE, fd, 0);
    close (fd);
    if (basemap == MAP_FAILED) {
      r = -errno;
      snprintf (why, whylen, "%s: %s", cfg->base_path, strerror (-r));
      goto out;
    }
    XXH128_canonicalFromHash ((XXH128_canonical_t *) h, XXH3_128bits (basemap, basesize));
    if (memcmp (h, c.ix.hdr.basehash, 16) != 0) {
      snprintf (why, whylen, "%s: not the base image the recording started from (hash differs)",
                cfg->base_path);
      r = -EINVAL;
      goto out;
    }
    c.base = basemap;
  }

  res = calloc (1, sizeof *res);
  if (res == NULL || (res->log_path = strdup (cfg->log_path)) == NULL) {
    r = -ENOMEM;
    goto nomem;
  }
  res->model = cfg->model;
  res->records = c.ix.n;
  res->device_size = c.ix.hdr.devsize;
  res->log_torn = c.ix.end != PC_END_CLEAN;
  res->shard = cfg->shard;
  res->nshards = cfg->nshards ? cfg->nshards : 1;

  if (cfg->from_mark) {
    int64_t m = pc_index_find_mark (&c.ix, cfg->from_mark);
    if (m < 0) {
      snprintf (why, whylen, "%s: no mark named '%s'", cfg->log_path, cfg->from_mark);
      r = -EINVAL;
      goto out;
    }
    from = (uint64_t) m;
    snprintf (res->from, sizeof res->from, "%s", cfg->from_mark);
  }
  else {
    for (uint64_t i = 0; i < c.ix.n; i++)
      if (c.ix.recs[i].type == PC_REC_MARK) {
        from = i;
        /* The name is the payload's u16-prefixed string at offset 8. */
        size_t nl = c.ix.recs[i].data[8] | c.ix.recs[i].data[9] << 8;
        if (nl < sizeof res->from && 10 + nl <= c.ix.recs[i].datalen) {
          memcpy (res->from, c.ix.recs[i].data + 10, nl);
          res->from[nl] = '\0';
        }
        break;
      }
  }
  res->from_record = from;

  r = pc_states_enumerate (&c.ix, &cfg->model, from, &all, &nall);
  if (r < 0)
    goto nomem;
  /* This shard's contiguous share. */
  lo = nall * res->shard / res->nshards;
  hi = nall * (res->shard + 1) / res->nshards;
  c.states = all + lo;
  c.nstates = hi - lo;

  res->npoints = c.nstates;
  res->points = calloc (c.nstates ? c.nstates : 1, sizeof *res->points);
  same_as = calloc (c.nstates ? c.nstates : 1, sizeof *same_as);
  if (res->points == NULL || same_as == NULL) {
    r = -ENOMEM;
    goto nomem;
  }
  r = dedupe (&c, same_as);
  if (r < 0) {
    snprintf (why, whylen, "%s: rebuilding states: %s", cfg->log_path, strerror (-r));
    goto out;
  }

  /* Scratch space and the shared result slots. */
  {
    char tmpl[4096];
    snprintf (tmpl, sizeof tmpl, "%s/powercut-check.XXXXXX",
              cfg->work_dir ? cfg->work_dir : default_tmp ());
    c.work = strdup (tmpl);
    if (c.work == NULL || mkdtemp (c.work) == NULL) {
      r = c.work ? -errno : -ENOMEM;
      snprintf (why, whylen, "%s: %s", tmpl, strerror (-r));
      goto out;
    }
  }
  c.shsize = sizeof *c.sh + (c.nuniq ? c.nuniq : 1) * sizeof (struct slot);
  c.sh = mmap (NULL, c.shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (c.sh == MAP_FAILED) {
    c.sh = NULL;
    r = -errno;
    goto nomem;
  }
  r = run_workers (&c);
  if (r < 0) {
    snprintf (why, whylen, "running checkers: %s", strerror (-r));
    goto out;
  }

  for (size_t u = 0; u < c.nuniq; u++) {
    struct pc_point *p = &res->points[c.uniq[u]];
    p->verdict = c.sh->slots[u].verdict;
    memcpy (p->evidence, c.sh->slots[u].evidence, sizeof p->evidence);
  }
  for (size_t i = 0; i < c.nstates; i++) {
    struct pc_point *p = &res->points[i];
    const struct pc_state *s = &c.states[i];
    pc_state_id (s, p->id, sizeof p->id);
    p->record = s->point;
    p->ndrop = s->ndrop;
    p->torn = s->nsect > 0;
    p->same_as = same_as[i];
    if (same_as[i] >= 0) {
      p->verdict = res->points[same_as[i]].verdict;
      memcpy (p->evidence, res->points[same_as[i]].evidence, sizeof p->evidence);
    }
  }
  res->unique = c.nuniq;
  pc_check_result_recount (res);
  res->seconds = (pc_now_mono_ns () - t0) / 1e9;
  *ret = res;
  res = NULL;
  r = 0;
  goto out;

nomem:
  snprintf (why, whylen, "%s", strerror (-r));
out:
  if (c.work) {
    char p[4200];
    /* Workers remove their files; a dead one's are removed here. */
    for (unsigned i = 0; i < c.spawned; i++) {
      snprintf (p, sizeof p, "%s/state-%u.img", c.work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/state-%u.undo", c.work, i);
      unlink (p);
    }
    rmdir (c.work);
    free (c.work);
  }
  if (c.sh)
    munmap (c.sh, c.shsize);
  free (c.uniq);
  free (same_as);
  pc_states_free (all, nall);
  pc_check_result_free (res);
  if (basemap != MAP_FAILED)
    munmap (basemap, basesize);
  pc_index_free (&c.ix);
  return r;
}
