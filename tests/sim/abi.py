#!/usr/bin/env python3
"""The simulated device's public ABI, derived from the installed CUDA toolkit.

NVIDIA's libcudart.so.13 and the toolkit's libcuda.so stub list every symbol
the real libraries export; the headers give each one's return type, and
cudaTypedefs.h (with its siblings) the versions cuGetProcAddress serves.
From them this writes, for the simulated libraries:

  runtime_abi.c  a weak definition of every runtime symbol, which fails with
                 cudaErrorNotSupported unless the simulation defines it;
  driver_abi.c   the same for the driver (CUDA_ERROR_NOT_SUPPORTED), and the
                 table cuGetProcAddress resolves names and versions through;
  errors.c       every error code's name and text, for both.

A new CUDA release therefore brings its new symbols in as "not supported"
on the next build, and `check` lists them.
"""
import argparse
import ctypes
import re
import struct
import sys
from pathlib import Path

SHT_DYNSYM = 11
SHT_GNU_VERDEF = 0x6FFFFFFD
SHT_GNU_VERSYM = 0x6FFFFFFF
STT_FUNC = 2
SHN_UNDEF = 0


def _sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    return [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]


def _string(data, at):
    return data[at:data.index(b"\0", at)].decode()


def _version_names(data, sections):
    """{version index: name} from .gnu.version_d."""
    names = {}
    for section in sections:
        if section[1] != SHT_GNU_VERDEF:
            continue
        strtab, at = sections[section[6]][4], section[4]
        for _ in range(section[8]):  # sh_info: the number of definitions
            _, _, index, _, _, aux, following = struct.unpack_from("<HHHHIII", data, at)
            names[index] = _string(data, strtab + struct.unpack_from("<I", data, at + aux)[0])
            at += following
    return names


def exported_functions(library):
    """{name: version node or None} for the functions an ELF64 shared
    object defines in .dynsym."""
    data = Path(library).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError(f"{library}: not an ELF64 object")
    sections = _sections(data)
    versions = _version_names(data, sections)
    versym = next((s[4] for s in sections if s[1] == SHT_GNU_VERSYM), None)
    functions = {}
    for section in sections:
        if section[1] != SHT_DYNSYM:
            continue
        strtab, offset, size, entsize = sections[section[6]][4], section[4], section[5], section[9]
        for index, at in enumerate(range(offset, offset + size, entsize)):
            name, info, _, shndx = struct.unpack_from("<IBBH", data, at)
            if shndx == SHN_UNDEF or info & 0xF != STT_FUNC:
                continue
            version = None
            if versym is not None:
                version = versions.get(struct.unpack_from("<H", data, versym + 2 * index)[0] & 0x7FFF)
            functions[_string(data, strtab + name)] = version
    return functions


def find_library(toolkit, *names):
    for folder in ("lib64", "lib", "targets/x86_64-linux/lib"):
        for name in names:
            path = Path(toolkit) / folder / name
            if path.is_file():
                return path
    return None


def declared_return_types(include_dir, pattern):
    """{name: return type} for every function the toolkit's headers declare."""
    declaration = re.compile(r"(\w+\s*\**)\s*(?:CUDARTAPI|CUDAAPI)\s+(\w+)\s*\(")
    types = {}
    for header in Path(include_dir).glob(pattern):
        for return_type, name in declaration.findall(header.read_text(errors="replace")):
            types.setdefault(name, return_type.replace(" ", ""))
    return types


def base_name(symbol):
    return re.sub(r"(_v\d+)?(_ptds|_ptsz)?$", "", symbol)


def returns_error_code(symbols, types, expected):
    """The symbols a stub can stand in for: those returning an error code.
    The simulation defines the rest (error strings, channel descriptors)
    itself, and the symbol comparison test holds it to that."""
    return [s for s in symbols if types.get(re.sub(r"_(ptds|ptsz)$", "", s), expected) == expected]


def stubs(symbols, helper, code):
    """A per-thread-stream flavour (_ptds, _ptsz) the simulation leaves out
    forwards to its legacy twin, as the simulated device has no queues for
    the two to differ in; any other symbol fails as not supported."""
    exported = set(symbols)
    lines = []
    for symbol in symbols:
        twin = re.sub(r"_(ptds|ptsz)$", "", symbol)
        if twin != symbol and twin in exported:
            lines.append(f"SIM_ABI_FORWARD({symbol}, {twin})\nvoid {symbol}(void);\n")
        else:
            lines.append(f"SIM_ABI_STUB int {symbol}(void)\n{{\n\tstatic int said;\n"
                         f"\treturn {helper}(\"{symbol}\", &said, {code});\n}}\n")
    return "\n".join(lines)


def proc_versions(include_dir):
    """{base: {"legacy": [versions], "ptds": [...], "ptsz": [...]}} from the
    PFN_<name>_v<version>[_ptds|_ptsz] typedefs."""
    typedef = re.compile(r"\bPFN_(cu\w+?)_v(\d+)(?:_(ptds|ptsz))?\)")
    versions = {}
    for header in Path(include_dir).glob("cuda*Typedefs.h"):
        for base, version, flavour in typedef.findall(header.read_text(errors="replace")):
            slot = versions.setdefault(base, {"legacy": set(), "ptds": set(), "ptsz": set()})
            slot[flavour or "legacy"].add(int(version))
    return versions


