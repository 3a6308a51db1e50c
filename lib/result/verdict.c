/* verdict.c: the table of verdicts. */
#include <config.h>

#include <string.h>

#include "result/verdict.h"

static const struct pc_verdict_info table[PC_V_COUNT] = {
#define PC_VERDICT_INFO(id, name, rank, colour, column, path, fault, meaning) \
  [PC_V_##id] = { name, rank, colour, column, path, fault, meaning },
  PC_VERDICTS (PC_VERDICT_INFO)
#undef PC_VERDICT_INFO
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

static const struct {
  const char *name, *whose, *meaning;
} faults[] = {
#define PC_FAULT_ROW(id, name, whose, meaning) { name, whose, meaning },
  PC_FAULTS (PC_FAULT_ROW)
#undef PC_FAULT_ROW
};

const char *
pc_fault_name (enum pc_fault f)
{
  return (unsigned) f < PC_FAULT_COUNT ? faults[f].name : "unknown";
}

const char *
pc_fault_whose (enum pc_fault f)
{
  return (unsigned) f < PC_FAULT_COUNT ? faults[f].whose : "nobody knows whose";
}

const char *
pc_fault_meaning (enum pc_fault f)
{
  return (unsigned) f < PC_FAULT_COUNT ? faults[f].meaning : "";
}

int
pc_fault_parse (const char *name)
{
  for (int i = 0; i < PC_FAULT_COUNT; i++)
    if (strcmp (name, faults[i].name) == 0)
      return i;
  return -1;
}
