/* check_logwriter.c: the log writer's contract without sockets: records
 * answered only once in the log, and durable when they must be; failures
 * cut off and never answered as success. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/log.h"
#include "record/logwriter.h"
#include "unit.h"

/* A writer over a fresh log file, and a trace of what it called back:
 * "wN" written, "dN:E" done with errno E, "S" an fdatasync asked for. */
struct fixture {
  char path[64];
  int fd;
  struct pc_logw w;
  char trace[8192];
  int wb_n;                  /* writeback hints asked for, and the last */
  uint64_t wb_off, wb_len;
};

static void __attribute__ ((format (printf, 2, 3)))
note (struct fixture *f, const char *fmt, ...)
{
  size_t len = strlen (f->trace);
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (f->trace + len, sizeof f->trace - len, fmt, ap);
  va_end (ap);
}

/* A written record is whole in the file where it says it is. */
static void
cb_written (void *opaque, struct pc_logw_rec *r)
{
  struct fixture *f = opaque;
  size_t len = PC_REC_HEADER_SIZE + r->rec.datalen;
  uint8_t *back = malloc (len);
  int fd = open (f->path, O_RDONLY);

  ck_assert (back != NULL && fd >= 0);
  ck_assert_int_eq (pread (fd, back, len, (off_t) r->file_off), (ssize_t) len);
  ck_assert (memcmp (back, r->hdr, PC_REC_HEADER_SIZE) == 0);
  ck_assert (r->rec.datalen == 0 ||
             memcmp (back + PC_REC_HEADER_SIZE, r->data, r->rec.datalen) == 0);
  close (fd);
  free (back);
  note (opaque, "w%llu ", (unsigned long long) r->rec.seq);
}

static void
cb_start_sync (void *opaque, int fd)
{
  ck_assert_int_eq (fd, ((struct fixture *) opaque)->w.fd);
  note (opaque, "S ");
}

static void
cb_done (void *opaque, struct pc_logw_rec *r, int err)
{
  note (opaque, "d%llu:%d ", (unsigned long long) r->rec.seq, err);
  free (r->data);
  free (r);
}

static const struct pc_logw_ops ops = { cb_written, cb_start_sync, cb_done, NULL };

static void
cb_start_writeback (void *opaque, int fd, uint64_t off, uint64_t len)
{
  struct fixture *f = opaque;

  ck_assert_int_eq (fd, f->w.fd);
  f->wb_n++;
  f->wb_off = off;
  f->wb_len = len;
}

static const struct pc_logw_ops ops_wb = {
  cb_written, cb_start_sync, cb_done, cb_start_writeback
};

static void
setup (struct fixture *f, int open_flags)
{
  struct pc_log_header h = { .version = PC_LOG_VERSION, .compat = PC_LOG_COMPAT_HDRSUM,
                             .devsize = 1 << 20, .sector = 512 };
  uint8_t buf[PC_LOG_HEADER_SIZE];
  int fd;

  memset (f, 0, sizeof *f);
  strcpy (f->path, "/tmp/check_logwriter.XXXXXX");
  fd = mkstemp (f->path);
  ck_assert_int_ge (fd, 0);
  pc_log_header_encode (&h, buf);
  ck_assert_int_eq (write (fd, buf, sizeof buf), (ssize_t) sizeof buf);
  f->fd = fd;
  if (open_flags != O_RDWR) {
    f->fd = open (f->path, open_flags);
    ck_assert_int_ge (f->fd, 0);
    close (fd);
  }
  pc_logw_init (&f->w, f->fd, PC_LOG_HEADER_SIZE, 0, 1, &ops, f);
}

static void
teardown (struct fixture *f)
{
  close (f->fd);
  unlink (f->path);
}

