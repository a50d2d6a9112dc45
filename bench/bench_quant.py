#!/usr/bin/env python3
"""rkc's quantized decode GEMV (W4A16 / W8A16) against cuBLAS fp16, and the
per-token int8 quantization of a KV-cache-like tensor, in one process, by
the rules of BENCH.md and issue #8. See bench/README.md ("Quantized ops").

    PYTHONPATH=python RKC_LIBRARY=.bundle/lib/librkc.so python3 bench/bench_quant.py [options]
    python3 bench/bench_quant.py --dry-run        # no GPU: fake timings, tests the script

GEMV shapes (K, N) in {(4096, 4096), (4096, 14336), (14336, 4096),
(4096, 128256)}, M in {1, 4, 16}, f16 activations; contenders:
  rkc    bits 4: rkc.gemv with int4 weights (k8 packing, group 128, f16 scales)
         bits 8: rkc.gemv with int8 weights (k4 packing, group 128, f16 scales)
  cublas bits 16: torch.matmul(x, W), W [K, N] float16 (cuBLAS)
Two modes: "graph" (the decode regime: a CUDA graph replays COUNT GEMVs over
COUNT distinct weight matrices, so weights come from HBM; time per GEMV =
graph time / COUNT, median of >= 20 replays timed with CUDA events; COUNT is
48, fewer when 48 copies do not fit in --graph-gib, at least 4) and "single"
(triton.testing.do_bench of one launch, L2 flushed between repetitions).

Bytes (TB/s = bytes / time): quantized weights + scales + activations +
output (cuBLAS: f16 weights + activations + output). The copy roofline is a
1 GiB fp32 copy measured in this process (do_bench), as in bench/bench.py;
each record has frac_roofline = tbps / roofline_tbps and, for rkc,
speedup_vs_cublas = cuBLAS time / rkc time in the same mode at the same
(M, K, N). rkc's output is checked against a float64 reference from the
dequantized weights before it is timed (error allowing the f16 rounding of
the result: <= 2e-3 of max|ref|); a mismatch or a failure is recorded and
the run goes on.

Records: one JSON object per line, appended to
bench/results/<date>-<device>-quant.jsonl (or --out): op, impl, dtype, M, K,
N, bits, mode, ms, tbps, roofline_tbps, frac_roofline, speedup_vs_cublas,
device, commit, date, plus group_size, bytes, count (graph), plan, rel_err,
error.
"""

from __future__ import print_function

import argparse
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "test", "gpu"))   # quant_reference (imports torch lazily)

import bench  # noqa: E402  (bench/bench.py: describe, run_meta, _slug)

SHAPES = ((4096, 4096), (4096, 14336), (14336, 4096), (4096, 128256))
MS = (1, 4, 16)
IMPLS = (("cublas", 16), ("rkc", 4), ("rkc", 8))   # cuBLAS first: rkc's speedups need it
GROUP = 128
GRAPH_COUNT = 48
GRAPH_MIN = 4
GRAPH_REPLAYS = 30
PER_TOKEN_D = 128
PER_TOKEN_TOKENS = 1 << 20          # [2^20, 128] f16 = 256 MiB
TOL = 2e-3
DO_BENCH = dict(warmup=25, rep=100, return_mode="median")
DRY_DIR = os.path.join("/tmp", "rkc-bench-quant-dry-run")
GIB = 1 << 30


def gemv_bytes(bits, M, K, N, group=GROUP):
    """Weights (packed) + scales (f16) + activations + output (f16)."""
    act = 2 * M * K + 2 * M * N
    if bits == 16:
        return 2 * K * N + act
    return K * N * bits // 8 + 2 * (K // group) * N + act


def weight_bytes(bits, K, N, group=GROUP):
    return gemv_bytes(bits, 0, K, N, group)


def per_token_bytes(T, D):
    """Quantize: read f16, write int8 and one f16 scale per row; dequantize:
    the reverse (the same bytes)."""
    return 2 * T * D + T * D + 2 * T


