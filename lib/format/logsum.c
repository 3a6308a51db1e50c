/* logsum.c: a log summed up: records by type, marks, connections and its
 * end. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/logsum.h"
#include "util/util.h"

void
pc_log_ending (const struct pc_log *log, uint64_t nrec, struct pc_log_ending *ret)
{
  const char *reason = NULL;
  uint64_t seq;

  memset (ret, 0, sizeof *ret);
  ret->end = pc_log_end_state (log, &seq, &ret->offset, &reason);
  ret->records = nrec;
  ret->file_size = pc_log_file_size (log);
  snprintf (ret->reason, sizeof ret->reason, "%s", reason ? reason : "");
  if (ret->end == PC_END_CORRUPT)
    pc_log_corrupt_message (log, ret->corrupt, sizeof ret->corrupt);
}

int
pc_log_mark_read (const struct pc_record *r, struct pc_log_mark *ret, struct pc_err *err)
{
  struct pc_mark m;

  memset (ret, 0, sizeof *ret);
  ret->seq = r->seq;
  ret->time_ns = r->time_ns;
  if (pc_mark_decode (r->data, r->datalen, &m, err) < 0) {
    ret->bad = true;
    return -EBADMSG;
  }
  snprintf (ret->name, sizeof ret->name, "%s", m.name);
  ret->nentries = m.nentries;
  ret->ndurable = m.ndurable;
  ret->sync = m.flags & PC_MARK_F_SYNC;
  pc_mark_free (&m);
  return 0;
}

/* What pc_log_summarize keeps besides the summary. */
struct conns {
  uint32_t *v;
  size_t n, cap;
};

/* Counts record r into s.  Returns 0 or -ENOMEM. */
static int
add_record (struct pc_log_summary *s, struct conns *seen, size_t *markcap,
            const struct pc_record *r)
{
  s->records++;
  if (r->type > PC_REC_LAST) {
    s->newer++;
    return 0;
  }
  s->count[r->type]++;
  if (r->flags & PC_REC_F_FUA)
    s->fua[r->type]++;
  if (r->type == PC_REC_WRITE)
    s->bytes += r->length;
  s->last_ns = r->time_ns;
  if (r->conn > 0) {
    size_t k;
    for (k = 0; k < seen->n && seen->v[k] != r->conn; k++)
      ;
    if (k == seen->n) {
      if (pc_grow (&seen->v, &seen->cap, seen->n + 1, sizeof *seen->v, 16) < 0)
        return -ENOMEM;
      seen->v[seen->n++] = r->conn;
      s->conns++;
    }
  }
  if (r->type == PC_REC_MARK) {
    struct pc_err why;
    if (pc_grow (&s->marks, markcap, s->nmarks + 1, sizeof *s->marks, 16) < 0)
      return -ENOMEM;
    if (pc_log_mark_read (r, &s->marks[s->nmarks++], &why) < 0 && !s->bad_mark) {
      s->bad_mark = true;
      s->bad_mark_seq = r->seq;
      snprintf (s->bad_mark_why, sizeof s->bad_mark_why, "%s", why.msg);
    }
  }
  return 0;
}

int
pc_log_summarize (const char *path, struct pc_log_summary *ret, struct pc_err *err)
{
  struct pc_log_summary s;
  struct conns seen = { 0 };
  struct pc_log *log;
  struct pc_record r;
  size_t markcap = 0;
  int e = pc_log_open (path, &log);

  if (e < 0)
    return pc_err_set (err, -e, "%s: %s", path, pc_log_strerror (e));
  memset (&s, 0, sizeof s);
  s.hdr = *pc_log_get_header (log);
  while (e == 0 && pc_log_next (log, &r) == 1)
    e = add_record (&s, &seen, &markcap, &r);
  free (seen.v);
  if (e < 0) {
    pc_log_close (log);
    pc_log_summary_free (&s);
    return pc_err_set (err, -e, "%s: record %" PRIu64 ": out of memory", path, r.seq);
  }
  s.epochs = s.count[PC_REC_FLUSH] + 1;
  pc_log_ending (log, s.records, &s.ending);
  pc_log_close (log);
  *ret = s;
  return 0;
}

void
pc_log_summary_free (struct pc_log_summary *s)
{
  free (s->marks);
  memset (s, 0, sizeof *s);
}
