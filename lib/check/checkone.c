/* checkone.c: one distinct image's states, checked by a worker of the
 * pool (checkpool.c): each judged (judge.h), its files judged by the
 * oracle, its application's checker run, its result stored; the kernel's
 * recovery of it recorded and checked (--recovery-crashes). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/checkint.h"
#include "fs/fs.h"
#include "judge/export.h"
#include "judge/judge.h"
#include "judge/kjudge.h"
#include "judge/recrash.h"
#include "oracle/oracle.h"
#include "result/finding.h"
#include "util/util.h"
#include "util/err.h"

static void
copy_file (const char *from, const char *to)
{
  int in = open (from, O_RDONLY | O_CLOEXEC), out;
  char buf[1 << 16];
  ssize_t n;
  off_t pos = 0;

  if (in < 0)
    return;
  out = open (to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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


/* Stores point i's result: verdict and fsck_as in the shared memory, the
 * evidence and findings as one record in the worker's file:
 *   u32 evidence length, the evidence, the findings (finding.h). */
/* Writes one record (evidence and findings, as below) to the worker's
 * file: its offset in *ret_off, its length in o->len.  Returns 0 or -errno. */
static int
write_record (struct check_out *o, const char *evidence, const struct pc_findings *fl, uint64_t *ret_off)
{
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
  *ret_off = o->size;
  o->size += o->len;
  return 0;
}

