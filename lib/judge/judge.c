/* judge.c: judging crash states one after another, reusing e2fsck answers
 * and file hashes where the bytes they depend on did not change. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/byhand.h"
#include "judge/fstree.h"
#include "judge/judge.h"
#include "judge/kjudge.h"
#include "replay/recover.h"
#include "util/util.h"

#define RECENT 4                /* e2fsck answers kept for reuse */

/* An e2fsck -fn answer and the bytes it rests on. */
struct answer {
  bool used;
  int64_t tag;
  enum pc_verdict verdict;
  char evidence[PC_EVIDENCE_MAX];
  struct pc_blocks read;
  uint8_t (*hash)[16];        /* of each block read, in order */
};

struct pc_judge {
  struct pc_judge_config cfg;
  bool tree_anyway;           /* both: read the tree of a state its check finds
                               * corrupt too, to compare */
  const struct pc_fs *fs;     /* what blkid said the state is (fs.h) */
  char kcopy[4096 + 8], kmnt[4096 + 8];  /* the kernel judge's copy and mount point */
  bool have_kmnt;
  struct pc_image *im;
  struct pc_fstree_cache *cache;
  struct pc_recover_cache *rcache;
  struct answer recent[RECENT];
  unsigned next;              /* the slot the next answer takes */
  struct pc_check_work stats;
};

static const char *const mode_names[] = { "auto", "ext2fs", "kernel", "both", "guest" };

const char *
pc_judge_mode_name (enum pc_judge_mode m)
{
  return (unsigned) m < 5 ? mode_names[m] : "?";
}

int
pc_judge_mode_parse (const char *s)
{
  for (int i = 0; i < 5; i++)
    if (strcmp (s, mode_names[i]) == 0)
      return i;
  return -1;
}

int
pc_judge_new (const struct pc_judge_config *cfg, struct pc_image *im, struct pc_judge **ret)
{
  struct pc_judge *j = calloc (1, sizeof *j);

  if (j == NULL)
    return -ENOMEM;
  j->cfg = *cfg;
  j->im = im;
  snprintf (j->kcopy, sizeof j->kcopy, "%s.kernel", cfg->image_path);
  snprintf (j->kmnt, sizeof j->kmnt, "%s.mnt", cfg->image_path);
  if (!cfg->plain && (pc_fstree_cache_new (&j->cache) < 0 ||
                      pc_recover_cache_new (&j->rcache) < 0)) {
    pc_fstree_cache_free (j->cache);
    free (j);
    return -ENOMEM;
  }
  *ret = j;
  return 0;
}

static void
answer_clear (struct answer *a)
{
  pc_blocks_free (&a->read);
  free (a->hash);
  memset (a, 0, sizeof *a);
}

void
pc_judge_free (struct pc_judge *j)
{
  if (j == NULL)
    return;
  for (unsigned i = 0; i < RECENT; i++)
    answer_clear (&j->recent[i]);
  if (j->have_kmnt)
    rmdir (j->kmnt);
  pc_fstree_cache_free (j->cache);
  pc_recover_cache_free (j->rcache);
  free (j);
}

void
pc_judgement_clear (struct pc_judgement *jm)
{
  if (jm->have_tree)
    pc_mark_free (&jm->tree);
  if (jm->have_other)
    pc_mark_free (&jm->other);
  jm->have_tree = jm->have_other = false;
}

void
pc_judge_get_stats (const struct pc_judge *j, struct pc_check_work *ret)
{
  *ret = j->stats;
}

/* Does the image hold what answer a's e2fsck read? */
static bool
answer_holds (const struct pc_judge *j, const struct answer *a)
{
  size_t k = 0;

  for (size_t i = 0; i < a->read.n; i++) {
    const void *h = pc_image_block_hashes (j->im, a->read.first[i], a->read.count[i]);
    if (h == NULL || memcmp (h, a->hash[k], 16 * a->read.count[i]) != 0)
      return false;
    k += a->read.count[i];
  }
  return true;
}

