"""Runs the demo's RMSNorm through the rkc Python binding on the GPU and
checks it against a float64 PyTorch reference (used by scripts/demo)."""
import torch
import triton.testing

import rkc

M, N = 4096, 8192
x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
w = torch.randn(N, device="cuda", dtype=torch.bfloat16)
y = rkc.rms_norm(x, w, eps=1e-6)
xd = x.double()
ref = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6) * w.double()
err = ((y.double() - ref).norm() / ref.norm()).item()
ms = triton.testing.do_bench(lambda: rkc.rms_norm(x, w, eps=1e-6), warmup=25, rep=100,
                             return_mode="median")
tbps = 2 * M * N * 2 / (ms * 1e-3) / 1e12
print(f"  rms_norm bf16 [{M}, {N}]: rel. error {err:.2e} (limit 8e-3), "
      f"{ms * 1e3:.1f} us, {tbps:.2f} TB/s")
assert err <= 8e-3, "result does not match the reference"
