/* acksel.c: which printed lines are acknowledgements (acksel.h). */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "format/acksel.h"

int
pc_acksel_parse (const char *spec, struct pc_acksel *ret, struct pc_err *err)
{
  int r;

  memset (ret, 0, sizeof *ret);
  ret->spec = spec ? spec : "stdout";
  if (strcmp (ret->spec, "stdout") == 0)
    return 0;
  if (strcmp (ret->spec, "none") == 0) {
    ret->how = PC_ACKS_NONE;
    return 0;
  }
  if (ret->spec[0] == '\0')
    return pc_err_set (err, EINVAL, "--acks: an empty regular expression (stdout: every "
                       "line, none: no line)");
  r = regcomp (&ret->re, ret->spec, REG_EXTENDED | REG_NOSUB);
  if (r != 0) {
    char why[256];
    regerror (r, &ret->re, why, sizeof why);
    return pc_err_set (err, EINVAL, "--acks %s: not a regular expression: %s", ret->spec, why);
  }
  ret->how = PC_ACKS_REGEX;
  return 0;
}

bool
pc_acksel_match (const struct pc_acksel *s, const char *line)
{
  if (s == NULL || s->how == PC_ACKS_STDOUT)
    return true;
  if (s->how == PC_ACKS_NONE)
    return false;
  return regexec (&s->re, line, 0, NULL, 0) == 0;
}

void
pc_acksel_free (struct pc_acksel *s)
{
  if (s && s->how == PC_ACKS_REGEX)
    regfree (&s->re);
  if (s)
    memset (s, 0, sizeof *s);
}
