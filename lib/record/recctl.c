/* recctl.c: the recorder's control server: mark, event and stop requests,
 * in the wire format that control.h shares with the client. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/control.h"
#include "format/event.h"
#include "format/mark.h"
#include "record/recint.h"

void
rec_ctl_reply (struct conn *c, int status, uint64_t seq)
{
  struct outbuf *o = rec_out_new (c, PC_CTL_REPLY_SIZE);

  if (o == NULL)
    return;
  pc_ctl_reply_encode (o->hdr, status, seq);
  rec_conn_queue (c, o);
}

bool
rec_ctl_request (struct conn *c, const uint8_t *p)
{
  struct pc_recorder *rec = c->rec;
  uint32_t cmd, len;
  struct req *r;

  if (pc_ctl_request_decode (p, &cmd, &len) < 0) {
    rec_conn_close (c);
    return false;
  }
  if (rec->stopping) {
    rec_ctl_reply (c, -ESHUTDOWN, 0);
    c->discard = len;
    return true;
  }
  switch (cmd) {
  case PC_CTL_MARK:
  case PC_CTL_EVENT:
    r = rec_req_new (c, 0, cmd == PC_CTL_MARK ? PC_REC_MARK : PC_REC_EVENT, 0, 0, 0);
    if (r && len > 0)
      r->lw.data = malloc (len);
    if (r == NULL || r->lw.data == NULL || len == 0) {
      rec_ctl_reply (c, r && len == 0 ? -EBADMSG : -ENOMEM, 0);
      if (r)
        rec_req_free (r);
      c->discard = len;
      return true;
    }
    rec_expect_payload (c, r, len);
    return true;
  case PC_CTL_STOP:
    c->discard = len;
    r = rec_req_new (c, 0, PC_REC_END, 0, 0, 0);
    if (r == NULL) {
      rec_ctl_reply (c, -ENOMEM, 0);
      return true;
    }
    rec->stopping = true;
    rec->stop_conn = c;
    rec_req_submit (rec, r);
    return true;
  default:
    rec_ctl_reply (c, -EOPNOTSUPP, 0);
    c->discard = len;
    return true;
  }
}

bool
rec_ctl_payload (struct conn *c, struct req *r)
{
  struct pc_recorder *rec = c->rec;
  struct pc_mark m = { 0 };   /* untouched by a failed decode */
  char **names;
  int err;

  if (r->lw.rec.type == PC_REC_EVENT) {
    /* Only what the oracle can read goes into the log. */
    struct pc_event ev;
    err = pc_event_decode (r->lw.data, r->lw.rec.datalen, &ev, NULL);
    if (err == 0) {
      pc_event_free (&ev);
      return true;
    }
    rec_ctl_reply (c, err, 0);
    rec_req_free (r);
    return false;
  }
  if (r->lw.rec.type != PC_REC_MARK)
    return true;
  err = pc_mark_decode (r->lw.data, r->lw.rec.datalen, &m, NULL);
  for (size_t i = 0; err == 0 && i < rec->nmark_names; i++)
    if (strcmp (rec->mark_names[i], m.name) == 0)
      err = -EEXIST;
  if (err == 0) {
    names = realloc (rec->mark_names, (rec->nmark_names + 1) * sizeof *names);
    if (names == NULL)
      err = -ENOMEM;
    else {
      rec->mark_names = names;
      names[rec->nmark_names++] = m.name;
      m.name = NULL;
    }
  }
  pc_mark_free (&m);
  if (err < 0) {
    rec_ctl_reply (c, err, 0);
    rec_req_free (r);
    return false;
  }
  return true;
}
