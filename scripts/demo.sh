#!/bin/sh
# The demo: builds vramtrace and measures the example LLM server at two
# settings, bf16 and fp32, on the GPU when there is one and on the simulated
# device otherwise; then compares them, as the question "what does fp32
# cost?" wants, and checks each against a GPU of 40 GiB with 10% headroom;
# last, plans: three batch sizes fitted, the peak predicted at batch 32, and
# the largest batch that fits an 80 GiB GPU with 10% headroom.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build_dir=${BUILD_DIR:-$root/build}
tool="$build_dir/tools/vramtrace"
example="$build_dir/examples/llm_serving"
out="$root/demo-reports"
mkdir -p "$out"

simulate="--simulate"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	simulate=""
	echo "vramtrace demo: on the GPU"
else
	echo "vramtrace demo: no GPU here, so on the simulated device (80 GiB)"
fi

rm -f "$out"/llm_serving.*.json "$out/run.log"
for dtype in bf16 fp32; do
	echo
	echo "== measure: llm_serving --dtype $dtype =="
	"$tool" run $simulate --label dtype=$dtype --output "$out/llm_serving.$dtype.json" \
		-- "$example" --dtype $dtype
done

echo
echo "== compare: what fp32 costs over bf16 =="
"$tool" diff "$out/llm_serving.bf16.json" "$out/llm_serving.fp32.json"

budget=40GiB
for dtype in bf16 fp32; do
	echo
	echo "== check: does $dtype fit a $budget GPU with 10% headroom? =="
	# check exits 1 when it does not fit: that is the answer, not a failure.
	"$tool" check "$out/llm_serving.$dtype.json" --budget $budget --headroom 10% || true
done

echo
echo "== plan: the same server at three batch sizes, then the fit =="
# Quiet runs: their summaries and next-command lines would bury the fit;
# what they said is shown only when one fails.
for batch in 2 4 8; do
	if ! VRAMTRACE_SUMMARY=0 "$tool" run $simulate --label batch=$batch --label dtype=bf16 \
		--output "$out/llm_serving.batch$batch.json" -- "$example" --batch $batch \
		>"$out/run.log" 2>&1 || [ ! -f "$out/llm_serving.batch$batch.json" ]; then
		cat "$out/run.log" >&2
		exit 1
	fi
done
rm -f "$out/run.log"
"$tool" fit "$out"/llm_serving.batch2.json "$out"/llm_serving.batch4.json \
	"$out"/llm_serving.batch8.json --predict batch=32 --budget 80GiB --headroom 10% \
	--solve batch
echo
echo "vramtrace demo: reports are in $out"
