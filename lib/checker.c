/* checker.c: enumerate, deduplicate and check crash states with workers:
 * load the inputs, plan the states, run the worker pool, collect. */
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
#include "disk.h"
#include "export.h"
#include "judge.h"
#include "oracle.h"
#include "proc.h"
#include "util.h"
#include "window.h"

#define CHUNK 8                 /* states a worker takes at a time */

enum slot_status { SLOT_PENDING, SLOT_RUNNING, SLOT_DONE };

#define CHECK_ERROR (-1)      /* a result's verdict when the check as a whole cannot go on */
#define TRIES 2                 /* a state whose checker dies is tried this often */

/* The result of one crash point, written by a worker: the verdict here,
 * the evidence and findings (any size) in the worker's results file. */
struct result {
  int verdict;                  /* enum pc_verdict, or CHECK_ERROR */
  int64_t fsck_as;              /* point whose e2fsck answer it took, or -1 */
  int64_t file;                 /* the worker whose file holds the rest, or -1 */
  uint64_t off, len;            /* where in it */
};

/* Shared between the checking process and its workers. */
struct shared {
  size_t next;                  /* next chunk of distinct images to hand out */
  size_t done;                  /* distinct images checked */
  int *status;                  /* per distinct image: enum slot_status */
  int *tries;                   /* per distinct image: workers that took it */
  size_t *current;              /* per worker id: the image it works on, or SIZE_MAX */
  struct result *results;       /* per crash point */
  int64_t *lost;                /* per version (oracle.h): the last state that lost it */
  struct pc_judge_stats stats;  /* the workers' sums */
};

struct ctx {
  const struct pc_check_config *cfg;
  struct pc_index ix;
  struct pc_oracle *oracle;
  uint64_t hash_limit;        /* no file is read beyond the marks' largest */
  const uint8_t *base;
  uint8_t *basemem;             /* the base image read, or NULL */
  uint64_t basesize;
  struct pc_state *all;         /* every state of the model */
  size_t nall;
  struct pc_state *states;      /* this shard's states */
  size_t nstates;
  size_t *uniq;                 /* indexes into states of the images to check */
  size_t nuniq;
  size_t *gstart, *gpoints;     /* the points sharing each distinct image */
  struct shared *sh;
  void *shmem;
  size_t shsize;
  char *work;
  unsigned spawned;             /* workers started (their ids are 0..spawned-1) */
  unsigned max_workers;         /* room for worker ids in the shared memory */
  char **failed;                /* per distinct image: why it was not checked, or NULL */
  int64_t now;                  /* the time every e2fsck is told it is */
  struct vmark {                /* every mark of the log, in order (--verify) */
    char *name;
    uint64_t record;
    bool sync;
  } *marks;
  size_t nmarks, capmarks;
  int64_t *same_as;             /* per state */
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
  free (res->base_path);
  free (res->verify);
  for (size_t i = 0; i < res->npoints; i++)
    pc_findings_clear (&res->points[i].findings);
  free (res->points);
  pc_windows_free (res);
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

/* A worker's results file, where each point's evidence and findings go. */
struct out {
  int fd;
  int64_t id;                   /* the worker's id */
  uint64_t size;                /* bytes written so far */
  uint8_t *buf;                 /* one record being built */
  size_t len, cap;
};

/* Stores point i's result: verdict and fsck_as in the shared memory, the
 * evidence and findings as one record in the worker's file:
 *   u32 evidence length, the evidence, the findings (finding.h). */
static int
put_result (struct ctx *c, struct out *o, size_t i, int verdict, int64_t fsck_as,
            const char *evidence, const struct pc_findings *fl)
{
  struct result *res = &c->sh->results[i];
  static const struct pc_findings none;
  size_t el = strlen (evidence);
  int r;

  o->len = 0;
  r = pc_grow (&o->buf, &o->cap, 4 + el, 1, 4096);
  if (r == 0) {
    pc_put_le32 (o->buf, (uint32_t) el);
    memcpy (o->buf + 4, evidence, el);
    o->len = 4 + el;
    r = pc_findings_pack (fl ? fl : &none, &o->buf, &o->len, &o->cap);
  }
  if (r == 0)
    r = pc_write_all (o->fd, o->buf, o->len);
  if (r < 0)
    return r;
  res->verdict = verdict;
  res->fsck_as = fsck_as;
  res->file = o->id;
  res->off = o->size;
  res->len = o->len;
  o->size += o->len;
  return 0;
}

/* What --verify said of a state, for the points that share its marks. */
struct app_result {
  size_t nmarks;                /* marks at or before the point (SIZE_MAX: none yet) */
  int verdict;                  /* PC_V_OK, PC_V_APP_INVALID or PC_V_NOT_CHECKED */
  char evidence[PC_EVIDENCE_MAX];
};

/* Runs the application's checker in the exported tree of the state of
 * point i (the worker's export dir, marks file mfile).  A checker that
 * cannot be run, or does not finish, tells nothing: not checked. */
static void
run_verify (struct ctx *c, size_t i, const char *dir, const char *mfile, size_t k,
            struct pc_export *x, struct app_result *ar)
{
  char id[PC_ID_MAX], *out = malloc (PC_EVIDENCE_MAX * 4), *e_root = NULL, *e_point = NULL;
  char *e_marks = NULL, *e_last = NULL, *e_durable = NULL, *e_file = NULL, *e_count = NULL;
  char *argv[] = { (char *) "sh", (char *) "-c", (char *) c->cfg->verify, NULL };
  size_t ml = 0, d = SIZE_MAX;
  FILE *f;
  int r;

