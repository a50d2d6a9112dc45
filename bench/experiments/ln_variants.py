"""Where LayerNorm's cluster rows lose against RMSNorm (session 14).

At 32k-256k LayerNorm runs at 0.84-0.93 of the copy roofline and RMSNorm,
same plan (256 threads x 64 values, staged, clusters of 2-16), at 0.93-0.99.
LayerNorm differs by a second cluster-wide reduction (the variance after
the mean) and a second [N] operand (the bias). Variants, same shapes,
heuristic plans unless --schedules names others:
  layer_norm   the shipped spec (two cluster reductions)
  ln_sumsq     mean and E[x^2] as one fused reduction (one cluster
               reduction; numerically worse, an upper bound only)
  ln_nobias    the shipped two-pass statistics without the bias
  rms_norm     the reference kernel
Checked against torch (float32 reference), timed with do_bench (L2
flushed, median). TB/s counts x read once and y written once.

python3 bench/experiments/ln_variants.py --dtypes bf16,f32 --n 65536,262144
"""
import argparse

import torch
import torch.nn.functional as F
from triton.testing import do_bench

import rkc
from rkc import _spec

SUMSQ = """
func.func @ln_sumsq(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                    %w: tensor<?x!rk.dtype> {rk.name = "w"},
                    %b: tensor<?x!rk.dtype> {rk.name = "b"}) -> tensor<?x?x!rk.dtype> {
  %n = rk.dim %x[1] : tensor<?x?x!rk.dtype> -> f32
  %xf = rk.map %x {
  ^bb0(%a: f32):
    rk.yield %a : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %s = rk.reduce add %xf : tensor<?x?xf32> -> tensor<?xf32>
  %sq = rk.map %x {
  ^bb0(%a: f32):
    %r = arith.mulf %a, %a : f32
    rk.yield %r : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %q = rk.reduce add %sq : tensor<?x?xf32> -> tensor<?xf32>
  %mean = rk.map %s, %n {
  ^bb0(%a: f32, %c: f32):
    %r = arith.divf %a, %c : f32
    rk.yield %r : f32
  } : tensor<?xf32>, f32 -> tensor<?xf32>
  %rstd = rk.map %q, %mean, %n {
  ^bb0(%a: f32, %m: f32, %c: f32):
    %e2 = arith.divf %a, %c : f32
    %m2 = arith.mulf %m, %m : f32
    %v = arith.subf %e2, %m2 : f32
    %eps = arith.constant 1.0e-5 : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    rk.yield %r : f32
  } : tensor<?xf32>, tensor<?xf32>, f32 -> tensor<?xf32>
  %mb = rk.broadcast %mean dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %rb = rk.broadcast %rstd dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %wb = rk.broadcast %w dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %bb = rk.broadcast %b dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %y = rk.map %x, %mb, %rb, %wb, %bb {
  ^bb0(%a: f32, %m: f32, %r: f32, %ww: f32, %bv: f32):
    %d = arith.subf %a, %m : f32
    %t = arith.mulf %d, %r : f32
    %u = arith.mulf %t, %ww : f32
    %o = arith.addf %u, %bv : f32
    rk.yield %o : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x!rk.dtype>,
      tensor<?x?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
"""

NOBIAS = """
func.func @ln_nobias(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                     %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %n = rk.dim %x[1] : tensor<?x?x!rk.dtype> -> f32
  %s = rk.reduce add %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  %mean = rk.map %s, %n {
  ^bb0(%a: f32, %c: f32):
    %r = arith.divf %a, %c : f32
    rk.yield %r : f32
  } : tensor<?xf32>, f32 -> tensor<?xf32>
  %mb = rk.broadcast %mean dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %d = rk.map %x, %mb {
  ^bb0(%a: f32, %m: f32):
    %r = arith.subf %a, %m : f32
    rk.yield %r : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32> -> tensor<?x?xf32>
  %d2 = rk.map %d {
  ^bb0(%a: f32):
    %r = arith.mulf %a, %a : f32
    rk.yield %r : f32
  } : tensor<?x?xf32> -> tensor<?x?xf32>
  %q = rk.reduce add %d2 : tensor<?x?xf32> -> tensor<?xf32>
  %rstd = rk.map %q, %n {
  ^bb0(%a: f32, %c: f32):
    %v = arith.divf %a, %c : f32
    %eps = arith.constant 1.0e-5 : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    rk.yield %r : f32
  } : tensor<?xf32>, f32 -> tensor<?xf32>
  %rb = rk.broadcast %rstd dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %wb = rk.broadcast %w dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %y = rk.map %d, %rb, %wb {
  ^bb0(%a: f32, %r: f32, %ww: f32):
    %t = arith.mulf %a, %r : f32
    %u = arith.mulf %t, %ww : f32
    rk.yield %u : f32
  } : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
"""

ap = argparse.ArgumentParser()
ap.add_argument("--variants", default="layer_norm,ln_sumsq,ln_nobias,rms_norm")
ap.add_argument("--dtypes", default="bf16,f32")
ap.add_argument("--n", default="32768,65536,131072,262144")
ap.add_argument("--schedules", default="", help="';'-separated; '' is the heuristic")
a = ap.parse_args()
DT = {"bf16": torch.bfloat16, "f32": torch.float32, "f16": torch.float16}
SPECS = {"layer_norm": _spec.with_eps(_spec.spec_text("layer_norm"), 1e-5),
         "ln_sumsq": SUMSQ, "ln_nobias": NOBIAS,
         "rms_norm": _spec.with_eps(_spec.spec_text("rms_norm"), 1e-6)}
for N in (int(n) for n in a.n.split(",")):
    M = (1 << 27) // N
    for dts in a.dtypes.split(","):
        dt = DT[dts]
        torch.manual_seed(0)
        x = torch.randn(M, N, device="cuda", dtype=dt) + 0.5
        w = torch.randn(N, device="cuda", dtype=dt)
        b = torch.randn(N, device="cuda", dtype=dt)
        xf = x.float()
        nbytes = 2 * M * N * x.element_size()
        for v in a.variants.split(","):
            args = {"rms_norm": (x, w), "ln_nobias": (x, w)}.get(v, (x, w, b))
            ref = {"rms_norm": lambda: xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float(),
                   "ln_nobias": lambda: F.layer_norm(xf, (N,), w.float(), None, 1e-5)}.get(
                       v, lambda: F.layer_norm(xf, (N,), w.float(), b.float(), 1e-5))()
            for s in a.schedules.split(";"):
                try:
                    f = rkc.compile(SPECS[v], spec_name=v + ".mlir", schedule=s or None)
                    plan = f.kernel("x=%dx%d" % (M, N), dtype=dts).plan
                    out = f(*args)
                    err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
                    ms = do_bench(lambda: f(*args), warmup=25, rep=100, return_mode="median")
                    print("%-10s %-4s %7d %-34s %8.1f us %6.3f TB/s  err %.1e  %s" %
                          (v, dts, N, s or "heuristic", ms * 1e3, nbytes / ms / 1e9, err, plan),
                          flush=True)
                except Exception as e:  # noqa: BLE001 - report and go on
                    print("%-10s %-4s %7d %-34s failed: %s" % (v, dts, N, s or "heuristic",
                                                             str(e)[:300]), flush=True)
        del x, xf
