"""Reads lines "BASELINE TRACED" (one pair of back-to-back runs each) and
prints the median of each column, the median of the paired differences and
their interquartile range: python3 paired.py LABEL < pairs."""
import statistics
import sys


def main(label):
    rows = [tuple(map(float, line.split())) for line in sys.stdin if line.strip()]
    if len(rows) < 2:
        sys.exit(f"paired.py: {label}: fewer than two pairs of runs")
    base = statistics.median(r[0] for r in rows)
    traced = statistics.median(r[1] for r in rows)
    added = [t - b for b, t in rows]
    low, _, high = statistics.quantiles(added, n=4)
    print(f"{label:<40} {len(rows):>5} {base:>10.1f} {traced:>10.1f} "
          f"{statistics.median(added):>9.1f}  ({low:.0f} to {high:.0f})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
