//===- KernelEmitter.h - the CUDA emitter's kernel writer -------*- C++ -*-===//
//
// Private to lib/Target/CUDA: the class that writes one kernel from a
// planned function, shared by the row kernels (EmitCuda.cpp, with the
// rkc::emitCuda entry point) and the column kernels of #tier.ksplit_layout
// (EmitColumnKernels.cpp), and the helpers both use.
//
//===----------------------------------------------------------------------===//

#ifndef RKC_LIB_TARGET_CUDA_KERNELEMITTER_H
#define RKC_LIB_TARGET_CUDA_KERNELEMITTER_H

#include "rkc/Target/CudaEmitter.h"

#include "tier/TierDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>

namespace rkc::emitter {

using namespace mlir;

/// Programmatic dependent launch (docs/runtime.md): a kernel waits for the
/// previous kernel of its stream before its first global access, then lets
/// the next one start its CTAs. Without a PDL launch both return at once.
inline constexpr const char *kDependencyWait =
    "  rkc::grid_dependency_wait(); // PDL: the previous kernel is done\n"
    "  rkc::grid_launch_dependents();\n";

/// Column of a thread's value i (its vector i / W, lane i % W).
inline constexpr const char *kValueCol = "col0 + (i / W) * COL_STEP + (i % W)";

/// The same in a shifted row: its value slots below column 0 hold the
/// columns from WRAP up (templates/rkc/vec.cuh).
/// (Only a first chunk can hold such slots: i < W is known once unrolled.)
inline constexpr const char *kShiftedValueCol =
    "(i < W ? rkc::wrap_col(col0 + i, WRAP) : col0 + (i / W) * COL_STEP + (i % W))";

/// C++ type of a scalar compute value. Narrow floats are carried as float
/// holding a rounded value.
FailureOr<std::string> cType(Type t, Operation *where);
/// Storage type of a tensor element in global memory (templates' names).
FailureOr<std::string> storageType(Type t, Operation *where);
/// The MLIR spelling of a type (diagnostics).
std::string dtypeName(Type t);
/// A float constant as a CUDA literal (NaN and infinities by their bits).
std::string floatLiteral(double v);
/// A constant attribute as a CUDA literal; clears `ok` and reports at
/// `where` when it has none.
std::string attrLiteral(Attribute a, Operation *where, bool &ok);

class KernelEmitter {
public:
  KernelEmitter(func::FuncOp f, raw_ostream &os, bool allowDeferred = true)
      : func(f), os(os), allowDeferred(allowDeferred) {}
  LogicalResult emit(rkc::KernelInfo &info);
  /// emit() failed only because the kernel could not defer its grid wait.
  bool retryWithoutDeferral() const { return deferralFailed; }

private:
  /// A new local name. Prefixes: f (fragments), sv (per-row scalars), v
  /// (region values), r (reduction states), c (constants); they must not
  /// collide with the parameters a<i> (pointers) and s<i> (row strides).
  std::string fresh(StringRef p) { return (p + Twine(counter++)).str(); }
  LogicalResult emitRegionOps(Block &block, llvm::raw_ostream &out,
                              StringRef indent);
  FailureOr<std::string> expr(Operation &op);
  FailureOr<std::string> combinerFor(Operation *op, Attribute kind,
                                     Region &combiner, TypeRange state,
                                     std::string &stateType);
  LogicalResult emitOp(Operation *op);
  LogicalResult emitBody();
  /// Streamed sweeps: the thread reductions of one sweep (all of them
  /// thread_reduce ops), or the [M, N] stores with the fragments they need.
  LogicalResult emitSweep(ArrayRef<Operation *> consumers);
  llvm::DenseMap<Operation *, SmallVector<Operation *>> sweepGroups(Block &block) const;
  /// Async staging: the epilogue when it can be emitted chunk by chunk
  /// after the last reduction (emitEpilogue) - the fragment ops the [M, N]
  /// stores need, in program order, then the stores - else none.
  SmallVector<Operation *> epilogueOps(Block &block) const;
  LogicalResult emitEpilogue(ArrayRef<Operation *> ops);
  /// Loaded fragments of `elem` are held packed (rkc::PackedFrag; see the
  /// tier::LoadOp case of emitOp).
  bool heldPacked(Type elem) const {
    return (asyncStaged || streaming) && (elem.isBF16() || elem.isF16()) &&
           layout.getVector() % 2 == 0;
  }
  /// The statement that loads [N] operand `ld` into `dest` at the columns
  /// `col0` + (i / W) * COL_STEP + i % W, i < V (the names in scope).
  FailureOr<std::string> operandLoad(tier::LoadOp ld, StringRef dest);
  /// Registers staging: emits the fragment maps `consumer` needs (not
  /// emitted since the last reduction) before it.
  LogicalResult emitMapsFor(Operation *consumer);
  /// Registers staging: fragment ops emitted at their uses, again after
  /// each reduction (maps; row loads from async-staged shared memory).
  bool isRecomputed(Operation *op) const {
    if (auto ld = dyn_cast<tier::LoadOp>(op))
      return asyncStaged && ld.getSource().getType().getRank() == 2;
    return isa<tier::MapOp>(op) && isFragOp(op);
  }
  // Column (K-split) kernels: #tier.ksplit_layout (EmitColumnKernels.cpp).
  LogicalResult emitKSplit(rkc::KernelInfo &info, tier::KSplitLayoutAttr ks);
  LogicalResult emitKDot(tier::KDotOp op, tier::KSplitLayoutAttr ks);
  LogicalResult emitKDotMma(tier::KDotOp op, tier::KSplitLayoutAttr ks);
  LogicalResult emitDequantizeTile(tier::DequantizeTileOp op, tier::KSplitLayoutAttr ks);
  LogicalResult emitQuantizeTile(tier::QuantizeTileOp op, tier::KSplitLayoutAttr ks);
  static bool isFragOp(Operation *op) {
    return isa<tier::LoadOp>(op) ||
           (isa<tier::MapOp>(op) && op->getNumResults() &&
            isa<tier::FragType>(op->getResult(0).getType()));
  }
  bool streaming = false;
  /// staging = smem: [M, N] inputs are copied to shared memory once.
  bool staged = false;
  /// staging = async: [M, N] inputs are copied with cp.async into
  /// thread-private shared-memory slots and read back where they are used
  /// (the registers plan's layout and arithmetic).
  bool asyncStaged = false;
  bool asyncWaited = false;
  /// Streamed rows (schedule keep): passes of the first sweep kept in
  /// shared memory, and the [M, N] inputs whose passes are kept (kp<i>).
  int64_t keep = 0;
  llvm::SetVector<unsigned> keptArgs;
  /// bf16/f16 data: exp and log use the hardware approximations (relative
  /// error ~2^-21, far below the storage precision); f32 data keeps the
  /// accurate libdevice functions. exp is rkc::fast_exp (ex2.approx.ftz:
  /// one MUFU; __expf's ex2 without ftz adds a compare and two predicated
  /// multiplies per element for subnormal results, which no 16-bit output
  /// keeps); log stays __logf, so a subnormal input still has a finite log.
  bool fastMath = false;
  /// Streamed sweeps emitted so far (odd ones run backwards), and in all.
  unsigned sweepCount = 0, streamSweeps = 0;
  /// Bytes of the [N] operands (weights, biases) every row reads again.
  int64_t rowOperandBytes = 0;
  /// No [M, N] result (cross-entropy, logsumexp, argmax: per-row results
  /// only), 16-bit rows, one row per CTA and no cluster: the rows are read
  /// from global memory once and nothing of the kernel's is written behind
  /// them, so their loads allocate evict-first in L2 (ld.global.cs,
  /// rkc::stage_frag_stream) and replace each other rather than the lines
  /// L2 already holds. Measured on the H100 after the bench's L2 flush (a
  /// 256 MB memset, whose dirty lines plain loads evict with a write-back
  /// each), same process, plain against evict-first: cross-entropy bf16 at
  /// 4k-32k (async staging) +1.1-2.3 %, at 64k / 128k / 256k (one streamed
  /// sweep) +2.8 / +1.2 / +0.2 %; logsumexp bf16 at 4k / 8k +6.4 %. Where
  /// it lost it is not used: several rows per CTA (cross-entropy bf16 at
  /// 256-1k: -5 to -13 %), f32 rows (cross-entropy at every N: -1 to
  /// -5 %), clusters (1M: -0.6 %), kernels with an [M, N] result (RMSNorm,
  /// LayerNorm, softmax bf16 at 8k-16k: -1 to -2 %); docs/performance-notes.md,
  /// session 20.
  bool rowReadOnce = false;
  /// Schedule evict_last: the row's one sweep loads (registers) or copies
  /// (staging async or smem) its [M, N] inputs evict-last in L2
  /// (rkc::load_frag_keep, rkc::stage_frag_keep), so that L2 evicts the
  /// kernel's written results first (planner rule 8, docs/planner.md).
  bool evictLast = false;
  /// Shifted rows (rkc/vec.cuh): N is not a multiple of the vector W, so
  /// row r starts (r * stride) % W elements past an aligned address; the
  /// thread columns start that far below 0 and every [M, N] chunk is
  /// aligned; the slots below column 0 hold the columns the layout's end
  /// misses (from WRAP, its coverage, up). [N] operands are read
  /// realigned (rkc::load_frag_unaligned).
  bool shifted = false;
  /// The column of a thread's value i.
  const char *valueCol() const { return shifted ? kShiftedValueCol : kValueCol; }
  /// The template arguments of a shifted row's accesses: WRAP, and SURE
  /// (chunks 1 .. SURE - 1 lie in the row: no element-wise path) where the
  /// accesses use the kernel's own column layout (not a pass or an epilogue
  /// group of it).
  const char *shiftArg() const {
    return !shifted ? "" : !streaming && !inEpilogue ? ", WRAP, SURE" : ", WRAP";
  }

