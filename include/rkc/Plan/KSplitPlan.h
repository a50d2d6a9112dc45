//===- KSplitPlan.h - decisions for column (K-split) kernels ------*- C++ -*-===//
//
// The decision half of the quantized ops (rk.gemv, rk.quantize and
// rk.dequantize along K of a [K, N] tensor): columns per thread, warps and
// cluster CTAs splitting K, packed rows in flight. See docs/planner.md
// ("Column kernels") for the model behind each rule.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_PLAN_KSPLITPLAN_H
#define RKC_PLAN_KSPLITPLAN_H

#include "rkc/Plan/RowPlan.h"
#include "rkc/Plan/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace rkc::plan {

enum class ColumnOp { Gemv, Dequantize, Quantize };

/// What the planner needs to know about a column kernel.
struct KSplitProblem {
  ColumnOp op = ColumnOp::Gemv;
  int64_t rows = 1;      ///< activation rows M (gemv), else 1
  int64_t k = 1;         ///< reduced (quantized) dimension K
  int64_t n = 1;         ///< columns N
  int bits = 4;          ///< 4 (k8 packing) or 8 (k4 packing)
  int64_t group = 0;     ///< group size along K (0: one group)
  int actBytes = 2;      ///< bytes per activation / float element
  bool bf16 = false;     ///< the 16-bit activations are bf16 (not f16)
  bool symmetric = true;

  /// K values per packed row: 8 for int4 (k8 words), 4 for int8 (k4 words).
  int64_t kPerRow() const { return bits == 4 ? 8 : 4; }
  /// Packed rows of the weight.
  int64_t packedRows() const { return k / kPerRow(); }
  /// Bytes of one column element of a packed row (a 32-bit word).
  int64_t wordBytes() const { return 4; }
  /// Packed rows per group.
  int64_t groupRows() const { return (group ? group : k) / kPerRow(); }
  int64_t groups() const { return group ? k / group : 1; }
};

/// The tensor-core GEMV of M <= 8 rows takes the weights as the A operand
/// of m16n8k16 (16 columns x 16 values of K; the rows of M are B's 8
/// columns): half the products and partial sums of the other form, and a
/// lane's groups of 4 columns are contiguous (docs/planner.md, rule 2).
inline bool mmaWeightsAsA(int64_t rows) { return rows <= 8; }

struct KSplitPlan {
  int64_t cols = 1;      ///< columns per thread (one cols-element access)
  int64_t warps = 1;     ///< warps per CTA (splitting K for gemv)
  int64_t cluster = 1;   ///< CTAs per cluster splitting K (gemv)
  int64_t unroll = 1;    ///< packed rows in flight per thread (mma: blocks
                         ///< of 4 packed rows)
  bool mma = false;      ///< gemv on tensor cores (int4, 32-column groups)
  int64_t kwarps = 0;    ///< warps of a CTA splitting K (0: all); the
                         ///< others take further columns (mma only)
  /// Tensor-core GEMV: the activation fragments are read from global memory
  /// (through L1) instead of staged in shared memory once per CTA: the
  /// fallback of parts without clusters (sm_80-sm_89) where a CTA's K range
  /// of activations does not fit its shared memory (schedule `acts=global`).
  bool globalActs = false;

  /// Packed rows per unit of `unroll`: one on CUDA cores; on tensor cores
  /// the block of 4 packed rows, one per lane of a quad (int4: 32 values
  /// of K, two m16n8k16 per column; int8: 16 values, one).
  int64_t rowsPerUnit() const { return mma ? 4 : 1; }
  /// Threads per CTA.
  int64_t threads() const { return warps * 32; }
  /// Warps of a CTA splitting K, and the column groups of the CTA.
  int64_t kWarps() const { return kwarps > 0 ? kwarps : warps; }
  int64_t colWarps() const { return warps / kWarps(); }
  /// Columns of one CTA's tile.
  int64_t tileCols() const { return cols * 32 * colWarps(); }
  std::string str() const;
  /// The plan in schedule-override syntax (vector, threads, cluster, unroll,
  /// mma, and kwarps with mma; acts=global when set): planKSplit with it
  /// gives this plan back.
  /// Always names mma, which tells column schedules from row ones.
  std::string schedule() const;
};

/// Launch geometry and resources that follow from a plan.
struct KSplitShape {
  int64_t tiles = 1;       ///< column tiles
  int64_t ctas = 1;        ///< CTAs of the grid (a multiple of the cluster)
  int64_t ctaRows = 0;     ///< packed rows of the largest CTA range (gemv)
  int64_t smemBytes = 0;   ///< dynamic shared memory per CTA
  int64_t outValues = 1;   ///< tile values per thread after the K reduction
  /// Tensor-core GEMV whose staged activations and partial sums together
  /// exceed kSharedAliasAbove: the partial sums (and the cluster's receive
  /// buffer) reuse the activations' shared memory once every warp of the
  /// cluster is done with them (one more barrier; rkc::ksplit_reduce_mma).
  bool aliased = false;
  /// Aliased partial sums whose cluster receive buffer (the sums the other
  /// CTAs push, CLUSTER - 1 slots; a CTA keeps its own in registers) still
  /// fits beside the activations, at `recvOffset`: the CTAs of a cluster
  /// meet once, after their pushes, instead of also before them.
  bool recvApart = false;
  int64_t recvOffset = 0;
  /// Tensor-core GEMV: the parts of each K-split warp's range its column
  /// warps stage in turn (cp.async groups, two in flight, a barrier of the
  /// warps that share the range before each part): 1 stages the CTA's
  /// range at once before the first product. Above kStageChunksAbove bytes
  /// of activations, kStageChunks (docs/planner.md, column rule 5).
  int64_t stageChunks = 1;
};
/// The most shared memory a CTA can have on any supported GPU (227 KiB,
/// sm_90): plans needing more alias their partial sums (KSplitShape).
constexpr int64_t kSharedAliasAbove = 227 * 1024;
/// Staged activations above which a tensor-core GEMV stages them in
/// kStageChunks parts (KSplitShape::stageChunks).
constexpr int64_t kStageChunksAbove = 64 * 1024;
constexpr int64_t kStageChunks = 4;
KSplitShape shapeOf(const KSplitPlan &plan, const KSplitProblem &p);

/// The reason `plan` is invalid for `p` on `t`, or an empty string.
std::string checkPlan(const KSplitPlan &plan, const KSplitProblem &p,
                      const Target &t);

/// The heuristic plan with `ovr` applied (`vector` = cols, `threads` =
/// 32 x warps, `cluster`, `unroll`); each decision's reason is appended to
/// `remarks`.
llvm::Expected<KSplitPlan> planKSplit(const KSplitProblem &p, const Target &t,
                                      const PlanOverride &ovr,
                                      llvm::SmallVectorImpl<std::string> *remarks);

} // namespace rkc::plan

#endif // RKC_PLAN_KSPLITPLAN_H
