/* recovered.c: a crash state's image left as a reboot leaves it, by the
 * judge's recovery (recovered.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge/fsck.h"
#include "judge/judge.h"
#include "judge/recovered.h"
#include "fs/fs.h"
#include "replay/devset.h"
#include "util/kmount.h"
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

/* Brings im to what the file at path holds (after the kernel changed it),
 * in memory and so in the file.  Returns 0 or -errno. */
static int
read_back (struct pc_image *im, const char *path)
{
  static const size_t chunk = 1 << 20;
  uint64_t size = pc_image_size (im);
  char *buf = malloc (chunk);
  int fd = open (path, O_RDONLY | O_CLOEXEC), r = 0;

  if (buf == NULL || fd < 0) {
    r = buf ? -errno : -ENOMEM;
    goto out;
  }
  for (uint64_t off = 0; off < size && r == 0; off += chunk) {
    size_t n = size - off < chunk ? (size_t) (size - off) : chunk;
    ssize_t got = pread (fd, buf, n, (off_t) off);
    if (got != (ssize_t) n)
      r = got < 0 ? -errno : -EIO;
    else if (memcmp (buf, pc_image_data (im) + off, n) != 0)
      r = pc_image_write (im, off, buf, n);
  }
  if (r == 0)
    r = pc_image_sync (im);
out:
  if (fd >= 0)
    close (fd);
  free (buf);
  return r;
}

/* The kernel's recovery of the state at path (im mirrored there, synced),
 * as a boot's mount does it: in a child of a mount namespace of its own
 * (nothing stays mounted if it is killed), the file on a loop device,
 * mounted writable (the journal replayed, orphans released) and
 * unmounted; then im brought to what the file holds.  Returns 0, or
 * -errno with a reason in err: -EPERM (not root), -EIO (the kernel cannot
 * mount it). */
static int
kernel_recover (struct pc_image *im, const char *path, const char *who, struct pc_err *err)
{
  const char *tmpdir = getenv ("TMPDIR");
  char type[16], dir[4096];
  int status, r;
  pid_t pid;

  if (geteuid () != 0)
    return pc_err_set (err, EPERM, "%s: only the kernel recovers it as a mount would (a "
                       "journal that may hold fast commits, or a filesystem libext2fs does not "
                       "read): run as root", who);
  r = pc_ext_probe (path, type, sizeof type);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", who, strerror (-r));
  snprintf (dir, sizeof dir, "%s/powercut-recover.XXXXXX",
            tmpdir && tmpdir[0] ? tmpdir : "/tmp");
  if (mkdtemp (dir) == NULL)
    return pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
  pid = fork ();
  if (pid == 0) {
    struct pc_err e;
    char dev[64];
    int lfd, m;
    if (pc_mount_ns_private (&e) < 0 ||
        (lfd = pc_loop_attach (path, false, dev, sizeof dev, &e)) < 0)
      _exit (1);
    m = mount (dev, dir, type, MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME, NULL);
    close (lfd);
    if (m < 0)
      _exit (2);
    _exit (pc_unmount (dir, NULL, 0) < 0 ? 3 : 0);
  }
  r = pid < 0 ? -errno : 0;
  while (pid > 0 && waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  rmdir (dir);
  if (r < 0)
    return pc_err_set (err, -r, "%s: %s", who, strerror (-r));
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return pc_err_set (err, EIO, "%s: the kernel %s", who,
                       WIFEXITED (status) && WEXITSTATUS (status) == 2
                       ? "cannot mount it: its journal cannot be replayed, so a mount would fail"
                       : "could not recover it (a loop device, a mount namespace)");
  r = read_back (im, path);
  return r < 0 ? pc_err_set (err, -r, "%s: %s", who, strerror (-r)) : 0;
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
  /* a filesystem libext2fs does not read: the kernel's mount recovers it */
  {
    char type[16];
    const struct pc_fs *fs = pc_ext_probe (path, type, sizeof type) >= 0 ? pc_fs_find (type) : NULL;
    if (fs && pc_judge_pick (fs, NULL, PC_JUDGE_AUTO, true) == PC_WHO_KERNEL)
      return kernel_recover (im, path, who, err);
  }
  if (sb && pc_get_le16 (sb + 0x38) == 0xEF53) {
    /* s_feature_incompat & JOURNAL_DEV; a journal (s_feature_compat &
     * HAS_JOURNAL) in no inode (s_journal_inum 0) is on another device */
    if (pc_get_le32 (sb + 0x60) & 0x8)
      return pc_err_set (err, ENOTSUP, "%s: it is the journal of a filesystem on another "
                         "device, which --recovered does not replay %s", who, raw);
    if (pc_ext_has_journal (sb) && pc_get_le32 (sb + 0xE0) == 0)
      return pc_err_set (err, ENOTSUP, "%s: its journal is on another device, which "
                         "--recovered does not replay %s", who, raw);
    if (pc_judge_kernel_replays (sb)) {
      /* fast commits: only the kernel replays them as a reboot would */
      r = kernel_recover (im, path, who, err);
      if (r < 0)
        return r;
    }
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
    if (jm.by_hand)
      add_note (rc, device, "no journal: the boot's e2fsck -p stops for a person; e2fsck -fy "
                "repaired it, as a person does");
    return 0;
  case PC_V_FS_CORRUPT:
    /* what a reboot leaves, all the same */
    add_note (rc, device, jm.preen_again
              ? "the boot's e2fsck -p stops for a person, yet run again it repairs the rest "
                "without asking (e2fsck's fault): written as that second run leaves it"
              : "e2fsck -fn finds errors in the state as a reboot leaves it");
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