  ar->nmarks = k;
  ar->verdict = PC_V_NOT_CHECKED;
  ar->evidence[0] = '\0';
  pc_state_id (&c->states[i], id, sizeof id);
  for (size_t m = 0; m < k; m++) {
    ml += strlen (c->marks[m].name) + 1;
    if (c->marks[m].sync)
      d = m;
  }
  f = fopen (mfile, "we");
  if (f) {
    for (size_t m = 0; m < k; m++)
      fprintf (f, "%s\n", c->marks[m].name);
    if (fclose (f) == EOF)
      f = NULL;
  }
  if (out == NULL || f == NULL || (e_marks = malloc (ml + 16)) == NULL ||
      asprintf (&e_root, "POWERCUT_ROOT=%s", dir) < 0 ||
      asprintf (&e_point, "POWERCUT_POINT=%s", id) < 0 ||
      asprintf (&e_last, "POWERCUT_LAST_MARK=%s", k ? c->marks[k - 1].name : "") < 0 ||
      asprintf (&e_durable, "POWERCUT_DURABLE_MARK=%s", d != SIZE_MAX ? c->marks[d].name : "") < 0 ||
      asprintf (&e_file, "POWERCUT_MARKS_FILE=%s", mfile) < 0 ||
      asprintf (&e_count, "POWERCUT_MARK_COUNT=%zu", k) < 0) {
    snprintf (ar->evidence, sizeof ar->evidence, "powercut could not run the --verify "
              "command: %s", strerror (ENOMEM));
    goto out;
  }
  strcpy (e_marks, "POWERCUT_MARKS=");
  for (size_t m = 0; m < k; m++) {
    strcat (e_marks, c->marks[m].name);
    if (m + 1 < k)
      strcat (e_marks, " ");
  }
  {
    char *env[] = { e_root, e_point, e_marks, e_last, e_durable, e_file, e_count, NULL };
    struct pc_proc_extra xe = { .env = env, .cwd = dir };
    r = pc_proc_run_extra (argv, &xe, c->cfg->timeout_s, out, PC_EVIDENCE_MAX * 4);
  }
  if (r == 0)
    ar->verdict = PC_V_OK;
  else if (r == -ETIME)
    snprintf (ar->evidence, sizeof ar->evidence, "the --verify command did not finish within "
              "%d s (give a longer --timeout)", c->cfg->timeout_s);
  else if (r < 0 || r == 126 || r == 127)
    snprintf (ar->evidence, sizeof ar->evidence, "the --verify command could not be run "
              "(%s): %.400s", r < 0 ? strerror (-r) : r == 127 ? "not found" : "not executable",
              out);
  else {
    /* The application says its data is not consistent: the first lines. */
    size_t n = (size_t) (r >= 256 ? snprintf (ar->evidence, sizeof ar->evidence,
                                              "the --verify command was killed by signal %d:",
                                              r - 256)
                                  : snprintf (ar->evidence, sizeof ar->evidence,
                                              "the --verify command exited with status %d:", r));
    int lines = 0;
    for (const char *l = out; *l && lines < 8 && n + 2 < sizeof ar->evidence; lines++) {
      size_t len = strcspn (l, "\n");
      n += (size_t) snprintf (ar->evidence + n, sizeof ar->evidence - n, "\n%.*s", (int) len, l);
      l += len + (l[len] == '\n');
    }
    ar->verdict = PC_V_APP_INVALID;
  }
  /* Whatever it did to its tree is undone before the next state. */
  if (pc_export_verify (x) == 1 && ar->verdict != PC_V_NOT_CHECKED) {
    size_t n = strlen (ar->evidence);
    snprintf (ar->evidence + n, sizeof ar->evidence - n, "%sthe --verify command changed its "
              "tree (undone for the next states)", n ? "\n" : "");
  }
out:
  free (out);
  free (e_root);
  free (e_point);
  free (e_marks);
  free (e_last);
  free (e_durable);
  free (e_file);
  free (e_count);
}

/* pc_oracle_lost_fn: state *ctx lost the version; keep the last such state. */
struct lost_ctx {
  struct ctx *c;
  int64_t state;
};

static void
lost_version (void *ctx, size_t version)
{
  struct lost_ctx *l = ctx;
  int64_t *slot = &l->c->sh->lost[version], seen = __atomic_load_n (slot, __ATOMIC_RELAXED);

  while (seen < l->state &&
         !__atomic_compare_exchange_n (slot, &seen, l->state, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_RELAXED))
    ;
}

/* Judges distinct image u (built into im) and its points.  Returns 0, or
 * -errno if the worker cannot go on (its results cannot be stored). */
static int
check_image (struct ctx *c, size_t u, const char *img, struct pc_image *im,
             struct pc_judge *jd, struct out *o, struct pc_export *x, const char *xdir,
             const char *mfile)
{
  struct app_result *ar = NULL;
  const struct pc_state *s = &c->states[c->uniq[u]];
  bool judge = pc_oracle_manifests (c->oracle) > 0, failed = false;
  struct pc_judgement jm;
  int r;

  r = pc_judge_state (jd, (int64_t) c->uniq[u], &jm);
  if (r < 0) {
    /* Not the state's fault: e2fsck is missing (an error of the check as
     * a whole), or memory or the scratch file failed (this state is not
     * checked). */
    char why[PC_EVIDENCE_MAX];
    if (r == -ENOENT)
      snprintf (why, sizeof why, "e2fsck not found (is e2fsprogs installed?)");
    else
      snprintf (why, sizeof why, "powercut could not check this state: %s", strerror (-r));
    for (size_t k = c->gstart[u]; k < c->gstart[u + 1]; k++) {
      r = put_result (c, o, c->gpoints[k], r == -ENOENT ? CHECK_ERROR : PC_V_NOT_CHECKED,
                      -1, why, NULL);
      if (r < 0)
        return r;
    }
    return 0;
  }
  if (jm.verdict == PC_V_OK && judge && !jm.have_tree) {
    /* libext2fs could not read what e2fsck passed; for want of memory,
     * nothing is known of the state. */
    jm.verdict = jm.tree_error == -ENOMEM ? PC_V_NOT_CHECKED : PC_V_UNMOUNTABLE;
    snprintf (jm.evidence, sizeof jm.evidence, "%s%s",
              jm.tree_error == -ENOMEM ? "powercut ran out of memory reading the tree: " : "",
              jm.problems);
  }
  if (x && jm.verdict == PC_V_OK) {
    if ((ar = malloc (sizeof *ar)) == NULL)
      r = -ENOMEM;
    else
      ar->nmarks = SIZE_MAX;
  }
  for (size_t k = c->gstart[u]; k < c->gstart[u + 1] && r == 0; k++) {
    size_t i = c->gpoints[k];
    struct pc_findings fl = { 0 };
    const char *ev = jm.evidence;
    int v = jm.verdict;
    bool fs_ok = v == PC_V_OK;
    if (v == PC_V_OK && judge) {
      struct lost_ctx lc = { c, (int64_t) i };
      v = pc_oracle_judge (c->oracle, c->states[i].point, &jm.tree, &fl, lost_version, &lc);
      if (v == -ENOMEM) {
        pc_findings_clear (&fl);
        v = PC_V_NOT_CHECKED;
        ev = "powercut ran out of memory judging the files of this state";
      }
      else if (jm.problems[0])
        ev = jm.problems;
    }
    if (ar && fs_ok && v != PC_V_NOT_CHECKED) {
      /* The application's checker, once per state and list of marks. */
      size_t nm = 0;
      while (nm < c->nmarks && c->marks[nm].record <= c->states[i].point)
        nm++;
      if (jm.export_error < 0) {
        ar->nmarks = SIZE_MAX;
        ar->verdict = PC_V_NOT_CHECKED;
        snprintf (ar->evidence, sizeof ar->evidence, "powercut could not write the tree for "
                  "--verify: %s", jm.export_why);
      }
      else if (ar->nmarks != nm)
        run_verify (c, i, xdir, mfile, nm, x, ar);
      if (ar->verdict != PC_V_OK) {
        v = ar->verdict;
        ev = ar->evidence;
      }
    }
    r = put_result (c, o, i, v, jm.fsck_as, ev, &fl);
    pc_findings_clear (&fl);
    failed |= v != PC_V_OK && v != PC_V_NOT_CHECKED;
  }
  pc_judgement_clear (&jm);
  free (ar);
  if (r < 0)
    return r;
  if (c->cfg->keep_dir && failed) {
    char sid[PC_ID_MAX], to[4096];
    pc_state_id (s, sid, sizeof sid);
    for (char *p = sid; *p; p++)
      if (*p == '/' || *p == ':' || *p == ',')
        *p = '_';
    snprintf (to, sizeof to, "%s/state-%s.img", c->cfg->keep_dir, sid);
    r = pc_image_sync (im);
    if (r < 0)
      return r;
    copy_file (img, to);
  }
  return 0;
}

/* Takes the next distinct image to check: chunks in order from the shared
 * counter, then any image still pending (left by a worker that died). */
static bool
claim (struct ctx *c, unsigned id, size_t *u)
{
  size_t i = *u + 1;

  if (i % CHUNK == 0 || i >= c->nuniq) {
    size_t start = __atomic_fetch_add (&c->sh->next, CHUNK, __ATOMIC_SEQ_CST);
    i = start < c->nuniq ? start : 0;
  }
  for (; i < c->nuniq; i++) {
    int expect = SLOT_PENDING;
    if (__atomic_compare_exchange_n (&c->sh->status[i], &expect, SLOT_RUNNING, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      __atomic_fetch_add (&c->sh->tries[i], 1, __ATOMIC_SEQ_CST);
      __atomic_store_n (&c->sh->current[id], i, __ATOMIC_SEQ_CST);
      *u = i;
      return true;
    }
  }
  return false;
}

static int
new_image (struct ctx *c, int fd, struct pc_image **im)
{
  return pc_image_new (c->ix.hdr.devsize, c->base, fd,
                       PC_IMAGE_HASH | (c->cfg->keep_trimmed ? PC_IMAGE_KEEP_TRIMMED : 0), im);
}

/* Tells the oracle what the end of the recording (built into im) holds,
 * so that paths the workload changed after its last mark are not judged
 * after it.  If the end cannot be read, no path is judged there. */
static int
end_tree (struct ctx *c, const char *img, struct pc_image *im, char *why, size_t whylen)
{
  struct pc_judge_config jc = {
    .image_path = img,
    .timeout_s = c->cfg->timeout_s,
    .now = c->now,
    .hash_limit = c->hash_limit,
    .read_tree = true,
    .plain = c->cfg->plain,
  };
  struct pc_judge *jd;
  struct pc_judgement jm;
  int r;

  if (pc_oracle_manifests (c->oracle) == 0)
    return 0;
  r = pc_judge_new (&jc, im, &jd);
  if (r < 0)
    return r;
  r = pc_judge_state (jd, -1, &jm);
  pc_judge_free (jd);
  if (r == -ENOENT) {
    snprintf (why, whylen, "e2fsck not found (is e2fsprogs installed?)");
    return r;
  }
  if (r < 0) {
    snprintf (why, whylen, "%s: reading the end of the recording: %s", c->cfg->log_path,
              strerror (-r));
    return r;
  }
  r = pc_oracle_set_end (c->oracle, jm.verdict == PC_V_OK && jm.have_tree ? &jm.tree : NULL);
  pc_judgement_clear (&jm);
  return r;
}

/* Is there an ext2/3/4 filesystem on the device at the end of the log?  A
 * recording of anything else cannot be checked: that is an error of the
 * check (in why), not a verdict at every point.  Returns 0 or -errno. */
static int
probe_end (struct ctx *c, char *why, size_t whylen)
{
  char img[4200], type[16];
  struct pc_image *im = NULL;
  struct pc_state s;
  const char *bad;
  uint64_t cursor = 0;
  int fd, r;

  snprintf (img, sizeof img, "%s/end.img", c->work);
  fd = open (img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    r = -errno;
    snprintf (why, whylen, "%s: %s", img, strerror (-r));
    return r;
  }
  memset (&s, 0, sizeof s);
  r = new_image (c, fd, &im);
  if (r == 0 && c->ix.n > 0 && pc_state_parse (&c->ix, "end", &s, &bad) == 0) {
    r = pc_state_build (&c->ix, &s, im, &cursor);
    if (r > 0)
      r = 0;
  }
  if (r == 0)
    r = pc_image_sync (im);
  if (r < 0)
    snprintf (why, whylen, "%s: rebuilding its end: %s", c->cfg->log_path, strerror (-r));
  else if ((r = pc_fs_probe (img, type, sizeof type)) < 0)
    snprintf (why, whylen, "%s: blkid cannot probe its end: %s", c->cfg->log_path,
              strerror (-r));
  else if (r == 0) {
    snprintf (why, whylen, "%s: no ext2/ext3/ext4 filesystem on the device at the end "
              "of the recording (blkid finds %s)", c->cfg->log_path, type[0] ? type : "none");
    r = -EMEDIUMTYPE;
  }
  else
    r = end_tree (c, img, im, why, whylen);
  pc_state_clear (&s);
  pc_image_free (im);
  close (fd);
  unlink (img);
  return r;
}

/* Adds a worker's counts to the shared sums. */
static void
add_stats (struct ctx *c, const struct pc_judge_stats *st)
{
  struct pc_judge_stats *t = &c->sh->stats;

  __atomic_fetch_add (&t->states, st->states, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->fsck_runs, st->fsck_runs, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->fsck_reused, st->fsck_reused, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->recover_here, st->recover_here, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->recover_e2fsck, st->recover_e2fsck, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->files_read, st->files_read, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->files_reused, st->files_reused, __ATOMIC_SEQ_CST);
}

/* Exit statuses of a worker that cannot go on. */
#define WORKER_SETUP_FAILED 3   /* its image or judge could not be made */
#define WORKER_OUTPUT_FAILED 4  /* its results could not be stored */

/* A worker process: one image (and its file), brought from state to state. */
static void
worker (struct ctx *c, unsigned id)
{
  char img[4096], out[4096];
  struct pc_image *im = NULL;
  struct pc_judge *jd = NULL;
  struct pc_judge_stats st;
  struct pc_judge_config jc = {
    .image_path = img,
    .timeout_s = c->cfg->timeout_s,
    .now = c->now,
    .hash_limit = c->hash_limit,
    .read_tree = pc_oracle_manifests (c->oracle) > 0 || c->cfg->verify,
    .plain = c->cfg->plain,
  };
  struct out o = { .id = id };
  struct pc_export *x = NULL;
  char xdir[4096], mfile[4096];
  uint64_t cursor = 0;
  size_t u = SIZE_MAX;
  int fd, r;

  snprintf (img, sizeof img, "%s/state-%u.img", c->work, id);
  snprintf (out, sizeof out, "%s/results-%u", c->work, id);
  snprintf (xdir, sizeof xdir, "%s/tree-%u", c->work, id);
  snprintf (mfile, sizeof mfile, "%s/marks-%u", c->work, id);
  fd = open (img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  o.fd = open (out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (c->cfg->verify && pc_export_new (xdir, &x) < 0)
    _exit (WORKER_SETUP_FAILED);
  jc.export = x;
  if (fd < 0 || o.fd < 0 || new_image (c, fd, &im) < 0 || pc_judge_new (&jc, im, &jd) < 0)
    _exit (WORKER_SETUP_FAILED);
  while (claim (c, id, &u)) {
    const struct pc_state *s = &c->states[c->uniq[u]];
    if (s->base < cursor) {
      /* Cannot go back: start again from the beginning (the judge's
       * memory is of this image's blocks, so it starts again too). */
      pc_judge_get_stats (jd, &st);
      add_stats (c, &st);
      pc_judge_free (jd);
      jd = NULL;
      pc_image_free (im);
      cursor = 0;
      if (new_image (c, fd, &im) < 0 || pc_judge_new (&jc, im, &jd) < 0)
        _exit (WORKER_SETUP_FAILED);
    }
    r = pc_state_build (&c->ix, s, im, &cursor);
    if (r < 0) {
      /* Nothing is known of a state that could not be rebuilt; the image
       * is in no known state either: start again for the next one. */
      char why[256];
      snprintf (why, sizeof why, "powercut could not rebuild this state: %s", strerror (-r));
      for (size_t k = c->gstart[u]; k < c->gstart[u + 1]; k++)
        if (put_result (c, &o, c->gpoints[k], PC_V_NOT_CHECKED, -1, why, NULL) < 0)
          _exit (WORKER_OUTPUT_FAILED);
      cursor = UINT64_MAX;
    }
    else {
      if (check_image (c, u, img, im, jd, &o, x, xdir, mfile) < 0)
        _exit (WORKER_OUTPUT_FAILED);
      if (r == 1)
        pc_image_overlay_end (im);
    }
    __atomic_store_n (&c->sh->current[id], SIZE_MAX, __ATOMIC_SEQ_CST);
    __atomic_store_n (&c->sh->status[u], SLOT_DONE, __ATOMIC_SEQ_CST);
    __atomic_fetch_add (&c->sh->done, 1, __ATOMIC_SEQ_CST);
  }
  pc_judge_get_stats (jd, &st);
  add_stats (c, &st);
  pc_judge_free (jd);
  pc_image_free (im);
  pc_export_free (x);
  unlink (mfile);
  free (o.buf);
  close (o.fd);
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

/* Gives up on distinct image u: its points are not checked, for why. */
static int
fail_image (struct ctx *c, size_t u, const char *why)
{
  if (c->failed[u] == NULL && (c->failed[u] = strdup (why)) == NULL)
    return -ENOMEM;
  __atomic_store_n (&c->sh->status[u], SLOT_DONE, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&c->sh->done, 1, __ATOMIC_SEQ_CST);
  return 0;
}

/* Worker id died (status as waitpid gave it): the image it held is tried
 * again by another, or given up on once it has been tried TRIES times. */
static int
worker_died (struct ctx *c, unsigned id, int status)
{
  size_t u = __atomic_load_n (&c->sh->current[id], __ATOMIC_SEQ_CST);
  char why[256];

  if (u == SIZE_MAX || __atomic_load_n (&c->sh->status[u], __ATOMIC_SEQ_CST) != SLOT_RUNNING)
    return 0;
  __atomic_store_n (&c->sh->current[id], SIZE_MAX, __ATOMIC_SEQ_CST);
  if (__atomic_load_n (&c->sh->tries[u], __ATOMIC_SEQ_CST) < TRIES) {
    __atomic_store_n (&c->sh->status[u], SLOT_PENDING, __ATOMIC_SEQ_CST);
    return 0;
  }
  if (WIFSIGNALED (status))
    snprintf (why, sizeof why, "powercut's checker died on this state %d times "
              "(killed by signal %d, %s)", TRIES, WTERMSIG (status),
              strsignal (WTERMSIG (status)));
  else if (WEXITSTATUS (status) == WORKER_OUTPUT_FAILED)
    snprintf (why, sizeof why, "powercut's checker could not store its results "
              "(is the scratch directory %s full?)", c->work);
  else
    snprintf (why, sizeof why, "powercut's checker died on this state %d times "
              "(exit status %d)", TRIES, WEXITSTATUS (status));
  return fail_image (c, u, why);
}

static int
run_workers (struct ctx *c)
{
  unsigned jobs = c->cfg->jobs ? c->cfg->jobs : 1;
  pid_t *pids;
  unsigned *ids, alive = 0, next_id = 0, idle_deaths = 0;
  size_t total = c->nuniq;
  int r = 0;

  if (total == 0)
    return 0;
  if (jobs > total)
    jobs = (unsigned) total;
  pids = calloc (jobs, sizeof *pids);
  ids = calloc (jobs, sizeof *ids);
  if (pids == NULL || ids == NULL) {
    free (pids);
    free (ids);
    return -ENOMEM;
  }
  for (unsigned i = 0; i < jobs; i++) {
    ids[i] = next_id;
    pids[i] = spawn (c, next_id++);
    if (pids[i] < 0) {
      r = -errno;
      break;
    }
    alive++;
  }
  while (alive > 0) {
    int status;
    pid_t p;
    if (c->cfg->interrupted && *c->cfg->interrupted) {
      /* Stopped: the workers go now; the caller removes their files. */
      for (unsigned i = 0; i < jobs; i++)
        if (pids[i] > 0) {
          kill (pids[i], SIGKILL);
          waitpid (pids[i], NULL, 0);
          pids[i] = 0;
        }
      r = -EINTR;
      break;
    }
    p = waitpid (-1, &status, WNOHANG);
    if (p == 0) {
      struct timespec ts = { 0, 50 * 1000 * 1000 };
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
      bool held;
      if (pids[i] != p)
        continue;
      alive--;
      pids[i] = 0;
      if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
        break;
      /* A worker died: what it held is tried again or given up on, and
       * its place is taken (not forever if workers die holding nothing). */
      held = __atomic_load_n (&c->sh->current[ids[i]], __ATOMIC_SEQ_CST) != SIZE_MAX;
      r = worker_died (c, ids[i], status);
      if (r < 0)
        break;
      idle_deaths += !held;
      if (__atomic_load_n (&c->sh->done, __ATOMIC_SEQ_CST) < total && idle_deaths < 4 &&
          next_id < c->max_workers && !(c->cfg->interrupted && *c->cfg->interrupted)) {
        pid_t np;
        ids[i] = next_id;
        np = spawn (c, next_id++);
        if (np > 0) {
          pids[i] = np;
          alive++;
        }
      }
      break;
    }
    if (r < 0)
      break;
  }
  for (unsigned i = 0; r < 0 && i < jobs; i++)
    if (pids[i] > 0) {
      kill (pids[i], SIGKILL);
      waitpid (pids[i], NULL, 0);
    }
  for (size_t u = 0; r == 0 && u < total; u++)
    if (c->sh->status[u] != SLOT_DONE)
      r = fail_image (c, u, "powercut could not start a checker for this state");
  if (r == 0 && c->cfg->progress)
    c->cfg->progress (c->cfg->progress_ctx, total, total);
  c->spawned = next_id;
  free (pids);
  free (ids);
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

/* Step 1: the log, its base image, and what the result says of them. */
static int
load_inputs (struct ctx *c, struct pc_check_result *res, char *why, size_t whylen)
{
  const struct pc_check_config *cfg = c->cfg;
  int r;

  r = pc_index_load (cfg->log_path, &c->ix);
  if (r < 0) {
    snprintf (why, whylen, "%s: %s", cfg->log_path, pc_log_strerror (r));
    return r;
  }
  if (c->ix.end == PC_END_CORRUPT) {
    char m[256];
    snprintf (why, whylen, "%s: %s", cfg->log_path,
              pc_log_corrupt_message (c->ix.log, m, sizeof m));
    return -EBADMSG;
  }
  if (c->ix.hdr.flags & PC_LOG_F_BASE) {
    uint8_t h[16];
    if (cfg->base_path == NULL) {
      snprintf (why, whylen, "%s: the recording started from base image %s: give --base",
                cfg->log_path, c->ix.hdr.basename);
      return -EINVAL;
    }
    r = pc_image_read (cfg->base_path, c->ix.hdr.devsize, 0, &c->basemem, &c->basesize, h);
    if (r < 0) {
      snprintf (why, whylen, "%s: %s", cfg->base_path,
                r == -EINVAL ? "not the size of the recorded device" : strerror (-r));
      return r;
    }
    if (memcmp (h, c->ix.hdr.basehash, 16) != 0) {
      snprintf (why, whylen, "%s: not the base image the recording started from (hash differs)",
                cfg->base_path);
      return -EINVAL;
    }
    c->base = c->basemem;
  }
  else if (cfg->base_path) {
    snprintf (why, whylen, "%s: the recording started from zeros, not a base image",
              cfg->base_path);
    return -EINVAL;
  }

  if ((res->log_path = strdup (cfg->log_path)) == NULL ||
      (cfg->base_path && (res->base_path = strdup (cfg->base_path)) == NULL) ||
      (cfg->verify && (res->verify = strdup (cfg->verify)) == NULL))
    return -ENOMEM;
  /* Every mark's name, record and sync flag, for --verify's environment. */
  for (uint64_t i = 0; cfg->verify && i < c->ix.n; i++) {
    struct pc_mark m;
    if (c->ix.recs[i].type != PC_REC_MARK)
      continue;
    r = pc_mark_decode (c->ix.recs[i].data, c->ix.recs[i].datalen, &m, NULL, 0);
    if (r < 0) {
      snprintf (why, whylen, "%s: record %" PRIu64 ": the mark cannot be decoded",
                cfg->log_path, i);
      return r;
    }
    if (pc_grow (&c->marks, &c->capmarks, c->nmarks + 1, sizeof *c->marks, 16) < 0) {
      pc_mark_free (&m);
      return -ENOMEM;
    }
    c->marks[c->nmarks++] = (struct vmark) { m.name, i, (m.flags & PC_MARK_F_SYNC) != 0 };
    m.name = NULL;
    pc_mark_free (&m);
  }
  res->model = cfg->model;
  res->keep_trimmed = cfg->keep_trimmed;
  res->log_start_ns = c->ix.hdr.start_ns;
  res->records = c->ix.n;
  res->device_size = c->ix.hdr.devsize;
  res->log_torn = c->ix.end != PC_END_CLEAN;
  res->shard = cfg->shard;
  res->nshards = cfg->nshards ? cfg->nshards : 1;

  if (cfg->from_mark) {
    int64_t m = pc_index_find_mark (&c->ix, cfg->from_mark);
    if (m < 0) {
      snprintf (why, whylen, "%s: no mark named '%s'", cfg->log_path, cfg->from_mark);
      return -EINVAL;
    }
    res->from_record = (uint64_t) m;
    snprintf (res->from, sizeof res->from, "%s", cfg->from_mark);
  }
  else {
    for (uint64_t i = 0; i < c->ix.n; i++)
      if (c->ix.recs[i].type == PC_REC_MARK) {
        res->from_record = i;
        /* The name is the payload's u16-prefixed string at offset 8. */
        size_t nl = c->ix.recs[i].data[8] | c->ix.recs[i].data[9] << 8;
        if (nl < sizeof res->from && 10 + nl <= c->ix.recs[i].datalen) {
          memcpy (res->from, c->ix.recs[i].data + 10, nl);
          res->from[nl] = '\0';
        }
        break;
      }
  }
  return 0;
}

/* The points of each distinct image, grouped: gpoints[gstart[u]..gstart[u+1]). */
static int
group_points (struct ctx *c)
{
  size_t *rep_to_u = malloc ((c->nstates ? c->nstates : 1) * sizeof *rep_to_u);

  c->gstart = calloc (c->nuniq + 2, sizeof *c->gstart);
  c->gpoints = malloc ((c->nstates ? c->nstates : 1) * sizeof *c->gpoints);
  if (rep_to_u == NULL || c->gstart == NULL || c->gpoints == NULL) {
    free (rep_to_u);
    return -ENOMEM;
  }
  for (size_t u = 0; u < c->nuniq; u++)
    rep_to_u[c->uniq[u]] = u;
  for (size_t i = 0; i < c->nstates; i++)
    c->gstart[rep_to_u[c->same_as[i] >= 0 ? (size_t) c->same_as[i] : i] + 2]++;
  for (size_t u = 0; u < c->nuniq; u++)
    c->gstart[u + 2] += c->gstart[u + 1];
  for (size_t i = 0; i < c->nstates; i++)
    c->gpoints[c->gstart[rep_to_u[c->same_as[i] >= 0 ? (size_t) c->same_as[i] : i] + 1]++] = i;
  free (rep_to_u);
  return 0;
}

/* The share of shard i of n: contiguous crash states holding an equal
 * share of the work, which is the distinct images to check (a state's
 * image first seen there).  Every shard computes the same cuts: the
 * images of all states, in order.  Unsharded: everything. */
static int
shard_range (struct ctx *c, const struct pc_check_result *res, size_t *lo, size_t *hi)
{
  int64_t *same_as;
  size_t *cut, firsts = 0, total;
  int r;

  *lo = 0;
  *hi = c->nall;
  if (res->nshards <= 1 || c->nall == 0)
    return 0;
  same_as = malloc (c->nall * sizeof *same_as);
  cut = calloc (res->nshards + 1, sizeof *cut);
  if (same_as == NULL || cut == NULL) {
    free (same_as);
    free (cut);
    return -ENOMEM;
  }
  c->states = c->all;
  c->nstates = c->nall;
  r = dedupe (c, same_as);
  total = c->nuniq;
  free (c->uniq);
  c->uniq = NULL;
  c->nuniq = 0;
  if (r == 0) {
    /* Shard s starts at the state where the (s * total / n)-th distinct
     * image is first seen. */
    unsigned s = 1;
    for (size_t i = 0; i < c->nall && s < res->nshards; i++) {
      while (s < res->nshards && firsts >= total * s / res->nshards)
        cut[s++] = i;
      firsts += same_as[i] < 0;
    }
    while (s < res->nshards)
      cut[s++] = c->nall;
    cut[res->nshards] = c->nall;
    *lo = cut[res->shard];
    *hi = cut[res->shard + 1];
  }
  free (same_as);
  free (cut);
  return r;
}

/* Step 2: the states of this shard, their distinct images, the oracle,
 * and scratch space. */
static int
plan_states (struct ctx *c, struct pc_check_result *res, char *why, size_t whylen)
{
  const struct pc_check_config *cfg = c->cfg;
  size_t lo, hi;
  char tmpl[4096], ow[256];
  int r;

  r = pc_states_enumerate (&c->ix, &cfg->model, res->from_record, &c->all, &c->nall);
  if (r < 0)
    return r;
  /* This shard's contiguous share. */
  r = shard_range (c, res, &lo, &hi);
  if (r < 0) {
    snprintf (why, whylen, "%s: sharding: %s", cfg->log_path, strerror (-r));
    return r;
  }
  c->states = c->all + lo;
  c->nstates = hi - lo;

  res->npoints = c->nstates;
  res->points = calloc (c->nstates ? c->nstates : 1, sizeof *res->points);
  c->same_as = calloc (c->nstates ? c->nstates : 1, sizeof *c->same_as);
  if (res->points == NULL || c->same_as == NULL)
    return -ENOMEM;
  r = dedupe (c, c->same_as);
  if (r < 0) {
    char sz[32];
    snprintf (why, whylen, "%s: rebuilding states of a %s device: %s", cfg->log_path,
              pc_format_size (c->ix.hdr.devsize, sz, sizeof sz), strerror (-r));
    return r;
  }
  r = group_points (c);
  if (r < 0)
    return r;

  snprintf (tmpl, sizeof tmpl, "%s/powercut-check.XXXXXX",
            cfg->work_dir ? cfg->work_dir : default_tmp ());
  c->work = strdup (tmpl);
  if (c->work == NULL || mkdtemp (c->work) == NULL) {
    r = c->work ? -errno : -ENOMEM;
    snprintf (why, whylen, "%s: %s", tmpl, strerror (-r));
    free (c->work);
    c->work = NULL;
    return r;
  }

  r = pc_oracle_new (&c->ix, &c->oracle, ow, sizeof ow);
  if (r < 0) {
    snprintf (why, whylen, "%s: %s", cfg->log_path, r == -ENOMEM ? strerror (ENOMEM) : ow);
    return r;
  }
  c->hash_limit = pc_oracle_max_size (c->oracle);
  res->manifests = pc_oracle_manifests (c->oracle);
  if (pc_oracle_last_mark (c->oracle))
    snprintf (res->last_mark, sizeof res->last_mark, "%s", pc_oracle_last_mark (c->oracle));
  res->unique = c->nuniq;
  return probe_end (c, why, whylen);
}

/* Step 3: the worker pool, over the shared result slots. */
static int
check_states (struct ctx *c, char *why, size_t whylen)
{
  size_t nres = c->nstates ? c->nstates : 1, nu = c->nuniq ? c->nuniq : 1, nv;
  unsigned jobs = c->cfg->jobs ? c->cfg->jobs : 1;
  int r;

  pc_oracle_versions (c->oracle, &nv);

  /* Room for every worker that may be started: the first ones, one for
   * each death while holding a state, and a few that die holding none. */
  c->max_workers = jobs + TRIES * (unsigned) (c->nuniq < 1000000 ? c->nuniq : 1000000) + 4;
  c->failed = calloc (nu, sizeof *c->failed);
  if (c->failed == NULL)
    return -ENOMEM;
  c->shsize = sizeof *c->sh + nres * sizeof (struct result) + (nv + 1) * sizeof (int64_t) +
              2 * nu * sizeof (int) + c->max_workers * sizeof (size_t);
  c->shmem = mmap (NULL, c->shsize, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (c->shmem == MAP_FAILED) {
    c->shmem = NULL;
    return -errno;
  }
  c->sh = c->shmem;
  c->sh->results = (struct result *) ((uint8_t *) c->shmem + sizeof *c->sh);
  c->sh->lost = (int64_t *) (c->sh->results + nres);
  memset (c->sh->lost, 0xff, nv * sizeof (int64_t));
  c->sh->current = (size_t *) (c->sh->lost + nv + 1);
  c->sh->status = (int *) (c->sh->current + c->max_workers);
  c->sh->tries = c->sh->status + nu;
  memset (c->sh->current, 0xff, c->max_workers * sizeof (size_t));
  for (size_t i = 0; i < nres; i++)
    c->sh->results[i] = (struct result) { .verdict = PC_V_NOT_CHECKED, .fsck_as = -1,
                                          .file = -1 };
  r = run_workers (c);
  if (r < 0)
    snprintf (why, whylen, r == -EINTR ? "interrupted" : "running checkers: %s", strerror (-r));
  return r;
}

/* The workers' results files, read whole. */
struct outputs {
  uint8_t **data;
  uint64_t *size;
  unsigned n;
};

static void
outputs_free (struct outputs *o)
{
  for (unsigned i = 0; i < o->n; i++)
    free (o->data[i]);
  free (o->data);
  free (o->size);
}

static int
outputs_read (struct ctx *c, struct outputs *o)
{
  o->n = c->spawned;
  o->data = calloc (o->n ? o->n : 1, sizeof *o->data);
  o->size = calloc (o->n ? o->n : 1, sizeof *o->size);
  if (o->data == NULL || o->size == NULL)
    return -ENOMEM;
  for (unsigned i = 0; i < o->n; i++) {
    char path[4200];
    struct stat st;
    int fd, r = 0;
    snprintf (path, sizeof path, "%s/results-%u", c->work, i);
    fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;                 /* it died before it made one: it holds nothing */
    if (fstat (fd, &st) < 0)
      r = -errno;
    else if ((o->data[i] = malloc (st.st_size ? (size_t) st.st_size : 1)) == NULL)
      r = -ENOMEM;
    else if ((r = pc_pread_all (fd, o->data[i], (uint64_t) st.st_size, 0)) == 0)
      o->size[i] = (uint64_t) st.st_size;
    close (fd);
    if (r < 0)
      return r;
  }
  return 0;
}

/* Point p's evidence and findings from the record rs names. */
static int
read_record (const struct outputs *o, const struct result *rs, struct pc_point *p)
{
  const uint8_t *d;
  size_t el, used;

  if (rs->file < 0 || (uint64_t) rs->file >= o->n || o->data[rs->file] == NULL ||
      rs->off > o->size[rs->file] || rs->len > o->size[rs->file] - rs->off || rs->len < 4)
    return -EBADMSG;
  d = o->data[rs->file] + rs->off;
  el = pc_get_le32 (d);
  if (el > rs->len - 4)
    return -EBADMSG;
  snprintf (p->evidence, sizeof p->evidence, "%.*s", (int) el, (const char *) d + 4);
  return pc_findings_unpack (d + 4 + el, rs->len - 4 - el, &used, &p->findings);
}

/* The versions the marks recorded, and the last state that lost each. */
static int
windows (struct ctx *c, struct pc_check_result *res)
{
  size_t nv;
  const struct pc_oracle_version *v = pc_oracle_versions (c->oracle, &nv);

  res->windows = calloc (nv ? nv : 1, sizeof *res->windows);
  if (res->windows == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < nv; i++) {
    struct pc_window *w = &res->windows[i];
    if ((w->path = strdup (v[i].path)) == NULL)
      return -ENOMEM;
    res->nwindows = i + 1;
    snprintf (w->mark, sizeof w->mark, "%s", v[i].mark);
    w->mark_record = v[i].record;
    w->written_ns = pc_window_time (c->ix.recs[v[i].record].time_ns);
    if (v[i].ack) {
      snprintf (w->ack, sizeof w->ack, "%s", v[i].ack);
      w->ack_record = v[i].ack_record;
      w->ack_ns = pc_window_time (c->ix.recs[v[i].ack_record].time_ns);
    }
    w->lost_until = c->sh->lost[i];
  }
  pc_windows_compute (res);
  return 0;
}

/* Step 4: the workers' results into the points. */
static int
collect (struct ctx *c, struct pc_check_result *res, char *why, size_t whylen)
{
  struct outputs o = { 0 };
  size_t *image = NULL;
  int r = outputs_read (c, &o);

  /* Which distinct image each point is. */
  if (r == 0 && (image = malloc ((c->nstates ? c->nstates : 1) * sizeof *image)) == NULL)
    r = -ENOMEM;
  for (size_t u = 0; r == 0 && u < c->nuniq; u++)
    for (size_t k = c->gstart[u]; k < c->gstart[u + 1]; k++)
      image[c->gpoints[k]] = u;
  for (size_t i = 0; r == 0 && i < c->nstates; i++) {
    struct pc_point *p = &res->points[i];
    const struct pc_state *s = &c->states[i];
    const struct result *rs = &c->sh->results[i];
    pc_state_id (s, p->id, sizeof p->id);
    p->record = s->point;
    p->time_ns = pc_window_time (c->ix.recs[s->point].time_ns);
    p->ndrop = s->ndrop;
    p->torn = s->nsect > 0;
    p->same_as = c->same_as[i];
    p->fsck_as = -1;
    if (c->failed[image[i]]) {
      p->verdict = PC_V_NOT_CHECKED;
      snprintf (p->evidence, sizeof p->evidence, "%s", c->failed[image[i]]);
      continue;
    }
    r = read_record (&o, rs, p);
    if (r == -EBADMSG) {
      /* Cannot be: a result the worker stored is in its file. */
      snprintf (why, whylen, "point %s: its result cannot be read back", p->id);
      break;
    }
    if (r < 0)
      break;
    if (rs->verdict == CHECK_ERROR) {
      snprintf (why, whylen, "cannot check crash states: %s", p->evidence);
      r = -EIO;
      break;
    }
    p->verdict = rs->verdict;
    /* Its e2fsck answer came from the state checked for that image. */
    p->fsck_as = rs->fsck_as;
    if (p->same_as >= 0 && p->fsck_as < 0)
      p->fsck_as = c->sh->results[p->same_as].fsck_as;
  }
  free (image);
  outputs_free (&o);
  if (r < 0)
    return r;
  res->work = c->sh->stats;
  pc_check_result_recount (res);
  return windows (c, res);
}

static void
ctx_free (struct ctx *c)
{
  if (c->work) {
    char p[4200];
    /* Workers remove their files; a dead one's are removed here. */
    for (unsigned i = 0; i < c->spawned; i++) {
      snprintf (p, sizeof p, "%s/state-%u.img", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/results-%u", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/marks-%u", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/tree-%u", c->work, i);
      pc_export_remove (p);
    }
    rmdir (c->work);
    free (c->work);
  }
  if (c->shmem)
    munmap (c->shmem, c->shsize);
  pc_oracle_free (c->oracle);
  for (size_t m = 0; m < c->nmarks; m++)
    free (c->marks[m].name);
  free (c->marks);
  for (size_t u = 0; c->failed && u < c->nuniq; u++)
    free (c->failed[u]);
  free (c->failed);
  free (c->gstart);
  free (c->gpoints);
  free (c->uniq);
  free (c->same_as);
  pc_states_free (c->all, c->nall);
  pc_image_unmap (c->basemem, c->basesize);
  pc_index_free (&c->ix);
}

int
pc_check_run (const struct pc_check_config *cfg, struct pc_check_result **ret,
              char *why, size_t whylen)
{
  struct ctx c;
  struct pc_check_result *res;
  uint64_t t0 = pc_now_mono_ns ();
  int r;

  memset (&c, 0, sizeof c);
  c.cfg = cfg;
  c.now = (int64_t) (pc_now_real_ns () / 1000000000u);
  res = calloc (1, sizeof *res);
  if (res == NULL) {
    snprintf (why, whylen, "%s", strerror (ENOMEM));
    return -ENOMEM;
  }
  why[0] = '\0';
  r = load_inputs (&c, res, why, whylen);
  if (r == 0)
    r = plan_states (&c, res, why, whylen);
  if (r == 0)
    r = check_states (&c, why, whylen);
  if (r == 0)
    r = collect (&c, res, why, whylen);
  if (r < 0 && why[0] == '\0')
    snprintf (why, whylen, "%s", strerror (-r));
  ctx_free (&c);
  if (r < 0) {
    pc_check_result_free (res);
    return r;
  }
  res->seconds = (pc_now_mono_ns () - t0) / 1e9;
  *ret = res;
  return 0;
}
