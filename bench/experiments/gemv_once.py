"""One quantized GEMV launched a few times (for ncu): python3 gemv_once.py BITS K N [M]."""
import sys

import torch

import rkc

bits, K, N = (int(v) for v in sys.argv[1:4])
M = int(sys.argv[4]) if len(sys.argv) > 4 else 1
w = torch.randn(K, N, device="cuda", dtype=torch.float16) * 0.02
q = rkc.quantize(w, bits=bits, group_size=128)
x = torch.randn(M, K, device="cuda", dtype=torch.float16)
for _ in range(4):
    y = rkc.gemv(x, q)
torch.cuda.synchronize()
print(rkc.quant.precompile("gemv", (K, N), torch.float16, bits=bits, rows=M).plan, tuple(y.shape))
