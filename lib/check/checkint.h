/* checkint.h: the checker's insides, shared by checker.c (loading,
 * planning, collecting) and checkpool.c (the worker pool).
 *
 * The checking process plans the distinct images, maps the shared memory
 * (struct shared) and starts workers; a worker claims images in chunks,
 * checks each image's points and stores each point's result: verdict and
 * where its record is in the shared memory, the evidence and findings in
 * the worker's own results file (checkpool.c writes, checker.c reads). */
#ifndef POWERCUT_CHECKINT_H
#define POWERCUT_CHECKINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/checker.h"
#include "replay/image.h"
#include "judge/judge.h"
#include "fs/fs.h"
#include "oracle/oracle.h"
#include "util/err.h"

#define CHUNK 8                 /* states a worker takes at a time */

enum slot_status { SLOT_PENDING, SLOT_RUNNING, SLOT_DONE };

#define CHECK_ERROR (-1)      /* a result's verdict when the check as a whole cannot go on */
#define TRIES 2                 /* a state whose checker dies is tried this often */

/* The result of one crash point, written by a worker: the verdict here,
 * the evidence and findings (any size) in the worker's results file. */
struct result {
  int verdict;                  /* enum pc_verdict, or CHECK_ERROR */
  int64_t fsck_as;              /* point whose e2fsck answer it took, or -1 */
  bool kernel;                  /* the kernel judged its state (kjudge.h) */
  int64_t file;                 /* the worker whose file holds the rest, or -1 */
  uint64_t off, len;            /* where in it */
};

/* Shared between the checking process and its workers. */
struct shared {
  size_t next;                  /* next chunk of distinct images to hand out */
  size_t done;                  /* distinct images checked */
  int *status;                  /* per distinct image: enum slot_status */
  int *tries;                   /* per distinct image: workers that took it */
  size_t *current;              /* per worker id: the image it works on, or SIZE_MAX */
  struct result *results;       /* per crash point */
  int64_t *lost;                /* per version (oracle.h): the last state that lost it */
  struct pc_check_work stats;  /* the workers' sums */
};

struct ctx {
  const struct pc_check_config *cfg;
  const struct pc_fs *fs;     /* the filesystem at the end of the log (fs.h) */
  bool kernel_ok;             /* in a worker: it may let the kernel mount states */
  struct pc_index ix;
  struct pc_oracle *oracle;
  uint64_t hash_limit;        /* no file is read beyond the marks' largest */
  const uint8_t *base;
  uint8_t *basemem;             /* the base image read, or NULL */
  uint64_t *base_nonzero;       /* its blocks that are not zeros (image.h) */
  uint64_t basesize;
  struct pc_state *all;         /* every state of the model */
  size_t nall;
  struct pc_state *states;      /* this shard's states */
  size_t nstates;
  size_t *uniq;                 /* indexes into states of the images to check */
  size_t nuniq;
  size_t *gstart, *gpoints;     /* the points sharing each distinct image */
  struct shared *sh;
  void *shmem;
  size_t shsize;
  char *work;
  int lock;                     /* work/lock, locked while the check runs, or -1 */
  unsigned spawned;             /* workers started (their ids are 0..spawned-1) */
  unsigned max_workers;         /* room for worker ids in the shared memory */
  char **failed;                /* per distinct image: why it was not checked, or NULL */
  int64_t now;                  /* the time every e2fsck is told it is */
  struct vmark {                /* every mark of the log, in order */
    char *name;
    uint64_t record;
    bool sync;
  } *marks;
  size_t nmarks, capmarks;
  struct vack {                 /* every acknowledgement of a traced program (a line
                                 * it printed: an ACK event), in order */
    char *text;
    uint64_t record;
  } *acks;
  size_t nacks, capacks;
  int64_t *same_as;             /* per state */
  uint64_t *moment;             /* per state: the last record the disk may hold it at
                                 * (crash.h), what it is judged against */
  struct rblock *rblocks;       /* in a worker, made when first needed (restore.c):
                                 * every 4 KiB block the log's writes hold */
  size_t nrblocks;
  bool rblocks_made;
};

