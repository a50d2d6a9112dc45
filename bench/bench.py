#!/usr/bin/env python3
"""rkc benchmark: the copy roofline, rkc, PyTorch eager and torch.compile on
the row ops (RMSNorm, LayerNorm, softmax, log-softmax, cross-entropy forward),
in one process, by the rules of BENCH.md. See bench/README.md.

    PYTHONPATH=python RKC_LIBRARY=.bundle/lib/librkc.so python3 bench/bench.py [options]
    python3 bench/bench.py --dry-run            # no GPU: fake timings, tests the script
    python3 bench/bench.py --report bench/results/X.jsonl [Y.jsonl ...]

Parts (--parts): "sweep" (M*N = 2^27, N = 256 ... 262144 and 1M, single
launch), "small" (M in {1, 16, 128}, N in {4096, 8192}, bf16: single launch
and a CUDA graph of 48 launches over 48 distinct buffers), "latency" (rkc cold
compile, cache hits, host launch overhead). Every measurement is appended to a
jsonl file as soon as it is made; a failure is recorded and the run goes on.
"""

from __future__ import print_function

import argparse
import ctypes
import datetime
import gc
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import report  # noqa: E402  (bench/report.py)

# --- what is measured --------------------------------------------------------

TOTAL = 1 << 27                                   # M * N of the sweep
OPS = report.OPS
OP_DTYPES = {"rms_norm": ("bf16", "f32"), "layer_norm": ("bf16", "f32"),
             "softmax": ("bf16", "f32", "f16"), "log_softmax": ("bf16", "f32"),
             "cross_entropy": ("bf16", "f32")}
NS_FULL = tuple(1 << k for k in range(8, 19)) + (1 << 20,)   # 256 ... 262144, and 1M (M = 128)
NS_QUICK = (256, 1024, 4096, 16384, 65536, 262144)
SMALL_MS = (1, 16, 128)
SMALL_NS = (4096, 8192)
SMALL_DTYPE = "bf16"
GRAPH_BUFFERS = 48
COLD_NS = (4096, 262144)                          # cold-compile shapes (M = 2^27 / N), bf16
LAUNCH_ITERS = 10000
IMPLS = ("rkc", "rkc-tuned", "torch", "torch.compile")
DEFAULT_IMPLS = ("rkc", "rkc-tuned", "torch", "torch.compile")
IMPL_ALIASES = {"eager": "torch", "compile": "torch.compile", "inductor": "torch.compile",
                "tuned": "rkc-tuned"}
PARTS = ("sweep", "small", "latency")
TOL = {"bf16": 1e-2, "f16": 1e-2, "f32": 1e-4}    # relative L2 error vs torch eager
ES = {"bf16": 2, "f16": 2, "f32": 4}
EPS_RMS = 1e-6
EPS_LN = 1e-5
DO_BENCH = dict(warmup=25, rep=100, return_mode="median")
DRY_DIR = os.path.join("/tmp", "rkc-bench-dry-run")


def model_bytes(op, impl, dtype, M, N):
    """Bytes each input read once and each output written once (BENCH.md)."""
    es = ES[dtype]
    x = M * N * es
    if op == "rms_norm":
        return 2 * x + N * es                       # x, w -> y
    if op == "layer_norm":
        return 2 * x + 2 * N * es                   # x, w, b -> y
    if op in ("softmax", "log_softmax", "copy"):
        return 2 * x
    if op == "cross_entropy":
        # logits + int64 targets; rkc writes loss and lse (f32 each), torch
        # writes the loss only, in the logits' dtype.
        out = 8 * M if impl.startswith("rkc") else es * M
        return x + 8 * M + out
    raise ValueError(op)


class ContextLost(Exception):
    """The CUDA context is unusable (a sticky error): nothing more can run."""


class NotAvailable(Exception):
    pass


def describe(e):
    s = "%s: %s" % (type(e).__name__, e)
    s = " ".join(s.split())
    return s if len(s) <= 600 else s[:597] + "..."


def tuning_rows(device_name, rkc_version):
    """The tuning database rows that librkc would apply on this GPU: the
    shipped default (data/tuning/*.jsonl) and the user's
    ($RKC_CACHE_DIR/tuning.jsonl, default ~/.cache/rkc), later rows winning,
    keyed by (kernel name, dtype, shapes)."""
    files = sorted(
        os.path.join(ROOT, "data", "tuning", f)
        for f in os.listdir(os.path.join(ROOT, "data", "tuning")) if f.endswith(".jsonl"))
    cache = os.environ.get("RKC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "rkc")
    files.append(os.path.join(cache, "tuning.jsonl"))
    rows = {}
    for path in files:
        try:
            with open(path) as f:
                lines = f.readlines()
        except OSError:
            continue
        for line in lines:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if (not isinstance(r, dict) or r.get("format") != 1 or r.get("rkc") != rkc_version
                    or str(r.get("gpu", "")).split("|")[0] != device_name):
                continue
            rows[(r.get("name"), r.get("dtype"), r.get("shapes"))] = r
    return rows


def rkc_tuned_ops(rkc, device_name):
    """The "rkc-tuned" contender: rkc's kernels with the plans of the tuning
    database. Impl "rkc" is the heuristic plan: the GpuBackend sets
    RKC_DISABLE_TUNING_DB=1 before librkc is loaded, so a database that the
    binding applies transparently cannot leak into it. Here the rows are
    read from the database files (tuning_rows) and each tuned shape runs the
    binding's own spec compiled with the row's schedule (rkc.compile(...,
    schedule=...)); a shape without a row of its own runs the heuristic
    (librkc would also try the nearest tuned row length, which this
    contender does not reproduce). Raises NotAvailable without rows."""
    from rkc import _spec
    rows = tuning_rows(device_name, rkc.version())
    if not rows:
        raise NotAvailable("no tuning database rows for %s and rkc %s" % (device_name, rkc.version()))
    specs = {"rms_norm": _spec.with_eps(_spec.spec_text("rms_norm"), EPS_RMS),
             "layer_norm": _spec.with_eps(_spec.spec_text("layer_norm"), EPS_LN),
             "softmax": _spec.spec_text("softmax"), "log_softmax": _spec.spec_text("log_softmax"),
             "cross_entropy": _spec.with_ignore_index(_spec.spec_text("cross_entropy"), -100)}
    arg = {"cross_entropy": "logits"}
    names = {"bfloat16": "bf16", "float32": "f32", "float16": "f16"}
    compiled = {}
    heuristic = {"rms_norm": lambda x, w: rkc.rms_norm(x, w, eps=EPS_RMS),
                 "layer_norm": lambda x, w, b: rkc.layer_norm(x, w, b, eps=EPS_LN),
                 "softmax": rkc.softmax, "log_softmax": rkc.log_softmax,
                 "cross_entropy": lambda x, tg: rkc.cross_entropy(x, tg, reduction="none")}

    def make(op):
        def run(x, *rest):
            M, N = x.shape
            dt = names[str(x.dtype).replace("torch.", "")]
            row = rows.get(("rkc_" + op, dt, "%s=%dx%d" % (arg.get(op, "x"), M, N)))
            if row is None:
                return heuristic[op](x, *rest)
            f = compiled.get((op, row["schedule"]))
            if f is None:
                f = rkc.compile(specs[op], spec_name=op + ".mlir", schedule=row["schedule"])
                compiled[(op, row["schedule"])] = f
            out = f(x, *rest)
            return out[0] if op == "cross_entropy" else out
        return run

    return {op: make(op) for op in specs}


# --- the GPU backend -----------------------------------------------------------

_TORCH_DTYPE_NAMES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "f64": "float64",
                      "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8", "i1": "bool"}