/* Keeps an e2fsck answer (taking over io's read set). */
static void
answer_keep (struct pc_judge *j, int64_t tag, const struct pc_fsck_result *fr,
             struct pc_fsck_io *io)
{
  struct answer *a = &j->recent[j->next];
  uint64_t total = pc_blocks_total (&io->read), k = 0;
  uint8_t (*hash)[16];

  if (total == 0 || total > SIZE_MAX / 16 || (hash = malloc (total * 16)) == NULL)
    return;
  for (size_t i = 0; i < io->read.n; i++) {
    const void *h = pc_image_block_hashes (j->im, io->read.first[i], io->read.count[i]);
    if (h == NULL) {
      free (hash);          /* it read beyond the image: nothing to reuse */
      return;
    }
    memcpy (hash[k], h, 16 * io->read.count[i]);
    k += io->read.count[i];
  }
  answer_clear (a);
  a->used = true;
  a->tag = tag;
  a->verdict = fr->verdict;
  memcpy (a->evidence, fr->evidence, sizeof a->evidence);
  a->read = io->read;
  memset (&io->read, 0, sizeof io->read);
  a->hash = hash;
  j->next = (j->next + 1) % RECENT;
}

/* Brings what a program changed in the mirror file into the image (in the
 * open overlay), so memory holds the same and the overlay's end undoes it
 * in both.  With io not known, the whole file is compared. */
static int
read_back (struct pc_judge *j, const struct pc_fsck_io *io)
{
  uint64_t size = pc_image_size (j->im);
  uint8_t *buf = malloc (1 << 20);
  int fd, r = 0;

  if (buf == NULL)
    return -ENOMEM;
  fd = open (j->cfg.image_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    free (buf);
    return -errno;
  }
  if (io->known) {
    for (size_t i = 0; i < io->written.n && r == 0; i++)
      for (uint64_t b = io->written.first[i]; b < io->written.first[i] + io->written.count[i]
           && r == 0; b++) {
        uint64_t off = b * PC_IMAGE_BLOCK, len = PC_IMAGE_BLOCK;
        if (off >= size)
          break;
        if (len > size - off)
          len = size - off;
        r = pc_pread_all (fd, buf, len, off);
        if (r == 0 && memcmp (buf, pc_image_data (j->im) + off, len) != 0)
          r = pc_image_write (j->im, off, buf, len);
      }
  }
  else {
    for (uint64_t off = 0; off < size && r == 0;) {
      uint64_t len = size - off < (1 << 20) ? size - off : (1 << 20);
      r = pc_pread_all (fd, buf, len, off);
      for (uint64_t o = 0; r == 0 && o < len; o += PC_IMAGE_BLOCK) {
        uint64_t n = len - o < PC_IMAGE_BLOCK ? len - o : PC_IMAGE_BLOCK;
        if (memcmp (buf + o, pc_image_data (j->im) + off + o, n) != 0)
          r = pc_image_write (j->im, off + o, buf + o, n);
      }
      off += len;
    }
  }
  close (fd);
  free (buf);
  return r;
}

/* Runs an e2fsck that changes the image (fsck, fsck.h) on its file and
 * brings what it wrote into the open overlay; *fr is its answer.
 * Returns 0 or -errno. */
static int
e2fsck_writes (struct pc_judge *j,
               int (*fsck) (const char *path, int timeout_s, int64_t now,
                            struct pc_fsck_result *res, struct pc_fsck_io *io),
               struct pc_fsck_result *fr)
{
  struct pc_fsck_io io;
  int r = pc_image_sync (j->im);

  if (r < 0)
    return r;
  r = fsck (j->cfg.image_path, j->cfg.timeout_s, j->cfg.now, fr, &io);
  if (r < 0)
    return r;
  r = read_back (j, &io);
  pc_fsck_io_free (&io);
  return r;
}

/* Replays the journal, if it needs it, into the open overlay: here, or
 * by e2fsck where this code does not (the evidence says why).  Sets
 * jm->verdict to PC_V_UNMOUNTABLE if it cannot be replayed, and to
 * PC_V_NOT_CHECKED for fast commits, which only the kernel replays. */
