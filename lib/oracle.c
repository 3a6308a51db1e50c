/* oracle.c: judging crash states against the versions marks recorded. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

struct omark {
  uint64_t record;
  struct pc_mark m;
};

struct pc_oracle {
  struct omark *marks;        /* marks with a manifest, in log order */
  size_t n;
  char **known;               /* every path any manifest names, sorted */
  size_t *first;              /* the first mark (index in marks) naming each */
  size_t nknown;
};

struct named {
  char *path;
  size_t mark;
};

static int
named_cmp (const void *a, const void *b)
{
  const struct named *x = a, *y = b;
  int c = strcmp (x->path, y->path);

  return c ? c : x->mark < y->mark ? -1 : x->mark > y->mark;
}

int
pc_oracle_new (const struct pc_index *ix, struct pc_oracle **ret, char *why, size_t len)
{
  struct pc_oracle *o = calloc (1, sizeof *o);
  size_t total = 0, k = 0;

  if (o == NULL)
    return -ENOMEM;
  for (uint64_t i = 0; i < ix->n; i++) {
    const struct pc_record *r = &ix->recs[i];
    struct pc_mark m;
    struct omark *nm;
    int e;
    if (r->type != PC_REC_MARK)
      continue;
    char mwhy[160];
    e = pc_mark_decode (r->data, r->datalen, &m, mwhy, sizeof mwhy);
    if (e < 0) {
      snprintf (why, len, "record %" PRIu64 ": the mark cannot be decoded: %s", i, mwhy);
      pc_oracle_free (o);
      return e;
    }
    if (!(m.flags & PC_MARK_F_MANIFEST)) {
      pc_mark_free (&m);
      continue;
    }
    nm = realloc (o->marks, (o->n + 1) * sizeof *nm);
    if (nm == NULL) {
      pc_mark_free (&m);
      pc_oracle_free (o);
      return -ENOMEM;
    }
    o->marks = nm;
    o->marks[o->n].record = i;
    o->marks[o->n++].m = m;
    total += m.nentries;
  }
  {
    struct named *all = malloc ((total ? total : 1) * sizeof *all);
    o->known = malloc ((total ? total : 1) * sizeof *o->known);
    o->first = malloc ((total ? total : 1) * sizeof *o->first);
    if (all == NULL || o->known == NULL || o->first == NULL) {
      free (all);
      pc_oracle_free (o);
      return -ENOMEM;
    }
    for (size_t i = 0; i < o->n; i++)
      for (size_t j = 0; j < o->marks[i].m.nentries; j++)
        all[k++] = (struct named) { o->marks[i].m.entries[j].path, i };
    if (k > 1)
      qsort (all, k, sizeof *all, named_cmp);
    for (size_t i = 0; i < k; i++)
      if (o->nknown == 0 || strcmp (o->known[o->nknown - 1], all[i].path) != 0) {
        o->known[o->nknown] = all[i].path;
        o->first[o->nknown++] = all[i].mark;
      }
    free (all);
  }
  *ret = o;
  return 0;
}

void
pc_oracle_free (struct pc_oracle *o)
{
  if (o == NULL)
    return;
  for (size_t i = 0; i < o->n; i++)
    pc_mark_free (&o->marks[i].m);
  free (o->marks);
  free (o->known);
  free (o->first);
  free (o);
}

size_t
pc_oracle_manifests (const struct pc_oracle *o)
{
  return o->n;
}

uint64_t
pc_oracle_max_size (const struct pc_oracle *o)
{
  uint64_t max = 0;

  for (size_t i = 0; i < o->n; i++)
    for (size_t j = 0; j < o->marks[i].m.nentries; j++) {
      const struct pc_entry *e = &o->marks[i].m.entries[j];
      if (e->type == PC_ENTRY_FILE && e->size > max)
        max = e->size;
    }
  return max;
}

