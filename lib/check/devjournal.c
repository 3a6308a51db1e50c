/* devjournal.c: an ext3/ext4 whose journal is on another device of a set
 * (mke2fs -O journal_dev, mkfs -J device=), judged at each instant with
 * the journal of that same instant (devcheck.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/devint.h"
#include "replay/image.h"
#include "util/disk.h"
#include "util/proc.h"
#include "util/util.h"

#define SB_OFF 1024u

/* The superblock (1024 bytes at 1024) of device d after its last record:
 * base (or zeros), then every record over it, in order. */
static void
end_superblock (const struct pc_devset_dev *d, const uint8_t *base, uint8_t *sb)
{
  memset (sb, 0, 1024);
  if (base && d->ix.hdr.devsize >= SB_OFF + 1024)
    memcpy (sb, base + SB_OFF, 1024);
  for (uint64_t i = 0; i < d->ix.n; i++) {
    const struct pc_record *r = &d->ix.recs[i];
    uint64_t a, b;
    if (!pc_rec_is_data (r) || r->offset >= SB_OFF + 1024 || r->offset + r->length <= SB_OFF)
      continue;
    a = r->offset > SB_OFF ? r->offset : SB_OFF;
    b = r->offset + r->length < SB_OFF + 1024 ? r->offset + r->length : SB_OFF + 1024;
    if (r->type == PC_REC_WRITE)
      memcpy (sb + (a - SB_OFF), r->data + (a - r->offset), b - a);
    else
      memset (sb + (a - SB_OFF), 0, b - a);
  }
}

int
pc_devjournal_roles (const struct pc_devset *set, int64_t *journal_of, struct pc_err *err)
{
  uint8_t (*sb)[1024] = calloc (set->n, 1024);

  if (sb == NULL)
    return pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  for (size_t j = 0; j < set->n; j++) {
    uint8_t *base = NULL;
    uint64_t bsize = 0;
    int r = pc_devset_read_base (set, j, &base, &bsize, err);
    if (r < 0) {
      free (sb);
      return r;
    }
    end_superblock (&set->dev[j], base, sb[j]);
    pc_image_unmap (base, bsize);
  }
  for (size_t j = 0; j < set->n; j++) {
    const uint8_t *s = sb[j];
    journal_of[j] = -1;
    /* an ext2/3/4 superblock that has a journal (compat 0x4), not in an
     * inode (s_journal_inum 0) but on the device of s_journal_uuid */
    if (pc_get_le16 (s + 0x38) != 0xEF53 || !(pc_get_le32 (s + 0x5C) & 0x4) ||
        pc_get_le32 (s + 0xE0) != 0)
      continue;
    for (size_t k = 0; k < set->n; k++)
      if (k != j && pc_get_le16 (sb[k] + 0x38) == 0xEF53 && (pc_get_le32 (sb[k] + 0x60) & 0x8) &&
          memcmp (sb[k] + 0x68, s + 0xD0, 16) == 0)
        journal_of[j] = (int64_t) k;
    if (journal_of[j] < 0) {
      pc_err_set (err, EINVAL, "device %s keeps its journal on a device that is not in the set",
                  set->dev[j].name);
      free (sb);
      return -EINVAL;
    }
  }
  free (sb);
  return 0;
}

/* Writes d's image after its first n records into path. */
static int
write_image (const struct pc_devset_dev *d, const uint8_t *base, uint64_t n, const char *path)
{
  struct pc_image *im = NULL;
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), r;

  if (fd < 0)
    return -errno;
  r = pc_image_new (d->ix.hdr.devsize, base, fd, 0, &im);
  for (uint64_t i = 0; r == 0 && i < n; i++)
    r = pc_image_apply (im, &d->ix.recs[i], d->ix.hdr.sector, NULL);
  if (r == 0)
    r = pc_image_sync (im);
  pc_image_free (im);
  close (fd);
  return r;
}