static int
recover (struct pc_judge *j, struct pc_judgement *jm)
{
  struct pc_fsck_result fr;
  struct pc_err why;
  int r;

  if (pc_image_size (j->im) < 2048 || !pc_ext_needs_recovery (pc_image_data (j->im) + 1024))
    return 0;
  if (pc_ext_fast_commit (pc_image_data (j->im) + 1024) && j->cfg.mode != PC_JUDGE_BOTH) {
    /* e2fsck's replay of fast commits is not the kernel's: it has left
     * corrupt (an inode freed under its name, a bad superblock checksum)
     * states that the kernel recovers cleanly, with every file whole.
     * What it would say is not a claim about the filesystem. */
    jm->verdict = PC_V_NOT_CHECKED;
    snprintf (jm->evidence, sizeof jm->evidence,
              "its journal needs recovery and may hold fast commits: only the kernel replays "
              "them as a reboot would (e2fsck's replay differs): not judged (the kernel judges "
              "them where powercut runs as root, --judge auto or kernel)");
    return 0;
  }
  if (!j->cfg.plain) {
    r = pc_recover (j->im, j->cfg.now, j->rcache, &why);
    if (r >= 0) {
      j->stats.recover_here++;
      return 0;
    }
    if (r != -ENOTSUP)
      return r;
    snprintf (jm->note, sizeof jm->note, "journal replay left to e2fsck (powercut does not: %.180s)",
              why.msg);
  }
  r = e2fsck_writes (j, pc_fsck_recover, &fr);
  if (r < 0)
    return r;
  j->stats.recover_e2fsck++;
  if (fr.verdict != PC_V_OK) {
    jm->verdict = fr.verdict;
    memcpy (jm->evidence, fr.evidence, sizeof jm->evidence);
  }
  return 0;
}

/* e2fsck -fn's answer, reused or run. */
static int
check_fs (struct pc_judge *j, int64_t tag, struct pc_judgement *jm)
{
  struct pc_fsck_result fr;
  struct pc_fsck_io io;
  int r;

  if (!j->cfg.plain)
    for (unsigned n = 0; n < RECENT; n++) {
      const struct answer *a = &j->recent[(j->next + RECENT - 1 - n) % RECENT];
      if (a->used && answer_holds (j, a)) {
        jm->verdict = a->verdict;
        memcpy (jm->evidence, a->evidence, sizeof jm->evidence);
        jm->fsck_as = a->tag;
        j->stats.fsck_reused++;
        return 0;
      }
    }
  r = pc_image_sync (j->im);
  if (r < 0)
    return r;
  r = pc_fsck_check (j->cfg.image_path, j->cfg.timeout_s, j->cfg.now, &fr,
                     j->cfg.plain ? NULL : &io);
  if (r < 0)
    return r;
  j->stats.fsck_runs++;
  jm->verdict = fr.verdict;
  memcpy (jm->evidence, fr.evidence, sizeof jm->evidence);
  if (!j->cfg.plain) {
    if (io.known && fr.verdict != PC_V_NOT_CHECKED)
      answer_keep (j, tag, &fr, &io);
    pc_fsck_io_free (&io);
  }
  return 0;
}

/* e2fsck -fn's answer on the overlay as a repair left it. */
static int
check_after (struct pc_judge *j, struct pc_fsck_result *after)
{
  int r = pc_image_sync (j->im);

  return r < 0 ? r : pc_fsck_check (j->cfg.image_path, j->cfg.timeout_s, j->cfg.now, after, NULL);
}

/* An e2fsck run in the overlay (pc_judge_run_fn): -fn as check_after. */
static int
run_overlay (void *ctx, pc_judge_fsck_fn fsck, struct pc_fsck_result *fr)
{
  struct pc_judge *j = ctx;

  return fsck == pc_fsck_check ? check_after (j, fr) : e2fsck_writes (j, fsck, fr);
}

/* A filesystem without a journal that e2fsck -fn finds wrong after a
 * crash is not what a reboot finds: the boot's `e2fsck -p` repairs what a
 * crash leaves without asking (counts, bitmaps), in the overlay here too,
 * and the state is judged as repaired.  Where it stops for a person,
 * e2fsck -fy does what the person would (pc_judge_by_hand).  It stays wrong if
 * e2fsck -fn still finds errors after the repair (the superblock called
 * the filesystem clean, and the boot trusts that). */
