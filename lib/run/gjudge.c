/* gjudge.c: a check whose crash states a qemu guest's kernel judges
 * (gjudge.h). */
#include <config.h>

#define _GNU_SOURCE 1
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/fsck.h"
#include "format/log.h"
#include "fs/fs.h"
#include "oracle/oracle.h"
#include "replay/crash.h"
#include "replay/image.h"
#include "replay/replay.h"
#include "report/report.h"
#include "run/gjudge.h"
#include "guest/initramfs.h"
#include "guest/vm.h"
#include "util/util.h"

/* The check in the guest: the options given, judged by its kernel; its
 * report through the output port.  (Exit 3: the report did not go.) */
static const char guest_script[] =
  "#!/bin/sh\n"
  "# powercut check --judge guest: the check, by this guest's kernel\n"
  "rm -f /tmp/report.json\n"
  "\"$POWERCUT\" check \"$@\" --judge kernel --quiet --json /tmp/report.json; st=$?\n"
  "if [ -s /tmp/report.json ]; then cat /tmp/report.json >\"$POWERCUT_OUT\" || st=3; fi\n"
  "exit $st\n";

#define MAX_ARGS 40

/* Scratch paths of one guest check. */
struct gj {
  char dir[PATH_MAX];
  char end[PATH_MAX + 16], script[PATH_MAX + 16], out[PATH_MAX + 16], console[PATH_MAX + 16];
  char log[PATH_MAX], base[PATH_MAX];   /* the inputs' real paths */
  char *args[MAX_ARGS];                 /* the guest check's arguments */
  char nums[6][64];
  size_t nargs;
};

static void
add_arg (struct gj *g, const char *a)
{
  if (g->nargs + 1 < MAX_ARGS) {
    g->args[g->nargs++] = (char *) a;
    g->args[g->nargs] = NULL;
  }
}

/* The filesystem at the end of the log, known to fs.h: into *ret.
 * Returns 0 or -errno with why. */
static int
log_fs (const struct pc_check_config *cfg, struct gj *g, const struct pc_fs **ret,
        struct pc_err *why)
{
  struct pc_replay_config rc = {
    .log_path = cfg->log_path, .at = "end", .base_path = cfg->base_path, .out_path = g->end,
    .flags = cfg->keep_trimmed ? PC_IMAGE_KEEP_TRIMMED : 0,
  };
  char type[32];
  int r = pc_replay_write (&rc, why);

  if (r < 0)
    return r;
  r = pc_ext_probe (g->end, type, sizeof type);
  unlink (g->end);
  if (r < 0)
    return pc_err_set (why, -r, "%s: blkid cannot probe its end: %s", cfg->log_path,
                       strerror (-r));
  *ret = pc_fs_find (type);
  if (*ret == NULL)
    return pc_err_set (why, EMEDIUMTYPE, "%s: no %s filesystem on the device at the end of "
                       "the recording (blkid finds %s)", cfg->log_path, pc_fs_names (false),
                       type[0] ? type : "none");
  return 0;
}

/* The log's records (for the guest's time limit), or 0. */
static uint64_t
records (const char *path)
{
  struct pc_log *log;
  struct pc_record rec;
  uint64_t n = 0;

  if (pc_log_open (path, &log) < 0)
    return 0;
  while (pc_log_next (log, &rec) == 1)
    n++;
  pc_log_close (log);
  return n;
}

/* The guest's memory: room for the log and base in its initramfs and
 * files, and for each job's image, copy and cache; at most half of this
 * machine's. */
static unsigned
memory_mb (const struct pc_check_config *cfg, const struct gj *g)
{
  struct stat st;
  uint64_t in = 0, mb;
  long pages = sysconf (_SC_PHYS_PAGES), psize = sysconf (_SC_PAGESIZE);
  uint64_t half = pages > 0 && psize > 0 ? (uint64_t) pages * (uint64_t) psize / 2 >> 20 : 4096;

  if (stat (g->log, &st) == 0)
    in += (uint64_t) st.st_size;
  if (g->base[0] && stat (g->base, &st) == 0)
    in += (uint64_t) st.st_size;
  mb = 640 + (3 + 2 * (uint64_t) (cfg->jobs ? cfg->jobs : 1)) * (in >> 20);
  if (mb > half && half >= 768)
    mb = half;
  return mb > 16384 ? 16384 : (unsigned) mb;
}

/* The guest check's arguments: the log by its name in /host, the check's
 * own options. */
