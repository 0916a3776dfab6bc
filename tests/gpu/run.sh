#!/bin/sh
# The validation on a real GPU, from this build: packs the GPU kit
# (scripts/gpu-kit.sh) and runs it, which prints the table of issue 23's
# rows (docs/gpu-kit.md). Exits 77 (skipped) where there is no GPU; the
# kit's simulated run is the kit test's.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU here: skipped"
	exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BUILD_DIR="$build" "$root/scripts/gpu-kit.sh" "$work/kit" || exit 1
VRAMTRACE_KIT_OUT=${VRAMTRACE_KIT_OUT:-$build/gpu-kit-out} "$work/kit/run.sh"
