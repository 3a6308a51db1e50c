/* check_runplan.c: unit tests of lib/run/plan and configs: the
 * configurations powercut run's options give (the defaults, --config with
 * knobs, every --fs with every --mount-opts, too many), their names and
 * directories, --repeat's bounds, the output directory's lock, and the
 * comparison written from given outcomes. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "run/plan.h"
#include "unit.h"
#include "util/util.h"

/* The plan of o, which must be made. */
static struct pc_run_plan *
plan_of (const struct pc_run_options *o)
{
  struct pc_run_plan *p = NULL;
  struct pc_err err = { "" };

  ck_assert_msg (pc_run_plan_make (o, &p, &err) == 0, "%s", err.msg);
  ck_assert_ptr_nonnull (p);
  return p;
}

/* The labels of a plan and their directories, "LABEL@DIR|..." */
static const char *
labels (const struct pc_run_plan *p)
{
  static char buf[8192];
  size_t pos = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < p->n && pos < sizeof buf; i++)
    pos += (size_t) snprintf (buf + pos, sizeof buf - pos, "%s%s@%s", i ? "|" : "",
                              p->got[i].label, p->got[i].dir);
  return buf;
}

START_TEST (test_defaults)
{
  static struct pc_run_options o;
  struct pc_run_plan *p;

  memset (&o, 0, sizeof o);
  o.out = "out";
  p = plan_of (&o);
  ck_assert_str_eq (labels (p), "ext4@out/1-ext4|ext4 noauto_da_alloc@out/2-ext4-noauto_da_alloc|"
                    "ext4 data=writeback@out/3-ext4-data-writeback|"
                    "ext4 data=journal@out/4-ext4-data-journal|ext3@out/5-ext3");
  ck_assert_str_eq (p->got[4].fs, "ext3");
  ck_assert_str_eq (p->got[1].mount_opts, "noauto_da_alloc");
  ck_assert (!p->got[0].ok);
  ck_assert_ptr_null (p->got[0].res);
  pc_run_plan_free (p);

  /* a workload named: one configuration, ext4 with its defaults, in out */
  o.named = true;
  p = plan_of (&o);
  ck_assert_str_eq (labels (p), "ext4@out");
  pc_run_plan_free (p);
}
END_TEST

START_TEST (test_config_knobs)
{
  static struct pc_run_options o;
  struct pc_err err = { "" };
  struct pc_run_plan *p;

  memset (&o, 0, sizeof o);
  o.out = "o";
  ck_assert_int_eq (pc_run_opt_config (&o, "ext4 noauto_da_alloc vm.dirty_expire_centisecs=500",
                                       &err), 0);
  ck_assert_int_eq (pc_run_opt_config (&o, "ext3\tvm.dirty_ratio=5 data=journal", &err), 0);
  ck_assert_int_eq (pc_run_opt_config (&o, "ext2", &err), 0);
  p = plan_of (&o);
  /* --config alone: these, and no defaults */
  ck_assert_str_eq (labels (p),
                    "ext4 noauto_da_alloc vm.dirty_expire_centisecs=500"
                    "@o/1-ext4-noauto_da_alloc-vm.dirty_expire_centisecs-500|"
                    "ext3 data=journal vm.dirty_ratio=5@o/2-ext3-data-journal-vm.dirty_ratio-5|"
                    "ext2@o/3-ext2");
  ck_assert_uint_eq (p->cf[0].nsysctls, 1);
  ck_assert_str_eq (p->cf[0].sysctls[0].name, "vm.dirty_expire_centisecs");
  ck_assert_str_eq (p->cf[0].sysctls[0].value, "500");
  /* the copy's mount options are its own */
  ck_assert_ptr_eq (p->cf[0].mount_opts, p->cf[0].opts_buf);
  ck_assert_str_eq (p->cf[2].mount_opts, "");
  pc_run_plan_free (p);

  /* with --fs: the configurations, then --fs x --mount-opts */
  ck_assert_int_eq (pc_run_opt_fs (&o, "ext3", &err), 0);
  p = plan_of (&o);
  ck_assert_uint_eq (p->n, 4);
  ck_assert_str_eq (p->got[3].label, "ext3");
  ck_assert_str_eq (p->got[3].dir, "o/4-ext3");
  pc_run_plan_free (p);
}
END_TEST

