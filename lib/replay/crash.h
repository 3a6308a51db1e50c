/* crash.h: crash models and crash states.
 *
 * A crash point is a record number c of the completion-ordered log: power is
 * cut right after record c completed.  A crash state is what the disk holds
 * then.  Models (powercut-check(1) is the reference):
 *
 *  flush      one state after each FLUSH and each FUA data record: records
 *             0..c applied.
 *  write      one state after every record: records 0..c applied.
 *  reorder:K  at each FLUSH c: records 0..c.  At each data record c (WRITE,
 *             TRIM, WRITE_ZEROES): let F be the last FLUSH before c.  Records
 *             0..F are durable, so are FUA data records in (F, c], and c
 *             itself; the other data records of (F, c) are in flight, W.
 *             States: durable plus any subset of W, applied in completion
 *             order.  |W| <= K: all 2^|W| subsets; else 2^K: keep all,
 *             drop all, and 2^K - 2 distinct random subsets (seeded).
 *  torn:K     the reorder:K states, and at each WRITE c of n > 1 sectors,
 *             with all of W kept, c persisted only partly: n <= K: every
 *             non-empty proper subset of its sectors; else the K prefixes and
 *             K suffixes of lengths round(i*n/(K+1)), i = 1..K, and K random
 *             proper subsets (seeded).
 *
 * State ids (what reports print and `replay --at` takes):
 *   C                    records 0..C
 *   C/drop:LIST          reorder: in-flight records LIST lost
 *   C[/drop:LIST]/torn:LIST  torn: only the sectors LIST of record C persisted
 *   C/state:I/MODEL:K/seed:S the I-th state (from 0) that MODEL:K, seeded
 *                        S, gives at point C: what an id too long for
 *                        PC_ID_MAX is written as (a long epoch's drops)
 * LIST: comma-separated numbers and ranges a-b, ascending.
 */
#ifndef POWERCUT_CRASH_H
#define POWERCUT_CRASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/log.h"
#include "replay/image.h"
#include "util/err.h"

enum pc_model_kind { PC_MODEL_FLUSH, PC_MODEL_WRITE, PC_MODEL_REORDER, PC_MODEL_TORN };

#define PC_ID_MAX           256     /* room for a state id */
#define PC_MODEL_DEFAULT_K  4
#define PC_MODEL_MAX_K      16

struct pc_model {
  enum pc_model_kind kind;
  unsigned k;
  uint64_t seed;
};

/* What a model is (crash.c's table of them: adding a model is an entry
 * there, its kind here, and its enumeration). */
struct pc_model_info {
  enum pc_model_kind kind;
  const char *name;             /* "reorder" */
  bool takes_k;                 /* it takes :K */
  const char *what;             /* one line for --help */
};

/* The i-th model, in the order help lists them, or NULL after the last. */
const struct pc_model_info *pc_model_info (size_t i);

/* Parses a model, "NAME" or "NAME:K" (0 <= K <= PC_MODEL_MAX_K; K only for
 * a model that takes it), into *ret_model with seed 0 and K by default
 * PC_MODEL_DEFAULT_K.  Returns 0, or -EINVAL with "not flush, write,
 * reorder[:K] or torn[:K] (K <= 16)" in err. */
int pc_model_spec_parse (const char *spec, struct pc_model *ret_model, struct pc_err *err);

const char *pc_model_name (enum pc_model_kind kind);

/* Does the model take :K?  Such a model's states include ones that are no
 * prefix of the log (drops, torn writes), chosen with K and, beyond it,
 * sampled with the seed: reports and ids give both. */
bool pc_model_takes_k (enum pc_model_kind kind);

/* The model as a command line gives it, "flush" or "reorder:2", into buf
 * (always NUL-terminated).  Returns buf. */
char *pc_model_spec (const struct pc_model *m, char *buf, size_t len);

/* The models' names for a sentence, "flush, write, reorder[:K] or
 * torn[:K]", into buf (always NUL-terminated).  Returns buf. */
char *pc_model_names (char *buf, size_t len);

/* Writes one line per model for --help: indent, its name (with ":K" if it
 * takes one) in a column, and what it is. */
void pc_model_help (FILE *f, const char *indent);

/* All records of a log, in memory (the data stays in the log's mapping). */
struct pc_index {
  struct pc_log *log;
  struct pc_log_header hdr;
  struct pc_record *recs;
  uint64_t n;
  enum pc_log_end end;
};

/* Reads every valid record.  Returns 0, or -errno from pc_log_open; a log
 * whose end is CORRUPT is returned too (the caller decides). */
int pc_index_load (const char *path, struct pc_index *ret_ix);
void pc_index_free (struct pc_index *ix);

/* Reads the base image the log started from, if it did: path must be given
 * exactly then, be the recorded device's size and have the recorded hash.
 * Returns 0 with *ret_mem (NULL without a base; free it with
 * pc_image_unmap (mem, *ret_size)), or -errno with a one-line reason in
 * why. */
int pc_index_read_base (const struct pc_index *ix, const char *path, uint8_t **ret_mem,
                        uint64_t *ret_size, struct pc_err *why);

