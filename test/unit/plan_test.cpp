//===- plan_test.cpp - cluster residency and the planners built on it -----===//
//
// Target::residentCtas (the H100's measured cudaOccupancyMaxActiveClusters,
// bench/results/2026-11-25-h100-cluster-residency.txt) and the tensor-core
// GEMV rule built on it (docs/planner.md, column rule 4): clusters of 4 or
// more whose grid would need a wave more than half the cluster's take half
// the cluster; a plan that fits, or an override, keeps its cluster.
//
//===----------------------------------------------------------------------===//

#include "rkc/Plan/KSplitPlan.h"
#include "rkc/Plan/RowPlan.h"
#include "rkc/Plan/Target.h"

#include "llvm/Support/Error.h"

#include <cstdio>
#include <string>
#include <tuple>

using namespace rkc::plan;

static int failures = 0;

static void expectEq(long long got, long long want, const char *what) {
  if (got != want) {
    std::fprintf(stderr, "FAIL %s: got %lld, want %lld\n", what, got, want);
    ++failures;
  }
}

static KSplitPlan plan(int bits, long long m, long long k, long long n, const char *schedule = "",
                       int sms = 0) {
  KSplitProblem p;
  p.rows = m, p.k = k, p.n = n, p.bits = bits, p.group = 128, p.actBytes = 2;
  PlanOverride ovr;
  if (*schedule) {
    auto o = parseOverride(schedule);
    if (!o) {
      std::fprintf(stderr, "FAIL override %s: %s\n", schedule, llvm::toString(o.takeError()).c_str());
      ++failures;
      return {};
    }
    ovr = *o;
  }
  auto pl = planKSplit(p, *lookupTarget("sm_90a", sms), ovr, nullptr);
  if (!pl) {
    std::fprintf(stderr, "FAIL plan W%d M=%lld %lldx%lld: %s\n", bits, m, k, n,
                 llvm::toString(pl.takeError()).c_str());
    ++failures;
    return {};
  }
  return *pl;
}

/// A row program of one reduction over [rows, cols] elements of
/// `elemBytes`, with an [M, N] result of the same size when `result`.
/// `operands` [N] operands (weights, biases); -1: one when `result`.
static RowProblem rowProblem(long long rows, long long cols, int elemBytes, bool result,
                             int operands = -1) {
  RowProblem p;
  p.rows = rows, p.cols = cols;
  p.elemBytes = p.minElemBytes = p.maxInputElemBytes = p.inputElemBytes = elemBytes;
  p.inputRowBytes = elemBytes;
  p.outputRowBytes = result ? elemBytes : 0;
  p.reductionDepth = 1;
  p.rowVectorInputs = operands >= 0 ? operands : (result ? 1 : 0);
  return p;
}

static RowPlan rowPlan(const RowProblem &p, const char *arch = "sm_90a",
                       const char *schedule = "", int dramGBs = 0) {
  PlanOverride ovr;
  if (*schedule)
    ovr = *parseOverride(schedule);
  auto pl = planRow(p, *lookupTarget(arch, 0, dramGBs), ovr, nullptr);
  if (!pl) {
    std::fprintf(stderr, "FAIL row plan %lldx%lld: %s\n", (long long)p.rows, (long long)p.cols,
                 llvm::toString(pl.takeError()).c_str());
    ++failures;
    return {};
  }
  return *pl;
}

static RowPlan rowPlan(long long rows, long long cols, int elemBytes, bool result,
                       const char *arch = "sm_90a", const char *schedule = "",
                       int operands = -1) {
  return rowPlan(rowProblem(rows, cols, elemBytes, result, operands), arch, schedule);
}

static void expectRow(const RowPlan &pl, long long cluster, long long split, const char *what) {
  std::string c = std::string(what) + ": cluster", s = std::string(what) + ": split";
  expectEq(pl.cluster, cluster, c.c_str());
  expectEq(pl.split, split, s.c_str());
}

