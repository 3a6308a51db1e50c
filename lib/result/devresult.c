/* devresult.c: a device set's check result freed (devresult.h). */
#include <config.h>

#include <stdlib.h>

#include "result/devresult.h"

void
pc_devcheck_free (struct pc_devcheck_result *res)
{
  if (res == NULL)
    return;
  for (size_t j = 0; j < res->ndev; j++) {
    free (res->names[j]);
    pc_check_result_free (res->dev[j]);
  }
  for (size_t i = 0; i < res->ninst; i++) {
    free (res->inst[i].point);
    free (res->inst[i].state);
    free (res->inst[i].pair);
  }
  for (size_t j = 0; res->fine && j < res->ndev; j++)
    pc_check_result_free (res->fine[j]);
  free (res->fine);
  free (res->journal_of);
  free (res->is_journal);
  free (res->names);
  free (res->dev);
  free (res->inst);
  free (res->dir);
  free (res);
}
