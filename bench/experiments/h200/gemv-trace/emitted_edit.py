"""Experiment helper (session 38, not product code) of the make_*_variant.py
tools: text edits of an emitted kernel that must each find their anchor."""
import sys

# The emitted tensor-core GEMV's double-buffered K loop (EmitColumnKernels.cpp,
# ksplitLoopBody without load_acts), the anchor of the loop variants.
EMITTED_LOOP = """  for (int it = it_begin; it < it_end; it += 2) {
    compute_rows(it, ba);
    if (it + 2 < it_end) load_rows(it + 2, ba);
    if (it + 1 < it_end) {
      compute_rows(it + 1, bb);
      if (it + 3 < it_end) load_rows(it + 3, bb);
    }
  }
"""


def replace_once(src, old, new, tool):
    """src with its one occurrence of `old` replaced by `new`; exits naming
    `tool` when `old` is not there exactly once (the emitter's text moved)."""
    n = src.count(old)
    if n != 1:
        sys.exit(f"{tool}: expected one {old!r}, found {n}")
    return src.replace(old, new)
