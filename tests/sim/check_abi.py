#!/usr/bin/env python3
"""The simulated libraries against NVIDIA's, symbol by symbol.

Every function the toolkit's libcudart.so.13 exports, the simulated one
exports under the same version node; every function of the toolkit's
libcuda.so, the simulated driver exports; and its cuGetProcAddress hands
out each ABI the headers define, at the versions they define, and refuses
an earlier version or an unknown name as the real one does.

usage: check_abi.py TOOLKIT INCLUDE_DIR SIM_DIR
"""
import ctypes
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import abi  # noqa: E402

CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2
CUDA_ERROR_NOT_FOUND = 500
SYMBOL_NOT_FOUND, VERSION_NOT_SUFFICIENT = 1, 2

failures = []


def compare(what, real, simulated):
    missing = sorted(set(real) - set(simulated))
    if missing:
        failures.append(f"{what}: {len(missing)} symbols missing, e.g. {', '.join(missing[:8])}")
    versions = sorted(n for n in real if n in simulated and real[n] != simulated[n])
    if versions:
        failures.append(f"{what}: {len(versions)} symbols under another version node, e.g. " +
                        ", ".join(f"{n} ({simulated[n]} for {real[n]})" for n in versions[:4]))
    print(f"{what}: {len(real)} functions, {len(real) - len(missing)} present, "
          f"{len(versions)} under another version")


def proc_address(driver, name, version, flags):
    pfn, status = ctypes.c_void_p(), ctypes.c_int(-1)
    rc = driver.cuGetProcAddress_v2(name.encode(), ctypes.byref(pfn), version,
                                    ctypes.c_uint64(flags), ctypes.byref(status))
    return rc, pfn.value, status.value


def check_proc_addresses(driver, symbols, include_dir):
    rows = abi.proc_table(symbols, abi.proc_versions(include_dir))
    wrong = []
    for base, version, per_thread, name in rows:
        flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM if per_thread else 0
        rc, address, _ = proc_address(driver, base, version, flags)
        if rc != 0 or address != ctypes.cast(getattr(driver, name), ctypes.c_void_p).value:
            wrong.append(f"{base}@{version}{' per-thread' if per_thread else ''} -> {name}")
    if wrong:
        failures.append(f"cuGetProcAddress: {len(wrong)} entry points wrong, e.g. {wrong[:4]}")
    print(f"cuGetProcAddress: {len(rows)} entry points, {len(rows) - len(wrong)} resolved")
    if len(rows) < 600:
        failures.append(f"cuGetProcAddress: only {len(rows)} entry points derived from the headers")
    # cuMemAlloc_v2 is CUDA 3.2's; 3.0 gets the original ABI, 1.0 nothing.
    expect = [("cuMemAlloc", 3020, 0, "cuMemAlloc_v2"), ("cuMemAlloc", 3000, 0, "cuMemAlloc"),
              ("cuMemcpyHtoD", 13000, 2, "cuMemcpyHtoD_v2_ptds")]
    for base, version, flags, name in expect:
        rc, address, _ = proc_address(driver, base, version, flags)
        if rc != 0 or address != ctypes.cast(getattr(driver, name), ctypes.c_void_p).value:
            failures.append(f"cuGetProcAddress({base}, {version}, {flags}) is not {name}")
    for base, version, status in [("cuMemAlloc", 1000, VERSION_NOT_SUFFICIENT),
                                  ("cuNoSuchFunction", 13000, SYMBOL_NOT_FOUND)]:
        rc, address, got = proc_address(driver, base, version, 0)
        if (rc, address, got) != (CUDA_ERROR_NOT_FOUND, None, status):
            failures.append(f"cuGetProcAddress({base}, {version}) gave {rc}, status {got}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    toolkit, include_dir, sim_dir = sys.argv[1:]
    runtime = abi.find_library(toolkit, "libcudart.so.13")
    driver = abi.find_library(toolkit, "stubs/libcuda.so")
    if not runtime or not driver:
        print(f"the toolkit at {toolkit} has no libcudart.so.13 or stubs/libcuda.so to compare with")
        sys.exit(77)
    compare("libcudart.so.13", abi.exported_functions(runtime),
            abi.exported_functions(Path(sim_dir) / "libcudart.so.13"))
    driver_symbols = abi.exported_functions(driver)
    compare("libcuda.so.1", driver_symbols, abi.exported_functions(Path(sim_dir) / "libcuda.so.1"))
    check_proc_addresses(ctypes.CDLL(str(Path(sim_dir) / "libcuda.so.1")), sorted(driver_symbols),
                         include_dir)
    for failure in failures:
        print("FAIL:", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
