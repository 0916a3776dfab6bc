#!/bin/sh
# The whole test suite: builds vramtrace (warnings are errors under CI=true)
# and runs every registered test, then again where sanitizers watch:
#   - AddressSanitizer + UndefinedBehaviorSanitizer: the core, the report
#     reader and tools, the simulated device (suites unit, tool, sim);
#   - ThreadSanitizer: the concurrency test;
#   - valgrind: the unit tests.
# The preloaded library itself is tested in the normal build: a sanitizer
# runtime has to come first in a process, before any preload.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" --tests
build_dir=${BUILD_DIR:-$root/build}
status=0
logs=""

# suite NAME BUILD_DIR MESON_TEST_ARGS...: one run, its log kept for the tally.
suite() {
	name=$1
	dir=$2
	shift 2
	echo "== $name =="
	meson test -C "$dir" --print-errorlogs --logbase "$name" "$@" || status=1
	# meson names a wrapped run's log after its wrapper: NAME-valgrind.json.
	logs="$logs $(ls "$dir/meson-logs/$name".json "$dir/meson-logs/$name"-*.json 2>/dev/null || true)"
}

# sanitized_build DIR SANITIZERS: a second build tree with sanitizers on.
sanitized_build() {
	if [ ! -f "$1/build.ninja" ]; then
		meson setup "$1" "$root" -Db_sanitize="$2" -Db_lundef=false >/dev/null
	fi
	ninja -C "$1" >/dev/null
}

suite tests "$build_dir" "$@"
sanitized_build "$build_dir-asan" address,undefined
suite asan-ubsan "$build_dir-asan" --suite unit --suite tool --suite sim
sanitized_build "$build_dir-tsan" thread
suite tsan "$build_dir-tsan" --suite concurrency
suite valgrind "$build_dir" --suite unit --timeout-multiplier 6 \
	--wrap="valgrind --error-exitcode=1 --quiet --trace-children=yes --leak-check=full --errors-for-leak-kinds=definite"

# One closing line that any reader of test output understands.
python3 - $logs <<'PY'
import json, sys
results = [json.loads(line)["result"] for path in sys.argv[1:] for line in open(path)
           if line.strip()]
passed = sum(r in ("OK", "EXPECTEDFAIL") for r in results)
skipped = sum(r == "SKIP" for r in results)
print(f"{passed} passed, {len(results) - passed - skipped} failed, {skipped} skipped")
PY
exit $status
