/* replay.h: the disk as found after a power cut at one crash point,
 * written to an image file (powercut replay).
 */
#ifndef POWERCUT_REPLAY_H
#define POWERCUT_REPLAY_H

#include <stdint.h>

#include "replay/image.h"
#include "util/err.h"

struct pc_replay_config {
  const char *log_path;
  const char *at;               /* the crash point: a state id (crash.h), "end"
                                 * or "mark:NAME" */
  const char *base_path;        /* the base image the log started from, or NULL */
  const char *out_path;         /* the image to write: created, or a regular
                                 * file replaced */
  unsigned flags;               /* PC_IMAGE_KEEP_TRIMMED, PC_IMAGE_HASH
                                 * (image.h), or 0 */
  /* If not NULL, called on each image once it holds its state, before it
   * is given its name: im mirrored in the file at path (synced), device
   * the device's name in a device set (NULL for one log), when the
   * crash's wall-clock time (seconds since the epoch: the log's start
   * plus its state's last record's time).  It may change both, leaving
   * the file as im is (synced).  It returns 0, or -errno with its reason
   * in err: then no image is written (in a set, none). */
  int (*finish) (struct pc_image *im, const char *path, const char *device, int64_t when,
                 void *arg, struct pc_err *err);
  void *finish_arg;
};

/* Writes the image of cfg->at and syncs it.  Returns 0, or -errno with a
 * reason in err: "LOG: REASON" (not a log, a corrupt record), "--at AT:
 * REASON" (not a crash point of the log), the base image's, "IMAGE:
 * REASON", or cfg->finish's. */
int pc_replay_write (const struct pc_replay_config *cfg, struct pc_err *err);

/* With cfg->log_path a device set (devset.h) and cfg->at one of its
 * instants ("NAME:ID"): writes out_path/NAME.img for every device of the
 * set, as the power cut at that instant left it (out_path a directory,
 * made if missing).  A device recorded over a base image finds it beside
 * its log, under the name its log gives.  The images are given their names
 * once all are whole: a failure leaves none.  Errors as
 * pc_replay_write's. */
int pc_replay_devset_write (const struct pc_replay_config *cfg, struct pc_err *err);

#endif
