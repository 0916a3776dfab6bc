"""os.execvp along a PATH whose first entries cannot run the program (a
missing directory, one without it, one where its name is a directory):
Python calls execv once per entry, and only the last replaces the
interpreter. argv[1]: the program to run (limits, whose "count" prints
its arguments)."""
import ctypes
import os
import sys

runtime = ctypes.CDLL("libcudart.so.13")
pointer = ctypes.c_void_p()
assert runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(1 << 20)) == 0

program = sys.argv[1]
root = os.path.dirname(os.environ["VRAMTRACE_OUTPUT"])  # the run's own
os.makedirs(os.path.join(root, "named", os.path.basename(program)))
os.environ["PATH"] = os.pathsep.join(
    ["/nonexistent", root, os.path.join(root, "named"), os.path.dirname(program)])
os.execvp(os.path.basename(program), [os.path.basename(program), "count"])
