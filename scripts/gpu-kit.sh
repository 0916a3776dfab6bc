#!/bin/sh
# Packs the GPU validation kit into DIR: vramtrace built here, the shared
# libraries it loads that are not glibc's (copied from this machine, found
# with ldd), the simulated device, the validation programs (built here with
# nvcc) and the checks of tests/gpu/. DIR/run.sh then needs nothing else:
# not the network, not Debian's packages, not a build (docs/gpu-kit.md).
#   scripts/gpu-kit.sh DIR
# BUILD_DIR names an existing build to pack (the kit test packs the suite's
# own); otherwise build-kit is configured and built here.
set -eu
[ $# -eq 1 ] || { echo "usage: scripts/gpu-kit.sh DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
kit=$1
cuda=$("$root/scripts/find-cuda.sh") || { echo "gpu-kit: no CUDA toolkit (set CUDA_HOME)" >&2; exit 1; }
nvcc="$cuda/bin/nvcc"
command -v patchelf >/dev/null || { echo "gpu-kit: patchelf is needed (apt-get install patchelf)" >&2; exit 1; }

build=${BUILD_DIR:-}
if [ -z "$build" ]; then
	build="$root/build-kit"
	[ -f "$build/build.ninja" ] || meson setup "$build" "$root" -Dtests=false >/dev/null
	ninja -C "$build" >/dev/null
fi
for built in lib/libvramtrace.so tools/vramtrace tests/sim/libcuda.so.1; do
	[ -f "$build/$built" ] || { echo "gpu-kit: $build/$built is not built" >&2; exit 1; }
done

rm -rf "$kit"
mkdir -p "$kit/bin" "$kit/lib/deps" "$kit/tests/sim" "$kit/progs" "$kit/checks" \
	"$kit/share/vramtrace/python"
# The tool finds its library at ../lib and the simulated device at
# ../tests/sim, as in a build tree (tools/locate.c).
cp "$build/tools/vramtrace" "$kit/bin/"
cp "$build/lib/libvramtrace.so" "$kit/lib/"
for sim in libcuda.so.1 libcudart.so.13 libcupti.so.13 libnvidia-ml.so.1; do
	cp -L "$build/tests/sim/$sim" "$kit/tests/sim/"
done
cp -r "$root/tools/python/vramtrace" "$kit/share/vramtrace/python/"
find "$kit/share" -name __pycache__ -prune -exec rm -rf {} +

# The validation programs, against NVIDIA's runtime both ways; sm_90 is the
# H200's (the PTX beside it lets a later GPU run them too).
arch="-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
for cudart in static shared; do
	"$nvcc" -x cu -cudart "$cudart" -I"$root/include" -o "$kit/progs/llm_serving_$cudart" \
		"$root/examples/llm_serving.c" -ldl
done
"$nvcc" $arch -cudart shared -o "$kit/progs/overhead" "$root/tests/gpu/overhead.cu"
"$nvcc" -cudart shared -O2 -o "$kit/progs/bench_alloc" "$root/tests/bench/bench_alloc.c" -lpthread

cp "$root/tests/gpu/kit-run.sh" "$kit/run.sh"
for check in "$root"/tests/gpu/row*.sh "$root"/tests/gpu/*.py "$root/tests/gpu/common.sh" \
	"$root/tests/integration/programs/python_frames.py"; do
	cp "$check" "$kit/checks/"
done
chmod +x "$kit/run.sh"

# What libvramtrace.so opens itself at run time
# (report/symbolize.c): ldd cannot see it.
# (libstdc++, for demangling, is GCC's, on the machine.)
opened="libdw.so.1"
# Never carried: glibc's own; GCC's runtime, which the GPU machine has with
# its gcc (and Debian's copy would ask for a newer glibc than the rest);
# NVIDIA's, which must be the machine's.
is_base() {
	case $1 in
	linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | \
		librt.so.* | libresolv.so.* | libutil.so.* | libstdc++.so.* | libgcc_s.so.* | \
		libcuda*.so* | libcupti.so* | libnvidia-*) return 0 ;;
	esac
	return 1
}
# copy_needs FILE: every library FILE needs, recursively, into lib/deps.
copy_needs() {
	ldd "$1" 2>/dev/null | while read -r name arrow path rest; do
		[ "$arrow" = "=>" ] || continue
		is_base "$name" && continue
		[ -f "$path" ] || { echo "gpu-kit: $1 needs $name, not found here" >&2; exit 1; }
		if [ ! -f "$kit/lib/deps/$name" ]; then
			cp -L "$path" "$kit/lib/deps/$name"
			copy_needs "$path"
		fi
	done
}
for name in $opened; do
	path=$(ldconfig -p | sed -n "s|^[[:space:]]*$name (libc6,x86-64) => ||p" | head -n 1)
	[ -f "$path" ] || { echo "gpu-kit: $name is not installed here" >&2; exit 1; }
	cp -L "$path" "$kit/lib/deps/$name"
	copy_needs "$path"
done
for elf in "$kit/bin/vramtrace" "$kit/lib/libvramtrace.so" "$kit"/progs/*; do
	copy_needs "$elf"
done

# Each finds what it needs in the kit through its own RUNPATH, so nothing
# of the kit goes on the traced programs' LD_LIBRARY_PATH: a program's own
# libz or libstdc++ is never shadowed, and the CUDA libraries come from the
# machine (or, with --simulate, from tests/sim) alone.
for dep in "$kit"/lib/deps/*; do
	patchelf --set-rpath '$ORIGIN' "$dep"
done
patchelf --set-rpath '$ORIGIN/deps' "$kit/lib/libvramtrace.so"
patchelf --set-rpath '$ORIGIN/../lib/deps' "$kit/bin/vramtrace"
# progs/ need NVIDIA's runtime (from the library path) and GCC's alone.

# The newest glibc symbol version anything in the kit asks for.
glibc=$(find "$kit" -type f -perm -u+x -o -type f -name '*.so*' | while read -r elf; do
	objdump -T "$elf" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//'
done | sort -uV | tail -n 1)
{
	echo "vramtrace $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) against CUDA $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
	echo "needs glibc $glibc or later"
	(cd "$kit" && find . -type f ! -name MANIFEST | sort | xargs sha256sum)
} >"$kit/MANIFEST"
size=$(du -sk "$kit" | cut -f1)
[ "$size" -lt 65536 ] || { echo "gpu-kit: $kit is $size KiB, over 64 MiB" >&2; exit 1; }
echo "gpu-kit: $kit ($size KiB): run $kit/run.sh [--simulate]"
