"""Row 9 of the kit: in a report of python_frames.py, each of its five
allocating stacks has, innermost first, the Python lines of allocate() and
of its caller, exactly as the script's markers say.
    python3 frames_check.py REPORT SCRIPT
Prints "exact of 5" and, for each stack that is not, what it holds."""
import json
import sys

MiB = 1 << 20
CALLERS = {64: "load_weights", 32: "grow_cache", 16: "worker", 8: "recurse_leaf", 4: "build"}


def main(report_path, script):
    marks = {}
    for number, text in enumerate(open(script), 1):
        if "# MARK " in text:
            marks[text.rsplit("# MARK ", 1)[1].strip()] = number
    r = json.load(open(report_path))
    frames = r["frames"]
    by_id = {s["id"]: s["frames"] for s in r["stack_frames"]}
    exact, wrong = 0, []
    for stack in r["devices"][0]["stacks"]:
        caller = CALLERS.get(stack["at_peak_bytes"] // MiB)
        lines = [frames[i]["line"] for i in by_id[stack["id"]]
                 if frames[i].get("python") and (frames[i].get("file") or "").endswith("python_frames.py")]
        if caller and lines[:2] == [marks["allocate"], marks[caller]]:
            exact += 1
        else:
            wrong.append("%s: %s" % (caller or stack["at_peak_bytes"], lines[:2]))
    print("%d %s" % (exact, "; ".join(wrong)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
