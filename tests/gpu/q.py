"""One figure out of a vramtrace report, for the kit's checks:
    python3 q.py REPORT EXPRESSION
EXPRESSION is Python over `r` (the report) and `d` (device 0), with
helpers tag(name), kind(name) (the entry, {} when absent),
python_line(stack) (file:line of a stack's innermost Python frame),
python_frames(stack), top_stack() and top_tags() (the largest at the peak)."""
import json
import os
import sys


def main():
    r = json.load(open(sys.argv[1]))
    d = r["devices"][0] if r.get("devices") else {}

    def entry(section, key, name):
        return next((e for e in d.get(section) or [] if e.get(key) == name), {})

    def tag(name):
        return entry("tags", "tag", name)

    def kind(name):
        return entry("kinds", "kind", name)

    frames = r.get("frames") or []
    stack_frames = {s["id"]: s["frames"] for s in r.get("stack_frames") or []}

    def python_frames(stack):
        for index in stack_frames.get(stack["id"], []):
            frame = frames[index] if isinstance(index, int) else index
            if frame.get("python"):
                yield frame

    def python_line(stack):
        frame = next(python_frames(stack), None)
        if not frame:
            return "none"
        return "%s:%s" % (os.path.basename(frame.get("file") or "?"), frame.get("line"))

    def top_stack():
        return max(d.get("stacks") or [], key=lambda s: s["at_peak_bytes"])

    def top_tags(count=2):
        ranked = sorted(d.get("tags") or [], key=lambda t: -t["at_peak_bytes"])[:count]
        return ", ".join("%s %d" % (t["tag"], t["at_peak_bytes"]) for t in ranked) or "none"

    value = eval(sys.argv[2], {"r": r, "d": d, "tag": tag, "kind": kind, "top_tags": top_tags,
                               "python_line": python_line, "python_frames": python_frames,
                               "top_stack": top_stack})
    print(value)


if __name__ == "__main__":
    main()
