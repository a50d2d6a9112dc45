"""Host cost per call of rkc's ops (not a test): n back-to-back calls on tiny
tensors, synchronised at the end, µs per call (the median of 5 trials), like
bench/bench.py's "host time per launch" (softmax M=1 N=256 bf16).

    PYTHONPATH=python python3 -m rkc._bench_overhead            # on a GPU
    PYTHONPATH=python python3 -m rkc._bench_overhead --cpu-stub # no GPU

--cpu-stub measures the Python side alone, anywhere: CPU tensors stand in for
CUDA ones (the device check is relaxed), the current device and stream are
constants, and librkc's launch entry point is replaced by a C function that
returns RKC_OK at once (built with the system C compiler). Kernels are still
compiled by librkc, so its library must be loadable.
"""

import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
import time

_NOOP_C = r"""
#include <stdint.h>
int rkc_noop_launch(void *k, void *const *ptrs, const int64_t *strides, int64_t rows,
                    void *stream) {
  return (k && ptrs && rows > 0) ? 0 : 1;
}
"""


class _StubLib(object):
    """librkc with rkcKernelLaunch replaced by a C no-op (same signature)."""

    def __init__(self, real, noop_path):
        self._real = real
        self._noop_path = noop_path
        self._noop_lib = ctypes.CDLL(noop_path)
        self._name = real._name
        f = self._noop_lib["rkc_noop_launch"]
        f.restype = ctypes.c_int
        f.argtypes = real.rkcKernelLaunch.argtypes
        self.rkcKernelLaunch = f

    def __getattr__(self, name):
        return getattr(self._real, name)

    def __getitem__(self, name):
        if name == "rkcKernelLaunch":
            return ctypes.CDLL(self._noop_path)["rkc_noop_launch"]
        return self._real[name]


def _install_cpu_stub(rkc, torch):
    from rkc import _lib, ops
    real = _lib.library()
    d = tempfile.mkdtemp(prefix="rkc-noop-")
    src, so = os.path.join(d, "noop.c"), os.path.join(d, "libnoop.so")
    with open(src, "w") as f:
        f.write(_NOOP_C)
    cc = os.environ.get("CC", "cc")
    subprocess.check_call([cc, "-O2", "-shared", "-fPIC", "-o", so, src])
    _lib._lib = _StubLib(real, so)
    if hasattr(_lib, "_raw_launch"):
        _lib._raw_launch = None
    ops._t()
    real_check = ops._check_tensor

    def check_tensor(op, what, t):
        if isinstance(t, torch.Tensor) and t.device.type == "cpu":
            return
        real_check(op, what, t)

    ops._check_tensor = check_tensor
    ops._arch = lambda dev: "sm_90a"
    ops._raw_stream = lambda dev: 0
    torch.cuda.current_device = lambda: None  # CPU tensors have device index None
    if hasattr(ops, "_current_device"):
        ops._current_device = lambda: None
    if hasattr(ops, "_FAST_DEVICES"):
        ops._FAST_DEVICES = ("cuda", "cpu")
    ops.clear_cache()


def _time(f, n, sync, trials=5):
    """(median, best) µs per call synchronised at the end, and the median
    µs per call of the host loop alone (before the final sync): when the
    two differ, the GPU, not the host, set the pace."""
    for _ in range(200):  # warm up: compiles, module loads, caches
        f()
    sync()
    res, host = [], []
    for _ in range(trials):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        t1 = time.perf_counter()
        sync()
        res.append((time.perf_counter() - t0) * 1e6 / n)
        host.append((t1 - t0) * 1e6 / n)
    res.sort()
    host.sort()
    return res[len(res) // 2], res[0], host[len(host) // 2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iters", type=int, default=10000)
    ap.add_argument("--cpu-stub", action="store_true",
                    help="no GPU: time the Python side with a no-op C launch")
    ap.add_argument("--N", type=int, default=256)
    a = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F
    import rkc

    if a.cpu_stub:
        _install_cpu_stub(rkc, torch)
        dev = "cpu"
        sync = lambda: None  # noqa: E731
    else:
        if not torch.cuda.is_available():
            sys.exit("no CUDA device: run with --cpu-stub to time the Python side alone")
        dev = "cuda"
        sync = torch.cuda.synchronize
    N = a.N
    bf16 = torch.bfloat16
    x = torch.randn(1, N, device=dev, dtype=bf16)
    w = torch.randn(N, device=dev, dtype=bf16)
    b = torch.randn(N, device=dev, dtype=bf16)
    r = torch.randn(1, N, device=dev, dtype=bf16)
    t = torch.zeros(1, device=dev, dtype=torch.int64)

    k = rkc.precompile("softmax", (1, N), bf16)
    y = torch.empty_like(x)
    ptrs = [x.data_ptr(), y.data_ptr()]
    stream = 0 if a.cpu_stub else torch.cuda.current_stream().cuda_stream

    cases = [
        ("rkc.softmax", lambda: rkc.softmax(x)),
        ("rkc.log_softmax", lambda: rkc.log_softmax(x)),
        ("rkc.rms_norm", lambda: rkc.rms_norm(x, w)),
        ("rkc.rms_norm(residual=)", lambda: rkc.rms_norm(x, w, residual=r)),
        ("rkc.layer_norm", lambda: rkc.layer_norm(x, w, b)),
        ("rkc.cross_entropy(none)", lambda: rkc.cross_entropy(x, t, reduction="none")),
        ("rkc.cross_entropy(mean)", lambda: rkc.cross_entropy(x, t)),
        ("rkc.Kernel.launch (raw)", lambda: k.launch(ptrs, None, 1, stream)),
    ]
    if not a.cpu_stub:
        cases += [
            ("torch.softmax", lambda: torch.softmax(x, -1)),
            ("torch.empty_like", lambda: torch.empty_like(x)),
            ("torch.empty(shape, dtype=, device=)",
             lambda: torch.empty((1, N), dtype=bf16, device=x.device)),
            ("F.layer_norm", lambda: F.layer_norm(x, (N,), w, b)),
            ("F.cross_entropy(none)", lambda: F.cross_entropy(x, t, reduction="none")),
        ]
        if hasattr(F, "rms_norm"):
            cases.insert(-2, ("F.rms_norm", lambda: F.rms_norm(x, (N,), w, 1e-6)))
    else:
        cases += [("torch.softmax (CPU, computes)", lambda: torch.softmax(x, -1)),
                  ("torch.empty_like (CPU)", lambda: torch.empty_like(x))]
    where = "CPU stub (no-op C launch)" if a.cpu_stub else torch.cuda.get_device_name()
    print("host time per call, %d back-to-back, [1, %d] bf16, %s" % (a.iters, N, where))
    for name, f in cases:
        try:
            med, best, host = _time(f, a.iters, sync)
            print("  %-36s %7.2f us/call  (best %.2f, host loop %.2f)" % (name, med, best, host))
        except Exception as e:  # failures are data
            print("  %-36s error: %s: %s" % (name, type(e).__name__, e))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
