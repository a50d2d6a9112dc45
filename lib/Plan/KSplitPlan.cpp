//===- KSplitPlan.cpp - the column-kernel cost model ----------------------===//
//
// A decode GEMV is memory bound on the packed weight: the plan must keep
// enough bytes in flight on every SM (Little's law: ~3 TB/s x ~1 us, i.e.
// some 32 KiB per SM on an H100) while each thread reads whole 16-byte
// words of packed columns and the accumulators stay in registers:
//   * cols: columns per thread, the widest access (16 bytes) that divides
//     N and keeps rows x cols accumulators <= 32 (M = 16 gets narrower
//     accesses rather than spills);
//   * unroll: packed rows in flight per thread, ~256 bytes;
//   * warps x cluster: how many ways K is split, so that N / (32 cols)
//     column tiles times the split give ~16 warps per SM; warps of a CTA
//     combine in shared memory, CTAs of a cluster in distributed shared
//     memory (no global workspace, no second kernel). A CTA range of K is
//     group aligned, and the activations of that range are staged once in
//     shared memory, so the split also bounds shared memory when M x K is
//     large.
//
//===----------------------------------------------------------------------===//

#include "rkc/Plan/KSplitPlan.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace rkc::plan {

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
static int64_t pow2Ceil(int64_t v) {
  return (int64_t)llvm::PowerOf2Ceil((uint64_t)std::max<int64_t>(v, 1));
}

/// Accumulators a thread may hold (rows x cols partials and totals).
static constexpr int64_t kMaxAccumulators = 32;
/// Bytes of packed weight each thread keeps in flight.
static constexpr int64_t kBytesInFlight = 256;
/// Warps per SM the K split aims for.
static constexpr int64_t kWarpsPerSm = 16;
/// Shared memory per CTA the planner aims to stay under.
static constexpr int64_t kSmemPerCta = 64 * 1024;
/// Very wide N (an LM head): 32-column groups per SM from which the
/// tensor-core GEMV takes no K split (planMmaSplit) and int4 at M = 1 takes
/// tensor cores again (planKSplit).
static constexpr int64_t kWideGroupsPerSm = 16;

std::string KSplitPlan::str() const {
  return formatv("cols={0},warps={1},cluster={2},unroll={3}{4}{5}{6}", cols, warps,
                 cluster, unroll, mma ? ",mma=1" : "",
                 kWarps() != warps ? formatv(",kwarps={0}", kwarps).str() : std::string(),
                 globalActs ? ",acts=global" : "")
      .str();
}

std::string KSplitPlan::schedule() const {
  return formatv("vector={0},threads={1},cluster={2},unroll={3},mma={4}{5}{6}", cols, threads(),
                 cluster, unroll, mma ? 1 : 0,
                 mma ? formatv(",kwarps={0}", kWarps()).str() : std::string(),
                 globalActs ? ",acts=global" : "")
      .str();
}

KSplitShape shapeOf(const KSplitPlan &pl, const KSplitProblem &p) {
  KSplitShape s;
  s.tiles = ceilDiv(p.n, pl.tileCols());
  int64_t kw = p.packedRows();
  switch (p.op) {
  case ColumnOp::Gemv: {
    int64_t grain = p.group ? p.groupRows() : pl.unroll * pl.rowsPerUnit();
    int64_t units = ceilDiv(kw, grain);
    s.ctaRows = std::min(kw, ceilDiv(units, pl.cluster) * grain);
    s.ctas = s.tiles * pl.cluster;
    s.outValues = ceilDiv(p.rows * pl.tileCols(), pl.threads() * pl.cluster);
    // Activations as f32 (CUDA cores) or 16-bit values (tensor cores),
    // and for int4 on CUDA cores the sum of each packed row's 8 (fold_u4).
    int64_t staged = pl.globalActs ? 0
                     : p.rows * s.ctaRows * p.kPerRow() * (pl.mma ? 2 : 4) +
                           (p.bits == 4 && !pl.mma ? p.rows * s.ctaRows * 4 : 0);
    int64_t tiles = pl.warps * p.rows * pl.cols * 32 * 4;
    int64_t recv = pl.cluster > 1 ? pl.cluster * s.outValues * pl.threads() * 4 : 0;
    s.aliased = pl.mma && staged + tiles + recv > kSharedAliasAbove;
    s.smemBytes = s.aliased ? std::max(staged, tiles + recv) : staged + tiles + recv;
    if (s.aliased && pl.cluster > 1) {
      int64_t apart = (pl.cluster - 1) * s.outValues * pl.threads() * 4;
      int64_t below = std::max(staged, tiles); // activations, then partial sums
      if (below + apart <= kSharedAliasAbove) {
        s.recvApart = true;
        s.recvOffset = below;
        s.smemBytes = below + apart;
      }
    }
    // Chunked staging needs a named barrier (ids 1-15) per K part shared
    // by several warps.
    if (pl.mma && !pl.globalActs && staged > kStageChunksAbove &&
        (pl.kWarps() < 16 || pl.colWarps() == 1))
      s.stageChunks = kStageChunks;
    break;
  }
  case ColumnOp::Dequantize:
    s.ctas = s.tiles * ceilDiv(kw, pl.warps * pl.unroll);
    break;
  case ColumnOp::Quantize:
    s.ctas = s.tiles * ceilDiv(p.groups(), pl.warps);
    break;
  }
  return s;
}

/// Why `p` cannot run on tensor cores on `t` (empty if it can): the one
/// rule behind both the heuristic's choice and the check of an override.
static std::string mmaUnsupported(const KSplitProblem &p, const Target &t) {
  if (p.op != ColumnOp::Gemv || p.actBytes != 2 || t.smVersion < 80 ||
      (p.bits == 8 && p.bf16))
    return "mma needs rk.gemv with int4 weights and f16/bf16 activations, or int8 "
           "weights and f16 activations (int8 + 128 is not exact in bf16), and sm_80 "
           "or newer";
  // Values of K per block of 4 packed rows: 32 (int4) or 16 (int8).
  int64_t kq = p.bits == 4 ? 32 : 16;
  if (p.n % 4 != 0 || p.k % kq != 0 || (p.group && p.group % kq != 0))
    return formatv("mma needs N a multiple of 4 and K and the group size multiples "
                   "of {3} (N = {0}, K = {1}, group {2})",
                   p.n, p.k, p.group, kq);
  return "";
}

