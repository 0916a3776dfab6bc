#!/bin/sh
# The GPU validation kit's one command (packed by scripts/gpu-kit.sh; see
# docs/gpu-kit.md). Needs only this folder, sh, coreutils and python3:
#   ./run.sh              on the GPU (NVIDIA's libraries, found from
#                         CUDA_HOME, CUDA_PATH or nvcc)
#   ./run.sh --simulate   on the simulated device: the GPU-only rows skip
# Prints the table on stdout; reports and logs go under VRAMTRACE_KIT_OUT
# (default ./out). At most VRAMTRACE_KIT_BUDGET seconds in all (480), each
# row timed out on its own. Exits 0 when no row failed.
set -u
kit=$(cd "$(dirname "$0")" && pwd)
mode=gpu
case ${1:-} in
--simulate) mode=sim ;;
"") ;;
*) echo "usage: run.sh [--simulate]" >&2; exit 2 ;;
esac
out=${VRAMTRACE_KIT_OUT:-$kit/out}
budget=${VRAMTRACE_KIT_BUDGET:-480}
started=$(date +%s)
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
: >"$out/rows.txt"
python=${VRAMTRACE_KIT_PYTHON:-python3}
command -v "$python" >/dev/null || { echo "run.sh: no $python" >&2; exit 1; }
command -v timeout >/dev/null || { echo "run.sh: no timeout (coreutils)" >&2; exit 1; }

# glibc new enough for what was built (the kit's MANIFEST says which).
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/glibc //')
needed=$(sed -n 's/^needs glibc \([0-9.]*\).*/\1/p' "$kit/MANIFEST")
if [ -n "$glibc" ] && [ -n "$needed" ] &&
	[ "$(printf '%s\n%s\n' "$needed" "$glibc" | sort -V | head -n 1)" != "$needed" ]; then
	echo "run.sh: this glibc is $glibc; the kit was built for $needed or later" >&2
	exit 1
fi

