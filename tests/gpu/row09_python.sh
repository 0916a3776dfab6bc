#!/bin/sh
# Row 9: Python frames on the machine's CPython (3.12 on the GPU machine):
# python_frames.py allocates through ctypes from five places (the GIL
# released and held, a thread, a 40-deep recursion, a method); each stack's
# innermost Python lines are exactly the script's.
ROW=9
. "$KIT/checks/common.sh"
version=$("$PYTHON" -c "import sys; print('%d.%d' % sys.version_info[:2])" 2>/dev/null || echo "?")
traced frames -- "$PYTHON" "$KIT/checks/python_frames.py"
status=$?
set -- $("$PYTHON" "$KIT/checks/frames_check.py" "$ROW_OUT/frames.json" "$KIT/checks/python_frames.py" 2>>"$ROW_OUT/q.log" || echo "?")
exact=${1:-?}
shift 2>/dev/null
detail=${*:+, wrong: $*}
peak=$(q "$ROW_OUT/frames.json" "d['peak']['bytes']")
row "CPython $version: exact Python lines" "$exact of 5 stacks (exit $status)$detail" "5 of 5" \
	"$([ "$status" = 0 ] && [ "$exact" = 5 ] && real_device "$ROW_OUT/frames.json"; verdict $?)"
row "  CPython $version: peak of python_frames.py" "$peak" "130023424 (124 MiB)" \
	"$([ "$peak" = 130023424 ] && real_device "$ROW_OUT/frames.json"; verdict $?)"
