"""Session 37 experiment (not product code): an emitted async-staged row
kernel (one row staged whole with cp.async, then folded) rewritten to fold
its values as they arrive: one cp.async group per 16-byte chunk, and the
thread fold of each group of chunks after `cp.async.wait_group` of the
chunks still allowed in flight, instead of one wait for the whole row.
The fold's order is unchanged, so the result is bit for bit the same.

    python3 make_variant.py IN.cu OUT.cu

Handles the folds of the H200's async plans: RMSNorm's generic sum of
squares (f = x * x, then r = r + f[i]: one chunk a step), LayerNorm's
rkc::fold_mean_m2<V, 16> in clusters (two chunks a step) and its row sum
in one CTA (one chunk a step; the second pass reads the staged row again
after every chunk has arrived)."""
import re
import sys

src = open(sys.argv[1]).read()
V = int(re.search(r"constexpr int V = (\d+);", src).group(1))
W = int(re.search(r"constexpr int W = (\d+);", src).group(1))
chunks = V // W
assert chunks <= 8, "cp.async.wait_group takes 0..7"

stage = re.search(r"  rkc::stage_frag<(rkc::\w+), V, W, TPR>\(st0, (a0 \+ row \* s0), col0_base, "
                  r"COL_STEP, N, t\);\n  rkc::cp_async_commit\(\);\n", src)
T, rowp = stage.group(1), stage.group(2)
per_chunk = "".join(
    "  rkc::stage_frag<%s, W, W, TPR>(st0 + %d * (TPR * W), %s, col0_base + %d * COL_STEP, "
    "COL_STEP, N, t);\n  rkc::cp_async_commit();\n" % (T, c, rowp, c) for c in range(chunks))
src = src.replace(stage.group(0), per_chunk)

load = re.search(r"  rkc::cp_async_wait_all\(\);\n  rkc::PackedFrag<%s, V> (f\d+);\n"
                 r"  rkc::load_frag_staged<%s, V, W, TPR>\(st0, t, \1\);\n" % (T, T), src)
x = load.group(1)
src = src.replace(load.group(0), "")

def wait_load(c, n, name):
    return ("  rkc::cp_async_wait<%d>();\n  rkc::PackedFrag<%s, %d> %s;\n"
            "  rkc::load_frag_staged<%s, %d, W, TPR>(st0 + %d * (TPR * W), t, %s);\n"
            % (chunks - c - n, T, n * W, name, T, n * W, c, name))

m = re.search(r"  rkc::fold_mean_m2<V, 16>\(%s, (\[&\]\(int i\) \{[^\n]*?\}), "
              r"(\[&\]\(int c, float n, float m, float q\) \{[^\n]*?\})\);\n" % x, src)
sm = re.search(r"  float (r\d+) = 0\.0f;\n  #pragma unroll\n  for \(int i = 0; i < V; \+\+i\) \{\n"
               r"[^\n]*\n    if \(FULL_ROW \|\| col < N\) \1 = rkc::OpAdd\(\)\(\1, %s\[i\]\);\n  \}\n"
               % x, src)
if m:  # LayerNorm: drop the dead count / zero fragments of x, fold 16 at a time
    src = re.sub(r"  float (f\d+)\[V\];\n  #pragma unroll\n  for \(int i = 0; i < V; \+\+i\) \{\n"
                 r"    const float v\d+ = %s\[i\];\n    const float v\d+ = (1|0)\.0f;\n"
                 r"    \1\[i\] = v\d+;\n  \}\n" % x, "", src)
    n = 16 // W
    body = "".join(wait_load(c, n, "%s_%d" % (x, c)) +
                   "  rkc::fold_mean_m2<%d, 16>(%s_%d, [&](int) { return true; }, %s);\n"
                   % (n * W, x, c, m.group(2)) for c in range(0, chunks, n))
    src = src.replace(m.group(0), body)
elif sm:  # a row sum of x (LayerNorm's first pass in one CTA)
    r = sm.group(1)
    body = "  float %s = 0.0f;\n" % r + "".join(
        wait_load(c, 1, "%s_%d" % (x, c)) +
        "  #pragma unroll\n  for (int i = 0; i < W; ++i) %s = rkc::OpAdd()(%s, %s_%d[i]);\n"
        % (r, r, x, c) for c in range(chunks))
    src = src.replace(sm.group(0), body)
else:  # RMSNorm: f = x * x over V, then the sum over V
    sq = re.search(r"  float (f\d+)\[V\];\n  #pragma unroll\n  for \(int i = 0; i < V; \+\+i\) \{\n"
                   r"    const float (v\d+) = %s\[i\];\n    const float (v\d+) = \(\2 \* \2\);\n"
                   r"    \1\[i\] = \3;\n  \}\n  float (r\d+) = 0\.0f;\n  #pragma unroll\n"
                   r"  for \(int i = 0; i < V; \+\+i\) \{\n.*?\n    if \(FULL_ROW \|\| col < N\) "
                   r"\4 = rkc::OpAdd\(\)\(\4, \1\[i\]\);\n  \}\n" % x, src, re.S)
    r = sq.group(4)
    body = "  float %s = 0.0f;\n" % r + "".join(
        wait_load(c, 1, "%s_%d" % (x, c)) +
        "  #pragma unroll\n  for (int i = 0; i < W; ++i) { const float v = %s_%d[i]; "
        "%s = rkc::OpAdd()(%s, v * v); }\n" % (x, c, r, r) for c in range(chunks))
    src = src.replace(sq.group(0), body)
assert "cp_async_wait_all" not in src
open(sys.argv[2], "w").write(src)
