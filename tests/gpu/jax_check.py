"""JAX on the GPU, for row 7 of the kit: two arrays made on marked lines.
With its default preallocation XLA reserves most of the device at start;
with XLA_PYTHON_CLIENT_ALLOCATOR=platform (--no-framework-cache) each
array is its own allocation. Prints the marked lines as JSON."""
import json

import jax
import jax.numpy as jnp

big = jnp.ones((256, 1024, 1024), dtype=jnp.float32)  # MARK big
small = jnp.ones((64, 1024, 1024), dtype=jnp.float32)  # MARK small
big.block_until_ready()
small.block_until_ready()
lines = {name: "jax_check.py:%d" % i for i, text in enumerate(open(__file__), 1)
         for name in ("big", "small") if text.rstrip().endswith("# MARK " + name)}
print(json.dumps({"lines": lines, "devices": [str(x) for x in jax.devices()]}))
