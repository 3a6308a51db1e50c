/* cmd-log.c: powercut log: summarise a log, or dump it one record a line. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "format/event.h"
#include "format/logsum.h"
#include "result/finding.h"
#include "replay/devset.h"
#include "replay/dmlog.h"
#include "util/util.h"

static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut log [--dump] FILE\n"
"       powercut log --instants DIR\n"
"       powercut log --export dm-log-writes FILE OUT\n"
"       powercut log --import dm-log-writes IN FILE [--size SIZE]\n"
"\n"
"Summarise a powercut log: device, records by type, marks, flush epochs,\n"
"and whether it ended cleanly or was cut.  With --dump, one line per record:\n"
"  SEQ TIME CONN TYPE DETAILS\n"
"\n"
"  -d, --dump   one line per record\n"
"  -I, --instants  for a device set (a directory of NAME.pclog logs, one\n"
"               clock), one line per instant of the flush model, in time order:\n"
"                 INSTANT TIME NAME=RECORDS/LAST-MARK...\n"
"               (what each device had logged by then, and its last mark, '-'\n"
"               for none): the ids 'powercut replay DIR --at' takes\n"
"  -e, --export dm-log-writes FILE OUT\n"
"               write FILE as a dm-log-writes log (xfstests' replay-log reads it)\n"
"  -i, --import dm-log-writes IN FILE\n"
"               turn a dm-log-writes log (the kernel target's, or qemu's\n"
"               blklogwrites) into the powercut log FILE\n"
"  -s, --size SIZE  with --import: the device size (default: the end of the\n"
"               last write, rounded up to 1 MiB)\n"
"  -h, --help   show this help\n"
"\n"
"Exit status: 0 the log reads to its end (cleanly stopped or cut short by a\n"
"crash), 2 it is not a log, or a record in it is corrupt.\n");
}

static void
print_end (FILE *f, const struct pc_log_ending *e)
{
  switch (e->end) {
  case PC_END_CLEAN:
    fprintf (f, "clean (stopped)\n");
    break;
  case PC_END_CUT:
    if (e->records == 0)
      fprintf (f, "torn: the recording was cut before its first record\n");
    else
      fprintf (f, "torn: the recording was cut after record %" PRIu64
               " (no end record)\n", e->records - 1);
    break;
  case PC_END_TORN:
    fprintf (f, "torn: %" PRIu64 " bytes at offset %" PRIu64
             " are not a whole record (%s)\n", e->file_size - e->offset, e->offset, e->reason);
    break;
  case PC_END_CORRUPT:
    fprintf (f, "corrupt: %s\n", e->corrupt);
    break;
  }
}

/* The first mark that does not decode: an error of the log, said last. */
struct bad_mark {
  bool have;
  uint64_t seq;
  const char *what;             /* "mark", "event" */
  char why[PC_ERR_MAX];
};

/* Remembers the first payload that does not decode. */
static void
bad_payload (struct bad_mark *bad, const struct pc_record *r, const char *what,
             const struct pc_err *err)
{
  if (!bad->have) {
    bad->have = true;
    bad->seq = r->seq;
    bad->what = what;
    snprintf (bad->why, sizeof bad->why, "%s", err->msg);
  }
}

