/* restore.c: which files an application's checker needed (check --verify).
 *
 * Where the checker fails at a point, the oracle names every path the
 * state holds older than the program had by its last acknowledgement
 * (older-version notes).  Each is given back, in the exported tree, the
 * version the program had then: its blocks are found by their hashes
 * among the 4 KiB blocks the log's writes hold (the data reached the disk
 * at some point of the recording: a later writeback, powercut's own sync
 * at the end), zeros where the file had a hole.  The checker runs again:
 * with each path alone first, then with all of them, then dropping each
 * one it still passes without.  The smallest set that passes is what the
 * application lost, the program's fault (ack-lost findings); a version
 * whose bytes were never at hand is named without the test. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/checkint.h"
#include "judge/export.h"
#include "format/event.h"
#include "util/util.h"
#include "util/xxh.h"

#define BLOCK PC_EVENT_BLOCK
#define MAX_SUSPECTS 16         /* paths restore-tested at one point (the
                                 * notes past them say 16) */

/* A block the log's writes hold: its hash, and where its bytes are. */
struct rblock {
  uint64_t hash;
  const uint8_t *p;
};

static int
rblock_cmp (const void *a, const void *b)
{
  const struct rblock *x = a, *y = b;

  return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* Every whole 4 KiB block, at a 4 KiB offset of the device, of every
 * WRITE record, by hash. */
static int
make_rblocks (struct ctx *c)
{
  size_t n = 0, cap = 0;

  c->rblocks_made = true;
  for (uint64_t i = 0; i < c->ix.n; i++) {
    const struct pc_record *r = &c->ix.recs[i];
    uint64_t first;
    if (r->type != PC_REC_WRITE || r->datalen != r->length)
      continue;
    first = (r->offset + BLOCK - 1) / BLOCK * BLOCK;
    for (uint64_t at = first; at + BLOCK <= r->offset + r->length; at += BLOCK) {
      if (pc_grow (&c->rblocks, &cap, n + 1, sizeof *c->rblocks, 1024) < 0)
        return -ENOMEM;
      c->rblocks[n].p = r->data + (at - r->offset);
      c->rblocks[n].hash = XXH3_64bits (c->rblocks[n].p, BLOCK);
      n++;
    }
  }
  if (n > 1)
    qsort (c->rblocks, n, sizeof *c->rblocks, rblock_cmp);
  c->nrblocks = n;
  return 0;
}

void
check_restore_free (struct ctx *c)
{
  free (c->rblocks);
  c->rblocks = NULL;
  c->nrblocks = 0;
  c->rblocks_made = false;
}

/* The bytes of a block of len bytes (the last of a file may be short)
 * that hash to hash, or NULL if no write of the log held them. */
static const uint8_t *
find_block (const struct ctx *c, uint64_t hash, uint64_t len)
{
  if (len == BLOCK) {
    struct rblock key = { hash, NULL };
    const struct rblock *b = bsearch (&key, c->rblocks, c->nrblocks, sizeof *c->rblocks,
                                      rblock_cmp);
    return b ? b->p : NULL;
  }
  for (size_t i = 0; i < c->nrblocks; i++)
    if (XXH3_64bits (c->rblocks[i].p, len) == hash)
      return c->rblocks[i].p;
  return NULL;
}

/* A path under test: the version to give back, and the state's. */
struct suspect {
  struct pc_finding *f;         /* its older-version note */
  bool at_hand;                 /* its bytes were found */
  bool present;                 /* the version is a file (else absent) */
  uint8_t *bytes;
  uint64_t size;
  bool had;                     /* the state has a file there */
  uint8_t *orig;                /* what the state has there */
  uint64_t origsize;
};

/* The version the program had at record ack, into s.  Returns 0 or
 * -ENOMEM (s->at_hand false where the bytes are not known). */
static int
load_version (struct ctx *c, uint64_t ack, struct suspect *s)
{
  struct pc_history_content hc;
  int r = pc_oracle_content_at (c->oracle, ack, s->f->path, &hc);

  if (r < 0 || !hc.known)
    return r;
  s->present = hc.present;
  s->size = hc.size;
  if (hc.present && (s->bytes = malloc (hc.size ? hc.size : 1)) == NULL) {
    pc_history_content_free (&hc);
    return -ENOMEM;
  }
  s->at_hand = true;
  for (uint64_t b = 0; hc.present && b * BLOCK < hc.size && s->at_hand; b++) {
    uint64_t len = hc.size - b * BLOCK < BLOCK ? hc.size - b * BLOCK : BLOCK;
    const uint8_t *p = hc.zero[b] ? NULL : find_block (c, hc.hashes[b], len);
    if (hc.zero[b])
      memset (s->bytes + b * BLOCK, 0, len);
    else if (p)
      memcpy (s->bytes + b * BLOCK, p, len);
    else
      s->at_hand = false;
  }
  pc_history_content_free (&hc);
  return 0;
}

/* Reads what the exported tree holds at path. */
static int
read_orig (const char *dir, struct suspect *s)
{
  char path[PATH_MAX];
  struct stat st;
  int fd;

  snprintf (path, sizeof path, "%s/%s", dir, s->f->path);
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)) {
    close (fd);
    return -EINVAL;             /* not a file: not restored over */
  }
  s->origsize = (uint64_t) st.st_size;
  s->orig = malloc (s->origsize ? s->origsize : 1);
  if (s->orig == NULL) {
    close (fd);
    return -ENOMEM;
  }
  s->had = pc_read_all (fd, s->orig, s->origsize) == 0;
  close (fd);
  return s->had ? 0 : -EIO;
}

