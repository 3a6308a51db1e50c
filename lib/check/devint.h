/* devint.h: the insides of a device set's check (devcheck.c, devverify.c). */
#ifndef POWERCUT_DEVINT_H
#define POWERCUT_DEVINT_H

#include "check/devcheck.h"
#include "replay/devset.h"
#include "util/err.h"

/* Runs cfg->verify at res's instants (devcheck.h), filling their app and
 * evidence.  Returns 0, or -errno with the reason in err. */
int pc_devverify_run (const struct pc_check_config *cfg, const struct pc_devset *set,
                      struct pc_devcheck_result *res, struct pc_err *err);

#endif
