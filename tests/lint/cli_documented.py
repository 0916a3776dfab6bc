"""The commands' --help and their documentation (docs/cli.md) agree: every
long option a command's --help lists is named in that command's section,
and every option a section names in backquotes (outside a quoted command
line, which may be another command's) is one its --help lists.
Usage: cli_documented.py TOOL DOCS. Prints what it finds; exits 1 on any of
it."""
import json
import os
import re
import subprocess
import sys
import tempfile

COMMANDS = ["run", "report", "diff", "check", "merge", "fit", "ps", "snapshot", "top", "metrics"]
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def sections(path):
    """{command: its section's text}, a section running to the next '## '."""
    found, command, lines = {}, None, []
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            if command:
                found[command] = "".join(lines)
            match = re.match(r"## `vramtrace (\w+)", line)
            command, lines = (match.group(1) if match else None), [line]
        elif command:
            lines.append(line)
    if command:
        found[command] = "".join(lines)
    return found


def keys(value, found):
    """Every object key in value, but for the objects that hold data (a
    run's labels, bytes by tag, the labels held fixed)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(key)
            if key not in ("labels", "tags", "fixed"):
                keys(inner, found)
    elif isinstance(value, list):
        for inner in value:
            keys(inner, found)
    return found


def fit_fields(tool, fixtures):
    """The fields of fit's JSON for two runs labelled batch=8 and batch=16."""
    with tempfile.TemporaryDirectory() as work:
        files = []
        for batch in (8, 16):
            with open(os.path.join(fixtures, f"llm_batch{batch}.json"), encoding="utf-8") as f:
                report = json.load(f)
            report["run"]["labels"] = {"batch": str(batch)}
            files.append(os.path.join(work, f"b{batch}.json"))
            with open(files[-1], "w", encoding="utf-8") as f:
                json.dump(report, f)
        shown = subprocess.run([tool, "fit", *files, "--predict", "batch=32", "--budget",
                                "80GiB", "--solve", "batch", "--format", "json"],
                               capture_output=True, text=True, check=True).stdout
    return keys(json.loads(shown), set())


def main():
    tool, docs, fixtures = sys.argv[1], sys.argv[2], sys.argv[3]
    documented = sections(docs)
    problems = []
    for command in COMMANDS:
        text = documented.get(command)
        if text is None:
            problems.append(f"docs/cli.md has no section for vramtrace {command}")
            continue
        shown = subprocess.run([tool, command, "--help"], capture_output=True, text=True,
                               check=True).stdout
        offered = set(OPTION.findall(shown))
        for option in sorted(offered - {"--help"}):
            if option not in set(OPTION.findall(text)):
                problems.append(f"vramtrace {command} {option}: not in its section of docs/cli.md")
        for span in re.findall(r"`([^`]+)`", text):
            if "vramtrace" in span:
                continue
            for option in OPTION.findall(span):
                if option not in offered:
                    problems.append(f"docs/cli.md, vramtrace {command}: `{span}` names "
                                    f"{option}, which vramtrace {command} --help does not list")
    named = set(re.findall(r"`([a-z_]+)(?:\[\])?`", documented.get("fit", "")))
    for field in sorted(fit_fields(tool, fixtures) - named):
        problems.append(f"vramtrace fit --format json writes {field}, not named in its section")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