static void
guest_args (const struct pc_check_config *cfg, struct gj *g)
{
  g->nargs = 0;
  add_arg (g, strrchr (g->log, '/') + 1);
  snprintf (g->nums[0], sizeof g->nums[0], "%s", pc_model_name (cfg->model.kind));
  if (pc_model_takes_k (cfg->model.kind))
    snprintf (g->nums[0] + strlen (g->nums[0]), sizeof g->nums[0] - strlen (g->nums[0]), ":%u",
              cfg->model.k);
  add_arg (g, "--model");
  add_arg (g, g->nums[0]);
  snprintf (g->nums[1], sizeof g->nums[1], "%" PRIu64, cfg->model.seed);
  add_arg (g, "--seed");
  add_arg (g, g->nums[1]);
  snprintf (g->nums[2], sizeof g->nums[2], "%u", cfg->jobs ? cfg->jobs : 1);
  add_arg (g, "--jobs");
  add_arg (g, g->nums[2]);
  snprintf (g->nums[3], sizeof g->nums[3], "%u/%u", cfg->shard, cfg->nshards ? cfg->nshards : 1);
  add_arg (g, "--shard");
  add_arg (g, g->nums[3]);
  snprintf (g->nums[4], sizeof g->nums[4], "%d", cfg->timeout_s > 0 ? cfg->timeout_s : 60);
  add_arg (g, "--timeout");
  add_arg (g, g->nums[4]);
  if (cfg->from_mark) {
    add_arg (g, "--from");
    add_arg (g, cfg->from_mark);
  }
  if (g->base[0]) {
    add_arg (g, "--base");
    add_arg (g, strrchr (g->base, '/') + 1);
  }
  if (cfg->keep_trimmed)
    add_arg (g, "--keep-trimmed");
  if (cfg->acks && cfg->acks->how != PC_ACKS_STDOUT) {
    add_arg (g, "--acks");
    add_arg (g, cfg->acks->spec);
  }
  if (cfg->oracle_flags & PC_ORACLE_NO_EVENTS)
    add_arg (g, "--ignore-events");
  if (cfg->oracle_flags & PC_ORACLE_NO_MARKS)
    add_arg (g, "--ignore-marks");
}

/* The last line the guest check printed (its console's "POWERCUT-OUT"
 * lines) into buf, "" if none. */
static void
last_said (const char *console, char *buf, size_t len)
{
  FILE *f = fopen (console, "re");
  char *line = NULL;
  size_t cap = 0;

  buf[0] = '\0';
  if (f == NULL)
    return;
  while (getline (&line, &cap, f) > 0) {
    char *p = strstr (line, "POWERCUT-OUT ");
    if (p == NULL)
      continue;
    p += 13;
    p[strcspn (p, "\r\n")] = '\0';
    if (*p)
      snprintf (buf, len, "%s", p);
  }
  free (line);
  fclose (f);
}

/* Boots the guest and reads its report into *ret.  Returns 0 or -errno
 * with why. */
static int
in_guest (const struct pc_check_config *cfg, const struct pc_guest_judge *gj, struct gj *g,
          const struct pc_fs *fs, struct pc_check_result **ret, struct pc_err *why)
{
  char *mods[] = { "loop", NULL }, *fss[] = { (char *) fs->name, NULL };
  char *copies[] = { g->log, g->base[0] ? g->base : NULL, NULL };
  const char *console = gj->console_path ? gj->console_path : g->console;
  struct pc_vm_config vc;
  char said[512], line[PATH_MAX + 128];
  int status = -1, r;
  uint64_t n = records (g->log);

  memset (&vc, 0, sizeof vc);
  vc.self = gj->self;
  vc.kernel = gj->kernel;
  vc.modules = gj->modules;
  vc.script_mode = true;
  vc.script = g->script;
  vc.script_args = g->args;
  vc.extra_modules = mods;
  vc.filesystems = fss;
  vc.copies = copies;
  vc.work_dir = g->dir;
  vc.console_path = console;
  vc.out_path = g->out;
  vc.script_status = &status;
  vc.memory_mb = memory_mb (cfg, g);
  vc.timeout_s = gj->timeout_s > 0 ? gj->timeout_s : n > 42750 ? 86400 : (int) (900 + 2 * n);
  if (gj->status) {
    snprintf (line, sizeof line, "checking every crash point in a qemu guest, by its kernel "
              "(%u MiB, at most %d s; its console: %s)", vc.memory_mb, vc.timeout_s, console);
    gj->status (gj->status_ctx, line);
  }
  r = pc_vm_run (&vc, why);
  if (r < 0)
    return r;
  r = 0;
  if (status < 0 || status > 2) {
    last_said (console, said, sizeof said);
    r = pc_err_set (why, EIO, "the check in the guest %s (status %d%s%s; its console: %s)",
                    status == 3 ? "could not send its report back" : "failed", status,
                    said[0] ? ": " : "", said, console);
  }
  if (r == 0 && pc_report_read_json (g->out, ret, NULL) < 0) {
    last_said (console, said, sizeof said);
    r = pc_err_set (why, EIO, "the check in the guest brought back no report%s%s (its console: %s)",
                    said[0] ? ": " : "", said, console);
  }
  return r;
}

