#!/usr/bin/env bash
# Session 40: a planner rule's small-batch rows, two librkc builds (BASE in
# .bundle-base/lib, NEW in .bundle/lib), ROUNDS interleaved rounds of
# small_rule_py.py (DT, NS, OPS pass through), then each shape's median
# over rounds in both modes and new / base.
# Usage: small_rule_ab.sh OUT   (repo root; PyTorch on the machine)
set -u
out=$1
d=bench/experiments/h200
mkdir -p "$out"
export PYTHONPATH=$PWD/python RKC_DISABLE_TUNING_DB=1
for r in $(seq ${ROUNDS:-2}); do
  for b in base new; do
    dir=.bundle
    [ $b = base ] && dir=.bundle-base
    RKC_LIBRARY=$PWD/$dir/lib/librkc.so RKC_CACHE_DIR=/tmp/rkc-rule-$b \
      python3 $d/small_rule_py.py "$out/rule-$b.jsonl" > "$out/rule-$b-$r.log" 2>&1 ||
      echo "failed: $b round $r (see $out/rule-$b-$r.log)"
  done
done
python3 - "$out" <<'PY'
import json, statistics, sys
from collections import defaultdict
t, plan = defaultdict(list), {}
for b in ("base", "new"):
    for l in open(sys.argv[1] + "/rule-%s.jsonl" % b):
        r = json.loads(l)
        k = (r["op"], r["dtype"], r["M"], r["N"])
        t[k + (b,)].append((r["single"], r["graph"]))
        plan[k + (b,)] = (r.get("plan") or "").split(",vector")[0]
print("%-11s %-4s %4s %5s | %7s %7s %6s | %7s %7s %6s | plans" % (
    "op", "dt", "M", "N", "single", "new", "ratio", "graph", "new", "ratio"))
for k in sorted({k[:4] for k in t}):
    a, n = t.get(k + ("base",)), t.get(k + ("new",))
    if not (a and n):
        continue
    m = [statistics.median(x[i] for x in v) for v in (a, n) for i in (0, 1)]
    print("%-11s %-4s %4d %5d | %7.2f %7.2f %6.3f | %7.2f %7.2f %6.3f | %s -> %s" % (
        k + (m[0], m[2], m[0] / m[2], m[1], m[3], m[1] / m[3],
             plan[k + ("base",)], plan[k + ("new",)])))
PY
