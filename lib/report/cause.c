/* cause.c: a finding's cause for people: the why line of a point
 * (pc_report_why), the lines under a file (pc_report_cause_text), and
 * what the text writers share to put them: a text shown safely. */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/reportint.h"
#include "result/result.h"

/* Prints s through show (pc_display_name or _text); "?" without memory;
 * a path "" (a finding of the whole state) as such. */
void
pc_put_shown (FILE *f, char *(*show) (const char *), const char *s)
{
  char *d;

  if (show == pc_display_name && s[0] == '\0') {
    fputs ("(the whole state)", f);
    return;
  }
  d = show (s);

  fputs (d ? d : "?", f);
  free (d);
}

/* How a finding's lost version came to be durable, for people: never,
 * or when and by what, counted from the call that wrote it. */
static void
durable_text (FILE *f, const struct pc_cause *c)
{
  if (c->durable_ns < 0) {
    fputs ("never synced", f);
    return;
  }
  if (c->durable_by && strncmp (c->durable_by, PC_CAUSE_AFTER_COMMAND,
                                strlen (PC_CAUSE_AFTER_COMMAND)) == 0) {
    fprintf (f, "never synced by the program, durable at %.3f s by ", c->durable_ns / 1e9);
    pc_put_shown (f, pc_display_line, c->durable_by);
    return;
  }
  if (c->call && (uint64_t) c->durable_ns >= c->time_ns)
    fprintf (f, "synced %.0f ms later by ", ((uint64_t) c->durable_ns - c->time_ns) / 1e6);
  else
    fprintf (f, "at %.3f s by ", c->durable_ns / 1e9);
  pc_put_shown (f, pc_display_line, c->durable_by ? c->durable_by : "?");
}

char *
pc_report_why (int kind, const struct pc_cause *c)
{
  char *s = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&s, &len);

  if (f == NULL)
    return NULL;
  if (!c->known)
    fputs ("no cause known: counted as the filesystem's fault", f);
  else {
    fprintf (f, "%s: ", pc_cause_class (kind, c));
    pc_put_shown (f, pc_display_line, c->rule ? c->rule : "?");
    if (c->call) {
      fputs ("; written by ", f);
      pc_put_shown (f, pc_display_line, c->call);
      fprintf (f, " at %.3f s, ", c->time_ns / 1e9);
      durable_text (f, c);
    }
    else if (c->durable_by && c->durable_ns >= 0) {
      fputs ("; durable ", f);
      durable_text (f, c);
    }
    if (c->ack) {
      fputs ("; acknowledged by \"", f);
      pc_put_shown (f, pc_display_line, c->ack);
      fprintf (f, "\" at %.3f s", c->ack_ns / 1e9);
    }
    if (c->fix) {
      fputs ("; fix: ", f);
      pc_put_shown (f, pc_display_line, c->fix);
    }
  }
  if (fclose (f) == EOF) {
    free (s);
    return NULL;
  }
  return s;
}

/* A finding's cause: the rule it rests on and, for a traced program's
 * file, the call behind the version lost, when it was made durable and
 * what would have kept it. */
void
pc_report_cause_text (FILE *f, int kind, const struct pc_cause *c)
{
  if (!c->known)
    return;
  fprintf (f, "      rule:    %s: ", pc_cause_class (kind, c));
  pc_put_shown (f, pc_display_line, c->rule ? c->rule : "?");
  fputc ('\n', f);
  if (c->call) {
    fputs ("      cause:   ", f);
    pc_put_shown (f, pc_display_line, c->call);
    fprintf (f, " (pid %" PRId32 ", at %.3f s)", c->pid, c->time_ns / 1e9);
    fputc ('\n', f);
  }
  if (c->call || c->durable_by) {
    fputs ("      durable: ", f);
    durable_text (f, c);
    fputc ('\n', f);
  }
  if (c->ack) {
    fputs ("      acked:   \"", f);
    pc_put_shown (f, pc_display_line, c->ack);
    fprintf (f, "\" at %.3f s\n", c->ack_ns / 1e9);
  }
  if (c->fix) {
    fputs ("      fix:     ", f);
    pc_put_shown (f, pc_display_line, c->fix);
    fputc ('\n', f);
  }
}
