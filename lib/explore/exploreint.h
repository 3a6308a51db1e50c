/* exploreint.h: the insides of powercut explore shared by explore.c (the
 * driver), batch.c (one batch recorded, checked and judged per workload),
 * shrink.c (a failure made smaller) and output.c (what it leaves). */
#ifndef POWERCUT_EXPLOREINT_H
#define POWERCUT_EXPLOREINT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "fs/fs.h"
#include "explore/explore.h"
#include "explore/gen.h"
#include "result/result.h"
#include "run/run.h"

/* A workload in a batch, and what it came to. */
struct xitem {
  struct pc_gen_workload w;
  uint64_t index;               /* its number in the exploration: its directory wN */
  int outcome;                  /* a verdict, PC_XV_UNSUPPORTED or PC_XV_ERROR */
  bool promise;                 /* a failing point of it broke a promise */
  char why[256];                /* unsupported: what refused it; error: why */
  size_t points, failing;       /* its crash points, and those failing */
  size_t later;                 /* later crash points (of other workloads)
                                 * where its files were lost */
  size_t setup_failing;         /* crash points of its setup where the
                                 * filesystem failed: the configuration's,
                                 * not its operations' */
  char first[PC_ID_MAX];        /* its first failing point ("" if none) */
  enum pc_verdict first_verdict;/* that point's verdict */
  struct pc_phases ph;          /* where its run's time went (a shared
                                 * batch's, in even shares; all 0: not known) */
};

/* Whether ph holds a run's times (not all 0). */
static inline bool
pc_x_phases_known (const struct pc_phases *ph)
{
  for (int p = 0; p < PC_NPHASES; p++)
    if (ph->s[p] > 0)
      return true;
  return false;
}

/* Writes the shell script of a batch: each item in its directory wN,
 * between the marks wN and wN-end, each failed command noted as "N OP
 * MESSAGE" in the file its first argument names. */
void pc_x_batch_script (const struct xitem *it, size_t n, FILE *f);

#define PC_X_DEVICE_SIZE (64u << 20)    /* each recording's device, at least */

/* The device size of a recording on filesystem fs: PC_X_DEVICE_SIZE, or
 * the smallest the filesystem is made on (fs.h) if larger. */
static inline uint64_t
pc_x_device_size (const char *fs)
{
  const struct pc_fs *f = pc_fs_find (fs);

  return f && f->min_size > PC_X_DEVICE_SIZE ? f->default_size : PC_X_DEVICE_SIZE;
}

/* Makes path a base image for configuration k: a filesystem of
 * pc_x_device_size made as powercut run makes it, holding the files every
 * workload starts with (pc_gen_setup_script), unmounted clean.  Needs
 * root.  Returns 0 or -errno with why in err. */
int pc_x_make_base (const struct pc_config *k, const char *path, struct pc_err *err);

/* Records and checks the items on configuration k in dir (made) and sets
 * each item's outcome: each alone, from the base image, in dir/wINDEX;
 * or with cfg->shared, all as one batch (one recording, each item in its
 * directory wN of one filesystem).  A log is removed when its items are
 * ok (keep_log: never).  Returns 0, or -errno with why in err (the items'
 * outcomes are then PC_XV_ERROR with it; alone, an item that could not
 * be run is PC_XV_ERROR and the rest go on). */
int pc_x_run_batch (const struct pc_explore_config *cfg, const struct pc_config *k,
                    const char *base, const char *dir, struct xitem *it, size_t n,
                    bool keep_log, struct pc_err *err);

/* The log item was recorded in, by pc_x_run_batch in dir. */
void pc_x_item_log (const struct pc_explore_config *cfg, const char *dir, const struct xitem *it,
                    char *buf, size_t len);

/* Sets the items' outcomes from a batch's check result res, its log and
 * the file of refused operations.  Returns 0 or -errno with why in err. */
int pc_x_judge (const char *log_path, const char *refused, const struct pc_check_result *res,
                struct xitem *it, size_t n, struct pc_err *err);

/* Does an outcome fail (with promise: did it break a promise)?  With
 * exposure false, only a broken promise fails. */
bool pc_x_fails (int outcome, bool promise, bool exposure);

/* Shrinks the failing item orig (on configuration k) to the smallest
 * workload (fewest operations, then fewest persistence calls) that fails
 * the same way (the same outcome, a broken promise or not), trying
 * candidates in batches under dir; *ret the smallest (orig itself if none
 * smaller fails) and, if smaller, the log it failed in into log (len
 * bytes).  Returns 0 or -errno with why in err. */
int pc_x_shrink (const struct pc_explore_config *cfg, const struct pc_config *k,
                 const char *base, const char *dir, const struct xitem *orig, struct xitem *ret,
                 char *log, size_t len, struct pc_err *err);

/* The driver's state (explore.c), shared with output.c. */
/* A workload's result on a configuration. */
struct xres {
  size_t k;
  const char *root;             /* the exploration's directory it came from */
  struct xitem it;
  char batch[64];               /* its batch, under OUT/batches */
  char failure[64];             /* "failures/N.sh", or "" */
  double at_s;                  /* when it came, in seconds from the start of
                                 * the exploration that ran it (0: not known) */
};

/* A workload to run, and (corpus) what it gave before on each configuration. */
struct xwork {
  struct pc_gen_workload w;
  uint64_t index;
  int expected[PC_MAX_CONFIGS];         /* -1: not known */
};

/* A batch running in a child process. */
struct xjob {
  pid_t pid;
  size_t k;
  unsigned slot;
  struct xitem *it;
  size_t n;
  char dir[PATH_MAX];
  char name[64];
};

struct ctx {
  const struct pc_explore_config *cfg;
  char label[PC_MAX_CONFIGS][128];
  struct xwork *work;
  size_t nwork, capwork;
  uint64_t next_random;         /* --random: the next index to sample */
  bool random_done;
  size_t cursor[PC_MAX_CONFIGS];        /* the next work to batch, per configuration */
  struct xres *res;
  size_t nres, capres;
  FILE *jsonl;
  uint64_t t0;
  struct pc_explore_progress prog;
  char base[PC_MAX_CONFIGS][PATH_MAX];  /* each configuration's base image
                                         * (not shared), or "" */
  unsigned nfailures;           /* scripts written in OUT/failures: the
                                 * bases their replay lines name are kept */
};

/* One result as a JSON object (a results.jsonl line, an explore.json entry). */
json_object *pc_x_res_json (const struct ctx *c, const struct xres *x);

/* output.c: results in workload, then configuration order (qsort); each
 * failing result shrunk and written as OUT/failures/N.sh; the summary
 * table; OUT/explore.json; the verdicts changed against the corpus (how
 * many).  The int ones return 0 or -errno with why in err. */
int pc_x_res_cmp (const void *a, const void *b);
int pc_x_write_failures (struct ctx *c, struct pc_err *err);
void pc_x_summary (const struct ctx *c, FILE *f, double secs);
int pc_x_write_json (const struct ctx *c, double secs, struct pc_err *err);
size_t pc_x_changes (const struct ctx *c, FILE *f);

#endif
