"""Training steps of a small transformer (AdamW, bf16 autocast) on the GPU,
for rows 4 and 10 of the kit. Before the steps, one tensor larger than any
other is made on the line marked LARGEST, and kept. Prints one JSON line:
torch's own figures, the marked line, and the median step time.
    python3 torch_step.py [STEPS]"""
import json
import statistics
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1
torch.manual_seed(0)
device = "cuda"
layer = torch.nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096,
                                         batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=4).to(device)
head = torch.nn.Linear(1024, 1024).to(device)
optimizer = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=1e-4)
largest = torch.empty(3 << 30, dtype=torch.uint8, device=device)  # LARGEST
tokens = torch.randn(16, 512, 1024, device=device)
target = torch.randn(16, 512, 1024, device=device)


def step():
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(head(model(tokens)), target)
    loss.backward()
    optimizer.step()
    torch.cuda.synchronize()


times = []
for _ in range(steps):
    start = time.perf_counter_ns()
    step()
    times.append(time.perf_counter_ns() - start)
marked = next(i for i, text in enumerate(open(__file__), 1) if text.rstrip().endswith("# LARGEST"))
print(json.dumps({
    "max_memory_reserved": torch.cuda.max_memory_reserved(),
    "max_memory_allocated": torch.cuda.max_memory_allocated(),
    "largest_line": "torch_step.py:%d" % marked,
    "largest_bytes": largest.numel(),
    # The first step builds cuBLAS's handles and the allocator's pool.
    "step_ns": statistics.median(times[1:] if len(times) > 1 else times),
}))
