#!/bin/sh
# Row 5: a CUDA graph captured with torch.cuda.graphs (torch_graph.py): the
# memory of its allocation nodes is in the device's peak as the kind graph,
# as much as the driver says graphs hold. PyTorch's default allocator gives
# a capture memory from its own pool (cudaMalloc), so the graph runs on its
# cudaMallocAsync backend, whose captured allocations are graph nodes.
ROW=5
. "$KIT/checks/common.sh"
if [ "$MODE" = sim ]; then
	gpu_only "torch.cuda.graphs: graph memory at the peak as kind graph"
	exit 0
fi
PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync traced_framework graph -- "$PYTHON" \
	"$KIT/checks/torch_graph.py"
status=$?
report="$ROW_OUT/graph.json"
at_peak=$(q "$report" "kind('graph').get('at_peak_bytes', 0)")
reserved=$(q "$report" "(d.get('graph_memory') or {}).get('reserved_peak_bytes', '?')")
row "torch.cuda.graphs: graph memory at the peak as kind graph" "$at_peak (exit $status)" \
	"> 0, <= graphs' reserved high $reserved" \
	"$([ "$status" = 0 ] && [ "$at_peak" -gt 0 ] && { [ "$reserved" = "?" ] || [ "$at_peak" -le "$reserved" ]; }; verdict $?)"
