/* stateid.c: crash states' ids (crash.h): formatting and parsing them. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/crash.h"

/* Appends "a,b-c,..." for a sorted list given by an accessor. */
static size_t
fmt_list (char *buf, size_t len, size_t pos, size_t n, uint64_t (*get) (const void *, size_t),
          const void *ctx)
{
  for (size_t i = 0; i < n;) {
    size_t j = i;
    uint64_t a = get (ctx, i);
    while (j + 1 < n && get (ctx, j + 1) == get (ctx, j) + 1)
      j++;
    if (pos < len)
      pos += (size_t) snprintf (buf + pos, len - pos, "%s%" PRIu64, i ? "," : "", a);
    if (j > i && pos < len)
      pos += (size_t) snprintf (buf + pos, len - pos, "-%" PRIu64, get (ctx, j));
    i = j + 1;
  }
  return pos;
}

static uint64_t get_drop (const void *ctx, size_t i) { return ((const uint64_t *) ctx)[i]; }

struct sect_ctx { const uint8_t *f; size_t *idx; };
static uint64_t get_sect (const void *ctx, size_t i)
{
  return ((const struct sect_ctx *) ctx)->idx[i];
}

char *
pc_state_id (const struct pc_state *s, const struct pc_model *model, char *buf, size_t len)
{
  size_t pos = (size_t) snprintf (buf, len, "%" PRIu64, s->point);

  if (s->ndrop > 0 && pos < len) {
    pos += (size_t) snprintf (buf + pos, len - pos, "/drop:");
    pos = fmt_list (buf, len, pos, s->ndrop, get_drop, s->drop);
  }
  if (s->nsect > 0 && pos < len) {
    size_t *idx = malloc (s->nsect * sizeof *idx), k = 0;
    if (idx) {
      for (uint32_t i = 0; i < s->nsect; i++)
        if (s->sectors[i])
          idx[k++] = i;
      struct sect_ctx ctx = { s->sectors, idx };
      pos += (size_t) snprintf (buf + pos, len - pos, "/torn:");
      pos = fmt_list (buf, len, pos, k, get_sect, &ctx);
      free (idx);
    }
  }
  if (pos >= len && model && pc_model_takes_k (model->kind))
    pos = (size_t) snprintf (buf, len, "%" PRIu64 "/state:%" PRIu32 "/%s:%u/seed:%" PRIu64,
                             s->point, s->nth, pc_model_name (model->kind), model->k,
                             model->seed);
  if (pos >= len && len > 4)
    strcpy (buf + len - 4, "...");
  return buf;
}

/* Parses LIST into a malloc'd ascending array. */
static int
parse_list (const char *s, const char *end, uint64_t **ret, uint32_t *ret_n)
{
  uint64_t *v = NULL;
  size_t n = 0, cap = 0;

  while (s < end) {
    char *e;
    uint64_t a, b;
    if (*s < '0' || *s > '9')
      goto bad;
    a = strtoull (s, &e, 10);
    b = a;
    if (e < end && *e == '-') {
      if (e[1] < '0' || e[1] > '9')
        goto bad;
      b = strtoull (e + 1, &e, 10);
    }
    if (b < a || b - a > (1u << 20) || (n > 0 && a <= v[n - 1]))
      goto bad;
    for (uint64_t x = a; x <= b; x++) {
      if (n == cap) {
        size_t ncap = cap ? cap * 2 : 16;
        uint64_t *nv = realloc (v, ncap * sizeof *nv);
        if (nv == NULL)
          goto bad;
        v = nv;
        cap = ncap;
      }
      v[n++] = x;
    }
    s = e;
    if (s < end) {
      if (*s != ',')
        goto bad;
      s++;
      if (s == end)
        goto bad;
    }
  }
  if (n == 0)
    goto bad;
  *ret = v;
  *ret_n = (uint32_t) n;
  return 0;
bad:
  free (v);
  return -EINVAL;
}

/* Parses "I/MODEL:K/seed:S" (what follows "C/state:") into the I-th state
 * that model gives at point c. */
static int
parse_nth (const struct pc_index *ix, uint64_t c, const char *p,
           struct pc_state *ret_state, const char **ret_why)
{
  struct pc_model m;
  struct pc_state *all = NULL;
  const char *seed;
  char spec[64], *e;
  unsigned long nth;
  size_t n = 0;
  int r;

  if (*p < '0' || *p > '9')
    return -EINVAL;
  errno = 0;
  nth = strtoul (p, &e, 10);
  seed = strstr (e, "/seed:");
  if (errno || nth > UINT32_MAX || *e != '/' || seed == NULL ||
      (size_t) (seed - e - 1) >= sizeof spec)
    return -EINVAL;
  memcpy (spec, e + 1, (size_t) (seed - e - 1));
  spec[seed - e - 1] = '\0';
  if (pc_model_spec_parse (spec, &m, NULL) < 0 || !pc_model_takes_k (m.kind)) {
    *ret_why = "not a state of a model that takes :K";
    return -EINVAL;
  }
  if (seed[6] < '0' || seed[6] > '9')
    return -EINVAL;
  errno = 0;
  m.seed = strtoull (seed + 6, &e, 10);
  if (errno || *e != '\0')
    return -EINVAL;
  r = pc_states_enumerate_range (ix, &m, c, c, &all, &n);
  if (r < 0) {
    *ret_why = strerror (-r);
    return r;
  }
  r = -EINVAL;
  *ret_why = "the model gives no state of that number at that point";
  for (size_t i = 0; i < n; i++)
    if (all[i].point == c && all[i].nth == nth) {
      *ret_state = all[i];
      memset (&all[i], 0, sizeof all[i]);
      r = 0;
      break;
    }
  pc_states_free (all, n);
  return r;
}