def graph_count(bits, K, N, budget_gib):
    return max(GRAPH_MIN, min(GRAPH_COUNT, int(budget_gib * GIB // weight_bytes(bits, K, N))))


def packed_weights(torch, bits, K, N, count):
    """`count` distinct random quantized weights [K, N] as (packed, scales):
    int32 words, int4 k8 ([K / 8, N], any nibbles) or int8 k4 ([K / 4, N],
    four bytes in [-127, 127] each: the quantizer's range), f16 scales per
    group of GROUP along K."""
    ws = []
    for _ in range(count):
        if bits == 4:
            packed = torch.randint(-2 ** 31, 2 ** 31 - 1, (K // 8, N), device="cuda",
                                   dtype=torch.int32)
        else:
            # Random bytes, so their order within a word does not matter.
            packed = torch.randint(-127, 128, (K // 4, 4 * N), device="cuda",
                                   dtype=torch.int8).view(torch.int32)
        scales = (torch.rand(K // GROUP, N, device="cuda") * 0.004 + 0.001).half()
        ws.append((packed, scales))
    return ws


def replay_ms(torch, g, replays=GRAPH_REPLAYS):
    """Median ms of `replays` replays of CUDA graph g, each timed with CUDA
    events (also bench/experiments/gemv_pdl_sweep.py's timing)."""
    times = []
    for _ in range(replays):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


class NotLowered(Exception):
    pass


# --- the GPU backend ------------------------------------------------------------

class GpuBackend(object):
    dry = False
    pdl = False   # rkc.gemv(..., pdl=True) (--pdl)

    def __init__(self, tuned=False):
        try:
            import torch
        except ImportError as e:
            raise SystemExit("bench_quant: torch is needed (%s); without a GPU use --dry-run" % e)
        if not torch.cuda.is_available():
            raise SystemExit("bench_quant: no CUDA device; use --dry-run to test the script")
        import triton
        from triton.testing import do_bench
        # rkc's heuristic plans (as bench.py: no tuning database), or with
        # --tuned the database's (librkc applies it: shipped rows and the
        # user's $RKC_CACHE_DIR/tuning.jsonl), recorded as "rkc-tuned".
        self.tuned = tuned
        if tuned:
            os.environ.pop("RKC_DISABLE_TUNING_DB", None)
        else:
            os.environ["RKC_DISABLE_TUNING_DB"] = "1"
        import rkc
        import quant_reference
        self.torch, self.triton, self._do_bench, self.rkc = torch, triton, do_bench, rkc
        self.R = quant_reference
        self.rkc_version = rkc.version()
        self.dev = torch.device("cuda")

    def meta(self):
        t = self.torch
        return {"device": t.cuda.get_device_name(), "torch": t.__version__,
                "triton": self.triton.__version__, "cuda": t.version.cuda,
                "rkc": self.rkc_version,
                "rkc_tuning_db": "enabled (impl rkc-tuned)" if self.tuned
                                 else "disabled (RKC_DISABLE_TUNING_DB=1)"}

    def free_gib(self):
        free, _ = self.torch.cuda.mem_get_info()
        return free / GIB

    def roofline_ms(self):
        t = self.torch
        bufs = [t.ones(1 << 28, device="cuda", dtype=t.float32)]      # 1 GiB
        bufs.append(t.empty_like(bufs[0]))
        try:
            return float(self._do_bench(lambda: bufs[1].copy_(bufs[0]), **DO_BENCH))
        finally:
            del bufs[:]
            t.cuda.empty_cache()

    # -- weights: `count` distinct copies --
    def weights(self, impl, bits, K, N, count):
        t, rkc = self.torch, self.rkc
        if impl == "cublas":
            return [t.randn(K, N, device="cuda", dtype=t.float16).mul_(0.02)
                    for _ in range(count)]
        return [rkc.QuantizedTensor(packed, scales, bits=bits, group_size=GROUP, shape=(K, N))
                for packed, scales in packed_weights(t, bits, K, N, count)]

    def fn(self, impl):
        t, rkc = self.torch, self.rkc
        if impl == "cublas":
            return lambda x, w: t.matmul(x, w)
        pdl = self.pdl
        return lambda x, w: rkc.gemv(x, w, pdl=pdl)

    def act(self, M, K):
        return self.torch.randn(M, K, device="cuda", dtype=self.torch.float16)

    def precompile(self, bits, K, N, M):
        """The rkc kernel (compiled before any timing or capture); its plan."""
        t, rkc = self.torch, self.rkc
        try:
            k = rkc.quant.precompile("gemv", (K, N), t.float16, bits=bits, group_size=GROUP,
                                     scale_dtype=t.float16, rows=M)
        except rkc.RkcError as e:
            if self.R.unsupported(e):
                raise NotLowered(str(e).splitlines()[0])
            raise
        return k.plan

    def check(self, ws, M, K):
        """rkc.gemv on the first copy against float64 (errors allowing the
        f16 rounding of the result): (err, raw)."""
        R = self.R
        q = ws[0]
        x = self.act(M, K)
        out = self.rkc.gemv(x, q)
        W = R.dequantize_f32(R.unpack(q.packed, q.bits, True), q.scales, None, GROUP)
        ref = R.gemv(x, W)
        del W
        err, worst, raw = R.gemv_errors(out, ref)
        return max(err, worst * TOL), raw

    def single_ms(self, impl, ws, M, K):
        f = self.fn(impl)
        x = self.act(M, K)
        w = ws[0]
        f(x, w)
        return float(self._do_bench(lambda: f(x, w), **DO_BENCH))

    def graph_ms(self, impl, ws, M, K):
        """ms per GEMV of a CUDA graph of len(ws) GEMVs over distinct weights,
        the median of GRAPH_REPLAYS replays each timed with CUDA events."""
        t = self.torch
        f = self.fn(impl)
        x = self.act(M, K)
        s = t.cuda.Stream()
        s.wait_stream(t.cuda.current_stream())
        with t.cuda.stream(s):                 # warm up outside the capture
            for w in ws[:3]:
                f(x, w)
        t.cuda.current_stream().wait_stream(s)
        t.cuda.synchronize()
        g = t.cuda.CUDAGraph()
        outs = []
        try:
            with t.cuda.graph(g):
                for w in ws:
                    outs.append(f(x, w))
            for _ in range(3):
                g.replay()
            t.cuda.synchronize()
            return self._replay_ms(g) / len(ws)
        finally:
            del outs[:]
            del g

    def _replay_ms(self, g):
        return replay_ms(self.torch, g)

    def copy_graph_ms(self, nbytes, count):
        """The same graph mode for a plain copy of nbytes (the reference of
        the mode: what a kernel that only streams its bytes reaches)."""
        t = self.torch
        n = nbytes // 4
        srcs = [t.ones(n, device="cuda", dtype=t.float32) for _ in range(count)]
        dst = t.empty(n, device="cuda", dtype=t.float32)
        ws = [(s_, dst) for s_ in srcs]
        try:
            g = t.cuda.CUDAGraph()
            dst.copy_(srcs[0])
            t.cuda.synchronize()
            with t.cuda.graph(g):
                for s_, d in ws:
                    d.copy_(s_)
            g.replay()
            t.cuda.synchronize()
            return self._replay_ms(g) / count
        finally:
            del srcs[:], ws[:]

    def per_token(self, T, D, impl, op="quantize"):
        """ms of the per-token int8 quantization of a [T, D] f16 tensor, or
        (op "dequantize") of its dequantization back to f16."""
        t, rkc = self.torch, self.rkc
        x = t.randn(T, D, device="cuda", dtype=t.float16)
        if op == "dequantize":
            qr, sr, _ = self.R.quantize(x, 8, 0, True, t.float16, axis=-1)
            qr = qr.to(t.int8)
            want = (qr.float() * sr.float()).half()
            if impl == "rkc":
                qt = rkc.QuantizedTensor(qr, sr, None, bits=8, group_size=0, shape=(T, D),
                                         axis=-1)
                try:
                    y = rkc.dequantize(qt, t.float16)
                except rkc.RkcError as e:
                    if self.R.unsupported(e):
                        raise NotLowered(str(e).splitlines()[0])
                    raise
                if not t.equal(y, want):
                    raise RuntimeError("mismatch: rkc.dequantize(axis=-1) differs from the "
                                       "reference")
                del y
                f = lambda: rkc.dequantize(qt, t.float16)  # noqa: E731
            else:
                f = lambda: (qr.float() * sr.float()).half()  # noqa: E731
            f()
            return float(self._do_bench(f, **DO_BENCH))
        if impl == "rkc":
            try:
                q = rkc.quantize(x, bits=8, group_size=0, axis=-1)
            except rkc.RkcError as e:
                if self.R.unsupported(e):
                    raise NotLowered(str(e).splitlines()[0])
                raise
            qr, sr, _ = self.R.quantize(x, 8, 0, True, t.float16, axis=-1)
            if not (t.equal(q.packed, qr.to(t.int8)) and t.equal(q.scales, sr)):
                raise RuntimeError("mismatch: rkc.quantize(axis=-1) differs from the reference")
            del q, qr, sr
            f = lambda: rkc.quantize(x, bits=8, group_size=0, axis=-1)  # noqa: E731
        else:
            def f():
                s = (x.float().abs().amax(-1, keepdim=True) / 127).half()
                q = t.clamp(t.round(x.float() / s.float()), -127, 127).to(t.int8)
                return q, s
        f()
        return float(self._do_bench(f, **DO_BENCH))

    def cleanup(self):
        import gc
        gc.collect()
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()


# --- the dry-run backend: plausible fake timings, no torch ---------------------------

class FakeBackend(object):
    dry = True
    TBPS = {("cublas", "graph"): 2.5, ("cublas", "single"): 2.2, ("rkc", "graph"): 2.6,
            ("rkc", "single"): 2.1, ("copy", "graph"): 2.74}

    def __init__(self, tuned=False):
        self.rng = random.Random(8)

    def meta(self):
        return {"device": "dry-run (fake timings)", "torch": None, "triton": None, "cuda": None,
                "rkc": None}

    def free_gib(self):
        return 79.0

    def roofline_ms(self):
        return 2 * GIB / 3.0e12 * 1e3

    def weights(self, impl, bits, K, N, count):
        return [(impl, bits, K, N)] * count

    def precompile(self, bits, K, N, M):
        if bits == 8 and N == 128256 and M == 16:
            raise RuntimeError("injected by --dry-run: a fake compile failure")
        return "cols=4,warps=8,cluster=%d,unroll=8" % (8 if N <= 4096 else 1)

    def check(self, ws, M, K):
        return 4e-4, 1.5e-3

    def _ms(self, key, ws, M):
        impl, bits, K, N = ws[0]
        tb = self.TBPS[key] * (0.9 + 0.1 * self.rng.random()) * (1.0 if M < 16 else 0.93)
        return gemv_bytes(bits, M, K, N) / (tb * 1e12) * 1e3

    def single_ms(self, impl, ws, M, K):
        return self._ms((impl, "single"), ws, M)

    def graph_ms(self, impl, ws, M, K):
        return self._ms((impl, "graph"), ws, M)

    def copy_graph_ms(self, nbytes, count):
        return 2 * nbytes / 2.74e12 * 1e3

    def per_token(self, T, D, impl, op="quantize"):
        if impl == "rkc" and op == "quantize":
            raise NotLowered("injected by --dry-run: not lowered yet")
        return per_token_bytes(T, D) / 1.1e12 * 1e3

    def cleanup(self):
        pass


# --- the run -------------------------------------------------------------------------

class Runner(object):
    def __init__(self, backend, args, out, meta):
        self.b, self.args, self.out, self.meta = backend, args, out, meta
        self.roofline = None
        self.t0 = time.time()
        self.cublas = {}        # (mode, M, K, N) -> ms
        self.summary = []
        self.notes = []         # lines of the per-token part
        self.plans = {}         # (bits, K, N, M) -> rkc's plan, or the compile's exception

    def log(self, s):
        print("[%6.1fs] %s" % (time.time() - self.t0, s), flush=True)

    def emit(self, rec):
        r = {"kind": rec.pop("kind", "throughput")}
        r.update(rec)
        for k in ("device", "commit", "lib_commit", "date", "run_id", "torch", "triton", "cuda",
                  "rkc", "dirty", "dry_run"):
            if k in self.meta and k not in r:
                r[k] = self.meta[k]
        r["time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(self.out, "a") as f:
            f.write(json.dumps(r, sort_keys=True) + "\n")
        return r

    def record(self, op, impl, M, K, N, bits, mode, ms=None, nbytes=None, error=None, **extra):
        rec = {"op": op, "impl": self.label(impl), "dtype": "f16", "M": M, "K": K, "N": N, "bits": bits,
               "mode": mode, "ms": None, "tbps": None, "roofline_tbps": self.roofline,
               "frac_roofline": None, "speedup_vs_cublas": None}
        if op == "gemv" and bits != 16:
            rec["group_size"] = GROUP
        if impl == "rkc" and self.args.pdl:
            rec["pdl"] = True
        if nbytes is not None:
            rec["bytes"] = nbytes
        if error is not None:
            rec["error"] = error
        elif ms is not None:
            tbps = nbytes / (ms * 1e-3) / 1e12
            rec.update(ms=ms, us=ms * 1e3, tbps=tbps,
                       frac_roofline=(tbps / self.roofline) if self.roofline else None)
            if op == "gemv":
                if impl == "cublas":
                    self.cublas[(mode, M, K, N)] = ms
                else:
                    c = self.cublas.get((mode, M, K, N))
                    rec["speedup_vs_cublas"] = (c / ms) if c else None
        rec.update(extra)
        return self.emit(rec)

    def label(self, impl):
        """The recorded name of a contender: rkc with the tuning database
        (--tuned) is "rkc-tuned"."""
        return "rkc-tuned" if impl == "rkc" and self.args.tuned else impl

    def measure_roofline(self):
        try:
            ms = self.b.roofline_ms()
        except Exception as e:
            self.emit({"kind": "roofline", "op": "copy", "impl": "copy", "dtype": "f32",
                       "mode": "single", "error": bench.describe(e)})
            self.log("copy roofline FAILED: %s" % bench.describe(e))
            return
        tbps = 2 * GIB / (ms * 1e-3) / 1e12
        self.roofline = tbps
        self.emit({"kind": "roofline", "op": "copy", "impl": "copy", "dtype": "f32", "M": 1,
                   "K": None, "N": 1 << 28, "bits": 32, "mode": "single", "ms": ms,
                   "bytes": 2 * GIB, "tbps": tbps, "roofline_tbps": tbps, "frac_roofline": 1.0})
        self.log("copy roofline: 1 GiB fp32 in %.3f ms = %.3f TB/s" % (ms, tbps))

    def _plan(self, bits, K, N, M):
        try:
            return self.b.precompile(bits, K, N, M)
        except Exception as e:
            return e

    def precompile(self):
        """Compiles every rkc kernel of the run up front, on several threads
        (before any timing or graph capture)."""
        from concurrent.futures import ThreadPoolExecutor
        a = self.args
        reqs = [(bits, K, N, M) for impl, bits in a.impls if impl == "rkc"
                for K, N in a.shapes for M in a.ms]
        if not reqs or "gemv" in a.skip:
            return
        t0 = time.time()
        with ThreadPoolExecutor(min(16, os.cpu_count() or 1)) as ex:
            for r, p in zip(reqs, ex.map(lambda r: self._plan(*r), reqs)):
                self.plans[r] = p
        bad = sum(isinstance(p, Exception) for p in self.plans.values())
        self.log("compiled %d rkc kernels in %.1f s (%d failed)" % (len(reqs), time.time() - t0,
                                                                   bad))

    def gemv_shape(self, K, N):
        b, a = self.b, self.args
        # Reference of the graph mode: a copy of the W4A16 weight bytes.
        if "graph" in a.modes and "copy" not in a.skip:
            nbytes = weight_bytes(4, K, N)
            count = graph_count(4, K, N, a.graph_gib)
            try:
                ms = b.copy_graph_ms(nbytes, count)
                r = self.record("copy", "copy", 1, K, N, 4, "graph", ms=ms, nbytes=2 * nbytes,
                                count=count)
                self.log("K=%d N=%d copy of the W4 bytes (%.1f MiB), graph x%d: %.2f TB/s"
                         % (K, N, nbytes / 2 ** 20, count, r["tbps"]))
            except Exception as e:
                self.record("copy", "copy", 1, K, N, 4, "graph", nbytes=2 * nbytes,
                            error=bench.describe(e), count=count)
            b.cleanup()
        for impl, bits in IMPLS:
            if (impl, bits) not in a.impls:
                continue
            budget = min(a.graph_gib, max(b.free_gib() - 4.0, 1.0))
            count = graph_count(bits, K, N, budget) if "graph" in a.modes else 1
            plans = {}
            if impl == "rkc":
                for M in a.ms:
                    plans[M] = self.plans.get((bits, K, N, M))
                    if plans[M] is None:
                        plans[M] = self._plan(bits, K, N, M)
            try:
                ws = b.weights(impl, bits, K, N, count)
            except Exception as e:
                msg = "allocating %d weight copies: %s" % (count, bench.describe(e))
                for M in a.ms:
                    for mode in a.modes:
                        self.record("gemv", impl, M, K, N, bits, mode, error=msg, count=count)
                b.cleanup()
                continue
            for M in a.ms:
                nbytes = gemv_bytes(bits, M, K, N)
                extra = {}
                p = plans.get(M)
                if isinstance(p, Exception):
                    msg = ("not lowered yet: %s" % p) if isinstance(p, NotLowered) \
                        else bench.describe(p)
                    for mode in a.modes:
                        self.record("gemv", impl, M, K, N, bits, mode, nbytes=nbytes, error=msg)
                    self.summary.append((impl, bits, M, K, N, "ERROR", msg[:80]))
                    continue
                if p is not None:
                    extra["plan"] = p
                if impl == "rkc":
                    try:
                        err, raw = b.check(ws, M, K)
                        extra.update(rel_err=raw, rel_err_beyond_rounding=err)
                        if not err <= TOL:
                            msg = "mismatch %.3g (> %g of max|ref| vs float64)" % (err, TOL)
                            for mode in a.modes:
                                self.record("gemv", impl, M, K, N, bits, mode, nbytes=nbytes,
                                            error=msg, **extra)
                            self.summary.append((impl, bits, M, K, N, "MISMATCH", msg))
                            continue
                    except Exception as e:
                        msg = "correctness check: " + bench.describe(e)
                        for mode in a.modes:
                            self.record("gemv", impl, M, K, N, bits, mode, nbytes=nbytes,
                                        error=msg, **extra)
                        self.summary.append((impl, bits, M, K, N, "ERROR", msg[:80]))
                        b.cleanup()
                        continue
                res = {}
                for mode in a.modes:
                    try:
                        if mode == "graph":
                            ms = b.graph_ms(impl, ws, M, K)
                            r = self.record("gemv", impl, M, K, N, bits, mode, ms=ms,
                                            nbytes=nbytes, count=len(ws), **extra)
                        else:
                            ms = b.single_ms(impl, ws, M, K)
                            r = self.record("gemv", impl, M, K, N, bits, mode, ms=ms,
                                            nbytes=nbytes, **extra)
                        res[mode] = r
                    except Exception as e:
                        self.record("gemv", impl, M, K, N, bits, mode, nbytes=nbytes,
                                    error=bench.describe(e), **extra)
                        res[mode] = None
                        b.cleanup()
                self.summary.append((impl, bits, M, K, N, res, None))
                self.log("%-6s W%-2d M=%-2d K=%-5d N=%-6d %s" % (
                    impl, bits, M, K, N, " | ".join(
                        "%s %s" % (m, "ERROR" if r is None else "%.1f us %.2f TB/s (%.2f)%s" % (
                            r["us"], r["tbps"], r["frac_roofline"] or 0,
                            "" if r["speedup_vs_cublas"] is None else
                            " %.2fx cuBLAS" % r["speedup_vs_cublas"]))
                        for m, r in sorted(res.items()))))
            ws = None
            b.cleanup()

    def per_token(self):
        T, D = self.args.tokens, PER_TOKEN_D
        nbytes = per_token_bytes(T, D)
        for op in ("quantize", "dequantize"):
            for impl in ("rkc", "torch"):
                try:
                    ms = self.b.per_token(T, D, impl, op)
                    r = self.record(op + "_per_token", impl, T, None, D, 8, "single", ms=ms,
                                    nbytes=nbytes, group_size=0)
                    line = ("per-token int8 %s [%d, %d] f16 (%d MiB) %s: %.3f ms %.2f TB/s "
                            "(%.2f of the roofline)" % (op, T, D, 2 * T * D >> 20, impl, ms,
                                                        r["tbps"], r["frac_roofline"] or 0))
                    self.log(line)
                    self.notes.append(line)
                except Exception as e:
                    msg = (("not lowered yet: %s" % e) if isinstance(e, NotLowered)
                           else bench.describe(e))
                    self.record(op + "_per_token", impl, T, None, D, 8, "single",
                                nbytes=nbytes, error=msg, group_size=0)
                    self.log("per-token int8 %s %s: %s" % (op, impl, msg))
                    self.notes.append("per-token int8 %s %s: %s" % (op, impl, msg[:100]))
                self.b.cleanup()

    def table(self):
        lines = ["rkc quantized GEMV%s%s vs cuBLAS fp16 | %s | %s | commit %s | roofline %s TB/s"
                 % (" (PDL launches)" if self.args.pdl else "",
                    " (tuning database: rkc-tuned)" if self.args.tuned else "",
                    self.meta.get("device"), self.meta.get("date"), self.meta.get("commit"),
                    "%.2f" % self.roofline if self.roofline else "?"),
                 "%-9s %-3s %-3s %-13s  %-28s  %-28s" % ("impl", "W", "M", "K x N",
                                                          "graph us TB/s frac xcuBLAS",
                                                          "single us TB/s frac xcuBLAS")]
        for impl, bits, M, K, N, res, msg in self.summary:
            impl = self.label(impl)
            if not isinstance(res, dict):
                lines.append("%-9s %-3d %-3d %-13s  %s %s" % (impl, bits, M, "%dx%d" % (K, N), res,
                                                               msg or ""))
                continue
            cells = []
            for mode in ("graph", "single"):
                r = res.get(mode)
                if r is None:
                    cells.append("%-28s" % ("-" if mode not in res else "ERROR"))
                else:
                    cells.append("%-28s" % ("%7.1f %5.2f %4.2f %s" % (
                        r["us"], r["tbps"], r["frac_roofline"] or 0,
                        "" if r["speedup_vs_cublas"] is None else "%.2fx" % r["speedup_vs_cublas"])))
            lines.append("%-9s %-3d %-3d %-13s  %s" % (impl, bits, M, "%dx%d" % (K, N),
                                                        "  ".join(cells)))
        return "\n".join(lines + self.notes)


def _pairs(s):
    out = []
    for p in s.split(","):
        p = p.strip().lower().replace(" ", "")
        if not p:
            continue
        k, _, n = p.partition("x")
        out.append((int(k), int(n)))
    return tuple(out)


def _impls(s):
    names = {"cublas": ("cublas", 16), "w4": ("rkc", 4), "w8": ("rkc", 8),
             "rkc-w4": ("rkc", 4), "rkc-w8": ("rkc", 8)}
    out = []
    for v in s.split(","):
        v = v.strip()
        if v not in names:
            raise SystemExit("bench_quant: unknown impl %r (one of: cublas, w4, w8)" % v)
        out.append(names[v])
    return tuple(out)


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", type=_pairs, default=SHAPES,
                   help="K x N pairs, e.g. 4096x4096,4096x14336 (default: the four of issue #8)")
    p.add_argument("--ms", default=",".join(map(str, MS)),
                   help="activation rows M (default 1,4,16)")
    p.add_argument("--impls", type=_impls, default=IMPLS, help="cublas,w4,w8 (default: all)")
    p.add_argument("--modes", default="graph,single", help="graph,single (default: both)")
    p.add_argument("--graph-gib", type=float, default=60.0,
                   help="GiB the graph mode's weight copies may take (default 60)")
    p.add_argument("--tokens", type=int, default=PER_TOKEN_TOKENS,
                   help="rows of the per-token quantize part ([T, 128] f16; default 2^20 = 256 MiB)")
    p.add_argument("--skip", default="", help="parts to leave out: gemv, per_token, copy")
    p.add_argument("--quick", action="store_true", help="M = 1 only, graph mode only")
    p.add_argument("--pdl", action="store_true",
                   help="launch rkc's GEMVs with programmatic dependent launch "
                        "(rkc.gemv(..., pdl=True); records get \"pdl\": true)")
    p.add_argument("--tuned", action="store_true",
                   help="rkc with its tuning database (shipped rows and the user's; recorded as "
                        "impl rkc-tuned) instead of the heuristic plans")
    p.add_argument("--out", default=None, help="jsonl to append to (default: "
                   "RESULTS_DIR/<date>-<device>-quant.jsonl)")
    p.add_argument("--results-dir", default=None,
                   help="default bench/results (dry run: %s)" % DRY_DIR)
    p.add_argument("--dry-run", action="store_true", help="fake timings, no torch/GPU")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    args.ms = tuple(int(m) for m in args.ms.split(",") if m.strip())
    args.modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    args.skip = set(s.strip() for s in args.skip.split(",") if s.strip())
    if args.quick:
        args.ms, args.modes = (1,), ("graph",)
    bad = [m for m in args.modes if m not in ("graph", "single")]
    if bad or any(not 1 <= m <= 16 for m in args.ms):
        raise SystemExit("bench_quant: modes are graph, single; M is 1..16")
    backend = FakeBackend(args.tuned) if args.dry_run else GpuBackend(args.tuned)
    backend.pdl = args.pdl
    meta = bench.run_meta(backend)
    results_dir = args.results_dir or (DRY_DIR if args.dry_run else os.path.join(HERE, "results"))
    out = args.out or os.path.join(results_dir, "%s-%s-quant.jsonl"
                                   % (meta["date"], bench._slug(meta["device"])))
    d = os.path.dirname(os.path.abspath(out))
    os.makedirs(d, exist_ok=True)
    r = Runner(backend, args, out, meta)
    r.log("bench_quant: %s | commit %s | shapes %s | M %s | impls %s | modes %s%s -> %s"
          % (meta["device"], meta["commit"], " ".join("%dx%d" % s for s in args.shapes),
             ",".join(map(str, args.ms)), ",".join("%s-w%d" % i for i in args.impls),
             ",".join(args.modes), " | rkc with PDL" if args.pdl else "", out))
    r.measure_roofline()
    r.precompile()
    if "gemv" not in args.skip:
        for K, N in args.shapes:
            r.gemv_shape(K, N)
    if "per_token" not in args.skip:
        r.per_token()
    text = r.table()
    summary = os.path.splitext(out)[0] + "-summary.txt"
    with open(summary, "w") as f:
        f.write(text + "\n")
    r.log("done in %.0f s: %s, %s" % (time.time() - r.t0, out, summary))
    print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
