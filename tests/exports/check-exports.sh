#!/bin/sh
# Fails when libvramtrace.so exports a symbol its export map does not list,
# or lists one it does not export: every export interposes on the program.
# And when an observer in lib/sources watches an entry point that
# interpose/entry_points.h does not list, so that nothing would call it.
# usage: check-exports.sh LIBRARY EXPORT_MAP SOURCES_DIR
set -eu
library=$1
map=$2
sources=$3
expected=$(sed -e 's,/\*.*\*/,,' "$map" | grep -E '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;' |
	tr -d ' \t;' | sort)
actual=$(nm -D --defined-only "$library" | awk '{print $3}' | sed 's/@.*//' | sort)
if [ "$expected" != "$actual" ]; then
	echo "exported symbols differ from $map:"
	printf '%s\n' "$expected" >"${TMPDIR:-/tmp}/vt-expected.$$"
	printf '%s\n' "$actual" | diff "${TMPDIR:-/tmp}/vt-expected.$$" - || true
	rm -f "${TMPDIR:-/tmp}/vt-expected.$$"
	exit 1
fi
count=$(printf '%s\n' "$actual" | wc -l)
echo "$count exported symbols, all listed"
observed=$(sed -n 's/^VT_OBSERVER(\([A-Za-z0-9_]*\),.*/\1/p' "$sources"/*.c | sort)
for name in $observed; do
	if ! printf '%s\n' "$expected" | grep -qx "$name"; then
		echo "an observer of $name, which interpose/entry_points.h does not list"
		exit 1
	fi
done
echo "$(printf '%s\n' "$observed" | wc -l) observers, each of a listed entry point"
for needed in $(readelf -d "$library" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
	case $needed in
	libcuda.so* | libcudart.so*)
		echo "libvramtrace.so links $needed"
		exit 1
		;;
	esac
done