class GpuBackend(object):
    """Measures on the current CUDA device with torch, triton and rkc."""

    dry = False

    def __init__(self):
        try:
            import torch
        except ImportError as e:
            raise SystemExit("bench: torch is needed (%s); without a GPU use --dry-run" % e)
        if not torch.cuda.is_available():
            raise SystemExit("bench: no CUDA device (never time without a GPU); use --dry-run to "
                             "test the script")
        import torch.nn.functional as F
        import triton
        from triton.testing import do_bench
        self.torch, self.F, self.triton, self._do_bench = torch, F, triton, do_bench
        self.tdt = {"bf16": torch.bfloat16, "f32": torch.float32, "f16": torch.float16}
        self._fns = {}
        self.rkc = None
        self.rkc_error = None
        # Impl "rkc" is the heuristic plan: keep any tuning database out of it.
        os.environ["RKC_DISABLE_TUNING_DB"] = "1"
        try:
            import rkc
            self.rkc = rkc
            self.rkc_version = rkc.version()       # loads librkc now: fail early and loudly
        except Exception as e:
            self.rkc_error = describe(e)
            self.rkc_version = None
            print("WARNING: rkc is not usable (%s): every rkc measurement will record this error. "
                  "Run with PYTHONPATH=python RKC_LIBRARY=.bundle/lib/librkc.so" % self.rkc_error,
                  flush=True)
        self._config_dynamo()

    def meta(self):
        t = self.torch
        return {"device": t.cuda.get_device_name(), "torch": t.__version__,
                "triton": self.triton.__version__, "cuda": t.version.cuda, "rkc": self.rkc_version,
                "rkc_tuning_db": "disabled (RKC_DISABLE_TUNING_DB=1)"}

    def _config_dynamo(self):
        try:
            import torch._dynamo as dynamo
        except Exception:
            return
        # One compiled function per (op, dtype) is recompiled per shape
        # (dynamic=False): lift Dynamo's per-function recompile limits.
        for name, val in (("cache_size_limit", 256), ("recompile_limit", 256),
                          ("accumulated_cache_size_limit", 4096),
                          ("accumulated_recompile_limit", 4096)):
            try:
                if hasattr(dynamo.config, name):
                    setattr(dynamo.config, name, val)
            except Exception:
                pass

    # -- tensors and functions --
    def make_inputs(self, op, dtype, M, N):
        t = self.torch
        g = dict(device="cuda", dtype=self.tdt[dtype])
        x = t.randn(M, N, **g)
        if op == "rms_norm":
            return (x, t.randn(N, **g))
        if op == "layer_norm":
            return (x, t.randn(N, **g), t.randn(N, **g))
        if op in ("softmax", "log_softmax"):
            return (x,)
        if op == "cross_entropy":
            return (x, t.randint(0, N, (M,), device="cuda", dtype=t.int64))
        raise ValueError(op)

    def copy_inputs(self, dtype, M, N):
        t = self.torch
        x = t.randn(M, N, device="cuda", dtype=self.tdt[dtype])
        return (x, t.empty_like(x))

    @staticmethod
    def copy_fn(x, y):
        return y.copy_(x)

    def _eager(self, op):
        """A new Python function for `op` (torch eager; also what
        torch.compile compiles)."""
        F, t = self.F, self.torch
        if op == "rms_norm":
            if hasattr(F, "rms_norm"):
                def f(x, w):
                    return F.rms_norm(x, (x.shape[-1],), w, eps=EPS_RMS)
            else:  # pragma: no cover - torch < 2.4
                def f(x, w):
                    xf = x.float()
                    y = xf * t.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS_RMS)
                    return (y * w.float()).to(x.dtype)
            return f
        if op == "layer_norm":
            def f(x, w, b):
                return F.layer_norm(x, (x.shape[-1],), w, b, eps=EPS_LN)
            return f
        if op == "softmax":
            def f(x):
                return t.softmax(x, -1)
            return f
        if op == "log_softmax":
            def f(x):
                return t.log_softmax(x, -1)
            return f
        if op == "cross_entropy":
            def f(logits, target):
                return F.cross_entropy(logits, target, reduction="none")
            return f
        raise ValueError(op)

    def _rkc(self, op):
        if self.rkc is None:
            raise RuntimeError("rkc is not usable: %s" % self.rkc_error)
        rkc = self.rkc
        return {"rms_norm": lambda x, w: rkc.rms_norm(x, w, eps=EPS_RMS),
                "layer_norm": lambda x, w, b: rkc.layer_norm(x, w, b, eps=EPS_LN),
                "softmax": lambda x: rkc.softmax(x),
                "log_softmax": lambda x: rkc.log_softmax(x),
                "cross_entropy": lambda x, tg: rkc.cross_entropy(x, tg, reduction="none")}[op]

    def tuned_available(self):
        if self.rkc is None:
            return False, "rkc is not usable: %s" % self.rkc_error
        try:
            self._tuned = rkc_tuned_ops(self.rkc, self.torch.cuda.get_device_name())
            return True, ""
        except NotAvailable as e:
            return False, str(e)

    def impl_fn(self, op, impl, dtype):
        key = (op, impl, dtype)
        fn = self._fns.get(key)
        if fn is not None:
            return fn
        if impl == "torch":
            fn = self._eager(op)
        elif impl == "torch.compile":
            # Once per (op, dtype); Dynamo recompiles it for each new shape.
            fn = self.torch.compile(self._eager(op), dynamic=False)
        elif impl == "rkc":
            fn = self._rkc(op)
        elif impl == "rkc-tuned":
            fn = self._tuned[op]
        else:
            raise ValueError(impl)
        self._fns[key] = fn
        return fn

    # -- timing --
    def sync(self):
        self.torch.cuda.synchronize()

    def call(self, fn, args):
        return fn(*args)

    def first_call(self, fn, args):
        self.sync()
        t0 = time.perf_counter()
        out = fn(*args)
        self.sync()
        return out, (time.perf_counter() - t0) * 1e3

    def bench(self, fn, args):
        return float(self._do_bench(lambda: fn(*args), **DO_BENCH))

    def graph_bench(self, fn, arg_sets):
        """ms per launch of a CUDA graph that replays fn over every arg set."""
        t = self.torch
        s = t.cuda.Stream()
        s.wait_stream(t.cuda.current_stream())
        with t.cuda.stream(s):                 # warm up outside the capture
            for a in arg_sets[:3]:
                fn(*a)
        t.cuda.current_stream().wait_stream(s)
        t.cuda.synchronize()
        g = t.cuda.CUDAGraph()
        outs = []
        try:
            with t.cuda.graph(g):
                for a in arg_sets:
                    outs.append(fn(*a))       # kept alive: 48 distinct output buffers
            g.replay()
            t.cuda.synchronize()
            return float(self._do_bench(g.replay, **DO_BENCH)) / len(arg_sets)
        finally:
            del outs[:]
            del g

    def rel_err(self, out, ref):
        t = self.torch
        a = out.detach().reshape(-1).double()
        b = ref.detach().reshape(-1).double()
        if a.numel() != b.numel():
            return float("inf")
        num = t.linalg.vector_norm(a - b).item()
        den = t.linalg.vector_norm(b).item()
        if den > 0:
            return num / den
        return 0.0 if num == 0 else float("inf")

    def plan(self, op, impl, dtype, M, N):
        if impl != "rkc" or self.rkc is None:
            return None
        try:
            return self.rkc.precompile(op, (M, N), self.tdt[dtype]).plan
        except Exception:
            return None

    def roofline_ms(self):
        t = self.torch
        bufs = [t.empty(1 << 28, device="cuda", dtype=t.float32).fill_(1.0)]   # 1 GiB
        bufs.append(t.empty_like(bufs[0]))
        try:
            return float(self._do_bench(lambda: bufs[1].copy_(bufs[0]), **DO_BENCH))
        finally:
            del bufs[:]
            t.cuda.empty_cache()

    def recover(self):
        """After a failure: free what it left; raise ContextLost when the
        CUDA context is dead (a sticky error such as an illegal address)."""
        gc.collect()
        try:
            self.torch.cuda.synchronize()
        except Exception as e:
            raise ContextLost(describe(e))
        self.torch.cuda.empty_cache()

    def cleanup(self):
        self.torch.cuda.empty_cache()

    # -- latency part --
    def cold_compile(self, op, dtype, M, N, lib_hits=200):
        """Compiles op's shipped spec with a unique comment appended (so no
        cache answers), launches it once; then times librkc's cache hit for
        the same request. Returns dict(compile_ms, launch_ms, plan, lib_hit_us)."""
        if self.rkc is None:
            raise RuntimeError("rkc is not usable: %s" % self.rkc_error)
        t, rkc = self.torch, self.rkc
        row = "logits" if op == "cross_entropy" else "x"
        name = op + ".mlir"
        text = rkc.spec_text(op) + "\n// rkc bench: cold compile %s\n" % uuid.uuid4().hex
        shapes = "%s=%dx%d" % (row, M, N)
        self.sync()
        t0 = time.perf_counter()
        k = rkc.Kernel(text, shapes, dtype, None, None, name)
        compile_ms = (time.perf_counter() - t0) * 1e3
        bufs = [t.zeros(a.shape, device="cuda", dtype=getattr(t, _TORCH_DTYPE_NAMES[a.dtype]))
                for a in k.args]
        stream = t.cuda.current_stream().cuda_stream
        self.sync()
        t0 = time.perf_counter()
        k.launch([b.data_ptr() for b in bufs], None, M, stream)
        self.sync()
        launch_ms = (time.perf_counter() - t0) * 1e3
        del bufs
        # librkc's own hit: rkcKernelCompile of the same request and
        # rkcKernelDestroy of the handle it returns, two ctypes calls (the
        # arguments encoded once, as a C caller holds them).
        from rkc import _lib
        lib = _lib.library()
        args = [_lib._enc(a) for a in (text, name, shapes, dtype)]
        handle = ctypes.c_void_p()
        t0 = time.perf_counter()
        for _ in range(lib_hits):
            if lib.rkcKernelCompile(args[0], args[1], args[2], args[3], None, None,
                                    ctypes.byref(handle)) != 0:
                raise RuntimeError("rkcKernelCompile failed on a cached request")
            lib.rkcKernelDestroy(handle)
        lib_hit_us = (time.perf_counter() - t0) * 1e6 / lib_hits
        # The Python object on top of it: rkc.Kernel(...) asks librkc for
        # every argument's name, dtype and shape and for the plan.
        t0 = time.perf_counter()
        for _ in range(lib_hits):
            rkc.Kernel(text, shapes, dtype, None, None, name)
        kernel_obj_us = (time.perf_counter() - t0) * 1e6 / lib_hits
        return dict(compile_ms=compile_ms, launch_ms=launch_ms, plan=k.plan, lib_hit_us=lib_hit_us,
                    kernel_obj_us=kernel_obj_us,
                    disk_hit_ms=self.disk_hit(text, row, M, N, dtype, name))

    # A fresh process (same cache directory, so the disk cache holds the
    # kernel just compiled, the in-process caches do not): one request of
    # another shape first (librkc's and CUDA's one-time set-up, itself a
    # compile), then the timed request, a disk hit (read the CUBIN, load it).
    DISK_HIT_CHILD = """
import sys, time
import rkc
text, row, M, N, dtype, name = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
rkc.Kernel(text, "%s=%dx%d" % (row, 2 * M, N), dtype, None, None, name)
t0 = time.perf_counter()
k = rkc.Kernel(text, "%s=%dx%d" % (row, M, N), dtype, None, None, name)
print("disk_hit_ms %.4f" % ((time.perf_counter() - t0) * 1e3))
"""

    def disk_hit(self, text, row, M, N, dtype, name):
        """ms of a disk-cache hit for the request (op text, [M, N], dtype), or
        an error string."""
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write(text)
            path = f.name
        try:
            p = subprocess.run([sys.executable, "-c", self.DISK_HIT_CHILD, path, row, str(M), str(N),
                                dtype, name], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=120, env=dict(os.environ))
        finally:
            os.unlink(path)
        for line in p.stdout.splitlines():
            if line.startswith("disk_hit_ms "):
                return float(line.split()[1])
        return "disk-hit child failed (exit %d): %s" % (p.returncode, (p.stderr or "")[-300:])

    def cache_hit_py(self, op, dtype, M, N, n=5000):
        if self.rkc is None:
            raise RuntimeError("rkc is not usable: %s" % self.rkc_error)
        tdt = self.tdt[dtype]
        self.rkc.precompile(op, (M, N), tdt)
        t0 = time.perf_counter()
        for _ in range(n):
            self.rkc.precompile(op, (M, N), tdt)
        return (time.perf_counter() - t0) * 1e6 / n

    def launch_overhead(self, impls, n=LAUNCH_ITERS):
        """{contender: us per launch or an error string} for n back-to-back
        launches of softmax on a [1, 256] bf16 tensor (host-bound)."""
        t = self.torch
        x = t.randn(1, 256, device="cuda", dtype=t.bfloat16)
        cands = []
        if "rkc" in impls:
            if self.rkc is None:
                cands.append(("rkc", RuntimeError("rkc is not usable: %s" % self.rkc_error)))
            else:
                rkc = self.rkc
                cands.append(("rkc", lambda: rkc.softmax(x)))
                try:
                    k = rkc.precompile("softmax", (1, 256), t.bfloat16)
                    y = t.empty_like(x)
                    ptrs = [x.data_ptr(), y.data_ptr()]
                    stream = t.cuda.current_stream().cuda_stream
                    cands.append(("rkc-raw", lambda: k.launch(ptrs, None, 1, stream)))
                except Exception as e:
                    cands.append(("rkc-raw", e))
        cands.append(("torch", lambda: t.softmax(x, -1)))
        if "torch.compile" in impls:
            cf = self.impl_fn("softmax", "torch.compile", "bf16")
            cands.append(("torch.compile", lambda: cf(x)))
        res = {}
        for name, f in cands:
            if isinstance(f, Exception):
                res[name] = describe(f)
                continue
            try:
                for _ in range(200):                  # warm up (compiles, loads)
                    f()
                self.sync()
                trials = []
                for _ in range(3):
                    t0 = time.perf_counter()
                    for _ in range(n):
                        f()
                    self.sync()
                    trials.append((time.perf_counter() - t0) * 1e6 / n)
                res[name] = sorted(trials)[1]
            except Exception as e:
                res[name] = describe(e)
                self.recover()
        return res


