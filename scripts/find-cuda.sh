#!/bin/sh
# Prints the CUDA toolkit root: CUDA_HOME, CUDA_PATH, then the nvcc on PATH.
# Exits 1 when none holds cuda.h.
has_headers() { [ -n "$1" ] && [ -f "$1/include/cuda.h" ]; }
for root in "$CUDA_HOME" "$CUDA_PATH"; do
	if has_headers "$root"; then echo "$root"; exit 0; fi
done
nvcc=$(command -v nvcc 2>/dev/null)
if [ -n "$nvcc" ]; then
	root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
	if has_headers "$root"; then echo "$root"; exit 0; fi
fi
exit 1
