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


# The ring variants' copy of one iteration's weight blocks into a thread's
# ring slots (make_ring_variant.py, ../gemv-m16/make_ring16_variant.py): one
# 16-byte cp.async per block and column group, zero-filled past N and the
# range; `ring_w`, `slot`, `WB` and `wpos` are the variant's.
RING_WEIGHT_COPIES = """    #pragma unroll
    for (int u = 0; u < U; ++u) {
      const int s = it * U + u;
      #pragma unroll
      for (int j = 0; j < COLS; ++j) {
        const bool ok = nb + JS * j < N && s < sets;
        const rkc::u32 *p = a1 + (ok ? (long long)(kw_begin + RB * s + t) * N + nb + JS * j : 0LL);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::
                     "r"(rkc::smem_addr(ring_w + (slot * WB + u * COLS + j) * THREADS + wpos)),
                     "l"(p), "r"(ok ? 16 : 0) : "memory");
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
