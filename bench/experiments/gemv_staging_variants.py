"""Experiment tool (not product code): hand-edited variants of how an
emitted tensor-core GEMV (rkc compile --emit cuda, before 2026-11-25's
session 19) stages its activations, for bench/experiments/gemv_graph.cpp.

    python3 gemv_staging_variants.py KERNEL.cu PREFIX

writes PREFIX{base,nostage,chP_D,fast,fchP_D}.cu:
  nostage  no staging at all (wrong results: the ceiling of the idea)
  chP_D    P parts of each K-split warp's range, D in flight, copied with
           the emitted loop's index arithmetic (a division per 16 bytes)
  fast     all at once, one address per 16-byte unit of all MR rows
  fchP_D   P parts, D in flight, with fast's loop (what rkc now emits)
Compile each with nvrtc_cubin.cpp, time with gemv_graph (chP_D, fast and
fchP_D must match base exactly)."""
import sys

src = open(sys.argv[1]).read()
pre = sys.argv[2]
stage = src[src.index("  for (int i = tid; i < MR * (SPAN / 8); i += THREADS) {"):
            src.index("  const rkc::u32 *act_g")]
loop = src[src.index("  for (int it = it_begin; it < it_end; it += 2) {"):src.index("  float f1[V];")]
act = "rkc::bf16" if "const rkc::bf16 *__restrict__ a0" in src else "rkc::f16"

FAST = """  {
    const ACT *src0 = a0 + kw_begin * KPR;
    const int units = (kw_end - kw_begin) * KPR / 8;
    for (int j = tid; j < units; j += THREADS) {
      #pragma unroll
      for (int m = 0; m < MR; ++m) rkc::cp_async_16(act_s + m * (SPAN / 2) + j * 4, src0 + m * s0 + j * 8);
    }
  }
  rkc::cp_async_commit();
  rkc::cp_async_wait_all();
  __syncthreads();
"""

COPY_DIV = """      for (int i = gtid; i < MR * (u1 - u0); i += GT) {
        const int m = i / (u1 - u0), j = u0 + i % (u1 - u0);
        rkc::cp_async_16(act_s + m * (SPAN / 2) + j * 4, src0 + m * s0 + j * 8);
      }
"""
COPY_FAST = """      for (int j = u0 + gtid; j < u1; j += GT) {
        #pragma unroll
        for (int m = 0; m < MR; ++m) rkc::cp_async_16(act_s + m * (SPAN / 2) + j * 4, src0 + m * s0 + j * 8);
      }
"""
PARTS = """  constexpr int GT = 32 * (WARPS / KWARPS);
  const int gtid = (warp / KWARPS) * 32 + lane;
  const int npair = (it_end - it_begin + 1) / 2;
  auto bound = [&](int c) { return min(it_end, it_begin + 2 * (c * npair / NCH)); };
  const ACT *src0 = a0 + kw_begin * KPR;
  auto stage_chunk = [&](int c) {
    if (c < NCH) {
      const int u0 = bound(c) * U * (RB * KPR / 8);
      const int u1 = min(bound(c + 1) * U, sets) * (RB * KPR / 8);
COPY    }
    rkc::cp_async_commit();
  };
  auto group_sync = [&]() {
    if constexpr (GT > 32) asm volatile("bar.sync %0, %1;" :: "r"(1 + kwarp), "n"(GT) : "memory");
    else __syncwarp();
  };
  auto wait_chunk = [&](int c) {
    asm volatile("cp.async.wait_group DM1;" ::: "memory");
    group_sync();
    stage_chunk(c + DEPTH);
  };
  int next = 0;
"""


def parts(nch, depth, copy):
    st = (PARTS.replace("COPY", copy).replace("NCH", str(nch)).replace("DM1", str(depth - 1))
          .replace("DEPTH", str(depth)))
    st += "".join("  stage_chunk(%d);\n" % c for c in range(depth))
    head = "  for (int it = it_begin; it < it_end; it += 2) {\n"
    lp = loop.replace(head, head + "    while (next < %d && bound(next) <= it) { wait_chunk(next); ++next; }\n" % nch)
    s = src.replace(stage, st).replace(loop, lp)
    return s.replace("  float f1[V];", "  rkc::cp_async_wait_all();\n  float f1[V];")


out = {"base": src, "nostage": src.replace(stage, "  __syncthreads();\n"), "fast": src.replace(stage, FAST)}
for nch, depth in [(4, 4), (8, 8), (4, 2), (8, 2), (8, 3), (16, 2), (16, 4)]:
    out["ch%d_%d" % (nch, depth)] = parts(nch, depth, COPY_DIV)
for nch, depth in [(2, 2), (4, 4), (4, 2), (8, 2)]:
    out["fch%d_%d" % (nch, depth)] = parts(nch, depth, COPY_FAST)
for name, text in out.items():
    open(pre + name + ".cu", "w").write(text.replace("ACT", act))
