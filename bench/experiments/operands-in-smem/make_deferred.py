"""Makes the 'deferred wait' variant of a generated split-tier (grid) row
kernel with one kept pass and one grid reduction per row: a CTA publishes
its state for row r (arrive), sweeps row r + groups into a second
shared-memory buffer and publishes that too, and only then waits for row
r's group and stores row r's epilogue. The grid barrier's wait overlaps a
whole sweep (session 30: thread 0 of a split CTA spends ~35 % of each row
waiting for its group; release after the last arrival 2.4-5.5 us). Two
arrival counters (one per epoch parity) and four slot sets make two epochs
in flight safe: a CTA publishes epoch e + 4 only after its wait for e + 2,
which needs every CTA's arrival at e + 2, which each makes after reading
epoch e's slots. Twice the shared memory of the base kernel; same values,
same order: outputs match the base bit for bit.
Usage: make_deferred.py IN.cu OUT.cu"""
import re
import sys

src, out = open(sys.argv[1]).read(), sys.argv[2]
assert "constexpr int PASSES = 1;" in src and "constexpr int KEEP = 1;" in src, "one kept pass only"
assert src.count("rkc::grid_reduce<") == 1, \
    "one grid reduction per row only (the emitter of 181b3fc or later defers it already)"
head = re.search(r"  for \(long long rkc_group = blockIdx\.x / C; rkc_group < M;\n"
                 r"       rkc_group \+= gridDim\.x / C\) \{\n", src)
gr = re.search(r"  __shared__ (\w+) gbuf\d+\[(\d+) \+ 33\];\n"
               r"  const \w+ (r\d+) = rkc::grid_reduce<(\d+), (\d+), (\d+)>\((r\d+), ([\w:]+)\(\), gbuf\d+, rkc_gws, (\d+), "
               r"rkc_epoch, rank, warp_in_row, lane\);\n", src)
tail = src.index("  __syncthreads();\n  }\n  rkc::grid_finish<C>(rkc_gws, rkc_epoch);\n")
assert head and gr
S, WARPS, res, SPLIT, SB, arg, comb, off = (gr.group(1), gr.group(2), gr.group(3), gr.group(5),
                                            gr.group(6), gr.group(7), gr.group(8), gr.group(9))
