/* finding.c: the oracle's findings as records: lists, packing, display. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/finding.h"
#include "util/util.h"

static const char *const note_names[] = { "unmentioned", "not-judged", "older-version" };

const char *
pc_finding_name (int kind)
{
  if (kind >= PC_F_UNMENTIONED && kind < PC_F_COUNT)
    return note_names[kind - PC_F_UNMENTIONED];
  if (pc_finding_verdict (kind) != PC_V_OK)
    return pc_verdict_name (kind);
  return "unknown";
}

int
pc_finding_parse (const char *name)
{
  int v;

  for (int k = PC_F_UNMENTIONED; k < PC_F_COUNT; k++)
    if (strcmp (name, note_names[k - PC_F_UNMENTIONED]) == 0)
      return k;
  v = pc_verdict_parse (name);
  return v >= 0 && pc_finding_verdict (v) != PC_V_OK ? v : -1;
}

enum pc_fault
pc_cause_fault (const struct pc_cause *c)
{
  if (c->known && c->recovery)
    return PC_FAULT_RECOVERY;
  if (!c->known || c->promise)
    return PC_FAULT_FILESYSTEM;
  return c->program ? PC_FAULT_PROGRAM : PC_FAULT_NONE;
}

enum pc_fault
pc_finding_fault (const struct pc_finding *f)
{
  if (f->kind == PC_F_OLDER)
    return !f->cause.known ? PC_FAULT_NONE
           : f->cause.promise ? PC_FAULT_FILESYSTEM
           : f->cause.program ? PC_FAULT_PROGRAM : PC_FAULT_NONE;
  if (pc_finding_verdict (f->kind) == PC_V_OK)
    return PC_FAULT_NONE;
  return pc_cause_fault (&f->cause);
}

const char *
pc_cause_class (int kind, const struct pc_cause *c)
{
  if (kind == PC_F_OLDER)
    return "what the application lost";
  if (kind == PC_V_ACK_LOST && !c->promise)
    return "acknowledged, not durable";
  return c->recovery ? "two recoveries that disagree"
         : c->promise ? "a broken promise"
         : c->program ? "a durable version the program gave up" : "exposure";
}

enum pc_verdict
pc_finding_verdict (int kind)
{
  const struct pc_verdict_info *v = pc_verdict_info (kind);

  /* a path's verdict, or the check's finding of the whole state that two
   * recoveries disagree (not the oracle's) */
  return v && (v->path || kind == PC_V_RECOVERY_DIFFERS) ? (enum pc_verdict) kind : PC_V_OK;
}

int
pc_findings_add (struct pc_findings *l, int kind, const char *path,
                 const char *found, const char *allowed)
{
  struct pc_finding *f;

  if (pc_grow (&l->v, &l->cap, l->n + 1, sizeof *l->v, 16) < 0)
    return -ENOMEM;
  f = &l->v[l->n];
  memset (f, 0, sizeof *f);
  f->kind = kind;
  f->path = strdup (path);
  f->found = strdup (found);
  f->allowed = strdup (allowed);
  if (f->path == NULL || f->found == NULL || f->allowed == NULL) {
    free (f->path);
    free (f->found);
    free (f->allowed);
    return -ENOMEM;
  }
  l->n++;
  return 0;
}

void
pc_cause_clear (struct pc_cause *c)
{
  free (c->rule);
  free (c->call);
  free (c->durable_by);
  free (c->fix);
  free (c->ack);
  memset (c, 0, sizeof *c);
}

void
pc_findings_set_cause (struct pc_findings *l, struct pc_cause *c)
{
  if (l->n == 0) {
    pc_cause_clear (c);
    return;
  }
  pc_cause_clear (&l->v[l->n - 1].cause);
  l->v[l->n - 1].cause = *c;
  memset (c, 0, sizeof *c);
}

void
pc_findings_clear (struct pc_findings *l)
{
  for (size_t i = 0; i < l->n; i++) {
    free (l->v[i].path);
    free (l->v[i].found);
    free (l->v[i].allowed);
    pc_cause_clear (&l->v[i].cause);
  }
  free (l->v);
  memset (l, 0, sizeof *l);
}

/* The packed form: u64 count, then per finding a u8 kind, three strings,
 * each a u32 length and its bytes (little-endian), and a u8 of cause
 * flags (1 known, 2 promise, 4 program, 8 recovery); with a cause, four more strings (rule, call,
 * durable_by, fix; empty for none), u32 pid, u64 time, i64 durable. */
static int
put (uint8_t **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
  if (pc_grow (buf, cap, *len + n, 1, 4096) < 0)
    return -ENOMEM;
  memcpy (*buf + *len, p, n);
  *len += n;
  return 0;
}

