/* vm.c: a qemu guest with its own kernel whose disk is the recorder. */
#include <config.h>

#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/proc.h"
#include "format/mark.h"
#include "fs/fs.h"
#include "util/util.h"
#include "guest/cache.h"
#include "guest/initramfs.h"
#include "guest/vm.h"
#include "util/err.h"

/* The guest's /init (init.sh, made a C string by the build).  It reads
 * /powercut.conf (shell assignments). */
#include "guest/init-gen.h"


char *
pc_vm_default_kernel (void)
{
  DIR *d = opendir ("/boot");
  struct dirent *de;
  char *best = NULL;

  if (d == NULL)
    return NULL;
  while ((de = readdir (d)) != NULL) {
    if (strncmp (de->d_name, "vmlinuz-", 8) != 0)
      continue;
    if (best == NULL || strverscmp (de->d_name, best + 6) > 0) {
      free (best);
      if (asprintf (&best, "/boot/%s", de->d_name) < 0)
        best = NULL;
    }
  }
  closedir (d);
  return best;
}


/* The part of the initramfs that depends only on kernel and programs. */
static int
build_base (const struct pc_vm_config *cfg, const char *moddir, FILE *out, const char *path,
            char *modules_out, size_t mlen, struct pc_err *why)
{
  static const char *const busybox[] = { "/bin/busybox", "/usr/bin/busybox", NULL };
  static const char *const nbdc[] = { "/usr/sbin/nbd-client", "/sbin/nbd-client", NULL };
  static const char *const mke2fs[] = { "/usr/sbin/mke2fs", "/sbin/mke2fs", NULL };
  static const char *const want[] = { "e1000", "crc32c_generic", "nbd", "ext4", NULL };
  const char *bb = pc_find_program (busybox), *nc = pc_find_program (nbdc), *mk = pc_find_program (mke2fs);
  struct cpio c = { 0 };
  char depf[PATH_MAX + 16], *dep = NULL, order[1024] = " ";
  size_t deplen;
  int r;

  if (bb == NULL || nc == NULL || mk == NULL) {
    pc_err_msg (why, "%s is needed to build the guest (packages busybox-static, "
                "nbd-client, e2fsprogs)", bb == NULL ? "busybox" : nc == NULL ? "nbd-client" : "mke2fs");
    return -ENOENT;
  }
  snprintf (depf, sizeof depf, "%s/modules.dep", moddir);
  r = pc_read_file (depf, &dep, &deplen);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", depf, strerror (-r));
    return r;
  }
  c.f = out;
  pc_cpio_entry (&c, "init", 0100755, guest_init, sizeof guest_init - 1);
  {
    static const char *const dirs[] = { "proc", "sys", "dev", "mnt", "tmp", "etc", NULL };
    for (const char *const *d = dirs; *d; d++)
      pc_cpio_entry (&c, *d, 040755, NULL, 0);
  }
  r = pc_cpio_program (&c, bb, "bin/busybox", why);
  if (r == 0)
    r = pc_cpio_program (&c, nc, "bin/nbd-client", why);
  if (r == 0)
    r = pc_cpio_program (&c, mk, "bin/mke2fs", why);
  if (r == 0)
    r = pc_cpio_program (&c, cfg->self, "bin/powercut", why);
  if (r == 0 && access ("/etc/mke2fs.conf", R_OK) == 0)
    r = pc_cpio_copy (&c, "/etc/mke2fs.conf", "etc/mke2fs.conf", 0100644);
  for (const char *const *fs = (const char *const[]) { "ext2", "ext3", "ext4", NULL }; r == 0 && *fs; fs++) {
    char name[32];
    snprintf (name, sizeof name, "bin/mkfs.%s", *fs);
    pc_cpio_entry (&c, name, 0120777, "mke2fs", 6);
  }
  for (const char *const *m = want; r == 0 && *m; m++)
    r = pc_cpio_module (&c, moddir, dep, *m, order, sizeof order, 0, why);
  if (r == 0 && c.err)
    r = c.err;
  if (fflush (c.f) != 0 && r == 0)
    r = -EIO;
  for (size_t i = 0; i < c.ndirs; i++)
    free (c.dirs[i]);
  free (c.dirs);
  free (dep);
  if (r < 0) {
    if (!why->msg[0])
      pc_err_msg (why, "%s: %s", path, strerror (-r));
    return r;
  }
  snprintf (modules_out, mlen, "%s", order + 1);
  return 0;
}

