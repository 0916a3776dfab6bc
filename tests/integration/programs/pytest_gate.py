"""Three tests under a 64 MiB limit: one allocates 32 MiB, one 96 MiB
through a helper (line 12), one names no size."""
import ctypes
import pytest

runtime = ctypes.CDLL("libcudart.so.13")
kept = []


def allocate(size):
    pointer = ctypes.c_void_p()
    assert runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(size)) == 0
    kept.append(pointer)


@pytest.mark.limit_vram("64 MiB")
def test_under_the_limit():
    allocate(32 << 20)


@pytest.mark.limit_vram("64MiB")
def test_over_the_limit():
    allocate(96 << 20)


@pytest.mark.limit_vram
def test_without_a_size():
    pass
