/* treewalk.c: the walk of a file tree both tree readers share (treewalk.h). */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "judge/treewalk.h"
#include "format/acl.h"
#include "util/util.h"
#include "util/xxh.h"

struct pc_treewalk {
  const struct pc_treewalk_source *s;
  void *src;
  struct pc_mark *m;
  size_t cap;
  char *problems;
  size_t plen, ppos;
  uint64_t *seen;               /* the inodes of the directories entered */
  size_t nseen, capseen;
  bool no_memory;
};

void *
pc_treewalk_source_data (const struct pc_treewalk *w)
{
  return w->src;
}

void
pc_treewalk_problem (struct pc_treewalk *w, const char *path, const char *what,
                     const char *why)
{
  if (w->ppos + 1 >= w->plen)
    return;
  w->ppos += (size_t) snprintf (w->problems + w->ppos, w->plen - w->ppos, "%s%s: %s%s%s",
                                w->ppos ? "\n" : "", path[0] ? path : "/", what,
                                why ? ": " : "", why ? why : "");
  if (w->ppos >= w->plen)
    w->ppos = w->plen - 1;
}

void
pc_treewalk_no_memory (struct pc_treewalk *w)
{
  w->no_memory = true;
}

int
pc_treewalk_add_xattr (struct pc_entry *ent, const char *name, const void *value, size_t len)
{
  enum pc_acl_kind k = pc_acl_kind (name);
  uint64_t hash = 0;
  int m = k != PC_ACL_NONE ? pc_acl_meaning (k, value, len, &hash) : -EINVAL;
  struct pc_xattr *x;

  if (m == 0)
    return 0;
  if (m < 0)
    hash = XXH3_64bits (value, len);
  if ((x = realloc (ent->xattrs, (ent->nxattrs + 1) * sizeof *x)) == NULL)
    return -ENOMEM;
  ent->xattrs = x;
  if ((x[ent->nxattrs].name = strdup (name)) == NULL)
    return -ENOMEM;
  x[ent->nxattrs++].hash = hash;
  return 0;
}

static int
xattr_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_xattr *) a)->name, ((const struct pc_xattr *) b)->name);
}

void
pc_treewalk_xattrs_done (struct pc_entry *ent, bool failed)
{
  if (failed) {
    for (size_t i = 0; i < ent->nxattrs; i++)
      free (ent->xattrs[i].name);
    free (ent->xattrs);
    ent->xattrs = NULL;
    ent->nxattrs = 0;
    ent->xattrs_unknown = true;
    return;
  }
  if (ent->nxattrs > 1)
    qsort (ent->xattrs, ent->nxattrs, sizeof *ent->xattrs, xattr_cmp);
}

void
pc_treewalk_hash_done (struct pc_entry *ent, bool whole, bool failed)
{
  if (whole && !failed)
    return;
  if (!whole)
    memset (ent->hash, 0, sizeof ent->hash);
  ent->zero_blocks = 0;         /* not read: not known to be zeros */
  free (ent->blocks);           /* nor its blocks */
  ent->blocks = NULL;
  ent->nblocks = 0;
}

/* Has the walk entered the directory of inode ino before (a loop)? */
static bool
seen_dir (struct pc_treewalk *w, uint64_t ino)
{
  for (size_t i = 0; i < w->nseen; i++)
    if (w->seen[i] == ino)
      return true;
  if (pc_grow (&w->seen, &w->capseen, w->nseen + 1, sizeof *w->seen, 64) < 0)
    w->no_memory = true;
  else
    w->seen[w->nseen++] = ino;
  return false;
}

static char *
join (const char *prefix, const char *name)
{
  size_t pl = strlen (prefix);
  char *path = malloc (pl + strlen (name) + 2);

  if (path == NULL)
    return NULL;
  if (pl)
    sprintf (path, "%s/%s", prefix, name);
  else
    strcpy (path, name);
  return path;
}

static int
walk_dir (struct pc_treewalk *w, uint64_t dir, const char *prefix, int depth)
{
  struct pc_treewalk_name *names = NULL;
  size_t n = 0;
  int r;

  if (depth > PC_TREEWALK_MAX_DEPTH) {
    pc_treewalk_problem (w, prefix, "directories nested too deep", NULL);
    return 0;
  }
  r = w->s->list (w, dir, prefix, &names, &n);
  for (size_t i = 0; i < n && r == 0 && !w->no_memory; i++) {
    struct pc_entry ent;
    uint64_t child;
    char *path = join (prefix, names[i].name);
    int k;

    if (path == NULL) {
      r = -ENOMEM;
      break;
    }
    if (w->m->nentries >= PC_TREEWALK_MAX_ENTRIES) {
      pc_treewalk_problem (w, path, "too many entries: the walk stops here", NULL);
      free (path);
      break;
    }
    memset (&ent, 0, sizeof ent);
    ent.path = path;
    k = w->s->stat (w, dir, &names[i], &ent);
    if (k < 0 || k == PC_TREEWALK_SKIP) {
      pc_entry_clear (&ent);
      r = k < 0 ? k : 0;
      continue;
    }
    if (S_ISREG (ent.mode)) {
      ent.type = PC_ENTRY_FILE;
      w->s->hash (w, dir, &names[i], &ent);
    }
    else if (S_ISLNK (ent.mode)) {
      ent.type = PC_ENTRY_SYMLINK;
      w->s->link (w, dir, &names[i], &ent);
      if (ent.target == NULL && (ent.target = strdup ("")) == NULL)
        w->no_memory = true;
    }
    else {
      ent.type = S_ISDIR (ent.mode) ? PC_ENTRY_DIR : PC_ENTRY_OTHER;
      ent.size = 0;
    }
    if ((r = pc_mark_add_entry (w->m, &w->cap, &ent)) < 0) {
      pc_entry_clear (&ent);
      break;
    }
    if (ent.type != PC_ENTRY_DIR || k == PC_TREEWALK_LEAF)
      continue;
    if (seen_dir (w, ent.ino)) {
      pc_treewalk_problem (w, path, "directory reached twice (a loop)", NULL);
      continue;
    }
    if (w->s->enter (w, dir, &names[i], path, &child) != 0)
      continue;
    r = walk_dir (w, child, path, depth + 1);
    if (w->s->leave)
      w->s->leave (w, child);
  }
  for (size_t i = 0; i < n; i++)
    free (names[i].name);
  free (names);
  return r;
}

static int
entry_cmp (const void *a, const void *b)
{
  return strcmp (((const struct pc_entry *) a)->path, ((const struct pc_entry *) b)->path);
}

int
pc_treewalk (const struct pc_treewalk_source *s, void *src, uint64_t root, uint64_t root_ino,
             struct pc_mark *ret, char *problems, size_t plen)
{
  struct pc_treewalk w = { .s = s, .src = src, .problems = problems, .plen = plen };
  struct pc_mark m;
  int r;

  memset (&m, 0, sizeof m);
  if (plen)
    problems[0] = '\0';
  w.m = &m;
  seen_dir (&w, root_ino);
  r = walk_dir (&w, root, "", 0);
  free (w.seen);
  if (r == 0 && w.no_memory)
    r = -ENOMEM;
  if (r < 0) {
    pc_mark_free (&m);
    return r;
  }
  /* Sorted by bytes, as manifests are (a directory walk is not). */
  if (m.nentries > 1)
    qsort (m.entries, m.nentries, sizeof *m.entries, entry_cmp);
  m.flags = PC_MARK_F_MANIFEST;
  *ret = m;
  return 0;
}