# --- the dry-run backend: fake timings, no torch -------------------------------

class _FakeArgs(tuple):
    pass


class _FakeOut(object):
    def __init__(self, op, impl, dtype, M, N):
        self.op, self.impl, self.dtype, self.M, self.N = op, impl, dtype, M, N


class _FakeFn(object):
    def __init__(self, backend, op, impl, dtype):
        self.b, self.op, self.impl, self.dtype = backend, op, impl, dtype

    def __call__(self, *args):
        M, N = args[0]
        if (self.op, self.impl, self.dtype, N) in self.b.INJECT_ERRORS:
            raise RuntimeError("injected by --dry-run: a fake %s failure" % self.impl)
        return _FakeOut(self.op, self.impl, self.dtype, M, N)


class FakeBackend(object):
    """Same interface as GpuBackend, made-up but plausible numbers, and a few
    injected failures so that every path of the runner and the report runs."""

    dry = True
    ROOF_TBPS = 3.0
    INJECT_ERRORS = {("cross_entropy", "torch.compile", "bf16", 1 << 20),
                     ("rms_norm", "torch", "bf16", 8192)}
    INJECT_MISMATCH = {("layer_norm", "f32", 262144), ("softmax", "bf16", 4096)}
    EFF = {"rkc": 0.96, "rkc-tuned": 0.98, "torch": 0.72, "torch.compile": 0.9, "copy": 1.0}

    def __init__(self):
        self.rng = random.Random(12345)
        self._fns = {}

    def meta(self):
        return {"device": "dry-run (fake timings)", "torch": None, "triton": None, "cuda": None,
                "rkc": None}

    def tuned_available(self):
        return True, ""

    def make_inputs(self, op, dtype, M, N):
        return _FakeArgs(((M, N), op, dtype))

    def copy_inputs(self, dtype, M, N):
        return _FakeArgs(((M, N), "copy", dtype))

    def copy_fn(self, *args):
        return _FakeOut("copy", "copy", args[2] if len(args) > 2 else "bf16", *args[0])

    def impl_fn(self, op, impl, dtype):
        return _FakeFn(self, op, impl, dtype)

    def sync(self):
        pass

    def call(self, fn, args):
        return fn(*args)

    def first_call(self, fn, args):
        out = fn(*args)
        impl = getattr(fn, "impl", "copy")
        return out, (3500.0 if impl == "torch.compile" else 180.0) * (0.9 + 0.2 * self.rng.random())

    def _ms(self, fn, args, overhead_us):
        (M, N), op, dtype = args[0], args[1], args[2]
        impl = getattr(fn, "impl", "copy")
        eff = self.EFF.get(impl, 0.8)
        if impl == "torch.compile" and N >= 65536:
            eff *= 0.68
        if impl == "torch" and op in ("softmax", "log_softmax") and N >= 16384:
            eff *= 0.8
        if op == "copy":
            eff = 1.0
        byts = model_bytes(op, impl, dtype, M, N)
        eff *= min(1.0, 0.3 + byts / 64e6)      # small transfers do not reach the roofline
        eff *= 0.97 + 0.06 * self.rng.random()
        return byts / (self.ROOF_TBPS * 1e12 * eff) * 1e3 + overhead_us * 1e-3

    def bench(self, fn, args):
        fn(*args)
        return self._ms(fn, args, 4.0)

    def graph_bench(self, fn, arg_sets):
        for a in arg_sets[:3]:
            fn(*a)
        return self._ms(fn, arg_sets[0], 0.8)

    def rel_err(self, out, ref):
        if (out.op, out.dtype, out.N) in self.INJECT_MISMATCH:
            return 0.31
        return 2e-3 if out.dtype != "f32" else 3e-7

    def plan(self, op, impl, dtype, M, N):
        return "fake-plan(threads=256,vector=%d)" % (8 if dtype != "f32" else 4) if impl == "rkc" else None

    def roofline_ms(self):
        return 2.0 * (1 << 30) / (self.ROOF_TBPS * 1e12) * 1e3

    def recover(self):
        pass

    def cleanup(self):
        pass

    def cold_compile(self, op, dtype, M, N, lib_hits=200):
        return dict(compile_ms=250.0 + 40 * self.rng.random(), launch_ms=1.2, plan=self.plan(op, "rkc", dtype, M, N),
                    lib_hit_us=0.9, kernel_obj_us=9.5, disk_hit_ms=1.0)

    def cache_hit_py(self, op, dtype, M, N, n=5000):
        return 1.1

    def launch_overhead(self, impls, n=LAUNCH_ITERS):
        res = {"torch": 6.0}
        if "rkc" in impls:
            res.update({"rkc": 11.0, "rkc-raw": 3.2})
        if "torch.compile" in impls:
            res["torch.compile"] = 21.0
        return res


