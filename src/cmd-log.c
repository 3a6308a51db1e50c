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
#include "replay/dmlog.h"
#include "format/log.h"
#include "format/mark.h"
#include "util/util.h"

static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut log [--dump] FILE\n"
"       powercut log --export dm-log-writes FILE OUT\n"
"       powercut log --import dm-log-writes IN FILE [--size SIZE]\n"
"\n"
"Summarise a powercut log: device, records by type, marks, flush epochs,\n"
"and whether it ended cleanly or was cut.  With --dump, one line per record:\n"
"  SEQ TIME CONN TYPE DETAILS\n"
"\n"
"  -d, --dump   one line per record\n"
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
print_end (FILE *f, struct pc_log *log, uint64_t nrec)
{
  uint64_t seq, off;
  const char *reason;
  enum pc_log_end e = pc_log_end_state (log, &seq, &off, &reason);

  switch (e) {
  case PC_END_CLEAN:
    fprintf (f, "clean (stopped)\n");
    break;
  case PC_END_CUT:
    if (nrec == 0)
      fprintf (f, "torn: the recording was cut before its first record\n");
    else
      fprintf (f, "torn: the recording was cut after record %" PRIu64
               " (no end record)\n", nrec - 1);
    break;
  case PC_END_TORN:
    fprintf (f, "torn: %" PRIu64 " bytes at offset %" PRIu64
             " are not a whole record (%s)\n",
             pc_log_file_size (log) - off, off, reason);
    break;
  case PC_END_CORRUPT: {
    char m[256];
    fprintf (f, "corrupt: %s\n", pc_log_corrupt_message (log, m, sizeof m));
    break;
  }
  }
}

/* The first mark that does not decode: an error of the log, said last. */
static struct {
  bool have;
  uint64_t seq;
  char why[160];
} bad_mark;

static bool
decode_mark (const struct pc_record *r, struct pc_mark *m)
{
  char why[160];

  if (pc_mark_decode (r->data, r->datalen, m, why, sizeof why) == 0)
    return true;
  if (!bad_mark.have) {
    bad_mark.have = true;
    bad_mark.seq = r->seq;
    snprintf (bad_mark.why, sizeof bad_mark.why, "%s", why);
  }
  return false;
}