static void
dump_record (const struct pc_record *r, struct bad_mark *bad)
{
  printf ("%" PRIu64 " %" PRIu64 ".%06" PRIu64 " %" PRIu32 " %s",
          r->seq, r->time_ns / 1000000000u, (r->time_ns / 1000u) % 1000000u,
          r->conn, pc_rec_type_name (r->type));
  switch (r->type) {
  case PC_REC_WRITE:
  case PC_REC_TRIM:
  case PC_REC_WRITE_ZEROES:
    printf (" offset=%" PRIu64 " length=%" PRIu32, r->offset, r->length);
    break;
  case PC_REC_DONE:
    printf (" record=%" PRIu64, r->offset);
    break;
  case PC_REC_MARK: {
    struct pc_log_mark m;
    struct pc_err err;
    if (pc_log_mark_read (r, &m, &err) == 0)
      printf (" name=%s paths=%zu durable=%zu%s", m.name, m.nentries,
              m.ndurable, m.sync ? " sync" : "");
    else {
      printf (" (undecodable mark payload)");
      bad_payload (bad, r, "mark", &err);
    }
    break;
  }
  case PC_REC_EVENT: {
    struct pc_event ev;
    struct pc_err err;
    if (pc_event_decode (r->data, r->datalen, &ev, &err) == 0) {
      /* a line the program printed is shown escaped */
      char *line = ev.op == PC_OP_ACK ? pc_display_line (ev.text) : NULL;
      printf (" %s pid=%" PRId32 " tid=%" PRId32 " %s",
              ev.op == PC_OP_ACK ? "ack" : ev.kind == PC_EVENT_ENTRY ? "entry" : "exit",
              ev.pid, ev.tid, ev.op != PC_OP_ACK ? ev.text : line ? line : "?");
      free (line);
      for (int k = 0; k < 2; k++)
        if (ev.path[k][0])
          printf (" %s=%s", k ? "path2" : "path", ev.path[k]);
      pc_event_free (&ev);
    }
    else {
      printf (" (undecodable event payload)");
      bad_payload (bad, r, "event", &err);
    }
    break;
  }
  default:
    break;
  }
  if (r->flags & PC_REC_F_FUA)
    printf (" fua");
  if (r->flags & PC_REC_F_NO_HOLE)
    printf (" no-hole");
  putchar ('\n');
}

/* The exit status once the log is read: standard output's error, a
 * corrupt record, a mark that does not decode, else none. */
static int
log_status (const char *path, int out_errno, const struct pc_log_ending *e,
            const struct bad_mark *bad)
{
  if (out_errno == 0 && fflush (stdout) != 0)
    out_errno = errno ? errno : EIO;
  if (out_errno) {
    cmd_err ("log", "standard output: %s", strerror (out_errno));
    return EXIT_ERROR;
  }
  if (e->end == PC_END_CORRUPT) {
    cmd_err ("log", "%s: %s", path, e->corrupt);
    return EXIT_ERROR;
  }
  if (bad->have) {
    cmd_err ("log", "%s: record %" PRIu64 ": the %s cannot be decoded: %s", path,
             bad->seq, bad->what ? bad->what : "mark", bad->why);
    return EXIT_ERROR;
  }
  return EXIT_OK;
}

/* powercut log --dump: one line per record. */
static int
dump (const char *path)
{
  struct bad_mark bad = { 0 };
  struct pc_log_ending end;
  struct pc_log *log;
  struct pc_record r;
  uint64_t nrec = 0;
  int ret, out_errno = 0;

  ret = pc_log_open (path, &log);
  if (ret < 0) {
    cmd_err ("log", "%s: %s", path, pc_log_strerror (ret));
    return EXIT_ERROR;
  }
  while (pc_log_next (log, &r) == 1) {
    nrec++;
    dump_record (&r, &bad);
    if (ferror (stdout)) {
      out_errno = errno ? errno : EIO;
      break;
    }
  }
  pc_log_ending (log, nrec, &end);
  pc_log_close (log);
  printf ("# end: ");
  print_end (stdout, &end);
  return log_status (path, out_errno, &end, &bad);
}

