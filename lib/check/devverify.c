/* devverify.c: the application's checker run at the instants of a device
 * set (devcheck.h): every device's recovered tree exported side by side. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/devcheck.h"
#include "judge/export.h"
#include "judge/fsck.h"
#include "judge/fstree.h"
#include "format/mark.h"
#include "replay/image.h"
#include "replay/recover.h"
#include "util/disk.h"
#include "util/proc.h"
#include "util/util.h"

#include "check/devint.h"

/* Replays im's journal with e2fsck, on a copy of it in the file path,
 * into im's open overlay: the journals the in-process replay leaves to
 * e2fsck (pc_recover's -ENOTSUP).  Returns 0, or -errno with err. */
static int
recover_by_e2fsck (struct pc_image *im, const char *path, int timeout_s, struct pc_err *err)
{
  uint64_t size = pc_image_size (im);
  const uint8_t *data = pc_image_data (im);
  struct pc_fsck_result fr;
  struct pc_fsck_io io = { 0 };
  uint8_t *buf = malloc (PC_IMAGE_BLOCK);
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), r = 0;

  if (buf == NULL || fd < 0) {
    r = buf == NULL ? -ENOMEM : -errno;
    pc_err_set (err, -r, "%s: %s", path, strerror (-r));
    goto out;
  }
  /* the copy sparse: only the blocks that hold something */
  if (ftruncate (fd, (off_t) size) < 0)
    r = -errno;
  for (uint64_t off = 0; off < size && r == 0; off += PC_IMAGE_BLOCK) {
    uint64_t len = size - off < PC_IMAGE_BLOCK ? size - off : PC_IMAGE_BLOCK;
    if (data[off] != 0 || memcmp (data + off, data + off + 1, len - 1) != 0)
      r = pwrite (fd, data + off, len, (off_t) off) == (ssize_t) len ? 0 : -EIO;
  }
  if (r == 0)
    r = pc_fsck_recover (path, timeout_s, (int64_t) (pc_now_real_ns () / 1000000000u), &fr, &io);
  if (r < 0) {
    pc_err_set (err, -r, "e2fsck on %s: %s", path, strerror (-r));
    goto out;
  }
  if (fr.verdict != PC_V_OK) {
    r = pc_err_set (err, EIO, "e2fsck cannot replay the journal: %.300s", fr.evidence);
    goto out;
  }
  /* what e2fsck wrote (every block, when it could not tell) back into im */
  for (size_t i = 0; r == 0 && i < (io.known ? io.written.n : 1); i++) {
    uint64_t b0 = io.known ? io.written.first[i] : 0;
    uint64_t nb = io.known ? io.written.count[i] : (size + PC_IMAGE_BLOCK - 1) / PC_IMAGE_BLOCK;
    for (uint64_t b = b0; b < b0 + nb && b * PC_IMAGE_BLOCK < size && r == 0; b++) {
      uint64_t off = b * PC_IMAGE_BLOCK;
      uint64_t len = size - off < PC_IMAGE_BLOCK ? size - off : PC_IMAGE_BLOCK;
      r = pc_pread_all (fd, buf, len, off);
      if (r == 0 && memcmp (buf, pc_image_data (im) + off, len) != 0)
        r = pc_image_write (im, off, buf, len);
    }
  }
  if (r < 0)
    pc_err_set (err, -r, "%s: %s", path, strerror (-r));
out:
  pc_fsck_io_free (&io);
  if (fd >= 0) {
    close (fd);
    unlink (path);
  }
  free (buf);
  return r;
}

/* Brings export x to the tree of device d at the state named id, its
 * journal recovered as a reboot would.  im holds d's states one after
 * another (*cursor: the records it holds outright; the states come in
 * the order of the instants, which never goes back), each recovered in
 * an overlay undone after.  Returns 0, or -errno with the reason in err
 * (-ENOTSUP: recovery that only e2fsck does). */
