#!/bin/sh
# Row 2: the CUPTI source, alone and beside the hooks: the same peak as the
# program's sum, every allocation counted once (as many as the hooks see),
# CUPTI subscribed. On a GPU the static build (CUPTI sees what NVIDIA's own
# runtime does); on the simulated device the shared one.
ROW=2
. "$KIT/checks/common.sh"
program="$KIT/progs/llm_serving_static"
[ "$MODE" = sim ] && program="$KIT/progs/llm_serving_shared"
traced llm_hooks -- "$program" --dtype bf16 --batch 8
hooks=$(q "$ROW_OUT/llm_hooks.json" "d['allocations']")
for sources in cupti both; do
	name="llm_$sources"
	traced "$name" --sources "$sources" -- "$program" --dtype bf16 --batch 8
	status=$?
	report="$ROW_OUT/$name.json"
	expected=$(sed -n 's/.*expected_peak=\([0-9]*\).*/\1/p' "$ROW_OUT/$name.out")
	peak=$(q "$report" "d['peak']['bytes']")
	allocations=$(q "$report" "d['allocations']")
	cupti=$(q "$report" "r['tracer']['cupti']")
	row "sources=$sources: peak = sum, CUPTI $cupti" "$peak (exit $status)" "${expected:-?}" \
		"$([ "$status" = 0 ] && [ "$peak" = "$expected" ] && [ "$cupti" = subscribed ] &&
			real_device "$report"; verdict $?)"
	row "  sources=$sources: each allocation once" "$allocations allocations" \
		"$hooks (the hooks' count)" "$([ "$allocations" = "$hooks" ] && [ "$hooks" != "?" ]; verdict $?)"
done
