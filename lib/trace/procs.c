/* procs.c: what the tracer follows of each process: the directory
 * descriptors its reported calls used, and its shared writable file
 * mappings, so that msync, munmap and the end of the process can say
 * which file range their memory holds. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/traceint.h"

static void
drop (struct pc_mapping *m)
{
  if (m->file >= 0)
    close (m->file);
  free (m->path);
  m->file = -1;
  m->path = NULL;
}

struct pc_mapping *
pc_maps_find (struct pc_tracer *tr, pid_t tgid, uint64_t addr, uint64_t len)
{
  for (size_t i = 0; i < tr->nmaps; i++) {
    struct pc_mapping *m = &tr->maps[i];
    if (m->tgid != tgid)
      continue;
    if (len == 0 ? addr >= m->start && addr < m->start + m->len
                 : addr < m->start + m->len && m->start < addr + len)
      return m;
  }
  return NULL;
}

int
pc_maps_add (struct pc_tracer *tr, const struct pc_mapping *m)
{
  if (tr->nmaps == tr->mapcap) {
    size_t ncap = tr->mapcap ? 2 * tr->mapcap : 16;
    struct pc_mapping *n = realloc (tr->maps, ncap * sizeof *n);
    if (n == NULL)
      return -ENOMEM;
    tr->maps = n;
    tr->mapcap = ncap;
  }
  tr->maps[tr->nmaps++] = *m;
  return 0;
}

/* A copy of m's part [start, start + len), with a file and path of its
 * own. */
static int
add_part (struct pc_tracer *tr, const struct pc_mapping *m, uint64_t start, uint64_t len)
{
  struct pc_mapping p = *m;
  int r;

  p.start = start;
  p.len = len;
  p.off = m->off + (start - m->start);
  p.file = m->file >= 0 ? dup (m->file) : -1;
  p.path = strdup (m->path ? m->path : "");
  if ((m->file >= 0 && p.file < 0) || p.path == NULL) {
    drop (&p);
    return -ENOMEM;
  }
  r = pc_maps_add (tr, &p);
  if (r < 0)
    drop (&p);
  return r;
}

void
pc_maps_trim (struct pc_tracer *tr, pid_t tgid, uint64_t addr, uint64_t len)
{
  uint64_t end = addr + len;

  for (size_t i = 0; i < tr->nmaps; i++) {
    struct pc_mapping *m = &tr->maps[i];
    uint64_t mend = m->start + m->len;

    if (m->tgid != tgid || addr >= mend || m->start >= end)
      continue;
    if (addr > m->start && end < mend) {
      /* a hole in the middle: the tail becomes a mapping of its own */
      struct pc_mapping head = *m;
      if (add_part (tr, &head, end, mend - end) < 0) {
        m = &tr->maps[i];
        drop (m);
        tr->maps[i] = tr->maps[--tr->nmaps];
        i--;
        continue;
      }
      m = &tr->maps[i];
      m->len = addr - m->start;
    }
    else if (addr > m->start)
      m->len = addr - m->start;
    else if (end < mend) {
      m->off += end - m->start;
      m->len = mend - end;
      m->start = end;
    }
    else {
      drop (m);
      tr->maps[i] = tr->maps[--tr->nmaps];
      i--;
    }
  }
}

int
pc_trace_proc_fork (struct pc_tracer *tr, pid_t parent, pid_t child)
{
  size_t n = tr->nmaps;

  for (size_t i = 0; i < n; i++)
    if (tr->maps[i].tgid == parent) {
      struct pc_mapping m = tr->maps[i];
      int r;
      m.tgid = child;
      r = add_part (tr, &m, m.start, m.len);
      if (r < 0)
        return r;
    }
  return 0;
}

/* Removes the mapping at index i. */
void
pc_maps_remove (struct pc_tracer *tr, size_t i)
{
  drop (&tr->maps[i]);
  tr->maps[i] = tr->maps[--tr->nmaps];
}

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

bool
pc_dirfd_has (const struct pc_tracer *tr, pid_t tgid, int fd)
{
  for (size_t i = 0; i < tr->ndirfds; i++)
    if (tr->dirfds[i].tgid == tgid && tr->dirfds[i].fd == fd)
      return true;
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
  for (size_t i = 0; i < tr->nmaps; i++)
    drop (&tr->maps[i]);
  free (tr->maps);
  tr->maps = NULL;
  tr->nmaps = tr->mapcap = 0;
  free (tr->dirfds);
  tr->dirfds = NULL;
  tr->ndirfds = tr->dirfdcap = 0;
}
