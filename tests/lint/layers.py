"""The layers point one way (docs/HACKING.md, Layers): among lib's modules (a
.c with its .h) and tools' modules, the graph of includes, of calls to a
function only one file defines, and of calls through function tables has no
circle; each folder of lib includes nothing of the folders above it (ABOVE);
no source file passes 800 lines.

A call through a table is seen where the table is filled by designated
initializers or assignments (`.snapshot = answer_snapshot`, `x.f = vt_g`):
the field then stands for the function, defined static in that file or
once in lib, and a call `p->snapshot(` or `t.snapshot(` anywhere is a call
to its module. A table filled positionally is not seen: fill tables by
field name.
Usage: layers.py ROOT. Prints what it finds; exits 1 on any of it."""
import collections
import os
import re
import sys

DEFINITION = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(vt_\w+|vramtrace_\w+)\s*\([^;{]*\)\s*\{", re.M)
INCLUDE = re.compile(r'#include "([^"]+)"')
STATIC_DEFINITION = re.compile(r"^static\s[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)
# A field given a function: ".field = name" not followed by a call, an
# index or a member (then name is a value, not a function).
FIELD = re.compile(r"\.(\w+)\s*=(?!=)\s*&?(\w+)\b(?!\s*[\(\[\.]|\s*->)")
TABLE_CALL = re.compile(r"(?:\.|->)(\w+)\s*\(")


LITERAL_OR_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def module(path):
    return path[:-2]


def code(text):
    """text without its comments and literals: a name in a message or a
    comment is no call."""
    return LITERAL_OR_COMMENT.sub(lambda match: " " * len(match.group(0)) if match.group(0)[0] in "/" else '""', text)


def sources(folder):
    found = []
    for directory, _, names in os.walk(folder):
        found += [os.path.normpath(os.path.join(directory, n)) for n in names
                  if n.endswith((".c", ".h"))]
    return found


def table_fields(files, text, unique):
    """Each field some table gives a function, with the files defining
    those functions."""
    fields = collections.defaultdict(set)
    for f in files:
        local = set(STATIC_DEFINITION.findall(text[f]))
        for field, name in FIELD.findall(text[f]):
            if name in local:
                fields[field].add(f)
            elif name in unique:
                fields[field].add(unique[name])
    return fields


def graph(files, text):
    includes = {f: INCLUDE.findall(text[f]) for f in files}
    text = {f: code(text[f]) for f in files}
    owners = collections.defaultdict(set)
    for f in files:
        if f.endswith(".c"):
            for match in DEFINITION.finditer(text[f]):
                owners[match.group(1)].add(f)
    unique = {name: next(iter(where)) for name, where in owners.items() if len(where) == 1}
    fields = table_fields(files, text, unique)
    edges = collections.defaultdict(set)
    for f in files:
        for included in includes[f]:
            target = os.path.normpath(os.path.join(os.path.dirname(f), included))
            if target in text and module(target) != module(f):
                edges[module(f)].add(module(target))
        if f.endswith(".c"):
            for name, owner in unique.items():
                if module(owner) != module(f) and re.search(r"\b" + name + r"\s*\(", text[f]):
                    edges[module(f)].add(module(owner))
        for field in TABLE_CALL.findall(text[f]):
            for owner in fields.get(field, ()):
                if module(owner) != module(f):
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


# What each folder of lib must not include: the folders above it. From the
# top: the entry points (interpose, whose first caught call activates the
# tracer; lifecycle; control's endpoint, which answers the tool), the
# library, the sources, then report and core; lib's own files (collect,
# configuration, logging) sit below the library.
ABOVE = {
    "core": r"(^|/)(sources|interpose|lifecycle|report|library|control)/",
    "report": r"(^|/)(sources|interpose|lifecycle|library|control)/",
    "sources": r"(^|/)(interpose|lifecycle|library|control|report)/",
    "library": r"(^|/)(interpose|lifecycle|control)/",
    "control": r"(^|/)(interpose|lifecycle|report)/",
    "lifecycle": r"(^|/)(interpose|report)/",
    # The data flows from the hooks to core, and the report reads core: the
    # entry points reach a report through the library, never the writer's
    # own parts.
    "interpose": r"(^|/)report/",
    "lib": r"(^|/)(interpose|lifecycle|library|control)/",
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
