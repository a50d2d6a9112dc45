#!/usr/bin/env python3
"""Session 42's planner rules over user-written row programs (no GPU): the
random programs of test/gpu/random_specs.py at f32 / bf16 and N where the
rules act, planned for an H200 (--dram-gbs 4917), by two rkc binaries
(the commit before the rules and after). For each case whose plan
changed: the old and new plans and ptxas -v's registers and spill bytes
of the new kernel (and of the old, to tell a new spill from an old one).
Session 43 reuses it for rule 3's read-only 16-bit rows (--cases
bf16:16384x8192,bf16:8192x16384,bf16:4096x32768).
Usage: rules_random_ptxas.py OLD_RKC NEW_RKC [--seeds 0-199] [--jobs 2] [--cases DT:MxN,...]"""
import argparse, concurrent.futures, os, re, subprocess, sys, tempfile
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import random_specs  # noqa: E402

CASES = [("f32", 8192, 12288), ("f32", 8192, 16384), ("f32", 4096, 20480), ("f32", 4096, 24576),
         ("f32", 4096, 32768), ("f32", 2048, 65536), ("bf16", 2048, 65536), ("f32", 512, 262144)]


def plan_and_ptx(rkc, spec, dt, shapes, ptx):
    args = [rkc, "compile", spec, "--dtype", dt, "--arch", "sm_90a", "--sms", "132",
            "--dram-gbs", "4917", "--print-plan", "--emit", "ptx", "-o", ptx]
    for k, v in shapes.items():
        args += ["--shape", "%s=%s" % (k, "x".join(map(str, v)))]
    r = subprocess.run(args, capture_output=True, text=True)
    m = re.search(r"kernel \S+: (\S+?),? \d+ threads per CTA", r.stderr)
    return (m.group(1) if m else "error: " + r.stderr.strip().splitlines()[-1][:120]), r.returncode


def ptxas(ptx):
    r = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90a", "-v", ptx, "-o", ptx + ".cubin"],
                       capture_output=True, text=True)
    regs = max([int(x) for x in re.findall(r"Used (\d+) registers", r.stderr)] or [0])
    spill = sum(int(x) for x in re.findall(r"(\d+) bytes spill stores", r.stderr))
    return regs, spill


def one(old, new, tmp, seed, dt, M, N):
    prog = random_specs.generate(seed)
    spec = os.path.join(tmp, "r%d.mlir" % seed)
    if not os.path.exists(spec):
        with open(spec, "w") as f:
            f.write(prog.text)
    shapes = random_specs.input_shapes(prog, M, N)
    base = os.path.join(tmp, "r%d_%s_%d" % (seed, dt, N))
    po, ro = plan_and_ptx(old, spec, dt, shapes, base + ".old.ptx")
    pn, rn = plan_and_ptx(new, spec, dt, shapes, base + ".new.ptx")
    if po == pn:
        return None
    so = ptxas(base + ".old.ptx") if ro == 0 else (0, 0)
    sn = ptxas(base + ".new.ptx") if rn == 0 else (0, 0)
    return "seed %3d %-4s %6d: regs/spill %3d/%-4d -> %3d/%-4d\n  old %s\n  new %s" % (
        seed, dt, N, so[0], so[1], sn[0], sn[1], po, pn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old"), ap.add_argument("new")
    ap.add_argument("--seeds", default="0-199")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cases", default=None, help="DT:MxN,... (default: session 42's)")
    a = ap.parse_args()
    cases = CASES
    if a.cases:
        cases = [(c.split(":")[0],) + tuple(map(int, c.split(":")[1].split("x")))
                 for c in a.cases.split(",")]
    lo, hi = map(int, a.seeds.split("-"))
    with tempfile.TemporaryDirectory(prefix="rkc-rules-random-") as tmp:
        jobs = [(s, dt, M, N) for s in range(lo, hi + 1) for dt, M, N in cases]
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            out = list(ex.map(lambda j: one(a.old, a.new, tmp, *j), jobs))
    changed = [o for o in out if o]
    spills = [o for o in changed if re.search(r"-> +\d+/([1-9]\d*)", o)]
    print("%d cases, %d plans changed, %d new kernels spill" % (len(jobs), len(changed), len(spills)))
    for o in changed:
        print(o)


if __name__ == "__main__":
    main()