static int
parse_state (const struct pc_index *ix, const char *id,
             struct pc_state *ret_state, const char **ret_why)
{
  struct pc_state s;
  const char *p;
  char *e;
  uint64_t base = 0;

  memset (&s, 0, sizeof s);
  *ret_why = "not a crash point (a record number, end, mark:NAME or a report's id)";
  if (ix->n == 0) {
    *ret_why = "the log holds no records";
    return -EINVAL;
  }
  if (strcmp (id, "end") == 0) {
    s.point = ix->n - 1;
    s.base = ix->n;
    *ret_state = s;
    return 0;
  }
  if (strncmp (id, "mark:", 5) == 0) {
    int64_t m = pc_index_find_mark (ix, id + 5);
    if (m < 0) {
      *ret_why = "no mark of that name in the log";
      return -EINVAL;
    }
    s.point = (uint64_t) m;
    s.base = s.point + 1;
    *ret_state = s;
    return 0;
  }
  if (*id < '0' || *id > '9')
    return -EINVAL;
  s.point = strtoull (id, &e, 10);
  if (s.point >= ix->n) {
    *ret_why = "beyond the last record of the log";
    return -EINVAL;
  }
  p = e;
  if (strncmp (p, "/state:", 7) == 0)
    return parse_nth (ix, s.point, p + 7, ret_state, ret_why);
  if (strncmp (p, "/drop:", 6) == 0) {
    const char *end = strchr (p + 6, '/');
    if (end == NULL)
      end = p + strlen (p);
    if (parse_list (p + 6, end, &s.drop, &s.ndrop) < 0)
      goto bad;
    p = end;
  }
  if (strncmp (p, "/torn:", 6) == 0) {
    uint64_t *v;
    uint32_t nv;
    const struct pc_record *r = &ix->recs[s.point];
    if (r->type != PC_REC_WRITE) {
      *ret_why = "only a write can be torn";
      goto bad;
    }
    if (parse_list (p + 6, p + strlen (p), &v, &nv) < 0)
      goto bad;
    s.nsect = r->length / ix->hdr.sector;
    s.sectors = calloc (s.nsect, 1);
    if (s.sectors == NULL || v[nv - 1] >= s.nsect) {
      free (v);
      *ret_why = "sector beyond the torn write";
      goto bad;
    }
    for (uint32_t i = 0; i < nv; i++)
      s.sectors[v[i]] = 1;
    free (v);
    p += strlen (p);
  }
  if (*p != '\0')
    goto bad;
  if (s.ndrop == 0 && s.nsect == 0) {
    s.base = s.point + 1;
    *ret_state = s;
    return 0;
  }
  if (s.ndrop > 0 && !pc_rec_is_data (&ix->recs[s.point])) {
    *ret_why = "nothing is in flight at that point (it is not a write, trim or write-zeroes)";
    goto bad;
  }
  /* Reorder and torn states rest on the last flush before the point. */
  for (uint64_t i = s.point; i-- > 0;)
    if (ix->recs[i].type == PC_REC_FLUSH) {
      base = i + 1;
      break;
    }
  for (uint32_t i = 0; i < s.ndrop; i++) {
    const struct pc_record *r;
    if (s.drop[i] < base || s.drop[i] >= s.point) {
      *ret_why = "a dropped record is not in flight at that point";
      goto bad;
    }
    r = &ix->recs[s.drop[i]];
    if (!pc_rec_is_data (r) || (r->flags & PC_REC_F_FUA)) {
      *ret_why = "a dropped record is not a cached data record";
      goto bad;
    }
  }
  s.base = base;
  *ret_state = s;
  return 0;
bad:
  pc_state_clear (&s);
  return -EINVAL;
}

int
pc_state_parse (const struct pc_index *ix, const char *id,
                struct pc_state *ret_state, struct pc_err *why)
{
  const char *w = NULL;
  int r = parse_state (ix, id, ret_state, &w);

  if (r < 0 && why)
    pc_err_msg (why, "%s", w);
  return r;
}

bool
pc_state_id_recovery (const char *id, char *parent, size_t len, uint64_t *ret_k)
{
  const char *r = strstr (id, "/recovery:");
  char *end;
  unsigned long long k;

  if (r == NULL || r == id || (size_t) (r - id) >= len || !isdigit ((unsigned char) r[10]))
    return false;
  errno = 0;
  k = strtoull (r + 10, &end, 10);
  if (*end != '\0' || errno != 0)
    return false;
  memcpy (parent, id, (size_t) (r - id));
  parent[r - id] = '\0';
  *ret_k = k;
  return true;
}

void
pc_recovery_log_path (const char *log, const char *id, char *buf, size_t len)
{
  size_t n = (size_t) snprintf (buf, len, "%s.recovery/", log);

  for (; *id && n + 7 < len; id++)
    buf[n++] = *id == '/' ? '+' : *id;
  snprintf (buf + (n < len ? n : len - 1), len - (n < len ? n : len - 1), ".pclog");
}
