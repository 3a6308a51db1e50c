/* replay.c: one crash point's image written to a file. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/crash.h"
#include "replay/devset.h"
#include "replay/image.h"
#include "replay/replay.h"
#include "util/disk.h"

/* Builds state s of ix (NULL: no record applied), then cfg->finish's
 * changes (device: the device's name or NULL), into a new file named
 * after out, *ret_tmp (malloc'd): it is given out's name only when whole
 * (commit), so that a replay that fails leaves no image, nor an old one
 * half overwritten.  Returns 0, or -errno with the reason in err. */
/* Then, with rix, its state rs on top (a state of the kernel's recovery
 * of s, whose log's base is s). */
static int
build_state (const struct pc_replay_config *cfg, const struct pc_index *ix,
             const struct pc_state *s, const uint8_t *base, const char *out,
             const char *device, const struct pc_index *rix, const struct pc_state *rs,
             char **ret_tmp, struct pc_err *err)
{
  struct pc_image *im = NULL;
  uint64_t cursor = 0;
  struct stat st;
  bool said = false;
  int fd, r;

  char *tmp = NULL;

  if (stat (out, &st) == 0 && !S_ISREG (st.st_mode))
    return pc_err_set (err, EINVAL, "%s: not a regular file", out);
  if (asprintf (&tmp, "%s.XXXXXX", out) < 0)
    return pc_err_set (err, ENOMEM, "%s: %s", out, strerror (ENOMEM));
  fd = mkostemp (tmp, O_CLOEXEC);
  if (fd < 0) {
    r = errno;
    free (tmp);
    return pc_err_set (err, r, "%s: %s", out, strerror (r));
  }
  r = pc_image_new (ix->hdr.devsize, base, fd, cfg->flags, &im);
  if (r == 0 && s)
    r = pc_state_build (ix, s, im, &cursor);
  if (r >= 0 && rix) {
    uint64_t rcursor = 0;
    r = pc_state_build (rix, rs, im, &rcursor);
  }
  if (r >= 0)
    r = pc_image_sync (im);
  if (r >= 0 && cfg->finish) {
    uint64_t t = ix->hdr.start_ns + (s && s->point < ix->n ? ix->recs[s->point].time_ns : 0);
    r = cfg->finish (im, tmp, device, (int64_t) (t / 1000000000u), cfg->finish_arg, err);
    said = r < 0;
  }
  if (r >= 0 && fsync (fd) < 0)
    r = -errno;
  pc_image_free (im);
  close (fd);
  if (r < 0) {
    unlink (tmp);
    free (tmp);
    return said ? r : pc_err_set (err, -r, "%s: %s", out, strerror (-r));
  }
  *ret_tmp = tmp;
  return 0;
}

/* Gives tmp (build_state's) the name out, and frees it.  Returns 0, or
 * -errno with the reason in err (tmp removed). */
static int
commit (char *tmp, const char *out, struct pc_err *err)
{
  int r = 0;

  if (rename (tmp, out) < 0) {
    r = pc_err_set (err, errno, "%s: %s", out, strerror (errno));
    unlink (tmp);
  }
  free (tmp);
  return r;
}

/* Loads the log at path into ix, refusing a corrupt one.  Returns 0 or
 * -errno with the reason in err. */
static int
load_log (const char *path, struct pc_index *ix, struct pc_err *err)
{
  int r = pc_index_load (path, ix);

  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", path, pc_log_strerror (r));
  if (ix->end == PC_END_CORRUPT) {
    char m[256];
    pc_err_set (err, EBADMSG, "%s: %s", path, pc_log_corrupt_message (ix->log, m, sizeof m));
    pc_index_free (ix);
    return -EBADMSG;
  }
  return 0;
}

