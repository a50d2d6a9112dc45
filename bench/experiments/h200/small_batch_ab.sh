#!/usr/bin/env bash
# Session 39: the small-batch part of bench/bench.py (bf16, M in {1, 16,
# 128}, N in {4096, 8192}; a single launch after an L2 flush and a CUDA
# graph of 48) with two librkc builds (lib/librkc.so only), ROUNDS interleaved rounds: BASE
# (.bundle-base) and NEW (.bundle-new: lib/ only), rkc only (the heuristic: no tuning
# database), then a table of both modes' medians over rounds (us).
# Usage: small_batch_ab.sh OUT   (repo root; PyTorch on the machine)
set -u
out=$1
mkdir -p "$out"
export PYTHONPATH=$PWD/python RKC_DISABLE_TUNING_DB=1
for r in $(seq ${ROUNDS:-2}); do
  for b in base new; do
    dir=.bundle-new
    [ $b = base ] && dir=.bundle-base
    RKC_LIBRARY=$PWD/$dir/lib/librkc.so RKC_CACHE_DIR=/tmp/rkc-ab-$b-$r \
      python3 bench/bench.py --parts small --ops ${OPS:-layer_norm,rms_norm,softmax} --impls rkc \
      --out "$out/small-$b-$r.jsonl" --fresh --no-report > "$out/small-$b-$r.log" 2>&1 ||
      echo "bench failed: $b round $r (see $out/small-$b-$r.log)"
  done
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
from collections import defaultdict
t = defaultdict(list)
for f in glob.glob(sys.argv[1] + "/small-*-*.jsonl"):
    b = f.rsplit("/", 1)[1].split("-")[1]
    for l in open(f):
        r = json.loads(l)
        if r.get("impl") == "rkc" and r.get("us") and r.get("mode"):
            t[(r["op"], r["M"], r["N"], r["mode"], b)].append(r["us"])
keys = sorted({k[:4] for k in t})
print("%-12s %4s %5s %-7s %8s %8s %7s" % ("op", "M", "N", "mode", "base us", "new us", "new/base"))
for k in keys:
    a, n = t.get(k + ("base",)), t.get(k + ("new",))
    if a and n:
        ma, mn = statistics.median(a), statistics.median(n)
        print("%-12s %4d %5d %-7s %8.2f %8.2f %7.3f" % (k + (ma, mn, mn / ma)))
PY
