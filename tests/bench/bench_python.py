"""Nanoseconds per cudaMalloc/cudaFree pair made from Python through ctypes,
DEPTH Python frames deep (python bench_python.py DEPTH PAIRS)."""
import ctypes
import sys
import time

runtime = ctypes.CDLL("libcudart.so.13")
malloc, free = runtime.cudaMalloc, runtime.cudaFree
pointer = ctypes.c_void_p()
reference = ctypes.byref(pointer)
size = ctypes.c_size_t(4096)


def pairs(count):
    for _ in range(count):
        malloc(reference, size)
        free(pointer)


def deep(depth, count):
    if depth <= 1:
        start = time.perf_counter_ns()
        pairs(count)
        return time.perf_counter_ns() - start
    return deep(depth - 1, count)


depth, count = int(sys.argv[1]), int(sys.argv[2])
deep(depth, 1000)  # warm: the code objects are copied once
print(deep(depth, count) / count)
