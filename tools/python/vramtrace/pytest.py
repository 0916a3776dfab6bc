"""A pytest gate on device memory: ``-p vramtrace.pytest``.

    @pytest.mark.limit_vram("24GiB")
    def test_serving():
        ...

fails the test when the device-memory peak during it exceeds the limit,
naming the peak and the Python line that held most of it. The device-memory
counterpart of pytest-memray's ``limit_memory``. When the tests do not run
under vramtrace (``vramtrace run -- python -m pytest -p vramtrace.pytest``),
the marker does nothing.
"""

import re

import pytest

import vramtrace

_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40,
          "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text):
    """"24GiB", "512MiB", "80GB", 1000: bytes."""
    if isinstance(text, int):
        return text
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", str(text))
    if not match or match.group(2).upper() not in _UNITS:
        raise ValueError(f"limit_vram wants a size such as 24GiB, not {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def _human(size):
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.2f} {unit}"
    return f"{size} B"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "limit_vram(size): fail when the test's device-memory peak exceeds size")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("limit_vram")
    if marker is None or not vramtrace.available():
        yield
        return
    limit = parse_size(marker.args[0] if marker.args else marker.kwargs["size"])
    vramtrace.window_begin()
    outcome = yield
    peak, where = vramtrace.window_peak()
    if peak is not None and peak > limit and outcome.excinfo is None:
        line = f", most of it allocated at {where}" if where else ""
        pytest.fail(f"device memory peaked at {_human(peak)} ({peak} bytes), over the "
                    f"limit of {_human(limit)} ({limit} bytes){line}", pytrace=False)