static bool
same_version (const struct pc_entry *a, const struct pc_entry *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->type != b->type || (a->mode & 07777) != (b->mode & 07777))
    return false;
  switch (a->type) {
  case PC_ENTRY_FILE:
    return a->size == b->size && memcmp (a->hash, b->hash, 16) == 0;
  case PC_ENTRY_SYMLINK:
    return strcmp (a->target ? a->target : "", b->target ? b->target : "") == 0;
  default:
    return true;
  }
}

static void
describe (const struct pc_entry *e, char *buf, size_t len)
{
  if (e == NULL)
    snprintf (buf, len, "absent");
  else if (e->type == PC_ENTRY_FILE && e->size == 0)
    snprintf (buf, len, "empty file");
  else if (e->type == PC_ENTRY_FILE) {
    /* Size, first bytes (escaped) and hash. */
    char head[4 * PC_ENTRY_HEAD + 1];
    size_t h = 0;
    for (unsigned i = 0; i < e->headlen; i++) {
      uint8_t ch = e->head[i];
      if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
        head[h++] = (char) ch;
      else
        h += (size_t) snprintf (head + h, sizeof head - h, "\\x%02x", ch);
    }
    head[h] = '\0';
    snprintf (buf, len, "file %" PRIu64 " B \"%s\"%s xxh128:%02x%02x%02x%02x%02x%02x%02x%02x",
              e->size, head, e->size > e->headlen ? "..." : "", e->hash[0], e->hash[1],
              e->hash[2], e->hash[3], e->hash[4], e->hash[5], e->hash[6], e->hash[7]);
  }
  else if (e->type == PC_ENTRY_DIR)
    snprintf (buf, len, "directory");
  else if (e->type == PC_ENTRY_SYMLINK)
    snprintf (buf, len, "symlink to %s", e->target ? e->target : "");
  else
    snprintf (buf, len, "special file");
  if (e && (e->mode & 07777) != 0 && e->type != PC_ENTRY_SYMLINK) {
    size_t n = strlen (buf);
    snprintf (buf + n, len - n, " mode %04o", e->mode & 07777);
  }
}

static bool
durable_at (const struct omark *m, const char *path)
{
  if (m->m.flags & PC_MARK_F_SYNC)
    return true;
  for (size_t i = 0; i < m->m.ndurable; i++)
    if (strcmp (m->m.durable[i], path) == 0)
      return true;
  return false;
}

/* Appends one finding line; keeps the buffer NUL-terminated. */
static void
finding (char *buf, size_t len, size_t *pos, const char *verdict, const char *path,
         const char *found, const char *allowed)
{
  if (*pos + 1 >= len)
    return;
  *pos += (size_t) snprintf (buf + *pos, len - *pos, "%s\t%s\t%s\t%s\n",
                             verdict, path, found, allowed);
  if (*pos >= len)
    *pos = len - 1;
}

static int
verdict_rank (enum pc_verdict v)
{
  switch (v) {
  case PC_V_DURABLE_LOST: return 4;
  case PC_V_ZERO_LENGTH: return 3;
  case PC_V_MISSING: return 2;
  case PC_V_MISMATCH: return 1;
  default: return 0;
  }
}