/* A record of type with flags; a write carries len bytes of fill. */
static struct pc_logw_rec *
mk (enum pc_rec_type type, uint16_t flags, uint32_t len, uint8_t fill)
{
  struct pc_logw_rec *r = calloc (1, sizeof *r);

  ck_assert_ptr_nonnull (r);
  r->rec.type = type;
  r->rec.flags = flags;
  if (type == PC_REC_WRITE) {
    r->rec.offset = 4096;
    r->rec.length = len;
    r->rec.datalen = len;
    r->data = malloc (len);
    ck_assert_ptr_nonnull (r->data);
    memset (r->data, fill, len);
  }
  return r;
}

/* Checks the trace so far and clears it. */
static void
expect (struct fixture *f, const char *want)
{
  ck_assert_str_eq (f->trace, want);
  f->trace[0] = '\0';
}

/* The records in the log file, as "seq:type:fill " words; its end state. */
static enum pc_log_end
read_back (struct fixture *f, char *out, size_t len)
{
  struct pc_log *log;
  struct pc_record rec;
  enum pc_log_end end;

  ck_assert_int_eq (pc_log_open (f->path, &log), 0);
  out[0] = '\0';
  while (pc_log_next (log, &rec) == 1) {
    size_t n = strlen (out);
    snprintf (out + n, len - n, "%llu:%s:%d ", (unsigned long long) rec.seq,
              pc_rec_type_name (rec.type), rec.datalen ? rec.data[0] : -1);
  }
  end = pc_log_end_state (log, NULL, NULL, NULL);
  pc_log_close (log);
  return end;
}

START_TEST (test_ack_after_durable)
{
  struct fixture f;
  char got[512];

  setup (&f, O_RDWR);
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 4096, 'a'));
  pc_logw_append (&f.w, mk (PC_REC_FLUSH, 0, 0, 0));
  pc_logw_append (&f.w, mk (PC_REC_WRITE, PC_REC_F_FUA, 512, 'b'));
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 512, 'c'));
  expect (&f, "");                       /* nothing before a kick */
  pc_logw_kick (&f.w);
  /* Written in order; the flush and the FUA write wait for the sync. */
  expect (&f, "w0 d0:0 w1 w2 w3 d3:0 S ");
  pc_logw_append (&f.w, mk (PC_REC_END, 0, 0, 0));
  pc_logw_kick (&f.w);
  /* Written during the sync: it needs a sync that begins after it. */
  expect (&f, "w4 ");
  ck_assert (pc_logw_busy (&f.w));
  pc_logw_synced (&f.w, 0);
  expect (&f, "d1:0 d2:0 S ");
  pc_logw_synced (&f.w, 0);
  expect (&f, "d4:0 ");
  ck_assert (!pc_logw_busy (&f.w));
  ck_assert_int_eq (read_back (&f, got, sizeof got), PC_END_CLEAN);
  ck_assert_str_eq (got, "0:write:97 1:flush:-1 2:write:98 3:write:99 4:end:-1 ");
  teardown (&f);
}
END_TEST

/* More than a batch: order holds across batches, and each batch's sync
 * begins as soon as it is written. */
START_TEST (test_batches_keep_order)
{
  struct fixture f;
  struct pc_log *log;
  struct pc_record rec;
  uint64_t n = 0;
  const int count = 3 * PC_LOGW_BATCH + 7;

  setup (&f, O_RDWR);
  for (int i = 0; i < count; i++)
    pc_logw_append (&f.w, mk (PC_REC_WRITE, i % 100 == 99 ? PC_REC_F_FUA : 0, 512,
                              (uint8_t) i));
  pc_logw_kick (&f.w);
  /* One sync asked for, after the first batch (it has a FUA write), and
   * none more while it runs. */
  ck_assert_ptr_nonnull (strstr (f.trace, "w255 d255:0 S w256 "));
  ck_assert_ptr_null (strstr (strstr (f.trace, "S ") + 2, "S "));
  ck_assert_ptr_null (strstr (f.trace, "d99:"));
  f.trace[0] = '\0';
  while (pc_logw_busy (&f.w))
    pc_logw_synced (&f.w, 0);
  /* The first sync covered the first batch's; the second all the rest. */
  expect (&f, "d99:0 d199:0 S d299:0 d399:0 d499:0 d599:0 d699:0 ");
  ck_assert_int_eq (pc_log_open (f.path, &log), 0);
  while (pc_log_next (log, &rec) == 1) {
    ck_assert_uint_eq (rec.seq, n);
    ck_assert_int_eq (rec.data[0], (uint8_t) n);
    n++;
  }
  ck_assert_uint_eq (n, (uint64_t) count);
  pc_log_close (log);
  teardown (&f);
}
END_TEST

