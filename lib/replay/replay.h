/* replay.h: the disk as found after a power cut at one crash point,
 * written to an image file (powercut replay).
 */
#ifndef POWERCUT_REPLAY_H
#define POWERCUT_REPLAY_H

#include "util/err.h"

struct pc_replay_config {
  const char *log_path;
  const char *at;               /* the crash point: a state id (crash.h), "end"
                                 * or "mark:NAME" */
  const char *base_path;        /* the base image the log started from, or NULL */
  const char *out_path;         /* the image to write: created, or a regular
                                 * file replaced */
  unsigned flags;               /* PC_IMAGE_KEEP_TRIMMED (image.h), or 0 */
};

/* Writes the image of cfg->at and syncs it.  Returns 0, or -errno with a
 * reason in err: "LOG: REASON" (not a log, a corrupt record), "--at AT:
 * REASON" (not a crash point of the log), the base image's, or "IMAGE:
 * REASON". */
int pc_replay_write (const struct pc_replay_config *cfg, struct pc_err *err);

/* With cfg->log_path a device set (devset.h) and cfg->at one of its
 * instants ("NAME:ID"): writes out_path/NAME.img for every device of the
 * set, as the power cut at that instant left it (out_path a directory,
 * made if missing).  A device recorded over a base image finds it beside
 * its log, under the name its log gives.  Errors as pc_replay_write's. */
int pc_replay_devset_write (const struct pc_replay_config *cfg, struct pc_err *err);

#endif
