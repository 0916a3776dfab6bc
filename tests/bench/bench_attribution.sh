#!/bin/sh
# What attribution costs: nanoseconds added to an allocate/free pair with
# stacks off and with 32-frame stacks, beside heaptrack on a malloc/free
# loop at the same depths, all measured here in one run (best of 5 each);
# then 8 threads, and one report with 1,000,000 live allocations from
# 100,000 distinct stacks.
set -eu
depth_bench=$(realpath "$1")
report_bench=$(realpath "$2")
library=$(realpath "$3")
simdir=$(realpath "$4")
pairs=${5:-200000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export VRAMTRACE_SUMMARY=0 VRAMTRACE_OUTPUT="$out/report.%p.json"

best() { sort -n | head -1; }

# best_of COMMAND...: the smallest "ns_per_pair N" of five runs (heaptrack
# prints its own lines around the program's).
best_of() {
	for run in 1 2 3 4 5; do
		"$@" 2>/dev/null | sed -n 's/^ns_per_pair //p'
	done | best
}

cuda() { LD_LIBRARY_PATH="$simdir" "$@"; }
traced() { LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$library" "$@"; }

heaptrack_bin=$(command -v heaptrack || true)
printf '%-34s %6s %10s %10s\n' scenario depth "ns/pair" "added ns"
for depth in 1 30; do
	base=$(best_of cuda "$depth_bench" cuda "$depth" "$pairs")
	off=$(VRAMTRACE_STACK_DEPTH=0 best_of traced "$depth_bench" cuda "$depth" "$pairs")
	on=$(VRAMTRACE_STACK_DEPTH=32 best_of traced "$depth_bench" cuda "$depth" "$pairs")
	printf '%-34s %6s %10.1f %10s\n' "cudaMalloc/cudaFree, no tracer" "$depth" "$base" -
	awk -v d="$depth" -v b="$base" -v t="$off" 'BEGIN {
		printf "%-34s %6s %10.1f %10.1f\n", "vramtrace, stacks off", d, t, t - b }'
	awk -v d="$depth" -v b="$base" -v t="$on" 'BEGIN {
		printf "%-34s %6s %10.1f %10.1f\n", "vramtrace, 32-frame stacks", d, t, t - b }'
	if [ -n "$heaptrack_bin" ]; then
		mbase=$(best_of "$depth_bench" malloc "$depth" "$pairs")
		heap=$(cd "$out" && best_of "$heaptrack_bin" "$depth_bench" malloc "$depth" "$pairs")
		printf '%-34s %6s %10.1f %10s\n' "malloc/free, no tracer" "$depth" "$mbase" -
		awk -v d="$depth" -v b="$mbase" -v t="$heap" -v v="$on" -v vb="$base" 'BEGIN {
			printf "%-34s %6s %10.1f %10.1f\n", "heaptrack", d, t, t - b
			printf "%-34s %6s %10.2f\n", "vramtrace/heaptrack added", d, (v - vb) / (t - b) }'
	fi
done
base8=$(best_of cuda "$depth_bench" cuda 30 "$pairs" 8)
on8=$(VRAMTRACE_STACK_DEPTH=32 best_of traced "$depth_bench" cuda 30 "$pairs" 8)
awk -v b="$base8" -v t="$on8" 'BEGIN {
	printf "%-34s %6s %10.1f %10.1f\n", "8 threads, no tracer", 30, b, 0
	printf "%-34s %6s %10.1f %10.1f\n", "8 threads, 32-frame stacks", 30, t, t - b }'
# 256-byte granularity, so a million small allocations fit the device.
seconds=$(VRAMSIM_GRANULARITY=256 traced "$report_bench" 100000 1000000 "$out/big.%p.json" |
	sed -n 's/^report_seconds //p')
echo "report with 1,000,000 live allocations, 100,000 stacks: ${seconds:-failed} s"

# Instructions are repeatable where nanoseconds are not: callgrind counts
# what one allocate/free pair adds, the difference of two run lengths
# cancelling start-up and exit.
if command -v valgrind >/dev/null 2>&1; then
	count() {
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
			sed -n 's/.*refs: *//p' | tr -d ','
	}
	for depth in 0 32; do
		b1=$(cuda count "$depth_bench" cuda 1 10000)
		b2=$(cuda count "$depth_bench" cuda 1 30000)
		t1=$(VRAMTRACE_STACK_DEPTH=$depth traced count "$depth_bench" cuda 1 10000)
		t2=$(VRAMTRACE_STACK_DEPTH=$depth traced count "$depth_bench" cuda 1 30000)
		awk -v d="$depth" -v b1="$b1" -v b2="$b2" -v t1="$t1" -v t2="$t2" 'BEGIN {
			printf "instructions added per pair, stack depth %s: %.0f (baseline %.0f)\n",
				d, ((t2 - t1) - (b2 - b1)) / 20000, (b2 - b1) / 20000 }'
	done
fi
