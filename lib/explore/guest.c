/* guest.c: powercut explore --attach vm, the whole exploration in a qemu
 * guest (explore.h). */
#include <config.h>

#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explore/explore.h"
#include "guest/initramfs.h"
#include "run/plan.h"
#include "guest/vm.h"
#include "util/proc.h"
#include "util/util.h"

/* The exploration in the guest: in the directory of the same path as
 * here ($1), with what it had here carried in ($2: --resume), stopped as
 * an interruption is before the guest's time limit ($3 seconds); the
 * directory back through the output port as a tar archive; what it said
 * on standard error on the console.  (Exit 3: the archive did not go.) */
static const char guest_script[] =
  "#!/bin/sh\n"
  "# powercut explore --attach vm: the exploration, by this guest's kernel\n"
  "out=$1; resume=$2; limit=$3; shift 3\n"
  "mkdir -p \"$out\" || exit 3\n"
  "if [ -n \"$resume\" ]; then\n"
  "  [ -d \"/host/${out##*/}\" ] && { cp -a \"/host/${out##*/}/.\" \"$out/\" || exit 3; }\n"
  "  for b in \"$out\"/bases/*.img.gz; do [ ! -f \"$b\" ] || gzip -d \"$b\" || exit 3; done\n"
  "  set -- \"$@\" --resume\n"
  "fi\n"
  "rm -f \"$out/summary.txt\"\n"
  "timeout -s INT \"$limit\" \"$POWERCUT\" explore \"$@\" --out \"$out\" --quiet >/dev/null "
  "2>/tmp/said.txt; st=$?\n"
  "for b in \"$out\"/bases/*.img; do [ ! -f \"$b\" ] || gzip -1 \"$b\"; done\n"
  "(cd \"${out%/*}/\" && tar -cf - \"${out##*/}\") >\"$POWERCUT_OUT\" || st=3\n"
  "cat /tmp/said.txt\n"
  "exit $st\n";

#define MAX_ARGS 96