int main() {
  // The grid tier (H100: 132 SMs, clusters of 16 hold 224 CTAs at two per
  // SM). Few streamed rows: split = floor2(2 x 132 / M) in [16, 128].
  expectRow(rowPlan(1, 1 << 24, 4, false), 1, 128, "f32 1 x 16M");
  expectRow(rowPlan(8, 1 << 20, 4, false), 1, 32, "f32 8 x 1M");
  expectRow(rowPlan(13, 1 << 20, 4, false), 1, 16, "f32 13 x 1M (208 CTAs < 224)");
  expectRow(rowPlan(14, 1 << 20, 4, false), 16, 1, "f32 14 x 1M (224 CTAs: clusters fill)");
  // Streamed rows with a result, any M: as many CTAs per row as keep each
  // CTA's part to 4 passes (bf16, 512 threads x 32 values: 16 per row of
  // 1M; f32, 256 x 32: 32 per row of 1M, 64 per row of 2M), 2 for f32
  // rows with [N] operands, 1 where that one pass can defer its grid wait
  // (one reduction, 32 KiB a CTA: 128 per row of 1M; 128, the most that
  // fit at one CTA per SM, per row of 2M).
  expectRow(rowPlan(128, 1 << 20, 2, true), 1, 16, "bf16 128 x 1M with a result");
  expectRow(rowPlan(4096, 1 << 20, 2, true), 1, 16, "bf16 4096 x 1M with a result");
  expectRow(rowPlan(128, 1 << 20, 2, true, "sm_90a", "", 2), 1, 16,
            "bf16 128 x 1M with a result and 2 operands");
  expectRow(rowPlan(128, 1 << 20, 4, true, "sm_90a", "", 0), 1, 32,
            "f32 128 x 1M with a result, no operand");
  expectRow(rowPlan(64, 1 << 21, 4, true, "sm_90a", "", 0), 1, 64,
            "f32 64 x 2M with a result, no operand");
  expectRow(rowPlan(128, 1 << 20, 4, true), 1, 128, "f32 128 x 1M with a result and an operand");
  expectRow(rowPlan(64, 1 << 21, 4, true), 1, 128, "f32 64 x 2M with a result and an operand");
  // ... not over fewer than 32 rows (LayerNorm f32 8 x 1M: -14 % at split 64).
  expectRow(rowPlan(31, 1 << 20, 4, true), 1, 32, "f32 31 x 1M with a result and an operand");
  // Read once at 128 rows keeps the cluster; rows on chip keep theirs.
  expectRow(rowPlan(128, 1 << 20, 2, false), 16, 1, "bf16 128 x 1M read once");
  expectRow(rowPlan(1, 1 << 18, 2, true), 16, 1, "bf16 1 x 256k on chip");
  // No clusters on sm_80: no grid tier either (unless scheduled).
  expectRow(rowPlan(1, 1 << 22, 2, true, "sm_80"), 1, 1, "sm_80 bf16 1 x 4M");
  expectRow(rowPlan(4, 65536, 2, true, "sm_80", "split=8"), 1, 8, "sm_80 split=8");
  // A schedule's cluster keeps the cluster.
  expectRow(rowPlan(1, 1 << 22, 2, true, "sm_90a", "cluster=16"), 16, 1, "cluster=16 override");

  Target h100 = *lookupTarget("sm_90a");
  expectEq(h100.residentCtas(1, 1), 132, "clusters of 1, 1 per SM");
  expectEq(h100.residentCtas(2, 2), 264, "clusters of 2, 2 per SM");
  expectEq(h100.residentCtas(4, 1), 120, "clusters of 4, 1 per SM");
  expectEq(h100.residentCtas(4, 2), 248, "clusters of 4, 2 per SM");
  expectEq(h100.residentCtas(8, 3), 360, "clusters of 8, 3 per SM");
  expectEq(h100.residentCtas(16, 1), 112, "clusters of 16, 1 per SM");
  expectEq(h100.residentCtas(16, 8), 896, "clusters of 16, 8 per SM (scaled from 4)");
  Target b200 = *lookupTarget("sm_100a"); // 148 SMs: the H100's table scaled
  expectEq(b200.residentCtas(2, 1), 148, "148 SMs, clusters of 2");
  expectEq(b200.residentCtas(4, 1), 134, "148 SMs, clusters of 4");
  // A device's own SM count (the JIT passes it): an H20's 78 SMs.
  Target h20 = *lookupTarget("sm_90a", 78);
  expectEq(h20.planSms(), 78, "78 SMs given");
  expectEq(h20.residentCtas(2, 2), 156, "78 SMs, clusters of 2, 2 per SM");
  expectEq(h20.residentCtas(16, 2), 132, "78 SMs, clusters of 16 (224 x 78 / 132)");
  expectEq(lookupTarget("sm_90a", 0)->planSms(), 132, "0: the arch's largest part");
  // A part with fewer SMs than a cluster's CTAs (a small MIG slice) holds
  // none; the planners divide by the count, so it is at least one.
  expectEq(lookupTarget("sm_90a", 1)->residentCtas(8, 1), 1, "1 SM, clusters of 8");
  // The column planner still plans there (W4A16 M = 16 14336 x 4096 used
  // to divide by zero); plan() reports a failure.
  expectEq(plan(4, 16, 14336, 4096, "", 1).warps > 0, 1, "W4 M=16 14336x4096 on 1 SM");

  // M = 1 takes tensor cores while the 32-column groups are at most 8 per
  // SM (session 32), on any part: 132 SMs -> 1056 groups, 108 -> 864.
  expectEq(plan(4, 1, 4096, 33792).mma, 1, "W4 M=1 4096x33792 (1056 groups, 132 SMs) mma");
  expectEq(plan(4, 1, 4096, 33824).mma, 0, "W4 M=1 4096x33824 (1057 groups, 132 SMs) mma");
  expectEq(plan(4, 1, 4096, 27648, "", 108).mma, 1, "W4 M=1 4096x27648 (864 groups, 108 SMs) mma");
  expectEq(plan(4, 1, 4096, 27680, "", 108).mma, 0, "W4 M=1 4096x27680 (865 groups, 108 SMs) mma");
  expectEq(plan(8, 1, 4096, 33792).mma, 1, "W8 M=1 4096x33792 mma");
  expectEq(plan(4, 2, 4096, 128256).mma, 1, "W4 M=2 4096x128256 mma (any N from M = 2)");

  // W4A16 M = 8, 14336 x 4096: 256 CTAs in clusters of 4 would exceed the
  // 248 resident; 16 warps in clusters of 2, 128 CTAs (measured 24.0 ->
  // 16.1 us).
  KSplitPlan a = plan(4, 8, 14336, 4096);
  expectEq(a.cluster, 2, "W4 M=8 14336x4096 cluster");
  expectEq(a.warps, 16, "W4 M=8 14336x4096 warps");
  expectEq(a.kWarps(), 8, "W4 M=8 14336x4096 kwarps");
  // The same shape with the cluster given keeps it.
  KSplitPlan o = plan(4, 8, 14336, 4096, "cluster=4");
  expectEq(o.cluster, 4, "W4 M=8 14336x4096 cluster=4 override");
  // W8A16 M = 1, 16384 x 2048: 16 warps already, cols 2: the cluster alone
  // halves (128 CTAs of clusters of 4 at one per SM: 120 + 8).
  KSplitPlan b = plan(8, 1, 16384, 2048);
  expectEq(b.cluster, 2, "W8 M=1 16384x2048 cluster");
  expectEq(b.warps, 16, "W8 M=1 16384x2048 warps");
  // W4A16 M = 16, 16384 x 4096: 256 CTAs in clusters of 8 fit (2-3 per
  // SM): kept (halving measured 0.62x at 14336 x 4096).
  KSplitPlan c = plan(4, 16, 16384, 4096);
  expectEq(c.cluster, 8, "W4 M=16 16384x4096 cluster");
  expectEq(c.warps, 8, "W4 M=16 16384x4096 warps");
  // W4A16 M = 16, 14336 x 4096: one CTA of 16 warps per SM in clusters of
  // 2 (2 column groups x 8 warps splitting K); its 224 KiB of staged
  // activations leave no room beside them for the 36 KiB of partial sums,
  // which reuse them (measured 21.9 -> 20.3 us).
  KSplitPlan d = plan(4, 16, 14336, 4096);
  expectEq(d.cluster, 2, "W4 M=16 14336x4096 cluster");
  expectEq(d.warps, 16, "W4 M=16 14336x4096 warps");
  expectEq(d.kWarps(), 8, "W4 M=16 14336x4096 kwarps");
  KSplitProblem p16;
  p16.rows = 16;
  p16.k = 14336;
  p16.n = 4096;
  p16.group = 128;
  p16.bits = 4;
  p16.actBytes = 2;
  KSplitShape ds = shapeOf(d, p16);
  expectEq(ds.aliased, 1, "W4 M=16 14336x4096 aliased partial sums");
  // The cluster's receive buffer (the other CTA's 512 sums) fits beside
  // them: one cluster barrier, after the pushes.
  expectEq(ds.recvApart, 1, "W4 M=16 14336x4096 receive buffer apart");
  expectEq(ds.recvOffset, 16 * 7168 * 2, "W4 M=16 14336x4096 receive buffer after the activations");
  expectEq(ds.smemBytes, 16 * 7168 * 2 + 512 * 4, "W4 M=16 14336x4096 shared memory");
  // Two columns a lane: 2 sums a thread, 4 KiB, do not fit beside them.
  KSplitPlan d2 = d;
  d2.cols = 2;
  KSplitShape ds2 = shapeOf(d2, p16);
  expectEq(ds2.aliased, 1, "cols 2: aliased");
  expectEq(ds2.recvApart, 0, "cols 2: receive buffer among the partial sums");
  expectEq(ds2.smemBytes, 16 * 7168 * 2, "cols 2: shared memory (the activations)");
  // The same plan at K = 8192 fits without aliasing.
  p16.k = 8192;
  expectEq(shapeOf(d, p16).aliased, 0, "W4 M=16 8192x4096 not aliased");
  // Staged in parts above 64 KiB of activations: 224 KiB and 128 KiB
  // (measured 19.6 -> 18.1 and 12.3 -> 11.6 us with the products
  // overlapping the copies); 16 rows x 2048 values (64 KiB) at once.
  expectEq(ds.stageChunks, kStageChunks, "W4 M=16 14336x4096 staged in parts");
  expectEq(shapeOf(d, p16).stageChunks, kStageChunks, "W4 M=16 8192x4096 staged in parts");
  p16.k = 4096;
  expectEq(shapeOf(d, p16).stageChunks, 1, "W4 M=16 K=4096 cluster 2 staged at once");
  // A named barrier per K part shared by several warps: ids 1-15, so not
  // with 16 K-split warps in CTAs of 32.
  KSplitPlan wide = d;
  wide.warps = 32;
  wide.kwarps = 16;
  wide.cluster = 1;
  expectEq(shapeOf(wide, p16).stageChunks, 1, "16 K parts of 2 warps staged at once");
  // Short rows (rule 3): two vectors per thread, so 16-bit rows of 256
  // take 16 threads and 8 rows a CTA (one vector a thread left 32 KiB in
  // flight per SM: 0.78 of the roofline on the H200); 32-bit rows of 128
  // take 16 threads too; a read-only 16-bit row keeps four vectors.
  RowPlan s256 = rowPlan(524288, 256, 2, true);
  expectEq(s256.threads, 16, "bf16 x 256 with a result: threads");
  expectEq(s256.values, 16, "bf16 x 256 with a result: values");
  expectEq(s256.rows, 8, "bf16 x 256 with a result: rows per CTA");
  expectEq(rowPlan(1048576, 128, 4, true).threads, 16, "f32 x 128 with a result: threads");
  expectEq(rowPlan(524288, 256, 2, false).threads, 8, "bf16 x 256 read-only: threads");
  expectEq(rowPlan(4, 8, 2, true).threads, 1, "bf16 x 8 (one vector): threads");
  // 32-bit rows stop at 512 threads where two CTAs fit an SM: a read-only
  // row and a row with a result but no [N] operand (softmax-like) at
  // 16384; a row with a weight (RMSNorm-like: more live registers) keeps
  // 1024 x 16.
  expectEq(rowPlan(8192, 16384, 4, false).threads, 512, "f32 x 16384 read-only: threads");
  expectEq(rowPlan(8192, 16384, 4, true, "sm_90a", "", 0).threads, 512,
           "f32 x 16384 with a result: threads");
  expectEq(rowPlan(8192, 8192, 4, true, "sm_90a", "", 0).threads, 512,
           "f32 x 8192 with a result: threads (4 vectors already)");
  expectEq(rowPlan(8192, 16384, 2, true, "sm_90a", "", 0).threads, 512,
           "bf16 x 16384 with a result: threads (unchanged)");
  // Two row fragments live at once (LayerNorm-like): 512 x 32 would not
  // leave two CTAs an SM, so 1024 x 16.
  RowProblem live2 = rowProblem(8192, 16384, 4, true, 0);
  live2.liveFrags = live2.liveFragsStaged = 2;
  expectEq(rowPlan(live2).threads, 1024, "f32 x 16384, two live fragments: threads");
  // Maps through math functions: exp (softmax) keeps 512 threads, sin
  // (temporaries the estimate does not see) 1024.
  RowProblem math = rowProblem(8192, 16384, 4, true, 0);
  math.rowMathOps = math.rowExpOps = 1;
  expectEq(rowPlan(math).threads, 512, "f32 x 16384 through exp: threads");
  math.rowExpOps = 0;
  expectEq(rowPlan(math).threads, 1024, "f32 x 16384 through sin: threads");
  // Read-only short rows of 32-bit data: 4 vectors a thread (f32 x 256: 16
  // threads); with math in the reduction's combiner (an online logsumexp)
  // 8 where 4 threads or more remain (f32 x 256: 8; f32 x 64: 4, not 2;
  // bf16 x 512: 8 x 64 values), none of it for rows with a result.
  expectEq(rowPlan(524288, 256, 4, false).threads, 16, "f32 x 256 read-only: threads");
  RowProblem heavy = rowProblem(524288, 256, 4, false, 0);
  heavy.combineMathOps = 2;
  expectEq(rowPlan(heavy).threads, 8, "f32 x 256 read-only, exp in the combiner: threads");
  heavy.cols = 64;
  expectEq(rowPlan(heavy).threads, 4, "f32 x 64 read-only, exp in the combiner: threads");
  RowProblem heavy16 = rowProblem(262144, 512, 2, false, 0);
  heavy16.combineMathOps = 2;
  expectEq(rowPlan(heavy16).values, 64, "bf16 x 512 read-only, exp in the combiner: values");
  RowProblem heavyOut = rowProblem(524288, 256, 4, true, 0);
  heavyOut.combineMathOps = 2;
  expectEq(rowPlan(heavyOut).threads, rowPlan(rowProblem(524288, 256, 4, true, 0)).threads,
           "f32 x 256 with a result, exp in the combiner: threads unchanged");

  // Fast memory per SM (Target::fastMemory: >= 32 GB/s an SM): the H200
  // (4917 GB/s, 132 SMs) has it, the H100 SXM (3352) does not, nor a
  // device of unknown bandwidth; an H20 (4000 GB/s, 78 SMs) has it.
  expectEq(lookupTarget("sm_90a", 0, 4917)->fastMemory(), 1, "H200: fast memory");
  expectEq(lookupTarget("sm_90a", 0, 3352)->fastMemory(), 0, "H100: not fast memory");
  expectEq(lookupTarget("sm_90a")->fastMemory(), 0, "unknown bandwidth: not fast memory");
  expectEq(lookupTarget("sm_90a", 78, 4000)->fastMemory(), 1, "H20: fast memory");
  // Rule 3 on fast memory: a row of one f32 input and one f32 result that
  // one 1024-thread CTA would hold (2 live fragments: RMSNorm) takes two
  // 512-thread CTAs an SM, staged asynchronously without a launch bound
  // (asked to stay in registers: min_blocks = 2); elsewhere, and for rows
  // of two inputs and two results or rows mapped through math functions,
  // it keeps 1024 threads. Shorter rows are unchanged.
  RowProblem norm = rowProblem(8192, 16384, 4, true);
  norm.liveFrags = 2;
  for (int gbs : {0, 3352}) {
    RowPlan slow = rowPlan(norm, "sm_90a", "", gbs);
    expectEq(slow.threads, 1024, "f32 x 16384 norm, not fast memory: threads");
    expectEq(slow.minBlocks, 0, "f32 x 16384 norm, not fast memory: min_blocks");
  }
  RowPlan fast = rowPlan(norm, "sm_90a", "", 4917);
  expectEq(fast.threads, 512, "f32 x 16384 norm, fast memory: threads");
  expectEq(fast.values, 32, "f32 x 16384 norm, fast memory: values");
  expectEq(fast.minBlocks, 0, "f32 x 16384 norm, fast memory: min_blocks");
  expectEq(fast.staging == Staging::Async, 1, "f32 x 16384 norm, fast memory: async");
  expectEq(fast.evictLast, 1, "f32 x 16384 norm, fast memory: rule 8's hint");
  RowPlan bound = rowPlan(norm, "sm_90a", "staging=registers", 4917);
  expectEq(bound.minBlocks, 2, "f32 x 16384 norm, fast memory, registers asked: min_blocks");
  expectEq(bound.evictLast, 0, "f32 x 16384 norm, fast memory, registers asked: no hint");
  // Rule 4 on fast memory: where the registers layout takes a cluster of 2
  // (N = 32768), one CTA of 1024 threads staged asynchronously, if its
  // registers hold values x live; not where they do not (3 live
  // fragments), nor on slower memory.
  RowProblem norm32k = norm;
  norm32k.cols = 32768;
  norm32k.rows = 4096;
  norm32k.liveFragsStaged = 2;
  RowPlan one = rowPlan(norm32k, "sm_90a", "", 4917);
  expectEq(one.threads, 1024, "f32 x 32768 norm, fast memory: threads");
  expectEq(one.cluster, 1, "f32 x 32768 norm, fast memory: one CTA");
  expectEq(one.values, 32, "f32 x 32768 norm, fast memory: values");
  expectEq(one.staging == Staging::Async, 1, "f32 x 32768 norm, fast memory: async");
  expectEq(rowPlan(norm32k, "sm_90a", "", 3352).cluster, 2,
           "f32 x 32768 norm, not fast memory: a cluster of 2");
  RowProblem heavy32k = norm32k;
  heavy32k.liveFragsStaged = 3;
  expectEq(rowPlan(heavy32k, "sm_90a", "", 4917).cluster, 2,
           "f32 x 32768, 3 live fragments, fast memory: a cluster of 2");
  expectEq(rowPlan(norm32k, "sm_90a", "cluster=2", 4917).threads, 256,
           "f32 x 32768 norm, fast memory, cluster asked: its threads");
  RowProblem heldAcross = norm32k;
  heldAcross.liveAtReductions = 2;
  expectEq(rowPlan(heldAcross, "sm_90a", "", 4917).cluster, 2,
           "f32 x 32768, more than the row held across the reductions: a cluster of 2");
  // Rule 8 over a cluster: staged rows with a reduction and under 1 MiB of
  // [N] operands take the hint (f32 at 65536: 256 KiB), 1 MiB does not
  // (262144), nor a cluster of rows in registers.
  RowProblem norm64k = norm;
  norm64k.cols = 65536;
  norm64k.rows = 2048;
  RowPlan c64 = rowPlan(norm64k, "sm_90a");
  expectEq(c64.cluster > 1 && c64.staging == Staging::Async, 1, "f32 x 65536: async cluster");
  expectEq(c64.evictLast, 1, "f32 x 65536, a cluster: rule 8's hint");
  RowProblem norm256k = norm;
  norm256k.cols = 262144;
  norm256k.rows = 512;
  expectEq(rowPlan(norm256k, "sm_90a").evictLast, 0,
           "f32 x 262144, 1 MiB of [N] operands: no hint");
  expectEq(rowPlan(norm64k, "sm_90a", "staging=registers").evictLast, 0,
           "f32 x 65536, a registers cluster: no hint");
  expectEq(rowPlan(norm, "sm_90a", "threads=1024", 4917).minBlocks, 0,
           "f32 x 16384 norm, fast memory, threads overridden: min_blocks");
  RowProblem norm8k = norm;
  norm8k.cols = 8192;
  expectEq(rowPlan(norm8k, "sm_90a", "", 4917).minBlocks, 0,
           "f32 x 8192 norm, fast memory: min_blocks");
  expectEq(rowPlan(norm8k, "sm_90a", "", 4917).threads, rowPlan(norm8k).threads,
           "f32 x 8192 norm, fast memory: threads unchanged");
  RowProblem residual = norm;
  residual.inputRowBytes = residual.outputRowBytes = 8;
  expectEq(rowPlan(residual, "sm_90a", "", 4917).threads, 1024,
           "f32 x 16384, two inputs and two results, fast memory: threads");
  RowProblem fewRows = norm;
  fewRows.rows = 2 * 132 - 1;
  expectEq(rowPlan(fewRows, "sm_90a", "", 4917).threads, 1024,
           "f32 x 16384 norm, fast memory, fewer rows than two CTAs an SM: threads");
  fewRows.rows = 2 * 132;
  expectEq(rowPlan(fewRows, "sm_90a", "", 4917).threads, 512,
           "f32 x 16384 norm, fast memory, two CTAs an SM: threads");
  RowProblem mapped = norm;
  mapped.rowMathOps = 1;
  expectEq(rowPlan(mapped, "sm_90a", "", 4917).threads, 1024,
           "f32 x 16384 mapped through a math function, fast memory: threads");
  // 16-bit rows of one input and one result staged asynchronously in
  // 512-thread CTAs of 32 values over the whole row (N = 16384): three CTAs
  // an SM (min_blocks = 3) on fast memory only; not for partial rows, rows
  // mapped through math functions, or two inputs.
  RowProblem half = rowProblem(8192, 16384, 2, true, 2);
  RowPlan half3 = rowPlan(half, "sm_90a", "", 4917);
  expectEq(half3.staging == Staging::Async, 1, "bf16 x 16384 LayerNorm-like: async");
  expectEq(half3.threads, 512, "bf16 x 16384 LayerNorm-like: threads");
  expectEq(half3.minBlocks, 3, "bf16 x 16384 LayerNorm-like, fast memory: min_blocks");
  expectEq(rowPlan(half, "sm_90a", "", 3352).minBlocks, 0,
           "bf16 x 16384 LayerNorm-like, H100: min_blocks");
  expectEq(rowPlan(half, "sm_90a", "min_blocks=0", 4917).minBlocks, 0,
           "bf16 x 16384 LayerNorm-like, fast memory, overridden: min_blocks");
  RowProblem halfPart = half;
  halfPart.cols = 15000;
  expectEq(rowPlan(halfPart, "sm_90a", "", 4917).minBlocks, 0,
           "bf16 x 15000 (partial row of 32 values), fast memory: min_blocks");
  RowProblem halfMath = half;
  halfMath.rowMathOps = 1;
  expectEq(rowPlan(halfMath, "sm_90a", "", 4917).minBlocks, 0,
           "bf16 x 16384 mapped through a math function, fast memory: min_blocks");
  RowProblem halfTwo = half;
  halfTwo.inputRowBytes = halfTwo.outputRowBytes = 4;
  expectEq(rowPlan(halfTwo, "sm_90a", "", 4917).minBlocks == 3, 0,
           "bf16 x 16384, two inputs and two results, fast memory: no min_blocks = 3");
  // Read-only rows of 32-bit data at 1k-16k: 8 vectors a thread on fast
  // memory, and on every part where the combiner does math; 16-bit rows
  // keep 4.
  RowProblem ro = rowProblem(32768, 4096, 4, false, 0);
  expectEq(rowPlan(ro).threads, 256, "f32 x 4096 read-only: threads");
  expectEq(rowPlan(ro, "sm_90a", "", 4917).threads, 128, "f32 x 4096 read-only, fast: threads");
  RowProblem ro1k = rowProblem(131072, 1024, 4, false, 0);
  expectEq(rowPlan(ro1k, "sm_90a", "", 4917).values, 32, "f32 x 1024 read-only, fast: values");
  RowProblem ro16 = rowProblem(32768, 4096, 2, false, 0);
  expectEq(rowPlan(ro16, "sm_90a", "", 4917).threads, rowPlan(ro16).threads,
           "bf16 x 4096 read-only, fast: threads unchanged");
  RowProblem roHeavy = ro;
  roHeavy.combineMathOps = 2;
  expectEq(rowPlan(roHeavy).threads, 128, "f32 x 4096 read-only, exp in the combiner: threads");
  // ... and 16-bit rows of 8k-32k with a state of two words (argmax,
  // cross-entropy) take 8 on fast memory (session 43): in registers at 128
  // threads, staged from 256; not at a wave of rows or less, not with the
  // values named, not on the H100, not a one-word sum.
  for (auto [cols, threads, staging] :
       {std::tuple{8192LL, 128, Staging::Registers}, std::tuple{16384LL, 256, Staging::Async},
        std::tuple{32768LL, 512, Staging::Async}}) {
    RowProblem deep = rowProblem((1LL << 27) / cols, cols, 2, false, 0);
    RowProblem sum = deep;
    deep.stateWords = 2;
    RowPlan fast = rowPlan(deep, "sm_90a", "", 4917);
    std::string what = "bf16 x " + std::to_string(cols) + " read-only, fast: ";
    expectEq(fast.values, 64, (what + "values").c_str());
    expectEq(fast.threads, threads, (what + "threads").c_str());
    expectEq((int)fast.staging, (int)staging, (what + "staging").c_str());
    expectEq(rowPlan(deep).values, 32, (what + "H100 values").c_str());
    expectEq(rowPlan(deep, "sm_90a", "values=32", 4917).values, 32, (what + "named values").c_str());
    expectEq(rowPlan(sum, "sm_90a", "", 4917).values, 32, (what + "a sum: values").c_str());
    deep.rows = 132;
    expectEq(rowPlan(deep, "sm_90a", "", 4917).values, 32, (what + "one wave: values").c_str());
  }
  if (failures)
    return 1;
  std::printf("plan_test: all passed\n");
  return 0;
}
