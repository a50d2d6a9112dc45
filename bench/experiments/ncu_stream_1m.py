"""One op at M = 128, N = 1M, launched 3 times, for ncu's DRAM bytes:
ncu -k regex:rkc_ -c 1 --launch-skip 1 --metrics dram__bytes_read.sum,...
python3 bench/experiments/ncu_stream_1m.py OP DTYPE [SCHEDULE]"""
import sys

import torch

import rkc
from rkc import _spec

op, dt = sys.argv[1], {"bf16": torch.bfloat16, "f32": torch.float32}[sys.argv[2]]
sched = sys.argv[3] if len(sys.argv) > 3 else None
M, N = 128, 1 << 20
text = {"rms_norm": _spec.with_eps(_spec.spec_text("rms_norm"), 1e-6),
        "layer_norm": _spec.with_eps(_spec.spec_text("layer_norm"), 1e-5)}.get(op) or _spec.spec_text(op)
x = torch.randn(M, N, device="cuda", dtype=dt)
w = torch.randn(N, device="cuda", dtype=dt)
args = {"rms_norm": (x, w), "layer_norm": (x, w, w)}.get(op, (x,))
f = rkc.compile(text, spec_name=op + ".mlir", schedule=sched)
for _ in range(3):
    f(*args)
torch.cuda.synchronize()
