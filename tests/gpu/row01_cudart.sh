#!/bin/sh
# Row 1: examples/llm_serving built -cudart static and -cudart shared (by
# gpu-kit.sh): the tracked peak is the sum the program prints, and the same
# for both. NVIDIA's static runtime cannot run on the simulated device (it
# needs the real driver's private tables), so there the shared build alone.
ROW=1
. "$KIT/checks/common.sh"
expected_peak() { sed -n 's/.*expected_peak=\([0-9]*\).*/\1/p' "$ROW_OUT/$1.out"; }
peaks=""
for cudart in static shared; do
	name="llm_$cudart"
	label="llm_serving -cudart $cudart: peak = program's sum"
	if [ "$MODE" = sim ] && [ "$cudart" = static ]; then
		row "$label" "-" "-" "$NO_GPU"
		continue
	fi
	traced "$name" -- "$KIT/progs/llm_serving_$cudart" --dtype bf16 --batch 8
	status=$?
	peak=$(q "$ROW_OUT/$name.json" "d['peak']['bytes']")
	expected=$(expected_peak "$name")
	row "$label" "$peak (exit $status)" "${expected:-?}" \
		"$([ "$status" = 0 ] && [ "$peak" = "$expected" ] && real_device "$ROW_OUT/$name.json"; verdict $?)"
	peaks="$peaks $peak"
done
set -- $peaks
if [ $# = 2 ]; then
	row "llm_serving: static and shared peaks identical" "$1 / $2" "equal" "$([ "$1" = "$2" ]; verdict $?)"
else
	row "llm_serving: static and shared peaks identical" "-" "-" "$NO_GPU"
fi
