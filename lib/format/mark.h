/* mark.h: marks and their manifests: the expected logical state of a tree.
 *
 * A mark names a moment of the workload.  It may carry a manifest (every
 * path under a directory with its type, mode, size, content hash and symlink
 * target), say the whole manifest was made durable (syncfs, PC_MARK_F_SYNC),
 * and list paths the workload made durable itself (fsync).  Paths are
 * relative to the manifest's root, without a leading '/', never containing
 * "." or ".." components or NUL bytes.
 *
 * Encoded payload (stored in a MARK record, little-endian):
 *   u32 magic "PCMK", u16 version (1), u16 flags
 *   u16 namelen, name
 *   u32 ndurable, then per path: u16 len, bytes
 *   u32 nentries, then per entry: u16 pathlen, path, u8 type, u8 zero
 *       (reserved: a decoder refuses anything else),
 *       u32 mode, u32 nlink, u64 ino, u64 size, u8[16] XXH128 of the content
 *       (regular files; zero otherwise), u8 headlen (<= 16) and that many
 *       first bytes of the content, u16 targetlen, target (symlinks)
 */
#ifndef POWERCUT_MARK_H
#define POWERCUT_MARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PC_MARK_MAGIC      0x4b4d4350u   /* "PCMK" */
#define PC_MARK_VERSION    1
#define PC_MARK_NAME_MAX   128
#define PC_MARK_PATH_MAX   4095

#define PC_MARK_F_SYNC      (1u << 0)    /* the manifest's tree was synced (syncfs) */
#define PC_MARK_F_MANIFEST  (1u << 1)    /* a manifest is present */

/* The marks powercut run places after a command (run.h), without a
 * manifest, a sync or durable paths, so that they change how no state is
 * judged: where the command ended, and where the time it let the
 * filesystem run on after it (its settle) ended and powercut's own sync
 * and unmount began.  Names starting with "powercut." are powercut's:
 * a check reads these two as such (result.h), and leaves them out of the
 * marks it tells an application's checker. */
#define PC_MARK_COMMAND_END "powercut.command-end"
#define PC_MARK_SETTLE_END  "powercut.settle-end"

#define PC_ENTRY_HEAD 16
#define PC_ENTRY_ZERO_BLOCK 4096  /* the blocks zero_blocks counts */

enum pc_entry_type {
  PC_ENTRY_FILE = 'f',
  PC_ENTRY_DIR = 'd',
  PC_ENTRY_SYMLINK = 'l',
  PC_ENTRY_OTHER = 'o',     /* device, fifo, socket */
};

struct pc_entry {
  char *path;
  uint8_t type;
  uint32_t mode;            /* permission bits and type bits, as st_mode */
  uint32_t nlink;
  uint64_t ino;
  uint64_t size;
  uint8_t hash[16];
  uint8_t headlen;          /* regular files: the first bytes, for reports */
  uint8_t head[PC_ENTRY_HEAD];
  uint64_t zero_blocks;     /* regular files hashed here (not decoded from a
                             * mark): how many PC_ENTRY_ZERO_BLOCK blocks of
                             * the content (the last one may be short) hold
                             * only zeros */
  uint64_t *blocks;         /* ... and the XXH3-64 of each of those blocks,
                             * over the bytes it has, as a traced program's
                             * events hash them (event.h); nblocks of them
                             * (none if the file was not read whole or
                             * memory ran out) */
  uint64_t nblocks;
  char *target;             /* symlink target, or NULL */
  struct pc_xattr *xattrs;  /* read from an image (not in marks): its extended
                             * attributes, by name; nxattrs of them */
  size_t nxattrs;
  bool xattrs_unknown;      /* ... they could not be read */
};

/* An extended attribute: its full name ("user.x") and the XXH3-64 of its
 * value, as a traced program's events hash it (event.h). */
struct pc_xattr {
  char *name;
  uint64_t hash;
};

/* Frees what an entry owns (not the entry itself). */
void pc_entry_clear (struct pc_entry *e);

struct pc_mark {
  char *name;
  uint16_t flags;
  size_t ndurable;
  char **durable;
  size_t nentries;
  struct pc_entry *entries; /* sorted by path (byte order) */
};

/* Checks a mark name: 1 to PC_MARK_NAME_MAX characters of [A-Za-z0-9._-]. */
bool pc_mark_name_valid (const char *name);

/* The name of a mark record's payload, read without decoding the rest: a
 * pointer into data, its length in *ret_len; NULL if the payload is too
 * short to hold the name its length field claims. */
const char *pc_mark_peek_name (const uint8_t *data, size_t len, size_t *ret_len);

/* Which of powercut run's marks after a command m is: PC_MARK_COMMAND_END
 * or PC_MARK_SETTLE_END by name, with no manifest, sync or durable path;
 * else PC_RUN_MARK_NONE (a workload's own mark). */
enum pc_run_mark { PC_RUN_MARK_NONE, PC_RUN_MARK_COMMAND_END, PC_RUN_MARK_SETTLE_END };
enum pc_run_mark pc_mark_run_kind (const struct pc_mark *m);

/* Checks a manifest path as defined above. */
bool pc_mark_path_valid (const char *path, size_t len);

/* Appends a copy of e to m's entries; *cap is the room m->entries has.
 * Returns 0 or -ENOMEM. */
int pc_mark_add_entry (struct pc_mark *m, size_t *cap, const struct pc_entry *e);

/* A regular file's content into an entry, as every manifest and every
 * crash state's tree takes it (so the two compare): XXH3-128 of all the
 * bytes, the first PC_ENTRY_HEAD of them, how many of its blocks are
 * all zeros (zero_blocks) and each block's hash (blocks).  begin returns NULL when out
 * of memory; end stores the hash and frees the state. */
void *pc_entry_hash_begin (struct pc_entry *e);
void pc_entry_hash_update (void *h, struct pc_entry *e, const void *buf, size_t n);
void pc_entry_hash_end (void *h, struct pc_entry *e);

/* Walks dir (not crossing into other filesystems) and fills m's entries,
 * hashing every regular file.  Returns 0 or -errno, with the reason in err
 * ("DIR/PATH: ERROR", naming the path at fault). */
int pc_mark_scan (struct pc_mark *m, const char *dir, struct pc_err *err);

/* Makes a path durable-relative: resolves path (absolute, or relative to
 * the current directory; it need not exist) against the manifest root dir
 * and returns the relative form in *ret_rel.  -EXDEV when outside dir. */
int pc_mark_relpath (const char *dir, const char *path, char **ret_rel);

/* Adds a durable path (copied). Returns 0 or -errno. */
int pc_mark_add_durable (struct pc_mark *m, const char *rel);

/* Encodes m; *ret_buf is malloc'd.  Returns 0 or -errno. */
int pc_mark_encode (const struct pc_mark *m, uint8_t **ret_buf, size_t *ret_len);

/* Decodes and validates a payload into *ret (freed with pc_mark_free).
 * Returns 0, -EBADMSG (malformed) or -ENOMEM; then err says what is wrong
 * and where, as "entry 3: a path with a NUL byte". */
int pc_mark_decode (const uint8_t *buf, size_t len, struct pc_mark *ret,
                    struct pc_err *err);

/* Looks up a path in a decoded mark's manifest (binary search), or NULL. */
const struct pc_entry *pc_mark_find (const struct pc_mark *m, const char *path);

void pc_mark_free (struct pc_mark *m);

#endif