/* Makes path (under dir) hold len bytes of p, or (p NULL) not exist; its
 * directories made, write permission given where it lacks. */
static int
put_path (const char *dir, const char *rel, const uint8_t *p, uint64_t len)
{
  char path[PATH_MAX];
  int fd, r = 0;

  if ((size_t) snprintf (path, sizeof path, "%s/%s", dir, rel) >= sizeof path)
    return -ENAMETOOLONG;
  for (char *s = path + strlen (dir) + 1; (s = strchr (s, '/')) != NULL; s++) {
    *s = '\0';
    if (mkdir (path, 0755) < 0 && errno != EEXIST)
      r = -errno;
    chmod (path, 0755);
    *s = '/';
    if (r < 0)
      return r;
  }
  if (p == NULL)
    return unlink (path) < 0 && errno != ENOENT ? -errno : 0;
  chmod (path, 0644);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return -errno;
  r = pc_write_all (fd, p, (size_t) len);
  if (close (fd) < 0 && r == 0)
    r = -errno;
  return r;
}

/* Runs the checker with the suspects in set (a bit each) given back.
 * Returns its verdict (PC_V_OK, PC_V_APP_INVALID, PC_V_NOT_CHECKED). */
static int
trial (struct ctx *c, size_t i, const char *dir, const char *mfile, size_t k, size_t na,
       struct pc_export *x, struct suspect *s, size_t n, uint32_t set)
{
  struct app_result ar = { 0 };
  int r = 0;

  pc_export_touched (x);
  for (size_t j = 0; j < n && r == 0; j++)
    if (set & (1u << j))
      r = put_path (dir, s[j].f->path, s[j].present ? s[j].bytes : NULL, s[j].size);
  if (r == 0)
    check_run_verify (c, i, dir, mfile, k, na, x, &ar);
  for (size_t j = 0; j < n; j++)
    if (set & (1u << j))
      put_path (dir, s[j].f->path, s[j].had ? s[j].orig : NULL, s[j].origsize);
  return r < 0 ? PC_V_NOT_CHECKED : ar.verdict;
}

/* Says why the note of s is what it is (the rule's tail), and whether it
 * counts as what the application lost (cause.program). */
static int
conclude (struct suspect *s, int kind, bool counts, const char *why)
{
  struct pc_cause *cz = &s->f->cause;
  char *rule = NULL;

  if (asprintf (&rule, "%s; %s", cz->rule ? cz->rule : "?", why) < 0)
    return -ENOMEM;
  free (cz->rule);
  cz->rule = rule;
  cz->program = counts;
  s->f->kind = kind;
  return 0;
}

/* A path the restore test found the application lost (ack-lost) may
 * also have the judge's finding of data never made durable (zeros, an
 * empty file): the same loss, now weighed as acknowledged; that finding
 * goes. */
static void
drop_weighed (struct pc_findings *fl)
{
  size_t kept = 0;

  for (size_t j = 0; j < fl->n; j++) {
    struct pc_finding *f = &fl->v[j];
    bool gone = false;
    if (f->kind != PC_V_ACK_LOST && pc_finding_verdict (f->kind) != PC_V_OK &&
        pc_finding_fault (f) == PC_FAULT_NONE)
      for (size_t k = 0; k < fl->n && !gone; k++)
        gone = fl->v[k].kind == PC_V_ACK_LOST && strcmp (fl->v[k].path, f->path) == 0;
    if (gone) {
      free (f->path);
      free (f->found);
      free (f->allowed);
      pc_cause_clear (&f->cause);
      continue;
    }
    fl->v[kept++] = *f;
  }
  fl->n = kept;
}

