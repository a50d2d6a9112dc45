#!/usr/bin/env python3
"""Experiment tool (session 40, not product code): a variant of an emitted
tensor-core GEMV kernel (rk.gemv, mma = 1) that loads only its first
register buffer before the PDL wait. The emitted kernel issues both
buffers' weight loads before the wait, so the activations' staging (after
the wait) queues behind them: session 38's timelines put the first block
in registers 1.73 us after the previous launch, 0.77 us of it the
activations' L2 latency behind the weights. MODE "issue": the second
buffer's loads go right after the staging's cp.async is issued (before
its wait); "after": after the staged activations are in shared memory.
Same loads and arithmetic: the output must match bit for bit.

Usage: make_lateb_variant.py IN.cu OUT.cu issue|after
"""
import sys

from emitted_edit import replace_once

tool = "make_lateb_variant"
src = open(sys.argv[1]).read()
mode = sys.argv[3]
second = "  if (it_begin + 1 < it_end) load_rows(it_begin + 1, bb);\n"
src = replace_once(src, second, "", tool)
if mode == "issue":
    anchor = "  rkc::cp_async_commit();\n  rkc::cp_async_wait_all();\n"
    src = replace_once(src, anchor, "  rkc::cp_async_commit();\n" + second +
                       "  rkc::cp_async_wait_all();\n", tool)
elif mode == "after":
    anchor = "  rkc::cp_async_wait_all();\n  __syncthreads();\n"
    src = replace_once(src, anchor, anchor + second, tool)
else:
    sys.exit(f"{tool}: mode must be issue or after, not {mode!r}")
open(sys.argv[2], "w").write(src)