/* A failed fdatasync: what it covered is done with its error, and so is
 * every record after it, written or not. */
START_TEST (test_failed_sync_poisons)
{
  struct fixture f;

  setup (&f, O_RDWR);
  pc_logw_append (&f.w, mk (PC_REC_FLUSH, 0, 0, 0));
  pc_logw_kick (&f.w);
  expect (&f, "w0 S ");
  pc_logw_synced (&f.w, -EIO);
  expect (&f, "d0:5 ");
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 512, 'x'));
  pc_logw_kick (&f.w);
  expect (&f, "d0:5 ");     /* not written (nor numbered), not acknowledged */
  ck_assert (!pc_logw_busy (&f.w));
  teardown (&f);
}
END_TEST

/* A full disk fails the records it met and no more: when space is back,
 * the log goes on with the same sequence numbers. */
START_TEST (test_enospc_fails_batch_only)
{
  struct fixture f;
  char got[256];
  int full = open ("/dev/full", O_WRONLY);

  ck_assert_int_ge (full, 0);
  setup (&f, O_RDWR);
  int saved = dup (f.fd);
  ck_assert_int_ge (dup2 (full, f.fd), 0);
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 512, 'x'));
  pc_logw_append (&f.w, mk (PC_REC_FLUSH, 0, 0, 0));
  pc_logw_kick (&f.w);
  expect (&f, "d0:28 d1:28 ");
  ck_assert_int_ge (dup2 (saved, f.fd), 0);   /* space again */
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 512, 'y'));
  pc_logw_kick (&f.w);
  expect (&f, "w0 d0:0 ");
  ck_assert_int_eq (read_back (&f, got, sizeof got), PC_END_CUT);
  ck_assert_str_eq (got, "0:write:121 ");
  close (saved);
  close (full);
  teardown (&f);
}
END_TEST

/* Any other write error leaves the log in doubt for good. */
START_TEST (test_write_error_in_doubt)
{
  struct fixture f;
  int rw;

  setup (&f, O_RDONLY);
  rw = open (f.path, O_WRONLY);
  ck_assert_int_ge (rw, 0);
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 512, 'x'));
  pc_logw_kick (&f.w);
  expect (&f, "d0:9 ");                  /* EBADF */
  ck_assert_int_ge (dup2 (rw, f.fd), 0);  /* writable now: still in doubt */
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 512, 'y'));
  pc_logw_kick (&f.w);
  expect (&f, "d0:9 ");
  close (rw);
  teardown (&f);
}
END_TEST

/* A write cut short (here by the file size limit): the partial record is
 * cut off so the log stays valid, and nothing of the batch is answered as
 * written. */
