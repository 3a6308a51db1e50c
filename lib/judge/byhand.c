/* byhand.c: what a person does where the boot's e2fsck -p stopped
 * (byhand.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "judge/byhand.h"

/* A filesystem without a journal promises no state that e2fsck -p
 * repairs after a crash: where it stopped, what the person the boot asks
 * for does (byhand.h). */
int
pc_judge_by_hand (pc_judge_run_fn run, void *ctx, const struct pc_fsck_result *stopped,
                  struct pc_judgement *jm)
{
  struct pc_fsck_result fr, after;
  int r;

  r = run (ctx, pc_fsck_preen, &fr);
  if (r < 0)
    return r;
  if (fr.verdict == PC_V_OK) {
    jm->verdict = PC_V_FS_CORRUPT;
    jm->preen_again = true;
    snprintf (jm->evidence, sizeof jm->evidence, "%.700s\nyet e2fsck -p run again repairs the "
              "rest without asking: its first run stopped the boot for nothing "
              "(e2fsck's fault)", stopped->evidence);
    return 0;
  }
  if (fr.verdict != PC_V_FS_CORRUPT) {
    /* e2fsck failed to run (not checked) or to open it (unmountable) */
    jm->verdict = fr.verdict;
    memcpy (jm->evidence, fr.evidence, sizeof jm->evidence);
    return 0;
  }
  r = run (ctx, pc_fsck_repair, &fr);
  if (r < 0)
    return r;
  if (fr.verdict == PC_V_OK) {
    r = run (ctx, pc_fsck_check, &after);
    if (r < 0)
      return r;
    if (after.verdict != PC_V_OK) {
      jm->verdict = after.verdict;
      snprintf (jm->evidence, sizeof jm->evidence, "%.400s\nafter e2fsck -fy:\n%.*s",
                stopped->evidence, (int) sizeof jm->evidence - 440, after.evidence);
      return 0;
    }
    jm->verdict = PC_V_OK;
    jm->by_hand = true;
    snprintf (jm->note, sizeof jm->note,
              "no journal: where the boot's e2fsck -p stopped, e2fsck -fy repaired it, "
              "as a person does:");
    snprintf (jm->evidence, sizeof jm->evidence, "%.500s\ne2fsck -fy:\n%.*s",
              stopped->evidence, (int) sizeof jm->evidence - 520, fr.evidence);
    return 0;
  }
  jm->verdict = fr.verdict;
  if (fr.verdict == PC_V_NOT_CHECKED)
    memcpy (jm->evidence, fr.evidence, sizeof jm->evidence);
  else
    snprintf (jm->evidence, sizeof jm->evidence, "%.400s\n%.*s", stopped->evidence,
              (int) sizeof jm->evidence - 420, fr.evidence);
  return 0;
}
