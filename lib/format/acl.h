/* acl.h: POSIX access control lists as the extended attributes
 * system.posix_acl_access and system.posix_acl_default, judged by what
 * they mean rather than by their bytes.
 *
 * The kernel does not keep an ACL as the program gave it.  An access ACL
 * that only repeats the mode's bits (owner, group and other entries, no
 * mask, no named user or group) is folded into the mode and no attribute
 * is stored (setting one removes one stored before); an ACL of no entries
 * removes the attribute; ext4 stores entries in a format of its own
 * (below); chmod rewrites the entries an access ACL shares with the mode.
 * So a value is reduced to its meaning: the entries the mode does not
 * carry (an access ACL's named users and groups, and its owning group's
 * entry when a mask stands in the mode for it; every entry of a default
 * ACL, which no mode mirrors), with tag, permissions and, for named
 * entries, id.  Two values with the same meaning leave the same
 * permissions once the mode is set; the mode itself is not judged.
 *
 * A value is read in either of its formats, little-endian: as programs
 * set it (linux/posix_acl_xattr.h): u32 version 2, then entries of u16
 * tag, u16 permissions, u32 id; or as ext4 stores it, which libext2fs
 * gives when it lists a file's attributes (fs/ext4/acl.h): u32 version
 * 1, then the same entries, but those without an id (owner, owning group,
 * mask, other) without its 4 bytes.
 */
#ifndef POWERCUT_ACL_H
#define POWERCUT_ACL_H

#include <stddef.h>
#include <stdint.h>

enum pc_acl_kind {
  PC_ACL_NONE = 0,              /* not an ACL's name */
  PC_ACL_ACCESS,                /* system.posix_acl_access */
  PC_ACL_DEFAULT,               /* system.posix_acl_default */
};

/* Which ACL an extended attribute's name is, if any. */
enum pc_acl_kind pc_acl_kind (const char *name);

/* The meaning of an ACL value of kind (len bytes at value).  Returns 1 and
 * a hash of its meaning in *ret_hash when the kernel stores it as an
 * attribute; 0 when it stores none (no entries; an access ACL equivalent
 * to the mode), *ret_hash untouched; -EINVAL when value is not an ACL
 * the kernel takes (wrong version or size, entries out of order, an
 * entry missing or twice). */
int pc_acl_meaning (enum pc_acl_kind kind, const void *value, size_t len, uint64_t *ret_hash);

#endif