static int
preen (struct pc_judge *j, struct pc_judgement *jm)
{
  struct pc_fsck_result fr, after;
  int r;

  r = e2fsck_writes (j, pc_fsck_preen, &fr);
  if (r < 0)
    return r;
  if (fr.verdict == PC_V_FS_CORRUPT) {
    r = pc_judge_by_hand (run_overlay, j, &fr, jm);
    if (r == 0 && jm->by_hand)
      j->stats.by_hand++;
    return r;
  }
  if (fr.verdict != PC_V_OK) {
    jm->verdict = fr.verdict;
    memcpy (jm->evidence, fr.evidence, sizeof jm->evidence);
    return 0;
  }
  if (!fr.repaired) {
    /* called clean: the boot leaves it as it is */
    snprintf (jm->note, sizeof jm->note,
              "no journal, and e2fsck -p (as a boot runs it) leaves it as it is:");
    return 0;
  }
  r = check_after (j, &after);
  if (r < 0)
    return r;
  if (after.verdict != PC_V_OK) {
    jm->verdict = after.verdict;
    snprintf (jm->evidence, sizeof jm->evidence, "after e2fsck -p:\n%.*s",
              (int) sizeof jm->evidence - 20, after.evidence);
    return 0;
  }
  j->stats.preened++;
  jm->verdict = PC_V_OK;
  snprintf (jm->note, sizeof jm->note,
            "no journal: e2fsck -p repaired what e2fsck -fn found, as a boot does:");
  return 0;                     /* the evidence: what -fn found */
}

/* What a boot does to the state before a mount shows it, in the open
 * overlay (if any): its journal replayed (recover), then e2fsck -fn's
 * answer (check_fs), and for a filesystem without a journal, e2fsck -p's
 * repairs (preen).  jm->verdict says what was found.  The filesystem is
 * ext2/3/4 (pc_ext_probe). */
static int
reboot (struct pc_judge *j, int64_t tag, struct pc_judgement *jm)
{
  int r = recover (j, jm);

  if (r == 0 && jm->verdict == PC_V_OK)
    r = check_fs (j, tag, jm);
  /* without a journal, also where e2fsck -fn gave up (a directory block
   * it would salvage, "aborted"): the boot's e2fsck -p goes on */
  if (r == 0 && (jm->verdict == PC_V_FS_CORRUPT || jm->verdict == PC_V_UNMOUNTABLE) &&
      !pc_ext_has_journal (pc_image_data (j->im) + 1024))
    r = preen (j, jm);
  return r;
}

bool
pc_judge_kernel_replays (const uint8_t *sb)
{
  return sb && pc_ext_needs_recovery (sb) && pc_ext_fast_commit (sb);
}

enum pc_judge_who
pc_judge_pick (const struct pc_fs *fs, const uint8_t *sb, enum pc_judge_mode mode,
               bool kernel_ok)
{
  if (fs == NULL)
    return PC_WHO_NOBODY;
  if (!fs->libext2fs)
    return kernel_ok ? PC_WHO_KERNEL : PC_WHO_NOBODY;  /* only the kernel reads it */
  if (!kernel_ok || mode == PC_JUDGE_EXT2FS)
    return PC_WHO_EXT2FS;
  if (mode == PC_JUDGE_BOTH)
    return PC_WHO_BOTH;
  return mode == PC_JUDGE_KERNEL || pc_judge_kernel_replays (sb) ? PC_WHO_KERNEL
                                                                 : PC_WHO_EXT2FS;
}

/* Who judges the state j's image holds (probed). */
static enum pc_judge_who
who (const struct pc_judge *j)
{
  const uint8_t *sb = pc_image_size (j->im) >= 2048 ? pc_image_data (j->im) + 1024 : NULL;

  return pc_judge_pick (j->fs, sb, j->cfg.mode, j->cfg.kernel_ok);
}

/* Identifies the filesystem of the state the image holds (synced) into
 * j->fs: returns 1 if it is one powercut judges (fs.h; ext2/3/4 but by
 * the kernel if it is another), 0 with jm telling what it is if not, or
 * -errno. */