cuda_libdir=""
if [ "$mode" = gpu ]; then
	# The simulated libraries, the kit's or any build's, must never stand in
	# for the GPU's.
	case ":${LD_LIBRARY_PATH:-}:${LD_PRELOAD:-}:" in
	*"$kit/tests/sim"*) echo "run.sh: the simulated device is on the library path" >&2; exit 1 ;;
	esac
	for dir in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do
		if grep -qs vramsim "$dir/libcuda.so.1" "$dir/libcudart.so.13"; then
			echo "run.sh: the simulated device is on the library path ($dir)" >&2
			exit 1
		fi
	done
	# nvidia-smi, or the driver's own list where a container has no nvidia-smi.
	if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1; } &&
		! ls /proc/driver/nvidia/gpus/*/information >"$out/nvidia-smi.txt" 2>/dev/null; then
		echo "run.sh: no NVIDIA GPU answers here (nvidia-smi -L): use --simulate" >&2
		exit 77
	fi
	nvcc_root=""
	nvcc=$(command -v nvcc 2>/dev/null) && nvcc_root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
	for root in "${CUDA_HOME:-}" "${CUDA_PATH:-}" "$nvcc_root" /usr/local/cuda; do # the default install place, a last fallback
		for dir in "$root/lib64" "$root/targets/x86_64-linux/lib" "$root/lib"; do
			if [ -n "$root" ] && [ -z "$cuda_libdir" ] && [ -f "$dir/libcudart.so.13" ]; then
				cuda_libdir=$dir
				export CUDA_HOME="$root" # where vramtrace looks for CUPTI
			fi
		done
	done
	if [ -z "$cuda_libdir" ]; then # the runtime's wheel, beside PyTorch's
		wheels=$("$python" -c "import nvidia; print(nvidia.__path__[0])" 2>/dev/null)
		found=$([ -n "$wheels" ] && find "$wheels" -name libcudart.so.13 2>/dev/null | head -n 1)
		[ -n "$found" ] && cuda_libdir=$(dirname "$found")
	fi
	[ -n "$cuda_libdir" ] || { echo "run.sh: no libcudart.so.13 (set CUDA_HOME)" >&2; exit 1; }
fi
# A copy that lost its modes still runs.
for program in "$kit"/bin/* "$kit"/progs/*; do
	[ -x "$program" ] || chmod +x "$program" 2>/dev/null
done
# Row 0: the kit arrived as packed.
if (cd "$kit" && grep '  \./' MANIFEST | sha256sum -c --quiet >"$out/manifest.txt" 2>&1); then
	echo "0|kit: every file as packed|$(grep -c '  \./' "$kit/MANIFEST") files|MANIFEST|PASS" >>"$out/rows.txt"
else
	echo "0|kit: every file as packed|$(grep -c FAILED "$out/manifest.txt") differ (out/manifest.txt)|MANIFEST|FAIL" >>"$out/rows.txt"
fi
export KIT="$kit" MODE="$mode" CUDA_LIBDIR="$cuda_libdir" VRAMTRACE_KIT_PYTHON="$python"

# step ROW LIMIT SCRIPT: one row's check, killed after LIMIT seconds or what
# is left of the budget (less 10 s to print the table), whichever is less.
step() {
	left=$((budget - ($(date +%s) - started) - 10))
	limit=$2
	[ "$left" -lt "$limit" ] && limit=$left
	log="$out/row$1"
	mkdir -p "$log"
	if [ "$limit" -le 0 ]; then
		echo "$1|$3|not run: the time budget is spent|-|FAIL" >>"$out/rows.txt"
		return
	fi
	begun=$(date +%s)
	ROW_OUT="$log" timeout -k 5 "$limit" sh "$kit/checks/$3" >"$log/rows.txt" 2>"$log/stderr.txt"
	status=$?
	echo "$1 $3 exit $status in $(($(date +%s) - begun)) s (limit $limit s)" >>"$out/steps.txt"
	cat "$log/rows.txt" >>"$out/rows.txt"
	if [ "$status" = 124 ] || [ "$status" = 137 ]; then
		echo "$1|$3|timed out after $limit s|-|FAIL" >>"$out/rows.txt"
	elif ! grep -q "^$1|" "$log/rows.txt"; then
		echo "$1|$3|no figure (exit $status, see $log)|-|FAIL" >>"$out/rows.txt"
	fi
}

: >"$out/steps.txt"
step 1 40 row01_cudart.sh
step 2 40 row02_cupti.sh
step 3 20 row03_nvml.sh
step 9 30 row09_python.sh
step 4 120 row04_pytorch.sh
step 5 45 row05_graph.sh
step 6 45 row06_nccl.sh
step 7 75 row07_jax.sh
step 8 45 row08_cupy.sh
step 10 120 row10_overhead.sh
step 11 100 row11_threads.sh

device=$(sed -n '1p' "$out/nvidia-smi.txt" 2>/dev/null)
[ "$mode" = sim ] && device="the simulated device (vramtrace run --simulate)"
echo "vramtrace GPU validation kit: $(sed -n 1p "$kit/MANIFEST"), on $device, $(nproc) cores, $("$python" -V 2>&1)"
"$python" - "$out/rows.txt" <<'EOF'
import sys

rows = [line.rstrip("\n").split("|", 4) for line in open(sys.argv[1]) if line.count("|") >= 4]
rows.sort(key=lambda r: int(r[0]) if r[0].isdigit() else 99)  # stable: a row's lines keep their order
width = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(("row", "check", "measured", "expected"))]
print("%-*s  %-*s  %-*s  %-*s  %s" % (width[0], "row", width[1], "check", width[2], "measured",
                                     width[3], "expected", "verdict"))
for r in rows:
    print("%-*s  %-*s  %-*s  %-*s  %s" % (width[0], r[0], width[1], r[1], width[2], r[2],
                                         width[3], r[3], r[4]))
counts = {}
for r in rows:
    key = "skipped" if r[4].startswith("skipped") else r[4]
    counts[key] = counts.get(key, 0) + 1
print(", ".join("%s %d" % item for item in sorted(counts.items())))
EOF
echo "reports and logs: $out ($(($(date +%s) - started)) s)"
! cut -d'|' -f5 "$out/rows.txt" | grep -qx FAIL