/* mkfs options in a configuration: quoted, blanks and all, anywhere after
 * the filesystem; in the label and (without quotes) the directory. */
START_TEST (test_config_mkfs)
{
  static struct pc_run_options o;
  struct pc_run_plan *p;
  struct pc_config c;
  struct pc_err err;

  ck_assert_int_eq (pc_config_parse ("ext4 mkfs='-b 4096 -O fast_commit' noauto_da_alloc", &c, &err), 0);
  ck_assert_str_eq (c.mkfs_opts, "-b 4096 -O fast_commit");
  ck_assert_str_eq (c.mount_opts, "noauto_da_alloc");
  ck_assert_int_eq (pc_config_parse ("xfs vm.dirty_ratio=5 mkfs='-m crc=0'", &c, &err), 0);
  ck_assert_str_eq (c.mkfs_opts, "-m crc=0");
  ck_assert_str_eq (c.fs, "xfs");
  ck_assert_uint_eq (c.nsysctls, 1);
  ck_assert_int_eq (pc_config_parse ("ext4 mkfs='-O fast_commit", &c, &err), -EINVAL);
  ck_assert_str_eq (err.msg, "--config 'ext4 mkfs='-O fast_commit': mkfs=' has no closing quote");
  ck_assert_int_eq (pc_config_parse ("ext4 mkfs=''", &c, &err), -EINVAL);
  memset (&o, 0, sizeof o);
  o.out = "d";
  ck_assert_int_eq (pc_run_opt_config (&o, "ext4 mkfs='-O fast_commit'", &err), 0);
  ck_assert_int_eq (pc_run_opt_config (&o, "btrfs", &err), 0);
  p = plan_of (&o);
  ck_assert_str_eq (labels (p), "ext4 mkfs='-O fast_commit'@d/1-ext4-mkfs--O-fast_commit|btrfs@d/2-btrfs");
  pc_run_plan_free (p);
}
END_TEST

START_TEST (test_config_errors)
{
  static const struct { const char *spec, *msg; } bad[] = {
    { "zfs", "--config 'zfs': starts with zfs, not ext2, ext3, ext4, xfs, btrfs or f2fs" },
    { "", "--config '': no filesystem" },
    { "ext4 a b", "--config 'ext4 a b': 'b': mount options are one word, separated by commas" },
    { "ext4 vm.dirty_ratio=x", "--config 'ext4 vm.dirty_ratio=x': vm.dirty_ratio=x: the value is not a number" },
    { "ext4 dirty_ratio=1 vm.x=1", NULL },
  };
  static struct pc_run_options o;
  struct pc_err err;

  memset (&o, 0, sizeof o);
  for (size_t i = 0; i < PC_ARRAY_SIZE (bad); i++) {
    err.msg[0] = '\0';
    ck_assert_int_eq (pc_run_opt_config (&o, bad[i].spec, &err), -EINVAL);
    if (bad[i].msg)
      ck_assert_str_eq (err.msg, bad[i].msg);
    else
      ck_assert_msg (strncmp (err.msg, "--config '", 10) == 0, "%s", err.msg);
  }
  ck_assert_uint_eq (o.nconfigs, 0);
  ck_assert_int_eq (pc_run_opt_config (&o, "ext4 vm.dirty_ratio=1 vm.dirty_ratio=2 "
                                       "vm.dirty_ratio=3 vm.dirty_ratio=4 vm.dirty_ratio=5 "
                                       "vm.dirty_ratio=6 vm.dirty_ratio=7 vm.dirty_ratio=8 "
                                       "vm.dirty_ratio=9", &err), -EINVAL);
  ck_assert_msg (strstr (err.msg, "at most 8 knobs") != NULL, "%s", err.msg);
}
END_TEST