int
pc_guest_check (const struct pc_check_config *cfg, const struct pc_guest_judge *gj,
                struct pc_check_result **ret, struct pc_err *why)
{
  const char *tmp = cfg->work_dir ? cfg->work_dir : getenv ("TMPDIR");
  const struct pc_fs *fs = NULL;
  struct pc_check_result *res = NULL;
  struct pc_err local;
  struct gj *g;
  FILE *f;
  int r;

  if (cfg->verify || cfg->keep_dir || cfg->plain || cfg->recovery_crashes)
    return pc_err_set (why, EINVAL, "%s: not with --judge guest (it needs this machine)",
                       cfg->verify ? "--verify" : cfg->keep_dir ? "--keep"
                       : cfg->plain ? "--plain" : "--recovery-crashes");
  g = calloc (1, sizeof *g);
  if (g == NULL)
    return pc_err_set (why, ENOMEM, "%s", strerror (ENOMEM));
  /* the files themselves, under their own names (not a link's) */
  for (int i = 0; i < 2; i++) {
    const char *p = i ? cfg->base_path : cfg->log_path;
    if (p && realpath (p, i ? g->base : g->log) == NULL) {
      r = pc_err_set (why, errno, "%s: %s", p, strerror (errno));
      free (g);
      return r;
    }
  }
  if (g->base[0] && strcmp (strrchr (g->base, '/'), strrchr (g->log, '/')) == 0) {
    r = pc_err_set (why, EINVAL, "%s: the base image has the log's name", cfg->base_path);
    free (g);
    return r;
  }
  snprintf (g->dir, sizeof g->dir, "%s/powercut-guest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp (g->dir) == NULL) {
    r = pc_err_set (why, errno, "%s: %s", g->dir, strerror (errno));
    free (g);
    return r;
  }
  snprintf (g->end, sizeof g->end, "%s/end.img", g->dir);
  snprintf (g->script, sizeof g->script, "%s/check.sh", g->dir);
  snprintf (g->out, sizeof g->out, "%s/report.json", g->dir);
  snprintf (g->console, sizeof g->console, "%s/console.txt", g->dir);
  local.msg[0] = '\0';
  r = log_fs (cfg, g, &fs, &local);
  if (r == 0) {
    bool bad;
    f = fopen (g->script, "we");
    bad = f == NULL;
    if (f) {
      bad = fputs (guest_script, f) == EOF;
      bad |= fclose (f) != 0;
    }
    if (bad)
      r = pc_err_set (&local, EIO, "%s: cannot write it", g->script);
  }
  if (r == 0) {
    guest_args (cfg, g);
    r = in_guest (cfg, gj, g, fs, &res, &local);
  }
  if (r == 0) {
    /* the paths here, the kernel the guest's */
    free (res->log_path);
    free (res->base_path);
    res->log_path = strdup (cfg->log_path);
    res->base_path = cfg->base_path ? strdup (cfg->base_path) : NULL;
    res->kernel_guest = true;
    if (res->log_path == NULL || (cfg->base_path && res->base_path == NULL))
      r = pc_err_set (&local, ENOMEM, "%s", strerror (ENOMEM));
  }
  unlink (g->script);
  unlink (g->out);
  /* the console is kept where the reason names it */
  if (r == 0 || gj->console_path) {
    unlink (g->console);
    rmdir (g->dir);
  }
  free (g);
  if (r < 0) {
    pc_check_result_free (res);
    return pc_err_set (why, -r, "%s", local.msg[0] ? local.msg : strerror (-r));
  }
  *ret = res;
  return 0;
}
