/* recnbd.c: the recorder's NBD protocol: the handshake and transmission,
 * and the replies queued and sent per connection (which the control
 * server, recctl.c, sends through too). */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <liburing.h>

#include "format/control.h"
#include "format/log.h"
#include "format/nbd-proto.h"
#include "record/recint.h"
#include "util/util.h"

/* -------------------------------------------------------------------------
 * Replies */

/* A simple reply's header (also for all but reads under structured
 * replies), queued by the caller. */
static struct outbuf *
simple_reply (struct conn *c, uint64_t handle, uint32_t err)
{
  struct outbuf *o = rec_out_new (c, NBD_SIMPLE_REPLY_SIZE);

  if (o) {
    pc_put_be32 (o->hdr, NBD_SIMPLE_REPLY_MAGIC);
    pc_put_be32 (o->hdr + 4, err);
    pc_put_be64 (o->hdr + 8, handle);
  }
  return o;
}

/* A structured reply's last chunk: its header, with room after it for the
 * chunk's first extra bytes; length counts the whole chunk payload. */
static struct outbuf *
structured_reply (struct conn *c, uint64_t handle, uint16_t type, size_t extra,
                  uint32_t length)
{
  struct outbuf *o = rec_out_new (c, NBD_STRUCTURED_HDR_SIZE + extra);

  if (o) {
    pc_put_be32 (o->hdr, NBD_STRUCTURED_REPLY_MAGIC);
    pc_put_be16 (o->hdr + 4, NBD_REPLY_FLAG_DONE);
    pc_put_be16 (o->hdr + 6, type);
    pc_put_be64 (o->hdr + 8, handle);
    pc_put_be32 (o->hdr + 16, length);
  }
  return o;
}

void
rec_reply_simple (struct conn *c, uint64_t handle, uint32_t err)
{
  struct outbuf *o = simple_reply (c, handle, err);

  if (o)
    rec_conn_queue (c, o);
}

static void
reply_error (struct conn *c, uint64_t handle, uint16_t type, uint32_t err)
{
  struct outbuf *o;

  if (!c->structured || type != NBD_CMD_READ) {
    rec_reply_simple (c, handle, err);
    return;
  }
  o = structured_reply (c, handle, NBD_REPLY_TYPE_ERROR, 6, 6);
  if (o == NULL)
    return;
  pc_put_be32 (o->hdr + 20, err);
  pc_put_be16 (o->hdr + 24, 0);
  rec_conn_queue (c, o);
}

/* Answers a read with the range's content; returns 0 or the NBD error (for
 * a base image or log that fails to read now: the request's error, not
 * the server's). */
static uint32_t
reply_read (struct conn *c, uint64_t handle, uint64_t off, uint32_t len)
{
  struct pc_disk *disk = &c->rec->disk;
  const uint8_t *mem;
  struct outbuf *o;
  void *owned = NULL;

  if (pc_disk_load (disk, off, len) < 0)
    return NBD_EIO;
  /* Sent straight from memory where it can be: a write that overlaps a
   * read in flight may show in it, as NBD allows for concurrent requests. */
  mem = pc_disk_mem (disk, off, len);
  if (mem == NULL) {
    if ((owned = malloc (len)) == NULL)
      return NBD_ENOMEM;
    if (pc_disk_read (disk, off, len, owned) < 0) {
      free (owned);
      return NBD_EIO;
    }
    mem = owned;
  }
  if (c->structured) {
    o = structured_reply (c, handle, NBD_REPLY_TYPE_OFFSET_DATA, 8, 8 + len);
    if (o)
      pc_put_be64 (o->hdr + 20, off);
  }
  else
    o = simple_reply (c, handle, 0);
  if (o == NULL) {
    free (owned);
    return 0;
  }
  o->data = mem;
  o->dlen = len;
  o->owned = owned;
  rec_conn_queue (c, o);
  return 0;
}