static int
put_str (uint8_t **buf, size_t *len, size_t *cap, const char *s)
{
  uint8_t n[4];
  size_t sl = strlen (s);

  if (sl > UINT32_MAX)
    return -ENOMEM;
  pc_put_le32 (n, (uint32_t) sl);
  return put (buf, len, cap, n, 4) < 0 ? -ENOMEM : put (buf, len, cap, s, sl);
}

static int
put_cause (uint8_t **buf, size_t *len, size_t *cap, const struct pc_cause *c)
{
  uint8_t fl = (uint8_t) ((c->known ? 1 : 0) | (c->promise ? 2 : 0) | (c->program ? 4 : 0) |
                          (c->recovery ? 8 : 0) | (c->known && c->ack ? 16 : 0)), n[20];
  int r = put (buf, len, cap, &fl, 1);

  if (r < 0 || !c->known)
    return r;
  if (put_str (buf, len, cap, c->rule ? c->rule : "") < 0 ||
      put_str (buf, len, cap, c->call ? c->call : "") < 0 ||
      put_str (buf, len, cap, c->durable_by ? c->durable_by : "") < 0 ||
      put_str (buf, len, cap, c->fix ? c->fix : "") < 0)
    return -ENOMEM;
  pc_put_le32 (n, (uint32_t) c->pid);
  pc_put_le64 (n + 4, c->time_ns);
  pc_put_le64 (n + 12, (uint64_t) c->durable_ns);
  if (put (buf, len, cap, n, 20) < 0)
    return -ENOMEM;
  if (c->ack == NULL)
    return 0;
  pc_put_le64 (n, c->ack_ns);
  return put_str (buf, len, cap, c->ack) < 0 ? -ENOMEM : put (buf, len, cap, n, 8);
}

int
pc_findings_pack (const struct pc_findings *l, uint8_t **buf, size_t *len, size_t *cap)
{
  uint8_t n[8];
  int r;

  pc_put_le64 (n, l->n);
  r = put (buf, len, cap, n, 8);
  for (size_t i = 0; i < l->n && r == 0; i++) {
    uint8_t k = (uint8_t) l->v[i].kind;
    r = put (buf, len, cap, &k, 1);
    if (r == 0)
      r = put_str (buf, len, cap, l->v[i].path);
    if (r == 0)
      r = put_str (buf, len, cap, l->v[i].found);
    if (r == 0)
      r = put_str (buf, len, cap, l->v[i].allowed);
    if (r == 0)
      r = put_cause (buf, len, cap, &l->v[i].cause);
  }
  return r;
}

/* One packed string into a malloc'd one. */
static int
get_str (const uint8_t *p, size_t len, size_t *at, char **ret)
{
  uint32_t n;

  if (len - *at < 4)
    return -EBADMSG;
  n = pc_get_le32 (p + *at);
  *at += 4;
  if (len - *at < n || memchr (p + *at, '\0', n) != NULL)
    return -EBADMSG;
  *ret = malloc ((size_t) n + 1);
  if (*ret == NULL)
    return -ENOMEM;
  memcpy (*ret, p + *at, n);
  (*ret)[n] = '\0';
  *at += n;
  return 0;
}

/* A packed string that may be empty: NULL for "". */
static int
get_opt (const uint8_t *p, size_t len, size_t *at, char **ret)
{
  int r = get_str (p, len, at, ret);

  if (r == 0 && **ret == '\0') {
    free (*ret);
    *ret = NULL;
  }
  return r;
}

static int
get_cause (const uint8_t *p, size_t len, size_t *at, struct pc_cause *c)
{
  uint8_t fl;
  int r;

  if (*at >= len)
    return -EBADMSG;
  fl = p[(*at)++];
  if (fl & ~31u)
    return -EBADMSG;
  c->known = fl & 1;
  c->promise = (fl & 2) != 0;
  c->program = (fl & 4) != 0;
  c->recovery = (fl & 8) != 0;
  if (!c->known)
    return c->promise || c->program || c->recovery ? -EBADMSG : 0;
  if ((r = get_opt (p, len, at, &c->rule)) < 0 || (r = get_opt (p, len, at, &c->call)) < 0 ||
      (r = get_opt (p, len, at, &c->durable_by)) < 0 || (r = get_opt (p, len, at, &c->fix)) < 0)
    return r;
  if (len - *at < 20)
    return -EBADMSG;
  c->pid = (int32_t) pc_get_le32 (p + *at);
  c->time_ns = pc_get_le64 (p + *at + 4);
  c->durable_ns = (int64_t) pc_get_le64 (p + *at + 12);
  *at += 20;
  if ((fl & 16) == 0)
    return 0;
  if ((r = get_str (p, len, at, &c->ack)) < 0)
    return r;
  if (len - *at < 8)
    return -EBADMSG;
  c->ack_ns = pc_get_le64 (p + *at);
  *at += 8;
  return 0;
}

