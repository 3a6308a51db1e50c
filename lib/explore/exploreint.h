/* exploreint.h: the insides of powercut explore shared by explore.c (the
 * driver), batch.c (one batch recorded, checked and judged per workload)
 * and shrink.c (a failure made smaller). */
#ifndef POWERCUT_EXPLOREINT_H
#define POWERCUT_EXPLOREINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explore/explore.h"
#include "explore/gen.h"
#include "result/result.h"

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
};

/* Writes the shell script of a batch: each item in its directory wN,
 * between the marks wN and wN-end, each failed command noted as "N OP
 * MESSAGE" in the file its first argument names. */
void pc_x_batch_script (const struct xitem *it, size_t n, FILE *f);

/* Records the items as one batch on configuration k in dir (made), checks
 * it and sets each item's outcome.  The log is removed when every item is
 * ok (keep_log: never).  Returns 0, or -errno with why in err (the items'
 * outcomes are then PC_XV_ERROR with it). */
int pc_x_run_batch (const struct pc_explore_config *cfg, const struct pc_config *k,
                    const char *dir, struct xitem *it, size_t n, bool keep_log,
                    struct pc_err *err);

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
                 const char *dir, const struct xitem *orig, struct xitem *ret, char *log,
                 size_t len, struct pc_err *err);

#endif