/* Appends a shell assignment with the value single-quoted. */
static bool
conf (FILE *f, const char *name, const char *value)
{
  size_t len = 4 * strlen (value ? value : "") + 8;     /* pc_shell_quote's room */
  char *q = malloc (len);

  if (q == NULL)
    return true;
  pc_shell_quote (value ? value : "", q, len);
  fprintf (f, "%s=%s\n", name, q);
  free (q);
  return false;
}

/* Copies all of fd (which it closes) to out. */
static int
concat (FILE *out, int fd)
{
  char buf[1 << 16];
  size_t n;
  FILE *in = fdopen (fd, "re");

  if (in == NULL) {
    close (fd);
    return -errno;
  }
  while ((n = fread (buf, 1, sizeof buf, in)) > 0)
    if (fwrite (buf, 1, n, out) != n) {
      fclose (in);
      return -EIO;
    }
  fclose (in);
  return 0;
}

/* The guest's /powercut.conf, with modules (" a b ") loaded in order:
 * a malloc'd string, or NULL without memory. */
static char *
write_conf (const struct pc_vm_config *cfg, const char *modules)
{
  char *buf = NULL, *list = NULL, num[32];
  size_t len = 0, llen = 0;
  bool bad = false;
  FILE *m = open_memstream (&buf, &len), *l;

  if (m == NULL)
    return NULL;
  bad |= conf (m, "MODULES", modules);
  bad |= conf (m, "FS", cfg->fs);
  bad |= conf (m, "MKFS_OPTS", cfg->mkfs_opts);
  bad |= conf (m, "MKFS_FORCE", pc_fs_find (cfg->fs) ? pc_fs_find (cfg->fs)->mkfs_force : "-F");
  bad |= conf (m, "MADE", cfg->made ? "1" : "");
  bad |= conf (m, "MOUNT_OPTS", cfg->mount_opts);
  bad |= conf (m, "WORKLOAD", cfg->workload);
  bad |= conf (m, "TRACED", cfg->traced ? "1" : "");
  bad |= conf (m, "MARK_COMMAND_END", PC_MARK_COMMAND_END);
  bad |= conf (m, "MARK_SETTLE_END", PC_MARK_SETTLE_END);
  bad |= conf (m, "POWERCUT_ACKS", cfg->acks ? cfg->acks : "stdout");
  bad |= conf (m, "SCRIPT_MODE", cfg->script_mode ? "1" : "");
  bad |= conf (m, "OUTPUT", cfg->script_mode && cfg->out_path ? "1" : "");
  /* The script's arguments, each single-quoted, for eval in the guest. */
  if ((l = open_memstream (&list, &llen)) != NULL) {
    for (char *const *a = cfg->script_args; a && *a; a++) {
      size_t qlen = 4 * strlen (*a) + 8;
      char *q = malloc (qlen);
      if (q)
        pc_shell_quote (*a, q, qlen);
      fprintf (l, "%s ", q ? q : "''");
      free (q);
    }
    fclose (l);
  }
  bad |= conf (m, "ARGS", list ? list : "");
  free (list);
  /* The disks of script mode: "I:NAME:NBD-PORT:CONTROL-PORT" (0: none). */
  list = NULL;
  if ((l = open_memstream (&list, &llen)) != NULL) {
    for (size_t i = 0; i < cfg->ndisks; i++)
      fprintf (l, "%s%zu:%s:%zu:%zu", i ? " " : "", i, cfg->disks[i].name, 10811 + 2 * i,
               cfg->disks[i].ctl_sock ? 10812 + 2 * i : 0);
    fclose (l);
  }
  bad |= conf (m, "DISKS", list ? list : "");
  free (list);
  /* the disks, and devices for what the script attaches itself (a
   * recording of its own, as powercut run or explore in the guest make) */
  snprintf (num, sizeof num, "%zu", cfg->ndisks + 16);
  bad |= conf (m, "NBDS", num);
  snprintf (num, sizeof num, "%llu", (unsigned long long) cfg->seed);
  bad |= conf (m, "SEED", num);
  snprintf (num, sizeof num, "%u", cfg->files ? cfg->files : 20);
  bad |= conf (m, "FILES", num);
  snprintf (num, sizeof num, "%u", cfg->commit_s ? cfg->commit_s : 5);
  bad |= conf (m, "COMMIT", num);
  snprintf (num, sizeof num, "%ld.%03ld", cfg->settle_ms / 1000, cfg->settle_ms % 1000);
  bad |= conf (m, "SETTLE", num);
  snprintf (num, sizeof num, "%u", cfg->connections ? cfg->connections : 1);
  bad |= conf (m, "CONNECTIONS", num);
  snprintf (num, sizeof num, "%u", cfg->seconds);
  bad |= conf (m, "SECONDS", num);
  list = NULL;
  if ((l = open_memstream (&list, &llen)) != NULL) {
    for (size_t i = 0; i < cfg->nknobs; i++)
      fprintf (l, "%s%s", i ? " " : "", cfg->knobs[i]);
    fclose (l);
  }
  bad |= conf (m, "SYSCTLS", list ? list : "");
  free (list);
  if (fclose (m) != 0 || bad) {
    free (buf);
    return NULL;
  }
  return buf;
}

