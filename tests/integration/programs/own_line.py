"""The program's own line behind an installed package: load_weights
allocates through a stand-in for numba.cuda, written at run time into a
site-packages directory, whose device_array calls cudaMalloc through
ctypes three calls deep (as numba.cuda's device_array does)."""
import os
import shutil
import sys
import tempfile

PACKAGE = '''
import ctypes

_runtime = ctypes.CDLL("libcudart.so.13")
_kept = []


def _call(size):
    pointer = ctypes.c_void_p()
    rc = _runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(size))
    assert rc == 0, rc
    _kept.append(pointer)


def _allocator(size):
    _call(size)


def device_array(size):
    _allocator(size)
'''

root = tempfile.mkdtemp()
site = os.path.join(root, "site-packages")
os.makedirs(os.path.join(site, "numba", "cuda"))
open(os.path.join(site, "numba", "__init__.py"), "w").close()
with open(os.path.join(site, "numba", "cuda", "__init__.py"), "w") as file:
    file.write(PACKAGE)
sys.path.insert(0, site)
from numba import cuda  # noqa: E402


def load_weights():
    cuda.device_array(64 << 20)  # MARK load_weights


load_weights()  # MARK main

shutil.rmtree(root)  # the stand-in package goes with the run
