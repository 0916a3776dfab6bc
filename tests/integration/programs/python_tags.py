"""The Python helper on the simulated device: cudaMalloc through ctypes
inside vramtrace.tag, as a decorator, and untagged."""
import ctypes
import sys

import vramtrace

MiB = 1 << 20
cudart = ctypes.CDLL("libcudart.so.13")
cudart.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]


def allocate(size):
    pointer = ctypes.c_void_p()
    if cudart.cudaMalloc(ctypes.byref(pointer), size) != 0:
        sys.exit("cudaMalloc failed")
    return pointer.value


@vramtrace.tag("weights")
def load_weights():
    return allocate(4 * MiB)


with vramtrace.tag("kv_cache"):
    allocate(8 * MiB)
    with vramtrace.tag("inner"):
        allocate(2 * MiB)
load_weights()
scratch = allocate(1 * MiB)
retagged = vramtrace.tag_pointer(scratch, "activations")
print("python_tags: available=%s retagged=%s pop=%s" % (vramtrace.available(), retagged,
                                                        vramtrace.pop()))
