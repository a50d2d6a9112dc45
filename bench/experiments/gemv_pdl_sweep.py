"""Schedule sweep of the quantized GEMV in the decode regime with PDL.

For each (bits, K, N) and each schedule (cols, warps, cluster, unroll) in a
grid, compiles the GEMV with that schedule, captures a CUDA graph of COUNT
launches over COUNT distinct weight matrices (weights from HBM, as
bench/bench_quant.py's graph mode) launched with programmatic dependent
launch, and prints the time per GEMV (median of 15 replays), best first,
next to the heuristic's plan. Invalid schedules are skipped (the planner
rejects them). Checks every schedule's output against the heuristic's on
the first weight (so a fast schedule is a correct one).

    python3 bench/experiments/gemv_pdl_sweep.py [--shapes 4096x4096,...]
        [--bits 4,8] [--m 1] [--top 8] [--out FILE.jsonl] [--kwarps 0,1,2]
"""
import argparse
import itertools
import json
import os
import random
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))
os.environ["RKC_DISABLE_TUNING_DB"] = "1"
import bench_quant  # noqa: E402  (packed_weights, replay_ms: as the benchmark)
import rkc  # noqa: E402
from rkc import quant as Q  # noqa: E402

GROUP = bench_quant.GROUP  # the group of bench_quant.packed_weights
COUNT = 48
REPLAYS = 15


def graph_us(k, x, ws, outs):
    stream = torch.cuda.Stream()
    ptrs = [[x.data_ptr(), p.data_ptr(), s.data_ptr(), o.data_ptr()] for (p, s), o in zip(ws, outs)]
    with torch.cuda.stream(stream):
        for pt in ptrs[:2]:
            k.launch(pt, None, x.shape[0], stream.cuda_stream)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=stream):
        s = torch.cuda.current_stream().cuda_stream
        for pt in ptrs:
            k.launch(pt, None, x.shape[0], s)
    g.replay()
    torch.cuda.synchronize()
    us = bench_quant.replay_ms(torch, g, REPLAYS) * 1e3 / len(ptrs)
    del g
    return us


def _ints(s):
    return tuple(int(v) for v in s.split(",") if v.strip())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="4096x4096,4096x14336,14336x4096")
    p.add_argument("--bits", default="4,8")
    p.add_argument("--m", type=int, default=1)
    p.add_argument("--top", type=int, default=8)
    p.add_argument("--out", default=None)
    p.add_argument("--no-pdl", action="store_true")
    p.add_argument("--budget-s", type=float, default=100.0, help="per (bits, shape)")
    p.add_argument("--cols", default=None, help="default 1,2,4 (packed words, W4 and W8)")
    p.add_argument("--warps", default="4,8,16,32")
    p.add_argument("--clusters", default="1,2,4,8")
    p.add_argument("--unrolls", default="2,4,8,16")
    p.add_argument("--mma", action="store_true", help="tensor-core schedules only (mma=1)")
    p.add_argument("--kwarps", default=None,
                   help="tensor-core kernel: warps splitting K (0: all), e.g. 0,1,2,4")
    a = p.parse_args()
    pdl = not a.no_pdl
    M = a.m
    for bits in [int(b) for b in a.bits.split(",")]:
        text = rkc.quant_spec_text("gemv", bits, GROUP, True, "f16")
        # Columns per thread in packed words (int4 k8 and int8 k4 alike): 1-4.
        colsv = _ints(a.cols) if a.cols else (1, 2, 4)
        for kn in a.shapes.split(","):
            K, N = (int(v) for v in kn.split("x"))
            shapes = Q._shapes("gemv", bits, GROUP, True, 0, False, M=M, K=K, N=N)
            ws = bench_quant.packed_weights(torch, bits, K, N, COUNT)
            x = torch.randn(M, K, device="cuda", dtype=torch.float16)
            outs = [torch.empty(M, N, device="cuda", dtype=torch.float16) for _ in ws]
            heur = rkc.Kernel(text, shapes, "f16", pdl=pdl)
            t_h = graph_us(heur, x, ws, outs)
            ref = outs[0].clone()
            rows = [(t_h, "heuristic " + heur.plan)]
            t0 = time.time()
            grid = list(itertools.product(colsv, _ints(a.warps), _ints(a.clusters),
                                          _ints(a.unrolls), _ints(a.kwarps) if a.kwarps else (0,)))
            random.Random(K * 7 + N + bits).shuffle(grid)  # a budget cut samples evenly
            tried = 0
            for cols, warps, cluster, unroll, kwarps in grid:
                if time.time() - t0 > a.budget_s:
                    break
                if kwarps >= warps:
                    continue
                sched = "vector=%d,threads=%d,cluster=%d,unroll=%d" % (cols, warps * 32, cluster,
                                                                       unroll)
                if kwarps:
                    sched += ",kwarps=%d" % kwarps
                if a.mma:
                    sched += ",mma=1"
                try:
                    k = rkc.Kernel(text, shapes, "f16", schedule=sched, pdl=pdl)
                except rkc.RkcError:
                    continue
                tried += 1
                us = graph_us(k, x, ws, outs)
                err = (outs[0].float() - ref.float()).abs().max().item()
                scale = ref.float().abs().max().item() + 1e-6
                ok = err <= 4e-3 * scale
                rows.append((us if ok else float("inf"), k.plan + ("" if ok else " MISMATCH %g" % err)))
            rows.sort()
            print("== W%dA16 M=%d K=%d N=%d%s: heuristic %.2f us (%s); %d schedules in %.0f s"
                  % (bits, M, K, N, " PDL" if pdl else "", t_h, heur.plan, tried, time.time() - t0),
                  flush=True)
            for us, plan in rows[:a.top]:
                print("   %8.2f us  %s" % (us, plan), flush=True)
            if a.out:
                with open(a.out, "a") as f:
                    for us, plan in rows:
                        f.write(json.dumps({"bits": bits, "M": M, "K": K, "N": N, "pdl": pdl,
                                            "us": us if us != float("inf") else None,
                                            "plan": plan}) + "\n")
            del ws, outs
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
