#!/bin/sh
# The HTML report in headless Chromium: the page renders, the console logs
# no error, and the screenshot is a real picture. Skips (exit 77) when
# Chromium is not installed.
set -eu
tool=$1
fixture=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "chromium not installed: skipped"
	exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$tool" report "$fixture" --format html -o "$scratch/report.html"
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--user-data-dir=$scratch/profile"
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --enable-logging=stderr --v=0 --window-size=1100,1400 \
	--screenshot="$scratch/shot.png" "file://$scratch/report.html" 2>"$scratch/log" || true
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --dump-dom "file://$scratch/report.html" >"$scratch/dom" \
	2>/dev/null || true
if grep -q 'CONSOLE' "$scratch/log" && grep 'CONSOLE' "$scratch/log" | grep -qi error; then
	echo "console errors:"
	grep CONSOLE "$scratch/log"
	exit 1
fi
size=$(wc -c <"$scratch/shot.png" 2>/dev/null || echo 0)
[ "$size" -gt 20000 ] || { echo "screenshot too small: $size bytes"; exit 1; }
for needle in "live bytes over time" "the moment of the peak" "flame graph of the stacks at the peak" "<svg"; do
	grep -q "$needle" "$scratch/dom" || { echo "rendered page lacks '$needle'"; exit 1; }
done
echo "rendered: screenshot $size bytes, no console errors"
