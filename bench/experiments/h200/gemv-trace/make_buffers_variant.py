#!/usr/bin/env python3
"""Experiment tool (session 38, not product code): a variant of an emitted
tensor-core GEMV kernel (rk.gemv, mma = 1) with NB register buffers of
weight blocks instead of two: NB iterations are loaded before the PDL
wait, and iteration it + NB is loaded after iteration it is computed. With
the emitted unroll halved and NB = 4 the bytes in flight a thread are the
same as unroll U with two buffers, but a reload waits for half as much
compute. Same loads and arithmetic in the same order: the output must match
the emitted kernel's (of the same unroll) bit for bit.

Usage: make_buffers_variant.py IN.cu OUT.cu NB
"""
import sys

from emitted_edit import EMITTED_LOOP, replace_once

src = open(sys.argv[1]).read()
nb = int(sys.argv[3])
names = ["b%d" % i for i in range(nb)]


def sub(old, new):
    global src
    src = replace_once(src, old, new, "make_buffers_variant")


sub("  Block ba, bb;\n", "  Block %s;\n" % ", ".join(names))
sub("  if (it_begin < it_end) load_rows(it_begin, ba);\n"
    "  if (it_begin + 1 < it_end) load_rows(it_begin + 1, bb);\n",
    "".join(f"  if (it_begin + {i} < it_end) load_rows(it_begin + {i}, {b});\n"
            for i, b in enumerate(names)))
sub(EMITTED_LOOP, f"  for (int it = it_begin; it < it_end; it += {nb}) {{\n" + "".join(
    f"    if (it + {i} < it_end) {{\n"
    f"      compute_rows(it + {i}, {b});\n"
    f"      if (it + {i + nb} < it_end) load_rows(it + {i + nb}, {b});\n"
    f"    }}\n" for i, b in enumerate(names)) + "  }\n")
open(sys.argv[2], "w").write(src)