  func::FuncOp func;
  raw_ostream &os;
  std::string decls, body, setup;
  llvm::raw_string_ostream declOs{decls}, bodyOs{body}, setupOs{setup};
  llvm::DenseMap<Value, std::string> names;
  unsigned counter = 0;
  tier::TvLayoutAttr layout;
  tier::ScheduleAttr sched;
  bool anyCluster = false;
  bool clusterWaited = false;
  /// Grid tier (schedule split): bytes of a group's workspace region so
  /// far (its counter, then each grid_reduce call site's slots).
  int64_t gridWsBytes = 0;
  /// Grid tier with deferred waits (plan::deferredGridWait): the row's one
  /// grid reduction is emitted as an arrival at the end of the row's sweep
  /// and a wait at the start of its epilogue, which emitRowKernel places
  /// around the next row's sweep; the body is cut where the reduction was.
  bool deferredWait = false;
  bool allowDeferred = true;
  size_t deferredCut = 0;
  std::string deferredArrive, deferredWaitCall;
  /// Deferred grid waits: the kernel-scope declarations the sweep (a
  /// lambda) and the epilogue share (constants, the wait's buffers), and
  /// the row's scalars, emitted with the row's set-up for each of them.
  std::string kernelScope, rowScalars;
  llvm::raw_string_ostream kernelScopeOs{kernelScope}, rowScalarOs{rowScalars};
  llvm::SmallPtrSet<Operation *, 8> rowScalarOps;
  /// Set when a deferred wait had to be given up (a value of the sweep used
  /// after it): emitCuda then emits the kernel again without.
  bool deferralFailed = false;
  /// Deferred grid waits: this op computes a per-row scalar before the
  /// row's reduction (it is emitted with the row's set-up).
  bool rowScalarBeforeCut(Operation *op);
  int64_t smemBytes = 0;
  llvm::DenseMap<Operation *, std::string> stateNames;
  /// Loaded fragments held packed (rkc::PackedFrag).
  llvm::DenseSet<Value> packedFrags;
  /// Fragment maps emitted since the last reduction (registers staging).
  llvm::SmallPtrSet<Operation *, 16> emittedMaps;
  /// Inside emitEpilogue's loop: staged reads start at its chunk.
  bool inEpilogue = false;
  /// The epilogue's [N]-operand loads issued ahead of their group
  /// (emitEpilogue): the ring of fragments each one reads from.
  llvm::DenseMap<Operation *, std::string> prefetchRings;
  /// While a fragment map's body is emitted: its values that are the same
  /// for every element (from its scalar operands and constants only).
  llvm::DenseSet<Value> uniformValues;
  /// The kernel rounds or converts floats to integers somewhere: its
  /// divisions stay IEEE divisions.
  bool roundsToIntegers = false;
  std::map<std::string, std::string> stateStructs;
};

} // namespace rkc::emitter

#endif // RKC_LIB_TARGET_CUDA_KERNELEMITTER_H
