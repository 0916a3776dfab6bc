"""Reads lines "BASELINE TRACED BASELINE_CPU TRACED_CPU" (one pair of
back-to-back runs each: wall and CPU nanoseconds per pair) and prints the
median of each wall column, the median of the paired wall differences and
their interquartile range, and the median of the paired CPU differences
("-" when a run's CPU time is nan: not measured):
python3 paired.py LABEL < pairs."""
import math
import statistics
import sys


def main(label):
    try:
        rows = [tuple(map(float, line.split())) for line in sys.stdin if line.strip()]
    except ValueError as error:
        sys.exit(f"paired.py: {label}: a run printed no figure ({error})")
    if any(len(r) != 4 for r in rows):
        sys.exit(f"paired.py: {label}: a run printed no figure")
    if len(rows) < 2:
        sys.exit(f"paired.py: {label}: fewer than two pairs of runs")
    base = statistics.median(r[0] for r in rows)
    traced = statistics.median(r[1] for r in rows)
    added = [r[1] - r[0] for r in rows]
    low, _, high = statistics.quantiles(added, n=4)
    cpu = [r[3] - r[2] for r in rows]
    cpu_added = "-" if any(math.isnan(c) for c in cpu) else f"{statistics.median(cpu):.1f}"
    spread = f"({low:.0f} to {high:.0f})"
    print(f"{label:<40} {len(rows):>5} {base:>10.1f} {traced:>10.1f} "
          f"{statistics.median(added):>9.1f}  {spread:<14} {cpu_added:>9}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
