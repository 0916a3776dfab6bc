#!/bin/sh
# Nanoseconds per cudaMalloc/cudaFree pair on the simulated device, without
# and with vramtrace preloaded, on 1 and 8 threads. Both runs happen here,
# interleaved, so the ratio holds on a busy machine; the best of five runs
# of each is compared.
set -eu
bench=$1
library=$2
simdir=$3
pairs=${4:-100000}
export LD_LIBRARY_PATH="$simdir" VRAMTRACE_SUMMARY=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export VRAMTRACE_OUTPUT="$out/report.%p.json"

best() { sort -n | head -1; }

printf '%-8s %14s %14s %12s %8s\n' threads "baseline ns" "traced ns" "added ns" ratio
for threads in 1 8; do
	base=""
	traced=""
	for run in 1 2 3 4 5; do
		base="$base $("$bench" "$threads" "$pairs")"
		traced="$traced $(LD_PRELOAD="$library" "$bench" "$threads" "$pairs")"
	done
	b=$(printf '%s\n' $base | best)
	t=$(printf '%s\n' $traced | best)
	awk -v n="$threads" -v b="$b" -v t="$t" \
		'BEGIN { printf "%-8s %14.1f %14.1f %12.1f %8.2f\n", n, b, t, t - b, t / b }'
done
