#!/usr/bin/env bash
# Two builds of librkc A/B'd in bench.py's sweep: BASE = $BASE/lib (default .bundle: the
# commit), EXP = EXPDIR/lib (a patched build; the patch beside the calling
# script), two interleaved rounds, torch.compile once (round 1); then the
# median TB/s per shape of each and exp / base.
# Usage: lib_ab.sh OUT NAME EXPDIR BENCH-ARGS...   (repo root; PyTorch on
# the machine). BENCH-ARGS choose the ops, dtypes and Ns, e.g.
#   --ops rms_norm,layer_norm --dtypes bf16,f32 --ns 2k,4k
set -u
out=$1 name=$2 expdir=$3
shift 3
mkdir -p "$out"
export PYTHONPATH=$PWD/python RKC_DISABLE_TUNING_DB=1
args=(--parts sweep --fresh --no-report "$@")
for r in 1 2; do
  for b in base exp; do
    dir=${BASE:-.bundle}
    [ $b = exp ] && dir=$expdir
    impls=rkc
    [ $r = 1 ] && [ $b = base ] && impls=rkc,torch.compile
    RKC_LIBRARY=$PWD/$dir/lib/librkc.so RKC_CACHE_DIR=/tmp/rkc-$name-$b \
      python3 bench/bench.py "${args[@]}" --impls $impls --out "$out/$name-$b-$r.jsonl" \
      > "$out/$name-$b-$r.log" 2>&1 || echo "failed: $b round $r (see $out/$name-$b-$r.log)"
  done
done
python3 - "$out" "$name" <<'PY'
import glob, json, statistics, sys
from collections import defaultdict
out, name = sys.argv[1], sys.argv[2]
t = defaultdict(list)
for f in glob.glob("%s/%s-*-*.jsonl" % (out, name)):
    b = f.rsplit("/", 1)[1][len(name) + 1:].split("-")[0]
    for l in open(f):
        r = json.loads(l)
        if r.get("kind") == "throughput" and r.get("tbps"):
            key = b if r["impl"] == "rkc" else r["impl"]
            t[(r["op"], r["dtype"], r["N"], key)].append(r["tbps"])
print("%-11s %-5s %6s %8s %8s %8s %8s" % ("op", "dtype", "N", "base", "exp", "exp/base", "compile"))
for k in sorted({k[:3] for k in t}):
    m = {n: statistics.median(t[k + (n,)]) for n in ("base", "exp", "torch.compile") if t.get(k + (n,))}
    if "base" in m and "exp" in m:
        print("%-11s %-5s %6d %8.3f %8.3f %8.3f %8s" % (k + (m["base"], m["exp"], m["exp"] / m["base"],
              "%.3f" % m["torch.compile"] if "torch.compile" in m else "-")))
PY
