"""Schedules against the heuristic on the GPU, checked against torch and
timed with do_bench (L2 flushed, median), in one process. Throughput counts
the [M, N] input read once and the [M, N] output written once
(cross-entropy: the input only; RMSNorm with a residual: two inputs, two
outputs); [N] weights are left out (<= 0.4 % at
N = 1M with M = 128). M = 2^27 / N.

python3 bench/experiments/sched_ab.py --ops rms_norm,softmax --dtypes bf16 \\
    --n 1048576 [--schedules 'S1;S2'] ('' in the list: the heuristic)"""
import argparse

import torch
import torch.nn.functional as F
from triton.testing import do_bench

import rkc
from rkc import _spec

ap = argparse.ArgumentParser()
ap.add_argument("--ops", default="rms_norm,layer_norm,softmax,cross_entropy")
ap.add_argument("--dtypes", default="bf16,f32")
ap.add_argument("--n", default="1048576", help="comma list of row lengths")
ap.add_argument("--schedules", default=";threads=256,values=32,staging=stream;"
                "threads=512,values=32,staging=stream;threads=512,values=16,staging=stream;"
                "threads=1024,values=16,staging=stream;threads=1024,values=32,staging=stream")
a = ap.parse_args()
SCHEDULES = a.schedules.split(";")
DT = {"bf16": torch.bfloat16, "f32": torch.float32, "f16": torch.float16}
specs = {"rms_norm": _spec.with_eps(_spec.spec_text("rms_norm"), 1e-6),
         "rms_norm_residual": _spec.with_eps(_spec.spec_text("rms_norm_residual"), 1e-6),
         "layer_norm": _spec.with_eps(_spec.spec_text("layer_norm"), 1e-5),
         "softmax": _spec.spec_text("softmax"), "log_softmax": _spec.spec_text("log_softmax"),
         "cross_entropy": _spec.with_ignore_index(_spec.spec_text("cross_entropy"), -100)}
for N in (int(n) for n in a.n.split(",")):
    M = (1 << 27) // N
    for op in a.ops.split(","):
        text = specs[op]
        for dts in a.dtypes.split(","):
            dt = DT[dts]
            torch.manual_seed(0)
            x = torch.randn(M, N, device="cuda", dtype=dt)
            w = torch.randn(N, device="cuda", dtype=dt)
            b = torch.randn(N, device="cuda", dtype=dt)
            tg = torch.randint(0, N, (M,), device="cuda")
            r = torch.randn(M, N, device="cuda", dtype=dt) if op == "rms_norm_residual" else None
            args = {"rms_norm": (x, w), "layer_norm": (x, w, b), "cross_entropy": (x, tg),
                    "rms_norm_residual": (x, w, r)}.get(op, (x,))
            xf = x.float()
            hf = xf + r.float() if r is not None else None
            ref = {"rms_norm": lambda: xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float(),
                   "rms_norm_residual": lambda: hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float(),
                   "layer_norm": lambda: F.layer_norm(xf, (N,), w.float(), b.float(), 1e-5),
                   "softmax": lambda: torch.softmax(xf, -1),
                   "log_softmax": lambda: torch.log_softmax(xf, -1),
                   "cross_entropy": lambda: F.cross_entropy(xf, tg, reduction="none")}[op]()
            nbytes = M * N * x.element_size() * {"cross_entropy": 1, "rms_norm_residual": 4}.get(op, 2)
            for s in SCHEDULES:
                try:
                    f = rkc.compile(text, spec_name=op + ".mlir", schedule=s or None)
                    plan = f.kernel("%s=%dx%d" % ("logits" if op == "cross_entropy" else "x", M, N),
                                    dtype=dts).plan
                    out = f(*args)
                    if op in ("cross_entropy", "rms_norm_residual"):
                        out = out[0]
                    err = ((out.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()
                    ms = do_bench(lambda: f(*args), warmup=25, rep=100, return_mode="median")
                    print("%-13s %-4s %7d %-40s %8.1f us %6.3f TB/s  err %.1e  %s" %
                          (op, dts, N, s or "heuristic", ms * 1e3, nbytes / ms / 1e9, err, plan),
                          flush=True)
                except Exception as e:  # noqa: BLE001 - report and go on
                    print("%-13s %-4s %7d %-40s failed: %s" % (op, dts, N, s or "heuristic",
                                                               str(e)[:300]), flush=True)
            del x, xf, ref
