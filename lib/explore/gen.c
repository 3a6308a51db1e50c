/* gen.c: generated workloads: the kinds of operation, a model of the
 * files that says which sequences are possible, and each workload as
 * text and as shell commands. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/gen.h"
#include "util/util.h"

#define SETUP_SIZE 16384            /* each file's size after the setup, */
#define TAIL_SIZE 14000             /* but f2's: its last block partly used */
#define NAMES_MAX 24
#define PATHLEN 32                  /* a name of the model, with its NUL */

static const char *const files[PC_GEN_FILES] = {
  "f0", "f1", "d0/f0", "d0/f1", "d1/f0", "d1/f1", "f2", "new", "d0/new",
};
#define F2 6                        /* the file whose size is not whole blocks */
#define FIRST_NEW 7                 /* the files the setup does not make */

/* Length 1's targets: a file in the root and in a directory, made by the
 * setup (of whole blocks, and f2) or in the workload. */
static const uint8_t short_targets[] = { 0, 2, 6, 7, 8 };

/* A file's size after the setup. */
static uint64_t
setup_size (unsigned file)
{
  return file == F2 ? TAIL_SIZE : SETUP_SIZE;
}

enum op { O_CREAT, O_MKDIR, O_WRITE, O_DWRITE, O_FALLOC, O_LINK, O_UNLINK, O_RENAME,
          O_SETX, O_REMOVEX, O_TRUNC, O_MWRITE, O_SYMLINK, O_RMDIR, O_RENAME_DIR, O_WSIZE };
enum { F_PLAIN, F_KEEP, F_PUNCH, F_ZERO, F_COLLAPSE, F_INSERT, F_ZERO_KEEP };
enum { AT_INSIDE, AT_BEYOND, AT_STRADDLE };

/* The argument classes beyond ACE's (gen.h): a kind has one, or none. */
static const char *const classes[PC_GEN_NCLASSES] = {
  NULL, "size", "unaligned", "dsync", "append", "dirxattr", "large", "deep",
};
enum { C_NONE, C_SIZE, C_UNALIGNED, C_DSYNC, C_APPEND, C_DIRXATTR, C_LARGE, C_DEEP };

/* A write's flags (O_WRITE's b): O_SYNC (xfs_io -s), RWF_DSYNC (pwrite
 * -D, with pwritev2: O_DSYNC's promise for one write; this xfs_io opens
 * no file O_DSYNC) and O_APPEND (xfs_io -a): opened so, and pwrite's
 * options. */
static const char *const wflags[] = { "", "-s ", "", "-a " };
static const char *const wpflags[] = { "", "", "-V 1 -D ", "" };

/* O_WSIZE's lengths, appended at the end (a), and its largest: the
 * buffer of a write of several MiB. */
static const uint64_t wsizes[] = { 1, 4095, 4096, 4097, 12288, 4 << 20 };
#define WSIZE_LARGE 5

/* A kind of operation: what it does, with which arguments; one_target:
 * its target is fixed (the file slot is ignored, only 0 is generated);
 * its argument class, if any. */
struct kind {
  const char *name;
  uint8_t op, a, b;
  bool one_target;
  uint8_t cls;
};

