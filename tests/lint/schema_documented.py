"""The report's one list of fields (lib/report/report_schema.h) and its
documentation (docs/report-format.md) agree: every field of the list is
named, in backquotes, in the section VT_SCHEMA_DOCUMENTED gives for it, and
every field a table of that section documents is in one of its lists.
Usage: schema_documented.py FIELDS DOCS, where FIELDS is
tests/lint/schema_fields.c as the preprocessor expands it. Prints what it
finds; exits 1 on any of it."""
import re
import shlex
import sys


def read_lists(path):
    """{heading: set of documented names}, from '@ "heading" "prefix" key ...'."""
    sections = {}
    for part in open(path, encoding="utf-8").read().split("@")[1:]:
        words = shlex.split(part)
        heading, prefix, keys = words[0], words[1], words[2:]
        sections.setdefault(heading, set()).update(prefix + key for key in keys)
    return sections


def read_docs(path):
    """{heading: its text}, a heading's backquotes dropped; a section ends
    at the next heading of any level."""
    sections, heading, lines = {}, None, []
    for line in open(path, encoding="utf-8"):
        match = re.match(r"#+ (.*)", line)
        if match:
            if heading is not None:
                sections[heading] = "".join(lines)
            heading, lines = match.group(1).replace("`", "").strip(), []
        else:
            lines.append(line)
    if heading is not None:
        sections[heading] = "".join(lines)
    return sections


def table_fields(text):
    """The names in the first column of the section's field tables."""
    names, in_fields = set(), False
    for line in text.splitlines():
        if not line.startswith("|"):
            in_fields = False
            continue
        first = line.split("|")[1].strip()
        if first == "field":
            in_fields = True
        elif in_fields and not set(first) <= set("-: "):
            names.update(re.findall(r"`([^`]+)`", first))
    return names


def documented(name, text):
    """Named alone, or as the start of a longer name (`rows[].t_ns`)."""
    return re.search(r"`" + re.escape(name) + r"([`.\[])", text) is not None


def main(fields_path, docs_path):
    lists, docs = read_lists(fields_path), read_docs(docs_path)
    problems = []
    for heading, names in sorted(lists.items()):
        if heading not in docs:
            problems.append(f"docs: no section '{heading}'")
            continue
        text = docs[heading]
        for name in sorted(names):
            if not documented(name, text):
                problems.append(f"{heading}.{name}: in the list, not in the docs")
        for name in sorted(table_fields(text) - names):
            problems.append(f"{heading}.{name}: in the docs, not in the list")
    for problem in problems:
        print(problem)
    print(f"{sum(len(n) for n in lists.values())} fields in {len(lists)} sections, "
          f"{len(problems)} problems")
    return 1 if problems else 0


sys.exit(main(sys.argv[1], sys.argv[2]))
