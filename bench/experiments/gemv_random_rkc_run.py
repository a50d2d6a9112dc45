"""Experiment tool (not product code): random quantized GEMVs for `rkc run`
(the reference check) on the GPU machine, biased to the tensor-core plans
of M > 8 and long K (activations staged in parts, aliased partial sums).

    python3 bench/experiments/gemv_random_rkc_run.py OUTDIR [SEED] [COUNT]
    # on the GPU machine, with rkc on PATH:
    bash OUTDIR/run.sh
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import rkc._spec as S  # noqa: E402

out = sys.argv[1]
random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 2026)
count = int(sys.argv[3]) if len(sys.argv) > 3 else 48
os.makedirs(out, exist_ok=True)
lines = ['cd "$(dirname "$0")"', "pass=0; fail=0"]
specs = {}
for _ in range(count):
    bits = random.choice([4, 4, 8])
    sym = bits == 8 or random.random() < 0.6  # zero points: int4 only
    G = random.choice([32, 64, 128, 128, 0])
    unit = max(G, 32 if bits == 4 else 16) if G else (32 if bits == 4 else 16)
    M = random.choice([9, 11, 12, 13, 15, 16, 16, 16, 6, 8])
    K = unit * random.randint(max(1, 6000 // unit), max(2, 20480 // unit))
    N = 4 * random.randint(256, 3000)
    dt = "bf16" if (bits == 4 and random.random() < 0.3) else "f16"
    name = "w%d_g%d_%s.mlir" % (bits, G, "sym" if sym else "asym")
    specs[name] = S.quant_spec_text("gemv", bits, G, sym, "f16", 0, False)
    ng = K // G if G else 1
    sh = "--shape x=%dx%d --shape q=%dx%d --shape scales=%dx%d" % (M, K, K, N, ng, N)
    if not sym:
        sh += " --shape zeros=%dx%d" % (ng, N)
    case = "%s --dtype %s %s" % (name, dt, sh)
    lines.append('o=$(rkc run %s --reps 3 2>&1); if echo "$o" | grep -q PASS; then '
                 'pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL %s"; echo "$o" | tail -3; fi'
                 % (case, case))
lines.append('echo "rkc run random GEMVs: $pass passed, $fail failed"')
for n, t in specs.items():
    open(os.path.join(out, n), "w").write(t)
open(os.path.join(out, "run.sh"), "w").write("\n".join(lines) + "\n")