static int
probe (struct pc_judge *j, struct pc_judgement *jm)
{
  char type[16];
  int r = pc_image_sync (j->im);

  if (r < 0)
    return r;
  r = pc_ext_probe (j->cfg.image_path, type, sizeof type);
  if (r < 0)
    return r;
  j->fs = pc_fs_find (type);
  if (who (j) == PC_WHO_NOBODY) {
    jm->verdict = PC_V_UNMOUNTABLE;
    snprintf (jm->evidence, sizeof jm->evidence,
              !type[0] ? "blkid: no filesystem found"
              : j->fs ? "blkid: a %s filesystem, which only the kernel judges here (as root)"
                      : "blkid: a %s filesystem, not one powercut judges", type);
    return 0;
  }
  return 1;
}

/* Puts jm->note before the evidence: what was done differently, then what
 * was found. */
static void
note_first (struct pc_judgement *jm)
{
  size_t nl = strlen (jm->note), el = strlen (jm->evidence);

  if (!jm->note[0])
    return;
  if (el > 0) {
    if (nl + 1 + el >= sizeof jm->evidence)
      el = sizeof jm->evidence - nl - 2;
    memmove (jm->evidence + nl + 1, jm->evidence, el);
    jm->evidence[nl] = '\n';
    jm->evidence[nl + 1 + el] = '\0';
  }
  else
    jm->evidence[nl] = '\0';
  memcpy (jm->evidence, jm->note, nl);
}

/* One judgement in a line, for a recovery-differs finding: its verdict,
 * and what a failing one said (its first lines, after the note that says
 * how it was judged), or how many entries a passing one read. */
static void
said (const struct pc_judgement *jm, char *buf, size_t len)
{
  const char *ev = jm->evidence, *nl;
  size_t n;

  if (jm->note[0] && strncmp (ev, jm->note, strlen (jm->note)) == 0)
    ev += strlen (jm->note) + (ev[strlen (jm->note)] == '\n');
  n = (size_t) snprintf (buf, len, "%s", pc_verdict_name (jm->verdict));
  if (jm->verdict == PC_V_OK) {
    if (jm->have_tree)
      snprintf (buf + n, len - n, " (%zu entries)", jm->tree.nentries);
    return;
  }
  for (int lines = 0; *ev && lines < 3 && n + 4 < len; lines++) {
    nl = strchr (ev, '\n');
    n += (size_t) snprintf (buf + n, len - n, "%s%.*s", lines ? " / " : ": ",
                            (int) (nl ? nl - ev : (ptrdiff_t) strlen (ev)), ev);
    if (n >= len)
      break;
    ev = nl ? nl + 1 : ev + strlen (ev);
  }
}

/* Are two entries of one path the same (all either reader gives)? */
static bool
same_entry (const struct pc_entry *a, const struct pc_entry *b)
{
  if (a->type != b->type || a->mode != b->mode || a->size != b->size || a->nlink != b->nlink ||
      a->ino != b->ino || memcmp (a->hash, b->hash, sizeof a->hash) != 0 ||
      (a->target == NULL) != (b->target == NULL) ||
      (a->target && strcmp (a->target, b->target) != 0) ||
      a->xattrs_unknown != b->xattrs_unknown || a->nxattrs != b->nxattrs)
    return false;
  for (size_t k = 0; k < a->nxattrs; k++)
    if (strcmp (a->xattrs[k].name, b->xattrs[k].name) != 0 ||
        a->xattrs[k].hash != b->xattrs[k].hash)
      return false;
  return true;
}

/* Appends "path: TEXT" for a path the two trees differ at. */
static void
tree_diff_line (char *buf, size_t len, const char *path, const char *what)
{
  size_t n = strlen (buf);

  if (n + 2 < len)
    snprintf (buf + n, len - n, "%s%s: %s", n ? "; " : "", path[0] ? path : "/", what);
}

/* Do the two judgements of one state disagree: whether it mounts and
 * its check passes, or, both passing, the trees they read?  Fills jm's
 * differs and what each said. */
