"""Category tags for vramtrace from Python.

    import vramtrace

    with vramtrace.tag("kv_cache"):
        cache = torch.empty(...)          # allocations here are "kv_cache"

    @vramtrace.tag("weights")
    def load(): ...

    vramtrace.dump("/tmp/now.%p.json")    # a report right now

The calls reach libvramtrace.so through ctypes when the process runs under
it (``vramtrace run -- python app.py`` or LD_PRELOAD). Without it every call
is a silent no-op, so the tags can stay in production code.

A name is a str or bytes and a path a str, bytes or os.PathLike; what the
library cannot take (another type, a NUL inside, a lone surrogate, an
address outside 1 to 2**64 - 1) makes the call return False, with vramtrace
as without it, and no call raises.

Tags are per thread and nest, which asyncio does not see: a ``with
vramtrace.tag`` block that awaits lends its tag to every task the event
loop runs on that thread meanwhile, and its end closes whichever tag is
innermost then; and ``@vramtrace.tag`` on an ``async def`` tags only the
making of the coroutine, not its run. Under asyncio, tag only code that
does not await. An explicit tag outranks an NVTX range, so
PyTorch users can leave ``torch.cuda.nvtx.range("attention")`` (which
``vramtrace run`` turns into tags through NVTX_INJECTION64_PATH) around
whole layers and add ``vramtrace.tag`` only where a finer name helps.

Note that PyTorch's caching allocator reuses memory it already holds: a tag
names the memory the allocator obtains from CUDA while it is open, not each
tensor carved from its cache.
"""

import contextlib
import ctypes
import operator
import os

__all__ = ["available", "push", "pop", "tag", "tag_pointer", "dump", "window_begin",
           "window_peak"]


def _load():
    try:
        process = ctypes.CDLL(None)
        functions = {
            "push": process.vramtrace_push,
            "pop": process.vramtrace_pop,
            "tag_pointer": process.vramtrace_tag_pointer,
            "dump": process.vramtrace_dump,
            "window_begin": process.vramtrace_window_begin,
            "window_peak": process.vramtrace_window_peak,
        }
    except (AttributeError, OSError):
        return None
    for name in ("push", "pop", "tag_pointer", "dump"):
        functions[name].restype = ctypes.c_int
    functions["push"].argtypes = [ctypes.c_char_p]
    functions["pop"].argtypes = []
    functions["tag_pointer"].argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    functions["dump"].argtypes = [ctypes.c_char_p]
    functions["window_begin"].restype = ctypes.c_int
    functions["window_begin"].argtypes = []
    functions["window_peak"].restype = ctypes.c_longlong
    functions["window_peak"].argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return functions


_library = _load()


def _encode(text):
    """A name as the library's C string (UTF-8; bytes as they are), or None
    for what no C string says: not a str or bytes, a NUL inside, a lone
    surrogate. Checked with and without vramtrace alike, so that a call
    answers the same either way."""
    if isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return None
    elif isinstance(text, (bytes, bytearray)):
        data = bytes(text)
    else:
        return None
    return None if b"\0" in data else data


def _path(path):
    """A path (str, bytes or os.PathLike) as the library's C string, or None."""
    try:
        data = os.fsencode(path)
    except (TypeError, UnicodeEncodeError):
        return None
    return None if b"\0" in data else data


def _address(pointer):
    """An address (an int, or a ctypes.c_void_p) the library can take, or None."""
    if isinstance(pointer, ctypes.c_void_p):
        pointer = pointer.value
    if isinstance(pointer, bool):
        return None
    try:
        address = operator.index(pointer)
    except TypeError:
        return None
    return address if 0 < address < 2**64 else None


def available():
    """True when the process runs under libvramtrace.so."""
    return _library is not None


def push(name):
    """Tags this thread's allocations with name until pop(). True if it took."""
    name = _encode(name)
    return _library is not None and name is not None and _library["push"](name) == 0


def pop():
    """Ends the innermost tag of this thread. True if there was one."""
    return _library is not None and _library["pop"]() == 0


def tag_pointer(pointer, name):
    """Moves a live allocation (an int address, e.g. tensor.data_ptr()) to name."""
    pointer, name = _address(pointer), _encode(name)
    return (_library is not None and pointer is not None and name is not None and
            _library["tag_pointer"](pointer, name) == 0)


def dump(path=None):
    """Writes a report now; path takes %p, %h and %r like VRAMTRACE_OUTPUT."""
    encoded = None if path is None else _path(path)
    if _library is None or (path is not None and encoded is None):
        return False
    return _library["dump"](encoded) == 0


@contextlib.contextmanager
def tag(name):
    """A context manager, and a decorator, that tags allocations with name."""
    pushed = push(name)
    try:
        yield
    finally:
        if pushed:
            pop()


def window_begin():
    """Opens a window of time: window_peak() then gives the device peak since."""
    return _library is not None and _library["window_begin"]() == 0


def window_peak():
    """(bytes, where): the highest device memory any device held since
    window_begin(), and the line that held most of it then ("load_weights
    (model.py:21)"); (None, None) without vramtrace or a window."""
    if _library is None:
        return None, None
    where = ctypes.create_string_buffer(1024)
    peak = _library["window_peak"](where, len(where))
    if peak < 0:
        return None, None
    return peak, where.value.decode("utf-8", "replace")