static void
dump_record (const struct pc_record *r)
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
  case PC_REC_MARK: {
    struct pc_mark m;
    if (decode_mark (r, &m)) {
      printf (" name=%s paths=%zu durable=%zu%s", m.name, m.nentries,
              m.ndurable, (m.flags & PC_MARK_F_SYNC) ? " sync" : "");
      pc_mark_free (&m);
    }
    else
      printf (" (undecodable mark payload)");
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

struct mark_line {
  uint64_t seq, time_ns;
  char name[PC_MARK_NAME_MAX + 1];
  size_t nentries, ndurable;
  bool sync, bad;
};

int
cmd_log (int argc, char **argv)
{
  static const struct option opts[] = {
    { "dump", no_argument, NULL, 'd' },
    { "export", required_argument, NULL, 'e' },
    { "import", required_argument, NULL, 'i' },
    { "size", required_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  bool dump = false;
  const char *export_fmt = NULL, *import_fmt = NULL;
  uint64_t size = 0;
  const char *path;
  struct pc_log *log;
  struct pc_record r;
  uint64_t count[PC_REC_END + 1] = { 0 }, fua[PC_REC_END + 1] = { 0 }, bytes = 0, last_ns = 0, nrec = 0;
  uint64_t conns = 0;
  uint32_t *seen = NULL;
  size_t nseen = 0;
  struct mark_line *marks = NULL;
  size_t nmarks = 0;
  char sz1[32], sz2[32];
  int c, ret, out_errno = 0;

  /* powercut ignores SIGPIPE for its sockets; log has none, and a reader of
   * its output that goes away early (as head does) ends it quietly, as it
   * would end cat. */
  signal (SIGPIPE, SIG_DFL);

  while ((c = getopt_long (argc, argv, "de:i:s:h", opts, NULL)) != -1) {
    switch (c) {
    case 'd': dump = true; break;
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
  if (export_fmt || import_fmt) {
    const char *fmt = export_fmt ? export_fmt : import_fmt;
    char why[1024];
    if (export_fmt && import_fmt) {
      cmd_err ("log", "--export and --import exclude each other");
      return pc_usage_error ("log");
    }
    if (strcmp (fmt, "dm-log-writes") != 0) {
      cmd_err ("log", "%s: unknown format (dm-log-writes is the one)", fmt);
      return EXIT_ERROR;
    }
    if (optind + 2 != argc) {
      cmd_err ("log", export_fmt ? "--export needs FILE and OUT" : "--import needs IN and FILE");
      return pc_usage_error ("log");
    }
    ret = export_fmt ? pc_dmlog_export (argv[optind], argv[optind + 1], why, sizeof why)
                     : pc_dmlog_import (argv[optind], argv[optind + 1], size, why, sizeof why);
    if (ret < 0) {
      cmd_err ("log", "%s", why);
      return EXIT_ERROR;
    }
    return EXIT_OK;
  }
  if (optind + 1 != argc) {
    cmd_err ("log", optind == argc ? "a log FILE is required" : "only one log FILE, please");
    return pc_usage_error ("log");
  }
  path = argv[optind];
  ret = pc_log_open (path, &log);
  if (ret < 0) {
    cmd_err ("log", "%s: %s", path, pc_log_strerror (ret));
    return EXIT_ERROR;
  }
  const struct pc_log_header *h = pc_log_get_header (log);

  while (pc_log_next (log, &r) == 1) {
    nrec++;
    count[r.type]++;
    if (r.flags & PC_REC_F_FUA)
      fua[r.type]++;
    if (r.type == PC_REC_WRITE)
      bytes += r.length;
    if (r.conn > 0) {
      size_t k;
      for (k = 0; k < nseen && seen[k] != r.conn; k++)
        ;
      if (k == nseen) {
        uint32_t *ns = realloc (seen, (nseen + 1) * sizeof *ns);
        if (ns) {
          seen = ns;
          seen[nseen++] = r.conn;
          conns++;
        }
      }
    }
    last_ns = r.time_ns;
    if (dump) {
      dump_record (&r);
      if (ferror (stdout)) {
        out_errno = errno ? errno : EIO;
        break;
      }
    }
    else if (r.type == PC_REC_MARK) {
      struct mark_line *n = realloc (marks, (nmarks + 1) * sizeof *n);
      struct pc_mark m;
      if (n == NULL)
        break;
      marks = n;
      memset (&marks[nmarks], 0, sizeof *marks);
      marks[nmarks].seq = r.seq;
      marks[nmarks].time_ns = r.time_ns;
      if (decode_mark (&r, &m)) {
        snprintf (marks[nmarks].name, sizeof marks[nmarks].name, "%s", m.name);
        marks[nmarks].nentries = m.nentries;
        marks[nmarks].ndurable = m.ndurable;
        marks[nmarks].sync = m.flags & PC_MARK_F_SYNC;
        pc_mark_free (&m);
      }
      else
        marks[nmarks].bad = true;
      nmarks++;
    }
  }

  if (dump) {
    printf ("# end: ");
    print_end (stdout, log, nrec);
  }
  else {
    time_t t = (time_t) (h->start_ns / 1000000000u);
    char when[64];
    struct tm tm;
    strftime (when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime_r (&t, &tm));
    printf ("log:          %s\n", path);
    printf ("format:       powercut log version %" PRIu32 "\n", h->version);
    printf ("device:       %s (%" PRIu64 " bytes), %" PRIu32 "-byte sectors, ",
            pc_format_size (h->devsize, sz1, sizeof sz1), h->devsize, h->sector);
    if (h->flags & PC_LOG_F_BASE) {
      printf ("from base image %s (xxh128 ", h->basename);
      for (int i = 0; i < 16; i++)
        printf ("%02x", h->basehash[i]);
      printf (")\n");
    }
    else
      printf ("from zeros\n");
    printf ("started:      %s\n", when);
    printf ("duration:     %.3f s\n", last_ns / 1e9);
    printf ("records:      %" PRIu64 " (%s written, log %s)\n", nrec,
            pc_format_size (bytes, sz1, sizeof sz1),
            pc_format_size (pc_log_file_size (log), sz2, sizeof sz2));
    for (unsigned t2 = PC_REC_WRITE; t2 <= PC_REC_END; t2++) {
      printf ("  %-13s %" PRIu64, pc_rec_type_name (t2), count[t2]);
      if (fua[t2])
        printf (" (%" PRIu64 " with fua)", fua[t2]);
      putchar ('\n');
    }
    printf ("connections:  %" PRIu64 "\n", conns);
    printf ("flush epochs: %" PRIu64 "\n", count[PC_REC_FLUSH] + 1);
    printf ("marks:        %zu\n", nmarks);
    for (size_t i = 0; i < nmarks; i++) {
      if (marks[i].bad)
        printf ("  record %" PRIu64 " at %.3f s: (undecodable mark payload)\n",
                marks[i].seq, marks[i].time_ns / 1e9);
      else
        printf ("  record %" PRIu64 " at %.3f s: %s (%zu paths, %zu durable%s)\n",
                marks[i].seq, marks[i].time_ns / 1e9, marks[i].name,
                marks[i].nentries, marks[i].ndurable, marks[i].sync ? ", synced" : "");
    }
    printf ("end:          ");
    print_end (stdout, log, nrec);
  }

  ret = EXIT_OK;
  if (out_errno == 0 && fflush (stdout) != 0)
    out_errno = errno ? errno : EIO;
  if (out_errno) {
    cmd_err ("log", "standard output: %s", strerror (out_errno));
    ret = EXIT_ERROR;
  }
  else if (pc_log_end_state (log, NULL, NULL, NULL) == PC_END_CORRUPT) {
    char m[256];
    cmd_err ("log", "%s: %s", path, pc_log_corrupt_message (log, m, sizeof m));
    ret = EXIT_ERROR;
  }
  else if (bad_mark.have) {
    cmd_err ("log", "%s: record %" PRIu64 ": the mark cannot be decoded: %s", path,
            bad_mark.seq, bad_mark.why);
    ret = EXIT_ERROR;
  }
  free (marks);
  free (seen);
  pc_log_close (log);
  return ret;
}
