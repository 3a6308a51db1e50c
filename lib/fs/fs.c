/* fs.c: the filesystems powercut knows (fs.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "fs/fs.h"

#define MiB (UINT64_C (1) << 20)

/* e2fsck -fn: 0 clean; 4 errors left; 8 an operational error (cannot
 * open it: a corruption too, as it reads a state); 16 and up, usage or a
 * library failure; the rest (1, 2: it fixed something) cannot be with
 * -n. */
static enum pc_verdict
e2fsck_verdict (int status)
{
  if (status == 0)
    return PC_V_OK;
  if (status >= 16)
    return PC_V_NOT_CHECKED;
  return PC_V_FS_CORRUPT;
}

/* xfs_repair -n: 0 no corruption; 1 corruption found (or, before it
 * starts, a dirty log it will not read: the kernel's mount replays and
 * cleans it, so after one it is corruption); 2 and up, it failed. */
static enum pc_verdict
xfs_repair_verdict (int status)
{
  return status == 0 ? PC_V_OK : status == 1 ? PC_V_FS_CORRUPT : PC_V_NOT_CHECKED;
}

/* btrfs check --readonly: 0 no error found, 1 errors found; 2 and up
 * (usage, cannot open) a failure of the check. */
static enum pc_verdict
btrfs_check_verdict (int status)
{
  return status == 0 ? PC_V_OK : status == 1 ? PC_V_FS_CORRUPT : PC_V_NOT_CHECKED;
}

/* fsck.f2fs -f --dry-run (f2fs-tools 1.15, fsck(8)'s codes): 0 no
 * corruption; 1, 2, 4 errors found (it would have fixed them); 255 (its
 * -1) it stopped at an inconsistency it cannot get past (an assertion,
 * no valid superblock, a question it cannot ask on a closed input); 8
 * and up, it could not run (cannot open the copy, usage). */
static enum pc_verdict
fsck_f2fs_verdict (int status)
{
  if (status == 0)
    return PC_V_OK;
  if (status < 8 || status == 255)
    return PC_V_FS_CORRUPT;
  return PC_V_NOT_CHECKED;
}

static const char *const e2fsck[] = { "e2fsck", "-f", "-n", NULL };
static const char *const xfs_repair[] = { "xfs_repair", "-n", "-f", NULL };
/* its cache sized by default to most of the host's memory: half its time
 * on a small image is setting that up; 64 MiB holds a 64 GiB filesystem's
 * needs (it says what it needs where it does not) */
static const char *const xfs_repair_quick[] = { "xfs_repair", "-n", "-f", "-m", "64", NULL };
/* what xfs_repair says of an image file, not of the filesystem in it */
static const char *const xfs_repair_noise[] = {
  "Cannot get host filesystem geometry.",
  "Repair may fail if there is a sector size mismatch between",
  "the image and the host filesystem.",
  NULL,
};
static const char *const btrfs_check[] = { "btrfs", "check", "--readonly", NULL };
static const char *const fsck_f2fs[] = { "fsck.f2fs", "-f", "--dry-run", NULL };

#define EXT(n, opts, journal) \
  { .name = n, .module = "ext4", .mkfs_force = "-F", .mkfs_default = opts, \
    .min_size = 16 * MiB, .default_size = 128 * MiB, .commit = journal, .commit_s = 5, \
    .recovery = journal ? "its journal replayed" : "no journal to replay", \
    .libext2fs = true, .mount_data = "", .check = e2fsck, .check_name = "e2fsck -fn", \
    .check_verdict = e2fsck_verdict }

