/* checker.c: checking every crash state of a log: load the inputs, plan
 * and deduplicate the states, run the worker pool (checkpool.c), collect
 * (collect.c). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/checker.h"
#include "check/checkint.h"
#include "util/disk.h"
#include "judge/export.h"
#include "judge/fsck.h"
#include "judge/judge.h"
#include "format/acksel.h"
#include "format/event.h"
#include "format/mark.h"
#include "fs/fs.h"
#include "util/kmount.h"
#include "oracle/oracle.h"
#include "util/util.h"
#include "result/result.h"


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
  r = check_new_image (c, -1, &im);
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

/* The tree of the end (built into im, mirrored in img) as the kernel
 * reads it, for a filesystem libext2fs does not: judged in a child of a
 * mount namespace of its own (nothing stays mounted if it dies), the
 * tree sent back as a manifest (mark.h).  Returns 1 with *ret filled (free
 * with pc_mark_free), 0 if the end could not be read, or -ENOMEM. */
static int
end_kernel_tree (struct ctx *c, const char *img, struct pc_image *im, struct pc_mark *ret)
{
  struct pc_judge_config jc = {
    .image_path = img, .mode = PC_JUDGE_KERNEL, .kernel_ok = true,
    .timeout_s = c->cfg->timeout_s, .now = c->now, .hash_limit = c->hash_limit,
    .read_tree = true,
  };
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  int fds[2], status, r = 0;
  pid_t pid;

  if (geteuid () != 0 || pipe2 (fds, O_CLOEXEC) < 0)
    return 0;
  pid = fork ();
  if (pid == 0) {
    struct pc_judgement jm;
    struct pc_judge *jd;
    struct pc_err e;
    uint8_t *out;
    size_t n;
    close (fds[0]);
    if (pc_mount_ns_private (&e) < 0 || pc_judge_new (&jc, im, &jd) < 0 ||
        pc_judge_state (jd, -1, &jm) < 0 || jm.verdict != PC_V_OK || !jm.have_tree ||
        (jm.tree.name = strdup ("end")) == NULL || pc_mark_encode (&jm.tree, &out, &n) < 0)
      _exit (1);
    _exit (pc_write_all (fds[1], out, n) < 0 ? 1 : 0);
  }
  close (fds[1]);
  while (pid > 0) {
    ssize_t got;
    if (pc_grow (&buf, &cap, len + 65536, 1, 65536) < 0) {
      r = -ENOMEM;
      break;
    }
    got = read (fds[0], buf + len, cap - len);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    len += (size_t) got;
  }
  close (fds[0]);
  while (pid > 0 && waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (r == 0 && pid > 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0 &&
      pc_mark_decode (buf, len, ret, NULL) == 0)
    r = 1;
  free (buf);
  /* the child's mount point and copy (judge.c: IMG.mnt, IMG.kernel), which
   * it left as it exited on every path: its mount went with its namespace */
  {
    char path[4200];
    snprintf (path, sizeof path, "%s.mnt", img);
    rmdir (path);
    snprintf (path, sizeof path, "%s.kernel", img);
    unlink (path);
  }
  return r;
}

/* Tells the oracle what the end of the recording (built into im) holds,
 * so that paths the workload changed after its last mark are not judged
 * after it, and whether its filesystem has a journal.  If the end cannot
 * be read, no path is judged there. */
static int
end_tree (struct ctx *c, const char *img, struct pc_image *im, struct pc_err *why)
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

  if (!pc_oracle_judges (c->oracle))
    return 0;
  if (c->fs && !c->fs->libext2fs) {
    struct pc_mark end = { 0 };     /* left so when the end cannot be read */
    r = end_kernel_tree (c, img, im, &end);
    if (r < 0)
      return r;
    r = pc_oracle_set_end (c->oracle, r ? &end : NULL);
    pc_mark_free (&end);
    return r;
  }
  /* ext2/3/4: whether it has a journal, as the end has it */
  if (pc_image_size (im) >= 2048)
    pc_oracle_set_no_journal (c->oracle, !pc_ext_has_journal (pc_image_data (im) + 1024));
  r = pc_judge_new (&jc, im, &jd);
  if (r < 0)
    return r;
  r = pc_judge_state (jd, -1, &jm);
  pc_judge_free (jd);
  if (r == -ENOENT) {
    pc_err_msg (why, "e2fsck not found (is e2fsprogs installed?)");
    return r;
  }
  if (r < 0) {
    pc_err_msg (why, "%s: reading the end of the recording: %s", c->cfg->log_path,
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
probe_end (struct ctx *c, struct pc_err *why)
{
  char img[4200], type[16];
  struct pc_image *im = NULL;
  struct pc_state s;
  uint64_t cursor = 0;
  int fd, r;

  snprintf (img, sizeof img, "%s/end.img", c->work);
  fd = open (img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    r = -errno;
    pc_err_msg (why, "%s: %s", img, strerror (-r));
    return r;
  }
  memset (&s, 0, sizeof s);
  r = check_new_image (c, fd, &im);
  if (r == 0 && c->ix.n > 0 && pc_state_parse (&c->ix, "end", &s, NULL) == 0) {
    r = pc_state_build (&c->ix, &s, im, &cursor);
    if (r > 0)
      r = 0;
  }
  if (r == 0)
    r = pc_image_sync (im);
  if (r < 0)
    pc_err_msg (why, "%s: rebuilding its end: %s", c->cfg->log_path, strerror (-r));
  else if ((r = pc_ext_probe (img, type, sizeof type)) < 0)
    pc_err_msg (why, "%s: blkid cannot probe its end: %s", c->cfg->log_path,
                strerror (-r));
  else if ((c->fs = pc_fs_find (type)) != NULL && !c->fs->libext2fs && !pc_fs_kernel_has (c->fs)) {
    pc_err_msg (why, "%s: a %s filesystem, which this machine's kernel cannot mount (a "
                "guest's can: --judge guest)", c->cfg->log_path, type);
    r = -ENODEV;
  }
  else if (c->fs && pc_judge_pick (c->fs, NULL, c->cfg->judge, geteuid () == 0) == PC_WHO_NOBODY) {
    pc_err_msg (why, "%s: a %s filesystem: only the kernel judges its states here, as root",
                c->cfg->log_path, type);
    r = -EPERM;
  }
  else if (c->fs && !c->fs->libext2fs && c->cfg->judge != PC_JUDGE_KERNEL &&
           (c->cfg->model.kind == PC_MODEL_REORDER || c->cfg->model.kind == PC_MODEL_TORN)) {
    /* states made of writes reordered or torn are mounted by this
     * machine's kernel: only when asked */
    pc_err_msg (why, "%s: a %s filesystem under the %s model: its states are mounted by this "
                "machine's kernel, reordered and torn writes too; ask for it with --judge kernel",
                c->cfg->log_path, type, pc_model_name (c->cfg->model.kind));
    r = -EINVAL;
  }
  else if (c->fs && !c->fs->libext2fs && c->cfg->judge == PC_JUDGE_EXT2FS) {
    pc_err_msg (why, "%s: a %s filesystem: libext2fs does not read it (--judge kernel)",
                c->cfg->log_path, type);
    r = -EINVAL;
  }
  else if (c->fs && !c->fs->libext2fs)
    r = end_tree (c, img, im, why);

  else if (r == 0 && strcmp (type, "jbd") == 0) {
    pc_err_msg (why, "%s: the device holds an ext3/ext4 external journal, not a filesystem; "
                "a filesystem is not yet checked with its journal's device (rebuild their "
                "instants with powercut replay DIR --at NAME:POINT, then e2fsck -j)",
                c->cfg->log_path);
    r = -EMEDIUMTYPE;
  }
  else if (r == 0) {
    pc_err_msg (why, "%s: no %s filesystem on the device at the end of the recording "
                "(blkid finds %s)", c->cfg->log_path, pc_fs_names (false), type[0] ? type : "none");
    r = -EMEDIUMTYPE;
  }
  else
    r = end_tree (c, img, im, why);
  pc_state_clear (&s);
  pc_image_free (im);
  close (fd);
  unlink (img);
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
load_inputs (struct ctx *c, struct pc_check_result *res, struct pc_err *why)
{
  const struct pc_check_config *cfg = c->cfg;
  int r;

  r = pc_index_load (cfg->log_path, &c->ix);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", cfg->log_path, pc_log_strerror (r));
    return r;
  }
  if (c->ix.end == PC_END_CORRUPT) {
    char m[256];
    pc_err_msg (why, "%s: %s", cfg->log_path,
                pc_log_corrupt_message (c->ix.log, m, sizeof m));
    return -EBADMSG;
  }
  r = pc_index_read_base_map (&c->ix, cfg->base_path, &c->basemem, &c->basesize,
                              &c->base_nonzero, why);
  if (r < 0)
    return r;
  c->base = c->basemem;

  if ((res->log_path = strdup (cfg->log_path)) == NULL ||
      (cfg->base_path && (res->base_path = strdup (cfg->base_path)) == NULL) ||
      (cfg->verify && (res->verify = strdup (cfg->verify)) == NULL))
    return -ENOMEM;
  /* Where powercut run's command and its settle ended (result.h). */
  for (uint64_t i = 0; i < c->ix.n; i++) {
    const struct pc_record *rec = &c->ix.recs[i];
    struct pc_mark m;
    size_t nl;
    const char *name = rec->type == PC_REC_MARK
                       ? pc_mark_peek_name (rec->data, rec->datalen, &nl) : NULL;
    if (name == NULL || nl < 9 || memcmp (name, "powercut.", 9) != 0 ||
        pc_mark_decode (rec->data, rec->datalen, &m, NULL) < 0)
      continue;
    switch (pc_mark_run_kind (&m)) {
    case PC_RUN_MARK_COMMAND_END:
      res->command_end_record = i;
      res->command_end_ns = pc_window_time (rec->time_ns);
      break;
    case PC_RUN_MARK_SETTLE_END:
      res->settle_end_record = i;
      res->settle_end_ns = pc_window_time (rec->time_ns);
      break;
    case PC_RUN_MARK_NONE:
      break;
    }
    pc_mark_free (&m);
  }
  /* Every mark's name, record and sync flag, and every acknowledgement:
   * what the program acknowledged, and --verify's environment (not
   * powercut run's marks after the command, which say nothing of the
   * workload). */
  for (uint64_t i = 0; i < c->ix.n; i++) {
    const struct pc_record *rec = &c->ix.recs[i];
    struct pc_mark m;
    if (rec->type == PC_REC_EVENT && rec->datalen > 7 && rec->data[7] == PC_OP_ACK) {
      struct pc_event ev;
      struct pc_err e;
      if (pc_event_decode (rec->data, rec->datalen, &ev, &e) < 0) {
        pc_err_msg (why, "%s: record %" PRIu64 ": %s", cfg->log_path, i, e.msg);
        return -EBADMSG;
      }
      if (ev.op == PC_OP_ACK && pc_acksel_match (cfg->acks, ev.text)) {
        if (pc_grow (&c->acks, &c->capacks, c->nacks + 1, sizeof *c->acks, 64) < 0)
          return -ENOMEM;
        c->acks[c->nacks] = (struct vack) { strdup (ev.text), i };
        if (c->acks[c->nacks++].text == NULL)
          return -ENOMEM;
      }
      pc_event_free (&ev);
      continue;
    }
    if (rec->type != PC_REC_MARK)
      continue;
    struct pc_err me = { 0 };
    r = pc_mark_decode (c->ix.recs[i].data, c->ix.recs[i].datalen, &m, &me);
    if (r < 0) {
      pc_err_msg (why, "%s: record %" PRIu64 ": the mark cannot be decoded: %s",
                  cfg->log_path, i, me.msg);
      return r;
    }
    if (pc_mark_run_kind (&m) != PC_RUN_MARK_NONE) {
      pc_mark_free (&m);
      continue;
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
      pc_err_msg (why, "%s: no mark named '%s'", cfg->log_path, cfg->from_mark);
      return -EINVAL;
    }
    res->from_record = (uint64_t) m;
    snprintf (res->from, sizeof res->from, "%s", cfg->from_mark);
  }
  else {
    for (uint64_t i = 0; i < c->ix.n; i++)
      if (c->ix.recs[i].type == PC_REC_MARK) {
        size_t nl;
        const char *name = pc_mark_peek_name (c->ix.recs[i].data, c->ix.recs[i].datalen, &nl);
        res->from_record = i;
        if (name && nl < sizeof res->from) {
          memcpy (res->from, name, nl);
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

/* A check's scratch folder holds "lock", locked (flock) by the check and
 * its workers while they run; it is given that name only once locked.
 * Returns the lock's descriptor, or -1 (the folder then goes unswept). */
static int
lock_work (const char *work)
{
  char tmp[4200], lock[4200];
  int fd;

  snprintf (tmp, sizeof tmp, "%s/lock.new", work);
  snprintf (lock, sizeof lock, "%s/lock", work);
  fd = open (tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0 && (flock (fd, LOCK_EX) < 0 || rename (tmp, lock) < 0)) {
    unlink (tmp);
    close (fd);
    fd = -1;
  }
  return fd;
}

/* The scratch folders of checks that died without removing them (killed
 * with SIGKILL, the machine stopped): folders of ours whose lock nobody
 * holds.  Removed before a check makes its own. */
static void
sweep_stale (const char *base)
{
  DIR *d = opendir (base);
  struct dirent *de;

  while (d && (de = readdir (d)) != NULL) {
    char dir[4200], lock[4300];
    struct stat st;
    int fd;
    if (strncmp (de->d_name, "powercut-check.", 15) != 0)
      continue;
    snprintf (dir, sizeof dir, "%s/%s", base, de->d_name);
    if (lstat (dir, &st) < 0 || !S_ISDIR (st.st_mode) || st.st_uid != geteuid ())
      continue;
    snprintf (lock, sizeof lock, "%s/lock", dir);
    fd = open (lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      continue;
    if (flock (fd, LOCK_EX | LOCK_NB) == 0)
      pc_export_remove (dir);
    close (fd);
  }
  if (d)
    closedir (d);
}

/* Step 2: the states of this shard, their distinct images, the oracle,
 * and scratch space. */
static int
plan_states (struct ctx *c, struct pc_check_result *res, struct pc_err *why)
{
  const struct pc_check_config *cfg = c->cfg;
  size_t lo, hi;
  char tmpl[4096];
  struct pc_err oe;
  int r;

  r = pc_states_enumerate (&c->ix, &cfg->model, res->from_record, &c->all, &c->nall);
  if (r == 0 && !cfg->no_start_state)
    r = pc_states_add_start (&c->ix, res->from_record, &c->all, &c->nall);
  if (r < 0)
    return r;
  /* This shard's contiguous share. */
  r = shard_range (c, res, &lo, &hi);
  if (r < 0) {
    pc_err_msg (why, "%s: sharding: %s", cfg->log_path, strerror (-r));
    return r;
  }
  c->states = c->all + lo;
  c->nstates = hi - lo;

  res->npoints = c->nstates;
  res->points = calloc (c->nstates ? c->nstates : 1, sizeof *res->points);
  c->same_as = calloc (c->nstates ? c->nstates : 1, sizeof *c->same_as);
  c->moment = calloc (c->nstates ? c->nstates : 1, sizeof *c->moment);
  if (res->points == NULL || c->same_as == NULL || c->moment == NULL ||
      pc_states_moments (&c->ix, c->states, c->nstates, c->moment) < 0)
    return -ENOMEM;
  r = dedupe (c, c->same_as);
  if (r < 0) {
    char sz[32];
    pc_err_msg (why, "%s: rebuilding states of a %s device: %s", cfg->log_path,
                pc_format_size (c->ix.hdr.devsize, sz, sizeof sz), strerror (-r));
    return r;
  }
  r = group_points (c);
  if (r < 0)
    return r;

  sweep_stale (cfg->work_dir ? cfg->work_dir : default_tmp ());
  snprintf (tmpl, sizeof tmpl, "%s/powercut-check.XXXXXX",
            cfg->work_dir ? cfg->work_dir : default_tmp ());
  c->work = strdup (tmpl);
  if (c->work == NULL || mkdtemp (c->work) == NULL) {
    r = c->work ? -errno : -ENOMEM;
    pc_err_msg (why, "%s: %s", tmpl, strerror (-r));
    free (c->work);
    c->work = NULL;
    return r;
  }
  c->lock = lock_work (c->work);

  r = pc_oracle_new (&c->ix, cfg->oracle_flags | (cfg->plain ? PC_ORACLE_PLAIN : 0), &c->oracle,
                     &oe);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", cfg->log_path, r == -ENOMEM ? strerror (ENOMEM) : oe.msg);
    return r;
  }
  c->hash_limit = pc_oracle_max_size (c->oracle);
  res->manifests = pc_oracle_manifests (c->oracle);
  res->events = pc_oracle_events (c->oracle);
  if (pc_oracle_last_mark (c->oracle))
    snprintf (res->last_mark, sizeof res->last_mark, "%s", pc_oracle_last_mark (c->oracle));
  res->unique = c->nuniq;
  r = probe_end (c, why);
  if (c->fs)
    snprintf (res->fs, sizeof res->fs, "%s", c->fs->name);
  return r;
}

static void
ctx_free (struct ctx *c)
{
  if (c->work) {
    char p[4200];
    /* Workers remove their files; a dead one's (one killed when the
     * check was interrupted) are removed here: its image, the kernel
     * judge's copy and mount point (judge.c; the mount went with the
     * worker's namespace), its recovery recording's (checkpool.c). */
    for (unsigned i = 0; i < c->spawned; i++) {
      snprintf (p, sizeof p, "%s/state-%u.img", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/state-%u.img.kernel", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/state-%u.img.mnt", c->work, i);
      rmdir (p);
      snprintf (p, sizeof p, "%s/rbase-%u.img", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/rstate-%u.img", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/rmnt-%u", c->work, i);
      rmdir (p);
      snprintf (p, sizeof p, "%s/rdir-%u", c->work, i);
      pc_export_remove (p);
      snprintf (p, sizeof p, "%s/results-%u", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/marks-%u", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/marks-%u.acks", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/recovery-%u", c->work, i);
      unlink (p);
      snprintf (p, sizeof p, "%s/tree-%u", c->work, i);
      pc_export_remove (p);
    }
    snprintf (p, sizeof p, "%s/lock", c->work);
    unlink (p);
    if (c->lock >= 0)
      close (c->lock);
    rmdir (c->work);
    free (c->work);
  }
  if (c->shmem)
    munmap (c->shmem, c->shsize);
  pc_oracle_free (c->oracle);
  for (size_t m = 0; m < c->nmarks; m++)
    free (c->marks[m].name);
  free (c->marks);
  for (size_t a = 0; a < c->nacks; a++)
    free (c->acks[a].text);
  free (c->acks);
  for (size_t u = 0; c->failed && u < c->nuniq; u++)
    free (c->failed[u]);
  free (c->failed);
  free (c->gstart);
  free (c->gpoints);
  free (c->uniq);
  free (c->same_as);
  free (c->moment);
  pc_states_free (c->all, c->nall);
  pc_image_unmap (c->basemem, c->basesize);
  free (c->base_nonzero);
  pc_index_free (&c->ix);
}

int
pc_check_run (const struct pc_check_config *cfg, struct pc_check_result **ret,
              struct pc_err *why)
{
  struct ctx c;
  struct pc_check_result *res;
  struct pc_err local;
  uint64_t t0 = pc_now_mono_ns ();
  int r;

  memset (&c, 0, sizeof c);
  c.cfg = cfg;
  c.now = (int64_t) (pc_now_real_ns () / 1000000000u);
  if (cfg->judge == PC_JUDGE_GUEST)
    return pc_err_set (why, EINVAL, "the guest judge runs the whole check in a qemu guest "
                       "(run/gjudge.h), not here");
  if ((cfg->judge == PC_JUDGE_KERNEL || cfg->judge == PC_JUDGE_BOTH) && geteuid () != 0)
    return pc_err_set (why, EPERM, "the kernel judge mounts every state on a loop device: it "
                       "needs root");
  if (cfg->recovery_crashes && (cfg->judge == PC_JUDGE_EXT2FS || geteuid () != 0))
    return pc_err_set (why, cfg->judge == PC_JUDGE_EXT2FS ? EINVAL : EPERM,
                       "--recovery-crashes records the kernel's recovery of each state: %s",
                       cfg->judge == PC_JUDGE_EXT2FS ? "not with --judge ext2fs" : "it needs root");
  res = calloc (1, sizeof *res);
  if (res == NULL)
    return pc_err_set (why, ENOMEM, "%s", strerror (ENOMEM));
  local.msg[0] = '\0';
  r = load_inputs (&c, res, &local);
  if (r == 0)
    r = plan_states (&c, res, &local);
  if (r == 0)
    r = check_states (&c, &local);
  if (r == 0)
    r = check_collect (&c, res, &local);
  if (r < 0)
    pc_err_set (why, -r, "%s", local.msg[0] ? local.msg : strerror (-r));
  ctx_free (&c);
  if (r < 0) {
    pc_check_result_free (res);
    return r;
  }
  res->seconds = (pc_now_mono_ns () - t0) / 1e9;
  *ret = res;
  return 0;
}
