"""Paired medians for the kit's rows 10 and 11. Reads lines of
"UNTRACED TRACED" figures (one pair of back-to-back runs each) and prints
"MEDIAN_UNTRACED MEDIAN_TRACED MEDIAN_ADDED PERCENT RUNS": the added cost is
the median of the paired differences, the percent that over the untraced
median. Exits 1 with fewer than 11 pairs (the kit's minimum).
    python3 paired.py [SCALE] < pairs   (each figure multiplied by SCALE)"""
import statistics
import sys


def main(scale):
    rows = [tuple(float(x) * scale for x in line.split()) for line in sys.stdin if line.strip()]
    rows = [r for r in rows if len(r) == 2]
    if len(rows) < 11:
        print("? ? ? ? %d" % len(rows))
        sys.exit(1)
    base = statistics.median(r[0] for r in rows)
    traced = statistics.median(r[1] for r in rows)
    added = statistics.median(r[1] - r[0] for r in rows)
    print("%.1f %.1f %.1f %.1f %d" % (base, traced, added, 100 * added / base, len(rows)))


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
