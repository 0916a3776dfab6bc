#!/bin/sh
# Instructions per allocate/free pair at program depth 30, from callgrind,
# on both loop shapes: the main thread and a created thread. The heap's
# layout differs between them, which moves the simulated driver's own
# malloc by hundreds of instructions per pair when vramtrace is loaded, so
# each shape is measured and a figure from one alone is not a result.
#
# Per shape: vramtrace's own cost (the inclusive cost of its hooks minus
# that of the driver calls they forward, own_cost.py), with stacks off and
# with 32-frame stacks; what the whole process added; and heaptrack's own
# cost on the malloc/free loop of the same shape (its hooks minus the real
# malloc and free), with the ratio the goal compares. Each figure is the
# difference of two run lengths, which cancels start-up and the report at
# exit. The NVML sampler is off: under valgrind's slowdown it would wake
# fifty times as often per pair as in a real run.
#
# bench_own_cost.sh BENCH_DEPTH LIBRARY SIM_DIR [SHORT] [LONG]
set -eu
bench=$(realpath "$1")
library=$(realpath "$2")
simdir=$(realpath "$3")
short=${4:-2000}
long=${5:-10000}
here=$(dirname "$(realpath "$0")")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export VRAMTRACE_SUMMARY=0 VRAMTRACE_OUTPUT="$out/report.%p.json" VRAMTRACE_SAMPLE_MS=0
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: not installed, instruction counts left out"
	exit 0
fi
valgrind_flags="--tool=callgrind --compress-strings=no --compress-pos=no"

# count OBJECT ARGS...: "OWN TOTAL" for one run.
count() {
	object=$1
	shift
	LD_LIBRARY_PATH="$simdir" valgrind $valgrind_flags \
		--callgrind-out-file="$out/callgrind.out" "$@" >/dev/null 2>&1
	python3 "$here/own_cost.py" "$object" "$out/callgrind.out"
}
# heaptrack's preload library, loaded into the valgrind launcher, would
# take itself out of LD_PRELOAD before the program starts: the tool runs
# directly instead, told where its launcher and files are.
heaptrack_library=
if command -v heaptrack >/dev/null 2>&1; then
	for dir in "$(dirname "$(realpath "$(command -v heaptrack)")")/../lib/heaptrack" \
		/usr/lib/heaptrack /usr/lib/x86_64-linux-gnu/heaptrack; do
		[ -f "$dir/libheaptrack_preload.so" ] && heaptrack_library=$(realpath "$dir/libheaptrack_preload.so") && break
	done
fi
valgrind_lib=
for dir in /usr/libexec/valgrind /usr/lib/valgrind /usr/local/libexec/valgrind; do
	[ -x "$dir/callgrind-amd64-linux" ] && valgrind_lib=$dir && break
done
traced_count() { LD_PRELOAD="$library" count "$@"; }
heap_count() {
	VALGRIND_LAUNCHER=$(command -v valgrind) VALGRIND_LIB="$valgrind_lib" \
		DUMP_HEAPTRACK_OUTPUT="$out/heaptrack.raw" LD_PRELOAD="$heaptrack_library" \
		"$valgrind_lib/callgrind-amd64-linux" $valgrind_flags \
		--callgrind-out-file="$out/callgrind.out" "$@" >/dev/null 2>&1
	rm -f "$out/heaptrack.raw"
	python3 "$here/own_cost.py" "$heaptrack_library" "$out/callgrind.out"
}

# per_pair COUNTER ARGS_BEFORE_PAIRS -- ARGS_AFTER: "OWN TOTAL" per pair.
per_pair() {
	counter=$1
	shift
	set -- $($counter "$@" "$short" "$threads") $($counter "$@" "$long" "$threads")
	awk -v o1="$1" -v t1="$2" -v o2="$3" -v t2="$4" -v n=$((long - short)) \
		'BEGIN { printf "%.0f %.0f\n", (o2 - o1) / n, (t2 - t1) / n }'
}

printf 'instructions per pair, depth 30 (%s minus %s pairs)\n' "$long" "$short"
printf '%-12s %-24s %9s %16s\n' shape tracer own "whole process"
for threads in 0 1; do
	shape=$([ "$threads" -eq 0 ] && echo "main thread" || echo "worker")
	set -- $(per_pair count "$library" "$bench" cuda 30)
	untraced=$2
	printf '%-12s %-24s %9s %16s\n' "$shape" untraced - "$untraced"
	for stack_depth in 0 32; do
		set -- $(VRAMTRACE_STACK_DEPTH=$stack_depth per_pair traced_count \
			"$library" "$bench" cuda 30)
		printf '%-12s %-24s %9s %16s\n' "$shape" "vramtrace, $stack_depth frames" "$1" \
			"+$(($2 - untraced))"
		eval "own_$stack_depth=$1"
	done
	if [ -n "$heaptrack_library" ] && [ -n "$valgrind_lib" ]; then
		set -- $(per_pair count "$heaptrack_library" "$bench" malloc 30)
		heap_untraced=$2
		set -- $(per_pair heap_count "$bench" malloc 30)
		printf '%-12s %-24s %9s %16s\n' "$shape" "heaptrack, malloc loop" "$1" \
			"+$(($2 - heap_untraced))"
		awk -v a="$own_32" -v b="$1" -v s="$shape" 'BEGIN {
			printf "%-12s %-24s %8.2fx\n", s, "32 frames / heaptrack", (b > 0 ? a / b : 0) }'
	else
		echo "$shape heaptrack: not installed, its rows are left out"
	fi
done
