"""numba's CUDA arrays, through its own ctypes binding of the driver: two
1 GiB device arrays and a 4 MiB copy of a host array, read back. Exits 77
where numba is not installed."""
import sys

try:
    import numpy as np
    from numba.cuda.cudadrv import driver as numba_driver
except ImportError:
    sys.exit(77)

# numba 0.56 binds the _v2 flavour of a driver function whenever the driver
# exports one (numba-cuda issue 173). CUDA 13's cuCtxGetDevice_v2 and
# cuCtxSynchronize_v2 take a context as well, which numba leaves to
# whatever is in the register: a real CUDA 13 driver gets a stray pointer
# too, and refuses it as an invalid context. Bind the one-argument ABIs,
# as numba-cuda does for CUDA 13.
_find_api = numba_driver.Driver._find_api


def _find_cuda12_api(self, name):
    if name in ("cuCtxGetDevice", "cuCtxSynchronize"):
        return getattr(self.lib, name)
    return _find_api(self, name)


numba_driver.Driver._find_api = _find_cuda12_api

from numba import cuda  # noqa: E402


def arrays():
    first = cuda.device_array(1 << 28, dtype=np.float32)  # MARK first
    second = cuda.device_array(1 << 28, dtype=np.float32)  # MARK second
    host = np.arange(1 << 20, dtype=np.float32)
    copy = cuda.to_device(host)  # MARK copy
    assert (copy.copy_to_host() == host).all()
    cuda.synchronize()
    return first, second, copy


kept = arrays()
print("numba_arrays: ok")
