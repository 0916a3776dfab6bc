"""Functions with names longer than vramtrace keeps, of ASCII, two-byte and
four-byte characters, allocating 1, 2 and 3 MiB, in a file whose name is
longer too: two ASCII characters, then two-byte ones."""
import ctypes

runtime = ctypes.CDLL("libcudart.so.13")
kept = []


def allocate(size):
    pointer = ctypes.c_void_p()
    assert runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(size)) == 0
    kept.append(pointer)


names = ["a" * 600, "\u00e9" * 300, "\U00020000" * 150]
source = "".join(f"def {name}():\n    allocate({i + 1} << 20)\n{name}()\n"
                 for i, name in enumerate(names))
exec(compile(source, "xy" + "\u00e9" * 600 + ".py", "exec"), {"allocate": allocate})
