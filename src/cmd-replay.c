/* cmd-replay.c: powercut replay: write the disk as found at one crash point. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "cmd.h"
#include "replay/crash.h"
#include "util/disk.h"
#include "replay/image.h"

static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut replay LOG --at POINT -o IMAGE [OPTION]...\n"
"\n"
"Write the disk as it would be found after a power cut at POINT.\n"
"\n"
"POINT is a record number (the state after that record), 'end',\n"
"'mark:NAME' (the state at that mark), or a crash-point id from a\n"
"report such as 120/drop:117,119 or 88/torn:0-3.\n"
"\n"
"  -a, --at POINT        the crash point\n"
"  -o, --output IMAGE    the image file to write (created or replaced)\n"
"  -b, --base IMAGE      the base image the recording started from\n"
"      --keep-trimmed    trimmed ranges keep their old data (default: zeros)\n"
"  -h, --help            show this help\n");
}

int
cmd_replay (int argc, char **argv)
{
  enum { OPT_KEEP_TRIMMED = 256 };
  static const struct option opts[] = {
    { "at", required_argument, NULL, 'a' },
    { "output", required_argument, NULL, 'o' },
    { "base", required_argument, NULL, 'b' },
    { "keep-trimmed", no_argument, NULL, OPT_KEEP_TRIMMED },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *at = NULL, *out = NULL, *base_path = NULL, *log_path;
  uint8_t *base = NULL;
  uint64_t base_size = 0;
  char why[PATH_MAX + 128];
  unsigned flags = 0;
  struct pc_index ix;
  struct pc_state s;
  struct pc_image *im = NULL;
  struct stat st;
  uint64_t cursor = 0;
  int c, r, fd = -1, ret = EXIT_ERROR;

  while ((c = getopt_long (argc, argv, "a:o:b:h", opts, NULL)) != -1) {
    switch (c) {
    case 'a': at = optarg; break;
    case 'o': out = optarg; break;
    case 'b': base_path = optarg; break;
    case OPT_KEEP_TRIMMED: flags |= PC_IMAGE_KEEP_TRIMMED; break;
    case 'h': usage (stdout); return EXIT_OK;
    default: return pc_usage_error ("replay");
    }
  }
  if (optind + 1 != argc || at == NULL || out == NULL) {
    cmd_err ("replay", optind + 1 != argc ? "one LOG is required"
            : at == NULL ? "--at POINT is required" : "-o IMAGE is required");
    return pc_usage_error ("replay");
  }
  log_path = argv[optind];
  r = pc_index_load (log_path, &ix);
  if (r < 0) {
    cmd_err ("replay", "%s: %s", log_path, pc_log_strerror (r));
    return EXIT_ERROR;
  }
  if (ix.end == PC_END_CORRUPT) {
    char m[256];
    cmd_err ("replay", "%s: %s", log_path, pc_log_corrupt_message (ix.log, m, sizeof m));
    pc_index_free (&ix);
    return EXIT_ERROR;
  }
  if (pc_state_parse (&ix, at, &s, why, sizeof why) < 0) {
    cmd_err ("replay", "--at %s: %s", at, why);
    pc_index_free (&ix);
    return EXIT_ERROR;
  }
  if (pc_index_read_base (&ix, base_path, &base, &base_size, why, sizeof why) < 0) {
    cmd_err ("replay", "%s", why);
    goto out;
  }
  if (stat (out, &st) == 0 && !S_ISREG (st.st_mode)) {
    cmd_err ("replay", "%s: not a regular file", out);
    goto out;
  }
  fd = open (out, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    cmd_err ("replay", "%s: %s", out, strerror (errno));
    goto out;
  }
  r = pc_image_new (ix.hdr.devsize, base, fd, flags, &im);
  if (r == 0)
    r = pc_state_build (&ix, &s, im, &cursor);
  if (r >= 0)
    r = pc_image_sync (im);
  if (r >= 0 && fsync (fd) < 0)
    r = -errno;
  if (r < 0) {
    cmd_err ("replay", "%s: %s", out, strerror (-r));
    goto out;
  }
  ret = EXIT_OK;
out:
  pc_image_free (im);
  if (fd >= 0)
    close (fd);
  pc_image_unmap (base, base_size);
  pc_state_clear (&s);
  pc_index_free (&ix);
  return ret;
}
