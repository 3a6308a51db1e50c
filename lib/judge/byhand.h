/* byhand.h: a filesystem without a journal as a boot leaves it where its
 * e2fsck -p stopped for a person: what that person does, e2fsck -fy,
 * after e2fsck -p run again.  Shared by the libext2fs judge (in its
 * overlay, judge.h) and the kernel's (on its copy, before the mount,
 * kjudge.h), each running the e2fscks where it keeps the state.
 */
#ifndef POWERCUT_BYHAND_H
#define POWERCUT_BYHAND_H

#include <stdint.h>

#include "judge/fsck.h"
#include "judge/judge.h"

/* One e2fsck run (pc_fsck_preen, pc_fsck_repair or pc_fsck_check) on a
 * state, its writes kept where the caller keeps the state; returns as
 * they do. */
typedef int (*pc_judge_fsck_fn) (const char *path, int timeout_s, int64_t now,
                                 struct pc_fsck_result *res, struct pc_fsck_io *io);
typedef int (*pc_judge_run_fn) (void *ctx, pc_judge_fsck_fn fsck, struct pc_fsck_result *res);

/* A filesystem without a journal, as a boot leaves it where its e2fsck -p
 * stopped for a person (its words in stopped): e2fsck -p run again, and
 * if it repairs the rest without asking, the first run stopped the boot
 * for nothing (e2fsck's fault: PC_V_FS_CORRUPT, jm->preen_again); else
 * e2fsck -fy, as the person does, and e2fsck -fn after it: PC_V_OK with
 * jm->by_hand where that repaired it (the files to be judged as it left
 * them), else what -fy or -fn found.  Each run is run (ctx, ...).  Fills
 * jm's verdict, evidence and note; returns 0 or -errno from run. */
int pc_judge_by_hand (pc_judge_run_fn run, void *ctx, const struct pc_fsck_result *stopped,
                      struct pc_judgement *jm);

#endif