/* Judges one path; returns its verdict. */
static enum pc_verdict
judge_path (const struct pc_oracle *o, size_t nbefore, size_t last, const char *path,
            const struct pc_entry *f, char *buf, size_t len, size_t *pos)
{
  size_t d = SIZE_MAX, start;
  bool absent_ok, all_present = true, all_data = true;
  char found[256], allowed[768];
  size_t apos = 0;

  for (size_t i = nbefore; i-- > 0;)
    if (durable_at (&o->marks[i], path)) {
      d = i;
      break;
    }
  start = d == SIZE_MAX ? 0 : d;
  absent_ok = d == SIZE_MAX;
  if (absent_ok && f == NULL)
    return PC_V_OK;
  if (absent_ok)
    all_present = false;
  for (size_t i = start; i <= last && i < o->n; i++) {
    const struct pc_entry *e = pc_mark_find (&o->marks[i].m, path);
    if (same_version (f, e))
      return PC_V_OK;
    if (e == NULL)
      all_present = false, all_data = false;
    else if (e->type != PC_ENTRY_FILE || e->size == 0)
      all_data = false;
  }
  if (absent_ok)
    all_data = false;

  /* Not allowed: say what was found and what would have been. */
  describe (f, found, sizeof found);
  allowed[0] = '\0';
  if (absent_ok)
    apos += (size_t) snprintf (allowed, sizeof allowed, "absent before the first durable mark");
  /* Each distinct version once, with the marks that had it. */
  for (size_t i = start; i <= last && i < o->n && apos < sizeof allowed; i++) {
    const struct pc_entry *e = pc_mark_find (&o->marks[i].m, path);
    char v[256];
    size_t j;
    for (j = start; j < i; j++)
      if (same_version (e, pc_mark_find (&o->marks[j].m, path)))
        break;
    if (j < i)
      continue;
    describe (e, v, sizeof v);
    apos += (size_t) snprintf (allowed + apos, sizeof allowed - apos, "%s%s at %s",
                               apos ? "; " : "", v, o->marks[i].m.name);
    for (j = i + 1; j <= last && j < o->n && apos < sizeof allowed; j++)
      if (same_version (e, pc_mark_find (&o->marks[j].m, path)))
        apos += (size_t) snprintf (allowed + apos, sizeof allowed - apos, ", %s",
                                   o->marks[j].m.name);
  }
  if (f == NULL && all_present) {
    finding (buf, len, pos, "missing", path, found, allowed);
    return PC_V_MISSING;
  }
  if (f && f->type == PC_ENTRY_FILE && f->size == 0 && all_data) {
    finding (buf, len, pos, "zero-length", path, found, allowed);
    return PC_V_ZERO_LENGTH;
  }
  /* A version from before the durable mark: rolled back. */
  for (size_t i = 0; d != SIZE_MAX && f && i < d; i++)
    if (same_version (f, pc_mark_find (&o->marks[i].m, path))) {
      finding (buf, len, pos, "durable-lost", path, found, allowed);
      return PC_V_DURABLE_LOST;
    }
  finding (buf, len, pos, "mismatch", path, found, allowed);
  return PC_V_MISMATCH;
}

enum pc_verdict
pc_oracle_judge (const struct pc_oracle *o, uint64_t point, const struct pc_mark *found,
                 char *findings, size_t len)
{
  size_t nbefore = 0, last, pos = 0, i = 0, j = 0;
  enum pc_verdict worst = PC_V_OK;

  findings[0] = '\0';
  if (o->n == 0)
    return PC_V_OK;
  while (nbefore < o->n && o->marks[nbefore].record <= point)
    nbefore++;
  last = nbefore < o->n ? nbefore : o->n - 1;

  /* Every path the window's marks or the image name, once, in order: the
   * known paths and the image's, both sorted, merged. */
  while (i < o->nknown || j < found->nentries) {
    int c = i == o->nknown ? 1 : j == found->nentries ? -1
            : strcmp (o->known[i], found->entries[j].path);
    const struct pc_entry *f = c >= 0 ? &found->entries[j] : NULL;
    enum pc_verdict v;
    if (c > 0) {
      /* No manifest names it. */
      char desc[256];
      describe (f, desc, sizeof desc);
      finding (findings, len, &pos, "unmentioned", f->path, desc, "-");
      j++;
      continue;
    }
    if (c < 0 && o->first[i] > last) {
      i++;                      /* named only by later marks, and not here */
      continue;
    }
    v = judge_path (o, nbefore, last, o->known[i], f, findings, len, &pos);
    if (verdict_rank (v) > verdict_rank (worst))
      worst = v;
    i++;
    j += c == 0;
  }
  return worst;
}
