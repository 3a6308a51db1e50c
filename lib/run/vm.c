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
#include "util/util.h"
#include "run/vm.h"
#include "util/err.h"

/* The guest's /init.  It reads /powercut.conf (shell assignments). */
static const char guest_init[] =
"#!/bin/busybox sh\n"
"/bin/busybox --install -s /bin\n"
"export PATH=/bin:/sbin:/usr/bin:/usr/sbin\n"
"mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev\n"
"echo 1 > /proc/sys/kernel/printk\n"
"if grep -q powercut.probe /proc/cmdline; then echo POWERCUT-PROBE-OK; poweroff -f; fi\n"
". /powercut.conf\n"
"say () { echo \"powercut-guest: $*\"; }\n"
"finish () { echo \"POWERCUT-STATUS $1\"; sync; poweroff -f; }\n"
"for m in $MODULES; do\n"
"  case $m in nbd) insmod /lib/modules/nbd.ko nbds_max=2 ;; *) insmod /lib/modules/$m.ko ;; esac\n"
"done\n"
"ip link set lo up; ip link set eth0 up; ip addr add 10.0.2.15/24 dev eth0\n"
"say attaching /dev/nbd0 over $CONNECTIONS connection\\(s\\)\n"
"nbd-client 10.0.2.100 10809 /dev/nbd0 -b 4096 -N '' -C \"$CONNECTIONS\" || finish 210\n"
"mkfs.$FS -q -F $MKFS_OPTS /dev/nbd0 || finish 211\n"
"for s in $SYSCTLS; do echo \"${s#*=}\" > /proc/sys/$(echo \"${s%%=*}\" | tr . /) || finish 216; done\n"
"mkdir -p /mnt\n"
"if [ -n \"$MOUNT_OPTS\" ]; then mount -t $FS -o \"$MOUNT_OPTS\" /dev/nbd0 /mnt || finish 212\n"
"else mount -t $FS /dev/nbd0 /mnt || finish 212; fi\n"
"export POWERCUT_CONTROL=tcp:10.0.2.100:10810 POWERCUT_MNT=/mnt POWERCUT=/bin/powercut\n"
"powercut mark mkfs --manifest /mnt --sync || finish 213\n"
"say running the workload\n"
"if [ -n \"$TRACED\" ]; then T='powercut trace --quiet --'; else T=; fi\n"
"if [ -x /workload.sh ]; then\n"
"  (cd /mnt && eval \"$T /workload.sh $ARGS\"); st=$?\n"
"  [ $st = 0 ] && { powercut mark end --manifest /mnt --sync || st=214; }\n"
"else\n"
"  (cd /mnt && $T powercut workload \"$WORKLOAD\" --dir /mnt --seed \"$SEED\" --files \"$FILES\" --commit \"$COMMIT\" --seconds \"$SECONDS\"); st=$?\n"
"fi\n"
"cd /; umount /mnt || { [ $st = 0 ] && st=215; }\n"
"nbd-client -d /dev/nbd0\n"
"finish $st\n";

/* ---------------------------------------------------------------------
 * A cpio "newc" archive writer, as the kernel's initramfs unpacker reads. */

struct cpio {
  FILE *f;
  unsigned ino;
  char **dirs;                  /* directories already in the archive */
  size_t ndirs;
  int err;
};

static void
cpio_pad (struct cpio *c, size_t n)
{
  static const char z[4];

  if (n % 4 && fwrite (z, 1, 4 - n % 4, c->f) != 4 - n % 4)
    c->err = -EIO;
}

static void
cpio_entry (struct cpio *c, const char *name, unsigned mode, const void *data, size_t len)
{
  char hdr[160];
  size_t nlen = strlen (name) + 1;

  snprintf (hdr, sizeof hdr, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
            ++c->ino, mode, 0u, 0u, 1u, 0u, (unsigned) len, 0u, 0u, 0u, 0u,
            (unsigned) nlen, 0u);
  if (fwrite (hdr, 1, 110, c->f) != 110 || fwrite (name, 1, nlen, c->f) != nlen)
    c->err = -EIO;
  cpio_pad (c, 110 + nlen);
  if (len && fwrite (data, 1, len, c->f) != len)
    c->err = -EIO;
  cpio_pad (c, len);
}

