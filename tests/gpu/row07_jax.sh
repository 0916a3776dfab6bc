#!/bin/sh
# Row 7: JAX (jax_check.py). With its default preallocation, XLA's
# reservation is under xla, about 75% of the device; with
# --no-framework-cache, the 1 GiB array's stack names its Python line.
ROW=7
. "$KIT/checks/common.sh"
if [ "$MODE" = sim ]; then
	gpu_only "jax (preallocation): xla's share of the device" "jax --no-framework-cache: the 1 GiB array's line"
	exit 0
fi
traced_framework jax -- "$PYTHON" "$KIT/checks/jax_check.py"
status=$?
share=$(q "$ROW_OUT/jax.json" "round(tag('xla').get('at_peak_bytes', 0) / d['capacity_bytes'], 3)")
top=$(q "$ROW_OUT/jax.json" "top_tags()")
row "jax (preallocation): xla's share of the device" "$share (exit $status; at peak: $top)" "0.70 to 0.80" \
	"$([ "$status" = 0 ] && "$PYTHON" -c "import sys; sys.exit(not 0.70 <= float('$share') <= 0.80)"; verdict $?)"
traced_framework jax_nocache --no-framework-cache -- "$PYTHON" "$KIT/checks/jax_check.py"
status=$?
expected=$("$PYTHON" -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])['lines']['big'])" "$ROW_OUT/jax_nocache.out" 2>/dev/null || echo "?")
lines=$(q "$ROW_OUT/jax_nocache.json" "' '.join(sorted({'%s:%s' % (f['file'].rsplit('/', 1)[-1], f['line']) for s in d['stacks'] if s['at_peak_bytes'] >= 2**30 for f in python_frames(s) if f.get('file')}))")
case " $lines " in *" $expected "*) found=0 ;; *) found=1 ;; esac
row "jax --no-framework-cache: the 1 GiB array's line" "${lines:-none} (exit $status)" "$expected" \
	"$([ "$status" = 0 ] && [ "$found" = 0 ]; verdict $?)"