def abi_index(name):
    match = re.search(r"_v(\d+)$", name)
    return int(match.group(1)) if match else 1


def proc_table(symbols, versions):
    """(base, version, per_thread, symbol): the k-th ABI version of a base
    name is its k-th export (base, base_v2, base_v3, ...), per flavour."""
    exported = set(symbols)
    rows = []
    for base, flavours in sorted(versions.items()):
        for flavour, found in flavours.items():
            suffix = "" if flavour == "legacy" else "_" + flavour
            names = [s[:len(s) - len(suffix)] if suffix else s for s in exported
                     if s.endswith(suffix) and base_name(s) == base and
                     (suffix or not s.endswith(("_ptds", "_ptsz")))]
            names.sort(key=abi_index)
            ordered = sorted(found)
            # When the headers know fewer ABIs than the library exports, the
            # newest ones are those the headers describe.
            names = names[len(names) - len(ordered):] if len(names) > len(ordered) else names
            ordered = ordered[len(ordered) - len(names):]
            for version, name in zip(ordered, names):
                rows.append((base, version, flavour != "legacy", name + suffix))
    rows.sort()
    return rows


PROLOGUE = """/* Written by tests/sim/abi.py from the CUDA toolkit; do not edit. */
#include "abi.h"

"""


def write_runtime(out, symbols, include_dir):
    types = declared_return_types(include_dir, "cuda*.h")
    symbols = returns_error_code(symbols, types, "cudaError_t")
    Path(out).write_text(PROLOGUE + stubs(symbols, "sim_runtime_unsupported",
                                          "801 /* cudaErrorNotSupported */"))


def write_driver(out, symbols, include_dir):
    types = declared_return_types(include_dir, "cuda*.h")
    rows = proc_table(symbols, proc_versions(include_dir))
    symbols = returns_error_code(symbols, types, "CUresult")
    table = "".join(f'\t{{"{base}", {version}, {int(per_thread)}, (void (*)(void)){name}}},\n'
                    for base, version, per_thread, name in rows)
    Path(out).write_text(
        PROLOGUE + stubs(symbols, "sim_driver_unsupported", "801 /* CUDA_ERROR_NOT_SUPPORTED */") +
        "\nconst struct sim_entry_point sim_entry_points[] = {\n" + table + "};\n" +
        f"const unsigned sim_entry_point_count = {len(rows)};\n")


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def runtime_errors(library):
    """(code, name, text) for every code NVIDIA's runtime names, read from
    the library itself: it needs no driver to say what its codes mean."""
    runtime = ctypes.CDLL(str(library))
    runtime.cudaGetErrorName.restype = runtime.cudaGetErrorString.restype = ctypes.c_char_p
    unknown = runtime.cudaGetErrorName(-1)
    errors = []
    for code in range(0, 10000):
        name = runtime.cudaGetErrorName(code)
        if name != unknown:
            errors.append((code, name.decode(), runtime.cudaGetErrorString(code).decode()))
    return errors


def driver_errors(include_dir, runtime):
    """(code, name, text): cuda.h's CUresult names, with the runtime's text
    for the same code (the two have shared their numbers since CUDA 11)."""
    texts = {code: text for code, _, text in runtime}
    enum = re.compile(r"^\s*(CUDA_(?:SUCCESS|ERROR_\w+))\s*=\s*(\d+)", re.M)
    found = dict(enum.findall((Path(include_dir) / "cuda.h").read_text(errors="replace")))
    return sorted((int(code), name, texts.get(int(code), "unknown error"))
                  for name, code in found.items())


def write_errors(out, runtime_library, include_dir):
    runtime = runtime_errors(runtime_library)
    tables = []
    for which, rows in (("runtime", runtime), ("driver", driver_errors(include_dir, runtime))):
        body = "".join(f"\t{{{code}, {c_string(name)}, {c_string(text)}}},\n"
                       for code, name, text in rows)
        tables.append(f"const struct sim_error sim_{which}_errors[] = {{\n{body}}};\n"
                      f"const unsigned sim_{which}_error_count = {len(rows)};\n")
    Path(out).write_text(PROLOGUE + "\n".join(tables))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("toolkit", help="the CUDA toolkit's root")
    parser.add_argument("include_dir", help="its include directory")
    parser.add_argument("which", choices=["runtime", "driver", "errors"])
    parser.add_argument("output")
    args = parser.parse_args()
    if args.which in ("runtime", "errors"):
        library = find_library(args.toolkit, "libcudart.so.13", "libcudart.so")
    else:
        library = find_library(args.toolkit, "stubs/libcuda.so", "libcuda.so")
    if library is None:
        sys.exit(f"abi.py: no {args.which} library in {args.toolkit} to take the ABI from")
    if args.which == "errors":
        return write_errors(args.output, library, args.include_dir)
    symbols = sorted(exported_functions(library))
    if args.which == "runtime":
        write_runtime(args.output, symbols, args.include_dir)
    else:
        write_driver(args.output, symbols, args.include_dir)


if __name__ == "__main__":
    main()