/* What --verify said of a state, for the points that share its marks and
 * acknowledgements. */
struct app_result {
  size_t nmarks;                /* marks by the state's moment (SIZE_MAX: none yet) */
  size_t nacks;                 /* acknowledgements by then */
  int verdict;                  /* PC_V_OK, PC_V_APP_INVALID or PC_V_NOT_CHECKED */
  char evidence[PC_EVIDENCE_MAX];
};

struct pc_export;

/* checkpool.c: runs the application's checker in the exported tree of
 * the state of point i (the worker's export dir, marks file mfile), with
 * the k marks and na acknowledgements logged by the state's moment, into
 * ar. */
void check_run_verify (struct ctx *c, size_t i, const char *dir, const char *mfile, size_t k,
                       size_t na, struct pc_export *x, struct app_result *ar);

/* restore.c: where the checker failed at point i (its arguments as
 * check_run_verify's), which of the paths fl's older-version notes name
 * it needed: each path is given back, in the exported tree, what the
 * program had at record ack (its last acknowledgement), its bytes found
 * by their hashes in the log's writes, and the checker run again; the
 * smallest set that makes it pass becomes ack-lost findings (the
 * program's fault), the notes of the others say why they are not, and
 * paths whose bytes were never at hand are named untested.  The tree is
 * written whole at its next update.  Returns 0 or -ENOMEM. */
int check_restore (struct ctx *c, size_t i, const char *dir, const char *mfile, size_t k,
                   size_t na, struct pc_export *x, uint64_t ack, struct pc_findings *fl);
void check_restore_free (struct ctx *c);

/* A new image of the log's device, from its base (image.h).  Returns 0 or
 * -errno. */
static inline int
check_new_image (struct ctx *c, int fd, struct pc_image **im)
{
  /* a plain check reads the base's zeros as it always did */
  return pc_image_new_map (c->ix.hdr.devsize, c->base, c->cfg->plain ? NULL : c->base_nonzero, fd,
                           PC_IMAGE_HASH | (c->cfg->keep_trimmed ? PC_IMAGE_KEEP_TRIMMED : 0), im);
}

/* Step 3: maps the shared memory and runs the worker pool over the
 * distinct images.  Returns 0, or -errno with a reason in why (-EINTR:
 * interrupted). */
int check_states (struct ctx *c, struct pc_err *why);

/* A worker's results file, where each point's evidence and findings go. */
struct check_out {
  int fd;
  int64_t id;                   /* the worker's id */
  uint64_t size;                /* bytes written so far */
  uint8_t *buf;                 /* one record being built */
  size_t len, cap;
};

/* checkone.c, what a worker does with one distinct image u (its states in
 * c->gpoints[c->gstart[u] ...]): check_image judges the state im holds
 * (the image's file img, judge jd; with --verify, its tree exported to x
 * at xdir, the marks in mfile) for each of its points and stores their
 * results in o; check_recovery_crashes records and checks the kernel's
 * recovery of it; check_put_result stores point i's result (verdict,
 * fsck_as, whether the kernel judged it, evidence, findings).  Each
 * returns 0, or -errno if the results cannot be stored. */
int check_image (struct ctx *c, size_t u, const char *img, struct pc_image *im,
                 struct pc_judge *jd, struct check_out *o, struct pc_export *x, const char *xdir,
                 const char *mfile);
int check_recovery_crashes (struct ctx *c, size_t u, unsigned id, const struct pc_image *im,
                            struct check_out *o);
int check_put_result (struct ctx *c, struct check_out *o, size_t i, int verdict, int64_t fsck_as,
                      bool kernel, const char *evidence, const struct pc_findings *fl);

/* collect.c: the workers' results (their files in c->work, and c->sh)
 * into res's points, each recovery point after its parent's, counted, and
 * the durability windows.  Returns 0, or -errno with why. */
int check_collect (struct ctx *c, struct pc_check_result *res, struct pc_err *why);

#endif
