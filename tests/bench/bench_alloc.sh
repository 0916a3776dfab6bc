#!/bin/sh
# Nanoseconds per cudaMalloc/cudaFree pair on the simulated device, without
# and with vramtrace preloaded, on 1 and 8 threads, and per
# cudaMallocAsync/cudaFreeAsync pair on 1 thread; recorded by the hooks,
# then by the (simulated) CUPTI callbacks. Both runs happen here,
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

printf '%-8s %-6s %-8s %14s %14s %12s %8s\n' threads calls sources "baseline ns" "traced ns" \
	"added ns" ratio
for case in "1 sync hooks" "8 sync hooks" "1 async hooks" "1 sync cupti" "1 async cupti"; do
	set -- $case
	base=""
	traced=""
	for run in 1 2 3 4 5; do
		base="$base $("$bench" "$1" "$pairs" "$2")"
		traced="$traced $(VRAMTRACE_SOURCES=$3 LD_PRELOAD="$library" "$bench" "$1" "$pairs" "$2")"
	done
	b=$(printf '%s\n' $base | best)
	t=$(printf '%s\n' $traced | best)
	awk -v n="$1" -v c="$2" -v s="$3" -v b="$b" -v t="$t" \
		'BEGIN { printf "%-8s %-6s %-8s %14.1f %14.1f %12.1f %8.2f\n", n, c, s, b, t, t - b, t / b }'
done
