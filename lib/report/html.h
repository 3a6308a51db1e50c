/* html.h: the HTML report: one self-contained page (no network, no external
 * scripts or fonts) with, per configuration, a timeline of the log (crash
 * points coloured by verdict, aggregated per pixel so that 100,000 points
 * draw at once; marks as labelled lines; flushes as ticks), the failing
 * paths, and the failing points with the command that rebuilds each.
 * Everything taken from the workload (paths, mark names, evidence) reaches
 * the page as JSON data and is shown with textContent: never as markup.
 */
#ifndef POWERCUT_HTML_H
#define POWERCUT_HTML_H

#include "result/result.h"
#include "replay/crash.h"

struct pc_html_config {
  const char *label;                    /* "ext4 noauto_da_alloc", or the log's name */
  const struct pc_check_result *res;
  const struct pc_index *ix;            /* the log: marks, flushes (may be NULL) */
};

/* Writes the page to path.  Returns 0 or -errno. */
int pc_report_html (const char *path, const char *title,
                    const struct pc_html_config *cfg, size_t n);

#endif
