"""PyTorch under vramtrace: allocations through the caching allocator, and
a matmul whose cuBLAS workspace should show up under its own tag. Prints
torch's own numbers for run.sh to set beside the report."""
import json
import sys

import torch

x = torch.randn(8192, 8192, device="cuda")
y = torch.randn(8192, 8192, device="cuda")
for _ in range(3):
    z = x @ y
    z = z.relu()
torch.cuda.synchronize()
del z
print(json.dumps({
    "max_memory_reserved": torch.cuda.max_memory_reserved(),
    "max_memory_allocated": torch.cuda.max_memory_allocated(),
}))
sys.stdout.flush()
