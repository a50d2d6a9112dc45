"""Experiment tool (not product code): a persistent variant of an emitted
streamed cluster row kernel: each cluster loops over rows (cluster c takes
rows c, c + G, ... for G clusters in the grid) instead of one row per
cluster, so a cluster's CTAs start the next row's first sweep as soon as
they finish the last one's stores, with no cluster launch in between. The
cluster reduction's buffer alternates between two copies by row parity
(a CTA can only be one row ahead of another: every row has a cluster
barrier). Launch it with G x C CTAs (G = the clusters resident at once).
Same arithmetic: outputs must match bit for bit.

  python3 bench/experiments/stream_persistent_variant.py IN.cu OUT.cu
"""
import re
import sys

s = open(sys.argv[1]).read()
s = s.replace("  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;\n"
              "  const bool row_ok = row_raw < M;\n"
              "  const long long row = row_ok ? row_raw : M - 1;\n", "")
m = re.search(r"  __shared__ (\w+) (cbuf\d+)\[(\d+)\];\n", s)
ty, buf, n = m.group(1), m.group(2), m.group(3)
s = s.replace(m.group(0), "  __shared__ %s %s_pair[2][%s];\n" % (ty, buf, n))
# The row loop starts after the kernel-start arrival and the kept-pass
# buffer's declaration, and ends with the kernel.
at = s.index("\n", s.index("rkc_smem + 0);")) + 1  # after the kept passes' buffer
loop = ("  int parity = 0;\n"
        "  for (long long row = (long long)(blockIdx.x / C); row < M; row += (long long)(gridDim.x / C), parity ^= 1) {\n"
        "  const bool row_ok = true;\n"
        "  %s *%s = %s_pair[parity];\n" % (ty, buf, buf))
s = s[:at] + loop + s[at:]
# cluster_wait (the kernel-start barrier's wait) only in the first row.
s = s.replace("  rkc::cluster_wait();\n", "  if (parity == 0 && row == (long long)(blockIdx.x / C)) rkc::cluster_wait();\n")
end = s.rindex("}")
s = s[:end] + "  }\n}\n"
open(sys.argv[2], "w").write(s)
