#!/bin/sh
# Row 10: overhead, as medians of 11 paired runs of overhead.cu (untraced,
# hooks and CUPTI back to back, the order rotating): ns added per
# cudaMalloc/cudaFree pair, per cudaMallocAsync/cudaFreeAsync pair and per
# empty launch, and as a percentage of the call's own cost. The issue sets
# no goal for these: the verdict holds the runs' exactness (every traced run
# exits 0 and its report counts each of its allocations). On a GPU, also a
# PyTorch training step (torch_step.py, median of 11 steps) untraced and
# traced.
ROW=10
. "$KIT/checks/common.sh"
count=${VRAMTRACE_KIT_OVERHEAD_COUNT:-20000}
runs=11
program="$KIT/progs/overhead"
: >"$ROW_OUT/runs.txt"
failed=0
exact=0
run_mode() { # MODE RUN: one run, its figures appended to runs.txt
	case $1 in
	untraced) untraced "untraced_$2" "$program" "$count" ;;
	*) traced "$1_$2" --sources "$1" -- "$program" "$count" ;;
	esac || failed=$((failed + 1))
	echo "$2 $1 $(cat "$ROW_OUT/$1_$2.out")" >>"$ROW_OUT/runs.txt"
	[ "$1" = untraced ] && return
	[ "$(q "$ROW_OUT/$1_$2.json" "d['allocations']")" = $((2 * count)) ] &&
		real_device "$ROW_OUT/$1_$2.json" && exact=$((exact + 1))
}
i=0
while [ "$i" -lt "$runs" ]; do
	case $((i % 3)) in
	0) order="untraced hooks cupti" ;;
	1) order="hooks cupti untraced" ;;
	2) order="cupti untraced hooks" ;;
	esac
	for mode in $order; do run_mode "$mode" "$i"; done
	i=$((i + 1))
done
# figures MODE COLUMN: "untraced traced" per run, for paired.py.
figures() {
	i=0
	while [ "$i" -lt "$runs" ]; do
		base=$(awk -v i="$i" -v c="$2" '$1 == i && $2 == "untraced" { print $(c + 2) }' "$ROW_OUT/runs.txt")
		traced=$(awk -v i="$i" -v m="$1" -v c="$2" '$1 == i && $2 == m { print $(c + 2) }' "$ROW_OUT/runs.txt")
		echo "$base $traced"
		i=$((i + 1))
	done
}
column=1
for call in "cudaMalloc/cudaFree pair" "cudaMallocAsync/cudaFreeAsync pair" "empty kernel launch"; do
	for mode in hooks cupti; do
		set -- $(figures "$mode" "$column" | "$PYTHON" "$KIT/checks/paired.py")
		row "$call, $mode: ns added (untraced $1 ns)" "+$3 ns ($4%), $5 pairs" "exact reports" \
			"$([ "$failed" = 0 ] && [ "$exact" = $((2 * runs)) ] && [ "$5" -ge 11 ]; verdict $?)"
	done
	column=$((column + 1))
done
row "  reports that counted all $((2 * count)) allocations" "$exact of $((2 * runs)) (failed runs: $failed)" \
	"$((2 * runs)) of $((2 * runs))" "$([ "$failed" = 0 ] && [ "$exact" = $((2 * runs)) ]; verdict $?)"
if [ "$MODE" = sim ]; then
	gpu_only "pytorch training step: ms untraced / traced"
	exit 0
fi
step_ms() { "$PYTHON" -c "import json,sys; print('%.2f' % (json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])['step_ns'] / 1e6))" "$ROW_OUT/$1.out" 2>/dev/null || echo "?"; }
"$PYTHON" "$KIT/checks/torch_step.py" 12 >"$ROW_OUT/torch_untraced.out" 2>"$ROW_OUT/torch_untraced.err"
plain_status=$?
traced_framework torch_traced -- "$PYTHON" "$KIT/checks/torch_step.py" 12
traced_status=$?
plain=$(step_ms torch_untraced)
traced_ms=$(step_ms torch_traced)
added=$("$PYTHON" -c "print('%+.1f%%' % (100 * (float('$traced_ms') - float('$plain')) / float('$plain')))" 2>/dev/null || echo "?")
row "pytorch training step: ms untraced / traced" "$plain / $traced_ms ($added)" "recorded" \
	"$([ "$plain_status" = 0 ] && [ "$traced_status" = 0 ]; verdict $?)"
