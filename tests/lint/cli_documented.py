"""The commands' --help and their documentation (docs/cli.md) agree: every
long option a command's --help lists is named in that command's section,
and every option a section names in backquotes (outside a quoted command
line, which may be another command's) is one its --help lists.
Usage: cli_documented.py TOOL DOCS. Prints what it finds; exits 1 on any of
it."""
import re
import subprocess
import sys

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


def main():
    tool, docs = sys.argv[1], sys.argv[2]
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
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
