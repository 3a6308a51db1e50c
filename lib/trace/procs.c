/* procs.c: what the tracer follows of each process: the directory
 * descriptors its reported calls used. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "trace/traceint.h"

void
pc_dirfd_note (struct pc_tracer *tr, pid_t tgid, int fd)
{
  if (fd < 0)
    return;
  for (size_t i = 0; i < tr->ndirfds; i++)
    if (tr->dirfds[i].tgid == tgid && tr->dirfds[i].fd == fd)
      return;
  if (tr->ndirfds == tr->dirfdcap) {
    size_t ncap = tr->dirfdcap ? 2 * tr->dirfdcap : 16;
    struct pc_dirfd *n = realloc (tr->dirfds, ncap * sizeof *n);
    if (n == NULL)
      return;               /* its close goes untold, nothing worse */
    tr->dirfds = n;
    tr->dirfdcap = ncap;
  }
  tr->dirfds[tr->ndirfds].tgid = tgid;
  tr->dirfds[tr->ndirfds++].fd = fd;
}

bool
pc_dirfd_take (struct pc_tracer *tr, pid_t tgid, int fd)
{
  for (size_t i = 0; i < tr->ndirfds; i++)
    if (tr->dirfds[i].tgid == tgid && tr->dirfds[i].fd == fd) {
      tr->dirfds[i] = tr->dirfds[--tr->ndirfds];
      return true;
    }
  return false;
}

void
pc_dirfd_forget (struct pc_tracer *tr, pid_t tgid)
{
  for (size_t i = 0; i < tr->ndirfds; i++)
    if (tr->dirfds[i].tgid == tgid)
      tr->dirfds[i--] = tr->dirfds[--tr->ndirfds];
}

void
pc_trace_procs_free (struct pc_tracer *tr)
{
  free (tr->dirfds);
  tr->dirfds = NULL;
  tr->ndirfds = tr->dirfdcap = 0;
}
