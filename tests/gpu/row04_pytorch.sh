#!/bin/sh
# Row 4: one training step of a small transformer (torch_step.py), plain and
# with expandable segments: the bytes tagged pytorch at the peak are within
# 2 MiB of torch.cuda.max_memory_reserved(), cuBLAS's workspace is under
# cublas; with --no-framework-cache, the top stack's innermost Python line
# is the line that made the largest tensor.
ROW=4
. "$KIT/checks/common.sh"
if [ "$MODE" = sim ]; then
	gpu_only "pytorch (plain): pytorch at peak ~ max reserved" "  cuBLAS workspace under cublas" \
		"pytorch (expandable_segments): pytorch at peak ~ max reserved" \
		"  cuBLAS workspace under cublas" "pytorch --no-framework-cache: top stack's line"
	exit 0
fi
torch_figure() { "$PYTHON" -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])[sys.argv[2]])" "$ROW_OUT/$1.out" "$2" 2>/dev/null || echo "?"; }
for conf in plain expandable_segments:True; do
	name=torch_${conf%%:*}
	alloc_conf=
	[ "$conf" = plain ] || alloc_conf=$conf
	PYTORCH_CUDA_ALLOC_CONF=$alloc_conf traced_framework "$name" -- "$PYTHON" "$KIT/checks/torch_step.py"
	status=$?
	report="$ROW_OUT/$name.json"
	reserved=$(torch_figure "$name" max_memory_reserved)
	tagged=$(q "$report" "tag('pytorch').get('at_peak_bytes', 0)")
	cublas=$(q "$report" "tag('cublas').get('peak_bytes', 0)")
	row "pytorch (${conf%%:*}): pytorch at peak ~ max reserved" "$tagged (exit $status)" \
		"$reserved +- 2 MiB" "$("$PYTHON" -c "import sys; sys.exit(not abs(int('$tagged') - int('$reserved')) <= 2 * 2**20)"; verdict $?)"
	top=$(q "$report" "top_tags(3)")
	row "  cuBLAS workspace under cublas" "$cublas bytes (at peak: $top)" "> 0" "$([ "$cublas" -gt 0 ]; verdict $?)"
done
traced_framework torch_nocache --no-framework-cache -- "$PYTHON" "$KIT/checks/torch_step.py"
status=$?
line=$(q "$ROW_OUT/torch_nocache.json" "python_line(top_stack())")
expected=$(torch_figure torch_nocache largest_line)
row "pytorch --no-framework-cache: top stack's line" "$line (exit $status)" "$expected" \
	"$([ "$status" = 0 ] && [ "$line" = "$expected" ]; verdict $?)"