int
check_put_result (struct ctx *c, struct check_out *o, size_t i, int verdict, int64_t fsck_as,
                  bool kernel, const char *evidence, const struct pc_findings *fl)
{
  struct result *res = &c->sh->results[i];
  uint64_t off;
  int r = write_record (o, evidence, fl, &off);

  if (r < 0)
    return r;
  res->verdict = verdict;
  res->fsck_as = fsck_as;
  res->kernel = kernel;
  res->file = o->id;
  res->off = off;
  res->len = o->len;
  return 0;
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

/* The program's last acknowledgement at or before moment: a line it
 * printed, or (marks) a mark after the first (the tree before the
 * program).  Returns false if there is none (*ret untouched). */
static bool
last_ack (const struct ctx *c, uint64_t moment, bool marks, struct pc_oracle_ack *ret)
{
  size_t nm = 0, na = 0;

  while (marks && nm < c->nmarks && c->marks[nm].record <= moment)
    nm++;
  while (na < c->nacks && c->acks[na].record <= moment)
    na++;
  if (na > 0 && (nm < 2 || c->acks[na - 1].record > c->marks[nm - 1].record))
    *ret = (struct pc_oracle_ack) { c->acks[na - 1].text, c->acks[na - 1].record,
                                    c->ix.recs[c->acks[na - 1].record].time_ns };
  else if (nm >= 2)
    *ret = (struct pc_oracle_ack) { c->marks[nm - 1].name, c->marks[nm - 1].record,
                                    c->ix.recs[c->marks[nm - 1].record].time_ns };
  else
    return false;
  return true;
}

/* Judges distinct image u (built into im) and its points.  Returns 0, or
 * -errno if the worker cannot go on (its results cannot be stored). */
/* Appends to side (len bytes) what the oracle found in one recovery's
 * files: fl's findings (NULL: its check failed, its files not judged),
 * "its files: PATH VERDICT (fault), ..." or "its files: as the program
 * had them". */
static void
side_files (const struct ctx *c, uint64_t moment, const struct pc_findings *fl, char *side,
            size_t len)
{
  size_t n = strlen (side), k = 0;

  (void) c;
  (void) moment;
  if (fl == NULL || n + 16 >= len)
    return;
  for (size_t j = 0; j < fl->n && n + 8 < len; j++) {
    const struct pc_finding *f = &fl->v[j];
    if (pc_finding_verdict (f->kind) == PC_V_OK || f->kind == PC_V_RECOVERY_DIFFERS)
      continue;
    n += (size_t) snprintf (side + n, len - n, "%s%s %s (%s)", k++ ? ", " : "; its files: ",
                            f->path, pc_finding_name (f->kind), pc_fault_name (pc_finding_fault (f)));
    if (n >= len)
      n = len - 1;
  }
  if (k == 0)
    snprintf (side + n, len - n, "; its files: as the program had them");
}

/* The same for the other recovery's tree (--judge both), judged here. */
static void
side_other (const struct ctx *c, uint64_t moment, const struct pc_mark *tree, char *side,
            size_t len)
{
  struct pc_findings ofl = { 0 };
  enum pc_verdict ov;

  if (pc_oracle_judge (c->oracle, moment, tree, &ofl, NULL, NULL, &ov) == 0)
    side_files (c, moment, &ofl, side, len);
  pc_findings_clear (&ofl);
}

int
check_image (struct ctx *c, size_t u, const char *img, struct pc_image *im,
             struct pc_judge *jd, struct check_out *o, struct pc_export *x, const char *xdir,
             const char *mfile)
{
  struct app_result *ar = NULL;
  const struct pc_state *s = &c->states[c->uniq[u]];
  bool judge = pc_oracle_judges (c->oracle), failed = false;
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
      r = check_put_result (c, o, c->gpoints[k], r == -ENOENT ? CHECK_ERROR : PC_V_NOT_CHECKED,
                      -1, false, why, NULL);
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
      ar->nmarks = ar->nacks = SIZE_MAX;
  }
  for (size_t k = c->gstart[u]; k < c->gstart[u + 1] && r == 0; k++) {
    size_t i = c->gpoints[k];
    struct pc_findings fl = { 0 };
    const char *ev = jm.evidence;
    int v = jm.verdict;
    bool fs_ok = v == PC_V_OK;
    if (v == PC_V_OK && judge) {
      struct lost_ctx lc = { c, (int64_t) i };
      enum pc_verdict ov;
      if (pc_oracle_judge (c->oracle, c->moment[i], &jm.tree, &fl, lost_version, &lc,
                           &ov) == 0)
        v = ov;
      else {
        pc_findings_clear (&fl);
        v = PC_V_NOT_CHECKED;
        ev = "powercut ran out of memory judging the files of this state";
      }
      if (v != PC_V_NOT_CHECKED && jm.problems[0])
        ev = jm.problems;
    }
    if (ar && fs_ok && v != PC_V_NOT_CHECKED) {
      /* The application's checker, once per state and list of marks and
       * acknowledgements. */
      size_t nm = 0, na = 0;
      while (nm < c->nmarks && c->marks[nm].record <= c->moment[i])
        nm++;
      while (na < c->nacks && c->acks[na].record <= c->moment[i])
        na++;
      if (jm.export_error < 0) {
        ar->nmarks = ar->nacks = SIZE_MAX;
        ar->verdict = PC_V_NOT_CHECKED;
        snprintf (ar->evidence, sizeof ar->evidence, "powercut could not write the tree for "
                  "--verify: %.900s", jm.export_err.msg);
      }
      else if (ar->nmarks != nm || ar->nacks != na)
        check_run_verify (c, i, xdir, mfile, nm, na, x, ar);
      if (ar->verdict != PC_V_OK) {
        v = ar->verdict;
        ev = ar->evidence;
      }
      /* What the state lost of what the program had by its last
       * acknowledgement, each with its cause: the checker tells it
       * mattered.  Nothing acknowledged: what it had by the state's
       * moment, listed, nothing acknowledged lost. */
      struct pc_oracle_ack ack = { NULL, c->moment[i], 0 };
      if (v == PC_V_APP_INVALID && judge && jm.have_tree) {
        size_t n = 0;
        bool acked = last_ack (c, c->moment[i], true, &ack);
        if (pc_oracle_older (c->oracle, c->moment[i], &ack, PC_F_OLDER, &jm.tree, &fl,
                             &n) < 0 ||
            (acked && n > 0 && check_restore (c, i, xdir, mfile, nm, na, x, ack.record, &fl) < 0)) {
          v = PC_V_NOT_CHECKED;
          ev = "powercut ran out of memory naming what this state lost";
        }
      }
    }
    else if (fs_ok && judge && jm.have_tree && v != PC_V_NOT_CHECKED) {
      /* No checker: every file older than the program had when it last
       * printed a line is acknowledged data lost.  (A mark promises what
       * it declares durable, which the oracle judges: it acknowledges
       * nothing more here.) */
      struct pc_oracle_ack ack;
      size_t n = 0;
      if (last_ack (c, c->moment[i], false, &ack) &&
          pc_oracle_older (c->oracle, c->moment[i], &ack, PC_V_ACK_LOST, &jm.tree, &fl,
                           &n) < 0) {
        pc_findings_clear (&fl);
        v = PC_V_NOT_CHECKED;
        ev = "powercut ran out of memory naming what this state lost";
      }
      else if (n > 0)
        v = pc_verdict_worse (v, PC_V_ACK_LOST);
    }
    /* no journal: only e2fsck by hand repaired the state, its files
     * judged as it left them; they say more where they failed */
    if (jm.by_hand && v != PC_V_NOT_CHECKED)
      v = pc_verdict_worse (v, PC_V_FSCK_BY_HAND);
    if (jm.differs && r == 0) {
      /* --judge both: the two recoveries of this state disagree; each
       * side's files, judged by the oracle (the other's too, read even
       * where its check finds it corrupt), said beside what it found */
      struct pc_cause cz = { .known = true, .recovery = true, .durable_ns = -1 };
      char kside[PC_EVIDENCE_MAX * 2], eside[PC_EVIDENCE_MAX * 2];
      snprintf (kside, sizeof kside, "%s", jm.by_kernel_said);
      snprintf (eside, sizeof eside, "%s", jm.by_e2fsck_said);
      if (judge) {
        side_files (c, c->moment[i], jm.verdict == PC_V_OK ? &fl : NULL,
                    jm.by_kernel ? kside : eside, jm.by_kernel ? sizeof kside : sizeof eside);
        if (jm.have_other)
          side_other (c, c->moment[i], &jm.other, jm.other_by_kernel ? kside : eside,
                      jm.other_by_kernel ? sizeof kside : sizeof eside);
      }
      r = pc_findings_add (&fl, PC_V_RECOVERY_DIFFERS, "", kside, eside);
      if (r == 0 && (cz.rule = strdup ("the kernel's recovery of this state (found) and "
                                       "e2fsck's (allowed) disagree: one of them is wrong, "
                                       "not the workload")) != NULL)
        pc_findings_set_cause (&fl, &cz);
      if (r == 0 && fl.n > 1) {
        /* in path order: the whole state's ("") first */
        struct pc_finding rd = fl.v[fl.n - 1];
        memmove (fl.v + 1, fl.v, (fl.n - 1) * sizeof *fl.v);
        fl.v[0] = rd;
      }
      v = pc_verdict_worse (v, PC_V_RECOVERY_DIFFERS);
    }
    if (r == 0)
      r = check_put_result (c, o, i, v, jm.fsck_as, jm.by_kernel, ev, &fl);
    pc_findings_clear (&fl);
    failed |= v != PC_V_OK && v != PC_V_NOT_CHECKED;
  }
  pc_judgement_clear (&jm);
  free (ar);
  if (r < 0)
    return r;
  if (c->cfg->keep_dir && failed) {
    char sid[PC_ID_MAX], to[4096];
    pc_state_id (s, &c->cfg->model, sid, sizeof sid);
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

/* Notes a state of a recovery in the worker's recovery index: point i's
 * recovery state at record k of its log, its verdict, and its record in
 * the worker's file ("I K VERDICT OFF LEN"). */
static int
put_recovery (struct ctx *c, struct check_out *o, unsigned id, size_t i, uint64_t k, int verdict,
              const char *evidence, const struct pc_findings *fl)
{
  char path[4200];
  uint64_t off;
  FILE *f;
  int r = write_record (o, evidence, fl, &off);

  if (r < 0)
    return r;
  snprintf (path, sizeof path, "%s/recovery-%u", c->work, id);
  f = fopen (path, "ae");
  if (f == NULL)
    return -errno;
  fprintf (f, "%zu %" PRIu64 " %d %" PRIu64 " %zu\n", i, k, verdict, off, o->len);
  return fclose (f) == 0 ? 0 : -EIO;
}

/* A power cut during the recovery of the state im holds (check
 * --recovery-crashes, recrash.h): the kernel's mount of it recorded, and
 * each flush point of that recording judged by the kernel and the oracle
 * against what its image's first point must hold.  Where powercut cannot
 * record it, one state at record 0, not checked, says why.  Returns 0, or
 * -errno if the worker's results cannot be stored. */
int
check_recovery_crashes (struct ctx *c, size_t u, unsigned id, const struct pc_image *im,
                        struct check_out *o)
{
  size_t i = c->gpoints[c->gstart[u]];
  char sid[PC_ID_MAX], base[4200], dir[4200], rlog[4700], kcopy[4200], kmnt[4200];
  const uint8_t *sb = pc_image_size (im) >= 2048 ? pc_image_data (im) + 1024 : NULL;
  struct pc_kjudge_config kc = {
    .copy_path = kcopy, .mnt_dir = kmnt, .fs = c->fs, .timeout_s = c->cfg->timeout_s,
    .hash_limit = c->hash_limit, .read_tree = true, .plain = c->cfg->plain,
  };
  struct pc_index rix;
  struct pc_state *rs = NULL;
  struct pc_image *ri = NULL;
  struct pc_err err;
  size_t nrs = 0;
  uint64_t cursor = 0;
  bool wrote = false;
  int fd, r;

  /* ext2/3/4 replay at mount only what their superblock says needs it;
   * another filesystem's log cannot be told from here: recorded anyway */
  if (c->fs == NULL || (c->fs->libext2fs && (sb == NULL || !pc_ext_needs_recovery (sb))))
    return 0;
  pc_state_id (&c->states[i], &c->cfg->model, sid, sizeof sid);
  snprintf (base, sizeof base, "%s/rbase-%u.img", c->work, id);
  snprintf (dir, sizeof dir, "%s/rdir-%u", c->work, id);
  snprintf (kcopy, sizeof kcopy, "%s/rstate-%u.img", c->work, id);
  snprintf (kmnt, sizeof kmnt, "%s/rmnt-%u", c->work, id);
  pc_recovery_log_path (c->cfg->log_path, sid, rlog, sizeof rlog);
  *strrchr (rlog, '/') = '\0';
  mkdir (rlog, 0755);           /* LOG.recovery: another worker may make it too */
  pc_recovery_log_path (c->cfg->log_path, sid, rlog, sizeof rlog);
  r = 0;
  fd = open (base, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || pc_image_copy_sparse (im, fd) < 0)
    r = pc_err_set (&err, fd < 0 ? errno : EIO, "%s: cannot write the state", base);
  if (fd >= 0)
    close (fd);
  if (r == 0 && (mkdir (dir, 0700) < 0 || mkdir (kmnt, 0700) < 0) && errno != EEXIST)
    r = pc_err_set (&err, errno, "%s: %s", dir, strerror (errno));
  if (r == 0)
    r = pc_recrash_record (base, c->fs, dir, rlog, c->cfg->timeout_s, &wrote, &err);
  if (r < 0) {
    char why[PC_EVIDENCE_MAX];
    snprintf (why, sizeof why, "powercut could not record the kernel's recovery of this state: "
              "%.800s", err.msg);
    r = put_recovery (c, o, id, i, 0, PC_V_NOT_CHECKED, why, NULL);
    goto out;
  }
  if (!wrote) {
    unlink (rlog);
    goto out;
  }
  /* each flush point of the recovery, from the state's bytes on */
  r = pc_index_load (rlog, &rix);
  if (r < 0) {
    r = put_recovery (c, o, id, i, 0, PC_V_NOT_CHECKED, "powercut could not read the "
                      "recording of the kernel's recovery of this state", NULL);
    goto out;
  }
  {
    struct pc_model flush = { PC_MODEL_FLUSH, 0, 0 };
    r = pc_states_enumerate (&rix, &flush, 0, &rs, &nrs);
  }
  if (r == 0)
    r = pc_image_new (pc_image_size (im), pc_image_data (im), -1, PC_IMAGE_HASH, &ri);
  for (size_t k = 0; r == 0 && k < nrs; k++) {
    struct pc_judgement jm;
    struct pc_findings fl = { 0 };
    const char *ev;
    int v;
    if (pc_state_build (&rix, &rs[k], ri, &cursor) < 0) {
      r = put_recovery (c, o, id, i, rs[k].point, PC_V_NOT_CHECKED,
                        "powercut could not rebuild this state of the recovery", NULL);
      continue;
    }
    if (pc_kjudge_state (&kc, ri, &jm, &err) < 0) {
      char why[PC_EVIDENCE_MAX];
      snprintf (why, sizeof why, "powercut could not judge this state of the recovery: %.800s",
                err.msg);
      r = put_recovery (c, o, id, i, rs[k].point, PC_V_NOT_CHECKED, why, NULL);
      continue;
    }
    v = jm.verdict;
    ev = jm.evidence;
    /* what the state the recovery started from must hold, it must too */
    if (v == PC_V_OK && jm.have_tree && pc_oracle_judges (c->oracle)) {
      enum pc_verdict ov;
      if (pc_oracle_judge (c->oracle, c->moment[i], &jm.tree, &fl, NULL, NULL, &ov) == 0)
        v = ov;
      else {
        pc_findings_clear (&fl);
        v = PC_V_NOT_CHECKED;
        ev = "powercut ran out of memory judging the files of this state";
      }
    }
    r = put_recovery (c, o, id, i, rs[k].point, v, ev, &fl);
    pc_findings_clear (&fl);
    if (jm.have_tree)
      pc_mark_free (&jm.tree);
  }
  pc_image_free (ri);
  pc_states_free (rs, nrs);
  pc_index_free (&rix);
out:
  unlink (base);
  unlink (kcopy);
  rmdir (kmnt);
  rmdir (dir);
  return r;
}