static const struct kind kinds[] = {
  { "creat", O_CREAT, 0, 0, false, C_NONE },
  { "mkdir.root", O_MKDIR, 0, 0, true, C_NONE },
  { "mkdir.nested", O_MKDIR, 1, 0, true, C_NONE },
  { "write.append", O_WRITE, 0, 0, false, C_NONE },
  { "write.start", O_WRITE, 1, 0, false, C_NONE },
  { "write.extend", O_WRITE, 2, 0, false, C_NONE },
  { "swrite.append", O_WRITE, 0, 1, false, C_NONE },
  { "swrite.start", O_WRITE, 1, 1, false, C_NONE },
  { "dwrite.append", O_DWRITE, 0, 0, false, C_NONE },
  { "dwrite.overwrite", O_DWRITE, 1, 0, false, C_NONE },
  { "dswrite.append", O_DWRITE, 0, 1, false, C_NONE },
  { "dswrite.overwrite", O_DWRITE, 1, 1, false, C_NONE },
  { "falloc.plain.inside", O_FALLOC, F_PLAIN, AT_INSIDE, false, C_NONE },
  { "falloc.plain.beyond", O_FALLOC, F_PLAIN, AT_BEYOND, false, C_NONE },
  { "falloc.plain.straddle", O_FALLOC, F_PLAIN, AT_STRADDLE, false, C_NONE },
  { "falloc.keep.inside", O_FALLOC, F_KEEP, AT_INSIDE, false, C_NONE },
  { "falloc.keep.beyond", O_FALLOC, F_KEEP, AT_BEYOND, false, C_NONE },
  { "falloc.keep.straddle", O_FALLOC, F_KEEP, AT_STRADDLE, false, C_NONE },
  { "falloc.punch.inside", O_FALLOC, F_PUNCH, AT_INSIDE, false, C_NONE },
  { "falloc.punch.beyond", O_FALLOC, F_PUNCH, AT_BEYOND, false, C_NONE },
  { "falloc.punch.straddle", O_FALLOC, F_PUNCH, AT_STRADDLE, false, C_NONE },
  { "falloc.zero.inside", O_FALLOC, F_ZERO, AT_INSIDE, false, C_NONE },
  { "falloc.zero.beyond", O_FALLOC, F_ZERO, AT_BEYOND, false, C_NONE },
  { "falloc.zero.straddle", O_FALLOC, F_ZERO, AT_STRADDLE, false, C_NONE },
  { "falloc.zerokeep.inside", O_FALLOC, F_ZERO_KEEP, AT_INSIDE, false, C_NONE },
  { "falloc.zerokeep.beyond", O_FALLOC, F_ZERO_KEEP, AT_BEYOND, false, C_NONE },
  { "falloc.zerokeep.straddle", O_FALLOC, F_ZERO_KEEP, AT_STRADDLE, false, C_NONE },
  { "falloc.collapse", O_FALLOC, F_COLLAPSE, AT_INSIDE, false, C_NONE },
  { "falloc.insert", O_FALLOC, F_INSERT, AT_INSIDE, false, C_NONE },
  { "link.same", O_LINK, 0, 0, false, C_NONE },
  { "link.other", O_LINK, 1, 0, false, C_NONE },
  { "link.up", O_LINK, 3, 0, false, C_NONE },
  { "unlink", O_UNLINK, 0, 0, false, C_NONE },
  { "symlink", O_SYMLINK, 0, 0, false, C_NONE },
  { "rename.new", O_RENAME, 0, 0, false, C_NONE },
  { "rename.over", O_RENAME, 1, 0, false, C_NONE },
  { "rename.across", O_RENAME, 2, 0, false, C_NONE },
  { "rename.up", O_RENAME, 3, 0, false, C_NONE },
  { "rename.dir.across", O_RENAME_DIR, 0, 0, true, C_NONE },
  { "rename.dir.up", O_RENAME_DIR, 1, 0, true, C_NONE },
  { "rmdir", O_RMDIR, 0, 0, true, C_NONE },
  { "setxattr", O_SETX, 0, 0, false, C_NONE },
  { "removexattr", O_REMOVEX, 0, 0, false, C_NONE },
  { "truncate.up.aligned", O_TRUNC, 1, 1, false, C_NONE },
  { "truncate.up.unaligned", O_TRUNC, 1, 0, false, C_NONE },
  { "truncate.down.aligned", O_TRUNC, 0, 1, false, C_NONE },
  { "truncate.down.unaligned", O_TRUNC, 0, 0, false, C_NONE },
  { "mwrite", O_MWRITE, 0, 0, false, C_NONE },
  { "mwrite.extend", O_MWRITE, 1, 0, false, C_NONE },
  /* added after the first 49: a kind's index is its place in the order */
  { "write.append.511", O_WRITE, 3, 0, false, C_SIZE },
  { "dwrite.dsync.tail", O_DWRITE, 2, 2, false, C_DSYNC },
  { "truncate.zero", O_TRUNC, 2, 0, false, C_SIZE },
  { "write.append.1", O_WSIZE, 0, 0, false, C_SIZE },
  { "write.append.4095", O_WSIZE, 1, 0, false, C_SIZE },
  { "write.append.4096", O_WSIZE, 2, 0, false, C_SIZE },
  { "write.append.4097", O_WSIZE, 3, 0, false, C_SIZE },
  { "write.append.blocks", O_WSIZE, 4, 0, false, C_SIZE },
  { "write.straddle", O_WRITE, 4, 0, false, C_UNALIGNED },
  { "write.dsync.append", O_WRITE, 0, 2, false, C_DSYNC },
  { "write.oappend", O_WRITE, 0, 3, false, C_APPEND },
  { "setxattr.dir", O_SETX, 1, 0, true, C_DIRXATTR },
  { "removexattr.dir", O_REMOVEX, 1, 0, true, C_DIRXATTR },
  { "write.large", O_WSIZE, WSIZE_LARGE, 0, false, C_LARGE },
  { "creat.deep", O_CREAT, 1, 0, true, C_DEEP },
};
#define NKINDS PC_ARRAY_SIZE (kinds)

