"""Session 38 (CPU): every W4A16 / W8A16 GEMV of M = 1-16 at K in {4096, 14336, 28672}, N in
{4096, 14336} planned for sm_80 / sm_86 / sm_89 through the binding (quant.kernel), its PTX
assembled by ptxas -v: whether it plans (before session 38 M = 16 at K >= 4096 did not on
sm_86 / sm_89), staged or acts=global, registers and spill bytes.
Usage: PYTHONPATH=python RKC_LIBRARY=build/lib/librkc.so python3 bench/experiments/gemv_sm8x_sweep.py
"""
import itertools, subprocess, tempfile, os, re, sys
sys.path.insert(0, "python")
from rkc import quant
rows = []
for arch, bits, sym, dt, M, K, N in itertools.product(
        ["sm_86", "sm_89", "sm_80"], [4, 8], [True, False], ["f16", "bf16"], [1, 4, 8, 9, 16],
        [4096, 14336, 28672], [4096, 14336]):
    if bits == 8 and (not sym or dt == "bf16"):
        continue
    try:
        k = quant.kernel("gemv", dt, bits=bits, group_size=128, symmetric=sym, M=M, K=K, N=N, arch=arch)
    except Exception as e:
        rows.append((arch, bits, sym, dt, M, K, N, "ERROR " + str(e).splitlines()[0][:100]))
        continue
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "k.ptx")
        open(p, "w").write(k.ptx)
        out = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=" + arch, "-v", p, "-o", os.path.join(d, "k.cubin")],
                             capture_output=True, text=True).stderr
    regs = re.search(r"Used (\d+) registers", out)
    spill = re.search(r"(\d+) bytes spill stores", out)
    g = "global" if "acts=global" in k.plan else "staged"
    rows.append((arch, bits, sym, dt, M, K, N, "%s regs %s spill %s" % (g, regs.group(1) if regs else "?", spill.group(1) if spill else "?")))
for r in rows:
    print(*r)
