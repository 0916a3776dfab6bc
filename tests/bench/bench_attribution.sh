#!/bin/sh
# What tracing costs per allocate/free pair, as the medians of paired runs:
# each pair runs the untraced and the traced program back to back (the
# order alternating), at program depths 1 and 30, on 1 and 8 created
# threads and on the main thread, with stacks off and with 32-frame stacks. Wall time is what the goals compare;
# the CPU time beside it tells the tracer's work from the waiting it adds
# when threads outnumber cores. heaptrack runs on a malloc/free loop of the
# same shape at the same depth in the same run. A control library that
# adds the same CPU time per call but shares nothing between threads
# (control_preload.c) shows what the workload makes of 8 threads against 1
# for any added work, and perf's samples give the CPU time in vramtrace's
# own code at 1 and 8 threads. Then one report with 1,000,000 live allocations
# from 100,000 distinct stacks.
#
# bench_attribution.sh BENCH_DEPTH BENCH_REPORT LIBRARY SIM_DIR CONTROL [PAIRS] [RUNS]
set -eu
depth_bench=$(realpath "$1")
report_bench=$(realpath "$2")
library=$(realpath "$3")
simdir=$(realpath "$4")
control=$(realpath "$5")
pairs=${6:-100000}
runs=${7:-11}
here=$(dirname "$(realpath "$0")")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export VRAMTRACE_SUMMARY=0 VRAMTRACE_OUTPUT="$out/report.%p.json"