# --- the runner ----------------------------------------------------------------

def _finite(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


class Runner(object):
    def __init__(self, backend, args, out_path, meta):
        self.b = backend
        self.args = args
        self.out_path = out_path
        self.meta = meta
        self.records = []
        self.roofline = None
        self.t0 = time.time()
        self.skipped = []
        # --resume: measurements already in the file (failed ones included)
        # are not made again; key -> record.
        self.done = {}
        if getattr(args, "resume", False) and os.path.exists(out_path):
            for r in report.load([out_path]):
                if r.get("device") == meta.get("device") and r.get("kind") in ("throughput", "latency"):
                    self.done[self._key(r)] = r
        self._f = open(out_path, "a")

    @staticmethod
    def _key(r):
        return (r.get("kind"), r.get("what"), r.get("part"), r.get("op"), r.get("impl"),
                r.get("dtype"), r.get("M"), r.get("N"), r.get("mode"))

    def previous(self, kind, what, part, op, impl, dtype, M, N, mode):
        """The record of this measurement already in the file (--resume)."""
        return self.done.get((kind, what, part, op, impl, dtype, M, N, mode))

    @staticmethod
    def _status(r):
        if r.get("error"):
            return "mismatch" if str(r["error"]).startswith("mismatch") else "error"
        return r

    def close(self):
        self._f.close()

    # -- records --
    def emit(self, rec):
        r = dict(self.meta)
        r["time"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        for k in ("op", "impl", "dtype", "M", "N", "ms", "tbps", "roofline_tbps", "frac_roofline"):
            r.setdefault(k, None)
        r.update(rec)
        for k in list(r):
            r[k] = _finite(r[k])
        if r.get("error") is None:
            r.pop("error", None)
        self._f.write(json.dumps(r, sort_keys=False) + "\n")
        self._f.flush()
        self.records.append(r)
        return r

    def throughput(self, part, op, impl, dtype, M, N, mode, ms=None, error=None, **extra):
        byts = model_bytes(op, impl, dtype, M, N)
        tbps = byts / (ms * 1e-3) / 1e12 if (ms and error is None) else None
        rec = {"kind": "throughput", "part": part, "op": op, "impl": impl, "dtype": dtype,
               "M": M, "N": N, "mode": mode, "ms": ms if error is None else None,
               "us": ms * 1e3 if (ms and error is None) else None, "bytes": byts, "tbps": tbps,
               "roofline_tbps": self.roofline,
               "frac_roofline": (tbps / self.roofline) if (tbps and self.roofline) else None,
               "error": error}
        rec.update(extra)
        return self.emit(rec)

    def latency(self, what, op, impl, dtype, M, N, ms=None, us=None, error=None, **extra):
        if ms is None and us is not None:
            ms = us * 1e-3
        if us is None and ms is not None:
            us = ms * 1e3
        rec = {"kind": "latency", "what": what, "op": op, "impl": impl, "dtype": dtype, "M": M,
               "N": N, "ms": ms if error is None else None, "us": us if error is None else None,
               "roofline_tbps": self.roofline, "error": error}
        rec.update(extra)
        return self.emit(rec)

    def elapsed(self):
        return time.time() - self.t0

    def out_of_time(self):
        return bool(self.args.time_limit) and self.elapsed() > self.args.time_limit

    def log(self, s):
        print("[%6.1fs] %s" % (self.elapsed(), s), flush=True)

    # -- roofline --
    def measure_roofline(self, what):
        try:
            ms = self.b.roofline_ms()
        except Exception as e:
            msg = describe(e)
            self.b.recover()
            self.emit({"kind": "roofline", "what": what, "op": "copy", "impl": "copy", "dtype": "f32",
                       "M": 1, "N": 1 << 28, "mode": "single", "error": msg})
            self.log("roofline (%s) FAILED: %s" % (what, msg))
            return None
        byts = 2 * (1 << 30)
        tbps = byts / (ms * 1e-3) / 1e12
        if self.roofline is None:
            self.roofline = tbps
        self.emit({"kind": "roofline", "what": what, "op": "copy", "impl": "copy", "dtype": "f32",
                   "M": 1, "N": 1 << 28, "mode": "single", "ms": ms, "us": ms * 1e3, "bytes": byts,
                   "tbps": tbps, "roofline_tbps": self.roofline,
                   "frac_roofline": tbps / self.roofline})
        self.log("copy roofline (%s): 1 GiB fp32 in %.3f ms = %.3f TB/s" % (what, ms, tbps))
        return tbps

    # -- one impl at one shape, single launch --
    def _single(self, part, op, impl, dtype, M, N, args, ref_box):
        b = self.b
        failed = None
        out = None
        extra = {}
        try:
            fn = b.impl_fn(op, impl, dtype)
            if impl in ("rkc", "rkc-tuned", "torch.compile"):
                # The first call at a new shape compiles (rkc: spec -> CUBIN;
                # torch.compile: Dynamo + Inductor + Triton): timed, reported apart.
                out, first_ms = b.first_call(fn, args)
                self.latency("first_call", op, impl, dtype, M, N, ms=first_ms, part=part)
                extra["first_call_ms"] = first_ms
            if impl.startswith("rkc"):
                if "ref" not in ref_box:
                    try:
                        ref_box["ref"] = b.call(b.impl_fn(op, "torch", dtype), args)
                    except Exception as e:
                        raise RuntimeError("the torch eager reference for the correctness check "
                                           "failed: %s" % describe(e))
                err = b.rel_err(out, ref_box["ref"])
                out = None
                extra["rel_err"] = err
                extra["plan"] = b.plan(op, impl, dtype, M, N)
                if not (err <= TOL[dtype]):                 # NaN fails too
                    self.throughput(part, op, impl, dtype, M, N, "single",
                                    error="mismatch %.3g (tolerance %g vs torch eager)"
                                    % (err, TOL[dtype]), **extra)
                    return "mismatch"
            out = None
            ms = b.bench(fn, args)
            r = self.throughput(part, op, impl, dtype, M, N, "single", ms=ms, **extra)
            return r
        except ContextLost:
            raise
        except Exception as e:
            failed = describe(e)
        out = None
        self.throughput(part, op, impl, dtype, M, N, "single", error=failed, **extra)
        b.recover()
        return "error"

    def case(self, part, op, dtype, M, N, impls):
        """All impls at one shape, one launch each (do_bench). Returns
        {impl: record | "error" | "mismatch"}."""
        b = self.b
        res = {}
        todo = []
        for impl in impls:
            prev = self.previous("throughput", None, part, op, impl, dtype, M, N, "single")
            if prev is not None:
                res[impl] = self._status(prev)
            else:
                todo.append(impl)
        if not todo:
            return res
        impls = todo
        try:
            args = b.make_inputs(op, dtype, M, N)
        except Exception as e:
            msg = "allocating the inputs: " + describe(e)
            b.recover()
            for impl in impls:
                self.throughput(part, op, impl, dtype, M, N, "single", error=msg)
                res[impl] = "error"
            self.log("%s %s M=%d N=%d: %s" % (op, dtype, M, N, msg))
            return res
        ref_box = {}
        for impl in impls:
            res[impl] = self._single(part, op, impl, dtype, M, N, args, ref_box)
        del args
        ref_box.clear()
        b.cleanup()
        self.log("%s %s M=%d N=%s: %s" % (op, dtype, M, report.fmt_n(N), _summary(res, "tbps")))
        return res

    # -- parts --
    def sweep(self, ops, dtypes_of, ns, impls):
        for op in ops:
            for dtype in dtypes_of[op]:
                for N in ns:
                    M = TOTAL // N
                    if self.out_of_time():
                        self.skipped.append(("sweep", op, dtype, N))
                        continue
                    self.case("sweep", op, dtype, M, N, impls)

    def small(self, ops, impls):
        dtype = SMALL_DTYPE
        copied = set()
        for op in ops:
            for N in SMALL_NS:
                for M in SMALL_MS:
                    if self.out_of_time():
                        self.skipped.append(("small", op, dtype, "M=%d N=%d" % (M, N)))
                        continue
                    if (M, N) not in copied:
                        copied.add((M, N))
                        self._small_copy(dtype, M, N)
                    single = self.case("small", op, dtype, M, N, impls)
                    self._small_graph(op, dtype, M, N, impls, single)

    def _small_copy(self, dtype, M, N):
        b = self.b
        for mode in ("single", "graph"):
            if self.previous("throughput", None, "small", "copy", "copy", dtype, M, N, mode):
                continue
            err = None
            try:
                if mode == "single":
                    args = b.copy_inputs(dtype, M, N)
                    ms = b.bench(b.copy_fn, args)
                else:
                    sets = [b.copy_inputs(dtype, M, N) for _ in range(GRAPH_BUFFERS)]
                    ms = b.graph_bench(b.copy_fn, sets)
            except ContextLost:
                raise
            except Exception as e:
                err = describe(e)
            args = sets = None
            if err:
                b.recover()
                self.throughput("small", "copy", "copy", dtype, M, N, mode, error=err)
            else:
                self.throughput("small", "copy", "copy", dtype, M, N, mode, ms=ms)
        b.cleanup()

    def _small_graph(self, op, dtype, M, N, impls, single):
        b = self.b
        res = {}
        impls = [i for i in impls
                 if not self.previous("throughput", None, "small", op, i, dtype, M, N, "graph")]
        if not impls:
            return
        try:
            sets = [b.make_inputs(op, dtype, M, N) for _ in range(GRAPH_BUFFERS)]
        except Exception as e:
            msg = "allocating the inputs: " + describe(e)
            b.recover()
            for impl in impls:
                self.throughput("small", op, impl, dtype, M, N, "graph", error=msg)
            return
        for impl in impls:
            s = single.get(impl)
            if s == "mismatch":
                self.throughput("small", op, impl, dtype, M, N, "graph",
                                error="mismatch (see the single-launch record): not timed")
                res[impl] = "mismatch"
                continue
            err = None
            try:
                ms = b.graph_bench(b.impl_fn(op, impl, dtype), sets)
            except ContextLost:
                raise
            except Exception as e:
                err = describe(e)
            if err:
                b.recover()
                self.throughput("small", op, impl, dtype, M, N, "graph", error=err)
                res[impl] = "error"
            else:
                res[impl] = self.throughput("small", op, impl, dtype, M, N, "graph", ms=ms,
                                            buffers=GRAPH_BUFFERS)
        sets = None
        b.cleanup()
        self.log("%s %s M=%d N=%s graph x%d: %s" % (op, dtype, M, report.fmt_n(N), GRAPH_BUFFERS,
                                                   _summary(res, "us")))

    def latency_part(self, ops, impls):
        b = self.b
        if "rkc" in impls:
            for op in ops:
                for N in COLD_NS:
                    M = TOTAL // N
                    if self.previous("latency", "cold_compile", None, op, "rkc", "bf16", M, N, None):
                        continue
                    if self.out_of_time():
                        self.skipped.append(("latency", op, "bf16", N))
                        continue
                    err = None
                    try:
                        r = b.cold_compile(op, "bf16", M, N)
                    except ContextLost:
                        raise
                    except Exception as e:
                        err = describe(e)
                    if err:
                        b.recover()
                        self.latency("cold_compile", op, "rkc", "bf16", M, N, error=err)
                        self.log("cold compile %s N=%s FAILED: %s" % (op, report.fmt_n(N), err))
                        continue
                    self.latency("cold_compile", op, "rkc", "bf16", M, N, ms=r["compile_ms"],
                                 plan=r["plan"])
                    self.latency("first_launch", op, "rkc", "bf16", M, N, ms=r["launch_ms"])
                    self.latency("cache_hit_lib", op, "rkc", "bf16", M, N, us=r["lib_hit_us"], n=200,
                                 path="rkcKernelCompile")
                    self.latency("cache_hit_kernel_obj", op, "rkc", "bf16", M, N,
                                 us=r["kernel_obj_us"], n=200)
                    if isinstance(r["disk_hit_ms"], str):
                        self.latency("disk_hit", op, "rkc", "bf16", M, N, error=r["disk_hit_ms"])
                    else:
                        self.latency("disk_hit", op, "rkc", "bf16", M, N, ms=r["disk_hit_ms"])
                    try:
                        us = b.cache_hit_py(op, "bf16", M, N)
                        self.latency("cache_hit_py", op, "rkc", "bf16", M, N, us=us, n=5000)
                    except ContextLost:
                        raise
                    except Exception as e:
                        self.latency("cache_hit_py", op, "rkc", "bf16", M, N, error=describe(e))
                    self.log("cold compile %s bf16 N=%s: %.0f ms, first launch %.1f ms, cache hit "
                             "librkc %.1f us" % (op, report.fmt_n(N), r["compile_ms"], r["launch_ms"],
                                                 r["lib_hit_us"]))
                    b.cleanup()
        if self.previous("latency", "launch_overhead", None, "softmax", "torch", "bf16", 1, 256, None):
            return
        if self.out_of_time():
            self.skipped.append(("latency", "launch overhead", "bf16", 256))
            return
        res = b.launch_overhead(impls)
        for name, v in sorted(res.items()):
            if isinstance(v, str):
                self.latency("launch_overhead", "softmax", name, "bf16", 1, 256, error=v,
                             n=LAUNCH_ITERS)
            else:
                self.latency("launch_overhead", "softmax", name, "bf16", 1, 256, us=v,
                             n=LAUNCH_ITERS)
        self.log("host time per launch (softmax 1x256 bf16, %d back-to-back): %s" % (
            LAUNCH_ITERS, ", ".join("%s %s" % (k, ("%.2f us" % v) if not isinstance(v, str) else "ERROR")
                                    for k, v in sorted(res.items()))))
        b.cleanup()


def _summary(res, unit):
    parts = []
    for impl, r in res.items():
        if isinstance(r, dict):
            if unit == "tbps":
                parts.append("%s %.2f TB/s%s" % (impl, r["tbps"], (" (%.2f)" % r["frac_roofline"])
                                                  if r.get("frac_roofline") else ""))
            else:
                parts.append("%s %.2f us" % (impl, r["us"]))
        else:
            parts.append("%s %s" % (impl, str(r).upper()))
    return " | ".join(parts)


# --- command line --------------------------------------------------------------

def _parse_n(s):
    s = s.strip().lower()
    mult = 1
    if s.endswith("k"):
        s, mult = s[:-1], 1 << 10
    elif s.endswith("m"):
        s, mult = s[:-1], 1 << 20
    n = int(s) * mult
    if n < 1 or n > TOTAL or TOTAL % n:
        raise argparse.ArgumentTypeError("N=%d must divide 2^27 (a power of two up to 2^27)" % n)
    return n


def _list(s, allowed, what, aliases=None):
    out = []
    for v in s.split(","):
        v = v.strip()
        if not v:
            continue
        v = (aliases or {}).get(v, v)
        if v not in allowed:
            raise SystemExit("bench: unknown %s %r (one of: %s)" % (what, v, ", ".join(allowed)))
        if v not in out:
            out.append(v)
    return out


def _slug(s):
    s = s.lower().replace("nvidia", "")
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s or "device"


def _git(*a):
    try:
        p = subprocess.run(("git", "-C", REPO) + a, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=20)
        return p.stdout.strip() if p.returncode == 0 else None
    except Exception:
        return None


def run_meta(backend):
    m = backend.meta()
    lib = os.environ.get("RKC_LIBRARY")
    # The commit librkc was built from: RKC_COMMIT (scripts/gpu-run exports
    # the bundle's), else the COMMIT file of the bundle RKC_LIBRARY is in.
    lib_commit = (os.environ.get("RKC_COMMIT") or "").strip()[:12] or None
    if lib_commit == "unknown":
        lib_commit = None
    if lib and not lib_commit:
        p = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(lib))), "COMMIT")
        try:
            with open(p) as f:
                lib_commit = f.read().strip()[:12] or None
        except OSError:
            pass
    commit = os.environ.get("RKC_BENCH_COMMIT") or _git("rev-parse", "--short=12", "HEAD")
    dirty = None
    if commit and not os.environ.get("RKC_BENCH_COMMIT"):
        st = _git("status", "--porcelain", "--untracked-files=no")
        dirty = bool(st) if st is not None else None
    m.update({
        "commit": commit or lib_commit or "unknown",
        "lib_commit": lib_commit,
        "dirty": dirty,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "run_id": "%s-%s" % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S"),
                             uuid.uuid4().hex[:6]),
    })
    if backend.dry:
        m["dry_run"] = True
    else:
        try:  # how rkc's row ops launched (programmatic dependent launch)
            import rkc
            m["rkc_pdl"] = bool(rkc.ops._pdl)
        except Exception:
            pass
    return m


