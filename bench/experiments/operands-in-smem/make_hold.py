"""Makes the 'hold' variant of a generated split-tier row kernel: each CTA
copies its columns of the [N] operands (weights, biases) into shared memory
once, before the persistent loop over rows, and the epilogue reads them there
instead of from L2 on every row. Usage: make_hold.py IN.cu OUT.cu"""
import re
import sys

src = open(sys.argv[1]).read()
keep = int(re.search(r"constexpr int KEEP = (\d+);", src).group(1))
T = re.search(r"load_frag_stream<([\w:]+), V, W>\(a0", src).group(1)
size = 2 if "bf16" in T or "f16" in T else 4
pat = re.compile(r"rkc::load_frag_keep<([\w:]+), V, W>\((a\d+), col0, COL_STEP, N, (f\d+), 0\.0f\);")
ops = []
for m in pat.finditer(src):
    if m.group(2) not in [o[1] for o in ops]:
        ops.append((m.group(1), m.group(2)))
off = "KEEP_BYTES_"
block = ["  // hold: this CTA's columns of the [N] operands, loaded once",
         "  extern __shared__ __align__(16) unsigned char rkc_hold_smem[];"]
for i, (t, a) in enumerate(ops):
    block.append("  %s *hold_%s = reinterpret_cast<%s *>(rkc_hold_smem + %d * %d * V * TPR * PASSES + %d * V * TPR * %d);"
                 % (t, a, t, i, size, keep, size))
block.append("  for (int pass = 0; pass < PASSES; ++pass) {")
block.append("    const int col0 = (rank * TPR + t) * W + pass * PASS_COLS;")
for t, a in ops:
    block.append("    { float f[V]; rkc::load_frag<%s, V, W>(%s, col0, COL_STEP, N, f, 0.0f);" % (t, a))
    block.append("      rkc::keep_frag<%s, V, W, TPR>(hold_%s + pass * V * TPR, t, f); }" % (t, a))
block.append("  }")
anchor = "  rkc::grid_launch_dependents();\n"
assert anchor in src
src = src.replace(anchor, anchor + "\n".join(block) + "\n", 1)
src = pat.sub(lambda m: "rkc::load_frag_staged<%s, V, W, TPR>(hold_%s + pass * V * TPR, t, %s);"
              % (m.group(1), m.group(2), m.group(3)), src)
src = "// HOLD_OPS %d HOLD_BYTES_PER_OP_PASS_ELEMS %d\n" % (len(ops), size) + src
open(sys.argv[2], "w").write(src)
print("%s: %d operands held, %d bytes each per pass-slot" % (sys.argv[2], len(ops), size))