int
pc_replay_write (const struct pc_replay_config *cfg, struct pc_err *err)
{
  struct pc_index ix, rix;
  struct pc_state s, rs = { 0 };
  char parent[256], rlog[4400], k[32];
  uint64_t rk;
  bool recovery = pc_state_id_recovery (cfg->at, parent, sizeof parent, &rk);
  uint8_t *base = NULL;
  uint64_t base_size = 0;
  int r;

  r = load_log (cfg->log_path, &ix, err);
  if (r < 0)
    return r;
  r = pc_state_parse (&ix, recovery ? parent : cfg->at, &s, err);
  if (r < 0) {
    pc_index_free (&ix);
    return pc_err_prefix (err, -r, "--at %s", cfg->at);
  }
  /* a state of the kernel's recovery of state PARENT: its log's prefix
   * to record K (the flush model's state K) on top of PARENT */
  if (recovery) {
    pc_recovery_log_path (cfg->log_path, parent, rlog, sizeof rlog);
    snprintf (k, sizeof k, "%" PRIu64, rk);
    r = load_log (rlog, &rix, err);
    if (r == -ENOENT)
      pc_err_set (err, ENOENT, "--at %s: no recording of the recovery of %s (%s): "
                  "check --recovery-crashes makes it", cfg->at, parent, rlog);
    if (r == 0 && rix.hdr.devsize != ix.hdr.devsize) {
      r = pc_err_set (err, EINVAL, "%s: not a recovery of %s (its device's size differs)",
                      rlog, cfg->log_path);
      pc_index_free (&rix);
    }
    if (r == 0 && (r = pc_state_parse (&rix, k, &rs, err)) < 0) {
      pc_err_prefix (err, -r, "--at %s: in %s", cfg->at, rlog);
      pc_index_free (&rix);
    }
    if (r < 0) {
      pc_state_clear (&s);
      pc_index_free (&ix);
      return r;
    }
  }
  r = pc_index_read_base (&ix, cfg->base_path, &base, &base_size, err);
  if (r >= 0) {
    char *tmp = NULL;
    r = build_state (cfg, &ix, &s, base, cfg->out_path, NULL, recovery ? &rix : NULL, &rs,
                     &tmp, err);
    if (r >= 0)
      r = commit (tmp, cfg->out_path, err);
  }
  pc_image_unmap (base, base_size);
  pc_state_clear (&s);
  if (recovery) {
    pc_state_clear (&rs);
    pc_index_free (&rix);
  }
  pc_index_free (&ix);
  return r;
}

int
pc_replay_devset_write (const struct pc_replay_config *cfg, struct pc_err *err)
{
  struct pc_devset set;
  struct pc_state s;
  uint64_t *counts = NULL;
  char **out = NULL, **tmp = NULL;
  size_t d;
  int r;

  r = pc_devset_open (cfg->log_path, &set, err);
  if (r < 0)
    return r;
  counts = calloc (set.n, sizeof *counts);
  out = calloc (set.n, sizeof *out);
  tmp = calloc (set.n, sizeof *tmp);
  if (counts == NULL || out == NULL || tmp == NULL) {
    r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
    goto out;
  }
  r = pc_devset_instant (&set, cfg->at, &d, &s, counts, err);
  if (r < 0) {
    pc_err_prefix (err, -r, "--at %s", cfg->at);
    goto out;
  }
  if (mkdir (cfg->out_path, 0755) < 0 && errno != EEXIST) {
    r = pc_err_set (err, errno, "%s: %s", cfg->out_path, strerror (errno));
    goto out_state;
  }
  /* Every image built under a name of its own, then all given theirs. */
  for (size_t j = 0; r == 0 && j < set.n; j++) {
    const struct pc_index *ix = &set.dev[j].ix;
    struct pc_state all = { .point = counts[j] ? counts[j] - 1 : 0, .base = counts[j] };
    uint8_t *base = NULL;
    uint64_t base_size = 0;
    if (asprintf (&out[j], "%s/%s.img", cfg->out_path, set.dev[j].name) < 0) {
      out[j] = NULL;
      r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
      break;
    }
    r = pc_devset_read_base (&set, j, &base, &base_size, err);
    if (r >= 0)
      r = build_state (cfg, ix, j == d ? &s : counts[j] ? &all : NULL, base, out[j],
                       set.dev[j].name, NULL, NULL, &tmp[j], err);
    pc_image_unmap (base, base_size);
  }
  for (size_t j = 0; j < set.n; j++)
    if (tmp[j] && r == 0)
      r = commit (tmp[j], out[j], err);
    else if (tmp[j]) {
      unlink (tmp[j]);
      free (tmp[j]);
    }
out_state:
  pc_state_clear (&s);
out:
  for (size_t j = 0; out && j < set.n; j++)
    free (out[j]);
  free (out);
  free (tmp);
  free (counts);
  pc_devset_free (&set);
  return r < 0 ? r : 0;
}