/* powercut log --instants: the instants of a device set. */
static int
instants (const char *dir)
{
  struct pc_devset set;
  struct pc_devset_point *pt = NULL;
  struct pc_err err;
  uint64_t *counts;
  int64_t n;
  int st = EXIT_OK;

  if (!pc_devset_is (dir)) {
    cmd_err ("log", "%s: not a directory of logs (a device set)", dir);
    return EXIT_ERROR;
  }
  if (pc_devset_open (dir, &set, &err) < 0) {
    cmd_err ("log", "%s", err.msg);
    return EXIT_ERROR;
  }
  counts = calloc (set.n, sizeof *counts);
  n = counts ? pc_devset_instants (&set, false, &pt) : -ENOMEM;
  for (int64_t i = 0; i < n && st == EXIT_OK; i++) {
    pc_devset_counts (&set, pt[i].dev, pt[i].record, counts);
    printf ("%s:%" PRIu64 " %" PRIu64 ".%06" PRIu64, set.dev[pt[i].dev].name, pt[i].record,
            pt[i].time_ns / 1000000000u, pt[i].time_ns % 1000000000u / 1000u);
    for (size_t j = 0; j < set.n && st == EXIT_OK; j++) {
      char *all, *last;
      if (pc_devset_marks (&set.dev[j], counts[j], &all, &last) < 0) {
        n = -ENOMEM;
        break;
      }
      printf (" %s=%" PRIu64 "/%s", set.dev[j].name, counts[j], *last ? last : "-");
      free (all);
      free (last);
    }
    printf ("\n");
    if (ferror (stdout)) {
      cmd_err ("log", "standard output: %s", strerror (errno ? errno : EIO));
      st = EXIT_ERROR;
    }
  }
  if (n < 0) {
    cmd_err ("log", "%s", strerror (ENOMEM));
    st = EXIT_ERROR;
  }
  free (pt);
  free (counts);
  pc_devset_free (&set);
  return st;
}

static void
print_header (const char *path, const struct pc_log_summary *s)
{
  const struct pc_log_header *h = &s->hdr;
  time_t t = (time_t) (h->start_ns / 1000000000u);
  char when[64], sz[32];
  struct tm tm;

  strftime (when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime_r (&t, &tm));
  printf ("log:          %s\n", path);
  printf ("format:       powercut log version %" PRIu32 "\n", h->version);
  printf ("device:       %s (%" PRIu64 " bytes), %" PRIu32 "-byte sectors, ",
          pc_format_size (h->devsize, sz, sizeof sz), h->devsize, h->sector);
  if (h->flags & PC_LOG_F_BASE) {
    printf ("from base image %s (xxh128 ", h->basename);
    for (int i = 0; i < 16; i++)
      printf ("%02x", h->basehash[i]);
    printf (")\n");
  }
  else
    printf ("from zeros\n");
  printf ("started:      %s\n", when);
  if (h->compat & PC_LOG_COMPAT_CLOCK) {
    printf ("clock:        CLOCK_MONOTONIC %" PRIu64 ".%09" PRIu64 " s at time 0, boot ",
            h->start_mono / 1000000000u, h->start_mono % 1000000000u);
    for (int i = 0; i < 16; i++)
      printf ("%02x", h->boot_id[i]);
    printf ("\n");
  }
}

/* powercut log: the summary. */
static int
summary (const char *path)
{
  struct pc_log_summary s;
  struct pc_err err;
  struct bad_mark bad = { 0 };
  char sz1[32], sz2[32];
  int ret;

  if (pc_log_summarize (path, &s, &err) < 0) {
    cmd_err ("log", "%s", err.msg);
    return EXIT_ERROR;
  }
  print_header (path, &s);
  printf ("duration:     %.3f s\n", s.last_ns / 1e9);
  printf ("records:      %" PRIu64 " (%s written, log %s)\n", s.records,
          pc_format_size (s.bytes, sz1, sizeof sz1),
          pc_format_size (s.ending.file_size, sz2, sizeof sz2));
  for (unsigned t = PC_REC_WRITE; t <= PC_REC_LAST; t++) {
    if ((t == PC_REC_EVENT || t == PC_REC_DONE) && s.count[t] == 0)
      continue;                 /* a recording of no traced program, an older log */
    printf ("  %-13s %" PRIu64, pc_rec_type_name (t), s.count[t]);
    if (s.fua[t])
      printf (" (%" PRIu64 " with fua)", s.fua[t]);
    putchar ('\n');
  }
  if (s.newer)
    printf ("  %-13s %" PRIu64 " (of types a newer powercut wrote)\n", "other", s.newer);
  printf ("connections:  %" PRIu64 "\n", s.conns);
  printf ("flush epochs: %" PRIu64 "\n", s.epochs);
  printf ("marks:        %zu\n", s.nmarks);
  for (size_t i = 0; i < s.nmarks; i++) {
    const struct pc_log_mark *m = &s.marks[i];
    if (m->bad)
      printf ("  record %" PRIu64 " at %.3f s: (undecodable mark payload)\n", m->seq,
              m->time_ns / 1e9);
    else
      printf ("  record %" PRIu64 " at %.3f s: %s (%zu path%s, %zu durable%s)\n", m->seq,
              m->time_ns / 1e9, m->name, m->nentries, m->nentries == 1 ? "" : "s", m->ndurable,
              m->sync ? ", synced" : "");
  }
  printf ("end:          ");
  print_end (stdout, &s.ending);
  bad.have = s.bad_mark;
  bad.seq = s.bad_mark_seq;
  snprintf (bad.why, sizeof bad.why, "%s", s.bad_mark_why);
  ret = log_status (path, 0, &s.ending, &bad);
  pc_log_summary_free (&s);
  return ret;
}