static void
compare (struct pc_judgement *jm, const struct pc_judgement *k, const struct pc_judgement *e)
{
  char paths[PC_EVIDENCE_MAX] = "";
  size_t i = 0, n = 0, ndiff = 0;

  if (k->verdict == PC_V_NOT_CHECKED || e->verdict == PC_V_NOT_CHECKED)
    return;                     /* one of them did not finish: nothing to compare */
  jm->differs = k->verdict != e->verdict;
  if (k->have_tree && e->have_tree)
    while (i < k->tree.nentries || n < e->tree.nentries) {
      const struct pc_entry *a = i < k->tree.nentries ? &k->tree.entries[i] : NULL;
      const struct pc_entry *b = n < e->tree.nentries ? &e->tree.entries[n] : NULL;
      int c = a == NULL ? 1 : b == NULL ? -1 : strcmp (a->path, b->path);
      if (c < 0) {
        if (ndiff++ < 8)
          tree_diff_line (paths, sizeof paths, a->path, "only the kernel shows it");
        i++;
      }
      else if (c > 0) {
        if (ndiff++ < 8)
          tree_diff_line (paths, sizeof paths, b->path, "only e2fsck's shows it");
        n++;
      }
      else {
        if (!same_entry (a, b) && ndiff++ < 8) {
          char what[160];
          snprintf (what, sizeof what, "the kernel %" PRIu64 " B mode %o links %u, e2fsck's %"
                    PRIu64 " B mode %o links %u%s", a->size, a->mode, a->nlink, b->size,
                    b->mode, b->nlink,
                    memcmp (a->hash, b->hash, sizeof a->hash) ? ", other content" : "");
          tree_diff_line (paths, sizeof paths, a->path, what);
        }
        i++;
        n++;
      }
    }
  jm->differs |= ndiff > 0;
  if (!jm->differs)
    return;
  strcpy (jm->by_kernel_said, "the kernel: ");
  said (k, jm->by_kernel_said + 12, sizeof jm->by_kernel_said - 12);
  strcpy (jm->by_e2fsck_said, "e2fsck: ");
  said (e, jm->by_e2fsck_said + 8, sizeof jm->by_e2fsck_said - 8);
  if (ndiff) {
    size_t l = strlen (jm->by_kernel_said);
    snprintf (jm->by_kernel_said + l, sizeof jm->by_kernel_said - l, "; %zu path%s differ%s: %s",
              ndiff, ndiff == 1 ? "" : "s", ndiff == 1 ? "s" : "", paths);
  }
}

/* The kernel's judgement of the state (kjudge.h). */
static int
kernel_state (struct pc_judge *j, struct pc_judgement *jm)
{
  struct pc_kjudge_config kc = {
    .copy_path = j->kcopy, .mnt_dir = j->kmnt, .fs = j->fs,
    .timeout_s = j->cfg.timeout_s, .hash_limit = j->cfg.hash_limit,
    .read_tree = j->cfg.read_tree, .plain = j->cfg.plain, .export = j->cfg.export,
  };
  struct pc_err why;
  int r;

  if (!j->have_kmnt) {
    if (mkdir (j->kmnt, 0700) < 0 && errno != EEXIST)
      return -errno;
    j->have_kmnt = true;
  }
  r = pc_kjudge_state (&kc, j->im, jm, &why);
  if (r < 0)
    return r;
  jm->by_kernel = true;
  j->stats.kernel++;
  for (int i = 0; i < 5; i++)
    j->stats.kernel_ns[i] += jm->kernel_ns[i];
  if (jm->verdict != PC_V_OK && !(j->tree_anyway && jm->verdict == PC_V_FS_CORRUPT))
    pc_judgement_clear (jm);
  note_first (jm);
  return 0;
}

static int ext2fs_state (struct pc_judge *j, int64_t tag, struct pc_judgement *jm);

/* Both judgements of the state (probed): the one auto would make is the
 * one given, with whether the other disagrees. */
