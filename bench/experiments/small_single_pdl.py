#!/usr/bin/env python3
"""Small-batch row ops (bench.py's "small" part: M in {1, 16, 128}, N in
{4096, 8192}, bf16), rkc launched with and without programmatic dependent
launch (rkc.set_pdl), against torch.compile and a copy of the same bytes, in
both of the benchmark's modes: "single" (do_bench after an L2 flush, one
launch) and "graph" (a CUDA graph replaying 48 launches over 48 buffers).
ROUNDS interleaved rounds; prints the median over rounds per contender (us).
A question of session 30 (docs/performance-notes.md): in single launches
rkc trailed torch.compile at 8 of 30 shapes (42cc1a5) while it led all 30 in
graph mode; does the PDL launch attribute cost the single launch?

    PYTHONPATH=python RKC_LIBRARY=.bundle/lib/librkc.so python3 bench/experiments/small_single_pdl.py
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import bench  # noqa: E402  (bench/bench.py)

ROUNDS = int(os.environ.get("ROUNDS", "3"))
OPS = os.environ.get("OPS", "rms_norm,layer_norm,softmax,log_softmax,cross_entropy").split(",")


def main():
    b = bench.GpuBackend()
    rkc, torch = b.rkc, b.torch
    print(torch.cuda.get_device_name(), "rkc", b.rkc_version, flush=True)

    def rkc_with(op, pdl):
        f = b._rkc(op)

        def run(*a):
            rkc.set_pdl(pdl)
            return f(*a)
        return run
    res = {}
    for r in range(ROUNDS):
        for op in OPS:
            comp = b.impl_fn(op, "torch.compile", "bf16")
            for N in bench.SMALL_NS:
                for M in bench.SMALL_MS:
                    args = b.make_inputs(op, "bf16", M, N)
                    sets = [b.make_inputs(op, "bf16", M, N) for _ in range(bench.GRAPH_BUFFERS)]
                    cargs = b.copy_inputs("bf16", M, N)
                    csets = [b.copy_inputs("bf16", M, N) for _ in range(bench.GRAPH_BUFFERS)]
                    for name, fn, a, s in (("rkc-pdl", rkc_with(op, True), args, sets),
                                           ("rkc-nopdl", rkc_with(op, False), args, sets),
                                           ("compile", comp, args, sets),
                                           ("copy", b.copy_fn, cargs, csets)):
                        fn(*a)
                        single = b.bench(fn, a) * 1e3
                        graph = b.graph_bench(fn, s) * 1e3
                        res.setdefault((op, M, N, name), []).append((single, graph))
                    rkc.set_pdl(True)
    print("%-13s %4s %5s | %-28s | %-28s" % ("op", "M", "N", "single us: pdl nopdl compile copy",
                                            "graph us: pdl nopdl compile copy"))
    for op in OPS:
        for N in bench.SMALL_NS:
            for M in bench.SMALL_MS:
                row = [[statistics.median(x[k] for x in res[(op, M, N, n)])
                        for n in ("rkc-pdl", "rkc-nopdl", "compile", "copy")] for k in (0, 1)]
                print("%-13s %4d %5d | %6.2f %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f %6.2f" %
                      ((op, M, N) + tuple(row[0]) + tuple(row[1])), flush=True)


if __name__ == "__main__":
    main()