/* Adds the directories above name (a path without a leading '/'). */
static void
cpio_parents (struct cpio *c, const char *name)
{
  char buf[PATH_MAX];

  snprintf (buf, sizeof buf, "%s", name);
  for (char *p = strchr (buf, '/'); p; p = strchr (p + 1, '/')) {
    bool seen = false;
    *p = '\0';
    for (size_t i = 0; i < c->ndirs && !seen; i++)
      seen = strcmp (c->dirs[i], buf) == 0;
    if (!seen) {
      char **n = realloc (c->dirs, (c->ndirs + 1) * sizeof *n);
      if (n) {
        c->dirs = n;
        c->dirs[c->ndirs++] = strdup (buf);
        cpio_entry (c, buf, 040755, NULL, 0);
      }
    }
    *p = '/';
  }
}

static int
read_file (const char *path, char **ret, size_t *ret_len)
{
  struct stat st;
  char *buf;
  int fd = open (path, O_RDONLY | O_CLOEXEC), r;

  if (fd < 0)
    return -errno;
  if (fstat (fd, &st) < 0 || (buf = malloc ((size_t) st.st_size + 1)) == NULL) {
    close (fd);
    return -ENOMEM;
  }
  r = pc_read_all (fd, buf, (size_t) st.st_size);
  close (fd);
  if (r < 0) {
    free (buf);
    return r;
  }
  buf[st.st_size] = '\0';
  *ret = buf;
  *ret_len = (size_t) st.st_size;
  return 0;
}

/* Copies the host file src into the archive as dst (no leading '/'). */
static int
cpio_copy (struct cpio *c, const char *src, const char *dst, unsigned mode)
{
  char *data;
  size_t len;
  int r = read_file (src, &data, &len);

  if (r < 0)
    return r;
  cpio_parents (c, dst);
  cpio_entry (c, dst, mode, data, len);
  free (data);
  return c->err;
}

/* Adds an executable and every shared library ldd says it needs. */
static int
cpio_program (struct cpio *c, const char *path, const char *dst, struct pc_err *why)
{
  char *argv[] = { "ldd", (char *) path, NULL }, out[8192];
  int r = cpio_copy (c, path, dst, 0100755);

  if (r < 0) {
    pc_err_msg (why, "%s: %s", path, strerror (-r));
    return r;
  }
  /* A static program makes ldd fail: it needs nothing. */
  if (pc_proc_run (argv, 60, out, sizeof out) != 0)
    return 0;
  for (char *l = strtok (out, "\n"); l; l = strtok (NULL, "\n")) {
    char *lib = strstr (l, "=> ");
    char *sp;
    lib = lib ? lib + 3 : l;
    while (*lib == ' ' || *lib == '\t')
      lib++;
    if (*lib != '/')
      continue;
    sp = strchr (lib, ' ');
    if (sp)
      *sp = '\0';
    r = cpio_copy (c, lib, lib + 1, 0100755);
    if (r < 0) {
      pc_err_msg (why, "%s: %s", lib, strerror (-r));
      return r;
    }
  }
  return 0;
}

/* Writes a module, decompressed, as lib/modules/NAME.ko. */
static int
cpio_module (struct cpio *c, const char *moddir, const char *rel, struct pc_err *why)
{
  char src[PATH_MAX], tmp[] = "/tmp/powercut-ko.XXXXXX", name[128], dst[160];
  const char *base = strrchr (rel, '/') ? strrchr (rel, '/') + 1 : rel;
  size_t n = strcspn (base, ".");
  int r, fd;
  pid_t pid;

  snprintf (src, sizeof src, "%s/%s", moddir, rel);
  snprintf (name, sizeof name, "%.*s", (int) n, base);
  for (char *p = name; *p; p++)
    if (*p == '-')
      *p = '_';
  snprintf (dst, sizeof dst, "lib/modules/%s.ko", name);
  if (strstr (base, ".ko.xz") == NULL && strstr (base, ".ko.zst") == NULL &&
      strstr (base, ".ko.gz") == NULL)
    return cpio_copy (c, src, dst, 0100644);
  fd = mkstemp (tmp);
  if (fd < 0)
    return -errno;
  pid = fork ();
  if (pid == 0) {
    const char *tool = strstr (base, ".xz") ? "xz" : strstr (base, ".zst") ? "zstd" : "gzip";
    dup2 (fd, 1);
    execlp (tool, tool, "-dc", src, (char *) NULL);
    _exit (127);
  }
  close (fd);
  if (pid < 0 || waitpid (pid, &r, 0) < 0 || !WIFEXITED (r) || WEXITSTATUS (r) != 0) {
    unlink (tmp);
    pc_err_msg (why, "%s: cannot decompress it (xz installed?)", src);
    return -EIO;
  }
  r = cpio_copy (c, tmp, dst, 0100644);
  unlink (tmp);
  return r;
}

