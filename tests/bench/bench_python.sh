#!/bin/sh
# What Python frames cost per allocation: cudaMalloc/cudaFree pairs from a
# 30-frame Python stack, traced with VRAMTRACE_PYTHON=1 and =0 back to back
# (the order alternating), 15 pairs of runs; the median of each and of the
# paired differences. One allocation per pair carries a stack.
set -eu
python=$1
library=$2
simdir=$3
script=$4
runs=${5:-15}
export LD_LIBRARY_PATH="$simdir" VRAMTRACE_SUMMARY=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export VRAMTRACE_OUTPUT="$out/report.%p.json"
one() { VRAMTRACE_PYTHON=$1 LD_PRELOAD="$library" "$python" "$script" 30 50000; }
i=0
while [ $i -lt "$runs" ]; do
	if [ $((i % 2)) -eq 0 ]; then on=$(one 1); off=$(one 0); else off=$(one 0); on=$(one 1); fi
	echo "$off $on"
	i=$((i + 1))
done | "$python" -c '
import statistics as s, sys
rows = [tuple(map(float, l.split())) for l in sys.stdin]
off, on = [r[0] for r in rows], [r[1] for r in rows]
d = [b - a for a, b in rows]
q = s.quantiles(d, n=4)
print(f"python frames, 30 deep, {len(rows)} paired runs: frames off {s.median(off):.0f} ns/pair, "
      f"on {s.median(on):.0f} ns/pair, added {s.median(d):.0f} ns per allocation "
      f"(interquartile {q[0]:.0f} to {q[2]:.0f})")
'