def default_docs(out, dry):
    """docs/performance.md when the jsonl is in bench/results (the default
    place), else performance.md beside the jsonl (a run writing to $OUT on
    the GPU machine gets its report back; a dry run never touches docs/)."""
    out_dir = os.path.dirname(os.path.abspath(out))
    if not dry and os.path.realpath(out_dir) == os.path.realpath(os.path.join(HERE, "results")):
        return os.path.join(REPO, "docs", "performance.md")
    return os.path.join(out_dir, "performance.md")


def estimate_s(n_sweep, n_sweep_f32, n_small, impls, parts, ops):
    """Rough wall time on an H100, calibrated on a smoke run (2026-11-22,
    fresh machine, cold Inductor caches): a bf16 sweep shape with rkc, eager
    and torch.compile took ~1.3 s (torch.compile's compile ~0.5-1.3 s of it),
    a small-batch shape (single + graph, 3 contenders) ~2.2 s."""
    plain = len([i for i in impls if i != "torch.compile"])
    comp = "torch.compile" in impls
    s = 8.0                                       # imports, CUDA init, roofline x2
    per = 0.3 + 0.25 * plain + (1.0 if comp else 0.0)
    s += n_sweep * per + n_sweep_f32 * 0.4 * per  # f32 tensors are twice the bytes
    if n_small:
        s += n_small * (0.5 + 0.4 * plain + (1.1 if comp else 0.0)) + 6 * 0.3   # + copies
    if "latency" in parts:
        s += (2 * len(ops) * 0.3 if "rkc" in impls else 0) + 4 + (2 if comp else 0)
    if comp and (n_sweep or n_small):
        s += 8.0                                  # first Inductor compile (worker pool etc.)
    return s