int
pc_devjournal_judge (const struct pc_devset *set, size_t fs, size_t jn, uint64_t nfs,
                     uint64_t njn, const uint8_t *fsbase, const uint8_t *jnbase,
                     const char *work, int timeout_s, enum pc_verdict *ret, char *note,
                     size_t notelen)
{
  char fimg[4200], jimg[4200], out[4096];
  char *rec[] = { (char *) "e2fsck", (char *) "-y", (char *) "-E", (char *) "journal_only",
                  (char *) "-j", jimg, fimg, NULL };
  char *chk[] = { (char *) "e2fsck", (char *) "-fn", (char *) "-j", jimg, fimg, NULL };
  int r;

  snprintf (fimg, sizeof fimg, "%s/fs.img", work);
  snprintf (jimg, sizeof jimg, "%s/journal.img", work);
  note[0] = '\0';
  if ((r = write_image (&set->dev[fs], fsbase, nfs, fimg)) < 0 ||
      (r = write_image (&set->dev[jn], jnbase, njn, jimg)) < 0)
    return r;
  r = pc_proc_run (rec, timeout_s, out, sizeof out);
  if (r < 0 || r > 1) {
    *ret = r == -ETIME || r < 0 ? PC_V_NOT_CHECKED : PC_V_UNMOUNTABLE;
    snprintf (note, notelen, "e2fsck -E journal_only -j %s: %s %.300s", set->dev[jn].name,
              r < 0 ? "could not run:" : "failed:", r < 0 ? strerror (-r) : out);
    return 0;
  }
  r = pc_proc_run (chk, timeout_s, out, sizeof out);
  if (r == 0)
    *ret = PC_V_OK;
  else {
    *ret = r < 0 ? PC_V_NOT_CHECKED : (r & 4) ? PC_V_FS_CORRUPT : PC_V_UNMOUNTABLE;
    snprintf (note, notelen, "e2fsck -fn -j %s after recovery: %s %.400s", set->dev[jn].name,
              r < 0 ? "could not run:" : "found errors:", r < 0 ? strerror (-r) : out);
  }
  return 0;
}

int
pc_devjournal_recovered (const struct pc_devset *set, size_t fs, size_t jn, uint64_t nfs,
                         uint64_t njn, const uint8_t *fsbase, const uint8_t *jnbase,
                         const char *work, int timeout_s, uint8_t **ret, uint64_t *ret_size,
                         struct pc_err *err)
{
  char fimg[4200], jimg[4200], out[4096];
  char *rec[] = { (char *) "e2fsck", (char *) "-y", (char *) "-E", (char *) "journal_only",
                  (char *) "-j", jimg, fimg, NULL };
  uint64_t size = set->dev[fs].ix.hdr.devsize;
  uint8_t *mem = NULL;
  int r, fd = -1;

  snprintf (fimg, sizeof fimg, "%s/.fs-tree.img", work);
  snprintf (jimg, sizeof jimg, "%s/.journal-tree.img", work);
  if ((r = write_image (&set->dev[fs], fsbase, nfs, fimg)) < 0 ||
      (r = write_image (&set->dev[jn], jnbase, njn, jimg)) < 0)
    pc_err_set (err, -r, "%s: %s", work, strerror (-r));
  else if ((r = pc_proc_run (rec, timeout_s, out, sizeof out)) < 0 || r > 1)
    r = pc_err_set (err, r < 0 ? -r : EIO, "e2fsck -E journal_only -j %s: %s %.300s",
                    set->dev[jn].name, r < 0 ? "could not run:" : "failed:",
                    r < 0 ? strerror (-r) : out);
  else if ((mem = malloc (size ? size : 1)) == NULL)
    r = pc_err_set (err, ENOMEM, "%s", strerror (ENOMEM));
  else if ((fd = open (fimg, O_RDONLY | O_CLOEXEC)) < 0 || (r = pc_pread_all (fd, mem, size, 0)) < 0)
    r = pc_err_set (err, fd < 0 ? errno : -r, "%s: %s", fimg, strerror (fd < 0 ? errno : -r));
  if (fd >= 0)
    close (fd);
  unlink (fimg);
  unlink (jimg);
  if (r < 0) {
    free (mem);
    return r;
  }
  *ret = mem;
  *ret_size = size;
  return 0;
}
