"""CuPy on the GPU, for row 8 of the kit: arrays made on marked lines,
through CuPy's memory pool ("pool") or with the pool off ("nopool").
Prints the pool's bytes while every array is live, and the marked line."""
import json
import sys

import cupy

if sys.argv[1:] == ["nopool"]:
    cupy.cuda.set_allocator(None)
arrays = [cupy.ones((64, 1024, 1024), dtype=cupy.float32) for _ in range(3)]
big = cupy.ones((256, 1024, 1024), dtype=cupy.float32)  # MARK big
cupy.cuda.Device().synchronize()
line = next("cupy_check.py:%d" % i for i, text in enumerate(open(__file__), 1)
            if text.rstrip().endswith("# MARK big"))
print(json.dumps({"pool_bytes": cupy.get_default_memory_pool().total_bytes(), "line": line}))
