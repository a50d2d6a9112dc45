#!/usr/bin/env bash
# Session 40: rkc's 16-byte row loads through the read-only path
# (ld.global.nc, LDG.E.128.CONSTANT: the emitted kernels' `const
# __restrict__` rows) against the coherent path Triton's kernels use
# (ld.global, LDG.E.128; ldg_coherent.patch on templates/rkc/vec.cuh),
# at the mid-length rows where torch.compile leads on the H200. bench.py's
# sweep (RMSNorm / LayerNorm, bf16 / f32, N = 2k-16k, rkc's heuristic):
# BASE = .bundle/lib, EXP = .bundle-exp/lib (the patched build), two
# interleaved rounds, torch.compile once; then TB/s per shape.
# Usage: ldg_ab.sh OUT   (repo root; PyTorch on the machine)
set -u
out=$1
mkdir -p "$out"
export PYTHONPATH=$PWD/python RKC_DISABLE_TUNING_DB=1
args=(--parts sweep --ops rms_norm,layer_norm --dtypes bf16,f32 --ns 2k,4k,8k,16k --fresh --no-report)
for r in 1 2; do
  for b in base exp; do
    dir=.bundle
    [ $b = exp ] && dir=.bundle-exp
    impls=rkc
    [ $r = 1 ] && [ $b = base ] && impls=rkc,torch.compile
    RKC_LIBRARY=$PWD/$dir/lib/librkc.so RKC_CACHE_DIR=/tmp/rkc-ldg-$b \
      python3 bench/bench.py "${args[@]}" --impls $impls --out "$out/ldg-$b-$r.jsonl" \
      > "$out/ldg-$b-$r.log" 2>&1 || echo "failed: $b round $r (see $out/ldg-$b-$r.log)"
  done
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
from collections import defaultdict
t = defaultdict(list)
for f in glob.glob(sys.argv[1] + "/ldg-*-*.jsonl"):
    b = f.rsplit("/", 1)[1].split("-")[1]
    for l in open(f):
        r = json.loads(l)
        if r.get("kind") == "throughput" and r.get("tbps"):
            name = b if r["impl"] == "rkc" else r["impl"]
            t[(r["op"], r["dtype"], r["N"], name)].append(r["tbps"])
print("%-11s %-5s %6s %8s %8s %8s %8s" % ("op", "dtype", "N", "base", "exp", "exp/base", "compile"))
for k in sorted({k[:3] for k in t}):
    m = {n: statistics.median(t[k + (n,)]) for n in ("base", "exp", "torch.compile") if t.get(k + (n,))}
    if "base" in m and "exp" in m:
        print("%-11s %-5s %6d %8.3f %8.3f %8.3f %8s" % (k + (m["base"], m["exp"], m["exp"] / m["base"],
              "%.3f" % m["torch.compile"] if "torch.compile" in m else "-")))
PY
