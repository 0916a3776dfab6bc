"""The vramtrace module given arguments the library cannot take: each call
answers as it does without vramtrace, False, and raises nothing; then good
arguments of each accepted type, under vramtrace. One line per call; the
first argument is the path to dump to."""
import ctypes
import pathlib
import sys

import vramtrace

MiB = 1 << 20
cudart = ctypes.CDLL("libcudart.so.13")
cudart.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]


def allocate(size):
    pointer = ctypes.c_void_p()
    if cudart.cudaMalloc(ctypes.byref(pointer), size) != 0:
        sys.exit("cudaMalloc failed")
    return pointer


def show(what, call):
    try:
        print(what, call())
    except Exception as error:  # the module must raise nothing
        print(what, "raised", type(error).__name__)


show("push None", lambda: vramtrace.push(None))
show("push 5", lambda: vramtrace.push(5))
show("push list", lambda: vramtrace.push([104, 105]))
show("push NUL", lambda: vramtrace.push("a\0b"))
show("push lone surrogate", lambda: vramtrace.push("\ud800"))
show("tag None", lambda: vramtrace.tag(None).__enter__())
kept = allocate(2 * MiB)  # under none of those names
show("pop", vramtrace.pop)
pointer = allocate(MiB)
show("tag_pointer 1.5", lambda: vramtrace.tag_pointer(1.5, "x"))
show("tag_pointer None name", lambda: vramtrace.tag_pointer(pointer.value, None))
show("tag_pointer -1", lambda: vramtrace.tag_pointer(-1, "x"))
show("tag_pointer 2**64", lambda: vramtrace.tag_pointer(2**64 + pointer.value, "x"))
show("dump 5", lambda: vramtrace.dump(5))
show("dump NUL", lambda: vramtrace.dump(sys.argv[1] + ".cut\0.json"))
if vramtrace.available():
    show("push bytes", lambda: vramtrace.push(b"raw"))
    show("pop", vramtrace.pop)
    show("tag_pointer c_void_p", lambda: vramtrace.tag_pointer(pointer, "ctypes"))
    show("tag_pointer int", lambda: vramtrace.tag_pointer(pointer.value, "int"))
    show("dump pathlib.Path", lambda: vramtrace.dump(pathlib.Path(sys.argv[1])))
