#!/bin/sh
# Row 8: CuPy (cupy_check.py). Its pool is under cupy at the peak, within
# 2 MiB of what the pool says it holds; with the pool off, the 1 GiB
# array's stack names its Python line.
ROW=8
. "$KIT/checks/common.sh"
if [ "$MODE" = sim ]; then
	gpu_only "cupy (pool): pool under cupy" "cupy (pool off): the 1 GiB array's line"
	exit 0
fi
figure() { "$PYTHON" -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])[sys.argv[2]])" "$ROW_OUT/$1.out" "$2" 2>/dev/null || echo "?"; }
traced_framework cupy_pool -- "$PYTHON" "$KIT/checks/cupy_check.py" pool
status=$?
pool=$(figure cupy_pool pool_bytes)
tagged=$(q "$ROW_OUT/cupy_pool.json" "tag('cupy').get('at_peak_bytes', 0)")
row "cupy (pool): pool under cupy" "$tagged (exit $status)" "$pool +- 2 MiB" \
	"$([ "$status" = 0 ] && "$PYTHON" -c "import sys; sys.exit(not abs(int('$tagged') - int('$pool')) <= 2 * 2**20)"; verdict $?)"
traced_framework cupy_nopool -- "$PYTHON" "$KIT/checks/cupy_check.py" nopool
status=$?
expected=$(figure cupy_nopool line)
lines=$(q "$ROW_OUT/cupy_nopool.json" "' '.join(sorted({'%s:%s' % (f['file'].rsplit('/', 1)[-1], f['line']) for s in d['stacks'] if s['at_peak_bytes'] >= 2**30 for f in python_frames(s) if f.get('file')}))")
case " $lines " in *" $expected "*) found=0 ;; *) found=1 ;; esac
row "cupy (pool off): the 1 GiB array's line" "${lines:-none} (exit $status)" "$expected" \
	"$([ "$status" = 0 ] && [ "$found" = 0 ]; verdict $?)"
