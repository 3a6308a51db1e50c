/* merge.c: shard reports joined into the report an unsharded check gives. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report/jsonio.h"
#include "report/report.h"
#include "report/reportint.h"
#include "result/result.h"
#include "util/util.h"

static int
cmp_shard (const void *a, const void *b)
{
  const struct pc_check_result *x = *(const struct pc_check_result *const *) a;
  const struct pc_check_result *y = *(const struct pc_check_result *const *) b;
  return (x->shard > y->shard) - (x->shard < y->shard);
}

int
pc_report_merge (struct pc_check_result **parts, size_t n,
                 struct pc_check_result **ret, struct pc_err *why)
{
  struct pc_check_result *m;
  size_t total = 0, at = 0;
  unsigned nshards;
  struct pc_err we;
  int r;

  if (n == 0) {
    pc_err_msg (why, "no reports to merge");
    return -EINVAL;
  }
  qsort (parts, n, sizeof *parts, cmp_shard);
  nshards = parts[0]->nshards;
  for (size_t i = 0; i < n; i++) {
    /* One log (by identity, whatever path named it), one model, one range. */
    if (parts[i]->nshards != nshards || parts[i]->shard >= nshards ||
        parts[i]->log_start_ns != parts[0]->log_start_ns ||
        parts[i]->records != parts[0]->records ||
        parts[i]->device_size != parts[0]->device_size ||
        parts[i]->from_record != parts[0]->from_record ||
        parts[i]->keep_trimmed != parts[0]->keep_trimmed ||
        parts[i]->model.kind != parts[0]->model.kind ||
        parts[i]->model.k != parts[0]->model.k ||
        parts[i]->model.seed != parts[0]->model.seed ||
        strcmp (parts[i]->from, parts[0]->from) != 0) {
      pc_err_msg (why, "shard %u/%u is not a shard of the check shard %u/%u is "
                  "(another log, model, seed, --from or number of shards)",
                  parts[i]->shard, parts[i]->nshards, parts[0]->shard, nshards);
      return -EINVAL;
    }
    if (i > 0 && parts[i]->shard == parts[i - 1]->shard) {
      pc_err_msg (why, "shard %u/%u is given twice", parts[i]->shard, nshards);
      return -EINVAL;
    }
    total += parts[i]->npoints;
  }
  for (unsigned s = 0, k = 0; s < nshards; s++, k++)
    if (k >= n || parts[k]->shard != s) {
      pc_err_msg (why, "shard %u/%u is missing (%zu of %u shards given)", s, nshards,
                  n, nshards);
      return -EINVAL;
    }
  m = calloc (1, sizeof *m);
  if (m == NULL || (m->log_path = strdup (parts[0]->log_path)) == NULL ||
      (m->points = calloc (total ? total : 1, sizeof *m->points)) == NULL) {
    pc_check_result_free (m);
    pc_err_msg (why, "out of memory");
    return -ENOMEM;
  }
  m->model = parts[0]->model;
  m->log_start_ns = parts[0]->log_start_ns;
  m->keep_trimmed = parts[0]->keep_trimmed;
  if (parts[0]->base_path)
    m->base_path = strdup (parts[0]->base_path);
  if (parts[0]->verify)
    m->verify = strdup (parts[0]->verify);
  memcpy (m->from, parts[0]->from, sizeof m->from);
  memcpy (m->fs, parts[0]->fs, sizeof m->fs);
  for (size_t i = 0; i < n && !m->kernel[0]; i++) {
    memcpy (m->kernel, parts[i]->kernel, sizeof m->kernel);
    m->kernel_guest = parts[i]->kernel_guest;
  }
  m->from_record = parts[0]->from_record;
  m->records = parts[0]->records;
  m->device_size = parts[0]->device_size;
  m->log_torn = parts[0]->log_torn;
  m->manifests = parts[0]->manifests;
  m->events = parts[0]->events;
  memcpy (m->last_mark, parts[0]->last_mark, sizeof m->last_mark);
  m->command_end_record = parts[0]->command_end_record;
  m->command_end_ns = parts[0]->command_end_ns;
  m->settle_end_record = parts[0]->settle_end_record;
  m->settle_end_ns = parts[0]->settle_end_ns;
  m->nshards = 1;
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < parts[i]->npoints; j++) {
      m->points[at + j] = parts[i]->points[j];
      memset (&parts[i]->points[j].findings, 0, sizeof parts[i]->points[j].findings);
      if (m->points[at + j].same_as >= 0)
        m->points[at + j].same_as += (int64_t) at;
      if (m->points[at + j].fsck_as >= 0)
        m->points[at + j].fsck_as += (int64_t) at;
    }
    at += parts[i]->npoints;
    m->unique += parts[i]->unique;
    m->work.fsck_runs += parts[i]->work.fsck_runs;
    m->work.fsck_reused += parts[i]->work.fsck_reused;
    m->work.recover_here += parts[i]->work.recover_here;
    m->work.recover_e2fsck += parts[i]->work.recover_e2fsck;
    m->work.preened += parts[i]->work.preened;
    m->work.by_hand += parts[i]->work.by_hand;
    m->work.kernel += parts[i]->work.kernel;
    m->work.journal_dropped += parts[i]->work.journal_dropped;
    for (int k = 0; k < 5; k++)
      m->work.kernel_ns[k] += parts[i]->work.kernel_ns[k];
    m->work.files_read += parts[i]->work.files_read;
    m->work.files_reused += parts[i]->work.files_reused;
    if (parts[i]->seconds > m->seconds)
      m->seconds = parts[i]->seconds;
  }
  m->npoints = total;
  pc_check_result_recount (m);
  r = pc_windows_merge (parts, n, m, &we);
  if (r < 0) {
    pc_err_msg (why, "%s", r == -ENOMEM ? "out of memory" : we.msg);
    pc_check_result_free (m);
    return r;
  }
  *ret = m;
  return 0;
}
