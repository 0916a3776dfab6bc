"""cudaMalloc through ctypes from five places: the GIL released (CDLL) and
held (PyDLL), a worker thread, a 40-deep recursion and a method. Each
allocating line carries a marker the tests look for."""
import ctypes
import threading

MiB = 1 << 20
released = ctypes.CDLL("libcudart.so.13")
held = ctypes.PyDLL("libcudart.so.13")
kept = []


def allocate(runtime, size):
    pointer = ctypes.c_void_p()
    rc = runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(size))  # MARK allocate
    assert rc == 0, rc
    kept.append(pointer)


def load_weights():
    allocate(released, 64 * MiB)  # MARK load_weights


def grow_cache():
    allocate(held, 32 * MiB)  # MARK grow_cache


def worker():
    allocate(released, 16 * MiB)  # MARK worker


def recurse(depth):
    if depth == 0:
        allocate(released, 8 * MiB)  # MARK recurse_leaf
        return
    recurse(depth - 1)  # MARK recurse


class Model:
    def build(self):
        allocate(released, 4 * MiB)  # MARK build


load_weights()  # MARK main_weights
grow_cache()
thread = threading.Thread(target=worker)
thread.start()
thread.join()
recurse(39)
Model().build()
