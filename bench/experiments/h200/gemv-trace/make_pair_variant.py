#!/usr/bin/env python3
"""Experiment tool (session 38, not product code): a variant of an emitted
tensor-core GEMV kernel (rk.gemv, mma = 1) that computes both register
buffers before reloading both: compute(it), compute(it + 1), load(it + 2),
load(it + 3), instead of compute(it), load(it + 2), compute(it + 1),
load(it + 3). The emitted kernel's SASS puts every weight load on one
scoreboard and waits for it to drain at a buffer's first use, so
compute(it + 1) waits for load(it + 2): one buffer in flight at a time and
none while computing. Loading both buffers together keeps two in flight
per wait for the same registers. Same loads and arithmetic in the same
order: the output must match bit for bit.

Usage: make_pair_variant.py IN.cu OUT.cu
"""
import sys

from emitted_edit import EMITTED_LOOP, replace_once

src = open(sys.argv[1]).read()

new = """  for (int it = it_begin; it < it_end; it += 2) {
    compute_rows(it, ba);
    if (it + 1 < it_end) compute_rows(it + 1, bb);
    if (it + 2 < it_end) load_rows(it + 2, ba);
    if (it + 3 < it_end) load_rows(it + 3, bb);
  }
"""
open(sys.argv[2], "w").write(replace_once(src, EMITTED_LOOP, new, "make_pair_variant"))
