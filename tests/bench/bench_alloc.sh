#!/bin/sh
# Nanoseconds per cudaMalloc/cudaFree pair on the simulated device, without
# and with vramtrace preloaded, on 1 and 8 threads, and per
# cudaMallocAsync/cudaFreeAsync pair on 1 thread; recorded by the hooks,
# then by the (simulated) CUPTI callbacks. Each pair of runs goes back to
# back (the order alternating); the medians and the median difference are
# printed (paired.py).
set -eu
bench=$1
library=$2
simdir=$3
pairs=${4:-100000}
runs=${5:-11}
here=$(dirname "$(realpath "$0")")
export LD_LIBRARY_PATH="$simdir" VRAMTRACE_SUMMARY=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export VRAMTRACE_OUTPUT="$out/report.%p.json"

printf '%-40s %5s %10s %10s %9s  %s\n' "ns per pair (medians)" pairs untraced traced added \
	"(interquartile)"
for case in "1 sync hooks" "8 sync hooks" "1 async hooks" "1 sync cupti" "1 async cupti"; do
	set -- $case
	i=0
	while [ "$i" -lt "$runs" ]; do
		if [ $((i % 2)) -eq 0 ]; then
			b=$("$bench" "$1" "$pairs" "$2")
			t=$(VRAMTRACE_SOURCES=$3 LD_PRELOAD="$library" "$bench" "$1" "$pairs" "$2")
		else
			t=$(VRAMTRACE_SOURCES=$3 LD_PRELOAD="$library" "$bench" "$1" "$pairs" "$2")
			b=$("$bench" "$1" "$pairs" "$2")
		fi
		echo "$b $t"
		i=$((i + 1))
	done | python3 "$here/paired.py" "$1 thr, $2, $3"
done
