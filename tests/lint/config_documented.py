"""The library's settings (the options table of lib/config.c) and their
documentation (docs/configuration.md) agree: every variable the library
reads has a row, every row is a variable it reads, and where the library
takes numbers from A to B ("from A (off) to B" in its warning), the row
says "A to B", so the range a user reads is the one a value is checked
against. Usage: config_documented.py CONFIG_C DOCS. Prints what it finds;
exits 1 on any of it."""
import re
import sys


def main():
    source = open(sys.argv[1], encoding="utf-8").read()
    docs = open(sys.argv[2], encoding="utf-8").read()
    read = dict(re.findall(r'\{"(VRAMTRACE_\w+)", \w+,\s*"([^"]*)"', source))
    rows = dict(re.findall(r"^\| `(VRAMTRACE_\w+)` \| [^|]* \| (.*) \|$", docs, re.M))
    problems = []
    for name in sorted(set(read) - set(rows)):
        problems.append(f"{name}: read by the library, no row in docs/configuration.md")
    for name in sorted(set(rows) - set(read)):
        problems.append(f"{name}: a row in docs/configuration.md, never read by the library")
    for name in sorted(set(read) & set(rows)):
        bounds = re.search(r"from (\d+)(?: \(off\))? to (\d+)", read[name])
        if bounds:
            low, high = bounds.groups()
            written = rf"\b{low}(?: \(off\))? to ({high}|{int(high):,})\b"
            if not re.search(written, rows[name]):
                problems.append(f"{name}: the library takes {low} to {high}; "
                                "docs/configuration.md does not say so")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