/* The module name of a modules.dep path: "kernel/fs/jbd2/jbd2.ko.xz" ->
 * "jbd2" (dashes as underscores, as the kernel names modules). */
static void
mod_name (const char *path, size_t len, char *out, size_t olen)
{
  const char *b = path;

  for (size_t i = 0; i < len; i++)
    if (path[i] == '/')
      b = path + i + 1;
  snprintf (out, olen, "%.*s", (int) strcspn (b, ".: "), b);
  for (char *q = out; *q; q++)
    if (*q == '-')
      *q = '_';
}

/* Adds module name and, first, what modules.dep says it needs; appends
 * the load order to order (" a b c "). */
static int
add_module (struct cpio *c, const char *moddir, const char *dep, const char *name,
            char *order, size_t olen, int depth, struct pc_err *why)
{
  char key[160], path[512], deps[32][128];
  const char *line = NULL;
  size_t ndeps = 0;
  int r;

  snprintf (key, sizeof key, " %s ", name);
  if (depth > 16 || strstr (order, key))
    return 0;
  /* Its line: "PATH: DEP DEP ..." where PATH names the module. */
  for (const char *l = dep; *l; ) {
    const char *colon = strchr (l, ':'), *nl = strchr (l, '\n');
    char n[128];
    if (colon == NULL)
      break;
    if (nl == NULL)
      nl = l + strlen (l);
    if (colon < nl) {
      mod_name (l, (size_t) (colon - l), n, sizeof n);
      if (strcmp (n, name) == 0) {
        line = l;
        break;
      }
    }
    l = *nl ? nl + 1 : nl;
  }
  if (line == NULL) {
    pc_err_msg (why, "%s: no module %s in its modules.dep", moddir, name);
    return -ENOENT;
  }
  {
    const char *colon = strchr (line, ':'), *nl = strchr (line, '\n'), *d;
    if (nl == NULL)
      nl = line + strlen (line);
    snprintf (path, sizeof path, "%.*s", (int) (colon - line), line);
    for (d = colon + 1; d < nl && ndeps < 32;) {
      size_t len;
      while (d < nl && *d == ' ')
        d++;
      len = strcspn (d, " \n");
      if (len == 0)
        break;
      mod_name (d, len, deps[ndeps++], sizeof deps[0]);
      d += len;
    }
  }
  for (size_t i = 0; i < ndeps; i++) {
    r = add_module (c, moddir, dep, deps[i], order, olen, depth + 1, why);
    if (r < 0)
      return r;
  }
  r = cpio_module (c, moddir, path, why);
  if (r < 0)
    return r;
  snprintf (order + strlen (order), olen - strlen (order), "%s ", name);
  return 0;
}

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

static const char *
find_program (const char *const *cands)
{
  for (; *cands; cands++)
    if (access (*cands, X_OK) == 0)
      return *cands;
  return NULL;
}

