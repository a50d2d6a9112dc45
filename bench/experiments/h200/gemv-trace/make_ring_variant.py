#!/usr/bin/env python3
"""Experiment tool (session 38, not product code): a variant of an emitted
tensor-core GEMV kernel (rk.gemv, mma = 1) whose weight blocks and scales
travel through a thread-private shared-memory ring of S iterations filled
by cp.async, instead of two register buffers.

Why: the emitted kernel's SASS puts every weight and scale load on one
scoreboard and its first use waits for that scoreboard to drain, so the
compute of iteration it + 1 also waits for iteration it + 2's loads, issued
just before: nothing is in flight while a warp computes. cp.async groups
are waited by count (cp.async.wait_group S - 1 = DEPBAR.LE), so iteration
it waits for its own copies only, and S iterations stay in flight while it
computes. The activations are copied with plain loads after the PDL wait
(a cp.async group of theirs would be waited together with the weights').
The loads and arithmetic are the emitted kernel's: the output must match
it bit for bit. Launch with RING_OFF + S * (16 U COLS + 2 NGI COLS) *
THREADS bytes of shared memory (printed by this tool). A lane's slots
follow the global addresses (the first version, slots in lane order, split
every 128-byte line over 512 bytes of shared memory: 74 % excess shared
wavefronts and 48 % excess L2 sectors under ncu, 1.5-2x slower).

Usage: make_ring_variant.py IN.cu OUT.cu S RING_OFF
"""
import re
import sys

from emitted_edit import RING_WEIGHT_COPIES, replace_once

src = open(sys.argv[1]).read()
S, ring_off = int(sys.argv[3]), (int(sys.argv[4]) + 15) // 16 * 16


def sub(old, new):
    global src
    src = replace_once(src, old, new, "make_ring_variant")


def const(name):
    m = re.search(r"constexpr int %s = (\d+);" % name, src)
    return int(m.group(1))


a = src.index("  Block ba, bb;\n")
b = src.index("  // PDL: the weights above may be read")
src = src[:a] + f"""  constexpr int S = {S}; // ring stages (iterations of U blocks)
  constexpr int WB = U * COLS; // 16-byte weight chunks a thread an iteration
  constexpr int SB = NGI * COLS; // 8-byte scale chunks a thread an iteration
  uint4 *ring_w = reinterpret_cast<uint4 *>(rkc_smem + {ring_off});
  uint2 *ring_s = reinterpret_cast<uint2 *>(ring_w + S * WB * THREADS);
  // a lane's slot in its warp's 32: in the order of the global addresses
  // (packed row t, then column group g), so that the 16-byte pieces of one
  // 128-byte line land in 128 contiguous bytes; one scale slot a column group
  const int wpos = (tid & ~31) + 8 * t + g, spos = (tid >> 5) * 8 + g;
  auto issue = [&](int it, int slot) {{
{RING_WEIGHT_COPIES}    #pragma unroll
    for (int gi = 0; gi < NGI; ++gi) {{
      const int grp = min((kw_begin + RB * it * U) / GR + gi, NG - 1);
      #pragma unroll
      for (int j = 0; j < COLS; ++j) {{
        const int valid = max(0, min(4, N - nb - JS * j));
        const rkc::f16 *p = a2 + (valid > 0 ? (long long)grp * N + nb + JS * j : 0LL);
        if (t == 0) // the four lanes of a column group share its scales
          asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::
                       "r"(rkc::smem_addr(ring_s + (slot * SB + gi * COLS + j) * (THREADS / 4) + spos)),
                       "l"(p), "r"(2 * valid) : "memory");
      }}
    }}
  }};
  #pragma unroll
  for (int i = 0; i < S; ++i) {{
    if (it_begin + i < it_end) issue(it_begin + i, i);
    rkc::cp_async_commit();
  }}
""" + src[b:]
sub("""  rkc::stage_rows_async<MR, SPAN / 2>(act_s, a0 + kw_begin * KPR, s0, 0,
                                      (kw_end - kw_begin) * KPR / 8, tid, THREADS);
  rkc::cp_async_commit();
  rkc::cp_async_wait_all();
""", """  for (int j = tid; j < (kw_end - kw_begin) * KPR / 8; j += THREADS) {
    #pragma unroll
    for (int m = 0; m < MR; ++m)
      *reinterpret_cast<uint4 *>(act_s + m * (SPAN / 2) + 4 * j) =
          *reinterpret_cast<const uint4 *>(a0 + kw_begin * KPR + m * s0 + 8 * j);
  }
""")
a = src.index("  for (int it = it_begin; it < it_end; it += 2) {\n")
b = src.index("  float f1[V];\n")
close = src.rindex("  }\n", a, b)  # the close of the weights' scope
src = src[:a] + """  for (int it = it_begin, k = 0; it < it_end; ++it, ++k) {
    rkc::cp_async_wait<S - 1>(); // iteration it's copies have landed
    const int slot = k % S;
    Block cur;
    #pragma unroll
    for (int q = 0; q < WB; ++q) {
      const uint4 v = ring_w[(slot * WB + q) * THREADS + wpos];
      cur.w[q / COLS][q % COLS][0] = v.x; cur.w[q / COLS][q % COLS][1] = v.y;
      cur.w[q / COLS][q % COLS][2] = v.z; cur.w[q / COLS][q % COLS][3] = v.w;
    }
    #pragma unroll
    for (int q = 0; q < SB; ++q) {
      const uint2 v = ring_s[(slot * SB + q) * (THREADS / 4) + spos];
      static_assert(sizeof(cur.sc[0][0]) == 8, "four 16-bit scales");
      memcpy(&cur.sc[q / COLS][q % COLS], &v, 8);
    }
    if (it + S < it_end) issue(it + S, slot);
    rkc::cp_async_commit();
    compute_rows(it, cur);
  }
""" + src[close:]
open(sys.argv[2], "w").write(src)
threads = const("WARPS") * 32
ring = S * (16 * const("U") * const("COLS") + 2 * const("NGI") * const("COLS")) * threads
print(ring_off + ring)
