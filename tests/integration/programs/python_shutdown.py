"""cudaMalloc from a __del__ that runs while the interpreter is finalized
(a module global, cleared with the module's teardown, after atexit)."""
import ctypes

runtime = ctypes.CDLL("libcudart.so.13")
kept = []


class Holder:
    def __del__(self):
        pointer = ctypes.c_void_p()
        rc = runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(6 << 20))  # MARK del
        assert rc == 0, rc
        kept.append(pointer)


holder = Holder()
