# Sourced by every row's check. The kit's run.sh sets KIT (the kit), MODE
# (gpu or sim), ROW_OUT (this row's folder for reports and logs) and, on a
# GPU, CUDA_LIBDIR (where NVIDIA's runtime is). A check prints its rows on
# stdout as "ROW|check|measured|expected|verdict", nothing else.
TOOL="$KIT/bin/vramtrace"
SIM_DIR="$KIT/tests/sim"
PYTHON=${VRAMTRACE_KIT_PYTHON:-python3}
# The kit's settings (VRAMTRACE_KIT_*) stay this shell's, never the traced
# programs' environment: the library would warn of each as a setting it
# does not know, and record it in the report.
for name in $(env | sed -n 's/^\(VRAMTRACE_KIT_[A-Z0-9_]*\)=.*/\1/p'); do
	eval "value=\$$name"
	unset "$name"
	eval "$name=\$value"
done
NO_GPU="skipped: no GPU"
export VRAMTRACE_SUMMARY=0
set -f # figures such as "?" are split into words, never matched as file names
mkdir -p "$ROW_OUT"

row() { printf '%s|%s|%s|%s|%s\n' "$ROW" "$1" "$2" "$3" "$4"; }
# verdict STATUS: PASS for 0, FAIL otherwise, as in "$(TESTS; verdict $?)".
verdict() { if [ "$1" = 0 ]; then echo PASS; else echo FAIL; fi; }

# q REPORT EXPRESSION: a figure out of a report (checks/q.py), "?" when the
# report is missing or the expression fails.
q() { "$PYTHON" "$KIT/checks/q.py" "$@" 2>>"$ROW_OUT/q.log" || echo "?"; }

# The CUDA libraries a program finds: the simulated device's alone with
# --simulate, NVIDIA's alone on a GPU (run.sh refuses to start when the
# kit's tests/sim is on the GPU run's LD_LIBRARY_PATH).
if [ "$MODE" = sim ]; then
	SIMULATE=--simulate
	PROGRAM_PATH="$SIM_DIR"
else
	SIMULATE=
	PROGRAM_PATH="$CUDA_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# traced NAME [vramtrace run options] -- COMMAND...: the report is
# ROW_OUT/NAME.json, stdout NAME.out, stderr NAME.err.
traced() {
	name=$1
	shift
	LD_LIBRARY_PATH="$PROGRAM_PATH" "$TOOL" run $SIMULATE --output "$ROW_OUT/$name.json" "$@" \
		>"$ROW_OUT/$name.out" 2>"$ROW_OUT/$name.err"
}

# traced_framework NAME [options] -- COMMAND...: as traced, but on a GPU the
# library path stays the machine's own: PyTorch, JAX and CuPy load the CUDA
# libraries of their own wheels.
traced_framework() {
	if [ "$MODE" = sim ]; then
		traced "$@"
		return
	fi
	name=$1
	shift
	"$TOOL" run --output "$ROW_OUT/$name.json" "$@" >"$ROW_OUT/$name.out" 2>"$ROW_OUT/$name.err"
}

# untraced NAME COMMAND...: the same program, without vramtrace.
untraced() {
	name=$1
	shift
	LD_LIBRARY_PATH="$PROGRAM_PATH" "$@" >"$ROW_OUT/$name.out" 2>"$ROW_OUT/$name.err"
}

# real_device REPORT: the report's device 0 is not the simulated one (on a
# GPU, a simulated library that slipped in would make every figure moot).
real_device() {
	[ "$MODE" = sim ] && return 0
	case $(q "$1" "r['devices'][0]['name']") in
	vramsim* | "?") return 1 ;;
	esac
	return 0
}

# gpu_only CHECK...: on the simulated device, each CHECK is one skipped row.
gpu_only() {
	for name in "$@"; do
		row "$name" "-" "-" "$NO_GPU"
	done
}
