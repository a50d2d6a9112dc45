"""Experiment tool (session 39, not product code): ceilings of the M > 8
tensor-core GEMV's loop, each removing one kind of work from an emitted
kernel (wrong results by construction; they bound what that work costs):
  noperm   the activations' pair_k8 (4 PRMT per 8 values of a row) skipped
  halfmma  the second m16n8k16 of each 32 values of K skipped
  nodeq    the int4 words used as f16 pairs without dequantization
Usage: make_ceiling_variant.py IN.cu OUT.cu KIND"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "gemv-trace"))
from emitted_edit import replace_once  # noqa: E402

src, dst, kind = sys.argv[1:4]
text = open(src).read()
tool = "make_ceiling_variant"
if kind == "noperm":
    for half in ("a0", "a1"):
        text = replace_once(text, f"{half} = rkc::pair_k8(", f"{half} = (", tool)
elif kind == "halfmma":
    text = replace_once(
        text, "rkc::mma_16816<false>(d, a0.z, a1.z, a0.w, a1.w, h[2], h[3]);",
        "if (h[2] == 0x12345678u) rkc::mma_16816<false>(d, a0.z, a1.z, a0.w, a1.w, h[2], h[3]);", tool)
elif kind == "nodeq":
    text = replace_once(
        text, "rkc::u4x8_to_pairs<false, true>(blk.w[u][j][c], off2, h);",
        "h[0] = blk.w[u][j][c]; h[1] = h[0] ^ off2; h[2] = h[0] >> 4; h[3] = h[0] >> 8;", tool)
else:
    sys.exit(f"{tool}: unknown kind {kind}")
open(dst, "w").write(text)
