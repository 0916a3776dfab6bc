#!/bin/sh
# Row 11: the hot-path benchmark (tests/bench/bench_alloc.c) on 1, 8 and 16
# threads, 11 paired runs each, untraced and with vramtrace preloaded: the
# cost per pair as each thread sees it (wall time over its own pairs), and
# the added cost at 8 and 16 threads against 1 (goal: at most 1.5x). On the
# simulated device always; on a GPU, on it too. Fewer cores than threads
# cannot measure scaling: that verdict is then skipped.
ROW=11
. "$KIT/checks/common.sh"
cores=$(nproc 2>/dev/null || echo 1)
runs=11
bench() { # DEVICE THREADS PAIRS: "untraced traced" ns per pair per thread, 11 lines
	i=0
	while [ "$i" -lt "$runs" ]; do
		report="$ROW_OUT/$1_$2_$i.json"
		if [ $((i % 2)) = 0 ]; then
			b=$(LD_LIBRARY_PATH="$libs" "$KIT/progs/bench_alloc" "$2" "$3")
			t=$(LD_LIBRARY_PATH="$libs" VRAMTRACE_OUTPUT="$report" LD_PRELOAD="$KIT/lib/libvramtrace.so" \
				"$KIT/progs/bench_alloc" "$2" "$3")
		else
			t=$(LD_LIBRARY_PATH="$libs" VRAMTRACE_OUTPUT="$report" LD_PRELOAD="$KIT/lib/libvramtrace.so" \
				"$KIT/progs/bench_alloc" "$2" "$3")
			b=$(LD_LIBRARY_PATH="$libs" "$KIT/progs/bench_alloc" "$2" "$3")
		fi
		echo "$b $t"
		i=$((i + 1))
	done
}
devices=sim
[ "$MODE" = gpu ] && devices="sim gpu"
for device in $devices; do
	if [ "$device" = sim ]; then
		libs="$SIM_DIR"
		pairs=${VRAMTRACE_KIT_SIM_PAIRS:-20000}
		where="simulated device"
	else
		libs="$PROGRAM_PATH"
		pairs=${VRAMTRACE_KIT_GPU_PAIRS:-3000}
		where="GPU"
	fi
	single=""
	for threads in 1 8 16; do
		set -- $(bench "$device" "$threads" "$pairs" | tee "$ROW_OUT/${device}_$threads.txt" |
			"$PYTHON" "$KIT/checks/paired.py" "$threads")
		added=$3
		allocations=$(q "$ROW_OUT/${device}_${threads}_0.json" "d['allocations']")
		[ "$allocations" = $((threads * pairs)) ] || added="$added (report: $allocations allocations, not $((threads * pairs)))"
		if [ "$threads" = 1 ]; then
			single=$3
			row "$where, 1 thread: ns added per pair" "+$added (untraced $1), $5 pairs" \
				"exact report" "$([ "$allocations" = "$pairs" ] && [ "$5" -ge 11 ]; verdict $?)"
			continue
		fi
		ratio=$("$PYTHON" -c "print('%.2f' % (float('$3') / float('$single')))" 2>/dev/null || echo "?")
		if [ "$cores" -lt "$threads" ]; then
			verdict="skipped: $cores cores < $threads"
		else
			verdict=$("$PYTHON" -c "import sys; sys.exit(not float('$ratio') <= 1.5)"; verdict $?)
			[ "$allocations" = $((threads * pairs)) ] || verdict=FAIL
		fi
		row "$where, $threads threads: added per pair vs 1" "${ratio}x (+$added, untraced $1)" \
			"<= 1.5x" "$verdict"
	done
done