static void
opt_reply (struct conn *c, uint32_t opt, uint32_t type, const void *data, size_t len)
{
  struct outbuf *o = rec_out_new (c, 20);

  if (o == NULL)
    return;
  if (len > 0 && (o->owned = malloc (len)) == NULL) {
    free (o);
    c->closing = true;
    return;
  }
  pc_put_be64 (o->hdr, NBD_REP_MAGIC);
  pc_put_be32 (o->hdr + 8, opt);
  pc_put_be32 (o->hdr + 12, type);
  pc_put_be32 (o->hdr + 16, (uint32_t) len);
  if (len > 0) {
    memcpy (o->owned, data, len);
    o->data = o->owned;
    o->dlen = len;
  }
  rec_conn_queue (c, o);
}

/* -------------------------------------------------------------------------
 * Handshake */

static void
send_export_info (struct conn *c, uint32_t opt)
{
  uint8_t buf[14];

  pc_put_be16 (buf, NBD_INFO_EXPORT);
  pc_put_be64 (buf + 2, c->rec->disk.size);
  pc_put_be16 (buf + 10, EXPORT_FLAGS);
  opt_reply (c, opt, NBD_REP_INFO, buf, 12);
  pc_put_be16 (buf, NBD_INFO_BLOCK_SIZE);
  pc_put_be32 (buf + 2, PC_NBD_MIN_BLOCK);
  pc_put_be32 (buf + 6, PC_NBD_PREF_BLOCK);
  pc_put_be32 (buf + 10, PC_NBD_MAX_BLOCK);
  opt_reply (c, opt, NBD_REP_INFO, buf, 14);
}

/* Handles one option; the option's data is complete in buf. */
static void
handle_option (struct conn *c, uint32_t opt, const uint8_t *buf, uint32_t len)
{
  switch (opt) {
  case NBD_OPT_EXPORT_NAME: {
    /* Any export name is accepted: there is one export. */
    struct outbuf *o = rec_out_new (c, c->no_zeroes ? 10 : 134);
    if (o == NULL)
      return;
    pc_put_be64 (o->hdr, c->rec->disk.size);
    pc_put_be16 (o->hdr + 8, EXPORT_FLAGS);
    if (!c->no_zeroes) {
      o->owned = calloc (1, 124);
      o->data = o->owned;
      o->dlen = o->owned ? 124 : 0;
      o->hlen = 10;
    }
    rec_conn_queue (c, o);
    c->phase = PH_TRANSMISSION;
    return;
  }
  case NBD_OPT_ABORT:
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    c->closing = true;
    return;
  case NBD_OPT_LIST: {
    uint8_t name[4] = { 0, 0, 0, 0 };
    if (len != 0) {
      opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
      return;
    }
    opt_reply (c, opt, NBD_REP_SERVER, name, 4);
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    return;
  }
  case NBD_OPT_INFO:
  case NBD_OPT_GO: {
    uint32_t nlen;
    uint16_t nreq;
    if (len < 6 || (nlen = pc_get_be32 (buf)) > len - 6 ||
        (nreq = pc_get_be16 (buf + 4 + nlen), 4u + nlen + 2u + 2u * nreq != len)) {
      opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
      return;
    }
    if (c->rec->stopping) {
      opt_reply (c, opt, NBD_REP_ERR_SHUTDOWN, NULL, 0);
      return;
    }
    send_export_info (c, opt);
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    if (opt == NBD_OPT_GO)
      c->phase = PH_TRANSMISSION;
    return;
  }
  case NBD_OPT_STRUCTURED_REPLY:
    if (len != 0) {
      opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
      return;
    }
    c->structured = true;
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    return;
  default:
    opt_reply (c, opt, NBD_REP_ERR_UNSUP, NULL, 0);
    return;
  }
}

/* -------------------------------------------------------------------------
 * Transmission */

static uint32_t
check_range (struct conn *c, uint64_t off, uint32_t len)
{
  if (len == 0 || off > c->rec->disk.size || len > c->rec->disk.size - off)
    return NBD_EINVAL;
  if (off % PC_NBD_MIN_BLOCK != 0 || len % PC_NBD_MIN_BLOCK != 0)
    return NBD_EINVAL;
  return 0;
}

