/* jbd2.h: a JBD2 journal's log, for recover.c: finding its committed
 * transactions (descriptor, revoke and commit blocks in sequence, with
 * their checksums) and writing their blocks home.  Internal to the
 * journal recovery: recover.c maps the journal, checks what e2fsck would
 * check, and calls jbd2_scan() and jbd2_replay() (jbd2.c).
 */
#ifndef POWERCUT_JBD2_H
#define POWERCUT_JBD2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/image.h"
#include "util/err.h"

/* The JBD2 on-disk format (big-endian; Documentation/filesystems/ext4/journal.rst). */
#define JBD2_MAGIC           0xc03b3998u
#define JBD2_DESCRIPTOR      1
#define JBD2_COMMIT          2
#define JBD2_SB_V1           3
#define JBD2_SB_V2           4
#define JBD2_REVOKE          5

#define JBD2_COMPAT_CHECKSUM       0x1
#define JBD2_INCOMPAT_REVOKE       0x1
#define JBD2_INCOMPAT_64BIT        0x2
#define JBD2_INCOMPAT_ASYNC_COMMIT 0x4
#define JBD2_INCOMPAT_CSUM_V2      0x8
#define JBD2_INCOMPAT_CSUM_V3      0x10
#define JBD2_INCOMPAT_FAST_COMMIT  0x20
#define JBD2_INCOMPAT_HANDLED      (JBD2_INCOMPAT_REVOKE | JBD2_INCOMPAT_64BIT | \
                                    JBD2_INCOMPAT_CSUM_V2 | JBD2_INCOMPAT_CSUM_V3)
#define JBD2_CRC32C          4
#define JBD2_MIN_BLOCKS      1024

#define TAG_ESCAPE     0x1
#define TAG_SAME_UUID  0x2
#define TAG_LAST       0x8

/* ... in a commit block, and a revoke block. */
#define COMMIT_CHKSUM     0x10
#define COMMIT_SEC        0x30
#define REVOKE_COUNT      0x0c
#define REVOKE_RECORDS    0x10

/* What a verified checksum rests on. */
enum memo_kind { MEMO_NONE, MEMO_DESCRIPTOR, MEMO_COMMIT, MEMO_REVOKE, MEMO_DATA };

struct memo {
  uint8_t kind;
  uint64_t phys;
  uint32_t seed, seq, expect;   /* seed: of the journal's checksums (its uuid) */
  uint8_t hash[16];
};

/* Where the journal lies: journal block -> filesystem block, and what
 * that rests on (the journal inode, its extent or indirect blocks). */
struct jmap {
  uint64_t inode;               /* hash of the journal inode's bytes (0: none) */
  uint64_t *meta;               /* the mapping blocks, and their hashes' hash */
  size_t nmeta;
  uint64_t metahash;
  uint64_t *map;
  uint32_t n;
  uint64_t *run_first, *run_count;   /* the same as ascending runs */
  size_t nruns;
};

struct pc_recover_cache {
  struct memo *m;               /* per journal block */
  uint32_t n;
  struct jmap jm;
};

/* A block of a committed transaction, bound for home. */
struct tag {
  uint64_t home;
  uint32_t pos;                 /* where in the journal */
  uint32_t seq;
  uint32_t csum;
  bool escape;
};

struct revoke {
  uint64_t block;
  uint32_t seq;
};

struct journal {
  struct pc_image *im;
  const uint8_t *mem;
  uint64_t size;
  unsigned bs;
  uint64_t blocks;              /* the filesystem's */
  struct jmap *jm;              /* where the journal lies */
  const uint64_t *map;          /* jm->map */
  uint32_t total, first;
  uint32_t incompat;
  bool csum, csum3, b64;
  uint32_t seed;
  size_t tag_bytes;
  int64_t now;
  struct pc_recover_cache *cache;
  struct tag *tags;
  size_t ntags, captags;
  struct revoke *revs;
  size_t nrevs, caprevs;
  struct pc_err *err;            /* what this code does not handle */
};

/* Sets j->err and returns -ENOTSUP: e2fsck must do it. */
int jbd2_refuse (struct journal *j, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* CRC32c, as the journal sums; with the 4 bytes at off counted as zeros. */
uint32_t jbd2_crc32c (uint32_t seed, const void *p, size_t len);
uint32_t jbd2_crc32c_hole (uint32_t seed, const uint8_t *b, size_t len, size_t off);

/* Journal block pos, or NULL if it lies beyond the image. */
const uint8_t *jbd2_block (const struct journal *j, uint32_t pos);

/* Scans the log from block start, transaction seq: collects the tags and
 * revokes of the committed transactions; *ret_end is the sequence number
 * after the last.  Returns 0, -ENOTSUP (err set) or -ENOMEM. */
int jbd2_scan (struct journal *j, uint32_t start, uint32_t seq, uint32_t *ret_end);

/* Writes the blocks of the committed transactions home, each the last
 * version not revoked.  Returns 0, -ENOTSUP (err set) or -errno. */
int jbd2_replay (struct journal *j);

#endif
