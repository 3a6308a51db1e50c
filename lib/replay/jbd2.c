/* jbd2.c: a JBD2 journal's log: its committed transactions found, their
 * checksums verified (remembered per image), their blocks written home. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "replay/jbd2.h"
#include "util/util.h"

/* Sets j->err and returns -ENOTSUP: e2fsck must do it. */
int
jbd2_refuse (struct journal *j, const char *fmt, ...)
{
  va_list ap;

  if (j->err) {
    va_start (ap, fmt);
    vsnprintf (j->err->msg, sizeof j->err->msg, fmt, ap);
    va_end (ap);
  }
  return -ENOTSUP;
}

uint32_t
jbd2_crc32c (uint32_t seed, const void *p, size_t len)
{
  return ext2fs_crc32c_le (seed, p, len);
}

/* The checksum of a block whose 4 bytes at off count as zeros. */
uint32_t
jbd2_crc32c_hole (uint32_t seed, const uint8_t *b, size_t len, size_t off)
{
  static const uint8_t zero[4];
  uint32_t c = jbd2_crc32c (seed, b, off);

  c = jbd2_crc32c (c, zero, 4);
  return jbd2_crc32c (c, b + off + 4, len - off - 4);
}

/* Journal block pos, or NULL if it lies beyond the image. */
const uint8_t *
jbd2_block (const struct journal *j, uint32_t pos)
{
  uint64_t phys = j->map[pos];

  if (phys >= j->size / j->bs)
    return NULL;
  return j->mem + phys * j->bs;
}

static struct memo *
memo_at (const struct journal *j, uint32_t pos)
{
  const struct pc_recover_cache *c = j->cache;

  return c && c->m && pos < c->n && pc_image_block_hash (j->im, 0) ? &c->m[pos] : NULL;
}

/* The image hash of the 4 KiB block that holds journal block pos (a
 * journal block of 1 or 2 KiB shares it: the memo is then conservative). */
static const void *
jhash (const struct journal *j, uint32_t pos)
{
  return pc_image_block_hash (j->im, j->map[pos] * j->bs / PC_IMAGE_BLOCK);
}

/* Was this check already passed by the same bytes? */
static bool
memo_ok (const struct journal *j, uint32_t pos, enum memo_kind kind, uint32_t seq,
         uint32_t expect)
{
  const struct memo *m = memo_at (j, pos);
  const void *h;

  if (m == NULL || j->bs > PC_IMAGE_BLOCK || m->kind != kind || m->phys != j->map[pos] ||
      m->seed != j->seed || m->seq != seq || m->expect != expect)
    return false;
  h = jhash (j, pos);
  return h && memcmp (h, m->hash, 16) == 0;
}

static void
memo_set (const struct journal *j, uint32_t pos, enum memo_kind kind, uint32_t seq,
          uint32_t expect)
{
  struct memo *m = memo_at (j, pos);
  const void *h;

  if (m == NULL || j->bs > PC_IMAGE_BLOCK || (h = jhash (j, pos)) == NULL)
    return;
  m->kind = kind;
  m->phys = j->map[pos];
  m->seed = j->seed;
  m->seq = seq;
  m->expect = expect;
  memcpy (m->hash, h, 16);
}

/* Does a descriptor or revoke block's tail checksum match? */
static bool
tail_ok (const struct journal *j, uint32_t pos, const uint8_t *b, enum memo_kind kind)
{
  uint32_t want = pc_get_be32 (b + j->bs - 4);

  if (!j->csum || memo_ok (j, pos, kind, 0, want))
    return true;
  if (jbd2_crc32c_hole (j->seed, b, j->bs, j->bs - 4) != want)
    return false;
  memo_set (j, pos, kind, 0, want);
  return true;
}

static bool
commit_ok (const struct journal *j, uint32_t pos, const uint8_t *b)
{
  uint32_t want = pc_get_be32 (b + COMMIT_CHKSUM);

  if (!j->csum || memo_ok (j, pos, MEMO_COMMIT, 0, want))
    return true;
  if (jbd2_crc32c_hole (j->seed, b, j->bs, COMMIT_CHKSUM) != want)
    return false;
  memo_set (j, pos, MEMO_COMMIT, 0, want);
  return true;
}

static bool
data_ok (const struct journal *j, const struct tag *t, const uint8_t *b)
{
  uint8_t seq[4];
  uint32_t c;

  if (!j->csum || memo_ok (j, t->pos, MEMO_DATA, t->seq, t->csum))
    return true;
  pc_put_be32 (seq, t->seq);
  c = jbd2_crc32c (jbd2_crc32c (j->seed, seq, 4), b, j->bs);
  if (j->csum3 ? c != t->csum : (c & 0xffff) != t->csum)
    return false;
  memo_set (j, t->pos, MEMO_DATA, t->seq, t->csum);
  return true;
}