# Prints "WALL CPU", nanoseconds per pair.
ns_per_pair() { "$@" 2>/dev/null | awk '/^ns_per_pair / { w = $2 } /^cpu_ns_per_pair / { c = $2 }
	END { print w, c }'; }
untraced() { LD_LIBRARY_PATH="$simdir" ns_per_pair "$@"; }
traced() { LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$library" ns_per_pair "$@"; }
controlled() { LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$control" ns_per_pair "$@"; }
# heaptrack does most of its work in a process of its own, which the
# program's CPU clock does not see: its CPU column is left out (nan).
heaptraced() { (cd "$out" && ns_per_pair heaptrack "$@" | awk '{ print $1, "nan" }'
	rm -f "$out"/heaptrack.*); }

# paired LABEL STACK_DEPTH TRACER ARGS...: RUNS pairs of runs of ARGS
# untraced and under TRACER, alternating which goes first.
paired() {
	label=$1 stack_depth=$2 tracer=$3
	shift 3
	i=0
	while [ "$i" -lt "$runs" ]; do
		if [ $((i % 2)) -eq 0 ]; then
			b=$(untraced "$@")
			t=$(VRAMTRACE_STACK_DEPTH=$stack_depth $tracer "$@")
		else
			t=$(VRAMTRACE_STACK_DEPTH=$stack_depth $tracer "$@")
			b=$(untraced "$@")
		fi
		echo "$b $t" | awk '{ print $1, $3, $2, $4 }'
		i=$((i + 1))
	done | python3 "$here/paired.py" "$label"
}

# row NAME LABEL ARGS...: prints paired LABEL ARGS... and keeps its added
# nanoseconds in $out/added.NAME for the goals' ratios below.
row() {
	name=$1
	shift
	line=$(paired "$@")
	echo "$line"
	echo "$line" | awk '{ print $(NF - 4) }' >"$out/added.$name"
	echo "$line" | awk '{ print $NF }' >"$out/cpu.$name"
}

printf '%-40s %5s %10s %10s %9s  %-14s %9s\n' "ns per pair (medians)" pairs untraced traced added \
	"(interquartile)" "cpu added"
for depth in 1 30; do
	for threads in 1 8; do
		row "off.$depth.$threads" "vramtrace, stacks off, depth $depth, $threads thr" 0 traced \
			"$depth_bench" cuda "$depth" "$pairs" "$threads"
		row "on.$depth.$threads" "vramtrace, 32 frames, depth $depth, $threads thr" 32 traced \
			"$depth_bench" cuda "$depth" "$pairs" "$threads"
	done
done
# The other loop shape, on the main thread (THREADS 0): the heap's layout
# differs there, so a ratio from one shape alone is not a result.
row off.main "vramtrace, stacks off, depth 30, main" 0 traced "$depth_bench" cuda 30 "$pairs" 0
row on.main "vramtrace, 32 frames, depth 30, main" 32 traced "$depth_bench" cuda 30 "$pairs" 0
if command -v heaptrack >/dev/null 2>&1; then
	row heaptrack "heaptrack, malloc loop, depth 30, 1 thr" 0 heaptraced \
		"$depth_bench" malloc 30 "$pairs" 1
	row heaptrack.main "heaptrack, malloc loop, depth 30, main" 0 heaptraced \
		"$depth_bench" malloc 30 "$pairs" 0
else
	echo "heaptrack: not installed, its row is left out (apt-get install heaptrack)"
fi

# The control: private work of the CPU time vramtrace added per call at one
# thread (half its pair's), in vramtrace's place, at 1 and 8 threads.
control_ns=$(awk -v c="$(cat "$out/cpu.off.1.1")" 'BEGIN { printf "%.0f", (c > 0 ? c / 2 : 0) }')
export CONTROL_NS="$control_ns"
for threads in 1 8; do
	row "control.$threads" \
		"control, ${control_ns} ns a call, depth 1, $threads thr" 0 controlled \
		"$depth_bench" cuda 1 "$pairs" "$threads"
done

# The goals' ratios, from the medians above: ratio LABEL MEASURE A B.
ratio() { awk -v a="$(cat "$out/$2.$3")" -v b="$(cat "$out/$2.$4")" -v l="$1" \
	'BEGIN { printf "%-52s %5.2fx\n", l, (b > 0 ? a / b : 0) }'; }
for depth in 1 30; do
	ratio "stacks off, 8 threads against 1 thread, depth $depth" added "off.$depth.8" \
		"off.$depth.1"
	ratio "  the same in CPU time" cpu "off.$depth.8" "off.$depth.1"
done
ratio "the control, sharing nothing, 8 threads against 1" added control.8 control.1
if [ -f "$out/added.heaptrack" ]; then
	ratio "32 frames against heaptrack, depth 30, 1 thr" added on.30.1 heaptrack
	ratio "32 frames against heaptrack, depth 30, main" added on.main heaptrack.main
fi

# The CPU time run in vramtrace's own code per pair, from perf's samples
# (cpu-clock, 20 kHz), stacks off, at 1 and 8 threads: the tracer's own
# share of the goal on threads, apart from what any added work does to the
# workload (above). The difference of two run lengths cancels start-up and
# the report at exit; the median of five.
own_ns() { # THREADS: prints the median ns per pair in the library
	for i in 1 2 3 4 5; do
		for length in "$pairs" $((pairs / 4)); do
			VRAMTRACE_STACK_DEPTH=0 perf record -q -F 20000 -o "$out/perf.data" -- env \
				LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$library" "$depth_bench" cuda 1 \
				"$length" "$1" >/dev/null 2>&1
			perf report -i "$out/perf.data" --stdio --sort dso -F sample,dso 2>/dev/null |
				awk -v lib="$(basename "$library")" '$2 == lib { n = $1 } END { print n + 0 }'
		done | tr '\n' ' '
		echo
	done | awk -v pairs="$pairs" -v threads="$1" '
		{ print ($1 - $2) * 50000 / (pairs * 3 / 4 * threads) }' | sort -n | sed -n 3p
}
if command -v perf >/dev/null 2>&1 && perf record -q -o "$out/perf.data" -- true >/dev/null 2>&1; then
	one=$(own_ns 1)
	eight=$(own_ns 8)
	awk -v a="$one" -v b="$eight" 'BEGIN {
		printf "cpu ns per pair in vramtrace (perf), stacks off, depth 1: %.1f at 1 thread, %.1f at 8\n", a, b
		printf "%-52s %5.2fx\n", "  8 threads against 1, in vramtrace alone", (a > 0 ? b / a : 0) }'
else
	echo "perf: not installed or not permitted, the own-code CPU time is left out"
fi

# Instructions per pair, the stable figure, are the own_cost benchmark's
# (bench_own_cost.sh): both loop shapes, vramtrace and heaptrack.

# 256-byte granularity, so a million small allocations fit the device.
seconds=$(VRAMSIM_GRANULARITY=256B LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$library" \
	"$report_bench" 100000 1000000 "$out/big.%p.json" | sed -n 's/^report_seconds //p')
echo "report with 1,000,000 live allocations, 100,000 stacks: ${seconds:-failed} s"
