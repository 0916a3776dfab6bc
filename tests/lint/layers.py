"""The layers point one way (docs/HACKING.md, Layers): among lib's modules (a
.c with its .h) and tools' modules, the graph of includes and of calls to a
function only one file defines has no circle; lib/core and lib/report
include nothing above them, lib/sources nothing of lib/interpose or
lib/lifecycle, lib/interpose nothing of lib/lifecycle; no source file passes
800 lines.
Usage: layers.py ROOT. Prints what it finds; exits 1 on any of it."""
import collections
import os
import re
import sys

DEFINITION = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(vt_\w+|vramtrace_\w+)\s*\([^;{]*\)\s*\{", re.M)
INCLUDE = re.compile(r'#include "([^"]+)"')


def module(path):
    return path[:-2]


def sources(folder):
    found = []
    for directory, _, names in os.walk(folder):
        found += [os.path.normpath(os.path.join(directory, n)) for n in names
                  if n.endswith((".c", ".h"))]
    return found


def graph(files, text):
    owners = collections.defaultdict(set)
    for f in files:
        if f.endswith(".c"):
            for match in DEFINITION.finditer(text[f]):
                owners[match.group(1)].add(f)
    unique = {name: next(iter(where)) for name, where in owners.items() if len(where) == 1}
    edges = collections.defaultdict(set)
    for f in files:
        for match in INCLUDE.finditer(text[f]):
            target = os.path.normpath(os.path.join(os.path.dirname(f), match.group(1)))
            if target in text and module(target) != module(f):
                edges[module(f)].add(module(target))
        if f.endswith(".c"):
            for name, owner in unique.items():
                if module(owner) != module(f) and re.search(r"\b" + name + r"\s*\(", text[f]):
                    edges[module(f)].add(module(owner))
    return edges


def cycles(nodes, edges):
    index, low, stack, on, found = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            strong(v)
    return found


# What each folder of lib must not include: the folders above it.
ABOVE = {
    "core": r"(^|/)(sources|interpose|lifecycle|report)/",
    "report": r"(^|/)(sources|interpose|lifecycle)/",
    "sources": r"(^|/)(interpose|lifecycle)/",
    "interpose": r"(^|/)lifecycle/",
    "control": r"(^|/)(interpose|lifecycle)/",
}


def above(path):
    parts = path.split(os.sep)
    folder = parts[-2] if len(parts) > 1 else ""
    return ABOVE.get(folder, r"(?!)")


def main(root):
    problems = []
    for folder in ("lib", "tools"):
        files = sources(os.path.join(root, folder))
        text = {f: open(f, encoding="utf-8").read() for f in files}
        edges = graph(files, text)
        for cycle in cycles(sorted(set(module(f) for f in files)), edges):
            problems.append("a circle: " + " -> ".join(os.path.relpath(c, root) for c in cycle))
        for f in files:
            lines = text[f].count("\n")
            if lines > 800:
                problems.append(f"{os.path.relpath(f, root)}: {lines} lines")
            for match in INCLUDE.finditer(text[f]):
                if re.search(above(f), match.group(1)):
                    problems.append(f"{os.path.relpath(f, root)} includes {match.group(1)}")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problems with the layers")
    return 1 if problems else 0


sys.exit(main(sys.argv[1]))
