/* recrash.c: the kernel's recovery of a crash state, recorded (recrash.h). */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge/recrash.h"
#include "record/attach.h"
#include "record/serve.h"
#include "replay/crash.h"
#include "util/kmount.h"
#include "util/util.h"

/* Ends the child pid with sig (if it still runs) and waits for it. */
static void
reap (pid_t pid, int sig)
{
  int st;

  if (pid <= 0)
    return;
  kill (pid, sig);
  while (waitpid (pid, &st, 0) < 0 && errno == EINTR)
    ;
}

int
pc_recrash_record (const char *base, const struct pc_fs *fs, const char *dir,
                   const char *log_path, int timeout_s, bool *ret_wrote, struct pc_err *err)
{
  char sock[4200], ctl[4200], fusedir[4200], mnt[4200];
  struct pc_recorder_config rc = {
    .log_path = log_path, .force = true, .base_path = base, .socket_path = sock,
    .control_path = ctl, .die_with_parent = true,
  };
  /* the device as powercut run attaches one through nbdfuse, ended with
   * this thread if it dies */
  const struct pc_attach_way *way = pc_attach_of (PC_ATTACH_FUSE);
  struct pc_attachment at = { .sock = sock, .fusedir = fusedir, .die_with_parent = true };
  struct pc_index ix;
  pid_t rpid = -1;
  int r = 0, e = 0;
  bool mounted;

  (void) timeout_s;
  *ret_wrote = false;
  snprintf (sock, sizeof sock, "%s/r.sock", dir);
  snprintf (ctl, sizeof ctl, "%s/r.ctl", dir);
  snprintf (fusedir, sizeof fusedir, "%s/fuse", dir);
  snprintf (mnt, sizeof mnt, "%s/mnt", dir);
  r = pc_recorder_spawn (&rc, NULL, &rpid, err);
  if (r < 0)
    return r;
  if (mkdir (mnt, 0700) < 0) {
    r = pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
    goto out;
  }
  r = way->attach (&at, err);
  if (r < 0)
    goto out;
  /* as the kernel judge mounts a state (kjudge.c): writable, as a boot */
  mounted = mount (at.dev, mnt, fs->name, MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME,
                   fs->mount_data[0] ? fs->mount_data : NULL) == 0;
  if (!mounted)
    e = errno;
  if (mounted)
    pc_unmount (mnt, NULL, 0);
  else
    r = pc_err_set (err, EIO, "the kernel cannot mount it: %s", strerror (e));
out:
  way->detach (&at);            /* the loop device, then nbdfuse */
  if (rpid > 0)
    reap (rpid, SIGTERM);
  rmdir (mnt);
  rmdir (fusedir);
  if (r == 0 && pc_index_load (log_path, &ix) == 0) {
    for (uint64_t i = 0; i < ix.n; i++)
      *ret_wrote |= pc_rec_is_data (&ix.recs[i]);
    pc_index_free (&ix);
  }
  return r;
}
