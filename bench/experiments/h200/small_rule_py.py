#!/usr/bin/env python3
"""Session 40: one librkc build's small-batch row kernels (rkc's heuristic,
no tuning database) at DT (default f32), M in {1, 16, 128}, N in NS
(default 2048,4096), in bench.py's two modes: "single" (do_bench after an
L2 flush) and "graph" (a CUDA graph of 48 launches over 48 buffers), one
JSON line per (op, M, N) with both times in us. small_rule_ab.sh runs it
per build, interleaved, and compares.

    RKC_LIBRARY=... PYTHONPATH=python python3 small_rule_py.py OUT.jsonl
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
import bench  # noqa: E402  (bench/bench.py)

DT = os.environ.get("DT", "f32")
NS = [int(n) for n in os.environ.get("NS", "2048,4096").split(",")]
OPS = os.environ.get("OPS", "rms_norm,layer_norm,softmax").split(",")


def main():
    b = bench.GpuBackend()
    with open(sys.argv[1], "a") as out:
        for op in OPS:
            fn = b._rkc(op)
            for N in NS:
                for M in bench.SMALL_MS:
                    args = b.make_inputs(op, DT, M, N)
                    sets = [b.make_inputs(op, DT, M, N) for _ in range(bench.GRAPH_BUFFERS)]
                    fn(*args)
                    rec = {"op": op, "dtype": DT, "M": M, "N": N,
                           "plan": b.plan(op, "rkc", DT, M, N),
                           "single": b.bench(fn, args) * 1e3,
                           "graph": b.graph_bench(fn, sets) * 1e3}
                    out.write(json.dumps(rec) + "\n")
                    out.flush()


if __name__ == "__main__":
    main()
