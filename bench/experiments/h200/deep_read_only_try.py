#!/usr/bin/env python3
"""A planner rule over the random programs whose plans it changes (LIST:
seed, N, old plan, new plan; session 43's deep-read-only-random.txt,
session 44's short-read-only-random.txt), timed by `rkc tune --try` (the
tuner's harness, reference-checked): the heuristic (the new plan) against
the old plan, M x N = 2^27, bf16. Prints each case's tuner lines, then a
summary line "-- seed S N=N heuristic/old = R" a case.
Usage: deep_read_only_try.py LIST (repo root, rkc on PATH,
RKC_DISABLE_TUNING_DB=1)."""
import os, re, subprocess, sys, tempfile
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import random_specs  # noqa: E402

summary = []
with tempfile.TemporaryDirectory() as tmp:
    for line in open(sys.argv[1]):
        if not line.strip() or line.startswith("#"):
            continue
        seed, n, old, new = line.split()
        n = int(n)
        prog = random_specs.generate(int(seed))
        spec = os.path.join(tmp, "r%s.mlir" % seed)
        with open(spec, "w") as f:
            f.write(prog.text)
        args = ["rkc", "tune", spec, "--dtype", "bf16", "--try", old]
        for k, v in random_specs.input_shapes(prog, (1 << 27) // n, n).items():
            args += ["--shape", "%s=%s" % (k, "x".join(map(str, v)))]
        r = subprocess.run(args, capture_output=True, text=True)
        print("-- seed %s N=%d" % (seed, n))
        for l in (r.stdout + r.stderr).splitlines():
            if l.startswith(("  heuristic", "  try")) or "error" in l:
                print(l)
            m = re.search(r"([\d.]+)x", l) if l.startswith("  try") else None
            if m:
                summary.append("-- seed %s N=%d heuristic/old = %.3f" % (seed, n, 1 / float(m.group(1))))
            elif "error" in l:
                summary.append("-- seed %s N=%d %s" % (seed, n, l.strip()))
        sys.stdout.flush()
print("\n".join(summary))
