/* verdict.c: the table of verdicts. */
#include <config.h>

#include <string.h>

#include "result/verdict.h"

/* In enum order.  Ranks: ok, then not checked (it hides no failure, but
 * shows above ok on a timeline), then the path verdicts from the mildest
 * to a rolled-back durable version, then whole-filesystem failures. */
static const struct pc_verdict_info table[PC_V_COUNT] = {
  [PC_V_OK] = { "ok", 0, "#3a3", true, false,
                "consistent: every path holds one of its allowed versions" },
  [PC_V_FS_CORRUPT] = { "fs-corrupt", 8, "#d33", true, false,
                        "e2fsck must repair the filesystem after journal recovery" },
  [PC_V_UNMOUNTABLE] = { "unmountable", 9, "#800", true, false,
                         "no filesystem is found, or its journal cannot be recovered" },
  [PC_V_ZERO_LENGTH] = { "zero-length", 5, "#f80", true, true,
                         "a file is empty where every allowed version had data" },
  [PC_V_ZERO_FILLED] = { "zero-filled", 4, "#e0457b", true, true,
                         "a file has its size but reads as zeros where every allowed "
                         "version had non-zero data" },
  [PC_V_MISSING] = { "missing", 3, "#a0f", true, true,
                     "a path that every allowed version has is gone" },
  [PC_V_MISMATCH] = { "mismatch", 2, "#c9a800", true, true,
                      "content or size matches no allowed version (torn, stale, garbage)" },
  [PC_V_DURABLE_LOST] = { "durable-lost", 6, "#06c", true, true,
                          "a path's durable version was rolled back" },
  [PC_V_APP_INVALID] = { "app-invalid", 7, "#c0c", true, false,
                         "the application's own checker (--verify) failed" },
  [PC_V_NOT_CHECKED] = { "not-checked", 1, "#999", false, false,
                         "powercut could not check the state: no verdict" },
};

const struct pc_verdict_info *
pc_verdict_info (int v)
{
  return v >= 0 && v < PC_V_COUNT ? &table[v] : NULL;
}

const char *
pc_verdict_name (int v)
{
  return v >= 0 && v < PC_V_COUNT ? table[v].name : "unknown";
}

int
pc_verdict_parse (const char *name)
{
  for (int i = 0; i < PC_V_COUNT; i++)
    if (strcmp (name, table[i].name) == 0)
      return i;
  return -1;
}

int
pc_verdict_rank (int v)
{
  return v >= 0 && v < PC_V_COUNT ? table[v].rank : 0;
}

int
pc_verdict_worse (int a, int b)
{
  return pc_verdict_rank (b) > pc_verdict_rank (a) ? b : a;
}