/* A program (a name in PATH, or a path) as /bin/BASENAME, with its
 * libraries. */
static int
add_program (struct cpio *c, const char *prog, struct pc_err *why)
{
  char *path = pc_which (prog), dst[PATH_MAX];
  const char *base = strrchr (prog, '/') ? strrchr (prog, '/') + 1 : prog;
  int r;

  if (path == NULL) {
    pc_err_msg (why, "%s: no such program", prog);
    return -ENOENT;
  }
  snprintf (dst, sizeof dst, "bin/%s", base);
  r = pc_cpio_program (c, path, dst, why);
  free (path);
  return r;
}

/* The filesystems the guest has: in run mode cfg->fs, in script mode
 * cfg->filesystems: into fss (NULL-terminated, at most max - 1). */
static void
filesystems (const struct pc_vm_config *cfg, const struct pc_fs **fss, size_t max)
{
  size_t n = 0;

  if (!cfg->script_mode && pc_fs_find (cfg->fs))
    fss[n++] = pc_fs_find (cfg->fs);
  for (char *const *f = cfg->script_mode ? cfg->filesystems : NULL; f && *f && n + 1 < max; f++)
    if (pc_fs_find (*f))
      fss[n++] = pc_fs_find (*f);
  fss[n] = NULL;
}

/* The extra modules, programs and copies (and for each filesystem its
 * module, its mkfs and its own check), into this run's part of the
 * initramfs. */
