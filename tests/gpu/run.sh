#!/bin/sh
# The validation on a real GPU (CUDA 13 toolkit, and PyTorch for its part),
# with no download: builds what it needs, then prints one table.
#   - the example built with nvcc -cudart static and -cudart shared: the
#     tracked peak must equal the sum the program itself reports;
#   - PyTorch, plain and with expandable segments: bytes tagged "pytorch"
#     at the peak within 2 MiB of torch.cuda.max_memory_reserved(), and
#     cuBLAS's workspace under "cublas";
#   - NVML's unexplained bytes: present and context-sized;
#   - the CUPTI source (VRAMTRACE_SOURCES=cupti, then both): the same peak,
#     CUPTI subscribed, the context among its resource events;
#   - overhead of 100,000 cudaMalloc/cudaFree pairs and 100,000 empty
#     kernel launches, with and without vramtrace.
# Exits 77 (skipped) where there is no GPU. Meant to finish in minutes.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU here: skipped"
	exit 77
fi
cuda=$("$root/scripts/find-cuda.sh") || { echo "no CUDA toolkit"; exit 1; }
nvcc="$cuda/bin/nvcc"
[ -f "$build/build.ninja" ] || meson setup "$build" "$root" >/dev/null || exit 1
ninja -C "$build" >/dev/null || exit 1
tool="$build/tools/vramtrace"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
row() { printf '%-52s %-22s %s\n' "$1" "$2" "$3"; }
verdict() { if [ "$1" = 0 ]; then echo PASS; else failed=1; echo FAIL; fi; }

# json FILE EXPRESSION: a number out of a report, with python3.
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

row "check" "measured" "verdict"
for cudart in static shared; do
	"$nvcc" -x cu -cudart "$cudart" -I"$root/include" -o "$work/llm_$cudart" \
		"$root/examples/llm_serving.c" -ldl || { row "build llm_serving ($cudart)" "-" FAIL; failed=1; continue; }
	VRAMTRACE_SUMMARY=0 "$tool" run --output "$work/llm_$cudart.json" -- "$work/llm_$cudart" \
		--dtype bf16 --batch 8 >"$work/llm_$cudart.out" 2>&1
	expected=$(sed -n 's/.*expected_peak=\([0-9]*\).*/\1/p' "$work/llm_$cudart.out")
	peak=$(json "$work/llm_$cudart.json" "r['devices'][0]['peak']['bytes']" 2>/dev/null)
	row "llm_serving -cudart $cudart: peak = sum" "$peak / $expected" \
		"$(verdict "$([ -n "$peak" ] && [ "$peak" = "$expected" ]; echo $?)")"
	unexplained=$(json "$work/llm_$cudart.json" "(r['devices'][0]['device_view'] or {}).get('unexplained_at_peak_bytes', -1)" 2>/dev/null)
	row "  NVML unexplained (context-sized: 64 MiB-4 GiB)" "${unexplained:-none}" \
		"$(verdict "$([ "${unexplained:--1}" -ge 67108864 ] 2>/dev/null && [ "$unexplained" -le 4294967296 ]; echo $?)")"
done

for sources in cupti both; do
	[ -x "$work/llm_static" ] || break
	VRAMTRACE_SOURCES=$sources VRAMTRACE_SUMMARY=0 "$tool" run --output "$work/llm_$sources.json" \
		-- "$work/llm_static" --dtype bf16 --batch 8 >"$work/llm_$sources.out" 2>&1
	expected=$(sed -n 's/.*expected_peak=\([0-9]*\).*/\1/p' "$work/llm_$sources.out")
	peak=$(json "$work/llm_$sources.json" "r['devices'][0]['peak']['bytes']" 2>/dev/null)
	cupti=$(json "$work/llm_$sources.json" "r['tracer']['cupti']" 2>/dev/null)
	contexts=$(json "$work/llm_$sources.json" "sum(e['event'] == 'context_created' for e in (r['resources'] or {}).get('events', []))" 2>/dev/null)
	row "sources=$sources: peak = sum, CUPTI subscribed" "$peak / $expected, ${cupti:-?}" \
		"$(verdict "$([ -n "$peak" ] && [ "$peak" = "$expected" ] && [ "$cupti" = subscribed ]; echo $?)")"
	row "  contexts among CUPTI's resource events" "${contexts:-0}" \
		"$(verdict "$([ "${contexts:-0}" -ge 1 ]; echo $?)")"
done

if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
	for conf in "" "expandable_segments:True"; do
		name=${conf:-plain}
		PYTORCH_CUDA_ALLOC_CONF=$conf VRAMTRACE_SUMMARY=0 "$tool" run \
			--output "$work/torch_$name.json" -- python3 "$root/tests/gpu/torch_check.py" \
			>"$work/torch_$name.out" 2>"$work/torch_$name.err"
		reserved=$(python3 -c "import json; print(json.loads(open('$work/torch_$name.out').read().strip().splitlines()[-1])['max_memory_reserved'])" 2>/dev/null)
		tagged=$(json "$work/torch_$name.json" "next((t['at_peak_bytes'] for t in r['devices'][0]['tags'] if t['tag']=='pytorch'), 0)" 2>/dev/null)
		cublas=$(json "$work/torch_$name.json" "next((t['peak_bytes'] for t in r['devices'][0]['tags'] if t['tag']=='cublas'), 0)" 2>/dev/null)
		within=$(python3 -c "print(0 if abs(int('${tagged:-0}') - int('${reserved:-0}')) <= 2*2**20 and int('${reserved:-0}') > 0 else 1)")
		row "pytorch ($name): tagged at peak ~ max reserved" "${tagged:-?} / ${reserved:-?}" "$(verdict "$within")"
		row "  cuBLAS workspace under 'cublas'" "${cublas:-0} bytes" "$(verdict "$([ "${cublas:-0}" -gt 0 ]; echo $?)")"
	done
else
	row "pytorch" "not installed" "SKIP"
fi

"$nvcc" -cudart shared -o "$work/overhead" "$root/tests/gpu/overhead.cu" || { echo "overhead build failed"; exit 1; }
plain=$("$work/overhead")
traced=$(VRAMTRACE_SUMMARY=0 VRAMTRACE_OUTPUT="$work/overhead.json" LD_PRELOAD="$build/lib/libvramtrace.so" "$work/overhead")
pick() { printf '%s\n' "$1" | sed -n "s/^$2 //p"; }
cupti=$(VRAMTRACE_SOURCES=cupti VRAMTRACE_SUMMARY=0 VRAMTRACE_OUTPUT="$work/overhead_cupti.json" LD_PRELOAD="$build/lib/libvramtrace.so" "$work/overhead")
row "alloc/free pair ns, without / hooks / cupti" "$(pick "$plain" alloc_free_ns) / $(pick "$traced" alloc_free_ns) / $(pick "$cupti" alloc_free_ns)" "-"
row "empty launch ns, without / hooks / cupti" "$(pick "$plain" launch_ns) / $(pick "$traced" launch_ns) / $(pick "$cupti" launch_ns)" "-"
exit $failed