/* Parses one request header; returns false to stop parsing for now. */
static bool
handle_request (struct conn *c, const uint8_t *p)
{
  struct pc_recorder *rec = c->rec;
  uint16_t flags = pc_get_be16 (p + 4), type = pc_get_be16 (p + 6);
  uint64_t handle = pc_get_be64 (p + 8), off = pc_get_be64 (p + 16);
  uint32_t len = pc_get_be32 (p + 24), err;
  uint16_t rflags = (flags & NBD_CMD_FLAG_FUA) ? PC_REC_F_FUA : 0;
  struct req *r;

  if (pc_get_be32 (p) != NBD_REQUEST_MAGIC) {
    rec_conn_close (c);
    return false;
  }
  switch (type) {
  case NBD_CMD_READ:
    err = check_range (c, off, len);
    if (err == 0 && len > PC_NBD_MAX_BLOCK)
      err = NBD_EOVERFLOW;
    if (err == 0)
      err = reply_read (c, handle, off, len);
    if (err)
      reply_error (c, handle, type, err);
    return true;

  case NBD_CMD_WRITE:
    if (len > PC_NBD_MAX_BLOCK) {
      rec_conn_close (c);             /* beyond the advertised maximum: no resync */
      return false;
    }
    err = rec->stopping ? NBD_ESHUTDOWN : check_range (c, off, len);
    if (err) {
      rec_reply_simple (c, handle, err);
      c->discard = len;
      return true;
    }
    r = rec_req_new (c, handle, PC_REC_WRITE, rflags, off, len);
    if (r && len <= INPLACE_MAX) {
      /* conn_parse waited for the whole payload: logged from where it is. */
      r->lw.data = (uint8_t *) p + NBD_REQUEST_SIZE;
      r->in = c->in;
      c->in->refs++;
    }
    else if (r)
      r->lw.data = malloc (len);
    if (r == NULL || r->lw.data == NULL) {
      free (r);
      rec_reply_simple (c, handle, NBD_ENOMEM);
      c->discard = len;
      return true;
    }
    rec_expect_payload (c, r, len);
    return true;

  case NBD_CMD_FLUSH:
  case NBD_CMD_TRIM:
  case NBD_CMD_WRITE_ZEROES:
    if (rec->stopping)
      err = NBD_ESHUTDOWN;
    else if (type == NBD_CMD_FLUSH)
      err = 0;
    else
      err = check_range (c, off, len);
    if (err) {
      rec_reply_simple (c, handle, err);
      return true;
    }
    if (type == NBD_CMD_FLUSH)
      r = rec_req_new (c, handle, PC_REC_FLUSH, 0, 0, 0);
    else if (type == NBD_CMD_TRIM)
      r = rec_req_new (c, handle, PC_REC_TRIM, rflags, off, len);
    else
      r = rec_req_new (c, handle, PC_REC_WRITE_ZEROES,
                   rflags | ((flags & NBD_CMD_FLAG_NO_HOLE) ? PC_REC_F_NO_HOLE : 0),
                   off, len);
    if (r == NULL) {
      rec_reply_simple (c, handle, NBD_ENOMEM);
      return true;
    }
    rec_req_submit (rec, r);
    return true;

  case NBD_CMD_DISC:
    c->closing = true;            /* finish what is in flight, then close */
    rec_conn_maybe_free (c);
    return false;

  default:
    reply_error (c, handle, type, NBD_EINVAL);
    return true;
  }
}

/* A request's payload is complete. */
static void
payload_done (struct conn *c)
{
  struct req *r = c->cur;

  c->cur = NULL;
  if (c->rec->stopping) {
    /* Its header came before the stop, its data after: too late. */
    if (c->phase == PH_CONTROL)
      rec_ctl_reply (c, -ESHUTDOWN, 0);
    else
      rec_reply_simple (c, r->handle, NBD_ESHUTDOWN);
    rec_req_free (r);
    return;
  }
  if (c->phase == PH_CONTROL && !rec_ctl_payload (c, r))
    return;
  rec_req_submit (c->rec, r);
}

/* Consumes whole messages from the input buffer; where one is not whole,
 * says in need how much it takes. */
