/* kjudge.c: a crash state judged by this machine's kernel (kjudge.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "judge/byhand.h"
#include "judge/fsck.h"
#include "judge/kjudge.h"
#include "judge/mnttree.h"
#include "util/kmount.h"
#include "util/proc.h"
#include "util/util.h"

/* Writes the copy of the state; returns 0 or -errno with err. */
static int
write_copy (const struct pc_kjudge_config *cfg, const struct pc_image *im, struct pc_err *err)
{
  int fd = open (cfg->copy_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), r;

  if (fd < 0)
    return pc_err_set (err, errno, "%s: %s", cfg->copy_path, strerror (errno));
  r = pc_image_copy_sparse (im, fd);
  if (close (fd) < 0 && r == 0)
    r = -errno;
  if (r < 0) {
    unlink (cfg->copy_path);
    return pc_err_set (err, -r, "%s: %s", cfg->copy_path, strerror (-r));
  }
  return 0;
}

/* Does what the kernel said of the device tell of an error in the
 * filesystem ("EXT4-fs error (device loop3): ...", "JBD2: ... error")? */
static bool
kernel_error (const char *said)
{
  return strstr (said, "error") != NULL || strstr (said, "corrupt") != NULL;
}

/* Appends text to jm's evidence, a line of its own. */
static void
evidence (struct pc_judgement *jm, const char *text)
{
  size_t n = strlen (jm->evidence);

  if (text[0] && n + 2 < sizeof jm->evidence)
    snprintf (jm->evidence + n, sizeof jm->evidence - n, "%s%s", n ? "\n" : "", text);
}

/* Takes out of text (lines) every line that one of noise (NULL-terminated,
 * or NULL) is. */
static void
drop_noise (char *text, const char *const *noise)
{
  char *w = text;

  for (const char *r = text; noise && *r;) {
    size_t len = strcspn (r, "\n");
    bool drop = false;
    for (const char *const *n = noise; *n && !drop; n++)
      drop = strlen (*n) == len && strncmp (r, *n, len) == 0;
    if (!drop) {
      memmove (w, r, len + (r[len] == '\n'));
      w += len + (r[len] == '\n');
    }
    r += len + (r[len] == '\n');
  }
  if (noise)
    *w = '\0';
}

/* Runs check (fs.h) on the copy: its exit status, or -errno; its output
 * in out. */
static int
run_check (const struct pc_kjudge_config *cfg, const char *const *check, char *out, size_t len)
{
  char *argv[16];
  size_t n = 0;

  for (const char *const *a = check; *a && n < 14; a++)
    argv[n++] = (char *) *a;
  argv[n++] = (char *) cfg->copy_path;
  argv[n] = NULL;
  return pc_proc_run (argv, cfg->timeout_s, out, len);
}

/* The filesystem's own check of the copy (fs.h), other than e2fsck's:
 * its verdict into jm, its output as evidence; its quick form first,
 * unless plain, and the check as it is where the quick one says it is
 * too short of memory.  Returns 0, or -ENOENT (the check is not
 * installed). */
static int
own_check (const struct pc_kjudge_config *cfg, struct pc_judgement *jm)
{
  char out[PC_EVIDENCE_MAX];
  int st = -1;
  bool quick = cfg->fs->check_quick && !cfg->plain;

  if (quick)
    st = run_check (cfg, cfg->fs->check_quick, out, sizeof out);
  if (!quick || (st >= 0 && st <= 255 && strstr (out, cfg->fs->check_quick_short)))
    st = run_check (cfg, cfg->fs->check, out, sizeof out);
  if (st == 127 || st == -ENOENT)
    return -ENOENT;
  if (st < 0 || st > 255) {
    jm->verdict = PC_V_NOT_CHECKED;
    snprintf (out, sizeof out, "%s %s", cfg->fs->check_name,
              st == -ETIME ? "did not finish in time" : st > 255 ? "was killed" : "could not run");
  }
  else
    jm->verdict = cfg->fs->check_verdict (st);
  drop_noise (out, cfg->fs->check_noise);
  evidence (jm, out);
  return 0;
}

/* An e2fsck run on the copy (pc_judge_run_fn). */
static int
run_copy (void *ctx, pc_judge_fsck_fn fsck, struct pc_fsck_result *fr)
{
  const struct pc_kjudge_config *cfg = ctx;

  return fsck (cfg->copy_path, cfg->timeout_s, (int64_t) time (NULL), fr, NULL);
}

/* Without a journal the kernel has nothing to replay: a boot runs e2fsck
 * -p first (fstab's pass) and mounts what it left, and where it stops for
 * a person, what the person does (pc_judge_by_hand).  jm->verdict is
 * PC_V_OK where the mount is to follow (how: what repaired it, or ""),
 * else what stopped the boot.  Returns 0 or -errno. */
static int
boot_preen (const struct pc_kjudge_config *cfg, struct pc_judgement *jm, char *how, size_t len)
{
  struct pc_fsck_result fr;
  int r = run_copy ((void *) cfg, pc_fsck_preen, &fr);

  how[0] = '\0';
  if (r < 0)
    return r;
  if (fr.verdict == PC_V_FS_CORRUPT) {
    r = pc_judge_by_hand (run_copy, (void *) cfg, &fr, jm);
    if (r == 0 && jm->by_hand)
      snprintf (how, len, "no journal: where the boot's e2fsck -p stopped, e2fsck -fy "
                "repaired it, as a person does; ");
    return r;
  }
  jm->verdict = fr.verdict;
  if (fr.verdict != PC_V_OK)
    memcpy (jm->evidence, fr.evidence, sizeof jm->evidence);
  else if (fr.repaired) {
    snprintf (how, len, "no journal: the boot's e2fsck -p repaired it first; ");
    evidence (jm, fr.evidence);
  }
  return 0;
}

