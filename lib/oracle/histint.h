/* histint.h: the history's insides, shared by its parts (history.c lists
 * them, from the interface down; each calls only those below it). */
#ifndef POWERCUT_HISTINT_H
#define POWERCUT_HISTINT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/event.h"
#include "oracle/history.h"

#define BLOCK PC_EVENT_BLOCK         /* the blocks the events hash */
#define NONE UINT64_MAX

/* What a block held from a call on: data of a hash, zeros, anything (not
 * hashed), or anything a writable shared mapping wrote there (not seen
 * until it is msync'd or unmapped). */
enum bkind { B_HASH, B_ZERO, B_UNKNOWN, B_MAPPED };

/* What a block held from a call on. */
struct bver {
  uint64_t block, seq;
  uint64_t hash;
  uint32_t call;                /* index in calls, or UINT32_MAX: before tracing */
  uint32_t from;                /* the first byte of the block the call wrote */
  uint8_t kind;                 /* enum bkind */
  bool snap;                    /* what a mapped file held when a call looked
                                 * (msync, munmap, fsync): not itself a change */
};

/* A size from a call on. */
struct sver {
  uint64_t seq, size;
  uint32_t call;
};

/* An extended attribute of a node from a call on: set to a value (of a
 * hash, or unknown), or removed. */
enum xstate { X_SET, X_UNKNOWN, X_REMOVED };
struct xver {
  char *name;
  uint64_t seq;
  uint64_t hash;
  uint32_t call;
  uint8_t state;                /* enum xstate */
};

/* A point from which a node's data (blocks first..last, or all) was
 * durable. */
struct dpoint {
  uint64_t seq;
  uint64_t first, last;         /* blocks; 0 .. UINT64_MAX: the whole file and
                                 * its size; else a range (a synchronous write,
                                 * an msync), whose bytes end at end: the size
                                 * must reach that far, no more is promised */
  uint64_t end;
  uint32_t call;                /* what made it durable, or UINT32_MAX: a mark */
  bool meta;                    /* its extended attributes too (fsync, not
                                 * fdatasync or a range) */
};

/* A call that moved a node's blocks (fallocate's INSERT_RANGE, by > 0, or
 * COLLAPSE_RANGE, by < 0): blocks from first on moved by blocks. */
struct shift {
  uint64_t seq;
  uint64_t first;
  int64_t by;
};

enum ntype { N_FILE = 'f', N_DIR = 'd', N_LINK = 'l' };

struct node {
  uint64_t ino;                 /* 0: not known (a directory or a link made) */
  uint8_t type;                 /* enum ntype */
  bool base;                    /* was there before the first event: blocks of
                                 * unknown content, below its first size
                                 * (pc_hist_in_base) */
  char *target;                 /* a link's */
  struct bver *b;               /* by seq as added; by (block, seq) once done */
  size_t nb, capb;
  uint64_t hiblock;             /* blocks from here on never had a version */
  struct sver *s;               /* by seq */
  size_t ns, caps;
  struct dpoint *d;             /* by seq */
  size_t nd, capd;
  struct xver *x;               /* by seq */
  size_t nx, capx;
  struct shift *sh;             /* by seq */
  size_t nsh, capsh;
  uint64_t lost_from;           /* a call the tracer cannot follow wrote it from
                                 * then on (NONE: never) */
  uint32_t lost_call;
  uint64_t mapped_from;         /* mapped shared and writable, not msync'd or
                                 * unmapped since (NONE: not so) */
  uint32_t mapped_call;
  bool synced;                  /* the program synced it at least once (a call or
                                 * a mark made some of it durable, or
                                 * sync_file_range waited for its writes) */
  uint64_t *bseq;               /* the records of its block versions, ascending,
                                 * each once (histver.c) */
  size_t nbseq;
};

/* A name bound to a node (or to nothing) from a call on. */
struct ever {
  uint64_t seq;
  int64_t node;                 /* -1: absent */
  uint32_t call;
};

struct phist {
  char *path;                   /* relative, as manifests name it */
  bool untraced;                /* the end of the recording holds there what the
                                 * program never had: something the tracer does
                                 * not see changed it; not judged */
  struct ever *e;
  size_t ne, cape;
};

/* What people are told of a call. */
struct call {
  uint64_t seq;                 /* its entry record */
  uint64_t xseq;                /* its exit record (seq until it is seen) */
  uint64_t time_ns;
  int32_t pid;
  char *text;
  char *path;                   /* the file it is about, as it was named then
                                 * (relative), or NULL */
};

/* A durable point of a directory's entries. */
struct ddur {
  char *dir;                    /* relative ("" for the root) */
  uint64_t seq;
  uint32_t call;
};

/* A version of a path (histver.c): what it held after a call. */
struct hver {
  int64_t node;                 /* -1: absent */
  uint64_t seq;                 /* the call's entry record */
  uint32_t call;
  uint64_t durable;             /* when its data and name were first durable, or NONE */
  uint32_t dcall;               /* what made them so (UINT32_MAX: a mark) */
};

