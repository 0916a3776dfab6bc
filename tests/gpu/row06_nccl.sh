#!/bin/sh
# Row 6: torch.distributed over NCCL with one rank (nccl_rank.py): NCCL's
# own buffers are tagged nccl (by the module rule: frames in libnccl).
ROW=6
. "$KIT/checks/common.sh"
if [ "$MODE" = sim ]; then
	gpu_only "torch.distributed (NCCL, 1 rank): buffers under nccl"
	exit 0
fi
RANK=0 WORLD_SIZE=1 traced_framework nccl -- "$PYTHON" "$KIT/checks/nccl_rank.py"
status=$?
nccl=$(q "$ROW_OUT/nccl.json" "tag('nccl').get('peak_bytes', 0)")
top=$(q "$ROW_OUT/nccl.json" "top_tags(3)")
row "torch.distributed (NCCL, 1 rank): buffers under nccl" "$nccl bytes (exit $status; at peak: $top)" "> 0" \
	"$([ "$status" = 0 ] && [ "$nccl" -gt 0 ]; verdict $?)"