/* The part of the initramfs that depends only on kernel and programs. */
static int
build_base (const struct pc_vm_config *cfg, const char *moddir, const char *path,
            char *modules_out, size_t mlen, struct pc_err *why)
{
  static const char *const busybox[] = { "/bin/busybox", "/usr/bin/busybox", NULL };
  static const char *const nbdc[] = { "/usr/sbin/nbd-client", "/sbin/nbd-client", NULL };
  static const char *const mke2fs[] = { "/usr/sbin/mke2fs", "/sbin/mke2fs", NULL };
  static const char *const want[] = { "e1000", "crc32c_generic", "nbd", "ext4", NULL };
  const char *bb = find_program (busybox), *nc = find_program (nbdc), *mk = find_program (mke2fs);
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
  r = read_file (depf, &dep, &deplen);
  if (r < 0) {
    pc_err_msg (why, "%s: %s", depf, strerror (-r));
    return r;
  }
  c.f = fopen (path, "we");
  if (c.f == NULL) {
    r = -errno;
    pc_err_msg (why, "%s: %s", path, strerror (-r));
    free (dep);
    return r;
  }
  cpio_entry (&c, "init", 0100755, guest_init, sizeof guest_init - 1);
  {
    static const char *const dirs[] = { "proc", "sys", "dev", "mnt", "tmp", "etc", NULL };
    for (const char *const *d = dirs; *d; d++)
      cpio_entry (&c, *d, 040755, NULL, 0);
  }
  r = cpio_program (&c, bb, "bin/busybox", why);
  if (r == 0)
    r = cpio_program (&c, nc, "bin/nbd-client", why);
  if (r == 0)
    r = cpio_program (&c, mk, "bin/mke2fs", why);
  if (r == 0)
    r = cpio_program (&c, cfg->self, "bin/powercut", why);
  if (r == 0 && access ("/etc/mke2fs.conf", R_OK) == 0)
    r = cpio_copy (&c, "/etc/mke2fs.conf", "etc/mke2fs.conf", 0100644);
  for (const char *const *fs = (const char *const[]) { "ext2", "ext3", "ext4", NULL }; r == 0 && *fs; fs++) {
    char name[32];
    snprintf (name, sizeof name, "bin/mkfs.%s", *fs);
    cpio_entry (&c, name, 0120777, "mke2fs", 6);
  }
  for (const char *const *m = want; r == 0 && *m; m++)
    r = add_module (&c, moddir, dep, *m, order, sizeof order, 0, why);
  if (r == 0 && c.err)
    r = c.err;
  if (fclose (c.f) != 0 && r == 0)
    r = -EIO;
  for (size_t i = 0; i < c.ndirs; i++)
    free (c.dirs[i]);
  free (c.dirs);
  free (dep);
  if (r < 0) {
    if (!why->msg[0])
      pc_err_msg (why, "%s: %s", path, strerror (-r));
    unlink (path);
    return r;
  }
  snprintf (modules_out, mlen, "%s", order + 1);
  return 0;
}

/* Appends a shell assignment with the value single-quoted. */
static void
conf (FILE *f, const char *name, const char *value)
{
  char q[4 * 4096 + 3];

  pc_shell_quote (value ? value : "", q, sizeof q);
  fprintf (f, "%s=%s\n", name, q);
}

static int
concat (FILE *out, const char *path)
{
  char buf[1 << 16];
  size_t n;
  FILE *in = fopen (path, "re");

  if (in == NULL)
    return -errno;
  while ((n = fread (buf, 1, sizeof buf, in)) > 0)
    if (fwrite (buf, 1, n, out) != n) {
      fclose (in);
      return -EIO;
    }
  fclose (in);
  return 0;
}

static int boot (const struct pc_vm_config *cfg, const char *kernel, const char *initrd,
                 const char *fwd, bool kvm, struct pc_err *why);
static bool kvm_works (const struct pc_vm_config *cfg, const char *kernel, const char *initrd);