static int
add_extras (const struct pc_vm_config *cfg, struct cpio *c, const char *moddir,
            char *order, size_t olen, struct pc_err *why)
{
  char depf[PATH_MAX + 16], *dep = NULL;
  const struct pc_fs *fss[16];
  size_t deplen;
  int r = 0;

  filesystems (cfg, fss, 16);
  if ((cfg->extra_modules && cfg->extra_modules[0]) || fss[0]) {
    snprintf (depf, sizeof depf, "%s/modules.dep", moddir);
    r = pc_read_file (depf, &dep, &deplen);
    if (r < 0) {
      pc_err_msg (why, "%s: %s", depf, strerror (-r));
      return r;
    }
    for (char *const *m = cfg->extra_modules; r == 0 && m && *m; m++)
      r = pc_cpio_module (c, moddir, dep, *m, order, olen, 0, why);
    for (const struct pc_fs *const *f = fss; r == 0 && *f; f++)
      r = pc_cpio_module (c, moddir, dep, (*f)->module, order, olen, 0, why);
    free (dep);
  }
  /* mke2fs is in the base, as mkfs.ext2, 3 and 4 */
  for (const struct pc_fs *const *f = fss; r == 0 && *f; f++) {
    char mkfs[32];
    snprintf (mkfs, sizeof mkfs, "mkfs.%s", (*f)->name);
    if (!(*f)->libext2fs)
      r = add_program (c, mkfs, why);
    if (r == 0)
      r = add_program (c, (*f)->check[0], why);
  }
  for (char *const *p = cfg->programs; r == 0 && p && *p; p++)
    r = add_program (c, *p, why);
  for (char *const *p = cfg->copies; r == 0 && p && *p; p++) {
    char dst[PATH_MAX], tmp[PATH_MAX];
    const char *base;
    size_t n;
    snprintf (tmp, sizeof tmp, "%s", *p);
    for (n = strlen (tmp); n > 1 && tmp[n - 1] == '/'; n--)
      tmp[n - 1] = '\0';
    base = strrchr (tmp, '/') ? strrchr (tmp, '/') + 1 : tmp;
    snprintf (dst, sizeof dst, "host/%s", base);
    r = pc_cpio_tree (c, *p, dst, why);
  }
  /* The module load order, without the padding. */
  {
    size_t n = strlen (order);
    while (n && order[n - 1] == ' ')
      order[--n] = '\0';
    memmove (order, order + strspn (order, " "), strlen (order + strspn (order, " ")) + 1);
  }
  return r;
}

/* qemu's -nic: the forwarded addresses.  A unix: chardev carries one
 * connection; a command runs per connection, so nbd-client -C N and every
 * mark get their own.  (qemu's option syntax takes commas as separators:
 * paths must not hold one.) */
static int
forwards (const struct pc_vm_config *cfg, char *fwd, size_t len, struct pc_err *why)
{
  size_t pos = (size_t) snprintf (fwd, len, "user,model=e1000,restrict=on");
  const char *socks[64];
  size_t nsocks = 0;
  unsigned port[64];

  if (cfg->script_mode)
    for (size_t i = 0; i < cfg->ndisks && nsocks + 2 <= 64; i++) {
      socks[nsocks] = cfg->disks[i].nbd_sock;
      port[nsocks++] = 10811 + 2 * (unsigned) i;
      if (cfg->disks[i].ctl_sock) {
        socks[nsocks] = cfg->disks[i].ctl_sock;
        port[nsocks++] = 10812 + 2 * (unsigned) i;
      }
    }
  else {
    socks[0] = cfg->nbd_sock;
    port[0] = 10809;
    socks[1] = cfg->ctl_sock;
    port[1] = 10810;
    nsocks = 2;
  }
  if (strchr (cfg->self, ',') || (cfg->script_mode && cfg->out_path && strchr (cfg->out_path, ','))) {
    pc_err_msg (why, "a path for the guest holds a comma, which qemu cannot take: %s",
                strchr (cfg->self, ',') ? cfg->self : cfg->out_path);
    return -EINVAL;
  }
  for (size_t i = 0; i < nsocks; i++) {
    if (strchr (socks[i], ',')) {
      pc_err_msg (why, "a path for the guest holds a comma, which qemu cannot take: %s",
                  socks[i]);
      return -EINVAL;
    }
    pos += (size_t) snprintf (fwd + pos, pos < len ? len - pos : 0,
                              ",guestfwd=tcp:10.0.2.100:%u-cmd:%s pipe %s", port[i], cfg->self,
                              socks[i]);
  }
  if (pos >= len) {
    pc_err_msg (why, "the paths of the guest's disks are too long");
    return -ENAMETOOLONG;
  }
  return 0;
}

static int boot (const struct pc_vm_config *cfg, const char *kernel, const char *initrd,
                 const char *fwd, bool kvm, struct pc_err *why);
static bool kvm_works (const struct pc_vm_config *cfg, const char *kernel, const char *initrd);