START_TEST (test_fs_by_opts)
{
  static struct pc_run_options o;
  struct pc_err err = { "" };
  struct pc_run_plan *p;

  memset (&o, 0, sizeof o);
  o.out = "d";
  ck_assert_int_eq (pc_run_opt_fs (&o, "ext4", &err), 0);
  ck_assert_int_eq (pc_run_opt_fs (&o, "ext2", &err), 0);
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "", &err), 0);
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "noatime,commit=5", &err), 0);
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "sync", &err), 0);
  p = plan_of (&o);
  ck_assert_str_eq (labels (p), "ext4@d/1-ext4|ext4 noatime,commit=5@d/2-ext4-noatime-commit-5|"
                    "ext4 sync@d/3-ext4-sync|ext2@d/4-ext2|"
                    "ext2 noatime,commit=5@d/5-ext2-noatime-commit-5|ext2 sync@d/6-ext2-sync");
  pc_run_plan_free (p);

  /* --mount-opts alone: on ext4 */
  memset (&o, 0, sizeof o);
  o.out = "d";
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "data=journal", &err), 0);
  p = plan_of (&o);
  ck_assert_str_eq (labels (p), "ext4 data=journal@d");
  pc_run_plan_free (p);

  ck_assert_int_eq (pc_run_opt_fs (&o, "zfs", &err), -EINVAL);
  ck_assert_str_eq (err.msg, "--fs zfs: not ext2, ext3, ext4, xfs, btrfs or f2fs");
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "a, b", &err), -EINVAL);
  ck_assert_str_eq (err.msg, "--mount-opts 'a, b': options are separated by commas, not blanks");
  ck_assert_uint_eq (o.nfs, 0);
  ck_assert_uint_eq (o.nmount_opts, 1);
}
END_TEST

START_TEST (test_too_many)
{
  static struct pc_run_options o;
  struct pc_err err = { "" };
  struct pc_run_plan *p = NULL;

  memset (&o, 0, sizeof o);
  o.out = "d";
  for (int i = 0; i < PC_MAX_CONFIGS; i++)
    ck_assert_int_eq (pc_run_opt_fs (&o, "ext4", &err), 0);
  ck_assert_int_eq (pc_run_opt_fs (&o, "ext4", &err), -EINVAL);
  ck_assert_str_eq (err.msg, "at most 32 configurations");
  p = plan_of (&o);
  ck_assert_uint_eq (p->n, 32);
  ck_assert_str_eq (p->got[31].dir, "d/32-ext4");
  pc_run_plan_free (p);

  /* 32 file systems by 2 option sets */
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "", &err), 0);
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "sync", &err), 0);
  err.msg[0] = '\0';
  p = NULL;
  ck_assert_int_eq (pc_run_plan_make (&o, &p, &err), -EINVAL);
  ck_assert_str_eq (err.msg, "at most 32 configurations");
  ck_assert_ptr_null (p);

  /* 30 --config and 2 x 2 */
  memset (&o, 0, sizeof o);
  for (int i = 0; i < 30; i++)
    ck_assert_int_eq (pc_run_opt_config (&o, "ext4", &err), 0);
  ck_assert_int_eq (pc_run_opt_fs (&o, "ext4", &err), 0);
  ck_assert_int_eq (pc_run_opt_fs (&o, "ext3", &err), 0);
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "a", &err), 0);
  ck_assert_int_eq (pc_run_plan_make (&o, &p, &err), 0);
  ck_assert_uint_eq (p->n, 32);
  pc_run_plan_free (p);
  ck_assert_int_eq (pc_run_opt_mount_opts (&o, "b", &err), 0);
  ck_assert_int_eq (pc_run_plan_make (&o, &p, &err), -EINVAL);
  ck_assert_str_eq (err.msg, "at most 32 configurations");
  for (int i = 30; i < PC_MAX_CONFIGS; i++)
    ck_assert_int_eq (pc_run_opt_config (&o, "ext4", &err), 0);
  ck_assert_int_eq (pc_run_opt_config (&o, "ext4", &err), -EINVAL);
  ck_assert_str_eq (err.msg, "at most 32 configurations");

  /* --repeat: 0 is one run, at most 100 */
  memset (&o, 0, sizeof o);
  o.out = "d";
  p = plan_of (&o);
  ck_assert_uint_eq (p->repeat, 1);
  pc_run_plan_free (p);
  o.repeat = 100;
  p = plan_of (&o);
  ck_assert_uint_eq (p->repeat, 100);
  pc_run_plan_free (p);
  o.repeat = 101;
  p = NULL;
  ck_assert_int_eq (pc_run_plan_make (&o, &p, &err), -EINVAL);
  ck_assert_str_eq (err.msg, "--repeat 101: at most 100");
  ck_assert_ptr_null (p);
}
END_TEST

