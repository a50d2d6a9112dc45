"""Session 40: where the single-launch small-batch gap lives.

bench.py's small-batch part times one launch with triton's do_bench (a
256 MiB `zero_()` before each launch flushes L2); there rkc trailed
torch.compile by up to 1.2 us at 8 of 30 shapes (f2cf322) while it led
all 30 in the graph mode (data from HBM, back-to-back launches). This
times rkc's heuristic kernel and torch.compile's at the same shapes in
three regimes, events around the launch only, median of REPS, two
interleaved rounds:
  zero  - as bench.py: `cache.zero_()` of 256 MiB, then the launch
  read  - L2 flushed by reading 256 MiB (`cache.sum()`: no dirty lines left)
  warm  - no flush (the same tensors, L2 warm)
and, with SLEEP=1, zero / read followed by a 100 us spin kernel
(`torch.cuda._sleep`) before the start event, so that the host's launch
time can never show (zero+s, read+s); impls rkc (PDL, as bench.py),
rkc-nopdl (rkc.set_pdl(False)) and torch.compile.
With --ncu it only runs each kernel three times inside a profiler range
(for ncu --profile-from-start off: gpu__time_duration with
--cache-control all is the kernel's own time from cold caches, without
the launch).
Usage: python3 small_single_modes.py [--ncu]   (PYTHONPATH=python, RKC_LIBRARY)
"""
import sys
import torch
import torch.nn.functional as F
import rkc

SHAPES = [("rms_norm", 1, 4096), ("rms_norm", 128, 4096), ("rms_norm", 128, 8192),
          ("rms_norm", 16, 8192), ("layer_norm", 128, 8192), ("softmax", 128, 4096),
          ("log_softmax", 1, 4096), ("cross_entropy", 128, 4096), ("cross_entropy", 128, 8192)]
REPS = 200
SPIN = 200000  # cycles of torch.cuda._sleep: ~100 us at ~2 GHz
MODES = ("zero", "read", "warm", "zero+s", "read+s")


def fns(op, M, N):
    t = torch.bfloat16
    x = torch.randn(M, N, device="cuda", dtype=t)
    w, b = torch.randn(N, device="cuda", dtype=t), torch.randn(N, device="cuda", dtype=t)
    tg = torch.randint(0, N, (M,), device="cuda")
    ref = {"rms_norm": lambda: F.rms_norm(x, (N,), w, eps=1e-6),
           "layer_norm": lambda: F.layer_norm(x, (N,), w, b, eps=1e-5),
           "softmax": lambda: torch.softmax(x, -1),
           "log_softmax": lambda: torch.log_softmax(x, -1),
           "cross_entropy": lambda: F.cross_entropy(x.float(), tg, reduction="none")}[op]
    tc = {"rms_norm": lambda: F.rms_norm(x, (N,), w, eps=1e-6),
          "layer_norm": lambda: F.layer_norm(x, (N,), w, b, eps=1e-5),
          "softmax": lambda: torch.softmax(x, -1),
          "log_softmax": lambda: torch.log_softmax(x, -1),
          "cross_entropy": lambda: F.cross_entropy(x, tg, reduction="none")}[op]
    rk = {"rms_norm": lambda: rkc.rms_norm(x, w, eps=1e-6),
          "layer_norm": lambda: rkc.layer_norm(x, w, b, eps=1e-5),
          "softmax": lambda: rkc.softmax(x),
          "log_softmax": lambda: rkc.log_softmax(x),
          "cross_entropy": lambda: rkc.cross_entropy(x, tg, reduction="none")}[op]
    comp = torch.compile(tc, dynamic=False)
    r = ref().float()
    for name, f in (("rkc", rk), ("torch.compile", comp)):
        out = f()
        out = out[0] if isinstance(out, tuple) else out
        err = ((out.float() - r).norm() / r.norm()).item()
        assert err < 2e-2, (name, op, M, N, err)
    rkc.set_pdl(False)
    rk()  # compiled once more without PDL (the launcher cache is per setting)
    rkc.set_pdl(True)
    return {"rkc": rk, "rkc-nopdl": rk, "torch.compile": comp}


def time_mode(fn, mode, cache):
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(REPS)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(REPS)]
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    for i in range(REPS):
        if mode.startswith("zero"):
            cache.zero_()
        elif mode.startswith("read"):
            cache.sum()
        if mode.endswith("+s"):
            torch.cuda._sleep(SPIN)
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    ts = sorted(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))
    return ts[len(ts) // 2]


def main():
    ncu = "--ncu" in sys.argv
    print(torch.cuda.get_device_name(), "rkc", rkc.version(), flush=True)
    built = [(s, fns(*s)) for s in SHAPES]
    if ncu:  # profiled range only: per shape in order, rkc x 3 then torch.compile x 3
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        for (op, M, N), fs in built:
            for name, f in fs.items():
                if name == "rkc-nopdl":
                    continue
                for _ in range(3):
                    f()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        for (op, M, N), fs in built:
            print("order", op, M, N, "rkc torch.compile")
        return
    cache = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    for name, f in (("zero_", cache.zero_), ("sum", cache.sum),
                    ("_sleep", lambda: torch.cuda._sleep(SPIN))):
        print("flush %-6s %8.2f us on the GPU" % (name, time_mode(f, "warm", cache)))
    print("%-14s %4s %5s %-14s" % ("op", "M", "N", "impl") + "".join("%8s" % m for m in MODES))
    for rnd in (1, 2):
        print("== round", rnd)
        for (op, M, N), fs in built:
            for name, f in fs.items():
                rkc.set_pdl(name != "rkc-nopdl")
                us = [time_mode(f, m, cache) for m in MODES]
                rkc.set_pdl(True)
                print("%-14s %4d %5d %-14s" % (op, M, N, name) + "".join("%8.2f" % u for u in us),
                      flush=True)


if __name__ == "__main__":
    main()
