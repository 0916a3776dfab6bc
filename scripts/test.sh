#!/bin/sh
# The whole test suite: builds vramtrace (warnings are errors under CI=true)
# and runs every registered test.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" --tests
build_dir=${BUILD_DIR:-$root/build}
status=0
meson test -C "$build_dir" --print-errorlogs "$@" || status=$?
# One closing line that any reader of test output understands.
python3 - "$build_dir/meson-logs/testlog.json" <<'PY'
import json, sys
results = [json.loads(line)["result"] for line in open(sys.argv[1]) if line.strip()]
passed = sum(r in ("OK", "EXPECTEDFAIL") for r in results)
skipped = sum(r == "SKIP" for r in results)
print(f"{passed} passed, {len(results) - passed - skipped} failed, {skipped} skipped")
PY
exit $status
