"""A CUDA graph captured with torch.cuda.graphs and replayed, for row 5 of
the kit. Run with PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync, the
capture's allocations become graph allocation nodes, whose memory the
driver reserves at launch. Prints the bytes the captured work makes."""
import json

import torch

static_input = torch.randn(4096, 4096, device="cuda")
weight = torch.randn(4096, 4096, device="cuda")
stream = torch.cuda.Stream()
stream.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(stream):
    for _ in range(2):  # warm-up outside the capture, as torch asks
        (static_input @ weight).relu()
torch.cuda.current_stream().wait_stream(stream)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    hidden = (static_input @ weight).relu()
    static_output = hidden @ weight
for _ in range(3):
    graph.replay()
torch.cuda.synchronize()
print(json.dumps({"output_bytes": static_output.numel() * static_output.element_size(),
                  "backend": torch.cuda.get_allocator_backend()}))