/* pc_vm_run, with why's message empty until the first reason. */
static int
vm_run (const struct pc_vm_config *cfg, struct pc_err *why)
{
  char *kernel = cfg->kernel ? strdup (cfg->kernel) : pc_vm_default_kernel ();
  char moddir[PATH_MAX], cache[PATH_MAX], base[PATH_MAX + 64], initrd[PATH_MAX], modules[1024];
  char confbuf[8192], fwd[2 * PATH_MAX];
  const char *ver, *home = getenv ("HOME");
  struct stat st, sst;
  FILE *f;
  int r = 0;

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

  /* The cached base: per kernel, modules and powercut binary. */
  snprintf (cache, sizeof cache, "%s/.cache", home && *home ? home : "/tmp");
  mkdir (cache, 0755);
  strncat (cache, "/powercut", sizeof cache - strlen (cache) - 1);
  mkdir (cache, 0755);
  stat (cfg->self, &sst);
  snprintf (base, sizeof base, "%s/initramfs-%s-%llx-%llx.cpio", cache, ver ? ver : "custom",
            (unsigned long long) sst.st_size, (unsigned long long) sst.st_mtime);
  snprintf (confbuf, sizeof confbuf, "%s.modules", base);
  if (access (base, R_OK) == 0 && (f = fopen (confbuf, "re")) != NULL) {
    if (fgets (modules, sizeof modules, f) == NULL)
      modules[0] = '\0';
    modules[strcspn (modules, "\n")] = '\0';
    fclose (f);
  }
  else {
    char tmp[PATH_MAX + 80];
    snprintf (tmp, sizeof tmp, "%s.%d", base, (int) getpid ());
    r = build_base (cfg, moddir, tmp, modules, sizeof modules, why);
    if (r < 0) {
      free (kernel);
      return r;
    }
    rename (tmp, base);
    if ((f = fopen (confbuf, "we")) != NULL) {
      fprintf (f, "%s\n", modules);
      fclose (f);
    }
  }

  /* This run's initramfs: the base, then the configuration (and script). */
  snprintf (initrd, sizeof initrd, "%s/initrd.img", cfg->work_dir);
  f = fopen (initrd, "we");
  if (f == NULL || concat (f, base) < 0) {
    pc_err_msg (why, "%s: %s", initrd, strerror (errno));
    if (f)
      fclose (f);
    free (kernel);
    return -EIO;
  }
  {
    struct cpio c = { f, 100000, NULL, 0, 0 };
    FILE *m = fmemopen (confbuf, sizeof confbuf, "w");
    char num[32];
    conf (m, "MODULES", modules);
    conf (m, "FS", cfg->fs);
    conf (m, "MKFS_OPTS", cfg->mkfs_opts);
    conf (m, "MOUNT_OPTS", cfg->mount_opts);
    conf (m, "WORKLOAD", cfg->workload);
    conf (m, "TRACED", cfg->traced ? "1" : "");
    /* The script's arguments, each single-quoted, for eval in the guest. */
    {
      char args[4096] = "";
      size_t pos = 0;
      for (char *const *a = cfg->script_args; a && *a && pos + 4 < sizeof args; a++) {
        pos += pc_shell_quote (*a, args + pos, sizeof args - pos - 1);
        args[pos++] = ' ';
        args[pos] = '\0';
      }
      conf (m, "ARGS", args);
    }
    snprintf (num, sizeof num, "%llu", (unsigned long long) cfg->seed);
    conf (m, "SEED", num);
    snprintf (num, sizeof num, "%u", cfg->files ? cfg->files : 20);
    conf (m, "FILES", num);
    snprintf (num, sizeof num, "%u", cfg->commit_s ? cfg->commit_s : 5);
    conf (m, "COMMIT", num);
    snprintf (num, sizeof num, "%u", cfg->connections ? cfg->connections : 1);
    conf (m, "CONNECTIONS", num);
    snprintf (num, sizeof num, "%u", cfg->seconds);
    conf (m, "SECONDS", num);
    {
      char sc[1024] = "";
      size_t pos = 0;
      for (size_t i = 0; i < cfg->nsysctls && pos < sizeof sc; i++)
        pos += (size_t) snprintf (sc + pos, sizeof sc - pos, "%s%s=%s", i ? " " : "",
                                  cfg->sysctls[i].name, cfg->sysctls[i].value);
      conf (m, "SYSCTLS", sc);
    }
    fclose (m);
    cpio_entry (&c, "powercut.conf", 0100644, confbuf, strlen (confbuf));
    if (cfg->script && cpio_copy (&c, cfg->script, "workload.sh", 0100755) < 0) {
      pc_err_msg (why, "%s: cannot read it", cfg->script);
      r = -EIO;
    }
    cpio_entry (&c, "TRAILER!!!", 0, NULL, 0);
    if (fclose (f) != 0 || c.err)
      r = r ? r : -EIO;
  }
  if (r < 0) {
    unlink (initrd);
    free (kernel);
    return r;
  }

  /* A unix: chardev carries one connection; a command runs per connection,
   * so nbd-client -C N and every mark get their own.  (qemu's option
   * syntax takes commas as separators: paths must not hold one.) */
  if (strchr (cfg->self, ',') || strchr (cfg->nbd_sock, ',') || strchr (cfg->ctl_sock, ',')) {
    pc_err_msg (why, "a path for the guest holds a comma, which qemu cannot take: %s",
                strchr (cfg->self, ',') ? cfg->self : cfg->nbd_sock);
    unlink (initrd);
    free (kernel);
    return -EINVAL;
  }
  snprintf (fwd, sizeof fwd,
            "user,model=e1000,restrict=on,guestfwd=tcp:10.0.2.100:10809-cmd:%s pipe %s,"
            "guestfwd=tcp:10.0.2.100:10810-cmd:%s pipe %s", cfg->self, cfg->nbd_sock,
            cfg->self, cfg->ctl_sock);
  /* KVM where it works, else TCG.  Nested virtualisation often fails, at
   * once or part-way; a guest that stopped part-way would leave half a
   * recording, so KVM is tried on a probe boot first, with no disk. */
  r = boot (cfg, kernel, initrd, fwd, kvm_works (cfg, kernel, initrd), why);
  unlink (initrd);
  free (kernel);
  return r;
}

