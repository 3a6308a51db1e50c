/* recovered.c: a crash state's image left as a reboot leaves it, by the
 * judge's recovery (recovered.h). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check/fsck.h"
#include "check/judge.h"
#include "check/recovered.h"
#include "replay/devset.h"
#include "util/util.h"

struct recovered {
  const struct pc_replay_config *cfg;
  char *note;
  size_t notelen;
};

/* The evidence s as one line in buf: its lines joined by "; ". */
static const char *
one_line (const char *s, char *buf, size_t len)
{
  size_t o = 0;

  for (; *s && o + 3 < len; s++)
    if (*s != '\n')
      buf[o++] = *s;
    else if (s[1] != '\0') {
      buf[o++] = ';';
      buf[o++] = ' ';
    }
  buf[o] = '\0';
  return buf;
}

/* Adds what to rc's note, for device (or NULL). */
static void
add_note (struct recovered *rc, const char *device, const char *what)
{
  size_t n = strlen (rc->note);

  snprintf (rc->note + n, rc->notelen - n, "%s%s%s%s%s", n ? "; " : "", device ? "device " : "",
            device ? device : "", device ? ": " : "", what);
}

/* The state in im (file path) recovered, or refused with a reason that
 * names it ("--at AT", and its device in a set). */
static int
finish (struct pc_image *im, const char *path, const char *device, int64_t when, void *arg,
        struct pc_err *err)
{
  struct recovered *rc = arg;
  /* the reboot right after the crash: an image that does not depend on
   * the day it is written */
  struct pc_judge_config jc = { .image_path = path, .timeout_s = PC_RECOVERED_TIMEOUT,
                                .now = when };
  const uint8_t *sb = pc_image_size (im) >= 2048 ? pc_image_data (im) + 1024 : NULL;
  const char *raw = "(without --recovered, replay writes the raw state)";
  struct pc_judgement jm;
  struct pc_judge *j = NULL;
  char who[300], ev[400];
  int r;

  if (device)
    snprintf (who, sizeof who, "--at %s: device %s", rc->cfg->at, device);
  else
    snprintf (who, sizeof who, "--at %s", rc->cfg->at);
  if (sb && pc_get_le16 (sb + 0x38) == 0xEF53) {
    /* s_feature_incompat & JOURNAL_DEV; a journal (s_feature_compat &
     * HAS_JOURNAL) in no inode (s_journal_inum 0) is on another device */
    if (pc_get_le32 (sb + 0x60) & 0x8)
      return pc_err_set (err, ENOTSUP, "%s: it is the journal of a filesystem on another "
                         "device, which --recovered does not replay %s", who, raw);
    if (pc_fs_has_journal (sb) && pc_get_le32 (sb + 0xE0) == 0)
      return pc_err_set (err, ENOTSUP, "%s: its journal is on another device, which "
                         "--recovered does not replay %s", who, raw);
    if (pc_fs_needs_recovery (sb) && pc_fs_fast_commit (sb))
      return pc_err_set (err, ENOTSUP, "%s: its journal needs recovery and may hold fast "
                         "commits: the kernel's mount would replay them, and powercut "
                         "cannot %s", who, raw);
  }
  r = pc_judge_new (&jc, im, &j);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", who, strerror (-r));
  r = pc_judge_reboot (j, &jm);
  pc_judge_free (j);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", who,
                       r == -ENOENT ? "e2fsck is not installed" : strerror (-r));
  switch (jm.verdict) {
  case PC_V_OK:
    return 0;
  case PC_V_FS_CORRUPT:
    /* what a reboot leaves, all the same */
    add_note (rc, device, "e2fsck -fn finds errors in the state as a reboot leaves it");
    return 0;
  case PC_V_UNMOUNTABLE:
    one_line (jm.evidence, ev, sizeof ev);
    if (strncmp (jm.evidence, "blkid:", 6) == 0)
      return pc_err_set (err, ENOTSUP, "%s: %s: --recovered knows what a reboot does to "
                         "ext2/3/4 only %s", who, ev, raw);
    if (strstr (jm.evidence, "journal recovery failed:"))
      return pc_err_set (err, EIO, "%s: its journal cannot be replayed, so a mount would "
                         "fail %s: %s", who, raw, ev);
    /* recovered (or in no need of it), but e2fsck cannot read it */
    add_note (rc, device, "e2fsck cannot check the state as a reboot leaves it: ");
    snprintf (rc->note + strlen (rc->note), rc->notelen - strlen (rc->note), "%s", ev);
    return 0;
  default:
    return pc_err_set (err, ETIME, "%s: not written: %s", who,
                       one_line (jm.evidence, ev, sizeof ev));
  }
}

int
pc_replay_recovered (const struct pc_replay_config *cfg, char *note, size_t notelen,
                     struct pc_err *err)
{
  struct pc_replay_config c = *cfg;
  struct recovered rc = { .cfg = cfg, .note = note, .notelen = notelen };

  note[0] = '\0';
  c.flags |= PC_IMAGE_HASH;     /* as a judge's image is (judge.h) */
  c.finish = finish;
  c.finish_arg = &rc;
  return pc_devset_is (cfg->log_path) ? pc_replay_devset_write (&c, err)
                                      : pc_replay_write (&c, err);
}
