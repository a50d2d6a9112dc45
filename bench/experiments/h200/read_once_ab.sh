#!/usr/bin/env bash
# Session 44: read-only rows (cross-entropy) loaded evict-first in L2 at
# every rows-per-CTA count, bench.py's sweep (its L2 flush, a 256 MiB
# memset, leaves dirty lines that plain loads evict with a write-back
# each). Three builds of librkc, two interleaved rounds:
#   base = .bundle (the commit),
#   expA = .bundle-expA: ce_read_once_rows.patch (16-bit read-once rows
#          evict-first with several rows a CTA too: ld.global.cs / hinted cp.async),
#   expB = .bundle-expB: ce_read_once_rows_nc.patch (as A, f32 rows too, and
#          the evict-first loads as ld.global.nc.L1::no_allocate with an
#          L2::evict_first cache policy instead of ld.global.cs).
# Build each: git apply PATCH; RKC_BUILD_DIR=build-static scripts/build
# -DRKC_STATIC=ON -DRKC_ENABLE_TESTS=OFF; strip build-static/lib/librkc.so
# into .bundle-expX/lib; git checkout the files; scripts/bundle.
# Not torch.compile (its figures: the bench at 80cc21b). softmax bf16 is the control (the same kernel in all three builds).
# Usage: read_once_ab.sh OUT   (repo root; PyTorch on the machine)
set -u
out=$1
mkdir -p "$out"
export PYTHONPATH=$PWD/python RKC_DISABLE_TUNING_DB=1
sweep() { # NAME LIB-DIR ROUND IMPLS ARGS...
  local b=$1 dir=$2 r=$3 impls=$4
  shift 4
  RKC_LIBRARY=$PWD/$dir/lib/librkc.so RKC_CACHE_DIR=/tmp/rkc-ro-$b \
    python3 bench/bench.py ${RO_DRY:-} --parts sweep --fresh --no-report "$@" --impls "$impls" \
    --out "$out/ro-$b-$r-$(echo "$*" | md5sum | cut -c1-6).jsonl" >> "$out/ro-$b-$r.log" 2>&1 ||
    echo "failed: $b round $r $* (see $out/ro-$b-$r.log)"
}
for r in 1 2; do
  for b in base expA expB; do
    case $b in base) dir=.bundle ;; *) dir=.bundle-$b ;; esac
    impls=rkc   # torch.compile: the bench's own run (80cc21b)
    sweep $b $dir $r $impls --ops cross_entropy --dtypes bf16,f32 --ns 256,512,1k,2k,4k,8k,16k,32k
    sweep $b $dir $r $impls --ops softmax --dtypes bf16 --ns 1k,16k
  done
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
from collections import defaultdict
out = sys.argv[1]
t = defaultdict(list)
for f in glob.glob("%s/ro-*.jsonl" % out):
    b = f.rsplit("/", 1)[1].split("-")[1]
    for l in open(f):
        r = json.loads(l)
        if r.get("kind") == "throughput" and r.get("tbps"):
            key = b if r["impl"] == "rkc" else r["impl"]
            t[(r["op"], r["dtype"], r["N"], key)].append(r["tbps"])
print("%-13s %-5s %6s %7s %7s %7s %7s %7s %8s" % ("op", "dtype", "N", "base", "expA", "expB", "A/base", "B/base", "compile"))
for k in sorted({k[:3] for k in t}):
    m = {n: statistics.median(t[k + (n,)]) for n in ("base", "expA", "expB", "torch.compile") if t.get(k + (n,))}
    if "base" in m:
        f = lambda n: "%7.3f" % m[n] if n in m else "      -"
        g = lambda n: "%7.3f" % (m[n] / m["base"]) if n in m else "      -"
        print("%-13s %-5s %6d %s %s %s %s %s %8s" % (k + (f("base"), f("expA"), f("expB"), g("expA"), g("expB"), f("torch.compile"))))
PY
