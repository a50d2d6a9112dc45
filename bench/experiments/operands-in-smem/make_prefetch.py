"""Makes the 'prefetch' variant of a generated async-staged (cluster) row
kernel: the chunked epilogue's [N]-operand loads are issued D chunk groups
ahead of their use, into a ring of D fragments per operand, instead of right
before the group's stores (ptxas keeps each group's loads after the previous
group's stores: one L2 round trip per group, in series).
Usage: make_prefetch.py IN.cu OUT.cu D"""
import re
import sys

src, out, D = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
head = re.search(r"  #pragma unroll\n  for \(int chunk = 0; chunk < V / W; chunk \+= (\d+)\) \{\n", src)
G = int(head.group(1))
pat = re.compile(r"rkc::(load_frag(?:_keep)?)<([\w:]+), V, W>\((a\d+), col0, COL_STEP, N, (f\d+), 0\.0f\);")
body = src[head.end():]
ops = []
for m in pat.finditer(body):
    if m.group(3) not in [o[2] for o in ops]:
        ops.append((m.group(1), m.group(2), m.group(3)))
pro = ["  constexpr int PF_D = %d, PF_G = %d, PF_CH = V / W;" % (D, G)]
packed = {}
for fn, t, a in ops:
    f = re.search(r"rkc::%s<[\w:]+, V, W>\(%s, col0, COL_STEP, N, (f\d+)" % (fn, a), body).group(1)
    packed[a] = ("rkc::PackedFrag<%s, V> %s;" % (t, f)) in body
    pro.append(("  rkc::PackedFrag<%s, PF_G * W> pf_%s[PF_D];" % (t, a)) if packed[a]
               else "  float pf_%s[PF_D][PF_G * W];" % a)
    pro.append("  #pragma unroll\n  for (int k = 0; k < PF_D; ++k)\n"
               "    if (k * PF_G < PF_CH) rkc::%s<%s, PF_G * W, W>(%s, col0_base + k * PF_G * COL_STEP, COL_STEP, N, pf_%s[k], 0.0f);"
               % (fn, t, a, a))
src = src[:head.start()] + "\n".join(pro) + "\n" + src[head.start():head.end()] + pat.sub(
    lambda m: ("{ const int slot = (chunk / PF_G) %% PF_D;\n"
               + ("    %s = pf_%s[slot];\n" if packed[m.group(3)] else
                  "    #pragma unroll\n    for (int i = 0; i < V; ++i) %s[i] = pf_%s[slot][i];\n") +
               "    if (chunk + PF_D * PF_G < PF_CH) rkc::%s<%s, V, W>(%s, col0 + PF_D * PF_G * COL_STEP, COL_STEP, N, pf_%s[slot], 0.0f); }")
    % (m.group(4), m.group(3), m.group(1), m.group(2), m.group(3), m.group(3)), body)
open(out, "w").write(src)
print("%s: %d operands prefetched %d groups of %d chunks ahead" % (out, len(ops), D, G))