static const char *const persists[PC_GEN_NPERSIST] = {
  "none", "fsync", "fdatasync", "sync", "fsync.parent", "fsync.root", "fsync.other",
};

const char *
pc_gen_kind_name (unsigned kind)
{
  return kind < NKINDS ? kinds[kind].name : NULL;
}

unsigned
pc_gen_kind_class (unsigned kind)
{
  return kind < NKINDS ? kinds[kind].cls : 0;
}

const char *
pc_gen_class_name (unsigned cls)
{
  return cls < PC_GEN_NCLASSES ? classes[cls] : NULL;
}

/* ------------------------------------------------------------------ */
/* The model: what each name is as the operations go. */

struct name {
  char path[PATHLEN];
  uint8_t type;                     /* 0: absent, 'f', 'd' */
  uint64_t size;
  bool xattr;
};

struct model {
  struct name n[NAMES_MAX];
  unsigned nn;
};

static struct name *
lookup (struct model *m, const char *path)
{
  for (unsigned i = 0; i < m->nn; i++)
    if (strcmp (m->n[i].path, path) == 0)
      return &m->n[i];
  return NULL;
}

/* path's entry, made (absent) if there is none. */
static struct name *
entry (struct model *m, const char *path)
{
  struct name *e = lookup (m, path);

  if (e == NULL && m->nn < NAMES_MAX) {
    e = &m->n[m->nn++];
    memset (e, 0, sizeof *e);
    snprintf (e->path, sizeof e->path, "%s", path);
  }
  return e;
}

static bool
is (struct model *m, const char *path, uint8_t type)
{
  const struct name *e = lookup (m, path);

  return e && e->type == type;
}

/* Makes path a type (of size, with the attribute or not); false if the
 * model is full. */
static bool
make (struct model *m, const char *path, uint8_t type, uint64_t size, bool xattr)
{
  struct name *e = entry (m, path);

  if (e == NULL)
    return false;
  e->type = type;
  e->size = size;
  e->xattr = xattr;
  return true;
}

static void
model_init (struct model *m)
{
  m->nn = 0;
  make (m, "d0", 'd', 0, true);
  make (m, "d1", 'd', 0, false);
  make (m, "d0/n", 'd', 0, false);
  for (unsigned i = 0; i < FIRST_NEW; i++)
    make (m, files[i], 'f', setup_size (i), true);
}

/* path's directory ("" for the root) into dir (PATHLEN bytes). */
static void
dir_of (const char *path, char *dir)
{
  const char *s = strrchr (path, '/');
  size_t n = s ? (size_t) (s - path) : 0;

  memcpy (dir, path, n < PATHLEN ? n : PATHLEN - 1);
  dir[n < PATHLEN ? n : PATHLEN - 1] = '\0';
}

/* dir/leaf into out (PATHLEN bytes; the names are short). */
static void
join (const char *dir, const char *leaf, char *out)
{
  size_t dl = strnlen (dir, 8), ll = strnlen (leaf, 8);

  memcpy (out, dir, dl);
  if (dl)
    out[dl++] = '/';
  memcpy (out + dl, leaf, ll);
  out[dl + ll] = '\0';
}

/* The other directory, for a move across ("d1" from the root or d0). */
static const char *
other_dir (const char *dir)
{
  return strcmp (dir, "d1") == 0 ? "d0" : "d1";
}

/* The file the same directory holds beside path (f0 <-> f1). */
static void
sibling (const char *path, char *out)
{
  size_t l = strnlen (path, PATHLEN - 1);

  memcpy (out, path, l + 1);
  out[l - 1] = out[l - 1] == '0' ? '1' : '0';
}

#define CMD(...) (cmd ? snprintf (cmd, cmdlen, __VA_ARGS__) : 0)

/* Moves path and every name under it to to (a directory renamed). */
static bool
move_tree (struct model *m, const char *path, const char *to)
{
  size_t pl = strlen (path);

  for (unsigned i = 0; i < m->nn; i++) {
    struct name *e = &m->n[i];
    char moved[PATHLEN];
    if (e->type == 0 || strncmp (e->path, path, pl) != 0 || (e->path[pl] != '/' && e->path[pl]))
      continue;
    if ((size_t) snprintf (moved, sizeof moved, "%s%s", to, e->path + pl) >= sizeof moved)
      return false;
    struct name copy = *e;
    e->type = 0;
    struct name *d = entry (m, moved);
    if (d == NULL)
      return false;
    snprintf (copy.path, sizeof copy.path, "%s", moved);
    *d = copy;
  }
  return true;
}

