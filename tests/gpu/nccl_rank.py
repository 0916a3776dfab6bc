"""torch.distributed with the NCCL backend and one rank, for row 6 of the
kit: an all-reduce makes NCCL set up its communicator and buffers."""
import os

import torch
import torch.distributed as dist

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29513")
dist.init_process_group("nccl", rank=0, world_size=1)
x = torch.ones(64 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
assert x[0].item() == 1.0
dist.destroy_process_group()