/* What pc_history_lost last answered for a path (histver.c). */
struct vkey {
  bool present;
  uint8_t type;
  uint64_t size, target;
  uint8_t hash[16];
};
struct vcache {
  bool valid;
  size_t z, kept;               /* versions up to the point; the first lost */
  uint64_t upto;                /* the point it was worked out at */
  struct vkey key;              /* what was found */
};

struct pc_history {
  uint64_t events;
  struct node *nodes;
  size_t nnodes, capnodes;
  struct phist *paths;          /* sorted by path once built */
  size_t npaths, cappaths;
  const char **names;           /* the paths, for pc_history_paths */
  struct call *calls;
  size_t ncalls, capcalls;
  struct ddur *dd;              /* by seq */
  size_t ndd, capdd;
  struct dpoint *global;        /* sync, syncfs, synced marks (first..last unused) */
  size_t nglobal, capglobal;
  bool plain;                   /* every path judged at every point anew */
  bool no_journal;              /* the filesystem has no journal: a directory's
                                 * fsync makes its names durable, not the files
                                 * they name, and nothing orders metadata
                                 * (pc_history_set_no_journal) */
  uint64_t command_end;         /* powercut run's mark where the command
                                 * ended (mark.h), or NONE: what becomes
                                 * durable after it, the program never synced */
  struct hmemo *memo;           /* judgements kept (histmemo.c), or NULL */
  const struct pc_index *ix;    /* for the times of records */
  struct hver *ver;             /* the paths' versions, by path then seq (histver.c) */
  size_t nver;
  size_t *vstart;               /* paths[i]'s: ver[vstart[i]] .. ver[vstart[i + 1] - 1] */
  struct pc_history_version *pubv;      /* the same for pc_history_versions */
  struct vcache *vcache;        /* per path, or NULL (plain, or not yet) */
};

/* histcause.c, read by all: the files' names in the order the paths are
 * kept in; the history of path (NULL if none); floor as a durable point
 * (NONE: none) against the best one found, *ret_call UINT32_MAX if it
 * wins; n's versions of block b, [*ret_a, *ret_b) in n->b; the hash of
 * len zero bytes; may version v hold hash (zero: it is of zeros)?; n's
 * size at point; the first point at or after seq from which path's name
 * was durable (NONE: never), *ret_call what made it; a call into a cause;
 * what made a thing durable, for people; a record's time; how many of
 * the n ascending seqs v are at or before point. */
int pc_hist_path_cmp (const void *a, const void *b);
const struct phist *pc_hist_find_path (const struct pc_history *h, const char *path);
uint64_t pc_hist_at_floor (uint64_t best, uint64_t floor, uint64_t point, uint32_t *ret_call);
void pc_hist_block_range (const struct node *n, uint64_t b, size_t *ret_a, size_t *ret_b);
uint64_t pc_hist_zeros_hash (uint64_t len);
bool pc_hist_holds (const struct bver *v, uint64_t hash, bool zero);
uint64_t pc_hist_size_at (const struct node *n, uint64_t point);
bool pc_hist_in_base (const struct node *n, uint64_t b);
uint64_t pc_hist_entry_made_durable (const struct pc_history *h, const char *path, uint64_t seq,
                                     uint32_t *ret_call);
void pc_hist_cause_call (const struct pc_history *h, struct pc_cause *c, uint32_t call);
char *pc_hist_describe_durable (const struct pc_history *h, uint32_t call);
uint64_t pc_hist_rec_time (const struct pc_history *h, uint64_t seq);
size_t pc_hist_count_upto (const uint64_t *v, size_t n, uint64_t point);

/* histbuild.c: builds h (zeroed) from ix's events (and, if marks, its
 * marks; else only the first manifest, as the files there before).
 * Returns 0 or -errno (-EBADMSG with err); h is then freed by
 * pc_history_free either way. */
int pc_hist_build (struct pc_history *h, const struct pc_index *ix, bool marks,
                   struct pc_err *err);

/* histver.c: lists the paths' versions, once the history is built.
 * Returns 0 or -ENOMEM.  pc_hist_lost: pc_history_lost. */
int pc_hist_versions_build (struct pc_history *h);
void pc_hist_lost (const struct pc_history *h, uint64_t point, size_t i,
                   const struct pc_entry *found, pc_history_lost_fn *fn, void *ctx);

/* histxattr.c: do found's extended attributes fit n's at point (from the
 * last point they were durable, floor counting as one)?  NULL if so;
 * else the version lost, *ret_promise whether it had been made durable. */
const struct xver *pc_hist_xattrs_match (const struct pc_history *h, const struct node *n,
                                         const struct pc_entry *found, uint64_t point,
                                         uint64_t floor, bool *ret_promise);
/* The cause of an attribute lost (v), for the file found at path. */
int pc_hist_xattr_cause (const struct pc_history *h, const struct node *n, const char *path,
                         const struct pc_entry *found, const struct xver *v, bool promise,
                         struct pc_cause *c);

