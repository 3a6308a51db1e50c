/* recrash.c: the kernel's recovery of a crash state, recorded (recrash.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge/recrash.h"
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

/* nbdfuse serving the recorder's socket sock as the file fusedir/nbd: its
 * process (ended with this one), or -errno. */
static pid_t
start_nbdfuse (const char *fusedir, const char *sock)
{
  char nbdfile[4300];
  pid_t parent = getpid (), pid = fork ();

  if (pid < 0)
    return -errno;
  if (pid == 0) {
    int nul = open ("/dev/null", O_RDWR);
    if (prctl (PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid () != parent)
      _exit (126);
    if (nul >= 0) {
      dup2 (nul, 0);
      dup2 (nul, 1);
      dup2 (nul, 2);
    }
    execlp ("nbdfuse", "nbdfuse", fusedir, "--unix", sock, (char *) NULL);
    _exit (127);
  }
  snprintf (nbdfile, sizeof nbdfile, "%s/nbd", fusedir);
  for (int i = 0; i < 2000 && access (nbdfile, F_OK) < 0; i++) {
    int st;
    if (waitpid (pid, &st, WNOHANG) == pid)
      return -ENOENT;
    usleep (5000);
  }
  if (access (nbdfile, F_OK) < 0) {
    reap (pid, SIGKILL);
    return -ETIME;
  }
  return pid;
}

int
pc_recrash_record (const char *base, const struct pc_fs *fs, const char *dir,
                   const char *log_path, int timeout_s, bool *ret_wrote, struct pc_err *err)
{
  char sock[4200], ctl[4200], fusedir[4200], mnt[4200], nbdfile[4300], dev[64];
  struct pc_recorder_config rc = {
    .log_path = log_path, .force = true, .base_path = base, .socket_path = sock,
    .control_path = ctl, .die_with_parent = true,
  };
  struct pc_index ix;
  pid_t rpid = -1, fpid = -1;
  int lfd, r = 0, e = 0;
  bool mounted;

  (void) timeout_s;
  *ret_wrote = false;
  snprintf (sock, sizeof sock, "%s/r.sock", dir);
  snprintf (ctl, sizeof ctl, "%s/r.ctl", dir);
  snprintf (fusedir, sizeof fusedir, "%s/fuse", dir);
  snprintf (mnt, sizeof mnt, "%s/mnt", dir);
  snprintf (nbdfile, sizeof nbdfile, "%s/nbd", fusedir);
  r = pc_recorder_spawn (&rc, NULL, &rpid, err);
  if (r < 0)
    return r;
  if (mkdir (fusedir, 0700) < 0 || mkdir (mnt, 0700) < 0) {
    r = pc_err_set (err, errno, "%s: %s", dir, strerror (errno));
    goto out;
  }
  fpid = start_nbdfuse (fusedir, sock);
  if (fpid < 0) {
    r = pc_err_set (err, (int) -fpid, "nbdfuse: %s", fpid == -ENOENT
                    ? "it exited (is it installed, and FUSE usable?)" : strerror ((int) -fpid));
    fpid = -1;
    goto out;
  }
  lfd = pc_loop_attach (nbdfile, false, dev, sizeof dev, err);
  if (lfd < 0) {
    r = lfd;
    goto out;
  }
  /* as the kernel judge mounts a state (kjudge.c): writable, as a boot */
  mounted = mount (dev, mnt, fs->name, MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME,
                   fs->mount_data[0] ? fs->mount_data : NULL) == 0;
  if (!mounted)
    e = errno;
  close (lfd);
  if (mounted)
    pc_unmount (mnt, NULL, 0);
  else
    r = pc_err_set (err, EIO, "the kernel cannot mount it: %s", strerror (e));
out:
  if (fpid > 0) {
    pc_unmount (fusedir, NULL, 0);     /* once the loop device let go of it */
    reap (fpid, SIGTERM);
  }
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