/* Does a directory hold a name? */
static bool
has_children (struct model *m, const char *dir)
{
  size_t dl = strlen (dir);

  for (unsigned i = 0; i < m->nn; i++)
    if (m->n[i].type && strncmp (m->n[i].path, dir, dl) == 0 && m->n[i].path[dl] == '/')
      return true;
  return false;
}

/* The operation of step s (the idx-th, 1-based) on m: changes m, writes
 * its command into cmd (unless NULL) and what its persistence call syncs
 * into subject (PATHLEN bytes), and returns true; false if it cannot run
 * there.  A file of the workload's own (new, d0/new) that an operation
 * needs is made first, by the command in pre ("" if none). */
static bool
operate (struct model *m, const struct pc_gen_step *s, unsigned idx, char *cmd, size_t cmdlen,
         char *pre, char *subject)
{
  const struct kind *k;
  const char *path;
  char dir[PATHLEN], to[PATHLEN];
  struct name *e;
  unsigned pat = 0x60 + idx;        /* the bytes this step writes */
  uint64_t size, off, len;

  pre[0] = '\0';
  if (s->kind >= NKINDS || s->target >= PC_GEN_FILES || s->persist >= PC_GEN_NPERSIST)
    return false;
  k = &kinds[s->kind];
  if (k->one_target && s->target != 0)
    return false;
  path = files[s->target];
  dir_of (path, dir);
  snprintf (subject, PATHLEN, "%s", path);
  switch (k->op) {
  case O_CREAT:
    if (k->a)
      snprintf (to, PATHLEN, "d0/n/new");    /* a third level: in d0/n */
    else
      join (dir, "new", to);
    if (s->target >= F2 || (lookup (m, to) && lookup (m, to)->type) ||
        (k->a && !is (m, "d0/n", 'd')))
      return false;                 /* new and d0/new are made from f0, d0/f0 */
    if (!make (m, to, 'f', 0, false))
      return false;
    snprintf (subject, PATHLEN, "%s", to);
    CMD ("touch %s", to);
    return true;
  case O_MKDIR:
    snprintf (to, PATHLEN, "%s", k->a ? "d0/n/m" : "d2");
    if (is (m, to, 'd') || is (m, to, 'f') || (k->a && !is (m, "d0/n", 'd')))
      return false;
    if (!make (m, to, 'd', 0, false))
      return false;
    snprintf (subject, PATHLEN, "%s", to);
    CMD ("mkdir %s", to);
    return true;
  case O_RMDIR:
    if (!is (m, "d0/n", 'd') || has_children (m, "d0/n"))
      return false;
    {
      struct name *n = lookup (m, "d0/n");    /* there: is() found it */
      if (n)
        n->type = 0;
    }
    snprintf (subject, PATHLEN, "d0");
    CMD ("rmdir d0/n");
    return true;
  case O_RENAME_DIR:
    /* d0/n (with what it holds) to d1/n, or up to the root */
    snprintf (to, PATHLEN, "%s", k->a ? "n" : "d1/n");
    if (!is (m, "d0/n", 'd') || (lookup (m, to) && lookup (m, to)->type) ||
        !move_tree (m, "d0/n", to))
      return false;
    snprintf (subject, PATHLEN, "%s", to);
    CMD ("mv -T d0/n %s", to);
    return true;
  case O_SETX:
  case O_REMOVEX:
    if (!k->a)
      break;
    /* on a directory: d0's */
    e = lookup (m, "d0");
    if (!is (m, "d0", 'd') || (k->op == O_REMOVEX && !e->xattr))
      return false;
    e->xattr = k->op == O_SETX;
    snprintf (subject, PATHLEN, "d0");
    if (k->op == O_SETX)
      CMD ("setfattr -n user.pc -v v%u d0", idx);
    else
      CMD ("setfattr -x user.pc d0");
    return true;
  default:
    break;
  }
  e = lookup (m, path);
  if (s->target >= FIRST_NEW && (e == NULL || e->type == 0) && (!dir[0] || is (m, dir, 'd'))) {
    /* made in the workload, just before: "touch" unsynced */
    if (!make (m, path, 'f', 0, false))
      return false;
    e = lookup (m, path);
    snprintf (pre, PATHLEN + 8, "touch %s", path);
  }
  if (!is (m, path, 'f'))
    return false;                   /* every other kind needs its file */
  size = e->size;
  switch (k->op) {
  case O_WRITE:
    /* at the end, at the start, past the end, 511 bytes at the end, or
     * across the first block boundary */
    off = k->a == 0 || k->a == 3 ? size : k->a == 1 ? 100 : k->a == 4 ? 4000
          : (size > 1000 ? size - 1000 : 0);
    len = k->a == 0 ? 5000 : k->a == 1 ? 3000 : k->a == 3 ? 511 : k->a == 4 ? 200 : 8192;
    if ((k->a == 1 || k->a == 4) && size < off + len)
      return false;                 /* an overwrite inside the file */
    e->size = off + len > size ? off + len : size;
    /* O_APPEND: the offset given is 0, the kernel writes at the end */
    CMD ("xfs_io %s-c \"pwrite %s-S 0x%02x %" PRIu64 " %" PRIu64 "\" %s", wflags[k->b & 3],
         wpflags[k->b & 3], pat, k->b == 3 ? 0 : off, len, path);
    return true;
  case O_WSIZE:
    off = size;
    len = wsizes[k->a];
    e->size = off + len;
    CMD ("xfs_io -c \"pwrite%s -S 0x%02x %" PRIu64 " %" PRIu64 "\" %s",
         k->a == WSIZE_LARGE ? " -b 1048576" : "", pat, off, len, path);
    return true;
  case O_DWRITE:
    if (k->a == 2) {
      /* the block the file ends in, whole, with RWF_DSYNC: past the
       * end into a block allocated and written where the size is not
       * whole blocks (f2) */
      if (size == 0)
        return false;
      off = (size - 1) / 4096 * 4096;
      e->size = off + 4096 > size ? off + 4096 : size;
      CMD ("xfs_io -d -c \"pwrite -V 1 -D -S 0x%02x %" PRIu64 " 4096\" %s", pat, off, path);
      return true;
    }
    off = k->a == 0 ? size : 4096;
    if (size % 4096 || (k->a == 1 && size < 8192))
      return false;                 /* O_DIRECT: aligned */
    e->size = off + 4096 > size ? off + 4096 : size;
    CMD ("xfs_io -d %s-c \"pwrite -S 0x%02x %" PRIu64 " 4096\" %s", k->b ? "-s " : "", pat, off,
         path);
    return true;
  case O_FALLOC: {
    static const char *const cmds[] = { "falloc", "falloc -k", "fpunch", "fzero", "fcollapse",
                                        "finsert", "fzero -k" };
    off = k->b == AT_INSIDE ? 4096 : k->b == AT_BEYOND ? size + 4096 : size - 2048;
    len = k->b == AT_STRADDLE ? 8192 : 4096;
    if ((k->b == AT_INSIDE && size < 8192) || (k->b == AT_STRADDLE && size < 2048))
      return false;
    if (k->a == F_COLLAPSE && (size < 12288 || size % 4096))
      return false;                 /* ext4: whole blocks, not to the end */
    if (k->a == F_INSERT && (size < 8192 || size % 4096))
      return false;
    if (k->a == F_PLAIN || k->a == F_ZERO)
      e->size = off + len > size ? off + len : size;
    else if (k->a == F_COLLAPSE)
      e->size = size - len;
    else if (k->a == F_INSERT)
      e->size = size + len;
    CMD ("xfs_io -c \"%s %" PRIu64 " %" PRIu64 "\" %s", cmds[k->a], off, len, path);
    return true;
  }
  case O_LINK:
  case O_RENAME:
    if (k->op == O_RENAME && k->a == 1)
      sibling (path, to);
    else if (k->a == 3) {
      if (!dir[0])
        return false;               /* up: from a directory to the root */
      join ("", k->op == O_LINK ? "lu" : "u", to);
    }
    else
      join (k->a == 0 ? dir : other_dir (dir), k->op == O_LINK ? "l" : "r", to);
    if (k->op == O_RENAME && k->a == 1 ? !is (m, to, 'f') : lookup (m, to) && lookup (m, to)->type)
      return false;
    if (!make (m, to, 'f', e->size, e->xattr))
      return false;
    if (k->op == O_RENAME) {
      struct name *n = lookup (m, path);      /* there: the source of the rename */
      if (n)
        n->type = 0;
    }
    snprintf (subject, PATHLEN, "%s", to);
    CMD (k->op == O_LINK ? "ln %s %s" : "mv -T %s %s", path, to);
    return true;
  case O_UNLINK:
    e->type = 0;
    snprintf (subject, PATHLEN, "%s", dir[0] ? dir : ".");
    CMD ("rm %s", path);
    return true;
  case O_SYMLINK:
    join (dir, "s", to);
    if (lookup (m, to) && lookup (m, to)->type)
      return false;
    if (!make (m, to, 'l', 0, false))
      return false;
    /* an fsync opens what a link names: its directory is what changed */
    snprintf (subject, PATHLEN, "%s", dir[0] ? dir : ".");
    CMD ("ln -s %s %s", path + strlen (dir) + (dir[0] ? 1 : 0), to);
    return true;
  case O_SETX:
    e->xattr = true;
    CMD ("setfattr -n user.pc -v v%u %s", idx, path);
    return true;
  case O_REMOVEX:
    if (!e->xattr)
      return false;
    e->xattr = false;
    CMD ("setfattr -x user.pc %s", path);
    return true;
  case O_TRUNC:
    if (k->a == 2) {
      if (size == 0)
        return false;
      off = 0;                      /* to size 0 */
    }
    else if (k->a)
      off = k->b ? (size + 4095) / 4096 * 4096 + 8192 : size + 1000;
    else
      off = k->b ? 4096 : 1000;
    if (!k->a && off >= size)
      return false;
    e->size = off;
    CMD ("truncate -s %" PRIu64 " %s", off, path);
    return true;
  case O_MWRITE:
    if (k->a) {
      /* past the end: the file grown by a page, and that page written
       * through a mapping */
      off = (size + 4095) / 4096 * 4096;
      e->size = off + 4096;
      CMD ("xfs_io -c \"truncate %" PRIu64 "\" -c \"mmap -rw %" PRIu64 " 4096\" "
           "-c \"mwrite -S 0x%02x %" PRIu64 " 4096\" -c \"msync -s %" PRIu64 " 4096\" %s",
           e->size, off, pat, off, off, path);
      return true;
    }
    if (size < 4096)
      return false;
    CMD ("xfs_io -c \"mmap -rw 0 4096\" -c \"mwrite -S 0x%02x 0 4096\" -c \"msync -s 0 4096\" %s",
         pat, path);
    return true;
  default:
    return false;
  }
}