int
check_restore (struct ctx *c, size_t i, const char *dir, const char *mfile, size_t k,
               size_t na, struct pc_export *x, uint64_t ack, struct pc_findings *fl)
{
  struct suspect s[MAX_SUSPECTS];
  size_t n = 0, tested = 0, older = 0;
  uint32_t all = 0, keep = 0;
  bool passed = false, inconclusive = false;
  int r = 0;

  if (!c->rblocks_made && (r = make_rblocks (c)) < 0)
    return r;
  memset (s, 0, sizeof s);
  for (size_t j = 0; j < fl->n; j++)
    older += fl->v[j].kind == PC_F_OLDER;
  for (size_t j = 0; j < fl->n && n < MAX_SUSPECTS && r == 0; j++) {
    if (fl->v[j].kind != PC_F_OLDER)
      continue;
    s[n].f = &fl->v[j];
    r = load_version (c, ack, &s[n]);
    if (r == 0 && s[n].at_hand) {
      int e = read_orig (dir, &s[n]);
      if (e == -ENOMEM)
        r = e;
      else if (e < 0)
        s[n].at_hand = false;
    }
    n++;
  }
  for (size_t j = 0; j < n; j++)
    if (s[j].at_hand) {
      all |= 1u << j;
      tested++;
    }
  /* each alone, then all, then all but each that is not needed */
  for (size_t j = 0; r == 0 && j < n && !passed && !inconclusive; j++) {
    int v;
    if (!(all & (1u << j)))
      continue;
    v = trial (c, i, dir, mfile, k, na, x, s, n, 1u << j);
    passed = v == PC_V_OK;
    inconclusive = v == PC_V_NOT_CHECKED;
    keep = 1u << j;
  }
  if (r == 0 && !passed && !inconclusive && tested > 1) {
    int v = trial (c, i, dir, mfile, k, na, x, s, n, all);
    passed = v == PC_V_OK;
    inconclusive = v == PC_V_NOT_CHECKED;
    keep = all;
    for (size_t j = 0; passed && j < n; j++) {
      if (!(keep & (1u << j)) || keep == (1u << j))
        continue;
      v = trial (c, i, dir, mfile, k, na, x, s, n, keep & ~(1u << j));
      if (v == PC_V_OK)
        keep &= ~(1u << j);
    }
  }
  for (size_t j = 0; r == 0 && j < n; j++) {
    if (!s[j].at_hand)
      r = conclude (&s[j], PC_F_OLDER, true,
                  "not restore-tested: the bytes of that version are in no write of the "
                  "recording (it never reached the disk)");
    else if (inconclusive)
      r = conclude (&s[j], PC_F_OLDER, true,
                  "not restore-tested: the checker could not be run on the restored tree");
    else if (passed && (keep & (1u << j)))
      r = conclude (&s[j], PC_V_ACK_LOST, true,
                  "the application's checker passes with this path as the program had it "
                  "then: what the application lost");
    else if (passed)
      r = conclude (&s[j], PC_F_OLDER, false,
                  "the checker passes without this path given back: not what it needed");
    else
      r = conclude (&s[j], PC_F_OLDER, tested < older,
                  tested < older
                  ? "the checker still fails with every path tested given back as the program "
                    "had it then, and some could not be: what the application lost among them"
                  : "the checker still fails with every path given back as the program had "
                    "it then");
  }
  /* Past the paths one test takes: not tested, what the application
   * lost as far as anyone can tell */
  for (size_t j = 0, seen = 0; r == 0 && j < fl->n; j++)
    if (fl->v[j].kind == PC_F_OLDER && seen++ >= MAX_SUSPECTS) {
      struct suspect past = { .f = &fl->v[j] };
      r = conclude (&past, PC_F_OLDER, true,
                    "not restore-tested: more paths older than acknowledged than one test "
                    "gives back (16)");
    }
  for (size_t j = 0; j < n; j++) {
    free (s[j].bytes);
    free (s[j].orig);
  }
  if (r == 0)
    drop_weighed (fl);
  return r;
}
