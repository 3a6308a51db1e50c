/* repeated.c: one configuration recorded and checked several times, and
 * its reports over the runs. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/repeat.h"
#include "run/configs.h"
#include "run/repeated.h"
#include "util/err.h"
#include "util/util.h"

/* Writes the configuration's reports over its n runs into o->dir; says
 * what it cannot write.  Returns 0, or 1 if a report was not written. */
static int
write_reports (const struct pc_config_job *job, const struct pc_outcome *o,
               const struct pc_outcome *runs, size_t n)
{
  char path[PATH_MAX + 32], line[PATH_MAX + 64];
  int bad = 0;
  FILE *f;

  for (int i = 0; i < 3; i++) {
    static const char *const names[] = { "report.txt", "report.json", "report.html" };
    int r = 0;
    snprintf (path, sizeof path, "%s/%s", o->dir, names[i]);
    if (i == 0) {
      if ((f = fopen (path, "we")) == NULL)
        r = -errno;
      else {
        pc_repeat_text (f, job->title, o, runs, n);
        r = fclose (f) == 0 ? 0 : -EIO;
      }
    }
    else if (i == 1)
      r = pc_repeat_json (path, job->title, o, runs, n);
    else
      r = pc_repeat_html (path, job->title, o, runs, n);
    if (r < 0) {
      snprintf (line, sizeof line, "%s: cannot write", path);
      job->problem (job->ctx, line);
      bad = 1;
    }
  }
  return bad;
}

int
pc_config_run_repeated (const struct pc_config_job *job, struct pc_config *k,
                        struct pc_outcome *o, size_t n)
{
  struct pc_outcome *runs = calloc (n, sizeof *runs);
  struct pc_config_job each = *job;
  size_t done = 0, show;
  int st = 0, r;

  if (runs == NULL) {
    snprintf (o->error, sizeof o->error, "%s", strerror (ENOMEM));
    return -ENOMEM;
  }
  if (pc_mkdir_p (o->dir) < 0) {
    r = -errno;
    snprintf (o->error, sizeof o->error, "%s: %s", o->dir, strerror (-r));
    free (runs);
    return r;
  }
  pc_config_forget_reports (o->dir);
  each.run_n = n;
  for (; done < n && !pc_interrupted (); done++) {
    struct pc_outcome *x = &runs[done];
    x->fs = o->fs;
    x->mount_opts = o->mount_opts;
    snprintf (x->label, sizeof x->label, "%.90s, run %u of %u", o->label, (unsigned) done + 1,
              (unsigned) n);
    snprintf (x->dir, sizeof x->dir, "%.4000s/run-%zu", o->dir, done + 1);
    each.run_k = done + 1;
    st |= pc_config_run (&each, k, x) != 0;
  }
  /* (interrupted: the runs made) */
  show = pc_repeat_outcome (o, runs, done);
  st |= write_reports (job, o, runs, done);
  if (show < done) {
    o->res = runs[show].res;
    o->res_run = show + 1;
    runs[show].res = NULL;
  }
  for (size_t i = 0; i < done; i++)
    pc_check_result_free (runs[i].res);
  free (runs);
  return o->ok ? st : -EIO;
}
