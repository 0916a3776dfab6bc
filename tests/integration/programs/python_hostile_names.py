"""Names a terminal would obey, from the program: a tag with a newline and
escape sequences, a file name given to compile() with the same, an
allocation the device refuses under that tag. Nothing of them may reach
the summary unescaped."""
import ctypes

import vramtrace

runtime = ctypes.CDLL("libcudart.so.13")
kept = []


def allocate(size):
    pointer = ctypes.c_void_p()
    rc = runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(size))
    kept.append(pointer)
    return rc


evil = "\nvramtrace: forged\x1b[2J\x1b]0;PWNED\x07"
assert vramtrace.push("tag" + evil)
code = compile("allocate(1 << 20)\nrefused = allocate(1 << 60)\n", "file" + evil + ".py", "exec")
scope = {"allocate": allocate}
exec(code, scope)
assert scope["refused"] == 2, scope["refused"]
