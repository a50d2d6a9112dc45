"""Experiment tool (not product code): variants of an emitted staged cluster
row kernel (RMSNorm / LayerNorm) whose epilogue loads of the [N] operands
(weight, bias) are issued earlier, for bench/experiments/row_cubin_bench.cpp.

  python3 bench/experiments/row_prefetch_variants.py IN.cu OUTDIR [VARIANT,...]

Writes OUTDIR/<variant>.cu:
  base         the emitted kernel
  pre_barrier  every [N] fragment loaded into registers before the cluster
               barrier (cluster_wait), the epilogue reads the registers
  pre_stage    the same, issued right after the row's cp.async copy
  pipeD        the first D epilogue groups' fragments before the barrier, each
               later group's D groups ahead (pipe1, pipe2, ...)
The arithmetic and its order are unchanged: outputs must match bit for bit.
"""
import os
import re
import sys

LOAD = re.compile(r"^(\s*)rkc::(load_frag(?:_keep)?)<([^,]+), V, W>\((a\d+), col0, COL_STEP, N, (f\d+), 0\.0f\);$")


def parse(text):
    lines = text.split("\n")
    loop = next(i for i, l in enumerate(lines) if l.strip().startswith("for (int chunk = 0; chunk < V / W; chunk += "))
    group = int(re.search(r"chunk \+= (\d+)", lines[loop]).group(1))
    loads = []
    for i in range(loop, len(lines)):
        m = LOAD.match(lines[i])
        if m:
            loads.append((i, m.group(2), m.group(3), m.group(4), m.group(5)))
    return lines, loop, group, loads


def declare(T, name, n):
    return ("rkc::PackedFrag<%s, %s> %s;" % (T, n, name)) if T != "float" else ("float %s[%s];" % (name, n))


def copy_in(T, dst, src, count, offset):
    """dst (a group's fragment) = src[offset .. offset + count) (values)."""
    if T != "float":
        return ("#pragma unroll\n  for (int j = 0; j < %s / 2; ++j) %s.w[j] = %s.w[(%s) / 2 + j];"
                % (count, dst, src, offset))
    return "#pragma unroll\n  for (int j = 0; j < %s; ++j) %s[j] = %s[%s + j];" % (count, dst, src, offset)


def copy_out(T, dst, src, count, offset):
    """dst[offset ..] = src (a group's fragment)."""
    if T != "float":
        return ("#pragma unroll\n  for (int j = 0; j < %s / 2; ++j) %s.w[(%s) / 2 + j] = %s.w[j];"
                % (count, dst, offset, src))
    return "#pragma unroll\n  for (int j = 0; j < %s; ++j) %s[%s + j] = %s[j];" % (count, dst, offset, src)


def variant(text, kind):
    lines, loop, group, loads = parse(text)
    out = list(lines)
    # In the loop: replace each declaration + load by a copy from the prefetched array.
    for i, fn, T, a, f in loads:
        out[i] = "  " + copy_in(T, f, "pre_" + f, "V", "chunk * W")
    pre = []
    for i, fn, T, a, f in loads:
        pre.append("  " + declare(T, "pre_" + f, "V"))
    if kind in ("pre_barrier", "pre_stage"):
        for i, fn, T, a, f in loads:
            pre.append("  rkc::%s<%s, V, W>(%s, col0_base, COL_STEP, N, pre_%s, 0.0f);" % (fn, T, a, f))
    elif kind.startswith("pipe"):
        D = int(kind[4:])  # groups loaded ahead
        G = "%d * W" % group
        for d in range(D):
            for i, fn, T, a, f in loads:
                pre.append("  if (%d * %d < VFULL / W) { %s rkc::%s<%s, %s, W>(%s, col0_base + %d * COL_STEP, COL_STEP, N, g, 0.0f);\n  %s }"
                           % (d, group, declare(T, "g", G), fn, T, G, a, d * group,
                              copy_out(T, "pre_" + f, "g", G, "%d * W" % (d * group))))
        # at the top of the loop body: the loads of the group D ahead
        body = loop + 2  # after "for (...) {" and "constexpr int V = ..."
        nxt = []
        for i, fn, T, a, f in loads:
            nxt.append("  if (chunk + %d < VFULL / W) { %s rkc::%s<%s, V, W>(%s, col0_base + (chunk + %d) * COL_STEP, COL_STEP, N, g, 0.0f);\n  %s }"
                       % (D * group, declare(T, "g", "V"), fn, T, a, D * group,
                          copy_out(T, "pre_" + f, "g", "V", "(chunk + %d) * W" % (D * group))))
        out[body:body] = nxt
    else:
        raise SystemExit("unknown variant " + kind)
    anchor = "rkc::cluster_wait();" if kind != "pre_stage" else "rkc::cp_async_commit();"
    at = next(i for i, l in enumerate(out) if l.strip() == anchor)
    if kind == "pre_stage":
        at += 1
    out[at:at] = ["  constexpr int VFULL = V;"] + pre
    return "\n".join(out)


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    text = open(src).read()
    os.makedirs(outdir, exist_ok=True)
    open(os.path.join(outdir, "base.cu"), "w").write(text)
    for kind in sys.argv[3].split(",") if len(sys.argv) > 3 else ("pre_barrier", "pre_stage", "pipe1", "pipe2"):
        open(os.path.join(outdir, kind + ".cu"), "w").write(variant(text, kind))


if __name__ == "__main__":
    main()