START_TEST (test_torn_write_cut_off)
{
  struct fixture f;
  struct rlimit lim;
  struct stat st;
  char got[256];

  setup (&f, O_RDWR);
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 4096, 'a'));
  pc_logw_kick (&f.w);
  expect (&f, "w0 d0:0 ");
  signal (SIGXFSZ, SIG_IGN);
  lim.rlim_cur = lim.rlim_max = (rlim_t) f.w.off + 2 * (PC_REC_HEADER_SIZE + 4096) + 100;
  ck_assert_int_eq (setrlimit (RLIMIT_FSIZE, &lim), 0);
  for (int i = 0; i < 3; i++)
    pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 4096, (uint8_t) ('b' + i)));
  pc_logw_kick (&f.w);
  expect (&f, "d1:27 d2:27 d3:27 ");     /* EFBIG */
  ck_assert_int_eq (stat (f.path, &st), 0);
  ck_assert_int_eq (st.st_size, (off_t) f.w.off);
  ck_assert_int_eq (read_back (&f, got, sizeof got), PC_END_CUT);
  ck_assert_str_eq (got, "0:write:97 ");
  teardown (&f);
}
END_TEST

/* Taking everything back at teardown: nothing is lost track of, nothing
 * is answered. */
START_TEST (test_take_all)
{
  struct fixture f;
  struct pc_logw_rec *all;
  int n = 0;

  setup (&f, O_RDWR);
  pc_logw_append (&f.w, mk (PC_REC_FLUSH, 0, 0, 0));
  pc_logw_kick (&f.w);
  pc_logw_append (&f.w, mk (PC_REC_FLUSH, 0, 0, 0));
  pc_logw_kick (&f.w);
  pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, 512, 'z'));
  expect (&f, "w0 S w1 ");
  all = pc_logw_take_all (&f.w);
  while (all) {
    struct pc_logw_rec *next = all->next;
    free (all->data);
    free (all);
    all = next;
    n++;
  }
  ck_assert_int_eq (n, 3);
  ck_assert (!pc_logw_busy (&f.w));
  expect (&f, "");
  teardown (&f);
}
END_TEST

/* Every PC_LOGW_WRITEBACK bytes written, one hint for what was written
 * since the last, never two at once, and none for what is not written. */
START_TEST (test_writeback_hints)
{
  struct fixture f;
  const uint32_t mib = 1 << 20;
  uint64_t end;

  setup (&f, O_RDWR);
  f.w.ops = &ops_wb;
  for (int i = 0; i < 7; i++)
    pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, mib, 'a'));
  pc_logw_kick (&f.w);
  ck_assert_int_eq (f.wb_n, 0);             /* 7 MiB: not yet */
  for (int i = 0; i < 2; i++)
    pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, mib, 'b'));
  pc_logw_kick (&f.w);
  ck_assert_int_eq (f.wb_n, 1);
  ck_assert_uint_eq (f.wb_off, PC_LOG_HEADER_SIZE);
  ck_assert_uint_eq (f.wb_off + f.wb_len, f.w.off);
  end = f.w.off;
  for (int i = 0; i < 9; i++)
    pc_logw_append (&f.w, mk (PC_REC_WRITE, 0, mib, 'c'));
  pc_logw_kick (&f.w);
  ck_assert_int_eq (f.wb_n, 1);             /* one at a time */
  pc_logw_writeback_done (&f.w);
  ck_assert_int_eq (f.wb_n, 2);             /* then what came meanwhile */
  ck_assert_uint_eq (f.wb_off, end);
  ck_assert_uint_eq (f.wb_off + f.wb_len, f.w.off);
  pc_logw_writeback_done (&f.w);
  ck_assert_int_eq (f.wb_n, 2);             /* nothing new: no hint */
  ck_assert (!pc_logw_busy (&f.w));         /* a hint is not waited for */
  teardown (&f);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("logwriter");
  TCase *tc = tcase_create ("contract");

  tcase_add_test (tc, test_ack_after_durable);
  tcase_add_test (tc, test_batches_keep_order);
  tcase_add_test (tc, test_failed_sync_poisons);
  tcase_add_test (tc, test_enospc_fails_batch_only);
  tcase_add_test (tc, test_write_error_in_doubt);
  tcase_add_test (tc, test_torn_write_cut_off);
  tcase_add_test (tc, test_take_all);
  tcase_add_test (tc, test_writeback_hints);
  suite_add_tcase (s, tc);
  return pc_unit_run (s);
}
