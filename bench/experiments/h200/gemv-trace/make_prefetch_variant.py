#!/usr/bin/env python3
"""Experiment tool (session 38, not product code): a variant of an emitted
tensor-core GEMV kernel (rk.gemv, mma = 1, one column group a lane) that,
before its PDL wait, asks L2 for the weight rows of the DEPTH iterations
after the two it holds in registers (every remaining one with DEPTH = all):
one `prefetch.global.L2[::evict_last]` a 128-byte line, from the lane whose
16 bytes start it. The timelines (make_trace_variant.py) showed DRAM idle
for ~1.7 us a launch between the previous kernel's end and this one's loop;
these prefetches are meant to be in flight then. Arithmetic untouched: the
output must match the emitted kernel's bit for bit.

Usage: make_prefetch_variant.py IN.cu OUT.cu DEPTH|all normal|last
"""
import sys

from emitted_edit import replace_once

src = open(sys.argv[1]).read()
depth = 1 << 20 if sys.argv[3] == "all" else int(sys.argv[3])
hint = "prefetch.global.L2::evict_last" if sys.argv[4] == "last" else "prefetch.global.L2"
anchor = "  rkc::grid_dependency_wait(); // PDL: the previous kernel is done\n"
if "constexpr int COLS = 1;" not in src:
    sys.exit("make_prefetch_variant: expected COLS = 1")
src = replace_once(src, anchor, f'''  {{ // L2 prefetch of this thread's later weight rows (experiment)
    const int pf_end = min(it_end, it_begin + 2 + {depth});
    if ((nb & 31) == 0 && nb < N) {{
      for (int it = it_begin + 2; it < pf_end; ++it) {{
        #pragma unroll
        for (int u = 0; u < U; ++u) {{
          const int s = it * U + u;
          if (s < sets)
            asm volatile("{hint} [%0];" :: "l"(a1 + (long long)(kw_begin + RB * s + t) * N + nb));
        }}
      }}
    }}
  }}
''' + anchor, "make_prefetch_variant")
open(sys.argv[2], "w").write(src)