/* The part of the initramfs that depends only on the kernel (version
 * ver), its modules and the powercut program: from the cache folder, built
 * there if it is missing (built in the work folder, and not kept, when
 * there is no cache folder).  Returns a descriptor to read it from, with
 * the load order of its modules in modules, or -errno. */
static int
cached_base (const struct pc_vm_config *cfg, const char *moddir, const char *ver,
             char *modules, size_t mlen, struct pc_err *why)
{
  char dir[PATH_MAX], name[160], mname[176], tmp[224] = "", mtmp[224] = "", custom[64];
  bool keep = true;
  struct stat sst;
  FILE *f;
  int dfd, fd, mfd, r;

  if (stat (cfg->self, &sst) < 0)
    memset (&sst, 0, sizeof sst);
  if (ver == NULL)
    ver = pc_modules_id (moddir, custom, sizeof custom);
  snprintf (name, sizeof name, "initramfs-%.64s-%llx-%llx.cpio", ver,
            (unsigned long long) sst.st_size, (unsigned long long) sst.st_mtime);
  snprintf (mname, sizeof mname, "%s.modules", name);
  dfd = pc_cache_open (dir, sizeof dir, why);
  if (dfd == -ENOENT) {
    keep = false;
    snprintf (dir, sizeof dir, "%s", cfg->work_dir);
    dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
      return pc_err_set (why, errno, "%s: %s", dir, strerror (errno));
  }
  else if (dfd < 0)
    return dfd;

  /* Both found and sound: used; either refused: an error; else built. */
  fd = keep ? pc_cache_read (dfd, dir, name, why) : -ENOENT;
  mfd = keep ? pc_cache_read (dfd, dir, mname, why) : -ENOENT;
  if (fd >= 0 && mfd >= 0) {
    f = fdopen (mfd, "re");
    if (f != NULL) {
      if (fgets (modules, (int) mlen, f) == NULL)
        modules[0] = '\0';
      modules[strcspn (modules, "\n")] = '\0';
      fclose (f);
      close (dfd);
      return fd;
    }
    r = pc_err_set (why, errno, "%s/%s: %s", dir, mname, strerror (errno));
  }
  else
    r = fd < 0 && fd != -ENOENT ? fd : mfd < 0 && mfd != -ENOENT ? mfd : 0;
  if (fd >= 0)
    close (fd);
  if (mfd >= 0)
    close (mfd);
  if (r < 0) {
    close (dfd);
    return r;
  }

  /* Built anew, under names of its own; the list of modules is given its
   * name first, so that a base is never found without it. */
  mfd = keep ? pc_cache_create (dfd, dir, mname, mtmp, sizeof mtmp, why) : -1;
  fd = mfd >= 0 || !keep ? pc_cache_create (dfd, dir, name, tmp, sizeof tmp, why) : mfd;
  f = fd >= 0 ? fdopen (fd, "w") : NULL;
  if (f == NULL)
    r = fd < 0 ? fd : pc_err_set (why, errno, "%s/%s: %s", dir, tmp, strerror (errno));
  else
    r = build_base (cfg, moddir, f, tmp, modules, mlen, why);
  if (r == 0 && keep) {
    if (dprintf (mfd, "%s\n", modules) < 0)
      r = pc_err_set (why, EIO, "%s/%s: %s", dir, mtmp, strerror (EIO));
    else
      r = pc_cache_commit (dfd, dir, mfd, mtmp, mname, why);
    if (r == 0)
      r = pc_cache_commit (dfd, dir, fd, tmp, name, why);
  }
  if (r == 0) {
    fd = openat (dfd, keep ? name : tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      r = pc_err_set (why, errno, "%s/%s: %s", dir, keep ? name : tmp, strerror (errno));
  }
  if (f)
    fclose (f);
  else if (fd >= 0 && r < 0)
    close (fd);
  if (r < 0 || !keep)
    unlinkat (dfd, tmp, 0);
  if (mfd >= 0) {
    if (r < 0)
      unlinkat (dfd, mtmp, 0);
    close (mfd);
  }
  close (dfd);
  return r < 0 ? r : fd;
}

/* pc_vm_run, with why's message empty until the first reason. */
static int
vm_run (const struct pc_vm_config *cfg, struct pc_err *why)
{
  char *kernel = cfg->kernel ? strdup (cfg->kernel) : pc_vm_default_kernel ();
  char moddir[PATH_MAX], initrd[PATH_MAX], modules[1024], fwd[16384];
  const char *ver;
  struct stat st;
  FILE *f;
  int r = 0, base;

  if (kernel == NULL || stat (kernel, &st) < 0) {
    pc_err_msg (why, "%s: no kernel to boot (install a linux-image package, or give --kernel)",
                kernel ? kernel : "/boot/vmlinuz-*");
    free (kernel);
    return -ENOENT;
  }
  ver = strstr (kernel, "vmlinuz-") ? strstr (kernel, "vmlinuz-") + 8 : NULL;
  if (cfg->modules)
    snprintf (moddir, sizeof moddir, "%s", cfg->modules);
  else if (ver)
    snprintf (moddir, sizeof moddir, "/lib/modules/%s", ver);
  else {
    pc_err_msg (why, "%s: cannot tell its version: give --modules DIR", kernel);
    free (kernel);
    return -EINVAL;
  }

  base = cached_base (cfg, moddir, ver, modules, sizeof modules, why);
  if (base < 0) {
    free (kernel);
    return base;
  }

  /* This run's initramfs: the base, then the configuration (and script). */
  snprintf (initrd, sizeof initrd, "%s/initrd.img", cfg->work_dir);
  {
    int fd = open (initrd, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    f = fd >= 0 ? fdopen (fd, "we") : NULL;
    if (f == NULL || concat (f, base) < 0) {
      pc_err_msg (why, "%s: %s", initrd, strerror (errno));
      if (f)
        fclose (f);
      else if (fd >= 0)
        close (fd);
      if (f == NULL)
        close (base);
      free (kernel);
      return -EIO;
    }
  }
  {
    struct cpio c = { f, 100000, NULL, 0, 0 };
    char order[1024];
    snprintf (order, sizeof order, " %s ", modules);
    r = add_extras (cfg, &c, moddir, order, sizeof order, why);
    if (r == 0) {
      char *text = write_conf (cfg, order);
      if (text == NULL)
        r = pc_err_set (why, ENOMEM, "%s", strerror (ENOMEM));
      else
        pc_cpio_entry (&c, "powercut.conf", 0100644, text, strlen (text));
      free (text);
      if (cfg->script && pc_cpio_copy (&c, cfg->script, "workload.sh", 0100755) < 0) {
        pc_err_msg (why, "%s: cannot read it", cfg->script);
        r = -EIO;
      }
    }
    if (pc_cpio_end (&c) < 0 && r == 0)
      r = -EIO;
    pc_cpio_free (&c);
  }
  if (r == 0)
    r = forwards (cfg, fwd, sizeof fwd, why);
  if (r < 0) {
    unlink (initrd);
    free (kernel);
    return r;
  }

  /* KVM where it works, else TCG.  Nested virtualisation often fails, at
   * once or part-way; a guest that stopped part-way would leave half a
   * recording, so KVM is tried on a probe boot first, with no disk. */
  r = boot (cfg, kernel, initrd, fwd, kvm_works (cfg, kernel, initrd), why);
  unlink (initrd);
  free (kernel);
  return r;
}

/* Does the file at path hold one of the words?  (Read whole: a probe's
 * console is short.) */
static bool
says (const char *path, const char *const *words)
{
  char *text = NULL;
  size_t len;
  bool found = false;

  if (pc_read_file (path, &text, &len) < 0)
    return false;
  for (; *words && !found; words++)
    found = strstr (text, *words) != NULL;
  free (text);
  return found;
}

/* Runs qemu on kernel and initrd with args, its output to out, for up to
 * timeout_s, or until out holds one of the words of done (NULL: none),
 * when it is stopped.  Returns qemu's wait status, or -ETIME, -EINTR,
 * -ECANCELED (done), -errno. */
static int
qemu (const char *kernel, const char *initrd, bool kvm, const char *append, const char *nic,
      unsigned memory_mb, const char *out_path, const char *serial2, int timeout_s,
      const char *const *done)
{
  char mem[16], *ser2 = NULL;
  uint64_t deadline = pc_now_mono_ns () + (uint64_t) timeout_s * 1000000000u;
  pid_t pid;
  int status;

  snprintf (mem, sizeof mem, "%u", memory_mb ? memory_mb : 768);
  if (serial2 && asprintf (&ser2, "file:%s", serial2) < 0)
    return -ENOMEM;
  pid = fork ();

  if (pid < 0) {
    free (ser2);
    return -errno;
  }
  if (pid == 0) {
    int out = open (out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int nul = open ("/dev/null", O_RDONLY);
    if (out >= 0) {
      dup2 (out, 1);
      dup2 (out, 2);
    }
    if (nul >= 0)
      dup2 (nul, 0);
    setpgid (0, 0);
    /* the console on the first serial port (ttyS0), the second (ttyS1)
     * into serial2's file */
    execlp ("qemu-system-x86_64", "qemu-system-x86_64", "-accel", kvm ? "kvm" : "tcg",
            "-cpu", kvm ? "host" : "max", "-m", mem, "-smp", "2", "-nographic", "-no-reboot",
            "-kernel", kernel, "-initrd", initrd, "-append", append, "-nic", nic,
            ser2 ? "-serial" : (char *) NULL, "mon:stdio", "-serial", ser2, (char *) NULL);
    _exit (127);
  }
  free (ser2);
  for (;;) {
    struct timespec ts = { 0, 100 * 1000 * 1000 };
    bool late = pc_now_mono_ns () > deadline, seen = false;
    if (waitpid (pid, &status, WNOHANG) == pid)
      return status;
    if (late || pc_interrupted () || (done && (seen = says (out_path, done)))) {
      kill (-pid, SIGKILL);
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      return late ? -ETIME : seen ? -ECANCELED : -EINTR;
    }
    nanosleep (&ts, NULL);
  }
}

/* Does a KVM guest boot to our init and power off here?  (Asked once.)
 * Where nested virtualisation fails, qemu says so ("KVM internal error")
 * and waits with the guest stopped: the probe ends there, not at its
 * time limit. */
static bool
kvm_works (const struct pc_vm_config *cfg, const char *kernel, const char *initrd)
{
  static const char *const done[] = { "POWERCUT-PROBE-OK", "KVM internal error", NULL };
  static const char *const ok[] = { "POWERCUT-PROBE-OK", NULL };
  static int known = -1;
  char out[PATH_MAX + 16];
  int st;

  if (known >= 0)
    return known;
  known = 0;
  if (access ("/dev/kvm", R_OK | W_OK) < 0)
    return false;
  snprintf (out, sizeof out, "%s/kvm-probe.txt", cfg->work_dir);
  st = qemu (kernel, initrd, true, "console=ttyS0 panic=-1 quiet powercut.probe", "none", 0,
             out, NULL, 60, done);
  known = (st >= 0 || st == -ECANCELED) && says (out, ok);
  unlink (out);
  return known;
}

/* The line of console (length len) that says why the guest stopped: the
 * kernel's panic if it has one, else its last line, at most 160 bytes. */
static void
last_words (const char *console, char *out, size_t len)
{
  const char *p = strstr (console, "Kernel panic - not syncing");
  const char *end = console + strlen (console);
  size_t n;

  if (p == NULL) {
    while (end > console && (end[-1] == '\n' || end[-1] == '\r'))
      end--;
    p = end;
    while (p > console && p[-1] != '\n')
      p--;
  }
  n = strcspn (p, "\r\n");
  if (n > (size_t) (end - p))
    n = (size_t) (end - p);
  snprintf (out, len, "%.*s", (int) (n < 160 ? n : 160), p);
}

/* One boot of the guest that runs the workload.  A kernel that stops
 * before our init has run (a panic while it unpacks the initramfs under
 * TCG, seen in a test run) has run nothing of the workload and touched no
 * disk: it is booted once more, and the first boot's console is added at
 * the end of the second's. */
static int
boot (const struct pc_vm_config *cfg, const char *kernel, const char *initrd, const char *fwd,
      bool kvm, struct pc_err *why)
{
  char *console = NULL, *first = NULL, words[176], append[96];
  size_t clen, flen = 0;
  int status, r = 0;

  /* nbd's device count also for a kernel that has it built in (init's
   * insmod gives it to a module) */
  snprintf (append, sizeof append, "console=ttyS0 panic=-1 quiet loglevel=3 nbd.nbds_max=%zu",
            cfg->ndisks + 16);
  for (int attempt = 0;; attempt++) {
    status = qemu (kernel, initrd, kvm, append, fwd,
                   cfg->memory_mb, cfg->console_path, cfg->script_mode ? cfg->out_path : NULL,
                   cfg->timeout_s, NULL);
    if (status >= 0 && pc_read_file (cfg->console_path, &console, &clen) < 0)
      console = NULL;
    if (first) {
      FILE *f = fopen (cfg->console_path, "ae");
      if (f) {
        fprintf (f, "\n[powercut: an earlier boot stopped before its init ran; its console:]\n");
        fwrite (first, 1, flen, f);
        fclose (f);
      }
      free (first);
      first = NULL;
    }
    if (attempt > 0 || status < 0 || console == NULL || strstr (console, "POWERCUT-INIT")
        || (WIFEXITED (status) && WEXITSTATUS (status) == 127))
      break;
    first = console;
    flen = clen;
    console = NULL;
  }
  if (status == -ETIME || status == -EINTR) {
    pc_err_msg (why, status == -ETIME
                ? "the guest did not finish within %d s (its console: %s)" : "interrupted",
                cfg->timeout_s, cfg->console_path);
    return status;
  }
  if (status < 0)
    return status;
  if (WIFEXITED (status) && WEXITSTATUS (status) == 127) {
    free (console);
    pc_err_msg (why, "qemu-system-x86_64: not found (package qemu-system-x86)");
    return -ENOENT;
  }
  if (console == NULL) {
    pc_err_msg (why, "%s: the guest left no console output", cfg->console_path);
    return -EIO;
  }
  {
    const char *s = strstr (console, "POWERCUT-STATUS ");
    int gst = s ? atoi (s + 16) : -1;
    static const char *const step[] = { "attaching /dev/nbd0", "mkfs", "mount",
                                        "the mkfs mark", "the end mark", "umount",
                                        "setting the writeback knobs",
                                        "the marks and the settle after the workload",
                                        "setting up its output port" };
    const char *sc = strstr (console, "POWERCUT-SCRIPT ");
    if (gst == 0 && cfg->script_mode && sc == NULL) {
      pc_err_msg (why, "the guest's script left no status (its console: %s)", cfg->console_path);
      r = -ECHILD;
    }
    else if (gst == 0) {
      if (cfg->script_mode && cfg->script_status)
        *cfg->script_status = atoi (sc + 16);
      r = 0;
    }
    else if (gst < 0) {
      last_words (console, words, sizeof words);
      pc_err_msg (why, "the guest did not finish: '%s' (its console: %s)", words,
                  cfg->console_path);
      r = -ECHILD;
    }
    else {
      pc_err_msg (why, "in the guest, %s failed (status %d; its console: %s)",
                  gst >= 210 && gst <= 218 ? step[gst - 210] : "the workload", gst,
                  cfg->console_path);
      r = -EIO;
    }
  }
  free (console);
  return r;
}

int
pc_vm_run (const struct pc_vm_config *cfg, struct pc_err *err)
{
  struct pc_err local;
  int r;

  local.msg[0] = '\0';
  r = vm_run (cfg, &local);
  if (r < 0)
    pc_err_set (err, -r, "%s", local.msg[0] ? local.msg : strerror (-r));
  return r;
}
