//===- RowPlan.h - the row-kernel cost model and its decisions ---*- C++ -*-===//
//
// The decision half of rkc (the lowering obeys, never decides): how a row of
// N elements is laid over threads, warps, CTAs and clusters. See
// docs/planner.md for the model and the reasons behind each rule.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_PLAN_ROWPLAN_H
#define RKC_PLAN_ROWPLAN_H

#include "rkc/Plan/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace rkc::plan {

enum class Staging { Registers, Smem, Stream, Async };
enum class Level { Thread, Warp, Block, Cluster, Grid };

const char *stagingName(Staging s);
const char *levelName(Level l);

/// What the planner needs to know about a row program. The disk cache
/// stores it with each kernel (the tuner plans from it): a new field goes
/// into DiskCache.cpp's problem blob too (test/unit/diskcache_test.cpp).
struct RowProblem {
  int64_t rows = 1;        ///< M
  int64_t cols = 1;        ///< N, the reduced (row) length
  int elemBytes = 4;       ///< storage bytes of the widest [M, N] operand
  int minElemBytes = 4;    ///< storage bytes of the narrowest [M, N] operand
  /// Row fragments live at once, in fp32 registers per row value (register
  /// pressure, RowAnalysis.cpp): a 16-bit row input first loaded after the
  /// last reduction is held packed and counts half a fragment.
  double liveFrags = 1;
  /// The same with async staging: [M, N] inputs wait in shared memory and
  /// count at their uses only, 16-bit [N] inputs are held packed, and
  /// elementwise results (recomputed after each reduction) count at their
  /// uses only.
  double liveFragsStaged = 1;
  /// liveFrags up to the last reduction (registers staging): the fragments
  /// the reductions wait with. 1 when only the row input is held across
  /// them and everything else (an [N] operand, a result) comes after, which
  /// the epilogue then consumes chunk by chunk (LayerNorm).
  double liveAtReductions = 1;
  /// math-dialect ops (exp, tanh, atan, ...: many temporaries each) in the
  /// bodies of the maps over the row, but sqrt, rsqrt, abs and fma.
  int rowMathOps = 0;
  /// Of rowMathOps, the math.exp ones (lowered to ex2.approx with a scale:
  /// few temporaries, unlike sin, log, erf or atan).
  int rowExpOps = 0;
  /// math-dialect ops (the same kinds) in the combiner bodies of the row's
  /// reductions: a user-written online state (logsumexp's (max, sum), two
  /// exp a combine) runs its combiner once per element and once per
  /// shuffle level, where max / add combiners are one instruction.
  int combineMathOps = 0;
  int reductions = 1;      ///< reductions per row (each owns smem buffers)
  int stateWords = 1;      ///< largest reduction state, in 32-bit words
  int inputRowBytes = 0;   ///< bytes per column of all [M, N] inputs together
  int inputElemBytes = 0;  ///< storage bytes of the [M, N] inputs (uniformInputs)
  int outputRowBytes = 0;  ///< bytes per column of all [M, N] results together
  int maxInputElemBytes = 0; ///< storage bytes of the widest [M, N] input
  int rowVectorInputs = 0; ///< [N] inputs shared by every row (weights, biases)
  bool uniformInputs = true; ///< all [M, N] inputs have the same element size
  /// The longest chain of reductions over the row, each needing the one
  /// before it (softmax's max then sum of exp(x - max): 2; its online form,
  /// or independent reductions: 1; no reduction: 0): the reads of the row
  /// a streamed kernel makes before it stores anything.
  int reductionDepth = 1;
};

/// One schedule: the TV layout and the tier schedule of a row kernel.
struct RowPlan {
  int64_t threads = 32;    ///< threads of a CTA on one row
  int64_t values = 1;      ///< values per thread
  int64_t vector = 1;      ///< elements per vector access
  int64_t rows = 1;        ///< rows per CTA
  int64_t cluster = 1;     ///< CTAs per cluster on one row
  /// CTAs on one row that are not a cluster (the grid tier): they combine
  /// their partial states through global memory in a persistent,
  /// co-resident (cooperative) grid. 1: none; above 1 needs cluster == 1.
  int64_t split = 1;
  Staging staging = Staging::Registers;
  int64_t unroll = 1;      ///< vector loads in flight per thread
  int64_t minBlocks = 0;   ///< __launch_bounds__ min blocks (0: none)
  int64_t prefetch = 0;    ///< 1: [N] operands loaded at the kernel start
  /// Streamed rows: passes of the first sweep kept in shared memory for the
  /// later sweeps (the first `keep` of them; 0: none).
  int64_t keep = 0;
  /// Rows read in one sweep (staging registers, async or smem): 1 loads or
  /// copies the [M, N] inputs with an evict-last L2 policy (schedule
  /// `evict=last`), 0 without a hint (`evict=normal`).
  int64_t evictLast = 0;

