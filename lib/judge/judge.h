/* judge.h: what a reboot would find in one crash state after another.
 *
 * A judge works on one image (image.h, with PC_IMAGE_HASH and a mirror
 * file) that the caller brings from crash state to crash state.  For the
 * state the image holds, it identifies the filesystem (blkid), replays its
 * journal into an overlay (undone before it returns), runs `e2fsck -fn`
 * and reads the file tree (fstree.h), reusing what earlier states of the
 * same image already established:
 *
 *  - e2fsck: a state that holds the same bytes as an earlier checked state
 *    in every block that state's e2fsck read gets that state's answer
 *    (fsck.h says why that is sound); the judgement names it (fsck_as);
 *  - the tree: files whose inode and blocks did not change are not read
 *    again (fstree.h).
 *
 * With the kernel judging (the mode; kjudge.h), the state is a copy the
 * kernel mounts: nothing is reused, and the image is not touched.
 *
 * The image is left as it was given (its mirror file may lag: sync it),
 * but by pc_judge_reboot, which keeps the recovery: the state as a reboot
 * leaves it (replay --recovered).
 */
#ifndef POWERCUT_JUDGE_H
#define POWERCUT_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "fs/fs.h"
#include "judge/export.h"
#include "judge/fsck.h"
#include "replay/image.h"
#include "format/mark.h"
#include "util/err.h"

/* Who recovers and reads a state: auto (libext2fs and e2fsck, but the
 * kernel for what only it replays as a reboot would: an ext4 journal that
 * may hold fast commits), ext2fs, the kernel (kjudge.h) for every state,
 * or both: each state both ways (e2fsck replays fast commits too), the
 * judgement auto would make the one given, and whether the two disagree
 * (differs).  guest: the kernel of a qemu guest, the whole check run
 * there (run/gjudge.h); a judge here never takes it. */
enum pc_judge_mode { PC_JUDGE_AUTO, PC_JUDGE_EXT2FS, PC_JUDGE_KERNEL, PC_JUDGE_BOTH,
                     PC_JUDGE_GUEST };

/* Who judges one state. */
enum pc_judge_who {
  PC_WHO_EXT2FS,                /* libext2fs and e2fsck */
  PC_WHO_KERNEL,                /* this machine's kernel (kjudge.h) */
  PC_WHO_BOTH,                  /* each, and whether they disagree */
  PC_WHO_NOBODY,                /* not one powercut judges here: a filesystem it
                                 * does not know, or one only the kernel reads
                                 * where it may not mount */
};

/* The one choice of who judges a state of filesystem fs (fs.h; NULL:
 * not one powercut knows) in mode, kernel_ok (the caller may let the
 * kernel mount: root, a mount namespace of its own); sb: the state's
 * bytes at offset 1024 (an ext superblock) if size >= 2048, else NULL.
 * A filesystem libext2fs does not read, the kernel's; an ext2/3/4 state
 * whose journal needs recovery and may hold fast commits (which only the
 * kernel replays as a reboot would), the kernel's in auto (both in
 * both); else as mode says, libext2fs where the kernel may not. */
enum pc_judge_who pc_judge_pick (const struct pc_fs *fs, const uint8_t *sb,
                                 enum pc_judge_mode mode, bool kernel_ok);

/* Does a reboot's recovery of an ext2/3/4 state that sb (as above) is
 * the superblock of need the kernel: a journal needing recovery that may
 * hold fast commits? */
bool pc_judge_kernel_replays (const uint8_t *sb);

/* "auto", "ext2fs", "kernel", "both", "guest" and back (-1: unknown). */
const char *pc_judge_mode_name (enum pc_judge_mode m);
int pc_judge_mode_parse (const char *s);

struct pc_judge_config {
  const char *image_path;     /* the image's mirror file */
  enum pc_judge_mode mode;
  bool kernel_ok;             /* the caller may mount (root, in a mount
                               * namespace of its own: kmount.h); else the
                               * kernel judges nothing */
  int timeout_s;              /* per program run */
  int64_t now;                /* the time e2fsck is told it is */
  uint64_t hash_limit;        /* fstree.h */
  bool read_tree;             /* read the tree of states e2fsck passes */
  bool plain;                 /* the plain method: e2fsck replays every journal and
                               * checks every state, every file is read */
  struct pc_export *export;   /* if not NULL, the tree of a state that passes is
                               * written there (export.h; read_tree must be set) */
};

