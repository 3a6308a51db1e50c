/* runverify.c: an application's checker (check --verify) run in the
 * exported tree of one crash state, with the marks and acknowledgements
 * logged by the state's moment in its environment (powercut-check(1),
 * "Checking an application").  checkpool.c runs it once per state and
 * list of marks and acknowledgements; restore.c again with paths given
 * back. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/checkint.h"
#include "judge/export.h"
#include "util/proc.h"
#include "util/util.h"

/* Writes the first n acknowledgements, a line each, to path.  Returns
 * false if it cannot. */
static bool
write_acks (const struct ctx *c, const char *path, size_t n)
{
  FILE *f = fopen (path, "we");

  if (f == NULL)
    return false;
  for (size_t a = 0; a < n; a++)
    fprintf (f, "%s\n", c->acks[a].text);
  return fclose (f) == 0;
}

/* Runs the application's checker in the exported tree of the state of
 * point i (the worker's export dir, marks file mfile, acknowledgements
 * file mfile.acks), with the k marks and na acknowledgements logged by the
 * state's moment.  A checker that cannot be run, or does not finish,
 * tells nothing: not checked. */
void
check_run_verify (struct ctx *c, size_t i, const char *dir, const char *mfile, size_t k,
                  size_t na, struct pc_export *x, struct app_result *ar)
{
  char id[PC_ID_MAX], *out = malloc (PC_EVIDENCE_MAX * 4), *e_root = NULL, *e_point = NULL;
  char *e_marks = NULL, *e_last = NULL, *e_durable = NULL, *e_file = NULL, *e_count = NULL;
  char *e_afile = NULL, *e_acount = NULL, *e_alast = NULL, afile[4200];
  char *argv[] = { (char *) "sh", (char *) "-c", (char *) c->cfg->verify, NULL };
  size_t ml = 0, d = SIZE_MAX;
  FILE *f;
  int r;

  ar->nmarks = k;
  ar->nacks = na;
  snprintf (afile, sizeof afile, "%s.acks", mfile);
  ar->verdict = PC_V_NOT_CHECKED;
  ar->evidence[0] = '\0';
  pc_state_id (&c->states[i], &c->cfg->model, id, sizeof id);
  for (size_t m = 0; m < k; m++) {
    ml += strlen (c->marks[m].name) + 1;
    if (c->marks[m].sync)
      d = m;
  }
  f = fopen (mfile, "we");
  if (f) {
    for (size_t m = 0; m < k; m++)
      fprintf (f, "%s\n", c->marks[m].name);
    if (fclose (f) == EOF)
      f = NULL;
  }
  if (out == NULL || f == NULL || !write_acks (c, afile, na) ||
      (e_marks = malloc (ml + 16)) == NULL ||
      asprintf (&e_afile, "POWERCUT_ACKS_FILE=%s", afile) < 0 ||
      asprintf (&e_acount, "POWERCUT_ACK_COUNT=%zu", na) < 0 ||
      asprintf (&e_alast, "POWERCUT_LAST_ACK=%s", na ? c->acks[na - 1].text : "") < 0 ||
      asprintf (&e_root, "POWERCUT_ROOT=%s", dir) < 0 ||
      asprintf (&e_point, "POWERCUT_POINT=%s", id) < 0 ||
      asprintf (&e_last, "POWERCUT_LAST_MARK=%s", k ? c->marks[k - 1].name : "") < 0 ||
      asprintf (&e_durable, "POWERCUT_DURABLE_MARK=%s", d != SIZE_MAX ? c->marks[d].name : "") < 0 ||
      asprintf (&e_file, "POWERCUT_MARKS_FILE=%s", mfile) < 0 ||
      asprintf (&e_count, "POWERCUT_MARK_COUNT=%zu", k) < 0) {
    snprintf (ar->evidence, sizeof ar->evidence, "powercut could not run the --verify "
              "command: %s", strerror (ENOMEM));
    goto out;
  }
  strcpy (e_marks, "POWERCUT_MARKS=");
  for (size_t m = 0; m < k; m++) {
    strcat (e_marks, c->marks[m].name);
    if (m + 1 < k)
      strcat (e_marks, " ");
  }
  {
    char *env[] = { e_root, e_point, e_marks, e_last, e_durable, e_file, e_count, e_afile,
                    e_acount, e_alast, NULL };
    struct pc_proc_extra xe = { .env = env, .cwd = dir };
    r = pc_proc_run_extra (argv, &xe, c->cfg->timeout_s, out, PC_EVIDENCE_MAX * 4);
  }
  if (r == 0)
    ar->verdict = PC_V_OK;
  else if (r == -ETIME)
    snprintf (ar->evidence, sizeof ar->evidence, "the --verify command did not finish within "
              "%d s (give a longer --timeout)", c->cfg->timeout_s);
  else if (r < 0 || r == 126 || r == 127)
    snprintf (ar->evidence, sizeof ar->evidence, "the --verify command could not be run "
              "(%s): %.400s", r < 0 ? strerror (-r) : r == 127 ? "not found" : "not executable",
              out);
  else {
    /* The application says its data is not consistent: the first lines. */
    size_t n = (size_t) (r >= 256 ? snprintf (ar->evidence, sizeof ar->evidence,
                                              "the --verify command was killed by signal %d:",
                                              r - 256)
                                  : snprintf (ar->evidence, sizeof ar->evidence,
                                              "the --verify command exited with status %d:", r));
    int lines = 0;
    for (const char *l = out; *l && lines < 8 && n + 2 < sizeof ar->evidence; lines++) {
      size_t len = strcspn (l, "\n");
      n += (size_t) snprintf (ar->evidence + n, sizeof ar->evidence - n, "\n%.*s", (int) len, l);
      l += len + (l[len] == '\n');
    }
    ar->verdict = PC_V_APP_INVALID;
    /* what had been acknowledged by then, which the state should hold */
    n = strlen (ar->evidence);
    if (na > 0) {
      char *last = pc_display_line (c->acks[na - 1].text);
      snprintf (ar->evidence + n, sizeof ar->evidence - n, "\nacknowledged by this state's "
                "moment: %zu line%s, the last \"%.200s\" (at %.3f s)", na, na == 1 ? "" : "s",
                last ? last : "?", c->ix.recs[c->acks[na - 1].record].time_ns / 1e9);
      free (last);
    }
  }
  /* Whatever it did to its tree is undone before the next state. */
  if (pc_export_verify (x) == 1 && ar->verdict != PC_V_NOT_CHECKED) {
    size_t n = strlen (ar->evidence);
    snprintf (ar->evidence + n, sizeof ar->evidence - n, "%sthe --verify command changed its "
              "tree (undone for the next states)", n ? "\n" : "");
  }
out:
  free (out);
  free (e_root);
  free (e_point);
  free (e_marks);
  free (e_last);
  free (e_durable);
  free (e_file);
  free (e_count);
  free (e_afile);
  free (e_acount);
  free (e_alast);
}
