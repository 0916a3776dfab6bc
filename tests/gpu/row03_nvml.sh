#!/bin/sh
# Row 3: NVML's view of the device beside the tracked bytes: the bytes no
# allocation explains are there and context-sized. A real H200's context
# takes some hundreds of MiB (64 MiB to 4 GiB is accepted); the simulated
# one is VRAMSIM_CONTEXT_BYTES, plus at most 2 MiB of granularity for each
# allocation live at the peak.
ROW=3
. "$KIT/checks/common.sh"
MiB=1048576
export VRAMSIM_CONTEXT_BYTES=512MiB VRAMSIM_GRANULARITY=2MiB
traced llm -- "$KIT/progs/llm_serving_shared" --dtype bf16 --batch 8
report="$ROW_OUT/llm.json"
unexplained=$(q "$report" "d['device_view']['unexplained_at_peak_bytes']")
source=$(q "$report" "d['device_view']['source']")
if [ "$MODE" = sim ]; then
	low=$((512 * MiB))
	high=$(q "$report" "512 * 2**20 + 2 * 2**20 * d['allocations']")
else
	low=$((64 * MiB))
	high=$((4096 * MiB))
fi
row "NVML ($source): unexplained bytes at the peak" "${unexplained}" "$low to $high" \
	"$([ "$unexplained" -ge "$low" ] && [ "$unexplained" -le "$high" ] && real_device "$report"; verdict $?)"
