#!/usr/bin/env python3
"""Writes libvramtrace.so's export map: the names vramtrace.map.in lists
itself (dlsym, the public API, NVTX's injection point), and at its
@ENTRY_POINTS@ line every entry point of entry_points.h, as the
preprocessor expanded export_names.c.

usage: export_map.py MAP_IN EXPANDED_NAMES OUT"""
import re
import sys


def main(map_in, expanded, out):
    names = re.findall(r"\b([A-Za-z_]\w*)\s*;", open(expanded).read())
    if not names or len(set(names)) != len(names):
        sys.exit(f"export_map.py: {expanded} lists no names, or one twice: {names}")
    lines = "".join(f"\t{name};\n" for name in names)
    template = open(map_in).read()
    if template.count("@ENTRY_POINTS@") != 1:
        sys.exit(f"export_map.py: {map_in} needs one @ENTRY_POINTS@ line")
    text = re.sub(r"[ \t]*@ENTRY_POINTS@[ \t]*\n", lambda _: lines, template)
    open(out, "w").write(text)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