static int
both_states (struct pc_judge *j, int64_t tag, struct pc_judgement *jm)
{
  bool kernel_first = pc_judge_kernel_replays (pc_image_data (j->im) + 1024);
  struct pc_judgement *k = calloc (1, sizeof *k), *e = calloc (1, sizeof *e), *p, *o;
  int r;

  if (k == NULL || e == NULL) {
    free (k);
    free (e);
    return -ENOMEM;
  }
  e->fsck_as = -1;
  /* the application's checker sees the tree of the judgement given */
  struct pc_export *x = j->cfg.export;
  j->cfg.export = kernel_first ? NULL : x;
  j->tree_anyway = true;        /* both trees, to compare them file by file */
  r = ext2fs_state (j, tag, e);
  if (r == 0) {
    j->cfg.export = kernel_first ? x : NULL;
    r = kernel_state (j, k);
    if (r < 0)
      pc_judgement_clear (e);
  }
  j->tree_anyway = false;
  j->cfg.export = x;
  if (r == 0) {
    p = kernel_first ? k : e;
    o = kernel_first ? e : k;
    compare (p, k, e);
    /* e2fsck dropped the journal, yet its files are the kernel's: a note */
    if (!p->differs && strstr (e->evidence, "while recovering journal") != NULL)
      j->stats.journal_dropped++;
    if (p->differs && o->have_tree) {
      p->other = o->tree;       /* taken */
      p->have_other = true;
      p->other_by_kernel = o == k;
      o->have_tree = false;
    }
    pc_judgement_clear (o);
    /* a given judgement whose check failed keeps no tree */
    if (p->verdict != PC_V_OK && p->have_tree) {
      pc_mark_free (&p->tree);
      p->have_tree = false;
    }
    *jm = *p;                   /* its tree too */
  }
  free (k);
  free (e);
  return r;
}

int
pc_judge_state (struct pc_judge *j, int64_t tag, struct pc_judgement *jm)
{
  int r;

  memset (jm, 0, sizeof *jm);
  jm->fsck_as = -1;
  j->stats.states++;
  r = probe (j, jm);
  if (r <= 0)
    return r;
  switch (who (j)) {
  case PC_WHO_BOTH: return both_states (j, tag, jm);
  case PC_WHO_KERNEL: return kernel_state (j, jm);
  default: return ext2fs_state (j, tag, jm);
  }
}

/* libext2fs and e2fsck's judgement of the state (probed). */
static int
ext2fs_state (struct pc_judge *j, int64_t tag, struct pc_judgement *jm)
{
  int r, r2;

  r = pc_image_overlay_begin (j->im);
  if (r < 0)
    return r;
  r = reboot (j, tag, jm);
  if (r == 0 && j->cfg.read_tree &&
      (jm->verdict == PC_V_OK || (j->tree_anyway && jm->verdict == PC_V_FS_CORRUPT))) {
    jm->tree_error = pc_fstree_read_image (j->im, j->cache, j->cfg.hash_limit, &jm->tree,
                                           jm->problems, sizeof jm->problems);
    jm->have_tree = jm->tree_error == 0;
    if (jm->have_tree && jm->verdict == PC_V_OK && j->cfg.export)
      jm->export_error = pc_export_update (j->cfg.export, pc_image_data (j->im),
                                           pc_image_size (j->im), &jm->tree,
                                           &jm->export_err);
    if (j->cache) {
      size_t rd, ru;
      pc_fstree_cache_stats (j->cache, &rd, &ru);
      j->stats.files_read += rd;
      j->stats.files_reused += ru;
    }
  }
  r2 = pc_image_overlay_end (j->im);
  if (r == 0)
    r = r2;
  note_first (jm);
  if (r < 0)
    pc_judgement_clear (jm);
  return r;
}

int
pc_judge_reboot (struct pc_judge *j, struct pc_judgement *jm)
{
  int r;

  memset (jm, 0, sizeof *jm);
  jm->fsck_as = -1;
  j->stats.states++;
  r = probe (j, jm);
  if (r <= 0)
    return r;
  if (!j->fs->libext2fs) {
    jm->verdict = PC_V_UNMOUNTABLE;
    snprintf (jm->evidence, sizeof jm->evidence, "blkid: a %s filesystem, which the kernel "
              "recovers, not libext2fs", j->fs->name);
    return 0;
  }
  r = reboot (j, -1, jm);
  if (r == 0)
    r = pc_image_sync (j->im);
  note_first (jm);
  return r;
}
