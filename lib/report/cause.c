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

void
pc_put_wrapped (FILE *f, const char *head, const char *text, size_t width)
{
  size_t indent = strlen (head), col = indent, gap = 0;

  fputs (head, f);
  for (const char *p = text;;) {
    size_t len = strcspn (p, " "), cols = 0;
    for (size_t i = 0; i < len; i++)
      cols += ((unsigned char) p[i] & 0xc0) != 0x80;       /* a character a column */
    if (col > indent && col + gap + cols > width) {
      fprintf (f, "\n%*s", (int) indent, "");
      col = indent;
    }
    else {
      fprintf (f, "%*s", (int) gap, "");
      col += gap;
    }
    fwrite (p, 1, len, f);
    col += cols;
    p += len;
    if (*p == '\0')
      break;
    gap = strspn (p, " ");
    p += gap;
  }
  fputc ('\n', f);
}

/* A line of the text: a memory stream, then folded under its head. */
struct line {
  char *buf;
  size_t len;
  FILE *f;
};

static FILE *
line_open (struct line *l)
{
  l->buf = NULL;
  l->f = open_memstream (&l->buf, &l->len);
  return l->f;
}

static void
line_put (FILE *f, struct line *l, const char *head)
{
  if (fclose (l->f) == 0)
    pc_put_wrapped (f, head, l->buf, PC_TEXT_WIDTH);
  free (l->buf);
}

/* A finding's cause: the rule it rests on and, for a traced program's
 * file, the call behind the version lost, when it was made durable and
 * what would have kept it; each line folded under its text. */
void
pc_report_cause_text (FILE *f, int kind, const struct pc_cause *c)
{
  struct line l;

  if (!c->known)
    return;
  if (line_open (&l)) {
    fprintf (l.f, "%s: ", pc_cause_class (kind, c));
    pc_put_shown (l.f, pc_display_line, c->rule ? c->rule : "?");
    line_put (f, &l, "      rule:    ");
  }
  if (c->call && line_open (&l)) {
    pc_put_shown (l.f, pc_display_line, c->call);
    fprintf (l.f, " (pid %" PRId32 ", at %.3f s)", c->pid, c->time_ns / 1e9);
    line_put (f, &l, "      cause:   ");
  }
  if ((c->call || c->durable_by) && line_open (&l)) {
    durable_text (l.f, c);
    line_put (f, &l, "      durable: ");
  }
  if (c->ack && line_open (&l)) {
    fputc ('"', l.f);
    pc_put_shown (l.f, pc_display_line, c->ack);
    fprintf (l.f, "\" at %.3f s", c->ack_ns / 1e9);
    line_put (f, &l, "      acked:   ");
  }
  if (c->fix && line_open (&l)) {
    pc_put_shown (l.f, pc_display_line, c->fix);
    line_put (f, &l, "      fix:     ");
  }
}
