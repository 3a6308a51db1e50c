/* jsonio.c: JSON strings that may not be UTF-8, times, and typed lookups. */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/finding.h"
#include "report/jsonio.h"

json_object *
pc_json_seconds (uint64_t ns)
{
  char t[32];

  snprintf (t, sizeof t, "%.6f", (double) ns / 1e9);
  return json_object_new_double_s ((double) ns / 1e9, t);
}

uint64_t
pc_json_ns (json_object *v)
{
  double d = v && (json_object_is_type (v, json_type_double) ||
                   json_object_is_type (v, json_type_int)) ? json_object_get_double (v) : 0;

  return d > 0 ? (uint64_t) (d * 1e9 + 0.5) : 0;
}

char *
pc_json_hex (const char *s)
{
  size_t n = strlen (s);
  char *hex = malloc (2 * n + 1);

  for (size_t i = 0; hex && i < n; i++)
    sprintf (hex + 2 * i, "%02x", (unsigned char) s[i]);
  if (hex)
    hex[2 * n] = '\0';
  return hex;
}

void
pc_json_add_bytes (json_object *o, const char *key, const char *s)
{
  size_t n = strlen (s);

  if (pc_utf8_valid (s, n))
    json_object_object_add (o, key, json_object_new_string_len (s, (int) n));
  else {
    char *shown = strcmp (key, "path") == 0 ? pc_display_name (s) : pc_display_line (s);
    char *hex = pc_json_hex (s), hkey[64];
    snprintf (hkey, sizeof hkey, "%s_hex", key);
    json_object_object_add (o, key, json_object_new_string (shown ? shown : "?"));
    json_object_object_add (o, hkey, hex ? json_object_new_string (hex) : NULL);
    free (shown);
    free (hex);
  }
}

char *
pc_json_get_bytes (json_object *o, const char *key, bool *bad)
{
  json_object *v;
  char hkey[64];
  const char *h;
  size_t n;
  char *s;

  snprintf (hkey, sizeof hkey, "%s_hex", key);
  if (json_object_object_get_ex (o, hkey, &v) && json_object_is_type (v, json_type_string)) {
    h = json_object_get_string (v);
    n = strlen (h);
    if (n % 2 || (s = malloc (n / 2 + 1)) == NULL) {
      *bad = true;
      return NULL;
    }
    for (size_t i = 0; i < n / 2; i++) {
      unsigned x;
      if (!isxdigit ((unsigned char) h[2 * i]) || !isxdigit ((unsigned char) h[2 * i + 1]) ||
          sscanf (h + 2 * i, "%2x", &x) != 1 || x == 0) {
        free (s);
        *bad = true;
        return NULL;
      }
      s[i] = (char) x;
    }
    s[n / 2] = '\0';
    return s;
  }
  if (!json_object_object_get_ex (o, key, &v) || !json_object_is_type (v, json_type_string))
    return NULL;
  if (strlen (json_object_get_string (v)) != (size_t) json_object_get_string_len (v)) {
    *bad = true;                /* a NUL inside */
    return NULL;
  }
  s = strdup (json_object_get_string (v));
  if (s == NULL)
    *bad = true;
  return s;
}

json_object *
pc_json_get (json_object *o, const char *key, json_type t)
{
  json_object *v;

  if (!json_object_object_get_ex (o, key, &v) || !json_object_is_type (v, t))
    return NULL;
  return v;
}

json_object *
pc_json_member (json_object *o, const char *key)
{
  json_object *v;

  return o && json_object_object_get_ex (o, key, &v) ? v : NULL;
}

const char *
pc_json_str (json_object *o, const char *key)
{
  json_object *v = pc_json_member (o, key);

  return v && json_object_is_type (v, json_type_string) ? json_object_get_string (v) : NULL;
}

uint64_t
pc_json_u64 (json_object *o, const char *key)
{
  json_object *v = pc_json_member (o, key);

  return v ? (uint64_t) json_object_get_int64 (v) : 0;
}