static const struct pc_fs table[] = {
  EXT ("ext2", "-b 4096", false),
  EXT ("ext3", "-b 4096 -E lazy_itable_init=0,lazy_journal_init=0", true),
  EXT ("ext4", "-b 4096 -E lazy_itable_init=0,lazy_journal_init=0", true),
  /* its log is pushed every 30 s (xfssyncd); two copies of one state
   * have one UUID, which a mount refuses without nouuid */
  { .name = "xfs", .module = "xfs", .mkfs_force = "-f", .mkfs_default = "",
    .min_size = 300 * MiB, .default_size = 320 * MiB, .commit = false, .commit_s = 30,
    .recovery = "its log replayed",
    .libext2fs = false, .mount_data = "nouuid", .check = xfs_repair, .check_name = "xfs_repair -n",
    .check_quick = xfs_repair_quick,
    .check_quick_short = "Required memory for repair is greater that the maximum specified",
    .check_noise = xfs_repair_noise,
    .check_verdict = xfs_repair_verdict },
  /* a transaction commits every 30 s (commit=); copies of one state share
   * an fsid, which kernels since 6.7 tell apart (temp_fsid) */
  { .name = "btrfs", .module = "btrfs", .mkfs_force = "-f", .mkfs_default = "",
    .min_size = 128 * MiB, .default_size = 128 * MiB, .commit = true, .commit_s = 30,
    .recovery = "its log tree replayed",
    .libext2fs = false, .mount_data = "", .copies_since = 6 << 8 | 7, .check = btrfs_check,
    .check_name = "btrfs check --readonly",
    .check_verdict = btrfs_check_verdict },
  /* a checkpoint every 60 s (cp_interval; no mount option sets it), data
   * fsync'd since found by roll-forward recovery at the mount; mkfs.f2fs
   * 1.15 fails under 52 MiB */
  { .name = "f2fs", .module = "f2fs", .mkfs_force = "-f", .mkfs_default = "",
    .min_size = 64 * MiB, .default_size = 128 * MiB, .commit = false, .commit_s = 60,
    .recovery = "what fsync made durable rolled forward from its last checkpoint",
    .libext2fs = false, .mount_data = "", .check = fsck_f2fs,
    .check_name = "fsck.f2fs -f --dry-run", .check_verdict = fsck_f2fs_verdict },
};

const struct pc_fs *
pc_fs_find (const char *name)
{
  for (size_t i = 0; name && i < sizeof table / sizeof *table; i++)
    if (strcmp (table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

/* The names of the table's entries (those libext2fs reads, if ext) into
 * buf: "a, b or c". */
static void
names (bool ext, char *buf, size_t len)
{
  size_t n = 0, k = 0, o = 0;

  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    n += !ext || table[i].libext2fs;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof table / sizeof *table && o < len; i++) {
    if (ext && !table[i].libext2fs)
      continue;
    o += (size_t) snprintf (buf + o, len - o, "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ",
                            table[i].name);
    k++;
  }
}

const char *
pc_fs_names (bool ext)
{
  /* made once; the table does not change */
  static char all[256], exts[128];

  if (all[0] == '\0') {
    names (false, all, sizeof all);
    names (true, exts, sizeof exts);
  }
  return ext ? exts : all;
}

bool
pc_fs_kernel_has (const struct pc_fs *fs)
{
  FILE *f = fopen ("/proc/filesystems", "re");
  char line[128], path[512];
  struct utsname u;
  struct stat st;
  bool has = false;

  while (f && !has && fgets (line, sizeof line, f)) {
    char *name = strrchr (line, '\t');
    name = name ? name + 1 : line;
    name[strcspn (name, "\n")] = '\0';
    has = strcmp (name, fs->name) == 0;
  }
  if (f)
    fclose (f);
  if (has)
    return true;
  /* not there yet: a module a mount would load (where there are modules) */
  if (uname (&u) < 0 || stat ("/proc/modules", &st) < 0)
    return false;
  snprintf (path, sizeof path, "/lib/modules/%s/kernel/fs/%s", u.release, fs->module);
  return stat (path, &st) == 0;
}

bool
pc_fs_kernel_mounts_copies (const struct pc_fs *fs)
{
  struct utsname u;
  unsigned major = 0, minor = 0;

  if (fs->copies_since == 0)
    return true;
  if (uname (&u) < 0 || sscanf (u.release, "%u.%u", &major, &minor) != 2)
    return false;
  return (major << 8 | minor) >= fs->copies_since;
}