/* The persistence call of step s after its operation (subject: what it
 * changed) into cmd (unless NULL, "" for none); false if it cannot be
 * made there or would repeat another one. */
static bool
persist (struct model *m, const struct pc_gen_step *s, const char *subject, char *cmd,
         size_t cmdlen)
{
  static const char *const others[] = { "d1/f1", "f1", "d0/f1" };
  const char *path = files[s->target];
  char dir[PATHLEN];

  dir_of (subject, dir);
  if (cmd)
    cmd[0] = '\0';
  switch (s->persist) {
  case PC_GEN_NONE:
    return true;
  case PC_GEN_FSYNC:
    CMD ("sync %s", subject);
    return true;
  case PC_GEN_FDATASYNC:
    CMD ("sync -d %s", subject);
    return true;
  case PC_GEN_SYNC:
    CMD ("sync");
    return true;
  case PC_GEN_FSYNC_PARENT:
    if (strcmp (subject, ".") == 0)
      return false;                 /* the root has no parent */
    CMD ("sync %s", dir[0] ? dir : ".");
    return true;
  case PC_GEN_FSYNC_ROOT:
    if (strcmp (subject, ".") == 0 || !dir[0])
      return false;                 /* the root is what fsync or fsync.parent sync */
    CMD ("sync .");
    return true;
  case PC_GEN_FSYNC_OTHER:
    for (size_t i = 0; i < PC_ARRAY_SIZE (others); i++)
      if (is (m, others[i], 'f') && strcmp (others[i], subject) != 0 &&
          strcmp (others[i], path) != 0) {
        CMD ("sync %s", others[i]);
        return true;
      }
    return false;
  default:
    return false;
  }
}

