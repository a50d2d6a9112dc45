#!/usr/bin/env python3
"""Experiment tool (session 38, not product code): a variant of an emitted
tensor-core GEMV kernel (rk.gemv, mma = 1) that reloads each block of a
register buffer for the iteration two ahead right after computing it,
instead of reloading the whole buffer after the whole iteration. The SASS
of the emitted kernel issues iteration it + 2's loads only after all U
blocks of iteration it (each block sits behind its own branch); the
timelines showed that chain on the small shapes' critical path. Same loads,
same arithmetic in the same order: the output must match bit for bit.

Usage: make_recycle_variant.py IN.cu OUT.cu
"""
import sys

from emitted_edit import EMITTED_LOOP, replace_once

src = open(sys.argv[1]).read()


def sub(old, new):
    global src
    src = replace_once(src, old, new, "make_recycle_variant")


sub("  auto compute_rows = [&](int it, const Block &blk) {\n",
    "  auto compute_rows = [&](int it, Block &blk, int nit) {\n")
sub(EMITTED_LOOP, """  for (int it = it_begin; it < it_end; it += 2) {
    compute_rows(it, ba, it + 2 < it_end ? it + 2 : -1);
    if (it + 1 < it_end) compute_rows(it + 1, bb, it + 3 < it_end ? it + 3 : -1);
  }
""")
# The end of the u loop's body: the close of `if (s < set_stop) {`, then
# the close of the loop and of the lambda.
tail = "      }\n    }\n  };\n  for (int it = it_begin; it < it_end; it += 2) {\n"
sub(tail, """      }
      if (nit >= 0) { // block u's registers, for iteration nit
        const int s2 = nit * U + u;
        #pragma unroll
        for (int j = 0; j < COLS; ++j) {
          if (nb + JS * j < N && s2 < sets) {
            rkc::WeightLoad<16>::load(a1 + (long long)(kw_begin + RB * s2 + t) * N + nb + JS * j, blk.w[u][j]);
          } else {
            for (int x = 0; x < 4; ++x) blk.w[u][j][x] = 0u;
          }
        }
        const int gl = NGI == 1 ? 0 : (RB * u) / GR;
        if (NGI == 1 ? u == U - 1 : ((u + 1) * RB) % GR == 0) { // gl's last use here
          const int grp = min((kw_begin + RB * nit * U) / GR + gl, NG - 1);
          #pragma unroll
          for (int j = 0; j < COLS; ++j)
            blk.sc[gl][j].load_guarded(a2 + (long long)grp * N + nb + JS * j, N - nb - JS * j);
        }
      }
    }
  };
  for (int it = it_begin; it < it_end; it += 2) {
""")
open(sys.argv[2], "w").write(src)
