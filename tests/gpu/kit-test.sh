#!/bin/sh
# The GPU kit, packed from this build and run as a bare machine would run it:
#   - every library an ELF of the kit needs is in the kit (through its
#     RUNPATH) or is glibc's, GCC's or NVIDIA's; the simulated libraries
#     are in tests/sim alone;
#   - a traced program, run with nothing of the kit on LD_LIBRARY_PATH,
#     loads every library that is not glibc's or GCC's from the kit;
#   - the simulated run, in a scrubbed environment, prints every row of the
#     table, the GPU rows skipped, the others PASS;
#   - without --simulate, the kit refuses the simulated libraries on its
#     library path, and a simulated device passed off as the GPU fails.
#   kit-test.sh SOURCE_ROOT BUILD_DIR
set -u
root=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kit="$work/kit"
fail() { echo "FAIL: $*"; exit 1; }
command -v patchelf >/dev/null || { echo "no patchelf: skipped"; exit 77; }

BUILD_DIR="$build" sh "$root/scripts/gpu-kit.sh" "$kit" >"$work/pack.log" 2>&1 ||
	fail "gpu-kit.sh: $(cat "$work/pack.log")"
size=$(du -sk "$kit" | cut -f1)
[ "$size" -lt 65536 ] || fail "the kit is $size KiB"
echo "kit: $size KiB"

# Every NEEDED of every ELF: glibc's, GCC's, NVIDIA's, or in its RUNPATH.
for elf in $(find "$kit" -type f); do
	readelf -h "$elf" >/dev/null 2>&1 || continue
	dir=$(dirname "$elf")
	runpath=$(readelf -d "$elf" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p' | sed "s|\$ORIGIN|$dir|g")
	for needed in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		case $needed in
		libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0 | librt.so.1 | ld-linux-x86-64.so.2 | \
			libstdc++.so.6 | libgcc_s.so.1 | libcudart.so.13) continue ;;
		esac
		[ -n "$runpath" ] && [ -f "$runpath/$needed" ] ||
			fail "${elf#$kit/} needs $needed, not in the kit (RUNPATH '$runpath')"
	done
	case ${elf#$kit/} in
	tests/sim/*) ;;
	*/libcuda* | */libcupti* | */libnvidia-ml*) fail "${elf#$kit/}: NVIDIA's name outside tests/sim" ;;
	esac
done

# A traced run, the loader saying where each library came from.
env -i PATH=/usr/bin:/bin LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/ld" VRAMTRACE_SUMMARY=0 \
	"$kit/bin/vramtrace" run --simulate --output "$work/loads.json" -- \
	"$kit/progs/llm_serving_shared" >/dev/null 2>&1 || fail "the traced run failed"
cat "$work"/ld.* | sed -n 's/.*calling init: //p' | sort -u >"$work/loaded"
grep -q "^$kit/lib/deps/libdw.so.1$" "$work/loaded" || fail "libdw not loaded from the kit"
grep -q "libjansson.so.4$" "$work/loaded" || fail "the tool loaded no libjansson"
# libdw opens elfutils' debuginfod client where one is installed, and does
# without it (a bare machine has none): that and what it loads may be the
# machine's.
debuginfod=$(grep '/libdebuginfod\.so\.1$' "$work/loaded")
echo "$debuginfod" >"$work/optional"
[ -n "$debuginfod" ] && ldd "$debuginfod" | awk '$3 ~ /^\// { print $3 }' >>"$work/optional"
outside=$(grep -v "^$kit/" "$work/loaded" | grep -vxF -f "$work/optional" |
	grep -Ev '/(ld-linux-x86-64\.so\.2|lib(c|m|dl|pthread|rt)\.so\.[0-9]+|libstdc\+\+\.so\.6|libgcc_s\.so\.1)$')
for carried in "$kit"/lib/deps/*; do
	grep "/${carried##*/}$" "$work/loaded" | grep -vq "^$kit/" &&
		fail "${carried##*/} loaded from outside the kit"
done
[ -z "$outside" ] || fail "loaded from outside the kit: $outside"

# The simulated run, as on a bare machine; smaller counts keep it short.
start=$(date +%s)
env -i PATH=/usr/bin:/bin HOME="$work" VRAMTRACE_KIT_OUT="$work/out" \
	VRAMTRACE_KIT_OVERHEAD_COUNT=5000 VRAMTRACE_KIT_SIM_PAIRS=5000 \
	sh "$kit/run.sh" --simulate >"$work/table" 2>"$work/err"
status=$?
cat "$work/table"
[ "$status" = 0 ] || fail "run.sh --simulate exited $status: $(cat "$work/err")"
echo "simulated run: $(($(date +%s) - start)) s"
verdicts() { awk -v r="$1" '$1 == r' "$work/table" | grep -Eo '(PASS|FAIL|skipped: .*)$'; }
for r in 0 1 2 3 4 5 6 7 8 9 10 11; do
	[ -n "$(verdicts "$r")" ] || fail "row $r missing"
	verdicts "$r" | grep -qx FAIL && fail "row $r failed"
	case $r in
	4 | 5 | 6 | 7 | 8) verdicts "$r" | grep -vqx "skipped: no GPU" && fail "GPU row $r not skipped" ;;
	*) verdicts "$r" | grep -qx PASS || fail "row $r: no PASS on the simulated device" ;;
	esac
done
[ -s "$work/out/row10/runs.txt" ] || fail "no runs logged under VRAMTRACE_KIT_OUT"
# The kit's own settings are no setting of the library it traces with.
warned=$(grep -rl "unknown variable VRAMTRACE_KIT_" "$work/out")
[ -z "$warned" ] || fail "traced programs warned of the kit's settings: $warned"

# On a GPU: the simulated libraries on the path are refused (the kit's, or
# a copy), and a copy standing in for NVIDIA's past run.sh fails row 1 (the
# device is vramsim's).
LD_LIBRARY_PATH="$kit/tests/sim" sh "$kit/run.sh" >"$work/refused" 2>&1
[ $? = 1 ] && grep -q "simulated device is on the library path" "$work/refused" ||
	fail "the kit ran with the simulated device on its path: $(cat "$work/refused")"
mkdir "$work/fake-cuda"
cp "$kit"/tests/sim/* "$work/fake-cuda/"
LD_LIBRARY_PATH="$work/fake-cuda" sh "$kit/run.sh" >"$work/refused" 2>&1
[ $? = 1 ] && grep -q "simulated device is on the library path" "$work/refused" ||
	fail "the kit ran with a copy of the simulated device on its path: $(cat "$work/refused")"
KIT="$kit" MODE=gpu CUDA_LIBDIR="$work/fake-cuda" ROW_OUT="$work/fake" \
	sh "$kit/checks/row01_cudart.sh" >"$work/fake.rows" 2>/dev/null
grep -q "cudart shared.*FAIL$" "$work/fake.rows" ||
	fail "a simulated device passed for the GPU: $(cat "$work/fake.rows")"

# What only a GPU runs is at least well-formed here.
for check in "$kit"/checks/*.sh "$kit/run.sh"; do
	sh -n "$check" || fail "$check"
done
python3 -c "import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]" \
	"$kit"/checks/*.py || fail "a check does not parse"
echo "the kit runs bare"
