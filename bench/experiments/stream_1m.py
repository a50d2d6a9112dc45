"""N = 1M streamed rows (M = 128): schedules against the heuristic, checked
against torch and timed with do_bench (L2 flushed, median), in one process.
Throughput counts the [M, N] input read once and the [M, N] output written
once (cross-entropy: the input only); the [N] weights are left out (0.4 %).
Usage: python3 bench/experiments/stream_1m.py [SCHEDULE ...]"""
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

import rkc
from rkc import _spec

M, N = 128, 1 << 20
SCHEDULES = sys.argv[1:] or [
    "", "threads=256,values=32,staging=stream", "threads=512,values=32,staging=stream",
    "threads=512,values=16,staging=stream", "threads=1024,values=16,staging=stream",
    "threads=1024,values=32,staging=stream"]
specs = {"rms_norm": _spec.with_eps(_spec.spec_text("rms_norm"), 1e-6),
         "layer_norm": _spec.with_eps(_spec.spec_text("layer_norm"), 1e-5),
         "softmax": _spec.spec_text("softmax"),
         "cross_entropy": _spec.with_ignore_index(_spec.spec_text("cross_entropy"), -100)}
for op, text in specs.items():
    for dt in (torch.bfloat16, torch.float32):
        torch.manual_seed(0)
        x = torch.randn(M, N, device="cuda", dtype=dt)
        w = torch.randn(N, device="cuda", dtype=dt)
        b = torch.randn(N, device="cuda", dtype=dt)
        tg = torch.randint(0, N, (M,), device="cuda")
        args = {"rms_norm": (x, w), "layer_norm": (x, w, b), "softmax": (x,),
                "cross_entropy": (x, tg)}[op]
        xf = x.float()
        ref = {"rms_norm": lambda: xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float(),
               "layer_norm": lambda: F.layer_norm(xf, (N,), w.float(), b.float(), 1e-5),
               "softmax": lambda: torch.softmax(xf, -1),
               "cross_entropy": lambda: F.cross_entropy(xf, tg, reduction="none")}[op]()
        eb = x.element_size()
        nbytes = M * N * eb * (1 if op == "cross_entropy" else 2)
        for s in SCHEDULES:
            try:
                f = rkc.compile(text, spec_name=op + ".mlir", schedule=s or None)
                out = f(*args)
                if op == "cross_entropy":
                    out = out[0]
                err = ((out.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()
                ms = do_bench(lambda: f(*args), warmup=25, rep=100, return_mode="median")
                print("%-13s %-8s %-40s %8.1f us %6.3f TB/s  max rel err %.1e" %
                      (op, str(dt)[6:], s or "heuristic", ms * 1e3, nbytes / ms / 1e9, err), flush=True)
            except Exception as e:  # noqa: BLE001 - report and go on
                print("%-13s %-8s %-40s failed: %s" % (op, str(dt)[6:], s or "heuristic", str(e)[:200]),
                      flush=True)
        del x, xf, ref
