"""Code objects as Python programs make and drop them: four made in turn by
replace() at one address, each named anew, and four threads allocating
from the same line. Each allocating line carries a marker the tests look
for; the sizes tell the allocations apart."""
import ctypes
import threading
import types

MiB = 1 << 20
runtime = ctypes.CDLL("libcudart.so.13")
kept = []


def template(size):
    pointer = ctypes.c_void_p()
    rc = runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(size))  # MARK template
    assert rc == 0, rc
    kept.append(pointer)


# Each copy is freed before the next is made, which CPython's allocator
# then puts at the same address, with the same file name object and first
# line: only the name tells them apart.
addresses = set()
for step in range(1, 5):
    code = template.__code__.replace(co_name=f"step{step}", co_qualname=f"step{step}")
    addresses.add(id(code))
    types.FunctionType(code, globals())(step * MiB)  # MARK call_step
    del code


def worker():
    template(8 * MiB)  # MARK worker


threads = [threading.Thread(target=worker) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(f"python_code_reuse: {len(addresses)} address(es)")
