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
import re
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import abi  # noqa: E402

CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2
CUDA_ERROR_INVALID_VALUE = 1
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
    # Older versions resolve to the ABI of their day.
    expect = [("cuMemAlloc", 3020, 0, "cuMemAlloc_v2"), ("cuMemAlloc", 3000, 0, "cuMemAlloc"),
              ("cuMemcpyHtoD", 13000, 2, "cuMemcpyHtoD_v2_ptds"),
              ("cuCtxCreate", 3020, 0, "cuCtxCreate_v2"), ("cuCtxCreate", 11040, 0, "cuCtxCreate_v3"),
              ("cuCtxGetDevice", 12090, 0, "cuCtxGetDevice"),
              ("cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2"),
              ("cuLinkCreate", 6050, 0, "cuLinkCreate_v2"), ("cuLinkCreate", 5050, 0, "cuLinkCreate"),
              ("cuStreamBeginCapture", 10000, 0, "cuStreamBeginCapture")]
    for base, version, flags, name in expect:
        rc, address, _ = proc_address(driver, base, version, flags)
        if rc != 0 or address != ctypes.cast(getattr(driver, name), ctypes.c_void_p).value:
            failures.append(f"cuGetProcAddress({base}, {version}, {flags}) is not {name}")
    for base, version, status in [("cuMemAlloc", 1000, VERSION_NOT_SUFFICIENT),
                                  ("cuNoSuchFunction", 13000, SYMBOL_NOT_FOUND)]:
        rc, address, got = proc_address(driver, base, version, 0)
        if (rc, address, got) != (0, None, status):
            failures.append(f"cuGetProcAddress({base}, {version}) gave {rc}, status {got}")
    # cuda.h: a version newer than the driver's is CUDA_ERROR_INVALID_VALUE.
    rc, address, _ = proc_address(driver, "cuMemAlloc", 13010, 0)
    if (rc, address) != (CUDA_ERROR_INVALID_VALUE, None):
        failures.append(f"cuGetProcAddress(cuMemAlloc, 13010) gave {rc}")


# An older ABI a simulation may leave unsupported: one of 32-bit device
# pointers and sizes, which the simulated 64-bit address space cannot serve.
THIRTY_TWO_BIT = re.compile(r"CUdeviceptr_v1|CUDA_\w+_v1\b|unsigned int \*?(bytes|bytesize|free|"
                            r"total|ByteCount|psize)\b")


def weak_symbols(library):
    """The names a library defines only weakly: abi.py's stand-ins."""
    data = Path(library).read_bytes()
    sections = abi._sections(data)
    weak = set()
    for section in sections:
        if section[1] != abi.SHT_DYNSYM:
            continue
        strtab, offset, size, entsize = sections[section[6]][4], section[4], section[5], section[9]
        for at in range(offset, offset + size, entsize):
            name, info, _, shndx = struct.unpack_from("<IBBH", data, at)
            if shndx != abi.SHN_UNDEF and info >> 4 == 2:  # STB_WEAK
                weak.add(abi._string(data, strtab + name))
    return weak


def check_older_abis(symbols, include_dir, weak):
    """Every older ABI of a function the simulation implements is
    implemented too, as a real CUDA 13 driver serves it, unless its
    arguments are 32-bit pointers or sizes."""
    rows = abi.proc_table(symbols, abi.proc_versions(include_dir))
    typedefs = "".join(h.read_text(errors="replace")
                       for h in Path(include_dir).glob("cuda*Typedefs.h"))
    implemented = {base for base, _, per_thread, name in rows if name not in weak}
    missing = []
    for base, version, per_thread, name in rows:
        if name not in weak or base not in implemented or per_thread:
            continue
        typedef = re.search(rf"PFN_{base}_v{version}\)\((.*?)\);", typedefs, re.S)
        if not typedef or not THIRTY_TWO_BIT.search(typedef.group(1)):
            missing.append(f"{name} ({version})")
    if missing:
        failures.append(f"older ABIs left unsupported: {', '.join(missing)}")
    print(f"older ABIs: {len(missing)} unsupported beyond the 32-bit ones")


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
    check_older_abis(sorted(driver_symbols), include_dir,
                     weak_symbols(Path(sim_dir) / "libcuda.so.1"))
    for failure in failures:
        print("FAIL:", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