static int
export_state (const struct pc_devset_dev *d, struct pc_image *im, uint64_t *cursor,
              const char *id, struct pc_export *x, const char *scratch, int timeout_s,
              struct pc_err *err)
{
  struct pc_state s;
  struct pc_mark tree;
  char problems[512];
  bool overlay = false;
  int r = pc_state_parse (&d->ix, id, &s, err);

  if (r < 0)
    return r;
  memset (&tree, 0, sizeof tree);
  r = pc_state_build (&d->ix, &s, im, cursor);
  overlay = r == 1;
  if (r == 0) {
    r = pc_image_overlay_begin (im);
    overlay = r == 0;
  }
  if (r >= 0 && pc_image_size (im) >= 2048 && pc_ext_needs_recovery (pc_image_data (im) + 1024))
    r = pc_recover (im, (int64_t) (pc_now_real_ns () / 1000000000u), NULL, err);
  if (r == -ENOTSUP)
    r = recover_by_e2fsck (im, scratch, timeout_s, err);
  if (r >= 0) {
    r = pc_fstree_read_mem (pc_image_data (im), pc_image_size (im), UINT64_MAX, &tree,
                            problems, sizeof problems);
    if (r < 0)
      pc_err_set (err, -r, "%s: the filesystem cannot be read", d->name);
  }
  if (r >= 0)
    r = pc_export_update (x, pc_image_data (im), pc_image_size (im), &tree, err);
  if (overlay)
    pc_image_overlay_end (im);
  pc_mark_free (&tree);
  pc_state_clear (&s);
  return r < 0 ? r : 0;
}

/* Brings export x to the tree of device fs at counts[fs] records,
 * recovered with its journal device jn at counts[jn] by e2fsck, in image
 * files in work.  Returns 0, or -errno with the reason in err. */
static int
export_paired (const struct pc_devset *set, size_t fs, size_t jn, const uint64_t *counts,
               uint8_t **base, const char *work, int timeout_s, struct pc_export *x,
               struct pc_err *err)
{
  struct pc_mark tree;
  char problems[512];
  uint8_t *mem = NULL;
  uint64_t size = 0;
  int r = pc_devjournal_recovered (set, fs, jn, counts[fs], counts[jn], base[fs], base[jn],
                                   work, timeout_s, &mem, &size, err);

  if (r < 0)
    return r;
  memset (&tree, 0, sizeof tree);
  r = pc_fstree_read_mem (mem, size, UINT64_MAX, &tree, problems, sizeof problems);
  if (r < 0)
    pc_err_set (err, -r, "%s: the filesystem cannot be read", set->dev[fs].name);
  else
    r = pc_export_update (x, mem, size, &tree, err);
  pc_mark_free (&tree);
  free (mem);
  return r < 0 ? r : 0;
}

/* Device j's state at instant in: its id, this shard's or another's. */
static const char *
state_id (const struct pc_devcheck_result *res, const struct pc_instant *in, size_t j,
          char *buf, size_t len)
{
  const struct pc_point *p = pc_instant_point (res, in, j);

  if (p)
    return p->id;
  snprintf (buf, len, "%" PRIu64, in->state[j]);
  return buf;
}

/* An environment variable's name for device name: letters, digits, _. */
static void
env_name (const char *prefix, const char *name, char *buf, size_t len)
{
  size_t n = (size_t) snprintf (buf, len, "%s", prefix);

  for (const char *p = name; *p && n + 1 < len; p++)
    buf[n++] = isalnum ((unsigned char) *p) ? *p : '_';
  buf[n] = '\0';
}

int
pc_devverify_run (const struct pc_check_config *cfg, const struct pc_devset *set,
                  struct pc_devcheck_result *res, struct pc_err *err)
{
  const char *tmp = cfg->work_dir ? cfg->work_dir : getenv ("TMPDIR");
  struct pc_export **x = calloc (set->n, sizeof *x);
  /* per device: its write-model states, then (from set->n on) its states
   * of a finer model, each image going forward through its own */
  struct pc_image **im = calloc (2 * set->n, sizeof *im);
  uint64_t *cursor = calloc (2 * set->n, sizeof *cursor);
  uint8_t **base = calloc (set->n, sizeof *base);
  uint64_t *bsize = calloc (set->n, sizeof *bsize), *counts = calloc (set->n, sizeof *counts);
  char work[4096], scratch[4200], *out = malloc (PC_EVIDENCE_MAX * 4);
  char **env = calloc (3 * set->n + 2, sizeof *env);
  int r = 0;

