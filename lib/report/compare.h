/* compare.h: powercut run over several configurations: each recorded
 * (run.h) in a directory of its own, its crash points checked
 * (checker.h) and its reports written there; then all of them compared
 * in one table, one JSON object and one page.  Nothing here prints:
 * progress and problems go to the caller's callbacks.
 */
#ifndef POWERCUT_COMPARE_H
#define POWERCUT_COMPARE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "check/checker.h"
#include "run/run.h"
#include "run/sysctl.h"
#include "result/result.h"

#define PC_MAX_CONFIGS 32
#define PC_MAX_SYSCTLS 8

/* One configuration, and what came of it. */
struct pc_config {
  const char *fs;
  const char *mount_opts;
  char opts_buf[256];           /* mount_opts, from --config */
  struct pc_sysctl sysctls[PC_MAX_SYSCTLS];
  size_t nsysctls;
  char label[128];
  char dir[PATH_MAX];
  /* pc_compare_one */
  struct pc_check_result *res;  /* kept for the comparison page */
  bool ok;
  char error[PATH_MAX + 256];
  size_t points, unique, files;
  size_t count[PC_V_COUNT];
  struct pc_window_summary win;
};

/* Parses a --config, "FS [MOUNT-OPTS] [vm.dirty_NAME=VALUE]...", into c
 * (cleared first).  Returns 0, or -EINVAL with a reason in why. */
int pc_config_parse (const char *spec, struct pc_config *c, char *why, size_t len);

/* Names configuration idx of n: its label ("ext4 noauto_da_alloc
 * vm.dirty_expire_centisecs=500") and its directory: out itself when
 * n == 1, else out/IDX-LABEL with blanks, slashes, commas and = as '-'. */
void pc_config_name (struct pc_config *c, size_t idx, size_t n, const char *out);

struct pc_compare {
  struct pc_run_config run;     /* what every configuration records with; its
                                 * filesystem, knobs and paths are set here */
  struct pc_model model;
  unsigned jobs;
  const char *verify;           /* --verify, or NULL */
  const char *title;            /* the workload's name, for the pages */
  volatile sig_atomic_t *interrupted;
  void (*progress) (void *ctx, size_t done, size_t total);   /* the check's, or NULL */
  void *progress_ctx;
  void (*problem) (void *ctx, const char *line);   /* what went wrong, one line */
  void *ctx;
};

/* Records configuration k, checks it and writes its reports.  Returns 0;
 * 1 if it finished but not all of it (states not checked, a report not
 * written); or -errno with k->error set.  k->res is the caller's to free. */
int pc_compare_one (const struct pc_compare *cmp, struct pc_config *k);

/* The comparison table; with app (--verify), a column for app-invalid. */
void pc_compare_table (FILE *f, const struct pc_config *cf, size_t n, bool app);

/* The comparison as JSON (powercut-run(1)) to path, and as one page with
 * every configuration's timeline in out/report.html.  Return 0 or -errno. */
int pc_compare_json (const char *path, const char *workload, const struct pc_config *cf, size_t n);
int pc_compare_html (const char *out, const char *workload, const struct pc_config *cf, size_t n);

#endif