/* --export or --import dm-log-writes. */
static int
convert (const char *export_fmt, const char *import_fmt, int nargs, char **args, uint64_t size)
{
  const char *fmt = export_fmt ? export_fmt : import_fmt;
  struct pc_err why;
  int ret;

  if (export_fmt && import_fmt) {
    cmd_err ("log", "--export and --import exclude each other");
    return pc_usage_error ("log");
  }
  if (strcmp (fmt, "dm-log-writes") != 0) {
    cmd_err ("log", "%s: unknown format (dm-log-writes is the one)", fmt);
    return EXIT_ERROR;
  }
  if (nargs != 2) {
    cmd_err ("log", export_fmt ? "--export needs FILE and OUT" : "--import needs IN and FILE");
    return pc_usage_error ("log");
  }
  ret = export_fmt ? pc_dmlog_export (args[0], args[1], &why)
                   : pc_dmlog_import (args[0], args[1], size, &why);
  if (ret < 0) {
    cmd_err ("log", "%s", why.msg);
    return EXIT_ERROR;
  }
  return EXIT_OK;
}

int
cmd_log (int argc, char **argv)
{
  static const struct option opts[] = {
    { "dump", no_argument, NULL, 'd' },
    { "instants", no_argument, NULL, 'I' },
    { "export", required_argument, NULL, 'e' },
    { "import", required_argument, NULL, 'i' },
    { "size", required_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *export_fmt = NULL, *import_fmt = NULL;
  bool dumping = false, listing = false;
  uint64_t size = 0;
  int c;

  /* powercut ignores SIGPIPE for its sockets; log has none, and a reader of
   * its output that goes away early (as head does) ends it quietly, as it
   * would end cat. */
  signal (SIGPIPE, SIG_DFL);
  while ((c = getopt_long (argc, argv, "dIe:i:s:h", opts, NULL)) != -1) {
    switch (c) {
    case 'd': dumping = true; break;
    case 'I': listing = true; break;
    case 'e': export_fmt = optarg; break;
    case 'i': import_fmt = optarg; break;
    case 's':
      if (pc_parse_size (optarg, &size) < 0 || size == 0) {
        cmd_err ("log", "--size %s: not a size", optarg);
        return EXIT_ERROR;
      }
      break;
    case 'h': usage (stdout); return EXIT_OK;
    default: return pc_usage_error ("log");
    }
  }
  if (export_fmt || import_fmt)
    return convert (export_fmt, import_fmt, argc - optind, argv + optind, size);
  if (optind + 1 != argc) {
    cmd_err ("log", optind == argc ? "a log FILE is required" : "only one log FILE, please");
    return pc_usage_error ("log");
  }
  if (listing)
    return dumping ? (cmd_err ("log", "--instants and --dump: one or the other"),
                      pc_usage_error ("log")) : instants (argv[optind]);
  return dumping ? dump (argv[optind]) : summary (argv[optind]);
}