/* Step s on m: its operation and persistence call; pre, cmd and pcmd
 * (PATHLEN + 8, cmdlen and cmdlen bytes, or NULL) get their commands. */
static bool
apply (struct model *m, const struct pc_gen_step *s, unsigned idx, char *pre, char *cmd,
       char *pcmd, size_t cmdlen)
{
  char subject[PATHLEN], pre_[PATHLEN + 8];

  return operate (m, s, idx, cmd, cmdlen, pre ? pre : pre_, subject) &&
         persist (m, s, subject, pcmd, cmdlen);
}

bool
pc_gen_valid (const struct pc_gen_workload *w)
{
  struct model m;

  if (w->nsteps < 1 || w->nsteps > PC_GEN_MAX_OPS || w->step[w->nsteps - 1].persist == PC_GEN_NONE)
    return false;
  model_init (&m);
  for (unsigned i = 0; i < w->nsteps; i++)
    if (!apply (&m, &w->step[i], i + 1, NULL, NULL, NULL, 0))
      return false;
  return true;
}

/* ------------------------------------------------------------------ */
/* Enumerating and sampling */

/* The choices of one step: kind, target, persistence; length 1 (short)
 * tries its few targets and no "none", the last step no "none". */
static uint64_t
choices (bool short_, bool last)
{
  return NKINDS * (short_ ? PC_ARRAY_SIZE (short_targets) : PC_GEN_FILES) *
         (last ? PC_GEN_NPERSIST - 1 : PC_GEN_NPERSIST);
}

