"""A pytest gate on device memory, loaded by itself under ``vramtrace run``.

    @pytest.mark.limit_vram("24GiB")
    def test_serving():
        ...

fails the test when the device-memory peak during it exceeds the limit,
naming the peak and the Python line that held most of it. The device-memory
counterpart of pytest-memray's ``limit_memory``. Under ``vramtrace run --
python -m pytest`` the plugin loads by itself (PYTEST_PLUGINS); loaded
otherwise (``-p vramtrace.pytest``) without vramtrace, a marked test runs
unchecked, with one warning saying so.
"""

import ast
import inspect
import os
import re
import textwrap
import warnings
from decimal import Decimal, InvalidOperation, localcontext

import pytest

import vramtrace

# The grammar of every size vramtrace takes (lib/core/size.c): a number
# (decimals and exponents allowed), spaces, and a unit in any case; binary
# units and bare K/M/G/T/P are powers of 1024, KB/MB/GB/TB/PB of 1000.
_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50,
          "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}
_SIZE = re.compile(r"[ \t]*([0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?)[ \t]*([A-Za-z]*)[ \t]*")


def parse_size(text):
    """"24GiB", "1.5 GB", "80gb", "1e9", 1000: bytes (a fraction of a byte dropped)."""
    if isinstance(text, int) and not isinstance(text, bool) and 0 <= text < 2**64:
        return text
    match = _SIZE.fullmatch(str(text))
    number = match.group(1) if match else ""
    unit = _UNITS.get(match.group(2).upper()) if match else None
    if len(re.split("[eE]", number)[0].replace(".", "").lstrip("0")) > 20:
        unit = None  # finer than any size needs, as vt_size_parse says
    try:
        with localcontext() as context:
            context.prec = 80  # exact: 20 digits times a unit of 16
            value = int(Decimal(number) * unit) if unit and re.search("[0-9]", number) else -1
    except (InvalidOperation, ValueError):
        value = -1
    if not 0 <= value < 2**64:
        raise ValueError(f"limit_vram wants a size such as 24GiB, 1.5 GiB or 80GB, "
                         f"not {text!r}")
    return value


def _human(size):
    if size < 2**10:
        return f"{size} B"
    # 1048575 bytes, 1023.999 KiB, are "1.00 MiB", never "1024.00 KiB".
    for unit, scale in (("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30)):
        text = f"{size / scale:.2f} {unit}"
        if size < scale * 2**10 and not text.startswith("1024.00 "):
            break
    return text


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "limit_vram(size): fail when the test's device-memory peak exceeds size")


_warned = []


def _limit_of(marker):
    size = marker.args[0] if marker.args else marker.kwargs.get("size")
    if size is None:
        pytest.fail('@pytest.mark.limit_vram needs a size, such as '
                    '@pytest.mark.limit_vram("24GiB")', pytrace=False)
    try:
        return parse_size(size)
    except ValueError as error:
        pytest.fail(str(error), pytrace=False)


def _test_line(item, where):
    """The line of the test itself that led to where ("allocate (t.py:4)"):
    where, when it is in the test; else the test's one call of where's
    function; else the test's first line."""
    function = getattr(item, "function", None)
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    name = os.path.basename(code.co_filename)
    found = re.fullmatch(r"(.+) \((.+):([0-9]+)\)", where or "")
    try:
        lines, first = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return f"{name}:{code.co_firstlineno}"
    if found and found.group(2) == name and first <= int(found.group(3)) < first + len(lines):
        return None  # where is the test's own line already
    callee = found.group(1).split(".")[-1] if found else None
    calls = set()
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        tree = None
    for node in ast.walk(tree) if tree and callee else ():
        if isinstance(node, ast.Call):
            target = node.func
            called = getattr(target, "id", None) or getattr(target, "attr", None)
            if called == callee:
                calls.add(first + node.lineno - 1)
    line = min(calls) if len(calls) == 1 else code.co_firstlineno
    return f"{name}:{line}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("limit_vram")
    if marker is None:
        yield
        return
    limit = _limit_of(marker)
    if not vramtrace.available():
        if not _warned:
            _warned.append(True)
            warnings.warn(pytest.PytestWarning(
                "limit_vram is not checked: the tests do not run under vramtrace "
                "(run them as `vramtrace run -- python -m pytest ...`)"))
        yield
        return
    vramtrace.window_begin()
    outcome = yield
    peak, where = vramtrace.window_peak()
    if peak is not None and peak > limit and outcome.excinfo is None:
        own = _test_line(item, where)
        at = f" at {own}" if own else ""
        line = f", most of it allocated at {where}" if where else ""
        pytest.fail(f"{item.name}{at}: device memory peaked at {_human(peak)} ({peak} bytes), "
                    f"over the limit of {_human(limit)} ({limit} bytes){line}", pytrace=False)