/* Counts, for the curious (and the tests). */
struct pc_judgement {
  enum pc_verdict verdict;    /* PC_V_OK, PC_V_FS_CORRUPT, PC_V_UNMOUNTABLE, or
                               * PC_V_NOT_CHECKED (e2fsck timed out or crashed) */
  char evidence[PC_EVIDENCE_MAX];
  int64_t fsck_as;            /* the tag of the state whose e2fsck answer this is, or -1 */
  char note[256];             /* how it was judged, if not as usual (also in evidence) */
  bool by_hand;               /* verdict OK after e2fsck -fy, where the boot's
                               * e2fsck -p stopped for a person (no journal):
                               * the state's verdict is PC_V_FSCK_BY_HAND, or
                               * its files' if worse */
  bool preen_again;           /* fs-corrupt: e2fsck -p stopped for a person, yet
                               * run again it repaired the rest without asking */
  bool have_tree;             /* verdict OK, read_tree, and the tree could be read */
  int tree_error;             /* if not: the walk's -errno (-ENOMEM: not the state's fault) */
  int export_error;           /* with export: 0 if the tree is there, else -errno, */
  struct pc_err export_err;   /* and why */
  struct pc_mark tree;
  char problems[512];         /* what the tree walk could not read */
  bool by_kernel;             /* the kernel recovered and read it (kjudge.h), */
  uint64_t kernel_ns[5];      /* the time of each part (result.h's kernel_ns) */
  bool differs;               /* both: the two judgements disagree (their
                               * verdicts, or the trees they read), and */
  struct pc_mark other;       /* ... the other judgement's tree, where it could
                               * be read (even of a state its check finds
                               * corrupt), for the caller to judge too */
  bool have_other;
  bool other_by_kernel;       /* whose the other is */
  char by_kernel_said[PC_EVIDENCE_MAX];  /* how the kernel's went, */
  char by_e2fsck_said[PC_EVIDENCE_MAX];  /* and libext2fs and e2fsck's */
};

struct pc_judge;

/* Returns 0 or -ENOMEM. */
int pc_judge_new (const struct pc_judge_config *cfg, struct pc_image *im,
                  struct pc_judge **ret);
void pc_judge_free (struct pc_judge *j);

/* Judges the state the image holds now; tag names it (fsck_as of later
 * states).  Returns 0 with *ret filled (free with pc_judgement_clear), or
 * -errno if judging could not be done at all (-ENOENT: e2fsck is missing;
 * the image, memory or the mirror file failed). */
int pc_judge_state (struct pc_judge *j, int64_t tag, struct pc_judgement *ret);
void pc_judgement_clear (struct pc_judgement *jm);

/* Leaves the image (and its mirror file, synced) as a reboot leaves the
 * state it holds, as pc_judge_state judges it but keeping the changes:
 * its journal replayed, orphans released (pc_recover, or e2fsck -E
 * journal_only where that does not), and without a journal, e2fsck -p's
 * repairs if e2fsck -fn finds errors, or where e2fsck -p stops for a
 * person, e2fsck -fy's (jm->by_hand).  Never a repair beyond those.
 * jm->verdict (no tree read) says how it went: PC_V_OK; PC_V_FS_CORRUPT
 * (recovered, but e2fsck -fn finds errors, or e2fsck -p stopped for a
 * person); PC_V_UNMOUNTABLE (not ext2/3/4, or the journal cannot be
 * replayed: nothing was changed, or what e2fsck left); PC_V_NOT_CHECKED (a
 * journal that may hold fast commits needs replay, which only the kernel
 * does: nothing was changed; or an e2fsck that did not finish).  With an
 * overlay open, the changes are in it.  Returns 0, or -errno as
 * pc_judge_state. */
int pc_judge_reboot (struct pc_judge *j, struct pc_judgement *jm);

void pc_judge_get_stats (const struct pc_judge *j, struct pc_check_work *ret);

#endif
