"""A representative subset of the rkc row ops for compute-sanitizer
(test/gpu/sanitize.sh): every op, bf16 and f32, N in {33, 1000, 4096, 65536
(a cluster), 262144 (the largest cluster)}, M = 3, N = 1048576 (the streaming
tier and the grid tier), M = 2, read-once rows streamed one CTA per row (N = 65544, M = 264),
plus M = 1, more than a wave of rows loaded evict-last in L2 (M = 264, N =
4096 / 16384; clusters: M = 66 / 33, N = 65536 / 262144), misaligned
rows (the vector fallback), shifted rows (N not a multiple of the vector:
4095, 65539, 1000003 streamed, 65537 read-once) and the custom specs. Each result is compared
with PyTorch so that a kernel that silently did nothing is noticed. The
references run on the CPU: only rkc's kernels and PyTorch's elementwise
copies run on the GPU under the sanitizer (PyTorch's own GPU reductions
draw racecheck reports of their own, which say nothing about rkc). Prints
one line per case; exits 1 if any case failed.
"""

import os
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import rkc  # noqa: E402
import custom_specs  # noqa: E402

DT = {"f32": torch.float32, "bf16": torch.bfloat16}
NS = [33, 1000, 4096, 65536, 262144]
M = 3


def cpu(t):
    """A float64 CPU copy: references never run on the GPU."""
    return t.detach().cpu().double()


def close(out, ref, dt, what):
    o, r = cpu(out), cpu(ref)
    fin = torch.isfinite(r)
    if not torch.equal(torch.isnan(o), torch.isnan(r)):
        raise AssertionError("%s: NaN mismatch" % what)
    d = (o[fin] - r[fin]).norm() / r[fin].norm().clamp_min(1e-30)
    tol = 1e-5 if dt == "f32" else 8e-3
    if not d <= tol:
        raise AssertionError("%s: relative error %.3e" % (what, float(d)))


def rms_ref(x, w, eps=1e-6, r=None):
    h = x.double() + (0 if r is None else r.double())
    return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * w.double(), h


def run_case(op, dt, N, rows=M, layout=None):
    g = torch.Generator(device="cuda").manual_seed(N * 7 + rows)
    off = 1 if layout == "off1" else 0
    big = torch.randn((rows, N + 8), generator=g, device="cuda").to(DT[dt])
    x = big[:, off:off + N]
    w = torch.randn((N + off,), generator=g, device="cuda").to(DT[dt])[off:]
    b = torch.randn((N,), generator=g, device="cuda").to(DT[dt])
    xc, wc, bc = cpu(x), cpu(w), cpu(b)
    if op == "rms_norm":
        close(rkc.rms_norm(x, w), rms_ref(xc, wc)[0], dt, op)
    elif op == "rms_norm_residual":
        r = torch.randn((rows, N), generator=g, device="cuda").to(DT[dt])
        y, h = rkc.rms_norm(x, w, residual=r)
        yr, hr = rms_ref(xc, wc, r=cpu(r))
        close(y, yr, dt, op)
        close(h, hr, dt, op + " h")
    elif op == "layer_norm":
        close(rkc.layer_norm(x, w, b), F.layer_norm(xc, (N,), wc, bc), dt, op)
    elif op == "layer_norm_nobias":
        close(rkc.layer_norm(x, w), F.layer_norm(xc, (N,), wc), dt, op)
    elif op == "softmax":
        close(rkc.softmax(x), torch.softmax(xc, -1), dt, op)
    elif op == "log_softmax":
        close(rkc.log_softmax(x), torch.log_softmax(xc, -1), dt, op)
    elif op == "cross_entropy":
        t = torch.randint(0, N, (rows,), generator=g, device="cuda")
        t[0] = -100
        loss = rkc.cross_entropy(x, t, reduction="none")
        close(loss, F.cross_entropy(xc, t.cpu(), reduction="none"), dt, op)
    elif op == "l2_normalize":
        close(rkc.compile(custom_specs.L2_NORMALIZE)(x), F.normalize(xc, dim=-1), dt, op)
    elif op == "row_logsumexp":
        close(rkc.compile(custom_specs.ROW_LOGSUMEXP)(x), torch.logsumexp(xc, -1), "f32", op)
    else:
        raise ValueError(op)


