#!/bin/sh
# The demo: builds vramtrace and measures the example LLM server at two
# settings, bf16 and fp32, on the GPU when there is one and on the simulated
# device otherwise. Prints both summaries and where the reports are.
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

for dtype in bf16 fp32; do
	echo
	echo "== llm_serving --dtype $dtype =="
	"$tool" run $simulate --label dtype=$dtype --output "$out/llm_serving.$dtype.%p.json" \
		-- "$example" --dtype $dtype
done
echo
echo "vramtrace demo: reports are in $out"