int
pc_kjudge_state (const struct pc_kjudge_config *cfg, const struct pc_image *im,
                 struct pc_judgement *jm, struct pc_err *err)
{
  char dev[64], said[PC_EVIDENCE_MAX] = "", line[PC_EVIDENCE_MAX], how[160] = "";
  bool nojournal = cfg->fs->libext2fs && !pc_ext_has_journal (pc_image_data (im) + 1024);
  struct pc_fsck_result fr;
  struct utsname u;
  int kfd, lfd, r, e = 0;
  bool mounted;

  uint64_t t = pc_now_mono_ns (), t2;

  memset (jm, 0, sizeof *jm);
  jm->fsck_as = -1;
  r = write_copy (cfg, im, err);
  if (r < 0)
    return r;
  if (nojournal) {
    r = boot_preen (cfg, jm, how, sizeof how);
    if (r < 0 || jm->verdict != PC_V_OK) {
      unlink (cfg->copy_path);
      return r < 0 ? pc_err_set (err, -r, "e2fsck -p: %s", strerror (-r)) : 0;
    }
  }
  t2 = pc_now_mono_ns ();
  jm->kernel_ns[0] = t2 - t;
  t = t2;
  kfd = pc_kmsg_open ();
  lfd = pc_loop_attach (cfg->copy_path, false, dev, sizeof dev, err);
  if (lfd < 0) {
    if (kfd >= 0)
      close (kfd);
    unlink (cfg->copy_path);
    return lfd;
  }
  /* as a boot mounts a filesystem from fstab: writable (the journal is
   * replayed, orphans released).  Not read-only: Linux 6.18 cannot replay
   * ext4 fast commits on a read-only mount ("JBD2: journal recovery
   * failed") of a state it recovers writable. */
  mounted = mount (dev, cfg->mnt_dir, cfg->fs->name, MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME,
                   cfg->fs->mount_data[0] ? cfg->fs->mount_data : NULL) == 0;
  if (!mounted)
    e = errno;
  close (lfd);                  /* the mount holds the device; without one it goes */
  if (!mounted && (e == EPERM || e == EACCES || e == ENODEV || e == ENOTBLK)) {
    if (kfd >= 0)
      close (kfd);
    unlink (cfg->copy_path);
    return pc_err_set (err, e, e == ENODEV ? "this kernel cannot mount %s: %s"
                                           : "the kernel judge cannot mount %s: %s",
                       cfg->fs->name, strerror (e));
  }
  t2 = pc_now_mono_ns ();
  jm->kernel_ns[1] = t2 - t;
  t = t2;
  uname (&u);
  snprintf (jm->note, sizeof jm->note, "judged by the kernel (Linux %s): %smounted from a loop "
            "device, %s by the mount; %s after", u.release, how,
            nojournal ? "nothing replayed" : cfg->fs->recovery, cfg->fs->check_name);
  if (mounted && cfg->read_tree) {
    jm->tree_error = pc_mnttree_read (cfg->mnt_dir, cfg->hash_limit, &jm->tree, jm->problems,
                                      sizeof jm->problems);
    jm->have_tree = jm->tree_error == 0;
    /* the tree for the application's checker, copied while the kernel's
     * recovery of it is mounted (whether the state passes is known
     * after: the export of one that does not is not used) */
    if (jm->have_tree && cfg->export)
      jm->export_error = pc_export_update_dir (cfg->export, cfg->mnt_dir, &jm->tree,
                                               &jm->export_err);
  }
  t2 = pc_now_mono_ns ();
  jm->kernel_ns[2] = t2 - t;
  t = t2;
  if (mounted)
    pc_unmount (cfg->mnt_dir, NULL, 0);
  t2 = pc_now_mono_ns ();
  jm->kernel_ns[3] = t2 - t;
  t = t2;
  pc_kmsg_read (kfd, strrchr (dev, '/') + 1, said, sizeof said);
  if (!mounted) {
    jm->verdict = e == ENOMEM ? PC_V_NOT_CHECKED : PC_V_UNMOUNTABLE;
    snprintf (line, sizeof line, "mount: %s", strerror (e));
    evidence (jm, line);
    evidence (jm, said);
    unlink (cfg->copy_path);
    return 0;
  }
  evidence (jm, said);
  if (kernel_error (said)) {
    jm->verdict = PC_V_FS_CORRUPT;
    unlink (cfg->copy_path);
    return 0;
  }
  /* the filesystem's own check of what the kernel left (e2fsck told the
   * time it is: the kernel stamped the superblock as it replayed) */
  if (cfg->fs->libext2fs)
    r = pc_fsck_check (cfg->copy_path, cfg->timeout_s, (int64_t) time (NULL), &fr, NULL);
  else
    r = own_check (cfg, jm);
  jm->kernel_ns[4] = pc_now_mono_ns () - t;
  unlink (cfg->copy_path);
  if (r < 0) {
    if (jm->have_tree)
      pc_mark_free (&jm->tree);
    jm->have_tree = false;
    if (!cfg->fs->libext2fs)
      return pc_err_set (err, ENOENT, "%s is not installed", cfg->fs->check[0]);
    return r == -ENOENT ? pc_err_set (err, ENOENT, "e2fsck not found") : r;
  }
  if (cfg->fs->libext2fs) {
    jm->verdict = fr.verdict;
    evidence (jm, fr.evidence);
  }
  return 0;
}