/* Runs qemu on kernel and initrd with args, its output to out, for up to
 * timeout_s.  Returns qemu's wait status, or -ETIME, -EINTR, -errno. */
static int
qemu (const char *kernel, const char *initrd, bool kvm, const char *append, const char *nic,
      const char *out_path, int timeout_s)
{
  uint64_t deadline = pc_now_mono_ns () + (uint64_t) timeout_s * 1000000000u;
  pid_t pid = fork ();
  int status;

  if (pid < 0)
    return -errno;
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
    execlp ("qemu-system-x86_64", "qemu-system-x86_64", "-accel", kvm ? "kvm" : "tcg",
            "-cpu", kvm ? "host" : "max", "-m", "768", "-smp", "2", "-nographic", "-no-reboot",
            "-kernel", kernel, "-initrd", initrd, "-append", append, "-nic", nic, (char *) NULL);
    _exit (127);
  }
  for (;;) {
    struct timespec ts = { 0, 100 * 1000 * 1000 };
    bool late = pc_now_mono_ns () > deadline;
    if (waitpid (pid, &status, WNOHANG) == pid)
      return status;
    if (late || pc_interrupted ()) {
      kill (-pid, SIGKILL);
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      return late ? -ETIME : -EINTR;
    }
    nanosleep (&ts, NULL);
  }
}

/* Does a KVM guest boot to our init and power off here?  (Asked once.) */
static bool
kvm_works (const struct pc_vm_config *cfg, const char *kernel, const char *initrd)
{
  static int known = -1;
  char out[PATH_MAX + 16], *text = NULL;
  size_t len;

  if (known >= 0)
    return known;
  known = 0;
  if (access ("/dev/kvm", R_OK | W_OK) < 0)
    return false;
  snprintf (out, sizeof out, "%s/kvm-probe.txt", cfg->work_dir);
  if (qemu (kernel, initrd, true, "console=ttyS0 panic=-1 quiet powercut.probe", "none",
            out, 60) >= 0 && read_file (out, &text, &len) == 0)
    known = strstr (text, "POWERCUT-PROBE-OK") != NULL;
  free (text);
  unlink (out);
  return known;
}

/* One boot of the guest that runs the workload. */
static int
boot (const struct pc_vm_config *cfg, const char *kernel, const char *initrd, const char *fwd,
      bool kvm, struct pc_err *why)
{
  char *console = NULL;
  size_t clen;
  int status, r = 0;

  status = qemu (kernel, initrd, kvm, "console=ttyS0 panic=-1 quiet loglevel=3", fwd,
                 cfg->console_path, cfg->timeout_s);
  if (status == -ETIME || status == -EINTR) {
    pc_err_msg (why, status == -ETIME
                ? "the guest did not finish within %d s (its console: %s)" : "interrupted",
                cfg->timeout_s, cfg->console_path);
    return status;
  }
  if (status < 0)
    return status;
  if (WIFEXITED (status) && WEXITSTATUS (status) == 127) {
    pc_err_msg (why, "qemu-system-x86_64: not found (package qemu-system-x86)");
    return -ENOENT;
  }
  if (read_file (cfg->console_path, &console, &clen) < 0) {
    pc_err_msg (why, "%s: the guest left no console output", cfg->console_path);
    return -EIO;
  }
  {
    const char *s = strstr (console, "POWERCUT-STATUS ");
    int gst = s ? atoi (s + 16) : -1;
    static const char *const step[] = { "attaching /dev/nbd0", "mkfs", "mount",
                                        "the mkfs mark", "the end mark", "umount",
                                        "setting the writeback knobs" };
    if (gst == 0)
      r = 0;
    else if (gst < 0) {
      /* Its last words say why, mostly. */
      char *end = console + strlen (console), *last;
      while (end > console && (end[-1] == '\n' || end[-1] == '\r'))
        *--end = '\0';
      last = strrchr (console, '\n');
      last = last ? last + 1 : console;
      pc_err_msg (why, "the guest did not finish: '%.160s' (its console: %s)", last,
                  cfg->console_path);
      r = -ECHILD;
    }
    else {
      pc_err_msg (why, "in the guest, %s failed (status %d; its console: %s)",
                  gst >= 210 && gst <= 216 ? step[gst - 210] : "the workload", gst,
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
