"""Experiment tool (not product code): a variant of an emitted streamed row
kernel (schedule keep = K) whose first sweep copies the K kept passes
straight into their shared-memory slots with cp.async, all issued before the
sweep (one commit group per pass, each waited for where the sweep reaches
it), instead of loading each pass into registers and storing it. The other
passes load as before. Same values, same order: outputs must match bit for
bit. For bench/experiments/row_cubin_bench.cpp.

  python3 bench/experiments/stream_cp_keep_variant.py IN.cu OUT.cu
"""
import re
import sys

src = open(sys.argv[1]).read()
m = re.search(r"  if \(pass < KEEP\) \{\n"
              r"    rkc::load_frag_stream<([^,]+), V, W>\((a0 \+ row \* s0), col0, COL_STEP, N, (f\d+), 0\.0f\);\n"
              r"    rkc::keep_frag<[^>]+>\(kp0 \+ pass \* V \* TPR, t, f\d+\);\n"
              r"  \} else \{\n", src)
if not m:
    sys.exit("no kept first sweep found")
T, rowp, frag = m.group(1), m.group(2), m.group(3)
waits = "".join("      case %d: rkc::cp_async_wait<%d>(); break;\n" % (k, k) for k in range(8))
new = ("  if (pass < KEEP) {\n"
       "    switch (KEEP - 1 - pass) {\n" + waits + "    }\n"
       "    rkc::load_frag_staged<%s, V, W, TPR>(kp0 + pass * V * TPR, t, %s);\n"
       "  } else {\n" % (T, frag))
src = src[:m.start()] + new + src[m.end():]
# Issue the kept passes' copies before the first sweep (whose loop is unrolled).
loop = "  for (int pass = 0; pass < PASSES; ++pass) {\n"
at = src.index(loop)
issue = ("  #pragma unroll\n"
         "  for (int pass = 0; pass < KEEP; ++pass) {\n"
         "    rkc::stage_frag<%s, V, W, TPR>(kp0 + pass * V * TPR, %s, col0_base + pass * PASS_COLS, COL_STEP, N, t);\n"
         "    rkc::cp_async_commit();\n"
         "  }\n" % (T, rowp))
src = src[:at] + issue + "  #pragma unroll\n" + src[at:]
open(sys.argv[2], "w").write(src)
