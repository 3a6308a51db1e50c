/* fsck.c: blkid, journal recovery and e2fsck on a crash state image. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <blkid/blkid.h>

#include "fsck.h"
#include "proc.h"
#include "util.h"

static const char *const verdict_names[PC_V_COUNT] = {
  "ok", "fs-corrupt", "unmountable", "zero-length", "missing", "mismatch",
  "durable-lost",
};

const char *
pc_verdict_name (enum pc_verdict v)
{
  return (unsigned) v < PC_V_COUNT ? verdict_names[v] : "unknown";
}

int
pc_verdict_parse (const char *name)
{
  for (int i = 0; i < PC_V_COUNT; i++)
    if (strcmp (name, verdict_names[i]) == 0)
      return i;
  return -1;
}

#define OUT_MAX 8192

/* Replaces every occurrence of the scratch image's path with "IMAGE": the
 * file is gone by the time anyone reads the evidence. */
static void
hide_path (char *out, const char *path)
{
  size_t pl = strlen (path);
  char *p;

  while (pl > 5 && (p = strstr (out, path)) != NULL) {
    memcpy (p, "IMAGE", 5);
    memmove (p + 5, p + pl, strlen (p + pl) + 1);
  }
}

/* Keeps the lines of e2fsck's output that say something, up to a few. */
static void
evidence (char *dst, size_t len, const char *prefix, const char *out)
{
  size_t pos = (size_t) snprintf (dst, len, "%s", prefix);
  int lines = 0;

  for (const char *l = out; *l && lines < 8 && pos + 2 < len;) {
    const char *nl = strchr (l, '\n');
    size_t n = nl ? (size_t) (nl - l) : strlen (l);
    bool skip = n == 0 || strncmp (l, "e2fsck ", 7) == 0 ||
                strncmp (l, "Pass ", 5) == 0 || strncmp (l, "Overwriting", 11) == 0 ||
                strncmp (l, "    e2undo", 10) == 0;
    if (!skip) {
      if (pos > 0 && pos + 1 < len)
        dst[pos++] = '\n';
      if (n > len - pos - 1)
        n = len - pos - 1;
      memcpy (dst + pos, l, n);
      pos += n;
      dst[pos] = '\0';
      lines++;
    }
    l = nl ? nl + 1 : l + n;
  }
}

/* Reads the ext2/3/4 superblock's feature words. */
static int
needs_recovery (const char *path, bool *ret)
{
  uint8_t sb[1024];
  int fd = open (path, O_RDONLY | O_CLOEXEC), r;

  if (fd < 0)
    return -errno;
  r = (int) pread (fd, sb, sizeof sb, 1024);
  close (fd);
  if (r != (int) sizeof sb)
    return -EIO;
  /* s_feature_compat & HAS_JOURNAL, s_feature_incompat & RECOVER */
  *ret = (pc_get_le32 (sb + 0x5c) & 0x4) && (pc_get_le32 (sb + 0x60) & 0x4);
  return 0;
}

int
pc_fs_probe (const char *path, char *type, size_t len)
{
  blkid_probe pr = blkid_new_probe_from_filename (path);
  const char *t = NULL;

  type[0] = '\0';
  if (pr == NULL)
    return -EIO;
  blkid_probe_enable_superblocks (pr, 1);
  blkid_probe_set_superblocks_flags (pr, BLKID_SUBLKS_TYPE);
  if (blkid_do_safeprobe (pr) == 0 &&
      blkid_probe_lookup_value (pr, "TYPE", &t, NULL) == 0 && t)
    snprintf (type, len, "%s", t);
  blkid_free_probe (pr);
  return strcmp (type, "ext2") == 0 || strcmp (type, "ext3") == 0 ||
         strcmp (type, "ext4") == 0;
}

int
pc_fsck_image (const char *path, const char *undo_path, int timeout_s,
               int (*inspect) (const char *path, void *ctx), void *ctx,
               struct pc_fsck_result *res)
{
  char *out = malloc (OUT_MAX);
  bool recover = false;
  int r;

  memset (res, 0, sizeof *res);
  if (out == NULL)
    return -ENOMEM;
  r = pc_fs_probe (path, res->fstype, sizeof res->fstype);
  if (r < 0)
    goto out;
  if (r == 0) {
    res->verdict = PC_V_UNMOUNTABLE;
    snprintf (res->evidence, sizeof res->evidence,
              res->fstype[0] ? "blkid: a %s filesystem, not ext2/3/4"
                             : "blkid: no filesystem found", res->fstype);
    r = 0;
    goto out;
  }
  r = needs_recovery (path, &recover);
  if (r < 0)
    goto out;

  if (recover) {
    char *argv[] = { "e2fsck", "-y", "-E", "journal_only", "-z", (char *) undo_path,
                     (char *) path, NULL };
    unlink (undo_path);
    r = pc_proc_run (argv, timeout_s, out, OUT_MAX);
    res->recovered = true;
    if (r == 127 || r == -ENOENT) {
      r = -ENOENT;
      goto out;
    }
    if (r < 0 || r > 3) {
      res->verdict = PC_V_UNMOUNTABLE;
      if (r == -ETIME)
        snprintf (res->evidence, sizeof res->evidence,
                  "journal recovery did not finish within %d s", timeout_s);
      else {
        hide_path (out, path);
        evidence (res->evidence, sizeof res->evidence, "journal recovery failed:", out);
      }
      goto restore;
    }
  }

  {
    char *argv[] = { "e2fsck", "-f", "-n", (char *) path, NULL };
    r = pc_proc_run (argv, timeout_s, out, OUT_MAX);
    if (r == 127) {
      r = -ENOENT;
      goto restore;
    }
    if (r == 0)
      res->verdict = PC_V_OK;
    else if (r == -ETIME) {
      res->verdict = PC_V_FS_CORRUPT;
      snprintf (res->evidence, sizeof res->evidence,
                "e2fsck -fn did not finish within %d s", timeout_s);
    }
    else if (r >= 8) {
      res->verdict = PC_V_UNMOUNTABLE;
      hide_path (out, path);
      evidence (res->evidence, sizeof res->evidence, "", out);
    }
    else {
      res->verdict = PC_V_FS_CORRUPT;
      hide_path (out, path);
      evidence (res->evidence, sizeof res->evidence, "", out);
    }
    r = 0;
    if (inspect && res->verdict != PC_V_UNMOUNTABLE)
      inspect (path, ctx);
  }

restore:
  if (recover) {
    char *argv[] = { "e2undo", (char *) undo_path, (char *) path, NULL };
    int u = pc_proc_run (argv, timeout_s, out, OUT_MAX);
    if (u != 0)
      res->image_dirty = true;
    unlink (undo_path);
  }
out:
  free (out);
  return r;
}
