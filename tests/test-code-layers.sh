#!/usr/bin/env bash
# test-code-layers.sh: libpowercut's folders are layers.  Makefile.am lists
# them from the bottom up (its "include lib/FOLDER/Makemodule.am" lines);
# a file of lib/ includes only headers of its own folder or of folders
# below it, names the folder of every header it includes, includes no
# other folder's internal header (*int.h), and the headers include each
# other without a cycle.  Anything that breaks a rule is listed.
source "$top_srcdir/tests/functions.sh"
requires python3

cd "$top_srcdir"
problems=$(python3 - <<'PY'
import os, re, sys

order = re.findall(r'^include lib/([a-z]+)/Makemodule\.am$', open("Makefile.am").read(), re.M)
rank = {d: i for i, d in enumerate(order)}
problems = []
if len(order) < 2:
    problems.append("Makefile.am lists no folders of lib/")
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
graph = {}
for d in sorted(os.listdir("lib")):
    if d.startswith(".") or not os.path.isdir(os.path.join("lib", d)):
        continue
    if d not in rank:
        problems.append("lib/%s: a folder Makefile.am does not list" % d)
        continue
    for f in sorted(os.listdir(os.path.join("lib", d))):
        if not f.endswith((".c", ".h")):
            continue
        path = "lib/%s/%s" % (d, f)
        for h in inc.findall(open(path, encoding="utf-8", errors="replace").read()):
            if h == "config.h":
                continue
            parts = h.split("/")
            if len(parts) != 2 or parts[0] not in rank:
                problems.append("%s: includes \"%s\", which names no folder of lib/" % (path, h))
                continue
            hd = parts[0]
            if not h.endswith("-gen.h") and not os.path.exists(os.path.join("lib", h)):
                problems.append("%s: includes \"%s\", which does not exist" % (path, h))
            elif rank[hd] > rank[d]:
                problems.append("%s: includes %s, from %s/ above %s/" % (path, h, hd, d))
            elif hd != d and re.search(r'int\.h$', parts[1]):
                problems.append("%s: includes %s, the inside of %s/" % (path, h, hd))
            if f.endswith(".h"):
                graph.setdefault("%s/%s" % (d, f), set()).add(h)

# a cycle among the headers
state = {}
def visit(n, stack):
    state[n] = 1
    for m in sorted(graph.get(n, ())):
        if state.get(m) == 1:
            problems.append("include cycle: " + " -> ".join(stack[stack.index(m):] + [m]))
        elif m not in state:
            visit(m, stack + [m])
    state[n] = 2
for n in sorted(graph):
    if n not in state:
        visit(n, [n])
print("\n".join(problems))
PY
)
# no file climbs, crosses or cycles
assert_eq "$problems" "" "layering problems"
