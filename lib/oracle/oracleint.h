/* oracleint.h: the oracle's insides shared by its files (oracle.c on
 * describe.c). */
#ifndef POWERCUT_ORACLEINT_H
#define POWERCUT_ORACLEINT_H

#include <stdbool.h>
#include <stdio.h>

#include "format/mark.h"
#include "result/finding.h"

/* Does a file entry (found in a state, or in a manifest) hold only zeros?
 * A state's tree counts its zero blocks; a manifest keeps the first bytes
 * and the hash, so its hash is compared with that of as many zeros. */
bool pc_oracle_all_zeros (const struct pc_entry *e, bool found);

/* Writes what e is (NULL: absent) for people: "absent", "empty file",
 * "file N B all zeros (...)", "file N B \"first bytes\"... xxh128:...",
 * a directory, a symlink and its target, its mode; a file found in a
 * crash state (found) also says how many of its blocks are all zeros. */
void pc_oracle_describe (FILE *f, const struct pc_entry *e, bool found);

/* Appends one finding of kind at path to out: found is f described,
 * allowed what was allowed there, for people (or "-").  Returns 0 or
 * -ENOMEM. */
int pc_oracle_finding (struct pc_findings *out, int kind, const char *path,
                       const struct pc_entry *f, const char *allowed);

#endif