std::string checkPlan(const KSplitPlan &pl, const KSplitProblem &p, const Target &t) {
  int64_t load = pl.cols * p.wordBytes();
  if (!isPow2(pl.cols) || load > 16)
    return formatv("cols = {0} must be a power of two with at most 16 bytes of "
                   "packed weight per access ({1}-byte words)",
                   pl.cols, p.wordBytes());
  if (p.n % pl.cols != 0)
    return formatv("cols = {0} needs N ({1}) to be a multiple of it so that "
                   "every packed row starts aligned",
                   pl.cols, p.n);
  if (p.op != ColumnOp::Gemv && pl.cols * p.actBytes > 16)
    return formatv("cols = {0} would access more than 16 bytes of {1}-byte "
                   "values at once",
                   pl.cols, p.actBytes);
  if (pl.warps < 1 || pl.threads() > t.maxThreadsPerCta)
    return formatv("warps = {0} must be in [1, {1}]", pl.warps,
                   t.maxThreadsPerCta / 32);
  if (!isPow2(pl.cluster) || pl.cluster > t.maxCluster)
    return t.hasClusters()
               ? formatv("cluster = {0} must be a power of two up to {1}",
                         pl.cluster, t.maxCluster)
                     .str()
               : formatv("cluster = {0} needs thread-block clusters, which {1} "
                         "does not have",
                         pl.cluster, t.arch)
                     .str();
  if (pl.unroll < 1 || pl.unroll > 64)
    return formatv("unroll = {0} must be in [1, 64]", pl.unroll);
  if (pl.kwarps < 0 || (pl.kwarps > 0 && (pl.kwarps > pl.warps || pl.warps % pl.kwarps != 0)))
    return formatv("kwarps = {0} must divide warps = {1}", pl.kwarps, pl.warps);
  if (pl.kWarps() != pl.warps && !pl.mma)
    return "kwarps (warps splitting K, the others taking more columns) needs mma = 1";
  if (p.op != ColumnOp::Gemv && pl.cluster != 1)
    return "only rk.gemv splits K across a cluster: cluster must be 1";
  if (pl.globalActs && (p.op != ColumnOp::Gemv || !pl.mma))
    return "acts = global (activations read from global memory) needs rk.gemv on tensor "
           "cores (mma = 1)";
  if (pl.mma) {
    std::string why = mmaUnsupported(p, t);
    if (!why.empty())
      return why;
    if (pl.cols != 1 && pl.cols != 2 && pl.cols != 4)
      return formatv("mma takes cols = 1, 2 or 4 (groups of 32 columns per warp), got {0}",
                     pl.cols);
  }
  if (p.op == ColumnOp::Gemv) {
    if (!pl.mma && p.rows * pl.cols > kMaxAccumulators)
      return formatv("rows x cols ({0} x {1}) accumulators would spill (at most {2})",
                     p.rows, pl.cols, kMaxAccumulators);
    // 32-bit words per unit of unroll: a tensor-core block is 4 words per
    // group of 32 columns (4 columns of one packed row).
    int64_t unitWords = pl.mma ? 4 * pl.cols : ceilDiv(load, 4) * pl.rowsPerUnit();
    if (pl.unroll * unitWords > 32)
      return formatv("unroll x words per unroll unit ({0} x {1}) would spill (two "
                     "buffers of loads in flight, at most 64 registers)",
                     pl.unroll, unitWords);
    int64_t grain = p.group ? p.groupRows() : pl.unroll * pl.rowsPerUnit();
    if (pl.cluster > ceilDiv(p.packedRows(), grain))
      return formatv("cluster = {0} splits K into more parts than there are "
                     "{1} ({2})",
                     pl.cluster, p.group ? "groups" : "unrolled row blocks",
                     ceilDiv(p.packedRows(), grain));
  }
  KSplitShape s = shapeOf(pl, p);
  if (s.smemBytes > t.maxSmemPerCta)
    return formatv("the activations of a CTA's K range and the partial sums need "
                   "{0} bytes of shared memory, over the {1} of {2}; {3}",
                   s.smemBytes, t.maxSmemPerCta, t.arch,
                   t.hasClusters() ? "split K further (a larger cluster)"
                   : pl.mma       ? "it has no clusters to split K over: read the activations "
                                    "from global memory (acts=global)"
                                  : "it has no clusters to split K over: fewer rows of "
                                    "activations or a shorter K fit");
  if (s.ctas > 0x7fffffff)
    return "the grid would exceed 2^31 - 1 CTAs";
  return "";
}

/// The GEMV remarks on the staged activations and the cluster combine.
static void noteStaging(const KSplitPlan &pl, const KSplitProblem &p, const KSplitShape &s,
                        llvm::function_ref<void(const Twine &)> note) {
  if (pl.globalActs)
    note(formatv("activations read from global memory (through L1) where the products use "
                 "them, not staged: {0} bytes of shared memory for the partial sums",
                 s.smemBytes));
  else
    note(formatv("activations staged in shared memory: {0} rows x {1} values of "
                 "K per CTA ({2} bytes {3})",
                 p.rows, s.ctaRows * p.kPerRow(), s.smemBytes,
                 s.aliased ? (s.recvApart ? "reused by the partial sums once the products are "
                                            "done, the cluster's receive buffer beside them"
                                          : "reused by the partial sums once the products are "
                                            "done")
                           : "with the partial sums"));
  if (s.stageChunks > 1)
    note(formatv("activations staged in {0} parts of each warp's K range, two in "
                 "flight, while the products run (over {1} bytes)",
                 s.stageChunks, kStageChunksAbove));
  if (pl.cluster > 1)
    note(formatv("partials combined across the cluster of {0} through "
                 "distributed shared memory",
                 pl.cluster));
}

/// CTAs of a tensor-core GEMV plan an SM holds: by registers (an estimate
/// fitted to ptxas over 240 plans: 48 + the two buffers of packed weight +
/// the partial sums, B-form blocks of 8 more), shared memory and threads.
static int64_t mmaCtasPerSm(const KSplitPlan &pl, const KSplitProblem &p, const KSplitShape &s,
                            const Target &t) {
  bool wa = mmaWeightsAsA(p.rows);
  int64_t regs = 48 + 8 * pl.unroll * pl.cols + (wa ? 16 : 32) * pl.cols +
                 (!wa && pl.unroll >= 8 ? 16 : 0);
  return std::max<int64_t>(1, t.ctaLimits(pl.threads(), regs, s.smemBytes).least());
}

