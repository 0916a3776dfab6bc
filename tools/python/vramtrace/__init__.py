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

Tags are per thread and nest. An explicit tag outranks an NVTX range, so
PyTorch users can leave ``torch.cuda.nvtx.range("attention")`` (which
``vramtrace run`` turns into tags through NVTX_INJECTION64_PATH) around
whole layers and add ``vramtrace.tag`` only where a finer name helps.

Note that PyTorch's caching allocator reuses memory it already holds: a tag
names the memory the allocator obtains from CUDA while it is open, not each
tensor carved from its cache.
"""

import contextlib
import ctypes

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
    return text.encode("utf-8") if isinstance(text, str) else bytes(text)


def available():
    """True when the process runs under libvramtrace.so."""
    return _library is not None


def push(name):
    """Tags this thread's allocations with name until pop(). True if it took."""
    return _library is not None and _library["push"](_encode(name)) == 0


def pop():
    """Ends the innermost tag of this thread. True if there was one."""
    return _library is not None and _library["pop"]() == 0


def tag_pointer(pointer, name):
    """Moves a live allocation (an int address, e.g. tensor.data_ptr()) to name."""
    return _library is not None and _library["tag_pointer"](pointer, _encode(name)) == 0


def dump(path=None):
    """Writes a report now; path takes %p, %h and %r like VRAMTRACE_OUTPUT."""
    if _library is None:
        return False
    return _library["dump"](None if path is None else _encode(path)) == 0


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
