#!/usr/bin/env bash
# test-code-layers.sh: libpowercut's folders are layers.  Makefile.am lists
# them from the bottom up (its "include lib/FOLDER/Makemodule.am" lines);
# a file of lib/ includes only headers of its own folder or of folders
# below it, names the folder of every header it includes, includes no
# other folder's internal header (*int.h), and the headers include each
# other without a cycle.  Within a folder, no two files call each other,
# however far round (read from the built objects' symbols), and no file
# of lib/ writes to stderr.  The suite lists each test once in the order
# make check starts them and once in one of its sets.  Anything that breaks
# a rule is listed.
source "$top_srcdir/tests/functions.sh"
requires python3 nm
builddir=$(cd "$top_builddir" && pwd)

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

# Calls: file A calls B if A's object uses a symbol B's defines; a circle
# is a strongly connected set of two files or more.
circles=$(python3 - "$builddir" <<'PY'
import glob, os, re, subprocess, sys
build = sys.argv[1]
problems, nobj = [], 0
for d in sorted(os.listdir(os.path.join(build, "lib"))):
    objs = sorted(glob.glob(os.path.join(build, "lib", d, "libpowercut_a-*.o")))
    defs, uses = {}, {}
    for o in objs:
        nobj += 1
        name = os.path.basename(o)[len("libpowercut_a-"):-2] + ".c"
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDRBC":
                defs[f[2]] = name
            elif len(f) == 2 and f[0] == "U":
                uses.setdefault(name, set()).add(f[1])
    calls = {}
    for a, syms in uses.items():
        for sym in syms:
            b = defs.get(sym)
            if b and b != a:
                calls.setdefault(a, {}).setdefault(b, []).append(sym)
    index, low, on, stack = {}, {}, set(), []
    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(calls.get(v, {})):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                edges = ["%s -> %s (%s)" % (a, b, ", ".join(sorted(calls[a][b])[:3]))
                         for a in sorted(scc) for b in sorted(calls.get(a, {})) if b in scc]
                problems.append("lib/%s: a circle: %s" % (d, "; ".join(edges)))
    for v in sorted(set(calls) | set(defs.values())):
        if v not in index:
            connect(v)
if nobj < 20:
    problems.append("only %d objects of lib/ found under %s (not built?)" % (nobj, build))
print("\n".join(problems))
PY
)
assert_eq "$circles" "" "files of a folder that call each other"

# Library code never prints: no stderr or perror in lib/ but in comments.
printing=$(grep -nwE 'stderr|perror' lib/*/*.c lib/*/*.h | grep -vE '^[^:]*:[0-9]+: *(/?\*)' || true)
assert_eq "$printing" "" "lib/ writing to stderr"

# The suite: SHELL_TESTS (the order make check starts them in) holds each
# test of the three sets once, and every tests/test-*.sh is in a set.
lists=$(python3 - <<'PY'
import glob, re
s = open("Makefile.am").read()
def names(var):
    m = re.search(r'^%s = \\\n((?:\t.*\n)+)' % var, s, re.M)
    return [l.strip().rstrip("\\").strip() for l in m.group(1).splitlines()] if m else []
sets = names("QUICK_SHELL_TESTS") + names("ROOT_SHELL_TESTS") + names("SLOW_SHELL_TESTS")
order = names("SHELL_TESTS")
out = []
for t in sorted(set(sets) | set(order)):
    if sets.count(t) != 1:
        out.append("%s: in %d of the sets" % (t, sets.count(t)))
    if order.count(t) != 1:
        out.append("%s: %d times in SHELL_TESTS" % (t, order.count(t)))
for t in sorted(glob.glob("tests/test-*.sh")):
    if t not in sets:
        out.append("%s: in no set" % t)
if len(order) < 50:
    out.append("SHELL_TESTS lists only %d tests" % len(order))
print("\n".join(out))
PY
)
assert_eq "$lists" "" "the suite's lists"