/// Unroll, warps, kwarps and cluster of the tensor-core GEMV (M >= 2).
/// Its costs besides the weight stream are the activations of a CTA's K
/// range staged in shared memory (M x range x 2 bytes, from L2) and the
/// combine of the K split; a warp needs ~110-210 registers, so an SM holds
/// 8-16 of them. Measured (M = 4 and 16, CUDA graphs of 48 weights, 100+
/// schedules per shape; docs/performance-notes.md "Session 7"):
///   * ~16 warps per SM in the grid: the 32-column groups x the K split
///     (warps x cluster) near 16 x SMs, rounded down;
///   * the CTA's staged activations at most 64 KiB (else the cluster
///     doubles and the K split moves from warps to CTAs);
///   * CTAs of 8 warps: those not needed to split K take further column
///     groups (kwarps), so one staging serves them all;
///   * blocks of 4 x 4 packed rows (unroll 4).
static void planMmaSplit(KSplitPlan &pl, const KSplitProblem &p, const Target &t,
                         const PlanOverride &ovr,
                         llvm::function_ref<void(const Twine &)> note) {
  // The rules below count K in int4 packed rows (8 values, 4 bytes per
  // column), also for int8 (a block of 4 k4 rows, 16 values, has the
  // bytes of a block of 4 int4 rows; the rules were measured in K).
  int64_t rb = pl.rowsPerUnit();
  int64_t kw = p.k / 8;
  int64_t grain = p.group ? p.group / 8 : 16;
  int64_t parts = std::max<int64_t>(1, ceilDiv(kw, grain));
  int64_t groups = ceilDiv(p.n, 32 * pl.cols);
  // K split: ~kWarpsPerSm warps per SM, parts of at least 16 packed rows.
  int64_t split = (int64_t)llvm::bit_floor(
      (uint64_t)std::max<int64_t>(1, t.planSms() * kWarpsPerSm / groups));
  split = std::clamp<int64_t>(split, 1,
                              (int64_t)llvm::bit_floor((uint64_t)std::max<int64_t>(kw / 16, 1)));
  split = std::min<int64_t>(split, 64);
  // Long K (>= 8192): parts of at least 8 x M packed rows (each part adds
  // M x 32 partials per column group to combine; at M = 16, K = 14336 a
  // split of 8 measured 20 % faster than 16).
  if (kw >= 1024)
    split = std::min(split, (int64_t)llvm::bit_floor(
                                (uint64_t)std::max<int64_t>(kw / (8 * p.rows), 1)));
  int64_t maxC = t.hasClusters() ? std::min<int64_t>(t.portableCluster, parts) : 1;
  maxC = (int64_t)llvm::bit_floor((uint64_t)std::max<int64_t>(maxC, 1));
  pl.cluster = 1;
  while (pl.cluster < maxC && p.rows * ceilDiv(kw, pl.cluster) * 8 * 2 > 64 * 1024)
    pl.cluster *= 2;
  // M <= 8 (weights as the A operand, ~80 registers: 3 CTAs of 8 warps per
  // SM) with no K split: CTAs that each stream all of K leave a fraction of
  // a wave at the end (4096 x 128256, M = 4: 501 CTAs, 1.27 waves); a
  // cluster of 2 halves them (W8A16 280 -> 215 us, W4A16 116 -> 105).
  if (mmaWeightsAsA(p.rows) && split == 1 && pl.cluster == 1 && maxC >= 2)
    pl.cluster = 2;
  // A split beyond 16 warps of a CTA goes to the cluster (else fewer groups
  // than SMs would leave SMs idle: W8A16 M = 1 14336 x 4096 with 2 groups
  // of 32 columns per warp, 64 CTAs of 16 warps).
  while (split / pl.cluster > 16 && pl.cluster < maxC)
    pl.cluster *= 2;
  int64_t kwarps = std::max<int64_t>(1, split / pl.cluster);
  pl.warps = std::clamp<int64_t>(kwarps, 8, 16);
  kwarps = std::min(kwarps, pl.warps);
  // int4 blocks of 4 packed rows: 16 warps that each get fewer than 8 blocks
  // (two iterations of the double buffer at unroll 4) when the column
  // groups about fill the SMs: 8 warps with twice the blocks instead (K =
  // 2048, N = 4096: M = 1 / 2 / 4 / 16 3.19 -> 2.83, 3.28 -> 2.74, 3.26 ->
  // 2.81, 5.04 -> 4.06 us). With fewer groups (N = 2048: 64) 16 warps stay
  // ahead (2.29 vs 2.51). With exactly 8 blocks (K = 4096) too, the weights
  // as A then in blocks of 8 (M = 1 / 2 / 4 5.8 -> 5.1, 5.7 -> 5.0, 5.7 ->
  // 4.8 us; with blocks of 4 6.9-7.2; K = 8192 keeps 16 warps: 8 lost
  // 6-26 %; session 18).
  bool eightOfEight = false; // 8 warps of 16 blocks of 4 packed rows
  if (p.bits == 4 && pl.warps == 16 && kwarps == 16 && groups * 4 >= t.planSms() * 3) {
    int64_t b16 = ceilDiv(p.packedRows(), kwarps * pl.cluster) / rb;
    if (b16 <= 8) {
      pl.warps = kwarps = 8;
      eightOfEight = b16 == 8 && mmaWeightsAsA(p.rows);
    }
  }
  // A cluster of 8 or more that splits K alone: CTAs of 4 warps (twice the
  // CTAs for the SMs; no combine inside a CTA) with long blocks (unroll 8),
  // measured best at M = 16, K = 14336 (26.4 us against 32.8 with 8 warps
  // and unroll 4).
  bool clusterOnly = kwarps == 1 && pl.cluster >= 8;
  if (clusterOnly)
    pl.warps = 4;
  if (ovr.threads > 0)
    pl.warps = ovr.threads / 32;
  pl.kwarps = ovr.kwarps > 0 ? ovr.kwarps : (kwarps < pl.warps ? kwarps : 0);
  if (pl.warps % pl.kWarps() != 0)
    pl.kwarps = 0; // threads overridden: every warp splits K
  // M > 8 (weights as B) with few column groups and long K: one CTA of 16
  // warps per SM in clusters of 2 (which always fit the GPCs), cw column
  // groups a CTA so that the grid is about the SMs and 16 / cw warps
  // splitting K, its activations staged once (up to ~200 KiB). The rules
  // above give clusters of 4-8 CTAs of 4-8 warps there, which the GPCs
  // place unevenly (ncu: 0-3 CTAs an SM, SMs active 71 % of the time).
  // Measured (W4A16 M = 16, N = 4096, session 18): K = 8192 17.3 -> 12.6
  // us, 11008 20.4 -> 15.8; the heuristic already chose it at 6144; at
  // 14336 its activations do not fit.
  bool oneCta = false;
  if (!mmaWeightsAsA(p.rows) && t.hasClusters() && p.k >= 6144 && ovr.threads <= 0 &&
      ovr.kwarps <= 0 && ovr.cluster <= 0) {
    int64_t cw = 1;
    while (cw < 4 && ceilDiv(groups, cw) * 2 > t.planSms())
      cw *= 2;
    int64_t ctas = ceilDiv(groups, cw) * 2;
    KSplitPlan one = pl;
    one.warps = 16;
    one.kwarps = 16 / cw;
    one.cluster = 2;
    one.unroll = 4;
    if (ctas <= t.planSms() && ctas * 4 >= t.planSms() * 3 &&
        shapeOf(one, p).smemBytes <= t.maxSmemPerCta) {
      note(formatv("one CTA of 16 warps per SM: {0} column group(s) x {1} warps splitting K "
                   "in clusters of 2 ({2} CTAs; clusters of 4+ are placed unevenly)",
                   cw, 16 / cw, ctas));
      pl = one;
      clusterOnly = false;
      oneCta = true;
    }
  }
  // Very wide N (32-column groups >= 16 per SM, an LM head's vocabulary):
  // no K split, no cluster, one column group per warp; the rules above
  // give clusters of 2 of 8 warps.
  //   * int4 with M <= 4: CTAs of 8 warps at any wave count, unroll 2 up
  //     to 128 blocks of 4 packed rows a warp (K <= 4096), else 4. Both
  //     GPUs' tuners chose them at 4096 x 128256 M = 2-4; A/B on the H200
  //     (session 33, against the 16-warp CTAs below): M = 2 / 4 4096 x
  //     128256 86.9 -> 74.3 / 87.6 -> 74.9 us, 5120 x 152064 132.3 ->
  //     121.8 / 133.5 -> 122.2, 4096 x 256000 M = 4 166.6 -> 141.2, 3584 x
  //     152064 91.5 -> 87.0, bf16 91.6 -> 81.8; M = 1 (tensor cores from
  //     16 groups an SM, below) 4096 x 128256 87.4 -> 71.1 (unroll 4:
  //     76.4), 5120 x 152064 123.5 -> 108.2 (unroll 4; 2: 117.7), 4096 x
  //     256000 163.9 -> 135.3. At K = 8192 (M = 4) unroll 2 lost 5 %;
  //     unroll 4 there 162.7 -> 159.3, at K = 5120 M = 2 / 4 132.3 -> 109.7
  //     / 133.5 -> 110.6 (unroll 2: 120.8 / 122.0).
  //   * otherwise CTAs of 16 column groups in blocks of 4 (int4 at M = 5-8
  //     and K <= 4096: unroll 2, the H100 tuner's choice at M = 8, 100.8
  //     -> 94.5 us; H200 M = 8 / 6 89.1 -> 78.7 / 87.2 -> 80.1, 8 groups at
  //     unroll 2 89.3; at K = 5120 unroll 2 lost 30 %), measured at 4096
  //     x 128256 (session 18): W4A16 M = 4 108.6 -> 99.4 us, M = 16 133.3
  //     -> 112.0, W8A16 185.1 -> 179.4, 215.8 -> 197.7 (16 CTAs of one per
  //     SM: 1.90 waves); at N = 151936 (2.25 waves) it lost 3-12 %, so only
  //     when the last wave is at least 90 % full; at 1000 or 2048 groups (N
  //     = 32000, 65536) the rules above were as fast or faster.
  bool wide = false;
  if (groups >= kWideGroupsPerSm * t.planSms() && !oneCta && ovr.threads <= 0 &&
      ovr.kwarps <= 0 && ovr.cluster <= 0) {
    // (int4 with zero points in groups of 32 at M = 6-8, K = 8192 spills
    // 40-72 bytes in CTAs of 16 warps, 128 registers a thread; CTAs of 8
    // warps, 160 registers and no spill, measured 10-13 % slower on the
    // H200 with one CTA an SM for the staged activations: 306.7 vs 270.6
    // us, session 33.)
    bool eightWarps = p.bits == 4 && p.rows <= 4;
    KSplitPlan w = pl;
    w.cluster = 1;
    w.warps = eightWarps ? 8 : 16;
    w.kwarps = 1;
    KSplitShape ws = shapeOf(w, p);
    double waves = (double)ws.ctas / t.planSms(); // one CTA of 16 warps per SM
    if (ws.smemBytes <= t.maxSmemPerCta && !ws.aliased &&
        (eightWarps || waves / std::ceil(waves) >= 0.9)) {
      note(formatv("N wide ({0} groups of 32 columns, {1} per SM): no K split, CTAs of {2} "
                   "column groups",
                   groups, groups / t.planSms(), w.warps));
      pl = w;
      wide = true;
      clusterOnly = false;
    }
  }
  // Very long K: the cluster grows past the portable size (up to the
  // target's) while a CTA's shared memory would not fit at all (aliased
  // partial sums only in the one-CTA plan above: elsewhere unmeasured).
  auto overflows = [&](const KSplitPlan &q) {
    KSplitShape qs = shapeOf(q, p);
    return qs.smemBytes > t.maxSmemPerCta || (qs.aliased && !oneCta);
  };
  while (overflows(pl) && pl.cluster < t.maxCluster && pl.cluster * 2 <= parts)
    pl.cluster *= 2;
  // Balance (M = 1): more CTAs than SMs but few per SM leave some SMs with
  // one CTA more than the average (172 CTAs: 40 SMs with 2, 92 with 1); a
  // larger cluster makes the CTAs smaller and the waves even (K = 4096, N =
  // 11008 / 5120 / 6144: 13.5 -> 11.2, 8.1 -> 6.4, 8.4 -> 7.6 us). At M = 4
  // and 16 the same CTAs measured 12-14 % slower (more registers, fewer CTAs
  // per SM), so they keep theirs.
  while (p.rows == 1 && pl.cluster * 2 <= maxC && pl.cluster * 2 <= parts) {
    double per = (double)shapeOf(pl, p).ctas / t.planSms();
    if (per <= 1.0 || std::ceil(per) / per <= 1.25)
      break;
    pl.cluster *= 2;
  }
  if (ovr.cluster > 0)
    pl.cluster = ovr.cluster;
  int64_t blocks = ceilDiv(p.packedRows(), pl.kWarps() * pl.cluster) / rb; // per warp
  pl.unroll = std::clamp<int64_t>((int64_t)llvm::bit_floor((uint64_t)std::max<int64_t>(
                                      blocks, 1)),
                                  1, std::min<int64_t>(clusterOnly && blocks >= 48 ? 8 : 4,
                                                       pl.cols == 1 ? 8 : 4 / pl.cols));
  // Weights as A with one group of 32 columns per warp and long K ranges:
  // blocks of 8 (~100 registers at M = 1). At M = 1 from 32 blocks a warp
  // (8 passes of the double buffer at 4): W4A16 4096 x 14336 14.5 -> 12.9
  // us, 28672 x 8192 52.5 -> 43.3, 18432 x 7168 34.7 -> 26.5; the K-long
  // shapes with fewer (14336 x 4096: 28) kept 4. With 2-8 rows (more
  // registers) only beyond 64 blocks: at 32 the wide-N shapes lost 20-25 %
  // (4096 x 14336: 14.6 -> 18.0), beyond 64 all ten shapes of an A/B won
  // (14336 x 14336 M = 8 53.7 -> 42.1; docs/planner.md, column rule 3).
  // int8 (k4 blocks of 16 values of K, half int4's) from 32 blocks at any
  // M <= 8: W8A16 M = 4 4096 x 6144 13.8 -> 11.0 us, M = 8 4096 x 14336
  // 28.1 -> 21.9 (session 18).
  bool int8Blocks8 = false; // blocks of 8 by the int8 threshold alone
  if (wide) {
    pl.unroll = p.bits == 4 && p.rows <= 8 && p.packedRows() / rb <= 128 ? 2 : 4;
  } else if (eightOfEight) {
    pl.unroll = 8;
  } else if (mmaWeightsAsA(p.rows) && pl.cols == 1 && blocks >= (p.rows == 1 ? 32 : 65)) {
    pl.unroll = 8;
  } else if (mmaWeightsAsA(p.rows) && pl.cols == 1 && p.bits == 8 && blocks >= 32) {
    pl.unroll = 8;
    int8Blocks8 = true;
  }
  // 2-4 rows whose CTAs hold column warps (4 of 8 warps split K, the
  // others take a second column group) and whose warps still get >= 32
  // blocks: CTAs of the 4 K-splitting warps alone, with blocks of 8 (the
  // registers of blocks of 8 fit 2-3 CTAs of 4 warps per SM, not 2 of 8).
  // A/B on the H100: W4A16 M = 2 / 4 4096 x 14336 14.7 -> 13.4 / 14.8 ->
  // 13.5 us, 4096 x 11008 14.0 -> 12.8, 5120 x 13824 17.8 -> 16.0 / 17.5 ->
  // 16.8, 13824 x 5120 M = 4 22.4 -> 19.6, 4096 x 16384 even; with fewer
  // blocks (2048 x 16384: 16) or M = 8 it lost, and with bf16 activations
  // (their dequantization shifts each nibble) it lost 18-22 % at three of
  // five shapes (docs/planner.md, rule 3).
  if (p.rows >= 2 && p.rows <= 4 && !p.bf16 && pl.cols == 1 && pl.kWarps() >= 4 &&
      pl.kWarps() < pl.warps && blocks >= 32 && (pl.unroll < 8 || int8Blocks8) &&
      ovr.threads <= 0 &&
      ovr.kwarps <= 0 && ovr.unroll <= 0) {
    pl.warps = pl.kWarps();
    pl.kwarps = 0;
    pl.unroll = 8;
  }
  // Clusters of 4 or more: a cluster's CTAs share a GPC, so fewer CTAs are
  // resident than SMs x CTAs per SM (H100: 120 of 132 at one per SM) and
  // the hardware fills SMs up to their occupancy (ncu: 256 CTAs of
  // clusters of 4 at 2 per SM ran as 0-3 per SM). A grid just past the
  // resident CTAs runs a second wave of a few CTAs. Halving the cluster
  // with twice the warps (the same K split and tile, half the CTAs), or,
  // at 16 warps, with twice the blocks per warp, fits one wave fewer:
  // taken when the estimate says so. A/B on the H100 (rkc tune --try, 43
  // shapes of M = 1-16, docs/performance-notes.md session 17): all 10
  // plans the rule changes ran 1.12-1.60x faster (W4A16 M = 8 14336 x 4096
  // 24.0 -> 16.1 us, W8A16 M = 16 8192 x 8192 59.2 -> 37.0); where it keeps
  // the plan, halving measured 0.62-1.03x except 2 shapes (1.44, 1.47).
  if (pl.cluster >= 4 && ovr.cluster <= 0 && ovr.threads <= 0 && ovr.kwarps <= 0 &&
      ovr.unroll <= 0) {
    auto waves = [&](const KSplitPlan &q) {
      KSplitShape qs = shapeOf(q, p);
      return ceilDiv(qs.ctas, t.residentCtas(q.cluster, mmaCtasPerSm(q, p, qs, t)));
    };
    KSplitPlan half = pl;
    half.cluster = pl.cluster / 2;
    if (pl.warps * 2 <= 16) {
      half.warps = pl.warps * 2;
      half.kwarps = pl.kwarps ? pl.kwarps * 2 : 0;
    } else if (pl.cols == 1) {
      half.unroll = std::min<int64_t>(8, pl.unroll * 2);
    }
    int64_t now = waves(pl), then = waves(half);
    if (then < now && checkPlan(half, p, t).empty() && !shapeOf(half, p).aliased) {
      note(formatv("cluster {0} -> {1}: {2} CTAs in clusters of {0} would take {3} waves of "
                   "the CTAs that fit (a cluster's CTAs share a GPC); {4} warps x cluster "
                   "{1} take {5}",
                   pl.cluster, half.cluster, shapeOf(pl, p).ctas, now, half.warps, then));
      pl = half;
    }
  }
  if (ovr.unroll > 0)
    pl.unroll = ovr.unroll;
  note(formatv("unroll = {0}: 2 x {1} bytes of packed weight in flight per thread "
               "(double-buffered blocks of {0} x {2} packed rows)",
               pl.unroll, pl.unroll * 16 * pl.cols, rb));
  // Activations read from global memory where staging them is on every
  // CTA's critical path with nothing to hide it: one CTA of 16 warps an SM
  // all splitting K with the weights as A (M <= 8) at unroll <= 4, and
  // clusters of 8+ CTAs that alone split K. `rkc tune --try acts=global`
  // on the H200 (session 38, 35 shapes): W4A16 M = 1 14336 x 4096 13.09 ->
  // 12.18 us, 11008 x 4096 11.00 -> 10.17, W8A16 M = 1 4096 x 4096 7.20 ->
  // 7.13; M = 16 28672 x 8192 W4 126.4 -> 120.4, W8 212.2 -> 107.4. Where
  // the buffers are longer (unroll 8: 32 more registers a thread) or M > 8
  // (two fragments a block) it lost 8-45 %, and 10-45 % in every plan of
  // several CTAs an SM, whose other CTAs overlap the staging.
  bool oneCtaAllK = mmaWeightsAsA(p.rows) && pl.warps == 16 && pl.kWarps() == 16 &&
                    pl.cluster == 1 && pl.unroll <= 4;
  bool clusterSplitsK = pl.kWarps() == 1 && pl.cluster >= 8;
  if (ovr.acts < 0 && (oneCtaAllK || clusterSplitsK) && ovr.threads <= 0 &&
      ovr.kwarps <= 0 && ovr.cluster <= 0 && ovr.unroll <= 0) {
    pl.globalActs = true;
    note(oneCtaAllK ? "acts = global: one CTA an SM whose 16 warps all split K; staging the "
                      "activations would stall it with nothing to overlap"
                    : formatv("acts = global: clusters of {0} that alone split K; staging the "
                              "activations would stall every CTA",
                              pl.cluster)
                          .str());
  }
  // A CTA's K range of activations that fits no CTA's shared memory, with
  // no cluster to split K over (sm_80 - sm_89: M = 16 at K >= 4096, M >= 4
  // at K = 14336) or none large enough: the fragments are read from global
  // memory where the products use them (each CTA's warps share them
  // through L1) instead of being staged. Not measured on such a part; on
  // the H200 (forced with acts=global) see docs/performance-notes.md,
  // session 38.
  if (int64_t need = shapeOf(pl, p).smemBytes;
      ovr.acts < 0 && !pl.globalActs && need > t.maxSmemPerCta) {
    pl.globalActs = true;
    note(formatv("acts = global: staging a CTA's K range of activations would need {0} bytes "
                 "of shared memory, over the {1} of {2}{3}",
                 need, t.maxSmemPerCta, t.arch,
                 t.hasClusters() ? formatv(" with K split over clusters of {0}", pl.cluster).str()
                                 : std::string(", which has no clusters to split K over")));
  }
  KSplitShape s = shapeOf(pl, p);
  note(formatv("K split {0} ways: {1} of the {2} warps x cluster {3}; CTA tiles of {4} "
               "columns ({5} CTAs, {6} warps for ~{7} SMs)",
               pl.kWarps() * pl.cluster, pl.kWarps(), pl.warps, pl.cluster, pl.tileCols(),
               s.ctas, s.ctas * pl.warps, t.planSms()));
  noteStaging(pl, p, s, note);
}

