/* describe.c: what a path holds, for people, and a finding made of it
 * (oracleint.h). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/mark.h"
#include "oracle/oracleint.h"
#include "util/xxh.h"

/* Does a file entry (found in a state, or in a manifest) hold only zeros?
 * A state's tree counts its zero blocks; a manifest keeps the first bytes
 * and the hash, so its hash is compared with that of as many zeros. */
bool
pc_oracle_all_zeros (const struct pc_entry *e, bool found)
{
  static const uint8_t zeros[1 << 16];
  uint8_t h[16];
  XXH3_state_t st;

  if (e->type != PC_ENTRY_FILE || e->size == 0)
    return false;
  if (found)
    return e->zero_blocks == (e->size + PC_ENTRY_ZERO_BLOCK - 1) / PC_ENTRY_ZERO_BLOCK;
  if (memcmp (e->head, zeros, e->headlen) != 0)
    return false;
  XXH3_128bits_reset (&st);
  for (uint64_t left = e->size; left > 0;) {
    size_t k = left < sizeof zeros ? (size_t) left : sizeof zeros;
    XXH3_128bits_update (&st, zeros, k);
    left -= k;
  }
  XXH128_canonicalFromHash ((XXH128_canonical_t *) h, XXH3_128bits_digest (&st));
  return memcmp (h, e->hash, 16) == 0;
}

/* Writes what e is (NULL: absent) for people; a file found in a crash
 * state also says how many of its blocks are all zeros. */
void
pc_oracle_describe (FILE *f, const struct pc_entry *e, bool found)
{
  uint64_t nblocks = e ? (e->size + PC_ENTRY_ZERO_BLOCK - 1) / PC_ENTRY_ZERO_BLOCK : 0;

  if (e == NULL)
    fputs ("absent", f);
  else if (e->type == PC_ENTRY_FILE && e->size == 0)
    fputs ("empty file", f);
  else if (found && pc_oracle_all_zeros (e, true))
    fprintf (f, "file %" PRIu64 " B all zeros (%" PRIu64 " of %" PRIu64 " blocks)",
             e->size, nblocks, nblocks);
  else if (e->type == PC_ENTRY_FILE) {
    /* Size, first bytes (escaped) and hash. */
    fprintf (f, "file %" PRIu64 " B \"", e->size);
    for (unsigned i = 0; i < e->headlen; i++) {
      uint8_t ch = e->head[i];
      if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
        fputc (ch, f);
      else
        fprintf (f, "\\x%02x", ch);
    }
    fprintf (f, "\"%s xxh128:", e->size > e->headlen ? "..." : "");
    for (int i = 0; i < 8; i++)
      fprintf (f, "%02x", e->hash[i]);
  }
  else if (e->type == PC_ENTRY_DIR)
    fputs ("directory", f);
  else if (e->type == PC_ENTRY_SYMLINK)
    fprintf (f, "symlink to %s", e->target ? e->target : "");
  else
    fputs ("special file", f);
  if (e && (e->mode & 07777) != 0 && e->type != PC_ENTRY_SYMLINK)
    fprintf (f, " mode %04o", e->mode & 07777);
  if (found && e && e->type == PC_ENTRY_FILE && e->zero_blocks > 0 && e->zero_blocks < nblocks)
    fprintf (f, ", %" PRIu64 " of %" PRIu64 " blocks all zeros", e->zero_blocks, nblocks);
}

/* Appends one finding: found is f described, allowed what describe_allowed
 * wrote (or "-").  Returns 0 or -ENOMEM. */
int
pc_oracle_finding (struct pc_findings *out, int kind, const char *path,
                   const struct pc_entry *f, const char *allowed)
{
  char *found = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&found, &len);
  int r;

  if (m == NULL)
    return -ENOMEM;
  pc_oracle_describe (m, f, true);
  if (fclose (m) == EOF) {
    free (found);
    return -ENOMEM;
  }
  r = pc_findings_add (out, kind, path, found, allowed);
  free (found);
  return r;
}
