/* replay.c: one crash point's image written to a file. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
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

/* Builds state s of ix (NULL: no record applied) into a new image file
 * out.  Returns 0 or -errno. */
static int
write_state (const struct pc_index *ix, const struct pc_state *s, const uint8_t *base,
             const char *out, unsigned flags, struct pc_err *err)
{
  struct pc_image *im = NULL;
  uint64_t cursor = 0;
  struct stat st;
  int fd, r;

  char *tmp = NULL;

  if (stat (out, &st) == 0 && !S_ISREG (st.st_mode))
    return pc_err_set (err, EINVAL, "%s: not a regular file", out);
  /* Written under a name of its own, and given out's only when whole: a
   * replay that fails leaves no image, nor an old one half overwritten. */
  if (asprintf (&tmp, "%s.XXXXXX", out) < 0)
    return pc_err_set (err, ENOMEM, "%s: %s", out, strerror (ENOMEM));
  fd = mkostemp (tmp, O_CLOEXEC);
  if (fd < 0) {
    r = errno;
    free (tmp);
    return pc_err_set (err, r, "%s: %s", out, strerror (r));
  }
  r = pc_image_new (ix->hdr.devsize, base, fd, flags, &im);
  if (r == 0 && s)
    r = pc_state_build (ix, s, im, &cursor);
  if (r >= 0)
    r = pc_image_sync (im);
  if (r >= 0 && fsync (fd) < 0)
    r = -errno;
  pc_image_free (im);
  close (fd);
  if (r >= 0 && rename (tmp, out) < 0)
    r = -errno;
  if (r < 0)
    unlink (tmp);
  free (tmp);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", out, strerror (-r));
  return 0;
}

int
pc_replay_write (const struct pc_replay_config *cfg, struct pc_err *err)
{
  struct pc_index ix;
  struct pc_state s;
  uint8_t *base = NULL;
  uint64_t base_size = 0;
  int r;

  r = pc_index_load (cfg->log_path, &ix);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", cfg->log_path, pc_log_strerror (r));
  if (ix.end == PC_END_CORRUPT) {
    char m[256];
    pc_err_set (err, EBADMSG, "%s: %s", cfg->log_path,
                pc_log_corrupt_message (ix.log, m, sizeof m));
    pc_index_free (&ix);
    return -EBADMSG;
  }
  r = pc_state_parse (&ix, cfg->at, &s, err);
  if (r < 0) {
    pc_index_free (&ix);
    return pc_err_prefix (err, -r, "--at %s", cfg->at);
  }
  r = pc_index_read_base (&ix, cfg->base_path, &base, &base_size, err);
  if (r >= 0)
    r = write_state (&ix, &s, base, cfg->out_path, cfg->flags, err);
  pc_image_unmap (base, base_size);
  pc_state_clear (&s);
  pc_index_free (&ix);
  return r;
}

int
pc_replay_devset_write (const struct pc_replay_config *cfg, struct pc_err *err)
{
  struct pc_devset set;
  struct pc_state s;
  uint64_t *counts = NULL;
  size_t d;
  int r;

  r = pc_devset_open (cfg->log_path, &set, err);
  if (r < 0)
    return r;
  counts = calloc (set.n, sizeof *counts);
  if (counts == NULL) {
    pc_devset_free (&set);
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
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
  for (size_t j = 0; r == 0 && j < set.n; j++) {
    const struct pc_index *ix = &set.dev[j].ix;
    struct pc_state all = { .point = counts[j] ? counts[j] - 1 : 0, .base = counts[j] };
    char *out = NULL;
    uint8_t *base = NULL;
    uint64_t base_size = 0;
    if (asprintf (&out, "%s/%s.img", cfg->out_path, set.dev[j].name) < 0) {
      r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
      break;
    }
    r = pc_devset_read_base (&set, j, &base, &base_size, err);
    if (r >= 0)
      r = write_state (ix, j == d ? &s : counts[j] ? &all : NULL, base, out, cfg->flags, err);
    pc_image_unmap (base, base_size);
    free (out);
  }
out_state:
  pc_state_clear (&s);
out:
  free (counts);
  pc_devset_free (&set);
  return r < 0 ? r : 0;
}