/* tid comparison, modulo 2^32 as JBD2 does. */
static bool
tid_gt (uint32_t x, uint32_t y)
{
  return (int32_t) (x - y) > 0;
}

static int
add_tag (struct journal *j, const struct tag *t)
{
  if (pc_grow (&j->tags, &j->captags, j->ntags + 1, sizeof *j->tags, 256) < 0)
    return -ENOMEM;
  j->tags[j->ntags++] = *t;
  return 0;
}

static int
add_revoke (struct journal *j, uint64_t block, uint32_t seq)
{
  if (pc_grow (&j->revs, &j->caprevs, j->nrevs + 1, sizeof *j->revs, 64) < 0)
    return -ENOMEM;
  j->revs[j->nrevs++] = (struct revoke) { block, seq };
  return 0;
}

static uint32_t
advance (const struct journal *j, uint32_t pos)
{
  pos++;
  if (pos >= j->total)
    pos -= j->total - j->first;
  return pos;
}

/* Walks the log from its start; keeps the tags and revokes of committed
 * transactions.  *ret_end: the first transaction not committed. */
int
jbd2_scan (struct journal *j, uint32_t start, uint32_t seq, uint32_t *ret_end)
{
  size_t txn_tags = j->ntags, txn_revs = j->nrevs;
  uint32_t pos = start;
  uint64_t last_time = 0, since = 0;      /* blocks since the last commit */
  int r;

  for (;;) {
    const uint8_t *b;
    uint32_t here = pos, type;

    /* A transaction longer than the journal goes round it for ever (the
     * same blocks again, the same sequence): so would e2fsck. */
    if (++since > j->total)
      return jbd2_refuse (j, "transaction %u goes round the journal without a commit", seq);
    if (pos >= j->total)
      return jbd2_refuse (j, "the log reaches past the journal's end (block %u)", pos);
    b = jbd2_block (j, pos);
    if (b == NULL)
      return jbd2_refuse (j, "journal block %u lies beyond the device", pos);
    pos = advance (j, pos);
    if (pc_get_be32 (b) != JBD2_MAGIC || pc_get_be32 (b + 8) != seq)
      break;
    type = pc_get_be32 (b + 4);
    if (type == JBD2_DESCRIPTOR) {
      size_t limit = j->bs - (j->csum ? 4 : 0), off = 12;
      uint64_t skip = pos;      /* where e2fsck's scan goes on: past all the tags, */
      uint32_t ntags = 0;       /* wrapped once (its replay wraps at each one) */
      if (!tail_ok (j, here, b, MEMO_DESCRIPTOR))
        return jbd2_refuse (j, "journal block %u: a descriptor's checksum does not match", here);
      while (off + j->tag_bytes <= limit) {
        const uint8_t *t = b + off;
        uint16_t flags = pc_get_be16 (t + 6);
        struct tag tg = {
          .home = pc_get_be32 (t) | (j->b64 ? (uint64_t) pc_get_be32 (t + 8) << 32 : 0),
          .pos = pos,
          .seq = seq,
          .csum = j->csum3 ? pc_get_be32 (t + 12) : pc_get_be16 (t + 4),
          .escape = flags & TAG_ESCAPE,
        };
        if (pos >= j->total)
          return jbd2_refuse (j, "the log reaches past the journal's end (block %u)", pos);
        if ((r = add_tag (j, &tg)) < 0)
          return r;
        pos = advance (j, pos);
        ntags++;
        off += j->tag_bytes + (flags & TAG_SAME_UUID ? 0 : 16);
        if (flags & TAG_LAST)
          break;
      }
      skip += ntags;
      since += ntags;
      if (skip >= j->total)
        skip -= j->total - j->first;
      if (skip != pos)
        return jbd2_refuse (j, "journal block %u: a descriptor with more tags than the journal "
                       "has room for", here);
    }
    else if (type == JBD2_COMMIT) {
      uint64_t t = pc_get_be64 (b + COMMIT_SEC);
      if (!commit_ok (j, here, b))
        return jbd2_refuse (j, "journal block %u: transaction %u's commit checksum does not match",
                       here, seq);
      (void) last_time;
      last_time = t;
      txn_tags = j->ntags;
      txn_revs = j->nrevs;
      since = 0;
      seq++;
    }
    else if (type == JBD2_REVOKE) {
      uint32_t count = pc_get_be32 (b + REVOKE_COUNT);
      size_t rlen = j->b64 ? 8 : 4;
      if (!tail_ok (j, here, b, MEMO_REVOKE))
        return jbd2_refuse (j, "journal block %u: a revoke block's checksum does not match", here);
      if (count > j->bs - (j->csum ? 4 : 0))
        return jbd2_refuse (j, "journal block %u: a revoke block too long", here);
      for (size_t off = REVOKE_RECORDS; off + rlen <= count; off += rlen)
        if ((r = add_revoke (j, rlen == 8 ? pc_get_be64 (b + off) : pc_get_be32 (b + off),
                             seq)) < 0)
          return r;
    }
    else
      break;
  }
  /* What the uncommitted transaction logged is not replayed. */
  j->ntags = txn_tags;
  j->nrevs = txn_revs;
  *ret_end = seq;
  return 0;
}