static bool
kind_valid (int kind)
{
  return pc_finding_verdict (kind) != PC_V_OK || (kind >= PC_F_UNMENTIONED && kind < PC_F_COUNT);
}

int
pc_findings_unpack (const uint8_t *p, size_t len, size_t *used, struct pc_findings *l)
{
  size_t at = 8;
  uint64_t n;
  int r = 0;

  if (len < 8)
    return -EBADMSG;
  n = pc_get_le64 (p);
  if (n > (len - 8) / 13)       /* each takes at least 13 bytes */
    return -EBADMSG;
  if (pc_grow (&l->v, &l->cap, (size_t) n, sizeof *l->v, 1) < 0)
    return -ENOMEM;
  for (uint64_t i = 0; i < n && r == 0; i++) {
    struct pc_finding *f = &l->v[l->n];
    memset (f, 0, sizeof *f);
    if (at >= len)
      r = -EBADMSG;
    else if (!kind_valid (f->kind = p[at++]))
      r = -EBADMSG;
    if (r == 0)
      r = get_str (p, len, &at, &f->path);
    if (r == 0)
      r = get_str (p, len, &at, &f->found);
    if (r == 0)
      r = get_str (p, len, &at, &f->allowed);
    if (r == 0)
      r = get_cause (p, len, &at, &f->cause);
    if (r == 0)
      l->n++;
    else {
      free (f->path);
      free (f->found);
      free (f->allowed);
      pc_cause_clear (&f->cause);
    }
  }
  if (r < 0) {
    pc_findings_clear (l);
    return r;
  }
  *used = at;
  return 0;
}

/* The length of the UTF-8 sequence at s (n bytes left), or 0 if none is. */
static size_t
utf8_seq (const unsigned char *s, size_t n)
{
  unsigned c = s[0];
  size_t len;
  uint32_t cp;

  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf)
    len = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    len = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    len = 4, cp = c & 0x07;
  else
    return 0;
  if (n < len)
    return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  /* Overlong forms, surrogates and beyond U+10FFFF are not UTF-8. */
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

bool
pc_utf8_valid (const char *s, size_t len)
{
  const unsigned char *u = (const unsigned char *) s;

  for (size_t i = 0; i < len;) {
    size_t k = utf8_seq (u + i, len - i);
    if (k == 0)
      return false;
    i += k;
  }
  return true;
}

/* Shows s with escapes; quoted: the name form (pc_display_name); nl:
 * newlines kept as they are. */
static char *
display (const char *s, bool quoted, bool nl)
{
  const unsigned char *u = (const unsigned char *) s;
  size_t n = strlen (s), o = 0;
  char *out = malloc (4 * n + 3);

  if (out == NULL)
    return NULL;
  if (quoted)
    out[o++] = '"';
  for (size_t i = 0; i < n;) {
    size_t k = utf8_seq (u + i, n - i);
    unsigned c = u[i];
    if (k > 1) {
      memcpy (out + o, u + i, k);
      o += k;
      i += k;
      continue;
    }
    i++;
    if (quoted && (c == '"' || c == '\\')) {
      out[o++] = '\\';
      out[o++] = (char) c;
    }
    else if (quoted && c == '\t')
      o += (size_t) sprintf (out + o, "\\t");
    else if (c == '\n' && quoted)
      o += (size_t) sprintf (out + o, "\\n");
    else if (c == '\n' && nl)
      out[o++] = '\n';
    else if (quoted && c == '\r')
      o += (size_t) sprintf (out + o, "\\r");
    else if (k == 0 || c < 0x20 || c == 0x7f)
      o += (size_t) sprintf (out + o, "\\x%02x", c);
    else
      out[o++] = (char) c;
  }
  if (quoted)
    out[o++] = '"';
  out[o] = '\0';
  return out;
}

char *
pc_display_name (const char *s)
{
  const unsigned char *u = (const unsigned char *) s;
  size_t n = strlen (s);
  bool plain = pc_utf8_valid (s, n);

  for (size_t i = 0; plain && i < n; i++)
    if (u[i] < 0x20 || u[i] == 0x7f || u[i] == '"' || u[i] == '\\')
      plain = false;
  return plain ? strdup (s) : display (s, true, false);
}

char *
pc_display_text (const char *s)
{
  return display (s, false, true);
}

char *
pc_display_line (const char *s)
{
  return display (s, false, false);
}
