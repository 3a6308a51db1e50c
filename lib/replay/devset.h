/* devset.h: several devices recorded on one clock, and what each holds
 * when one power cut takes them all.
 *
 * A device set is a directory of logs, NAME.pclog each, one per device,
 * written by recorders running in one boot: each log's header gives the
 * CLOCK_MONOTONIC reading of its time 0 and the boot it counts in
 * (PC_LOG_COMPAT_CLOCK, log.h), so the records of every log fall on one
 * timeline, a record's instant being its log's start plus its time.
 * powercut-log(5) is the reference.
 *
 * An instant is named "NAME:ID": ID one of device NAME's crash states
 * (crash.h: a record number, a reorder or torn state, "end" or
 * "mark:MARK").  The power is cut right after that state's point record
 * was logged, at its instant T: device NAME holds the state, and every
 * other device the records it had logged by T (at or before T), in order
 * (the flush model's state at its last record by then: its base image,
 * or zeros, when it had logged none).  A device recorded over a base
 * image finds it in the directory, under the name its log gives.
 */
#ifndef POWERCUT_DEVSET_H
#define POWERCUT_DEVSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/crash.h"
#include "util/err.h"

#define PC_DEVSET_SUFFIX ".pclog"

struct pc_devset_dev {
  char *name;                   /* NAME of NAME.pclog */
  char *path;                   /* the log */
  char *base_path;              /* the base image beside it, if it has one, else NULL */
  struct pc_index ix;
  uint64_t start;               /* its time 0 on the common clock */
};

struct pc_devset {
  struct pc_devset_dev *dev;    /* sorted by name */
  size_t n;
};

/* Opens every NAME.pclog of dir (at least one; names sorted).  Each must
 * read to its end (cleanly or cut), and all must give their clock, of
 * one boot.  Returns 0, or -errno with a reason in err ("LOG: REASON",
 * or "DIR: REASON"). */
int pc_devset_open (const char *dir, struct pc_devset *ret, struct pc_err *err);
void pc_devset_free (struct pc_devset *s);

/* Reads device j's base image (from base_path) as pc_index_read_base
 * does: *ret_mem NULL without one.  Returns 0 or -errno with err. */
int pc_devset_read_base (const struct pc_devset *s, size_t j, uint8_t **ret_mem,
                         uint64_t *ret_size, struct pc_err *err);

/* Is path a directory (a device set rather than one log)? */
bool pc_devset_is (const char *path);

/* Parses instant id: *ret_dev the device it names, *ret_state its state
 * (pc_state_clear it), and counts[j], for every other device j, the
 * number of its records logged by then (counts[*ret_dev] = the state's
 * point + 1).  Returns 0, or -EINVAL with a reason in err. */
int pc_devset_instant (const struct pc_devset *s, const char *id, size_t *ret_dev,
                       struct pc_state *ret_state, uint64_t *counts, struct pc_err *err);

/* For the instant right after record c of device d (on the common
 * clock): counts[j], for every device j, the number of its records logged
 * by then (c + 1 for d itself). */
void pc_devset_counts (const struct pc_devset *s, size_t d, uint64_t c, uint64_t *counts);

/* The flush model's instants of the set: right after each FLUSH and each
 * FUA write of any device, in time order (then by device and record);
 * with every_record, the write model's: right after every record of any
 * device that tells what its disk holds (pc_rec_is_disk).  Returns their
 * number with *ret (malloc'd), or -ENOMEM. */
struct pc_devset_point {
  size_t dev;
  uint64_t record;
  uint64_t time_ns;             /* since the earliest start of the set */
};
int64_t pc_devset_instants (const struct pc_devset *s, bool every_record,
                            struct pc_devset_point **ret);

/* The names of device d's marks among its first n records, space
 * separated, and the last ("" without one); powercut run's marks after
 * its command (format/mark.h) are left out.  Returns 0 with both
 * (malloc'd), or -ENOMEM. */
int pc_devset_marks (const struct pc_devset_dev *d, uint64_t n, char **ret_all,
                     char **ret_last);

#endif
