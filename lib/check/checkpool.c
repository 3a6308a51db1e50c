/* checkpool.c: the checker's worker pool: processes that each bring one
 * image from state to state, judge it (checkone.c), and store every
 * point's result; the pool's own: claiming images, workers that die. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/checkint.h"
#include "fs/fs.h"
#include "util/disk.h"
#include "util/kmount.h"
#include "judge/export.h"
#include "judge/judge.h"
#include "judge/kjudge.h"
#include "judge/recrash.h"
#include "oracle/oracle.h"
#include "result/finding.h"
#include "util/proc.h"
#include "util/util.h"
#include "util/err.h"

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

/* Adds a worker's counts to the shared sums. */
static void
add_stats (struct ctx *c, const struct pc_check_work *st)
{
  struct pc_check_work *t = &c->sh->stats;

  __atomic_fetch_add (&t->states, st->states, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->fsck_runs, st->fsck_runs, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->fsck_reused, st->fsck_reused, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->recover_here, st->recover_here, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->recover_e2fsck, st->recover_e2fsck, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->preened, st->preened, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->by_hand, st->by_hand, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->kernel, st->kernel, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 5; i++)
    __atomic_fetch_add (&t->kernel_ns[i], st->kernel_ns[i], __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->files_read, st->files_read, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->files_reused, st->files_reused, __ATOMIC_SEQ_CST);
  __atomic_fetch_add (&t->journal_dropped, st->journal_dropped, __ATOMIC_SEQ_CST);
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
  struct pc_check_work st;
  struct pc_judge_config jc = {
    .image_path = img,
    .mode = c->cfg->judge,
    .kernel_ok = c->kernel_ok,
    .timeout_s = c->cfg->timeout_s,
    .now = c->now,
    .hash_limit = c->hash_limit,
    .read_tree = pc_oracle_judges (c->oracle) || c->cfg->verify,
    .plain = c->cfg->plain,
  };
  struct check_out o = { .id = id };
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
  if (fd < 0 || o.fd < 0 || check_new_image (c, fd, &im) < 0 || pc_judge_new (&jc, im, &jd) < 0)
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
      if (check_new_image (c, fd, &im) < 0 || pc_judge_new (&jc, im, &jd) < 0)
        _exit (WORKER_SETUP_FAILED);
    }
    r = pc_state_build (&c->ix, s, im, &cursor);
    if (r < 0) {
      /* Nothing is known of a state that could not be rebuilt; the image
       * is in no known state either: start again for the next one. */
      char why[256];
      snprintf (why, sizeof why, "powercut could not rebuild this state: %s", strerror (-r));
      for (size_t k = c->gstart[u]; k < c->gstart[u + 1]; k++)
        if (check_put_result (c, &o, c->gpoints[k], PC_V_NOT_CHECKED, -1, false, why, NULL) < 0)
          _exit (WORKER_OUTPUT_FAILED);
      cursor = UINT64_MAX;
    }
    else {
      if (check_image (c, u, img, im, jd, &o, x, xdir, mfile) < 0)
        _exit (WORKER_OUTPUT_FAILED);
      if (c->cfg->recovery_crashes && c->kernel_ok && check_recovery_crashes (c, u, id, im, &o) < 0)
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
  check_restore_free (c);
  unlink (mfile);
  {
    char afile[4200];
    snprintf (afile, sizeof afile, "%s.acks", mfile);
    unlink (afile);
  }
  free (o.buf);
  close (o.fd);
  close (fd);
  unlink (img);
  _exit (0);
}

static pid_t
spawn (struct ctx *c, unsigned id)
{
  pid_t parent = getpid (), pid = fork ();

  if (pid == 0) {
    /* a worker does not outlive the check (killed, it cannot say) */
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    if (getppid () != parent)
      _exit (WORKER_SETUP_FAILED);
    signal (SIGINT, SIG_DFL);
    /* a worker that may let the kernel mount a state mounts in its own
     * namespace: a mount it leaves, killed, goes away with it */
    if (c->cfg->judge != PC_JUDGE_EXT2FS) {
      struct pc_err why;
      c->kernel_ok = geteuid () == 0 && pc_mount_ns_private (&why) == 0;
      if ((c->cfg->judge == PC_JUDGE_KERNEL || c->cfg->judge == PC_JUDGE_BOTH) && !c->kernel_ok)
        _exit (WORKER_SETUP_FAILED);
    }
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
  /* copies of one filesystem that this kernel cannot mount at once
   * (fs.h): one state at a time */
  if (c->fs && !c->fs->libext2fs && !pc_fs_kernel_mounts_copies (c->fs))
    jobs = 1;
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
    if (pc_interrupted ()) {
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
          next_id < c->max_workers && !pc_interrupted ()) {
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

/* Step 3: the worker pool, over the shared result slots. */
int
check_states (struct ctx *c, struct pc_err *why)
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
    pc_err_msg (why, r == -EINTR ? "interrupted" : "running checkers: %s", strerror (-r));
  return r;
}