  snprintf (work, sizeof work, "%s/powercut-verify.XXXXXX",
            tmp && *tmp ? tmp : access ("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  if (x == NULL || im == NULL || cursor == NULL || base == NULL || bsize == NULL ||
      counts == NULL || out == NULL || env == NULL)
    r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  else if (mkdtemp (work) == NULL)
    r = pc_err_set (err, errno, "%s: %s", work, strerror (errno));
  else
    chmod (work, 0711);         /* a checker may run a server as another user */
  snprintf (scratch, sizeof scratch, "%s/.journal-replay.img", work);
  for (size_t j = 0; r == 0 && j < set->n; j++) {
    char dir[4200];
    snprintf (dir, sizeof dir, "%s/%s", work, set->dev[j].name);
    r = pc_devset_read_base (set, j, &base[j], &bsize[j], err);
    if (r == 0 && (r = pc_export_new (dir, &x[j])) < 0)
      pc_err_set (err, -r, "%s: %s", dir, strerror (-r));
    if (r == 0 && (r = pc_image_new (set->dev[j].ix.hdr.devsize, base[j], -1, 0, &im[j])) < 0)
      pc_err_set (err, -r, "%s: %s", set->dev[j].name, strerror (-r));
  }
  for (size_t i = 0; r == 0 && i < res->ninst && !pc_interrupted (); i++) {
    struct pc_instant *in = &res->inst[i];
    char *argv[] = { (char *) "sh", (char *) "-c", (char *) cfg->verify, NULL };
    size_t ne = 0, prev;
    bool all = true;
    int rv;
    for (size_t j = 0; j < set->n; j++) {
      const struct pc_point *p = pc_instant_point (res, in, j);
      if (res->is_journal[j])
        continue;               /* another's journal: no tree of its own */
      if (res->journal_of[j] >= 0) {
        all &= in->pair[j] == PC_V_OK;    /* recovered with it, and sound */
        continue;
      }
      /* a state known here must be sound; another shard's (-2), whose
       * verdict is not known here, is taken as sound (a finer state of
       * the instant's own device is known here, whatever shard checks
       * the state it refines) */
      all &= p != NULL ? p->verdict != PC_V_FS_CORRUPT && p->verdict != PC_V_UNMOUNTABLE &&
                         p->verdict != PC_V_NOT_CHECKED
                       : in->point[j] == -2;
    }
    all &= in->owned;
    if (!all)
      continue;                 /* a device without its filesystem (yet, or sound) */
    /* the same states as an instant already run: its answer */
    for (prev = 0; prev < i; prev++)
      if (res->inst[prev].app != PC_V_COUNT && res->inst[prev].fine == in->fine &&
          (in->fine < 0 || res->inst[prev].dev == in->dev) &&
          memcmp (res->inst[prev].point, in->point, set->n * sizeof *in->point) == 0 &&
          memcmp (res->inst[prev].state, in->state, set->n * sizeof *in->state) == 0)
        break;
    if (prev < i) {
      in->app = res->inst[prev].app;
      memcpy (in->evidence, res->inst[prev].evidence, sizeof in->evidence);
      continue;
    }
    in->app = PC_V_NOT_CHECKED;
    pc_devset_counts (set, in->dev, in->record, counts);
    for (size_t j = 0; j < set->n && in->app == PC_V_NOT_CHECKED; j++) {
      struct pc_err e;
      char nm[128], dir[4200], *all_marks = NULL, *last = NULL;
      size_t slot = j == in->dev && in->fine >= 0 ? set->n + j : j;
      char sid[PC_ID_MAX];
      int er = 0;
      if (res->journal_of[j] >= 0)
        er = export_paired (set, j, (size_t) res->journal_of[j], counts, base, work,
                            cfg->timeout_s, x[j], &e);
      else if (!res->is_journal[j] && im[slot] == NULL &&
               (er = pc_image_new (set->dev[j].ix.hdr.devsize, base[j], -1, 0, &im[slot])) < 0)
        pc_err_set (&e, -er, "%s", strerror (-er));
      else if (!res->is_journal[j])
        er = export_state (&set->dev[j], im[slot], &cursor[slot], state_id (res, in, j, sid,
                           sizeof sid), x[j], scratch, cfg->timeout_s, &e);
      if (er < 0) {
        snprintf (in->evidence, sizeof in->evidence, "the tree of %.64s could not be "
                  "exported: %.700s", set->dev[j].name, e.msg);
        in->app = PC_V_COUNT;   /* not run: not checked */
        break;
      }
      snprintf (dir, sizeof dir, "%s/%s", work, set->dev[j].name);
      if (pc_devset_marks (&set->dev[j], counts[j], &all_marks, &last) < 0) {
        r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
        break;
      }
      env_name ("POWERCUT_ROOT_", set->dev[j].name, nm, sizeof nm);
      if (!res->is_journal[j] && asprintf (&env[ne++], "%s=%s", nm, dir) < 0)
        r = -ENOMEM;
      env_name ("POWERCUT_MARKS_", set->dev[j].name, nm, sizeof nm);
      if (r == 0 && asprintf (&env[ne++], "%s=%s", nm, all_marks) < 0)
        r = -ENOMEM;
      env_name ("POWERCUT_LAST_MARK_", set->dev[j].name, nm, sizeof nm);
      if (r == 0 && asprintf (&env[ne++], "%s=%s", nm, last) < 0)
        r = -ENOMEM;
      free (all_marks);
      free (last);
      if (r < 0)
        pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
    }
    if (r == 0 && in->app == PC_V_NOT_CHECKED) {
      char id[PC_ID_MAX + 128];
      pc_instant_id (res, in, id, sizeof id);
      if (asprintf (&env[ne++], "POWERCUT_INSTANT=%s", id) < 0)
        r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
    }
    if (r == 0 && in->app == PC_V_NOT_CHECKED) {
      struct pc_proc_extra xe = { .env = env, .cwd = work };
      rv = pc_proc_run_extra (argv, &xe, cfg->timeout_s, out, PC_EVIDENCE_MAX * 4);
      if (rv == 0)
        in->app = PC_V_OK;
      else if (rv == -ETIME)
        snprintf (in->evidence, sizeof in->evidence, "the --verify command did not finish "
                  "within %d s (give a longer --timeout)", cfg->timeout_s);
      else if (rv < 0 || rv == 126 || rv == 127)
        snprintf (in->evidence, sizeof in->evidence, "the --verify command could not be run "
                  "(%s): %.400s", rv < 0 ? strerror (-rv) : "not found or not executable", out);
      else {
        snprintf (in->evidence, sizeof in->evidence, "the --verify command %s %d: %.800s",
                  rv >= 256 ? "was killed by signal" : "exited with status",
                  rv >= 256 ? rv - 256 : rv, out);
        in->app = PC_V_APP_INVALID;
      }
      for (size_t j = 0; j < set->n; j++)
        pc_export_verify (x[j]);
    }
    if (in->app == PC_V_COUNT)
      in->app = PC_V_NOT_CHECKED;
    for (size_t k = 0; k < ne; k++) {
      free (env[k]);
      env[k] = NULL;
    }
  }
  for (size_t j = 0; j < set->n; j++) {
    if (x && x[j])
      pc_export_free (x[j]);
    if (im && im[j])
      pc_image_free (im[j]);
    if (im && im[set->n + j])
      pc_image_free (im[set->n + j]);
    if (base)
      pc_image_unmap (base[j], bsize[j]);
  }
  if (x)
    pc_export_remove (work);     /* and what a checker killed at its timeout left */
  free (x);
  free (im);
  free (cursor);
  free (base);
  free (bsize);
  free (counts);
  free (out);
  free (env);
  return r;
}