static void
choice (uint64_t c, bool short_, bool last, struct pc_gen_step *s)
{
  unsigned np = last ? PC_GEN_NPERSIST - 1 : PC_GEN_NPERSIST;
  unsigned nt = short_ ? PC_ARRAY_SIZE (short_targets) : PC_GEN_FILES;

  s->persist = (uint8_t) (c % np + (last ? 1 : 0));
  c /= np;
  s->target = (uint8_t) (short_ ? short_targets[c % nt] : c % nt);
  c /= nt;
  s->kind = (uint8_t) c;
}

uint64_t
pc_gen_positions (unsigned n)
{
  bool short_ = n == 1;
  uint64_t total = 1;

  if (n < 1 || n > PC_GEN_MAX_OPS)
    return 0;
  for (unsigned i = 0; i < n; i++)
    total *= choices (short_, i == n - 1);
  return total;
}

/* The workload at pos, which is below pc_gen_positions (n); valid? */
static bool
at (unsigned n, uint64_t pos, struct pc_gen_workload *w)
{
  bool short_ = n == 1;

  /* the first step varies slowest */
  w->nsteps = n;
  for (unsigned i = n; i-- > 0;) {
    uint64_t c = choices (short_, i == n - 1);
    choice (pos % c, short_, i == n - 1, &w->step[i]);
    pos /= c;
  }
  return pc_gen_valid (w);
}

bool
pc_gen_at (unsigned n, uint64_t pos, struct pc_gen_workload *w)
{
  return pos < pc_gen_positions (n) && at (n, pos, w);
}

bool
pc_gen_next (unsigned n, uint64_t *pos, struct pc_gen_workload *w)
{
  uint64_t total = pc_gen_positions (n);

  while (*pos < total)
    if (at (n, (*pos)++, w))
      return true;
  return false;
}

void
pc_gen_count (unsigned n, struct pc_gen_counts *c)
{
  struct pc_gen_workload w;
  uint64_t pos = 0;

  memset (c, 0, sizeof *c);
  c->places = pc_gen_positions (n);
  while (pc_gen_next (n, &pos, &w)) {
    unsigned seen = 0;
    c->workloads++;
    for (unsigned i = 0; i < w.nsteps; i++)
      seen |= 1u << kinds[w.step[i].kind].cls;
    if (seen == 1u << C_NONE)
      c->plain++;
    for (unsigned k = 1; k < PC_GEN_NCLASSES; k++)
      c->in_class[k] += (seen >> k) & 1;
  }
}

