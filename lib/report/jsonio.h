/* jsonio.h: JSON strings that may not be UTF-8, times, and typed lookups.
 *
 * Reports hold paths and texts from the filesystems they judge, in any
 * bytes.  A string that is not UTF-8 is written in display form (finding.h:
 * a path's for the key "path", else a line's) and its exact bytes go in
 * hex under the same key with "_hex" appended; reading prefers the hex.
 */
#ifndef POWERCUT_JSONIO_H
#define POWERCUT_JSONIO_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

/* Seconds to the microsecond, written with six decimals. */
json_object *pc_json_seconds (uint64_t ns);

/* Seconds read back (v a number, or NULL), in nanoseconds: 0 if v is not
 * a positive number. */
uint64_t pc_json_ns (json_object *v);

/* s's bytes in hex: a malloc'd string, or NULL. */
char *pc_json_hex (const char *s);

/* Adds key: s to o, as above. */
void pc_json_add_bytes (json_object *o, const char *key, const char *s);

/* What pc_json_add_bytes stored under key: a malloc'd string, NULL if
 * there is none (or *bad set if it does not read: bad hex, a NUL inside,
 * no memory). */
char *pc_json_get_bytes (json_object *o, const char *key, bool *bad);

/* o's member key (o may be NULL), of any type, or NULL. */
json_object *pc_json_member (json_object *o, const char *key);

/* o's member key if it is a string, else NULL. */
const char *pc_json_str (json_object *o, const char *key);

/* o's member key as a number (0 if there is none). */
uint64_t pc_json_u64 (json_object *o, const char *key);

/* o's member key if it has type t, else NULL. */
json_object *pc_json_get (json_object *o, const char *key, json_type t);

#endif