body = src[head.end():gr.start()]
D = src[gr.end():tail]
# A: the row's set-up, up to the sweep (the reduction's chain or its first loop).
a_end = re.search(r"\n  (\w+ r\d+_chain|for \(int pass)", body).start() + 1
A, B = body[:a_end], body[a_end:]
A = A.replace("  extern __shared__ __align__(16) unsigned char rkc_smem[];\n", "")
kp = re.search(r"  ([\w:]+) \*kp0 = reinterpret_cast<[\w:]+ \*>\(rkc_smem \+ 0\);\n", A)
assert kp
T = kp.group(1)
A = A.replace(kp.group(0), "  %s *kp0 = reinterpret_cast<%s *>(rkc_smem) + pl_b * V * TPR;\n" % (T, T))
ws = re.search(r"rkc_ws \+ \(size_t\)\(blockIdx\.x / C\) \* (\d+);", src)
wsb = (int(off) + 4 * int(SPLIT) * int(SB) + 127) // 128 * 128
src = src.replace(ws.group(0), "rkc_ws + (size_t)(blockIdx.x / C) * %d;" % wsb)
helpers = r'''
namespace pl {
using rkc::u32;
template <int WARPS, int SPLIT, int SLOT_BYTES, class S, class Op>
__device__ void arrive(S v, Op op, S *abuf, unsigned char *ws, int offset, u32 &aep, int rank, int warp, int lane) {
  ++aep;
  S *buf = abuf + (aep & 1) * WARPS;
  if (lane == 0) buf[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const S mine = rkc::detail::reduce_slots<WARPS>(buf, op, lane);
    if (lane == 0) {
      u32 w[sizeof(S) / 4];
      memcpy(w, &mine, sizeof(S));
      u32 *p = reinterpret_cast<u32 *>(ws + offset + (aep & 3) * (SPLIT * SLOT_BYTES) + rank * SLOT_BYTES);
      for (int i = 0; i < int(sizeof(S) / 4); ++i) rkc::st_relaxed_gpu(p + i, w[i]);
      rkc::red_add_release_gpu(reinterpret_cast<u32 *>(ws) + ((aep & 1) ? 2 : 0), 1);
    }
  }
}
template <int SPLIT, int SLOT_BYTES, class S, class Op>
__device__ S wait(Op op, S *lanes, unsigned char *ws, int offset, u32 &wep, int warp, int lane) {
  constexpr int G = SPLIT < 32 ? SPLIT : 32;
  ++wep;
  if (warp == 0) {
    const u32 *counter = reinterpret_cast<const u32 *>(ws) + ((wep & 1) ? 2 : 0);
    const u32 target = (u32)SPLIT * ((wep + 1) / 2);
    while (rkc::ld_acquire_gpu(counter) < target) __nanosleep(32);
    const unsigned char *slots = ws + offset + (wep & 3) * (SPLIT * SLOT_BYTES);
    if (lane < G) lanes[lane] = rkc::detail::combine_grid_slots<SPLIT / G, G, SLOT_BYTES, S>(slots, lane, op);
    __syncwarp();
    const S r = rkc::detail::reduce_slots<G>(lanes, op, lane);
    if (lane == 0) lanes[G] = r;
  }
  __syncthreads();
  return lanes[G];
}
template <int SPLIT> __device__ void finish(unsigned char *ws, u32 aep) {
  if (aep == 0 || threadIdx.x != 0) return;
  u32 *c = reinterpret_cast<u32 *>(ws);
  if (rkc::atom_add_acq_rel_gpu(c + 1, 1) == (u32)SPLIT - 1) {
    rkc::st_relaxed_gpu(c, 0); rkc::st_relaxed_gpu(c + 1, 0); rkc::st_relaxed_gpu(c + 2, 0);
  }
}
} // namespace pl
'''
kernel = src.index('extern "C" __global__')
pre = src[:kernel] + helpers + src[kernel:head.start()]
loop = (
    "  extern __shared__ __align__(16) unsigned char rkc_smem[];\n"
    "  __shared__ %(S)s pl_abuf[2 * %(W)s];\n"
    "  __shared__ %(S)s pl_lanes[33];\n"
    "  rkc::u32 pl_aep = 0, pl_wep = 0;\n"
    "  int pl_buf = 0;\n"
    "  auto pl_sweep = [&](const long long rkc_group, const int pl_b) {\n"
    "%(A)s%(B)s"
    "  pl::arrive<%(W)s, %(SPLIT)s, %(SB)s>(%(arg)s, %(comb)s(), pl_abuf, rkc_gws, %(off)s, pl_aep, rank, warp_in_row, lane);\n"
    "  };\n"
    "  if ((long long)(blockIdx.x / C) < M) pl_sweep(blockIdx.x / C, 0);\n"
    "  for (long long rkc_group = blockIdx.x / C; rkc_group < M;\n"
    "       rkc_group += gridDim.x / C) {\n"
    "  if (rkc_group + gridDim.x / C < M) pl_sweep(rkc_group + gridDim.x / C, pl_buf ^ 1);\n"
    "  const int pl_b = pl_buf;\n"
    "%(A)s"
    "  const %(S)s %(res)s = pl::wait<%(SPLIT)s, %(SB)s>(%(comb)s(), pl_lanes, rkc_gws, %(off)s, pl_wep, warp_in_row, lane);\n"
    "%(D)s"
    "  __syncthreads();\n"
    "  pl_buf ^= 1;\n"
    "  }\n"
    "  pl::finish<C>(rkc_gws, pl_aep);\n}\n") % dict(S=S, W=WARPS, A=A, B=B, SPLIT=SPLIT, SB=SB, arg=arg, comb=comb,
                                                   off=off, res=res, D=D)
open(out, "w").write(pre + loop)