def build_parser():
    p = argparse.ArgumentParser(
        description="rkc benchmark (BENCH.md): copy roofline, rkc, torch eager and torch.compile "
                    "on RMSNorm, LayerNorm, softmax, log-softmax and cross-entropy forward.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
               "  PYTHONPATH=python RKC_LIBRARY=.bundle/lib/librkc.so python3 bench/bench.py --quick\n"
               "  python3 bench/bench.py --dry-run\n"
               "  python3 bench/bench.py --report bench/results/2026-11-22-h100-80gb-hbm3.jsonl\n")
    p.add_argument("--ops", default=",".join(OPS), help="comma list of %s (default: all)" % ", ".join(OPS))
    p.add_argument("--dtypes", default="bf16,f32,f16",
                   help="comma list; each op runs the dtypes of its own list that are named here "
                        "(rms_norm, layer_norm, log_softmax, cross_entropy: bf16, f32; softmax: "
                        "bf16, f32, f16). Default: all")
    p.add_argument("--ns", default=None,
                   help="comma list of row lengths N for the sweep, M = 2^27/N (k, M suffixes "
                        "allowed: 256,4k,1M). Default: 256 ... 262144 and 1M")
    p.add_argument("--quick", action="store_true",
                   help="sweep N in {256, 1024, 4096, 16384, 65536, 262144} only")
    p.add_argument("--impls", default=",".join(DEFAULT_IMPLS),
                   help="comma list of rkc, rkc-tuned, torch (eager), torch.compile (default: "
                        "all four; rkc-tuned is left out with a note where the tuning database "
                        "has no rows for the device)")
    p.add_argument("--parts", default=",".join(PARTS),
                   help="comma list of sweep, small, latency (default: all)")
    p.add_argument("--out", default=None,
                   help="jsonl file to append to (default: RESULTS_DIR/<date>-<device>.jsonl, "
                        "also appended to)")
    p.add_argument("--results-dir", default=None,
                   help="where the jsonl and the plots go (default: bench/results; --dry-run: %s)"
                        % DRY_DIR)
    p.add_argument("--docs", default=None,
                   help="markdown report to (re)write (default: docs/performance.md; --dry-run: "
                        "RESULTS_DIR/performance.md)")
    p.add_argument("--no-report", action="store_true",
                   help="do not rewrite the markdown report and plots at the end")
    p.add_argument("--fresh", action="store_true", help="truncate the jsonl file first")
    p.add_argument("--resume", action="store_true",
                   help="skip the measurements already in the jsonl file (failed ones too: delete "
                        "their lines to retry), e.g. to finish a run cut by a time limit or a "
                        "lost CUDA context")
    p.add_argument("--time-limit", type=float, default=0,
                   help="seconds; past this, remaining shapes are skipped (listed at the end with "
                        "a command that runs them) so the run ends in time. 0: no limit")
    p.add_argument("--dry-run", action="store_true",
                   help="no GPU, no torch: fake timings (marked as such everywhere), to test the "
                        "shape lists, the jsonl, the plots and the markdown")
    p.add_argument("--report", nargs="+", metavar="JSONL",
                   help="measure nothing: regenerate the plots (next to the first file) and the "
                        "markdown (--docs) from these jsonl files (merged; the last record of a "
                        "shape wins)")
    p.add_argument("--device", default=None,
                   help="with --report: the device whose records to use (default: the most frequent)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)

    if args.report:
        for p in args.report:
            if not os.path.exists(p):
                raise SystemExit("bench: no such file: %s" % p)
        docs = args.docs or os.path.join(REPO, "docs", "performance.md")
        table = report.generate(args.report, docs, plots_dir=args.results_dir, device=args.device)
        print(table)
        return 0

    ops = _list(args.ops, OPS, "op")
    dtypes = _list(args.dtypes, ("bf16", "f32", "f16"), "dtype")
    impls = _list(args.impls, IMPLS, "impl", IMPL_ALIASES)
    parts = _list(args.parts, PARTS, "part")
    if args.ns:
        try:
            ns = [_parse_n(s) for s in args.ns.split(",") if s.strip()]
        except (ValueError, argparse.ArgumentTypeError) as e:
            raise SystemExit("bench: --ns: %s" % e)
    elif args.quick:
        ns = list(NS_QUICK)
    else:
        ns = list(NS_FULL)
    dtypes_of = {op: [d for d in OP_DTYPES[op] if d in dtypes] for op in ops}

    backend = FakeBackend() if args.dry_run else GpuBackend()

    if "rkc-tuned" in impls:
        ok, why = backend.tuned_available()
        if not ok:
            print("NOTE: rkc-tuned left out: %s" % why, flush=True)
            impls = [i for i in impls if i != "rkc-tuned"]
    # rkc first (its correctness check computes the torch eager reference).
    impls = [i for i in IMPLS if i in impls]

    meta = run_meta(backend)
    results_dir = args.results_dir or (DRY_DIR if args.dry_run else os.path.join(HERE, "results"))
    os.makedirs(results_dir, exist_ok=True)
    out = args.out or os.path.join(results_dir, "%s-%s.jsonl" % (meta["date"], _slug(meta["device"])))
    d = os.path.dirname(os.path.abspath(out))
    os.makedirs(d, exist_ok=True)
    if args.fresh and os.path.exists(out):
        open(out, "w").close()
    docs = args.docs or default_docs(out, args.dry_run)

    n_sweep = sum(len(dtypes_of[o]) for o in ops) * len(ns) if "sweep" in parts else 0
    n_sweep_f32 = sum(1 for o in ops if "f32" in dtypes_of[o]) * len(ns) if "sweep" in parts else 0
    small_ops = ops if (SMALL_DTYPE in dtypes) else []
    n_small = len(small_ops) * len(SMALL_MS) * len(SMALL_NS) if "small" in parts else 0
    print("bench: %s | commit %s | ops %s | impls %s | parts %s | sweep N %s | %d sweep cases, "
          "%d small cases | estimate ~%.0f s | writing %s"
          % (meta["device"], meta["commit"], ",".join(ops), ",".join(impls), ",".join(parts),
             ",".join(report.fmt_n(n) for n in ns), n_sweep, n_small,
             estimate_s(n_sweep, n_sweep_f32, n_small, impls, parts, ops), out), flush=True)
    if args.dry_run:
        print("bench: DRY RUN: all timings are fake", flush=True)

    runner = Runner(backend, args, out, meta)
    status = 0
    try:
        runner.measure_roofline("start")
        if "sweep" in parts and n_sweep:
            runner.sweep(ops, dtypes_of, ns, impls)
        if "small" in parts and n_small:
            runner.small(small_ops, impls)
        if "latency" in parts:
            runner.latency_part(ops, impls)
        runner.measure_roofline("end")
    except ContextLost as e:
        status = 3
        runner.emit({"kind": "fatal", "error": "CUDA context lost: %s" % e})
        print("bench: FATAL: the CUDA context is lost (%s); results so far are in %s" % (e, out),
              flush=True)
    except KeyboardInterrupt:
        status = 130
        print("bench: interrupted; results so far are in %s" % out, flush=True)
    finally:
        runner.close()

    if not args.no_report:
        try:
            report.generate([out], docs, plots_dir=os.path.dirname(os.path.abspath(out)),
                            device=meta["device"], quiet=False)
        except BaseException as e:  # never lose the table below to a report problem
            print("bench: report generation failed: %s" % describe(e), flush=True)

    summary = ["=" * 78,
               "%s | %s | commit %s (librkc %s) | %.0f s | %s" % (
                   meta["device"], meta["date"], meta["commit"], meta.get("lib_commit") or "?",
                   runner.elapsed(), out)]
    if args.dry_run:
        summary.append("DRY RUN: FAKE TIMINGS")
    summary.append(report.compact_table(runner.records))
    summary.extend(skipped_lines(runner.skipped, args.time_limit, ops, impls))
    text = "\n".join(summary)
    # Also beside the jsonl: the console may show only the tail of the run.
    try:
        with open(os.path.splitext(out)[0] + "-summary.txt", "w") as f:
            f.write(text + "\n")
    except OSError as e:
        print("bench: could not write the summary file: %s" % e)
    print("")
    print(text, flush=True)
    return status


def skipped_lines(skipped, time_limit, ops, impls):
    lines = []
    if skipped:
        lines.append("SKIPPED past --time-limit %.0f s: %d case(s); run them with:"
                     % (time_limit, len(skipped)))
        for part in ("sweep", "small", "latency"):
            sk = [s for s in skipped if s[0] == part]
            if not sk:
                continue
            if part == "sweep":
                by = {}
                for _p, op, dt, N in sk:
                    by.setdefault((op, dt), []).append(N)
                for (op, dt), nsl in by.items():
                    lines.append("  python3 bench/bench.py --parts sweep --ops %s --dtypes %s --ns %s "
                                 "--impls %s" % (op, dt, ",".join(str(n) for n in nsl), ",".join(impls)))
            else:
                lines.append("  python3 bench/bench.py --parts %s --ops %s --impls %s   (%s)" % (
                    part, ",".join(o for o in OPS if any(s[1] == o for s in sk)) or ",".join(ops),
                    ",".join(impls), ", ".join("%s %s" % (s[1], s[3]) for s in sk[:6])
                    + (" ..." if len(sk) > 6 else "")))
    return lines


if __name__ == "__main__":
    sys.exit(main())
