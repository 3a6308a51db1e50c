/* cmd-replay.c: powercut replay: write the disk as found at one crash point. */
#include <config.h>

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "judge/recovered.h"
#include "cmd.h"
#include "replay/devset.h"
#include "replay/image.h"
#include "replay/replay.h"

static void
usage (FILE *f)
{
  fprintf (f,
"usage: powercut replay LOG --at POINT -o IMAGE [OPTION]...\n"
"       powercut replay DIR --at NAME:POINT -o OUTDIR [OPTION]...\n"
"\n"
"Write the disk as it would be found after a power cut at POINT.\n"
"\n"
"POINT is a record number (the state after that record), 'end',\n"
"'mark:NAME' (the state at that mark), or a crash-point id from a\n"
"report such as 120/drop:117,119 or 88/torn:0-3.\n"
"\n"
"With a directory of logs, NAME.pclog each (devices recorded in one boot),\n"
"write OUTDIR/NAME.img for every device as the power cut right after POINT\n"
"of device NAME left it: the others hold what they had logged by then.\n"
"\n"
"The image is the raw state, its journal not replayed; with --recovered,\n"
"it is the state as a reboot leaves it: the journal replayed and orphans\n"
"released as a mount does (or, without a journal, e2fsck -p's repairs),\n"
"so that e2fsck -fn and a read-only mount show what a user would find.\n"
"\n"
"  -a, --at POINT        the crash point\n"
"  -o, --output IMAGE    the image file to write (created or replaced)\n"
"  -b, --base IMAGE      the base image the recording started from\n"
"      --keep-trimmed    trimmed ranges keep their old data (default: zeros)\n"
"      --recovered       the state as a reboot leaves it (ext2/3/4 only)\n"
"  -h, --help            show this help\n");
}

int
cmd_replay (int argc, char **argv)
{
  enum { OPT_KEEP_TRIMMED = 256, OPT_RECOVERED };
  static const struct option opts[] = {
    { "at", required_argument, NULL, 'a' },
    { "output", required_argument, NULL, 'o' },
    { "base", required_argument, NULL, 'b' },
    { "keep-trimmed", no_argument, NULL, OPT_KEEP_TRIMMED },
    { "recovered", no_argument, NULL, OPT_RECOVERED },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct pc_replay_config cfg = { 0 };
  struct pc_err err;
  char note[512];
  bool recovered = false;
  int c, r;

  while ((c = getopt_long (argc, argv, "a:o:b:h", opts, NULL)) != -1) {
    switch (c) {
    case 'a': cfg.at = optarg; break;
    case 'o': cfg.out_path = optarg; break;
    case 'b': cfg.base_path = optarg; break;
    case OPT_KEEP_TRIMMED: cfg.flags |= PC_IMAGE_KEEP_TRIMMED; break;
    case OPT_RECOVERED: recovered = true; break;
    case 'h': usage (stdout); return EXIT_OK;
    default: return pc_usage_error ("replay");
    }
  }
  if (optind + 1 != argc || cfg.at == NULL || cfg.out_path == NULL) {
    cmd_err ("replay", optind + 1 != argc ? "one LOG is required"
             : cfg.at == NULL ? "--at POINT is required" : "-o IMAGE is required");
    return pc_usage_error ("replay");
  }
  cfg.log_path = argv[optind];
  if (recovered)
    r = pc_replay_recovered (&cfg, note, sizeof note, &err);
  else
    r = pc_devset_is (cfg.log_path) ? pc_replay_devset_write (&cfg, &err)
                                    : pc_replay_write (&cfg, &err);
  if (r < 0) {
    cmd_err ("replay", "%s", err.msg);
    return EXIT_ERROR;
  }
  if (recovered && note[0])
    cmd_err ("replay", "%s: %s", cfg.out_path, note);
  return EXIT_OK;
}