static void
conn_parse (struct conn *c)
{
  size_t pos = c->ipos;

  c->need = 0;

  while (!c->closing && c->cur == NULL) {
    uint8_t *p = c->in->data + pos;
    size_t avail = c->ilen - pos;

    if (c->discard > 0) {
      size_t n = avail < c->discard ? avail : (size_t) c->discard;
      c->discard -= n;
      pos += n;
      if (c->discard > 0)
        break;
      continue;
    }
    if (c->phase == PH_CLIENT_FLAGS) {
      uint32_t flags;
      if (avail < 4) {
        c->need = 4;
        break;
      }
      flags = pc_get_be32 (p);
      pos += 4;
      if (!(flags & NBD_FLAG_C_FIXED_NEWSTYLE) ||
          (flags & ~(NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES))) {
        rec_conn_close (c);
        break;
      }
      c->no_zeroes = flags & NBD_FLAG_C_NO_ZEROES;
      c->phase = PH_OPTIONS;
    }
    else if (c->phase == PH_OPTIONS) {
      uint32_t opt, olen;
      if (avail < NBD_OPT_HEADER_SIZE) {
        c->need = NBD_OPT_HEADER_SIZE;
        break;
      }
      if (pc_get_be64 (p) != NBD_IHAVEOPT) {
        rec_conn_close (c);
        break;
      }
      opt = pc_get_be32 (p + 8);
      olen = pc_get_be32 (p + 12);
      if (olen > MAX_OPTION_LEN) {
        pos += NBD_OPT_HEADER_SIZE;
        if (opt == NBD_OPT_EXPORT_NAME) {
          rec_conn_close (c);
          break;
        }
        opt_reply (c, opt, NBD_REP_ERR_TOO_BIG, NULL, 0);
        c->discard = olen;
        continue;
      }
      if (avail < NBD_OPT_HEADER_SIZE + olen) {
        c->need = NBD_OPT_HEADER_SIZE + olen;
        break;
      }
      pos += NBD_OPT_HEADER_SIZE + olen;
      handle_option (c, opt, p + NBD_OPT_HEADER_SIZE, olen);
    }
    else if (c->phase == PH_TRANSMISSION || c->phase == PH_CONTROL) {
      size_t hsz = c->phase == PH_CONTROL ? PC_CTL_HEADER_SIZE : NBD_REQUEST_SIZE;
      bool more;
      if (avail < hsz) {
        c->need = hsz;
        break;
      }
      if (c->phase == PH_TRANSMISSION && pc_get_be32 (p) == NBD_REQUEST_MAGIC &&
          pc_get_be16 (p + 6) == NBD_CMD_WRITE) {
        uint32_t len = pc_get_be32 (p + 24);
        if (len <= INPLACE_MAX && avail < hsz + len) {
          c->need = hsz + len;     /* received whole, to be logged in place */
          break;
        }
      }
      pos += hsz;
      more = c->phase == PH_CONTROL ? rec_ctl_request (c, p) : handle_request (c, p);
      if (c->cur) {
        /* Take what already arrived of the payload. */
        size_t n = c->ilen - pos;
        if (n > c->cur->lw.rec.datalen)
          n = c->cur->lw.rec.datalen;
        if (c->cur->in == NULL)
          memcpy (c->cur->lw.data, c->in->data + pos, n);
        c->cur_have = n;
        pos += n;
        if (c->cur_have == c->cur->lw.rec.datalen)
          payload_done (c);
      }
      if (!more)
        break;
    }
  }
  c->ipos = pos;
}

void
rec_on_recv (struct conn *c, int res)
{
  c->recv_armed = false;
  if (res <= 0 || c->shut) {
    if (c->cur) {
      rec_req_free (c->cur);
      c->cur = NULL;
    }
    rec_conn_close (c);
    return;
  }
  if (c->cur) {
    size_t want = c->cur->lw.rec.datalen - c->cur_have;
    size_t n = (size_t) res < want ? (size_t) res : want;

    VALGRIND_MAKE_MEM_DEFINED (c->cur->lw.data + c->cur_have, n);
    c->cur_have += n;
    VALGRIND_MAKE_MEM_DEFINED (c->in->data + c->ilen, (size_t) res - n);
    c->ilen += (size_t) res - n;
    if (c->cur_have == c->cur->lw.rec.datalen)
      payload_done (c);
  }
  else {
    VALGRIND_MAKE_MEM_DEFINED (c->in->data + c->ilen, (size_t) res);
    c->ilen += (size_t) res;
  }
  conn_parse (c);
  rec_conn_arm_recv (c);
  rec_conn_maybe_free (c);
}