START_TEST (test_lock)
{
  char dir[] = "/tmp/check_runplan.XXXXXX", lockp[64], msg[128];
  struct pc_err err = { "" };
  int a, b;

  ck_assert_ptr_nonnull (mkdtemp (dir));
  a = pc_run_lock (dir, &err);
  ck_assert_msg (a >= 0, "%s", err.msg);
  /* a second lock of the same directory (another open, as another run's) fails */
  b = pc_run_lock (dir, &err);
  ck_assert_int_eq (b, -EBUSY);
  snprintf (msg, sizeof msg, "%s: another run is writing there (choose another --out)", dir);
  ck_assert_str_eq (err.msg, msg);
  /* let go, it can be taken again */
  pc_run_unlock (a);
  b = pc_run_lock (dir, &err);
  ck_assert_msg (b >= 0, "%s", err.msg);
  pc_run_unlock (b);
  pc_run_unlock (-1);
  snprintf (lockp, sizeof lockp, "%s/.lock", dir);
  ck_assert_int_eq (unlink (lockp), 0);
  ck_assert_int_eq (rmdir (dir), 0);
  /* a directory that is not there */
  ck_assert_int_eq (pc_run_lock (dir, &err), -ENOENT);
  snprintf (msg, sizeof msg, "%s: No such file or directory", dir);
  ck_assert_str_eq (err.msg, msg);
}
END_TEST

/* A check's result with the given verdicts, one point each. */
static struct pc_check_result *
fake_result (const enum pc_verdict *v, size_t n)
{
  struct pc_check_result *res = calloc (1, sizeof *res);

  ck_assert_ptr_nonnull (res);
  res->log_path = strdup ("powercut.log");
  res->nshards = 1;
  res->points = calloc (n, sizeof *res->points);
  ck_assert_ptr_nonnull (res->points);
  res->npoints = res->unique = n;
  for (size_t i = 0; i < n; i++) {
    snprintf (res->points[i].id, sizeof res->points[i].id, "%zu", i);
    res->points[i].record = i;
    res->points[i].verdict = v[i];
    res->points[i].same_as = res->points[i].fsck_as = -1;
  }
  pc_check_result_recount (res);
  return res;
}

static char *
slurp (const char *path)
{
  FILE *f = fopen (path, "re");
  char *buf = calloc (1, 1 << 20);

  ck_assert_ptr_nonnull (f);
  ck_assert_ptr_nonnull (buf);
  fread (buf, 1, (1 << 20) - 1, f);
  fclose (f);
  return buf;
}

