#!/bin/sh
# The whole test suite: builds vramtrace (warnings are errors under CI=true)
# and runs every registered test.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build_dir=${BUILD_DIR:-$root/build}
meson test -C "$build_dir" --print-errorlogs "$@"
