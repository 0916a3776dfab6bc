#!/bin/sh
# The HTML pages in Chromium through Selenium (html_pages.py), with a report
# of 32,768 stacks made on the simulated device for the scale check, and
# one of a function inlined into main and two calls on one line.
# Screenshots stay in OUT. Skips (77) without Selenium or chromedriver.
set -eu
tool=$1 fixtures=$2 out=$3 library=$4 simdir=$5 many_stacks=$6 inlined=$7
mkdir -p "$out"
# Reports are never written over: an earlier run's would stay.
rm -f "$out/big.json" "$out/top20.json" "$out/inlined.json"
LD_LIBRARY_PATH="$simdir" VRAMTRACE_TOP=100000 VRAMTRACE_SUMMARY=0 \
	VRAMTRACE_OUTPUT="$out/big.json" LD_PRELOAD="$library" "$many_stacks" 15
# 20 of 4,096 stacks kept: the page shows the rest as such.
LD_LIBRARY_PATH="$simdir" VRAMTRACE_TOP=20 VRAMTRACE_SUMMARY=0 \
	VRAMTRACE_OUTPUT="$out/top20.json" LD_PRELOAD="$library" "$many_stacks" 12
LD_LIBRARY_PATH="$simdir" VRAMTRACE_SUMMARY=0 VRAMTRACE_OUTPUT="$out/inlined.json" \
	LD_PRELOAD="$library" "$inlined" > "$out/inlined.lines"
rm -f "$out/big-"*.json "$out/top20-"*.json
# Chromium leaves its singleton directories in TMPDIR: one in OUT, emptied
# each run, not one more in /tmp each time.
rm -rf "$out/tmp" && mkdir "$out/tmp"
TMPDIR="$out/tmp" exec /usr/bin/python3 "$(dirname "$0")/html_pages.py" "$tool" "$fixtures" "$out" "$out/big.json"