Expected<KSplitPlan> planKSplit(const KSplitProblem &p, const Target &t,
                                const PlanOverride &ovr,
                                SmallVectorImpl<std::string> *remarks) {
  auto note = [&](const Twine &s) {
    if (remarks)
      remarks->push_back(s.str());
  };
  if (ovr.values > 0 || ovr.rows > 0 || ovr.minBlocks >= 0 || ovr.staging >= 0 ||
      ovr.prefetch >= 0 || ovr.keep >= 0 || ovr.split >= 0 || ovr.evict >= 0)
    return createStringError("schedule: column kernels take only vector (columns "
                             "per thread), threads, cluster, unroll, mma, kwarps and acts");
  if (ovr.threads > 0 && ovr.threads % 32 != 0)
    return createStringError(
        formatv("schedule: threads = {0} must be a multiple of 32 for a column "
                "kernel (whole warps split K)",
                ovr.threads)
            .str());
  KSplitPlan pl;
  // acts = global / smem as asked (checkPlan refuses it off tensor cores);
  // unset, planMmaSplit decides.
  pl.globalActs = ovr.acts == 0;
  int64_t maxLoad = 16 / p.wordBytes();
  if (p.op != ColumnOp::Gemv)
    maxLoad = std::min<int64_t>(maxLoad, 16 / p.actBytes);
  int64_t cols = maxLoad;
  while (cols > 1 && (p.n % cols != 0 ||
                      (p.op == ColumnOp::Gemv && p.rows * cols > kMaxAccumulators)))
    cols /= 2;
  // Narrower accesses (down to 4 bytes) while there are too few column
  // tiles to give every fourth SM one: a K split across more CTAs costs
  // more than the narrower loads (measured, docs/performance-notes.md).
  while (p.op == ColumnOp::Gemv && cols > 1 && cols * p.wordBytes() > 4 &&
         ceilDiv(p.n, cols * 32) < t.planSms() / 4)
    cols /= 2;
  // One or two rows of activations (the decode GEMV): narrower still, down
  // to one word, until the tiles are enough for
  // clusters of at most 2 to give every SM one CTA: clusters of 4 and 8
  // CTAs of 1024 threads do not all fit in the GPCs at once (a second wave;
  // sweep in docs/performance-notes.md, "Session 6").
  bool oneWave = p.op == ColumnOp::Gemv && p.rows <= 2;
  while (oneWave && cols > 1 && ceilDiv(p.n, cols * 32) * 11 < t.planSms() * 5)
    cols /= 2;
  // Tensor cores for int4 GEMV with M >= 2: one m16n8k16 per 16 values of
  // K and 8 columns replaces M FMAs per weight and makes the dequantization
  // (LOP3 to 16-bit pairs) the only per-weight work (docs/planner.md).
  // From M = 2 on the CUDA-core FMAs per weight grow with M while the
  // tensor-core cost does not. At M = 1 (weights as the A operand, 9
  // instructions and half a product per word against the CUDA cores' 19)
  // tensor cores won while the 32-column groups are at most 4 per SM:
  // 14336 x 4096 14.1 vs 15.0 us, 4096 x 14336 14.0 vs 14.5, 4096 x 4096
  // 5.6 vs 5.5 (even); at 4096 x 128256 (30 per SM) the CUDA cores stay
  // ahead, 96.9 vs 98.2 (docs/performance-notes.md, session 15). Up to 8
  // per SM since session 32: the H100 tuner chose tensor cores at 8192 x
  // 28672 (6.8 per SM; W4 51.9 -> 46.8 us), and on the H200 they won at
  // 7-8 per SM (W4 4096 x 32000 33.5 -> 22.7 us, 8192 x 28672 49.8 ->
  // 41.6; W8 -1 % / -7 %) but lost 5 % at 15 and 36 per SM (2048 x
  // 65536, 5120 x 152064).
  // int8 (f16 activations only: 128 + q is not exact in bf16): one
  // m16n8k16 per 16 values of K replaces M FMAs, a PRMT and an FADD per
  // weight by ~1.25 instructions per weight (the bytes of a k4 word under
  // the f16 exponent of 1024 by PRMT, one f16x2 subtract). Measured faster
  // from M = 2, and at M = 1 with int4's rule (k4 words, session 18: 4096 x
  // 14336 21.8 vs 23.0 us, 2048 x 8192 8.6 vs 9.7; even at 8192 x 28672 and
  // 28672 x 8192; CUDA cores at 4096 x 128256, 177.1 vs 180.3).
  // From 16 groups per SM (an LM head) int4 takes them again, in CTAs of
  // 8 column groups (planMmaSplit's wide rule; session 33 on the H200:
  // 4096 x 128256 87.4 -> 71.1 us, 5120 x 152064 123.5 -> 108.2, 4096 x
  // 256000 163.9 -> 135.3; the H100's CTAs of 16 groups had lost 1 %).
  int64_t colGroups = ceilDiv(p.n, 32);
  bool worthIt = p.rows >= 2 || colGroups <= 8 * t.planSms() ||
                 (p.bits == 4 && colGroups >= kWideGroupsPerSm * t.planSms());
  bool mmaOk = worthIt && mmaUnsupported(p, t).empty();
  pl.mma = ovr.mma >= 0 ? ovr.mma != 0 : mmaOk;
  // A warp of the tensor-core kernel covers one group of 32 columns: with
  // kwarps, more warps of the CTA share the staged activations instead
  // (2 or 4 groups per warp, a schedule option, measured 0-25 % slower:
  // twice the registers, half the warps).
  if (pl.mma)
    cols = 1;
  pl.cols = ovr.vector > 0 ? ovr.vector : cols;
  if (pl.mma)
    note(formatv("mma: {0} products on tensor cores (m16n8k16, f32 accumulation); a lane "
                 "loads {1}, a warp {2} x 32 columns{3}",
                 p.bits == 4 ? "int4 x 16-bit" : "int8 x f16",
                 "16 bytes = 4 columns of one packed row per group of 32",
                 pl.cols,
                 mmaWeightsAsA(p.rows) ? "; M <= 8: the weights are the A operand (16 columns per "
                               "product, the rows of M in its 8 columns)"
                             : ""));
  else
    note(formatv("cols = {0}: {1}-byte accesses of packed columns{2}", pl.cols,
                 pl.cols * p.wordBytes(),
                 p.op == ColumnOp::Gemv
                     ? formatv(", {0} x {1} accumulators", p.rows, pl.cols).str()
                     : std::string()));
  int64_t load = pl.mma ? 16 : pl.cols * p.wordBytes();
  int64_t tiles = ceilDiv(p.n, pl.tileCols());
  int64_t kw = p.packedRows();
  switch (p.op) {
  case ColumnOp::Gemv: {
    if (pl.mma) {
      planMmaSplit(pl, p, t, ovr, note);
      break;
    }
    // Two buffers of `unroll` rows (the next block loads while this one
    // computes): kBytesInFlight over both, at most 64 registers.
    // Few tiles: many warps per SM share the bytes in flight; many tiles
    // (several CTAs per SM over the kernel): each warp keeps more.
    bool manyTiles = tiles >= 2 * t.planSms();
    int64_t inFlight = (manyTiles || p.bits == 8) ? kBytesInFlight : kBytesInFlight / 2;
    pl.unroll = std::clamp<int64_t>((int64_t)llvm::bit_floor((uint64_t)std::max<int64_t>(
                                        inFlight / 2 / load, 1)),
                                    2, 32);
    pl.unroll = std::min(pl.unroll, 32 / ceilDiv(load, 4));
    pl.unroll = std::min(pl.unroll, std::max<int64_t>(kw / pl.rowsPerUnit(), 1));
    // Many rows (M >= 8, below): 16 rows in flight.
    if (p.rows >= 8)
      pl.unroll = std::min<int64_t>(pl.unroll, 16);
    if (ovr.unroll > 0)
      pl.unroll = ovr.unroll;
    // One or two rows over at most one CTA per SM: warps and unroll are
    // chosen together below.
    bool ctaPerSm = oneWave && !pl.mma && tiles <= t.planSms();
    if (!ctaPerSm)
      note(formatv("unroll = {0}: 2 x {1} bytes of packed weight in flight per thread "
                   "(double-buffered)",
                   pl.unroll, pl.unroll * load));
    // Ways to split K so that tiles x split warps fill the GPU, but never
    // less than one unrolled block of rows per warp.
    int64_t want = ceilDiv(t.planSms() * kWarpsPerSm, tiles);
    int64_t most = std::max<int64_t>(1, kw / (pl.unroll * pl.rowsPerUnit()));
    int64_t split = std::min(pow2Ceil(want), (int64_t)llvm::bit_floor((uint64_t)most));
    // At least 4 warps per CTA when K has the rows for them (CTAs of one or
    // two warps cap an SM at 32 CTAs and waste shared memory per warp).
    // Up to 16 warps when the tiles are fewer than the SMs (one CTA per
    // SM then does the SM's whole share).
    // Registers per thread, roughly: addresses and loop state, two buffers
    // of loads, partials and totals, converted weights.
    int64_t regs = pl.mma ? 80 + 2 * pl.unroll * 4
                          : 40 + 2 * pl.unroll * ceilDiv(load, 4) + 2 * p.rows * pl.cols +
                                8 * pl.cols;
    int64_t maxWarps = (tiles <= t.planSms() && regs <= 65536 / 512) ? 16 : 8;
    pl.warps = std::clamp<int64_t>(std::max<int64_t>(split, std::min<int64_t>(4, most)), 1,
                                   maxWarps);
    if (ovr.threads > 0)
      pl.warps = ovr.threads / 32;
    int64_t grain = p.group ? p.groupRows() : pl.unroll * pl.rowsPerUnit();
    int64_t parts = std::max<int64_t>(1, ceilDiv(kw, grain));
    int64_t maxC = t.hasClusters() ? std::min<int64_t>(t.portableCluster, parts) : 1;
    maxC = (int64_t)llvm::bit_floor((uint64_t)std::max<int64_t>(maxC, 1));
    // The cluster only brings the CTAs up to about one per SM: clusters of
    // 8 CTAs pack poorly into the GPCs (a partial second wave).
    pl.cluster = std::clamp<int64_t>(
        (int64_t)llvm::bit_floor((uint64_t)std::max<int64_t>(t.planSms() / tiles, 1)), 1, maxC);
    if (ctaPerSm) {
      // One CTA per SM streams the SM's whole share: as many warps as
      // keep >= 24 packed rows each (more warps hide the conversion and
      // FMAs behind each other's loads; fewer, when K is short, keep the
      // combine cheap), and ~64 KiB of weight in flight per SM over both
      // buffers. Measured best or within 5% of the best of 100-180
      // schedules at each shape of issue #8 (CUDA graph, PDL launches).
      // 1024 threads leave 64 registers a thread: only with <= 4
      // accumulators (more spill, ptxas -v).
      int64_t ctaRows = ceilDiv(kw, pl.cluster);
      int64_t w = p.rows * pl.cols <= 4 ? 32 : 16;
      while (w > 4 && ctaRows < 24 * w)
        w /= 2;
      int64_t u = (int64_t)llvm::bit_floor(
          (uint64_t)std::max<int64_t>(64 * 1024 / (w * 32 * 2 * load), 1));
      u = std::clamp<int64_t>(u, 2, std::min<int64_t>(16, 32 / ceilDiv(load, 4)));
      while (u > 2 && ctaRows / w < 2 * u)
        u /= 2;
      pl.warps = ovr.threads > 0 ? ovr.threads / 32 : w;
      if (ovr.unroll <= 0)
        pl.unroll = u;
      note(formatv("unroll = {0}: 2 x {1} bytes of packed weight in flight per thread, "
                   "{2} KiB per SM with {3} warps and one CTA per SM",
                   pl.unroll, pl.unroll * load, 2 * pl.unroll * load * pl.warps * 32 / 1024,
                   pl.warps));
    }
    // The activations of a CTA's K range must fit in shared memory, leaving
    // room for at least three CTAs per SM (~64 KiB each), or all of it for
    // the one CTA per SM above.
    int64_t limit = ctaPerSm ? t.maxSmemPerCta : std::min<int64_t>(t.maxSmemPerCta, kSmemPerCta);
    // Many rows on CUDA cores (int8, M >= 8): CTAs of 4 warps with 16 rows
    // in flight. 8 warps needed twice the partial sums in shared memory,
    // which pushed the cluster to 16 (W8A16 M = 16, 4096 x 14336: 211 us;
    // 4 warps x cluster 8 x unroll 16: 116 us, the best of a sweep;
    // 4096 x 4096: 64.7 -> 43.6 us).
    if (p.rows >= 8 && ovr.threads <= 0)
      pl.warps = 4;
    while (shapeOf(pl, p).smemBytes > limit && pl.cluster < t.maxCluster &&
           pl.cluster * 2 <= parts)
      pl.cluster *= 2;
    if (ovr.cluster > 0)
      pl.cluster = ovr.cluster;
    KSplitShape s = shapeOf(pl, p);
    note(formatv("K split {0} ways: {1} warps x cluster {2} over {3} column "
                 "tiles ({4} CTAs, {5} warps for ~{6} SMs)",
                 pl.warps * pl.cluster, pl.warps, pl.cluster, tiles, s.ctas,
                 s.ctas * pl.warps, t.planSms()));
    noteStaging(pl, p, s, note);
    break;
  }
  case ColumnOp::Dequantize:
    pl.warps = ovr.threads > 0 ? ovr.threads / 32 : 8;
    pl.unroll = ovr.unroll > 0 ? ovr.unroll : std::min<int64_t>(4, kw);
    pl.cluster = ovr.cluster > 0 ? ovr.cluster : 1;
    note(formatv("{0} warps x {1} packed rows per CTA ({2} CTAs)", pl.warps,
                 pl.unroll, shapeOf(pl, p).ctas));
    break;
  case ColumnOp::Quantize:
    pl.warps = ovr.threads > 0 ? ovr.threads / 32 : 4;
    pl.unroll = ovr.unroll > 0 ? ovr.unroll : 1;
    pl.cluster = ovr.cluster > 0 ? ovr.cluster : 1;
    note(formatv("one group of {0} values of K per warp, {1} warps per CTA ({2} CTAs)",
                 p.group ? p.group : p.k, pl.warps, shapeOf(pl, p).ctas));
    break;
  }
  if (ovr.kwarps > 0)
    pl.kwarps = ovr.kwarps;
  std::string why = checkPlan(pl, p, t);
  if (!why.empty())
    return createStringError(((ovr.vector > 0 || ovr.threads > 0 || ovr.cluster > 0 ||
                               ovr.unroll > 0 || ovr.mma >= 0 || ovr.kwarps >= 0 ||
                               ovr.acts >= 0)
                                  ? "schedule override rejected: "
                                  : "no valid column plan: ") +
                             why);
  return pl;
}

} // namespace rkc::plan
