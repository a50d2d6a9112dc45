"""Variants of an emitted async-staged row kernel (session 36): the
epilogue in groups of one 16-byte chunk instead of two (16-bit data), and
launch bounds asking for K CTAs an SM. Usage:
  python3 make_variants.py KERNEL.cu OUTPREFIX [K...]
writes OUTPREFIX-g1.cu and, for each K, OUTPREFIX-mK.cu and OUTPREFIX-g1-mK.cu."""
import re
import sys

src, prefix, ks = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3:]
two = "chunk += 2) {\n  constexpr int V = 2 * W;"
assert two in src, "no epilogue groups of two chunks"
g1 = src.replace(two, "chunk += 1) {\n  constexpr int V = 1 * W;")
variants = {"g1": g1}
for k in ks:
    bound = lambda s: re.sub(r"__launch_bounds__\((\d+)(, \d+)?\)",
                             lambda m: f"__launch_bounds__({m.group(1)}, {k})", s)
    variants[f"m{k}"] = bound(src)
    variants[f"g1-m{k}"] = bound(g1)
for name, text in variants.items():
    open(f"{prefix}-{name}.cu", "w").write(text)
