/* acl.c: POSIX ACLs reduced to their meaning (acl.h). */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "util/xxh.h"

#include "format/acl.h"
#include "util/util.h"

/* linux/posix_acl.h and linux/posix_acl_xattr.h */
#define ACL_VERSION 2
#define EXT4_ACL_VERSION 1       /* ext4's own (fs/ext4/acl.h) */
#define TAG_USER_OBJ 0x01
#define TAG_USER 0x02
#define TAG_GROUP_OBJ 0x04
#define TAG_GROUP 0x08
#define TAG_MASK 0x10
#define TAG_OTHER 0x20
#define PERM_ALL 07

enum pc_acl_kind
pc_acl_kind (const char *name)
{
  if (strcmp (name, "system.posix_acl_access") == 0)
    return PC_ACL_ACCESS;
  if (strcmp (name, "system.posix_acl_default") == 0)
    return PC_ACL_DEFAULT;
  return PC_ACL_NONE;
}

/* An entry: its tag, permissions and id. */
struct ent {
  uint16_t tag, perm;
  uint32_t id;
};

/* The entry of value (len bytes, in format version) at *off into *e, *off
 * moved past it: 1; 0 at the end; -EINVAL if it is cut short. */
static int
next (const uint8_t *p, size_t len, uint32_t version, size_t *off, struct ent *e)
{
  size_t size = 8;

  if (*off == len)
    return 0;
  if (len - *off < 4)
    return -EINVAL;
  e->tag = pc_get_le16 (p + *off);
  e->perm = pc_get_le16 (p + *off + 2);
  e->id = 0;
  /* ext4's entries without an id are short */
  if (version == EXT4_ACL_VERSION && e->tag != TAG_USER && e->tag != TAG_GROUP)
    size = 4;
  if (len - *off < size)
    return -EINVAL;
  if (size == 8)
    e->id = pc_get_le32 (p + *off + 4);
  *off += size;
  return 1;
}

int
pc_acl_meaning (enum pc_acl_kind kind, const void *value, size_t len, uint64_t *ret_hash)
{
  const uint8_t *p = value;
  uint32_t version, prev_id = 0;
  unsigned seen = 0, prev = 0;
  bool named = false;
  struct ent e;
  size_t off = 4;
  int r;
  XXH3_state_t st;

  if (kind == PC_ACL_NONE || len < 4)
    return -EINVAL;
  version = pc_get_le32 (p);
  if (version != ACL_VERSION && version != EXT4_ACL_VERSION)
    return -EINVAL;
  /* The order and rules the kernel keeps (posix_acl_valid): one owner,
   * owning group and other entry each, named entries in id order after
   * their object entry, a mask where there are named entries. */
  while ((r = next (p, len, version, &off, &e)) == 1) {
    unsigned tag = e.tag;
    if (e.perm & ~PERM_ALL)
      return -EINVAL;
    switch (tag) {
    case TAG_USER_OBJ: case TAG_GROUP_OBJ: case TAG_MASK: case TAG_OTHER:
      if (seen & tag)
        return -EINVAL;
      break;
    case TAG_USER: case TAG_GROUP:
      if (prev == tag && e.id <= prev_id)
        return -EINVAL;
      named = true;
      prev_id = e.id;
      break;
    default:
      return -EINVAL;
    }
    if (tag < prev)
      return -EINVAL;
    seen |= tag;
    prev = tag;
  }
  if (r < 0)
    return r;
  if (seen == 0)
    return 0;                   /* no entries: the attribute removed */
  if ((seen & (TAG_USER_OBJ | TAG_GROUP_OBJ | TAG_OTHER)) != (TAG_USER_OBJ | TAG_GROUP_OBJ | TAG_OTHER) ||
      (named && !(seen & TAG_MASK)))
    return -EINVAL;
  if (kind == PC_ACL_ACCESS && !(seen & TAG_MASK))
    return 0;                   /* only the mode's bits: folded into the mode */
  XXH3_64bits_reset (&st);
  XXH3_64bits_update (&st, &(uint8_t) { (uint8_t) kind }, 1);
  off = 4;
  while (next (p, len, version, &off, &e) == 1) {
    uint8_t rec[7];
    /* an access ACL's owner, mask and other entries are the mode's bits */
    if (kind == PC_ACL_ACCESS && (e.tag == TAG_USER_OBJ || e.tag == TAG_MASK || e.tag == TAG_OTHER))
      continue;
    rec[0] = (uint8_t) e.tag;
    rec[1] = (uint8_t) e.perm;
    rec[2] = e.tag == TAG_USER || e.tag == TAG_GROUP;
    pc_put_le32 (rec + 3, rec[2] ? e.id : 0);
    XXH3_64bits_update (&st, rec, sizeof rec);
  }
  *ret_hash = XXH3_64bits_digest (&st);
  return 1;
}
