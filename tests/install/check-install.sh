#!/bin/sh
# After `meson install`, the installed vramtrace finds the installed library
# and simulated device: a simulated run writes a report with the exact peak.
set -eu
build_dir=$1
program=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build_dir" --destdir "$stage" --no-rebuild --quiet >/dev/null
tool=$(find "$stage" -path '*/bin/vramtrace' -type f)
[ -x "$tool" ] || { echo "no installed vramtrace under $stage"; exit 1; }
VRAMTRACE_SUMMARY=0 "$tool" run --simulate --output "$stage/report.json" -- "$program" \
	>"$stage/out" 2>"$stage/err" || { cat "$stage/err"; exit 1; }
expected=$(sed -n 's/.*expected_peak=\([0-9]*\).*/\1/p' "$stage/out")
grep -q "\"bytes\": $expected," "$stage/report.json" ||
	{ echo "peak $expected not in the installed run's report"; exit 1; }
echo "installed vramtrace measured the expected peak $expected"