START_TEST (test_comparison)
{
  static const enum pc_verdict va[] = { PC_V_OK, PC_V_OK, PC_V_FS_CORRUPT };
  static struct pc_run_options o;
  char dir[] = "/tmp/check_runplan.XXXXXX", path[128], *out = NULL, *txt;
  struct pc_err err = { "" };
  struct pc_run_plan *p;
  size_t outlen = 0;
  json_object *root, *cfgs, *c0, *c1, *t;
  FILE *f;

  ck_assert_ptr_nonnull (mkdtemp (dir));
  memset (&o, 0, sizeof o);
  o.out = dir;
  ck_assert_int_eq (pc_run_opt_config (&o, "ext4 noauto_da_alloc", &err), 0);
  ck_assert_int_eq (pc_run_opt_config (&o, "ext3", &err), 0);
  p = plan_of (&o);
  pc_outcome_set (&p->got[0], fake_result (va, 3));
  snprintf (p->got[1].error, sizeof p->got[1].error, "mkfs.ext3: not found (is it installed?)");

  f = open_memstream (&out, &outlen);
  ck_assert_ptr_nonnull (f);
  ck_assert_int_eq (pc_run_write_comparison (f, p, "append", false, &err), 0);
  fclose (f);
  /* the heading, the table and where the reports are */
  ck_assert_msg (strncmp (out, "powercut run: append on 2 configurations\n\nconfiguration", 55) == 0,
                 "%s", out);
  ck_assert_msg (strstr (out, "\next4 noauto_da_alloc       3   2           1") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "\next3                  error: mkfs.ext3: not found") != NULL,
                 "%s", out);
  ck_assert_msg (strstr (out, "app-invalid") == NULL, "%s", out);
  snprintf (path, sizeof path, "\nreports: %s/*/report.txt\n", dir);
  ck_assert_msg (strstr (out, path) != NULL, "%s", out);
  /* report.txt: the same without where the reports are */
  snprintf (path, sizeof path, "%s/report.txt", dir);
  txt = slurp (path);
  ck_assert_msg (strlen (txt) > 0 && strncmp (out, txt, strlen (txt)) == 0,
                 "%s", txt);
  ck_assert_ptr_null (strstr (txt, "reports:"));
  free (txt);
  free (out);
  unlink (path);
  /* report.json */
  snprintf (path, sizeof path, "%s/report.json", dir);
  root = json_object_from_file (path);
  ck_assert_ptr_nonnull (root);
  ck_assert_str_eq (json_object_get_string (json_object_object_get (root, "workload")), "append");
  cfgs = json_object_object_get (root, "configurations");
  ck_assert_int_eq (json_object_array_length (cfgs), 2);
  c0 = json_object_array_get_idx (cfgs, 0);
  c1 = json_object_array_get_idx (cfgs, 1);
  ck_assert_str_eq (json_object_get_string (json_object_object_get (c0, "configuration")),
                    "ext4 noauto_da_alloc");
  ck_assert_str_eq (json_object_get_string (json_object_object_get (c0, "mount_opts")),
                    "noauto_da_alloc");
  t = json_object_object_get (c0, "totals");
  ck_assert_int_eq (json_object_get_int (json_object_object_get (t, "points")), 3);
  ck_assert_int_eq (json_object_get_int (json_object_object_get (t, "fs-corrupt")), 1);
  ck_assert_str_eq (json_object_get_string (json_object_object_get (c1, "error")),
                    "mkfs.ext3: not found (is it installed?)");
  ck_assert_str_eq (json_object_get_string (json_object_object_get (c1, "fs")), "ext3");
  ck_assert_ptr_null (json_object_object_get (c1, "totals"));
  json_object_put (root);
  unlink (path);
  /* report.html */
  snprintf (path, sizeof path, "%s/report.html", dir);
  ck_assert_int_eq (access (path, R_OK), 0);
  unlink (path);

  /* a directory that cannot take them */
  ck_assert_int_eq (rmdir (dir), 0);
  f = open_memstream (&out, &outlen);
  ck_assert_int_eq (pc_run_write_comparison (f, p, "append", true, &err), -EIO);
  fclose (f);
  snprintf (path, sizeof path, "%s: cannot write the comparison", dir);
  ck_assert_str_eq (err.msg, path);
  ck_assert_msg (strstr (out, "app-invalid") != NULL, "%s", out);
  free (out);
  pc_run_plan_free (p);
}
END_TEST

int
main (void)
{
  Suite *su = suite_create ("runplan");
  TCase *tc = tcase_create ("plan");

  tcase_add_test (tc, test_defaults);
  tcase_add_test (tc, test_config_knobs);
  tcase_add_test (tc, test_config_mkfs);
  tcase_add_test (tc, test_config_errors);
  tcase_add_test (tc, test_fs_by_opts);
  tcase_add_test (tc, test_too_many);
  tcase_add_test (tc, test_lock);
  tcase_add_test (tc, test_comparison);
  suite_add_tcase (su, tc);
  return pc_unit_run (su);
}
