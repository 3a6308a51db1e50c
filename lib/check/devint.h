/* devint.h: the insides of a device set's check (devcheck.c, devverify.c,
 * devjournal.c). */
#ifndef POWERCUT_DEVINT_H
#define POWERCUT_DEVINT_H

#include "check/devcheck.h"
#include "replay/devset.h"
#include "util/err.h"

/* Runs cfg->verify at res's instants (devcheck.h), filling their app and
 * evidence.  Returns 0, or -errno with the reason in err. */
int pc_devverify_run (const struct pc_check_config *cfg, const struct pc_devset *set,
                      struct pc_devcheck_result *res, struct pc_err *err);

/* Which devices keep their journal on another of the set: journal_of[j]
 * that device's index, or -1.  Read from each device's superblock at its
 * end.  Returns 0, or -errno with the reason in err (a journal on no
 * device of the set). */
int pc_devjournal_roles (const struct pc_devset *set, int64_t *journal_of, struct pc_err *err);

/* Judges device fs after its first nfs records, its journal device jn
 * after its first njn (bases as their logs need, or NULL), in image files
 * in work: e2fsck recovers it with that journal, then must find it clean.
 * *ret: ok, fs-corrupt, unmountable (recovery failed), or not-checked (an
 * e2fsck that could not run or finish); note says what e2fsck found.
 * Returns 0, or -errno (an image not written). */
int pc_devjournal_judge (const struct pc_devset *set, size_t fs, size_t jn, uint64_t nfs,
                         uint64_t njn, const uint8_t *fsbase, const uint8_t *jnbase,
                         const char *work, int timeout_s, enum pc_verdict *ret, char *note,
                         size_t notelen);

/* Device fs after its first nfs records, recovered with its journal
 * device jn after its first njn as pc_devjournal_judge does, in image
 * files in work, then read back: *ret (malloc'd, the device's size, in
 * *ret_size).  Returns 0, or -errno with the reason in err (-EIO: the
 * recovery failed). */
int pc_devjournal_recovered (const struct pc_devset *set, size_t fs, size_t jn, uint64_t nfs,
                             uint64_t njn, const uint8_t *fsbase, const uint8_t *jnbase,
                             const char *work, int timeout_s, uint8_t **ret,
                             uint64_t *ret_size, struct pc_err *err);

#endif
