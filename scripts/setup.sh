#!/bin/sh
# Installs what vramtrace needs from Debian's packages (when missing), checks
# for the CUDA 13 toolkit, and configures and builds into BUILD_DIR (default
# build). "--tests" adds what only the tests use (Chromium for the HTML
# report). Run by demo.sh and test.sh; safe to run again.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
packages="gcc g++ meson ninja-build pkg-config uthash-dev libcriterion-dev libjansson-dev binutils
	clang-format git libdw-dev python3 patchelf"
# python3-numba: a library driving the driver through ctypes (test_python.c).
# nodejs: the pages' unit tests (tests/tool/js_units.mjs).
[ "${1:-}" = "--tests" ] && packages="$packages chromium bsdutils valgrind python3-pytest python3-selenium
	chromium-driver python3-prometheus-client python3-numba nodejs"

missing=""
for package in $packages; do
	dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $package"
done
if [ -n "$missing" ]; then
	echo "vramtrace setup: installing$missing"
	as_root=""
	[ "$(id -u)" -eq 0 ] || as_root="sudo"
	$as_root apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq $missing >/dev/null
fi

if ! cuda=$("$root/scripts/find-cuda.sh"); then
	echo "vramtrace setup: the CUDA 13 toolkit was not found." >&2
	echo "Set CUDA_HOME or CUDA_PATH, or put nvcc on PATH." >&2
	exit 1
fi

options=""
[ "${CI:-}" = true ] && options="-Dwerror=true"
if [ ! -f "$build_dir/build.ninja" ]; then
	meson setup "$build_dir" "$root" $options >/dev/null
elif [ -n "$options" ]; then
	meson configure "$build_dir" $options >/dev/null
fi
ninja -C "$build_dir" >/dev/null
echo "vramtrace setup: built in $build_dir against CUDA at $cuda"
