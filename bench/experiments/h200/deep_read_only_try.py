#!/usr/bin/env python3
"""Session 43: rule 3's read-only 16-bit rows at 8 vectors a thread over the
random programs whose plans it changes (deep-read-only-random.txt: seed, N,
old plan, new plan), timed by `rkc tune --try` (the tuner's harness,
reference-checked): the heuristic (the new plan) against the old plan,
M x N = 2^27, bf16. Usage: deep_read_only_try.py LIST (repo root, rkc on
PATH, RKC_DISABLE_TUNING_DB=1)."""
import os, subprocess, sys, tempfile
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import random_specs  # noqa: E402

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
        sys.stdout.flush()