  Level reduceLevel() const;
  /// The whole row is on chip at once, in one pass: in registers, or staged
  /// in shared memory and read back where used (staging registers or async).
  bool inRegisters() const {
    return staging == Staging::Registers || staging == Staging::Async;
  }
  /// Global memory is read in one sweep over the row (not streamed).
  bool oneSweep() const { return staging != Staging::Stream; }
  int64_t ctaThreads() const { return threads * rows; }
  /// CTAs working on one row: a cluster's, or a split's.
  int64_t ctasPerRow() const { return cluster * split; }
  int64_t warpsPerRow() const { return threads >= 32 ? threads / 32 : 1; }
  /// Human-readable one-line summary (also the override syntax).
  std::string str() const;
};

/// A partially specified plan: the override syntax of --schedule
/// ("threads=256,vector=8,cluster=4,..."); unset fields are -1.
struct PlanOverride {
  int64_t threads = -1, values = -1, vector = -1, rows = -1, cluster = -1,
          unroll = -1, minBlocks = -1;
  int64_t split = -1;      ///< row kernels: CTAs per row through global memory
  int staging = -1;
  int mma = -1;            ///< column kernels: 1 tensor cores, 0 CUDA cores
  int64_t kwarps = -1;     ///< column kernels (mma): warps of a CTA splitting K
  int acts = -1;           ///< rk.gemv on tensor cores: 1 activations staged in
                           ///< shared memory, 0 read from global memory (acts=global)
  int prefetch = -1;       ///< row kernels: 1 loads [N] operands at the start
  int64_t keep = -1;       ///< row kernels (streamed): passes kept in shared memory
  int evict = -1;          ///< row kernels (one sweep): 1 evict=last, 0 evict=normal
  bool empty() const;
};
llvm::Expected<PlanOverride> parseOverride(llvm::StringRef text);

/// Vector width (elements) of a row of `cols` elements of `elemBytes` bytes:
/// one 16-byte access. When cols is not a multiple of it, the rows are
/// shifted (each read from the aligned address before it, with the same
/// layout and coverage: templates/rkc/vec.cuh); a row shorter than one
/// vector takes the largest width that divides cols.
int64_t pickVector(int64_t cols, int elemBytes);

/// The row's vector width: 16-byte accesses of the narrowest [M, N]
/// operand, or of the widest result when it is wider than every input (a
/// row that expands, e.g. int8 -> f16: 8-byte loads and 16-byte stores, each
/// instruction covering contiguous bytes, rather than 16-byte loads and
/// 32-byte stores in two halves).
int64_t rowVectorWidth(const RowProblem &p);
/// A row that expands: its widest [M, N] operand (elemBytes) is a result
/// wider than every input.
bool expandingRow(const RowProblem &p);

/// The widest of w, w / 2, ..., 1 that divides cols (rows that start
/// aligned).
int64_t dividingVector(int64_t cols, int64_t w);

/// Row values per thread that fit in registers with `liveFrags` fragments
/// live (`liveFragsStaged` if `staged`: async staging), in CTAs of `threads`
/// threads (a power of two).
int64_t registerBudget(const RowProblem &p, int64_t threads, bool staged = false);

/// True if no register-staged schedule (clusters included) can hold a row.
bool needsStreaming(const RowProblem &p, const Target &t);

/// Sets `pl.prefetch` by the planner's rule: 1 when the row has [N]
/// operands, the grid is about one wave (at most one CTA per SM) and the
/// registers hold them from the start; else 0.
void choosePrefetch(RowPlan &pl, const RowProblem &p, const Target &t);

/// Sets `pl.evictLast` by the planner's rule: 1 for rows with an [M, N]
/// result and one [M, N] input, read in one sweep by one CTA a row, over
/// more than a wave of CTAs, on parts with clusters (Hopper); else 0.
void chooseEvict(RowPlan &pl, const RowProblem &p, const Target &t);

/// The heuristic plan, with `ovr` applied on top; the reasons for each
/// decision are appended to `remarks`. Fails with a message when the
/// override breaks a resource limit or the problem cannot be planned.
llvm::Expected<RowPlan> planRow(const RowProblem &p, const Target &t,
                                const PlanOverride &ovr,
                                llvm::SmallVectorImpl<std::string> *remarks);

/// The grid tier's deferred waits (templates/rkc/grid.cuh, grid_arrive /
/// grid_wait): a row split over CTAs (split > 1) in one pass that each CTA
/// keeps on chip whole (keep = 1), with one reduction over the row, and a
/// kept part of at most kDeferredPartBytes: each CTA publishes its state
/// for a row, sweeps its next row into a second shared-memory buffer, and
/// only then waits for its group, so the wait overlaps a sweep. The
/// planner (its shared-memory count) and the emitter (which writes the
/// kernel that way) both decide with this function.
inline constexpr int64_t kDeferredPartBytes = 32 * 1024;
inline bool deferredGridWait(int64_t split, int64_t passes, int64_t keep, int64_t reductions,
                             int64_t keptPassBytes) {
  return split > 1 && passes == 1 && keep == 1 && reductions == 1 &&
         keptPassBytes <= kDeferredPartBytes;
}

/// Checks a complete plan against the problem and the target's limits;
/// returns the reason it is invalid, or an empty string.
std::string checkPlan(const RowPlan &plan, const RowProblem &p,
                      const Target &t);

} // namespace rkc::plan

#endif // RKC_PLAN_ROWPLAN_H