static uint64_t
splitmix (uint64_t *x)
{
  uint64_t z = (*x += UINT64_C (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

bool
pc_gen_sample (unsigned n, uint64_t seed, uint64_t i, uint64_t count,
               bool (*want) (const struct pc_gen_workload *, void *), void *arg,
               uint64_t *pos, struct pc_gen_workload *w)
{
  uint64_t total = pc_gen_positions (n), lo, len, x = seed ^ (i * UINT64_C (0x9fb21c651e98df25));
  uint64_t from;

  if (count > total)
    count = total;
  if (i >= count)
    return false;
  lo = (uint64_t) ((unsigned __int128) i * total / count);
  len = (uint64_t) ((unsigned __int128) (i + 1) * total / count) - lo;
  from = splitmix (&x) % len;
  for (uint64_t j = 0; j < len; j++) {
    uint64_t p = lo + (from + j) % len;
    if (at (n, p, w) && (want == NULL || want (w, arg))) {
      *pos = p;
      return true;
    }
  }
  return false;
}

void
pc_gen_random (uint64_t seed, uint64_t i, struct pc_gen_workload *w)
{
  uint64_t x = seed ^ (i * UINT64_C (0xd1342543de82ef95));

  for (;;) {
    w->nsteps = 1 + (unsigned) (splitmix (&x) % PC_GEN_MAX_OPS);
    for (unsigned k = 0; k < w->nsteps; k++) {
      bool last = k == w->nsteps - 1;
      choice (splitmix (&x) % choices (false, last), false, last, &w->step[k]);
    }
    if (pc_gen_valid (w))
      return;
  }
}

/* ------------------------------------------------------------------ */
/* As text, and as shell commands */

void
pc_gen_format (const struct pc_gen_workload *w, char *buf)
{
  size_t pos = 0;

  buf[0] = '\0';
  for (unsigned i = 0; i < w->nsteps && i < PC_GEN_MAX_OPS; i++) {
    const struct pc_gen_step *s = &w->step[i];
    int n = snprintf (buf + pos, PC_GEN_TEXT_MAX - pos, "%s%s %s %s", i ? "; " : "",
                      s->kind < NKINDS ? kinds[s->kind].name : "?",
                      s->target < PC_GEN_FILES ? files[s->target] : "?",
                      s->persist < PC_GEN_NPERSIST ? persists[s->persist] : "?");
    if (n < 0 || (size_t) n >= PC_GEN_TEXT_MAX - pos)
      break;
    pos += (size_t) n;
  }
}

static int
find (const char *const *names, size_t n, const char *s, size_t len)
{
  for (size_t i = 0; i < n; i++)
    if (strlen (names[i]) == len && strncmp (names[i], s, len) == 0)
      return (int) i;
  return -1;
}

int
pc_gen_parse (const char *s, struct pc_gen_workload *w, struct pc_err *err)
{
  const char *p = s;

  memset (w, 0, sizeof *w);
  while (*p) {
    const char *word[3];
    size_t len[3];
    int k = -1, t, q;
    for (unsigned i = 0; i < 3; i++) {
      while (*p == ' ')
        p++;
      word[i] = p;
      len[i] = strcspn (p, " ;");
      p += len[i];
    }
    while (*p == ' ')
      p++;
    if (*p == ';')
      p++;
    for (size_t i = 0; i < NKINDS; i++)
      if (strlen (kinds[i].name) == len[0] && strncmp (kinds[i].name, word[0], len[0]) == 0)
        k = (int) i;
    t = find (files, PC_GEN_FILES, word[1], len[1]);
    q = find (persists, PC_GEN_NPERSIST, word[2], len[2]);
    if (k < 0 || t < 0 || q < 0 || w->nsteps == PC_GEN_MAX_OPS)
      return pc_err_set (err, EINVAL, "\"%s\": not OPERATION FILE PERSISTENCE[; ...] (at \"%.*s\")",
                         s, (int) len[0], word[0]);
    w->step[w->nsteps++] = (struct pc_gen_step) { (uint8_t) k, (uint8_t) t, (uint8_t) q };
  }
  if (!pc_gen_valid (w))
    return pc_err_set (err, EINVAL, "\"%s\": not a workload that can run (an operation needs "
                       "what an earlier one removed, or the last call is none)", s);
  return 0;
}

/* One command line, with the prefix and its number if any. */
static void
line (FILE *f, const char *prefix, unsigned n, const char *cmd)
{
  if (prefix)
    fprintf (f, "%s %u %s\n", prefix, n, cmd);
  else
    fprintf (f, "%s\n", cmd);
}

void
pc_gen_setup_script (FILE *f, const char *prefix)
{
  char cmd[256];

  line (f, prefix, 0, "mkdir d0 d1 d0/n");
  line (f, prefix, 0, "setfattr -n user.pc -v setup d0");
  for (unsigned i = 0; i < FIRST_NEW; i++) {
    snprintf (cmd, sizeof cmd, "xfs_io -f -c \"pwrite -S 0x5a 0 %" PRIu64 "\" %s >/dev/null",
              setup_size (i), files[i]);
    line (f, prefix, 0, cmd);
    snprintf (cmd, sizeof cmd, "setfattr -n user.pc -v setup %s", files[i]);
    line (f, prefix, 0, cmd);
  }
}

void
pc_gen_prime_script (FILE *f)
{
  fprintf (f, "touch -c . && sync\n");
}

void
pc_gen_ops_script (const struct pc_gen_workload *w, FILE *f, const char *prefix)
{
  struct model m;
  char cmd[256], pcmd[256], pre[PATHLEN + 8];

  model_init (&m);
  for (unsigned i = 0; i < w->nsteps; i++) {
    if (!apply (&m, &w->step[i], i + 1, pre, cmd, pcmd, sizeof cmd))
      break;
    if (pre[0])
      line (f, prefix, i + 1, pre);
    line (f, prefix, i + 1, cmd);
    if (pcmd[0])
      line (f, prefix, i + 1, pcmd);
  }
}

void
pc_gen_script (const struct pc_gen_workload *w, FILE *f, const char *prefix, const char *start)
{
  pc_gen_setup_script (f, prefix);
  fprintf (f, "sync\n");
  if (start)
    fprintf (f, "%s\n", start);
  pc_gen_ops_script (w, f, prefix);
}

unsigned
pc_gen_calls (const struct pc_gen_workload *w)
{
  unsigned n = w->nsteps;

  for (unsigned i = 0; i < w->nsteps; i++)
    n += w->step[i].persist != PC_GEN_NONE;
  return n;
}
