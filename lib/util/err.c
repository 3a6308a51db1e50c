/* err.c: the reason a library function failed, and interruption. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"

int
pc_err_set (struct pc_err *err, int errnum, const char *fmt, ...)
{
  va_list ap;

  if (err) {
    va_start (ap, fmt);
    vsnprintf (err->msg, sizeof err->msg, fmt, ap);
    va_end (ap);
  }
  return -errnum;
}

void
pc_err_msg (struct pc_err *err, const char *fmt, ...)
{
  va_list ap;

  if (err) {
    va_start (ap, fmt);
    vsnprintf (err->msg, sizeof err->msg, fmt, ap);
    va_end (ap);
  }
}

int
pc_err_prefix (struct pc_err *err, int errnum, const char *fmt, ...)
{
  char pfx[PC_ERR_MAX];
  size_t n, m;
  va_list ap;

  if (err == NULL)
    return -errnum;
  va_start (ap, fmt);
  vsnprintf (pfx, sizeof pfx, fmt, ap);
  va_end (ap);
  n = strlen (pfx);
  m = strlen (err->msg);
  if (n + 2 >= sizeof err->msg)
    n = sizeof err->msg - 3;
  if (n + 2 + m >= sizeof err->msg)
    m = sizeof err->msg - n - 3;
  memmove (err->msg + n + 2, err->msg, m);
  err->msg[n + 2 + m] = '\0';
  memcpy (err->msg, pfx, n);
  memcpy (err->msg + n, ": ", 2);
  return -errnum;
}

static volatile sig_atomic_t *interrupt_flag;

volatile sig_atomic_t *
pc_interrupt_flag (volatile sig_atomic_t *flag)
{
  volatile sig_atomic_t *before = interrupt_flag;

  interrupt_flag = flag;
  return before;
}

bool
pc_interrupted (void)
{
  return interrupt_flag && *interrupt_flag;
}