static int
rm_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void) st;
  (void) flag;
  (void) ftw;
  return remove (path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Removes path, a file or a tree.  Returns 0 or -errno. */
static int
remove_tree (const char *path)
{
  struct stat st;

  if (lstat (path, &st) < 0)
    return errno == ENOENT ? 0 : -errno;
  if (!S_ISDIR (st.st_mode))
    return unlink (path) < 0 ? -errno : 0;
  return nftw (path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}

/* Puts what the guest brought back (the tree from, a directory on out's
 * filesystem) in out: each of its entries over the one of the same name
 * (the lock is out's own).  Returns 0 or -errno with why. */
static int
take_back (const char *from, const char *out, struct pc_err *why)
{
  DIR *d = opendir (from);
  struct dirent *de;
  int r = 0;

  if (d == NULL)
    return pc_err_set (why, errno, "%s: %s", from, strerror (errno));
  while (r == 0 && (de = readdir (d)) != NULL) {
    char src[2 * PATH_MAX], dst[2 * PATH_MAX];
    if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0 ||
        strcmp (de->d_name, ".lock") == 0)
      continue;
    snprintf (src, sizeof src, "%s/%s", from, de->d_name);
    snprintf (dst, sizeof dst, "%s/%s", out, de->d_name);
    r = remove_tree (dst);
    if (r == 0 && rename (src, dst) < 0)
      r = -errno;
    if (r < 0)
      pc_err_set (why, -r, "%s: %s", dst, strerror (-r));
  }
  closedir (d);
  return r;
}

/* What a workload's script runs besides busybox: the guest has them, and
 * so must a guest that reproduces one of its failures. */
static char *const guest_programs[] = { "xfs_io", "setfattr", NULL };

/* The failures' scripts it brought back (out/failures/N.sh) reproduce
 * them in a guest of the same kernel, with the same programs, from the
 * same base image, judged there: their "reproduce:" lines say so. */
static void
reproduce_in_guest (const struct pc_explore_guest *g, const char *out)
{
  static const char line[] = "#   reproduce:     powercut run ";
  char dir[PATH_MAX + 16], *kernel = g->kernel ? strdup (g->kernel) : pc_vm_default_kernel ();
  DIR *d;
  struct dirent *de;

  snprintf (dir, sizeof dir, "%s/failures", out);
  d = opendir (dir);
  while (d && kernel && (de = readdir (d)) != NULL) {
    char path[2 * PATH_MAX], *text = NULL, *at;
    size_t len = strlen (de->d_name), tlen;
    FILE *f;
    if (len < 4 || strcmp (de->d_name + len - 3, ".sh") != 0)
      continue;
    snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
    if (pc_read_file (path, &text, &tlen) < 0)
      continue;
    at = strstr (text, line);
    if (at && strncmp (at + sizeof line - 1, "--attach vm", 11) != 0 &&
        (f = fopen (path, "we")) != NULL) {
      at += sizeof line - 1;
      fwrite (text, 1, (size_t) (at - text), f);
      fprintf (f, "--attach vm --kernel %s%s%s ", kernel, g->modules ? " --modules " : "",
               g->modules ? g->modules : "");
      for (char *const *p = guest_programs; *p; p++)
        fprintf (f, "--program %s ", *p);
      /* judged as explore judged it, by the guest's kernel: a bug of
       * the log's replay shows only there */
      fputs ("--judge guest ", f);
      /* the line's base image (the guest's path is this one's, and the
       * image came back with the failures) goes into the guest as the
       * device: the very steps explore ran, from the same filesystem */
      fputs (at, f);
      fclose (f);
    }
    free (text);
  }
  if (d)
    closedir (d);
  free (kernel);
}

/* The configurations' base images the guest sent gzipped (out/bases/
 * cK.img.gz, kept for the failures' replay lines) unpacked beside them,
 * sparse again.  Returns 0 or -errno with why. */
static int
unpack_bases (const char *out, struct pc_err *why)
{
  char dir[PATH_MAX + 16];
  DIR *d;
  struct dirent *de;
  int r = 0;

  snprintf (dir, sizeof dir, "%s/bases", out);
  d = opendir (dir);
  while (r == 0 && d && (de = readdir (d)) != NULL) {
    char gz[2 * PATH_MAX], img[2 * PATH_MAX], said[512];
    size_t len = strlen (de->d_name);
    if (len < 8 || strcmp (de->d_name + len - 7, ".img.gz") != 0)
      continue;
    snprintf (gz, sizeof gz, "%s/%s", dir, de->d_name);
    snprintf (img, sizeof img, "%s/%.*s", dir, (int) len - 3, de->d_name);
    {
      char *gunzip[] = { "gzip", "-d", "-f", gz, NULL };
      char *dig[] = { "fallocate", "--dig-holes", img, NULL };
      int st = pc_proc_run (gunzip, 600, said, sizeof said);
      if (st == 0)
        st = pc_proc_run (dig, 600, said, sizeof said);
      if (st != 0)
        r = pc_err_set (why, EIO, "%s: cannot unpack it: %s", gz,
                        st == -ENOENT || st == 127 ? "gzip or fallocate not found" : said);
    }
  }
  if (d)
    closedir (d);
  return r;
}

/* Gives each line the guest's exploration said (its console's
 * "POWERCUT-OUT" lines) to g->problem, without its "powercut explore: ". */
static void
pass_on (const struct pc_explore_guest *g, const char *console)
{
  FILE *f = fopen (console, "re");
  char *line = NULL;
  size_t cap = 0;

  while (f && getline (&line, &cap, f) > 0) {
    char *p = strstr (line, "POWERCUT-OUT ");
    if (p == NULL)
      continue;
    p += 13;
    p[strcspn (p, "\r\n")] = '\0';
    if (strncmp (p, "powercut explore: ", 18) == 0)
      p += 18;
    if (*p && g->problem)
      g->problem (g->ctx, p);
  }
  free (line);
  if (f)
    fclose (f);
}

/* Copies the file at path to report. */
static void
print_file (const char *path, FILE *report)
{
  FILE *f = report ? fopen (path, "re") : NULL;
  char buf[8192];
  size_t n;

  while (f && (n = fread (buf, 1, sizeof buf, f)) > 0)
    fwrite (buf, 1, n, report);
  if (f)
    fclose (f);
}

/* Scratch paths of one guest exploration. */
struct xg {
  char dir[PATH_MAX];
  char script[PATH_MAX + 16], tar[PATH_MAX + 16], console[PATH_MAX + 16];
  char out[PATH_MAX], back[PATH_MAX + 32];
  char limit[32];
  char *args[MAX_ARGS], *copies[MAX_ARGS];
};

/* Boots the guest; what it brought back into out.  Returns the
 * exploration's status, or -errno with why. */
static int
in_guest (const struct pc_explore_guest *g, struct xg *x, struct pc_err *why)
{
  static char *mods[] = { "loop", NULL };
  struct pc_vm_config vc;
  size_t na = 0, nc = 0;
  long pages = sysconf (_SC_PHYS_PAGES), psize = sysconf (_SC_PAGESIZE);
  uint64_t half = pages > 0 && psize > 0 ? (uint64_t) pages * (uint64_t) psize / 2 >> 20 : 4096;
  uint64_t mem = 1024 + 384 * (uint64_t) (g->nconfigs ? g->nconfigs : 1);
  int status = -1, r, timeout_s = g->timeout_s > 0 ? g->timeout_s : 86400;
  char line[PATH_MAX + 128];

  x->args[na++] = x->out;
  x->args[na++] = g->resume ? "1" : "";
  /* its exploration stops a little before the guest does, so that what
   * it did comes back */
  snprintf (x->limit, sizeof x->limit, "%d", timeout_s > 600 ? timeout_s - 120 : timeout_s * 4 / 5);
  x->args[na++] = x->limit;
  for (char *const *a = g->args; a && *a && na + 1 < MAX_ARGS; a++)
    x->args[na++] = *a;
  x->args[na] = NULL;
  if (g->resume) {
    /* carried in: the bases kept with its failures take the guest's memory */
    char dir[PATH_MAX + 16];
    DIR *d;
    struct dirent *de;
    snprintf (dir, sizeof dir, "%s/bases", x->out);
    d = opendir (dir);
    while (d && (de = readdir (d)) != NULL) {
      char path[2 * PATH_MAX];
      struct stat st;
      snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
      if (de->d_name[0] != '.' && stat (path, &st) == 0)
        mem += (uint64_t) st.st_size >> 20;
    }
    if (d)
      closedir (d);
    x->copies[nc++] = x->out;
  }
  for (char *const *c = g->copies; c && *c && nc + 1 < MAX_ARGS; c++)
    x->copies[nc++] = *c;
  x->copies[nc] = NULL;

  memset (&vc, 0, sizeof vc);
  vc.self = g->self;
  vc.kernel = g->kernel;
  vc.modules = g->modules;
  vc.script_mode = true;
  vc.script = x->script;
  vc.script_args = x->args;
  vc.extra_modules = mods;
  vc.filesystems = g->filesystems;
  vc.programs = guest_programs;
  vc.copies = x->copies;
  vc.work_dir = x->dir;
  vc.console_path = x->console;
  vc.out_path = x->tar;
  vc.script_status = &status;
  vc.memory_mb = g->memory_mb ? g->memory_mb
                 : (unsigned) (mem > half && half >= 1024 ? half : mem > 16384 ? 16384 : mem);
  vc.timeout_s = timeout_s;
  if (g->status) {
    snprintf (line, sizeof line, "exploring in a qemu guest, by its kernel (%u MiB, at most "
              "%d s; its console: %s)", vc.memory_mb, vc.timeout_s, x->console);
    g->status (g->ctx, line);
  }
  r = pc_vm_run (&vc, why);
  if (r == -EINTR)
    return pc_err_set (why, EINTR, "interrupted: what the guest explored is lost (--resume "
                       "goes on from what an earlier guest brought back)");
  if (r < 0)
    return r;
  pass_on (g, x->console);
  if (status < 0 || status == 3)
    return pc_err_set (why, EIO, "the exploration in the guest brought nothing back (status "
                       "%d; its console: %s)", status, x->console);
  /* unpacked beside out, then each entry over its own */
  snprintf (x->back, sizeof x->back, "%s/.guest.XXXXXX", x->out);
  if (mkdtemp (x->back) == NULL)
    return pc_err_set (why, errno, "%s: %s", x->back, strerror (errno));
  {
    char *argv[] = { "tar", "-xf", x->tar, "-C", x->back, "--no-same-owner", NULL };
    char out[512], from[PATH_MAX + 300];
    const char *base = strrchr (x->out, '/') + 1;
    int st = pc_proc_run (argv, 600, out, sizeof out);
    if (st != 0)
      r = pc_err_set (why, EIO, "%s: what the guest sent cannot be unpacked: %s", x->tar,
                      st == -ENOENT || st == 127 ? "tar not found" : out);
    else {
      /* the summary is this exploration's, or none */
      snprintf (from, sizeof from, "%s/summary.txt", x->out);
      unlink (from);
      snprintf (from, sizeof from, "%s/%s", x->back, *base ? base : ".");
      r = take_back (from, x->out, why);
      if (r == 0)
        r = unpack_bases (x->out, why);
      if (r == 0)
        reproduce_in_guest (g, x->out);
    }
  }
  remove_tree (x->back);
  if (r < 0)
    return r;
  /* the exploration's own status; stopped otherwise (its time limit), it
   * did not finish */
  return status <= 2 ? status : 2;
}

int
pc_explore_guest (const struct pc_explore_guest *g, FILE *report, struct pc_err *why)
{
  const char *tmp = getenv ("TMPDIR");
  struct xg *x = calloc (1, sizeof *x);
  struct pc_err local;
  char summary[PATH_MAX + 32];
  FILE *f;
  int lock, r;

  if (x == NULL)
    return pc_err_set (why, ENOMEM, "%s", strerror (ENOMEM));
  if (pc_mkdir_p (g->out) < 0 || realpath (g->out, x->out) == NULL) {
    r = pc_err_set (why, errno, "%s: %s", g->out, strerror (errno));
    free (x);
    return r;
  }
  lock = pc_run_lock (x->out, why);
  if (lock < 0) {
    free (x);
    return lock;
  }
  local.msg[0] = '\0';
  snprintf (x->dir, sizeof x->dir, "%s/powercut-explore.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
  if (mkdtemp (x->dir) == NULL)
    r = pc_err_set (&local, errno, "%s: %s", x->dir, strerror (errno));
  else {
    snprintf (x->script, sizeof x->script, "%s/explore.sh", x->dir);
    snprintf (x->tar, sizeof x->tar, "%s/explore.tar", x->dir);
    snprintf (x->console, sizeof x->console, "%s/console.txt", x->dir);
    f = fopen (x->script, "we");
    r = f && fputs (guest_script, f) != EOF ? 0 : -EIO;
    if (f && fclose (f) != 0)
      r = -EIO;
    if (r < 0)
      pc_err_set (&local, EIO, "%s: cannot write it", x->script);
    else
      r = in_guest (g, x, &local);
    unlink (x->script);
    unlink (x->tar);
    /* the console is kept where a reason names it */
    if (r >= 0 || r == -EINTR) {
      unlink (x->console);
      rmdir (x->dir);
    }
  }
  pc_run_unlock (lock);
  if (r >= 0) {
    snprintf (summary, sizeof summary, "%s/summary.txt", x->out);
    print_file (summary, report);
  }
  free (x);
  if (r < 0)
    return pc_err_set (why, -r, "%s", local.msg[0] ? local.msg : strerror (-r));
  return r;
}
