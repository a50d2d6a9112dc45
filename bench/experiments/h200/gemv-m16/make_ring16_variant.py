#!/usr/bin/env python3
"""Experiment tool (session 39, not product code): a variant of an emitted
M > 8 tensor-core GEMV (the weights as B, activations staged in parts)
whose weight blocks travel through a thread-private shared-memory ring of
S = 2 iterations filled by cp.async instead of two register buffers; the
scales stay in registers (a ring of 2 loaded with each iteration's copies).

Why (session 39 item 3): at M = 16 the plan is held to 16 warps an SM by
its registers, and ptxas waits for both register buffers at the first use
of either (session 38 item 3), so ~24 KiB of the 64 KiB the buffers could
hold are in flight an SM. cp.async groups are waited by count, so S
iterations stay in flight while a warp computes, and the buffers' 32
registers go. The activations are staged with plain loads before the loop
(their cp.async parts would share the weights' group count). The
arithmetic is the emitted kernel's: the output must match it bit for bit.
Launch with OUT_SMEM bytes of shared memory (printed by this tool):
RING_OFF + 2 * 16 U COLS * THREADS.

Usage: make_ring16_variant.py IN.cu OUT.cu RING_OFF
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "gemv-trace"))
from emitted_edit import RING_WEIGHT_COPIES, replace_once  # noqa: E402

src = open(sys.argv[1]).read()
ring_off = (int(sys.argv[3]) + 15) // 16 * 16
tool = "make_ring16_variant"


def const(name):
    return int(re.search(r"constexpr int %s = (\d+);" % name, src).group(1))


# The register buffers and their loads -> the ring and its issue.
a = src.index("  Block ba, bb;\n")
b = src.index("  // PDL: the weights above may be read")
src = src[:a] + f"""  constexpr int S = 2; // ring stages (iterations of U blocks)
  constexpr int WB = U * COLS; // 16-byte weight chunks a thread an iteration
  uint4 *ring_w = reinterpret_cast<uint4 *>(rkc_smem + {ring_off});
  // a lane's slot in its warp's 32 in the order of the global addresses
  // (packed row t, then column group g): one 128-byte line, 128 bytes
  const int wpos = (tid & ~31) + 8 * t + g;
  Block sr0, sr1; // the scales of the two iterations in flight (w unused)
  auto issue = [&](int it, int slot, Block &sr) {{
{RING_WEIGHT_COPIES}    #pragma unroll
    for (int gi = 0; gi < NGI; ++gi) {{
      const int grp = min((kw_begin + RB * it * U) / GR + gi, NG - 1);
      #pragma unroll
      for (int j = 0; j < COLS; ++j)
        sr.sc[gi][j].load_guarded(a2 + (long long)grp * N + ns + 32 * j, N - ns - 32 * j);
    }}
  }};
  if (it_begin < it_end) issue(it_begin, 0, sr0);
  rkc::cp_async_commit();
  if (it_begin + 1 < it_end) issue(it_begin + 1, 1, sr1);
  rkc::cp_async_commit();
""" + src[b:]

# The activations: plain loads before the loop instead of cp.async parts.
a = src.index("  constexpr int PARTS = ")
b = src.index("  int part = 0; // the next part to wait for\n")
src = src[:a] + """  for (int j = tid; j < (kw_end - kw_begin) * KPR / 8; j += THREADS) {
    #pragma unroll
    for (int m = 0; m < MR; ++m)
      *reinterpret_cast<uint4 *>(act_s + m * (SPAN / 2) + 4 * j) =
          *reinterpret_cast<const uint4 *>(a0 + kw_begin * KPR + m * s0 + 8 * j);
  }
  __syncthreads();
""" + src[b + len("  int part = 0; // the next part to wait for\n"):]

# The loop: wait for the oldest iteration's group, take its slot into
# registers, refill the slot S iterations ahead, compute.
a = src.index("  for (int it = it_begin; it < it_end; it += 2) {\n")
b = src.index("  float f1[V];\n")
close = src.rindex("  }\n", a, b)  # the close of the weights' scope
src = src[:a] + """  auto take = [&](int slot, const Block &sr, Block &cur) {
    #pragma unroll
    for (int q = 0; q < WB; ++q) {
      const uint4 v = ring_w[(slot * WB + q) * THREADS + wpos];
      cur.w[q / COLS][q % COLS][0] = v.x; cur.w[q / COLS][q % COLS][1] = v.y;
      cur.w[q / COLS][q % COLS][2] = v.z; cur.w[q / COLS][q % COLS][3] = v.w;
    }
    #pragma unroll
    for (int gi = 0; gi < NGI; ++gi)
      #pragma unroll
      for (int j = 0; j < COLS; ++j) cur.sc[gi][j] = sr.sc[gi][j];
  };
  for (int it = it_begin; it < it_end; it += 2) {
    {
      rkc::cp_async_wait<S - 1>(); // iteration it's copies have landed
      Block cur;
      take(0, sr0, cur);
      if (it + 2 < it_end) issue(it + 2, 0, sr0);
      rkc::cp_async_commit();
      compute_rows(it, cur);
    }
    if (it + 1 < it_end) {
      rkc::cp_async_wait<S - 1>();
      Block cur;
      take(1, sr1, cur);
      if (it + 3 < it_end) issue(it + 3, 1, sr1);
      rkc::cp_async_commit();
      compute_rows(it + 1, cur);
    }
  }
""" + src[close:]
open(sys.argv[2], "w").write(src)
print(ring_off + 2 * 16 * const("U") * const("COLS") * const("WARPS") * 32)