/* The same, and with a base, into *ret_nonzero (malloc'd; NULL without
 * a base) a bit per 4 KiB block of it that is not all zeros (disk.h's
 * pc_image_read_map), for pc_image_new_map. */
int pc_index_read_base_map (const struct pc_index *ix, const char *path, uint8_t **ret_mem,
                            uint64_t *ret_size, uint64_t **ret_nonzero, struct pc_err *why);

/* Record number of the first MARK named name, or -1. */
int64_t pc_index_find_mark (const struct pc_index *ix, const char *name);

/* Is record r a data record (WRITE, TRIM, WRITE_ZEROES)? */
bool pc_rec_is_data (const struct pc_record *r);

struct pc_state {
  uint64_t point;         /* crash after this record */
  uint64_t base;          /* records [0, base) are applied outright */
  uint32_t ndrop;
  uint64_t *drop;         /* ascending record numbers not persisted */
  uint32_t nsect;         /* > 0: record point is torn; sectors it has */
  uint8_t *sectors;       /* nsect flags: 1 = this sector persisted */
  uint32_t nth;           /* its number among its model's states at point */
};

void pc_state_clear (struct pc_state *s);

/* Enumerates the states of model for points >= from, in an order whose
 * base never decreases.  Returns 0 or -ENOMEM. */
int pc_states_enumerate (const struct pc_index *ix, const struct pc_model *model,
                         uint64_t from, struct pc_state **ret_states, size_t *ret_n);
void pc_states_free (struct pc_state *states, size_t n);

/* The same for points from..until only. */
int pc_states_enumerate_range (const struct pc_index *ix, const struct pc_model *model,
                               uint64_t from, uint64_t until, struct pc_state **ret_states,
                               size_t *ret_n);

/* Puts first in the n states (enumerated from from) the state at the
 * start: the disk at the last FLUSH or FUA write before from (records
 * 0..F: not an earlier flush, whose state a FUA write after it ended
 * before from), which is the disk until the first flush after from's
 * first later write, and
 * which no model's states from from on hold (the flush model's start at
 * the first flush after from).  Nothing if from is 0, there is no such
 * flush, or that state is already first.  Returns 0 or -ENOMEM (*states
 * then as it was). */
int pc_states_add_start (const struct pc_index *ix, uint64_t from, struct pc_state **states,
                         size_t *n);

/* The moment of each of the n states: the last record before the disk
 * can no longer hold it, which is when a record the state lacks becomes
 * durable.  A state lacks every data record after its point, and a state
 * with drops or a torn record lacks some before it: such a state ends at
 * the first FLUSH or FUA data record after its point (the end of its
 * epoch); a state of records 0..c ends at the first FUA data record after
 * c or the first FLUSH after c's first later data record (a flush with
 * nothing written since c leaves c's state on the disk), or rather when
 * that request was answered: its DONE record, where the log has one
 * (log.h).  A crash state
 * is on the disk for that whole stretch, so it is judged against what the
 * workload had done, promised and acknowledged by its moment (every
 * record up to it).  A state no later record ends has the last record as
 * its moment.  ret_moments has room for n.  Returns 0 or -ENOMEM. */
int pc_states_moments (const struct pc_index *ix, const struct pc_state *states, size_t n,
                       uint64_t *ret_moments);

/* Formats the id of s, a state model enumerated, into buf (always
 * NUL-terminated).  An id that does not fit is written by its number at
 * its point ("C/state:I/MODEL:K/seed:S"), which pc_state_parse takes
 * too; if even that does not fit (or model is NULL), it is cut and ends
 * in "...".  Returns buf. */
char *pc_state_id (const struct pc_state *s, const struct pc_model *model, char *buf,
                   size_t len);

/* Parses an id (or "end", or "mark:NAME") against ix.  Returns 0, or
 * -EINVAL with what is wrong in why (may be NULL). */
int pc_state_parse (const struct pc_index *ix, const char *id,
                    struct pc_state *ret_state, struct pc_err *why);

/* A state of the kernel's recovery of state PARENT (judge/recrash.h):
 * "PARENT/recovery:K", K a record of that recovery's log.  Returns true
 * for such an id, with PARENT in parent (len bytes) and K in *ret_k. */
bool pc_state_id_recovery (const char *id, char *parent, size_t len, uint64_t *ret_k);

/* The log of state id's recovery, next to the log log:
 * LOG.recovery/ID.pclog, the id's slashes as '+'; into buf (len bytes). */
void pc_recovery_log_path (const char *log, const char *id, char *buf, size_t len);

/* Brings im to state s.  *cursor is how many records im holds outright;
 * it must be <= s->base.  If the state needs an overlay (drops, a torn
 * write, or in-flight records), it is begun and left open: the caller ends
 * it with pc_image_overlay_end() once done with the state.  Returns 1 if an
 * overlay is open, 0 if not, -errno on error. */
int pc_state_build (const struct pc_index *ix, const struct pc_state *s,
                    struct pc_image *im, uint64_t *cursor);

#endif