static int
revoke_cmp (const void *a, const void *b)
{
  const struct revoke *x = a, *y = b;

  return x->block < y->block ? -1 : x->block > y->block;
}

/* The latest transaction that revoked block, if any. */
static bool
revoked_by (const struct journal *j, uint64_t block, uint32_t *ret_seq)
{
  size_t lo = 0, hi = j->nrevs;

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (j->revs[mid].block < block)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == j->nrevs || j->revs[lo].block != block)
    return false;
  *ret_seq = j->revs[lo].seq;
  for (; lo < j->nrevs && j->revs[lo].block == block; lo++)
    if (tid_gt (j->revs[lo].seq, *ret_seq))
      *ret_seq = j->revs[lo].seq;
  return true;
}

static bool
in_journal (const struct journal *j, uint64_t block)
{
  const struct jmap *m = j->jm;
  size_t lo = 0, hi = m->nruns;

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (m->run_first[mid] + m->run_count[mid] <= block)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < m->nruns && m->run_first[lo] <= block;
}

struct last {
  uint64_t home;
  size_t i;
};

static int
last_cmp (const void *a, const void *b)
{
  const struct last *x = a, *y = b;

  if (x->home != y->home)
    return x->home < y->home ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* Writes the committed blocks home, the last logged version of each. */
int
jbd2_replay (struct journal *j)
{
  uint8_t *buf = malloc (j->bs);
  int r = 0;

  if (buf == NULL)
    return -ENOMEM;
  if (j->nrevs > 1)
    qsort (j->revs, j->nrevs, sizeof *j->revs, revoke_cmp);
  /* Check every block first: a refusal must leave the image unchanged. */
  for (size_t i = 0; i < j->ntags && r == 0; i++) {
    struct tag *t = &j->tags[i];
    const uint8_t *b = jbd2_block (j, t->pos);
    uint32_t rs;
    if (revoked_by (j, t->home, &rs) && !tid_gt (t->seq, rs)) {
      t->home = UINT64_MAX;       /* revoked: skipped */
      continue;
    }
    if (b == NULL)
      r = jbd2_refuse (j, "journal block %u lies beyond the device", t->pos);
    else if (!data_ok (j, t, b))
      r = jbd2_refuse (j, "journal block %u: the checksum of a logged copy of block %" PRIu64
                  " does not match", t->pos, t->home);
    else if (t->home >= j->blocks || t->home >= j->size / j->bs)
      r = jbd2_refuse (j, "the journal logs block %" PRIu64 ", beyond the filesystem", t->home);
  }
  for (size_t i = 0; i < j->ntags && r == 0; i++)
    if (j->tags[i].home != UINT64_MAX && in_journal (j, j->tags[i].home))
      r = jbd2_refuse (j, "the journal logs block %" PRIu64 ", one of its own", j->tags[i].home);
  if (r == 0) {
    /* Only the last copy of a block matters; the others are overwritten. */
    struct last *l = malloc ((j->ntags ? j->ntags : 1) * sizeof *l);
    size_t n = 0;
    if (l == NULL) {
      free (buf);
      return -ENOMEM;
    }
    for (size_t i = 0; i < j->ntags; i++)
      if (j->tags[i].home != UINT64_MAX)
        l[n++] = (struct last) { j->tags[i].home, i };
    qsort (l, n, sizeof *l, last_cmp);
    for (size_t k = 0; k < n && r == 0; k++) {
      const struct tag *t;
      if (k + 1 < n && l[k + 1].home == l[k].home)
        continue;
      t = &j->tags[l[k].i];
      memcpy (buf, jbd2_block (j, t->pos), j->bs);
      if (t->escape)
        pc_put_be32 (buf, JBD2_MAGIC);
      if (memcmp (buf, j->mem + t->home * j->bs, j->bs) != 0)
        r = pc_image_write (j->im, t->home * j->bs, buf, j->bs);
    }
    free (l);
  }
  free (buf);
  return r;
}