/* histmatch.c, what a file may hold at a point: the last point at or
 * before point from which path's name was durable (a sync, its
 * directory's fsync, a mark; NONE: none; floor, if not NONE, counts as
 * one), *ret_call what made it durable (UINT32_MAX: a mark); the same for
 * block b of n (NONE: its size, which only a sync of the whole file makes
 * durable); the first point at or after seq from which block b of n was
 * durable (anywhere in the recording); the least size n had from its
 * durable point lo on, up to point; when n's size was last set by point;
 * the least size a state at point must show for n's range promises
 * (*ret_block the block that asks most); was n empty at the last point
 * its size (or, for a file made empty, its name) was durable; and how
 * found differs from n at point: 0 if it is what n had, else a finding
 * kind, *ret_block the first block at fault (NONE: the size),
 * *ret_promise whether what was lost had been made durable and not given
 * up since (from_start: judged from the file's first version on). */
uint64_t pc_hist_entry_durable (const struct pc_history *h, const char *path, uint64_t point,
                                uint64_t floor, uint32_t *ret_call);
uint64_t pc_hist_data_durable (const struct pc_history *h, const struct node *n, uint64_t b,
                               uint64_t point, uint64_t floor, uint32_t *ret_call);
uint64_t pc_hist_made_durable (const struct pc_history *h, const struct node *n, uint64_t b,
                               uint64_t seq, uint32_t *ret_call);
uint64_t pc_hist_least_size_since (const struct node *n, uint64_t lo, uint64_t point);
uint64_t pc_hist_size_set_by (const struct node *n, uint64_t point);
uint64_t pc_hist_size_needed (const struct node *n, uint64_t point, uint64_t *ret_block);
bool pc_hist_durably_empty (const struct pc_history *h, const struct node *n, const char *path,
                            uint64_t point, uint64_t floor);
int pc_hist_match_file (const struct pc_history *h, const struct node *n,
                        const struct pc_entry *found, uint64_t point, uint64_t floor,
                        bool from_start, uint64_t *ret_block, bool *ret_promise);

/* histfault.c, the cause of a finding and whose fault it is
 * (doc/fault.md): the cause of a finding on block b (NONE: the size) of n
 * at path, the version lost being the newest by point (or, for a
 * promise, the durable one), *ret_call the call behind it, *ret_mapped
 * whether a shared mapping stored it; is call b its process's next after
 * a (an unlink, then the file made anew: a replacement); is node y bound
 * to a name other than p's at point (moved there); c made the program's
 * fault where it gave a durable version of path up before the new data
 * of n was durable (a rename over it, an unlink and a new file by its
 * next call, a truncate), wcall the call that wrote what was lost; the
 * cause of a name found missing, or found though it was durably gone
 * (de: when it was, dcall: what made it so; floor as for
 * pc_hist_data_durable).  Those that fill a cause return 0 or -ENOMEM. */
int pc_hist_data_cause (const struct pc_history *h, const struct node *n, const char *path,
                        uint64_t b, uint64_t point, int kind, bool promise, struct pc_cause *c,
                        uint32_t *ret_call, bool *ret_mapped);
bool pc_hist_next_call (const struct pc_history *h, uint32_t a, uint32_t b);
bool pc_hist_bound_elsewhere (const struct pc_history *h, const struct phist *p, int64_t y,
                              uint64_t point);
int pc_hist_program_cause (const struct pc_history *h, const struct phist *p, const char *path,
                           int64_t n, uint64_t point, uint32_t wcall, struct pc_cause *c);
/* Without a journal, a broken promise at p's path whose name changed
 * since it was durable, the change not yet durable, found missing (found
 * NULL) or holding another file's data, is an exposure (its rule and fix
 * in c). */
int pc_hist_unordered_cause (const struct pc_history *h, const struct phist *p, uint64_t point,
                             uint64_t floor, const struct pc_entry *found, struct pc_cause *c);
int pc_hist_name_cause (const struct pc_history *h, const struct phist *p, uint64_t point,
                        uint64_t floor, uint64_t de, uint32_t dcall,
                        struct pc_history_verdict *ret);

/* histjudge.c: the judgement itself (pc_history_judge without reuse),
 * pc_history_older, and pc_history_set_end's marking of the paths others
 * wrote (the memo dropped by the caller). */
int pc_hist_judge (const struct pc_history *h, uint64_t point, const char *path,
                   const struct pc_entry *found, struct pc_history_verdict *ret);
int pc_hist_older (const struct pc_history *h, uint64_t point, uint64_t floor, bool kept,
                   const char *path,
                   const struct pc_entry *found, struct pc_history_verdict *ret);
int pc_hist_set_end (struct pc_history *h, uint64_t point, const struct pc_mark *end);

/* histmemo.c: pc_history_judge and pc_history_older reusing the
 * judgements kept (made on first use); the kept judgements freed (when the history changes:
 * pc_history_set_end, pc_history_set_plain). */
struct hmemo;
int pc_hist_memo_older (const struct pc_history *h, uint64_t point, uint64_t floor, bool kept,
                        const char *path, const struct pc_entry *found,
                        struct pc_history_verdict *ret);
int pc_hist_memo_judge (const struct pc_history *h, uint64_t point, const char *path,
                        const struct pc_entry *found, struct pc_history_verdict *ret);
void pc_hist_memo_free (struct hmemo *m);

#endif
