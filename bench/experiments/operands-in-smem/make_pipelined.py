"""Makes the 'pipelined' variant of a generated split-tier (grid) row kernel
with one kept pass (schedule keep = 1, PASSES = 1): the CTA's part of each
row is copied into shared memory by cp.async instead of loaded into
registers and kept, into one of two buffers, and the copies of the next row
of the persistent loop are issued before the row's grid barrier, so that
they are in flight while the CTA waits for its group and stores its
epilogue (session 30: thread 0 of a split CTA spends ~35 % of each row in
the grid barrier). Twice the shared memory of the base kernel; same values
in the same order, so outputs match the base bit for bit.
Usage: make_pipelined.py IN.cu OUT.cu"""
import re
import sys

src, out = open(sys.argv[1]).read(), sys.argv[2]
assert "constexpr int PASSES = 1;" in src and "constexpr int KEEP = 1;" in src, "one kept pass only"
kept = re.search(r"    rkc::load_frag_stream<([\w:]+), V, W>\(a0 \+ row \* s0, col0, COL_STEP, N, (f\d+), 0\.0f\);\n"
                 r"    rkc::keep_frag<[^>]+>\(kp0 \+ pass \* V \* TPR, t, f\d+\);\n", src)
assert kept, "no kept first sweep"
T, frag = kept.group(1), kept.group(2)
src = src[:kept.start()] + ("    rkc::cp_async_wait<0>();\n"
                            "    rkc::load_frag_staged<%s, V, W, TPR>(kp0, t, %s);\n" % (T, frag)) + src[kept.end():]
stage = ("rkc::stage_frag_stream<%s, V, W, TPR>(reinterpret_cast<%s *>(rkc_smem) + (%%s) * V * TPR, "
         "a0 + %%s * s0, (rank * TPR + t) * W, COL_STEP, N, t);" % (T, T))
loop = "  for (long long rkc_group = blockIdx.x / C; rkc_group < M;\n"
assert loop in src
src = src.replace(loop, "  extern __shared__ __align__(16) unsigned char rkc_smem[];\n"
                  "  int pl_buf = 0;\n"
                  "  if (blockIdx.x / C < M) " + stage % ("0", "(long long)(blockIdx.x / C)") + "\n"
                  "  rkc::cp_async_commit();\n" + loop, 1)
kp = re.search(r"  ([\w:]+) \*kp0 = reinterpret_cast<[\w:]+ \*>\(rkc_smem \+ 0\);\n", src)
assert kp
src = src[:kp.start()] + ("  %s *kp0 = reinterpret_cast<%s *>(rkc_smem) + pl_buf * V * TPR;\n" % (kp.group(1), kp.group(1))) + src[kp.end():]
gr = re.search(r"\n(  const \w+ r\d+ = rkc::grid_reduce<[^\n]*\n)", src)
assert gr, "no rkc::grid_reduce (the emitter of 181b3fc or later defers it already)"
nxt = ("  { const long long pl_next = rkc_group + gridDim.x / C;\n"
       "    if (pl_next < M) " + stage % ("pl_buf ^ 1", "pl_next") + "\n"
       "    rkc::cp_async_commit(); }\n")
src = src[:gr.start(1)] + nxt + src[gr.start(1):]
end = "  __syncthreads();\n  }\n  rkc::grid_finish"
assert end in src
src = src.replace(end, "  pl_buf ^= 1;\n" + end, 1)
open(out, "w").write(src)
