"""One row op at [M, N] launched 3 times, for ncu (profile the second):
ncu -k regex:rkc_ -c 1 --launch-skip 1 --set detailed python3 bench/experiments/ncu_row.py OP DTYPE M N [SCHEDULE]
(the tuning database applies, as for users; RKC_DISABLE_TUNING_DB=1 for the heuristic)."""
import sys

import torch

import rkc
from rkc import _spec

op, dts, M, N = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dts]
sched = sys.argv[5] if len(sys.argv) > 5 else None
text = {"rms_norm": _spec.with_eps(_spec.spec_text("rms_norm"), 1e-6),
        "layer_norm": _spec.with_eps(_spec.spec_text("layer_norm"), 1e-5),
        "cross_entropy": _spec.with_ignore_index(_spec.spec_text("cross_entropy"), -100)}.get(op) \
    or _spec.spec_text(op)
x = torch.randn(M, N, device="cuda", dtype=dt)
w = torch.randn(N, device="cuda", dtype=dt)
t = torch.randint(0, N, (M,), device="cuda")
args = {"rms_norm": (x, w), "layer_norm": (x, w, w), "cross_entropy": (x, t)}.get(op, (x,))
f = rkc.compile(text, spec_name=op + ".mlir", schedule=sched)
arg = "logits" if op == "cross_entropy" else "x"
print(f.kernel("%s=%dx%d" % (arg, M, N), dtype=dts).plan, file=sys.stderr)
for _ in range(3):
    f(*args)
torch.cuda.synchronize()