OPS = ["rms_norm", "rms_norm_residual", "layer_norm", "layer_norm_nobias", "softmax",
       "log_softmax", "cross_entropy", "l2_normalize", "row_logsumexp"]


def main():
    cases = [(op, dt, N, M, None) for op in OPS for dt in DT for N in NS]
    cases += [(op, "bf16", 4096, 1, None) for op in OPS[:7]]
    # One-wave f32 rows (planner rule 3, session 40): 512 threads of one
    # 16-byte vector each.
    cases += [(op, "f32", 2048, 1, None) for op in OPS[:7]]
    # The streaming tier (rows swept in passes; at M = 2 split over 128
    # CTAs of a persistent grid, the grid tier; a cluster of 16 when read
    # once at more rows).
    cases += [(op, dt, 1048576, 2, None) for op in OPS for dt in DT]
    cases += [(op, dt, N, M, "off1") for op in OPS[:7] for dt in DT for N in (1000, 65536)]
    # Read-once rows over enough rows to fill the GPU: streamed, one CTA per
    # row, several fold chains, a partial last pass.
    cases += [(op, dt, 65536 + 8, 264, None) for op in ("cross_entropy", "row_logsumexp")
              for dt in DT]
    # Shifted rows (N not a multiple of the vector: each row read from the
    # aligned address before it; the chunks at both ends element by
    # element): registers and cluster plans, streamed sweeps, read-once.
    cases += [(op, dt, N, M, None) for op in OPS for dt in DT for N in (4095, 65539)]
    cases += [(op, dt, 1000003, 2, None) for op in ("softmax", "layer_norm") for dt in DT]
    cases += [(op, dt, 65537, 264, None) for op in ("cross_entropy", "row_logsumexp")
              for dt in DT]
    # f32 rows of 1M with [N] operands over 32 rows: split over 64 CTAs, two
    # passes each, both kept in shared memory (planner rule 5b).
    cases += [(op, "f32", 1048576, 32, None) for op in ("layer_norm", "rms_norm",
                                                        "rms_norm_residual")]
    # f32 cluster rows with [N] operands, whose epilogue loads them two
    # chunks ahead of their use (session 29): N = 100000 leaves the last
    # chunks of the layout past the row's end.
    cases += [(op, "f32", N, 4, None) for op in ("layer_norm", "layer_norm_nobias", "rms_norm",
                                                  "rms_norm_residual")
              for N in (100000, 131072)]
    # Rows loaded (registers) or copied (async) evict-last in L2: more than a
    # wave of one-CTA rows with a result (planner rule 8, session 41).
    evict = [(op, dt, N, 264, None) for op in ("rms_norm", "layer_norm", "softmax")
             for dt in DT for N in (4096, 16384)]
    # ... and rows over a cluster copied evict-last (session 42): more CTAs
    # than SMs (66 rows of 4 CTAs, 33 of 16); at 262144 RMSNorm f32 and
    # LayerNorm (1-2 MiB of [N] operands) are the rule's exclusions, kept
    # as controls.
    evict += [(op, dt, N, rows, None) for op in ("rms_norm", "layer_norm", "softmax")
              for dt in DT for N, rows in ((65536, 66), (262144, 33))]
    cases += evict
    # RKC_SANITIZE_CASES=quant: the quantized column kernels only;
    # RKC_SANITIZE_CASES=epilogue: f32 rows of 100000-262144 (async-staged
    # clusters, their chunked epilogues);
    # RKC_SANITIZE_CASES=evict: rule 8's rows only;
    # RKC_SANITIZE_CASES=split: the grid tier only (two rows of 1M, and of
    # 1000003 (shifted), each split over the CTAs of a persistent grid that
    # combine their reductions through the workspace; 32 f32 rows of 1M).
    which = os.environ.get("RKC_SANITIZE_CASES")
    if which == "quant":
        cases = []
    elif which == "split":
        cases = [c for c in cases if c[3] in (2, 32) and c[2] in (1048576, 1000003)]
    elif which == "evict":
        cases = evict
    elif which == "epilogue":
        cases = [c for c in cases if c[1] == "f32" and c[2] in (100000, 131072, 262144)]
    # Compile the named ops' aligned kernels up front, in parallel.
    pre = set()
    for op, dt, N, rows, layout in cases:
        if op in ("l2_normalize", "row_logsumexp"):
            continue
        name = {"rms_norm_residual": "rms_norm", "layer_norm_nobias": "layer_norm"}.get(op, op)
        params = {"rms_norm_residual": (("residual", True),),
                  "layer_norm_nobias": (("bias", False),)}.get(op, ())
        pre.add((name, (rows, N), dt, params))
    t0 = time.time()
    with ThreadPoolExecutor(min(16, os.cpu_count() or 1)) as ex:
        list(ex.map(lambda r: _try(lambda: rkc.precompile(r[0], r[1], DT[r[2]], **dict(r[3]))),
                    sorted(pre)))
    print("precompiled %d kernels in %.1f s" % (len(pre), time.time() - t0), flush=True)
    failed = 0
    for c in cases:
        op, dt, N, rows, layout = c
        name = "%s %s M=%d N=%d%s" % (op, dt, rows, N, " " + layout if layout else "")
        try:
            run_case(op, dt, N, rows, layout)
            torch.cuda.synchronize()
            print("ok   " + name, flush=True)
        except Exception as e:
            failed += 1
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            print("FAIL " + name + ": " + msg, flush=True)
            if os.environ.get("RKC_SANITIZE_VERBOSE"):
                traceback.print_exc()
    # Quantized column kernels: tensor-core GEMV with the weights as the A
    # operand (M = 1: 4096 x 4096 and long K; M = 4: odd N, zero points,
    # bias; int8 M = 1; M = 2 over wide N: a cluster of 2; M = 1 with long
    # K ranges per warp: blocks of 8), and with them as
    # B (M = 16); int8 on CUDA cores (4096 x 14336); activations staged in
    # parts while the products run (named barriers of 2 warps, aliased
    # partial sums: M = 16 14336 x 4096; weights as A: M = 8; __syncwarp
    # parts, 16 warps splitting K: int8 M = 12 12288 x 2048). Compared with
    # the float64 reference.
    if which in ("split", "epilogue"):
        qcases = []
    else:
        qcases = [(4, 128, True, 1, 4096, 4096, False), (4, 32, False, 4, 1024, 1000, True),
                  (8, 128, True, 1, 4096, 14336, False), (4, 0, True, 16, 256, 72, True),
                  (4, 128, True, 1, 14336, 1024, False), (8, 128, True, 1, 2048, 4096, True),
                  (4, 64, True, 2, 1024, 34816, False), (4, 128, True, 1, 8192, 8192, False),
                  (4, 128, True, 16, 14336, 4096, False), (4, 128, True, 8, 14336, 4100, True),
                  (8, 64, True, 12, 12288, 2048, False)]
    for bits, G, sym, Mq, K, N, bias in qcases:
        name = "gemv w%d g%d %s M=%d K=%d N=%d%s" % (bits, G, "sym" if sym else "asym", Mq, K, N,
                                                    " bias" if bias else "")
        try:
            w = torch.randn(K, N, device="cuda", dtype=torch.float16)
            q = rkc.quantize(w, bits=bits, group_size=G or K, symmetric=sym)
            wd = rkc.dequantize(q, dtype=torch.float32)
            x = torch.randn(Mq, K, device="cuda", dtype=torch.float16)
            b = torch.randn(N, device="cuda", dtype=torch.float16) if bias else None
            y = rkc.gemv(x, q, bias=b)
            torch.cuda.synchronize()
            ref = cpu(x) @ cpu(wd) + (cpu(b) if bias else 0)
            err = ((cpu(y) - ref).abs().max() / ref.abs().max()).item()
            if not err <= 2e-3:
                raise AssertionError("rel. error %.2e" % err)
            print("ok   " + name, flush=True)
        except Exception as e:
            failed += 1
            print("FAIL " + name + ": " + (str(e).splitlines()[0] if str(e) else type(e).__name__),
                  flush=True)
        cases.append(name)
    print("%d cases, %d failed" % (len(cases), failed), flush=True)
    return 1 if failed else 0


def _try(f):
    try:
        return f()
    except Exception:
        return None


if __name__ == "__main__":
    sys.exit(main())
