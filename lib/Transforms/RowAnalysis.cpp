//===- RowAnalysis.cpp - summarise a row program for the planner ----------===//

#include "rkc/Plan/RowAnalysis.h"

#include "rk/RkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

int rkc::storageBytes(Type t) {
  if (t.isIntOrFloat())
    return std::max<int>(1, (int)t.getIntOrFloatBitWidth() / 8);
  return 4;
}

/// A value held as a per-thread fragment: an [M, N] tensor that is not a
/// broadcast (broadcasts are views) or an [N] row vector argument.
static bool isFragment(Value v, int64_t m, int64_t n) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() != 2 || v.getDefiningOp<rk::BroadcastOp>())
    return false;
  return t.getDimSize(0) == m && t.getDimSize(1) == n;
}

bool rkc::isPerRowColumn(RankedTensorType t, RankedTensorType rowType) {
  return t && rowType && t.getRank() == 2 && rowType.getRank() == 2 &&
         t.getDimSize(1) == 1 && rowType.getDimSize(1) != 1 &&
         t.getDimSize(0) == rowType.getDimSize(0);
}

FailureOr<::rkc::plan::RowProblem>
rkc::analyzeRowProgram(func::FuncOp func) {
  ::rkc::plan::RowProblem p;
  // Only row programs (what rk-decompose leaves) are planned.
  Operation *unsupported = nullptr;
  func.walk([&](Operation *op) {
    if (unsupported || op == func || op->getParentOp() != func)
      return;
    if (!isa<rk::MapOp, rk::ReduceOp, rk::BroadcastOp, rk::GatherOp, rk::DimOp,
             arith::ConstantOp, func::ReturnOp>(op))
      unsupported = op;
  });
  if (unsupported)
    return unsupported->emitError()
           << "'" << unsupported->getName()
           << "' is not supported by the row-kernel pipeline (it plans and lowers "
              "row programs: rms_norm, layer_norm, softmax, log_softmax, "
              "cross_entropy and generic rk.map / rk.reduce / rk.broadcast / rk.gather)";
  // The row shape [M, N]: of the rank-2 tensors, those with N > 1 first;
  // an [M, 1] tensor beside them is a per-row value (e.g. the scales of
  // per-token quantization), the broadcast of an [M] value over a row of
  // one element.
  RankedTensorType rowType;
  Operation *bad = nullptr;
  for (bool wide : {true, false}) {
    auto consider = [&](Value v, Operation *where) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || t.getRank() != 2 || (wide && t.getDimSize(1) == 1))
        return;
      if (!rowType)
        rowType = t;
      else if (t.getShape() != rowType.getShape() && !bad &&
               !isPerRowColumn(t, rowType))
        bad = where;
    };
    for (BlockArgument a : func.getArguments())
      consider(a, func);
    func.walk([&](Operation *op) {
      for (Value r : op->getResults())
        consider(r, op);
    });
    if (rowType)
      break;
  }
  if (!rowType)
    return func.emitError("a row kernel needs at least one [M, N] tensor");
  if (bad)
    return bad->emitError() << "a row kernel works on one [M, N] shape ("
                            << rowType << "); this op uses another";
  if (!rowType.hasStaticShape())
    return func.emitError("shapes must be bound first (rk-specialize-shapes)");
  p.rows = rowType.getDimSize(0);
  p.cols = rowType.getDimSize(1);

  // Element sizes of the [M, N] data that moves through global memory.
  int maxB = 0, minB = 16;
  auto storage = [&](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || rt.getRank() != 2 || isPerRowColumn(rt, rowType))
      return;
    int b = storageBytes(rt.getElementType());
    maxB = std::max(maxB, b);
    minB = std::min(minB, b);
  };
  for (Type t : func.getArgumentTypes())
    storage(t);
  for (Type t : func.getResultTypes())
    storage(t);
  if (maxB == 0)
    maxB = minB = 4;
  // [M, N] tensors (not per-row [M, 1] columns) and [N] row vectors.
  auto rowTensor = [&](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.getRank() == 2 && !isPerRowColumn(rt, rowType) ? rt : RankedTensorType();
  };
  auto rowVector = [&](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.getRank() == 1 && rt.getDimSize(0) == p.cols && p.cols != p.rows;
  };
  int firstIn = 0;
  for (Type t : func.getArgumentTypes()) {
    if (auto rt = rowTensor(t)) {
      int b = storageBytes(rt.getElementType());
      p.inputRowBytes += b;
      if (firstIn && b != firstIn)
        p.uniformInputs = false;
      firstIn = b;
      p.inputElemBytes = b;
      p.maxInputElemBytes = std::max(p.maxInputElemBytes, b);
    }
    p.rowVectorInputs += rowVector(t);
  }
  for (Type t : func.getResultTypes())
    if (auto rt = rowTensor(t))
      p.outputRowBytes += storageBytes(rt.getElementType());
  p.elemBytes = maxB;
  p.minElemBytes = minB;

  // Register pressure, in fp32 registers per row value, at each point of
  // the (single-block) program, as the CUDA emitter holds values
  // (EmitCuda.cpp); the most is p.liveFrags (registers staging) and
  // p.liveFragsStaged (async staging).
  //  - Registers: an input is loaded at its first use and held to its last,
  //    as f32 (an input first used after the last reduction is consumed
  //    element by element there and waits in its storage type: measured on
  //    the H100, bf16 RMSNorm at N = 32768 runs 1024 threads x 32 values in
  //    one CTA without spills, docs/tuning.md); an elementwise result is
  //    held from just after its definition (it may take the registers of an
  //    operand that dies there) to its last use.
  //  - Async: the [M, N] inputs wait in shared memory and are read back
  //    where they are used; [N] inputs are held packed (16-bit: half a
  //    fragment); elementwise results are recomputed after each reduction,
  //    so they count at their uses only.
  // Either way, a result consumed only by reductions is folded into them
  // element by element and never held.
  Block &body = func.getBody().front();
  llvm::DenseMap<Operation *, unsigned> order;
  unsigned idx = 0;
  for (Operation &op : body)
    order[&op] = ++idx;
  // Where v is used (top-level positions; uses through a broadcast count
  // where the broadcast is used).
  auto usePoints = [&](Value v) {
    SmallVector<unsigned> at;
    for (Operation *u : v.getUsers()) {
      SmallVector<Operation *> tops;
      if (auto bc = dyn_cast<rk::BroadcastOp>(u))
        for (Operation *bu : bc->getUsers())
          tops.push_back(body.findAncestorOpInBlock(*bu));
      else
        tops.push_back(body.findAncestorOpInBlock(*u));
      for (Operation *top : tops)
        if (top)
          at.push_back(order[top]);
    }
    return at;
  };
  unsigned lastReduction = 0;
  func.walk([&](rk::ReduceOp red) {
    if (Operation *top = body.findAncestorOpInBlock(*red))
      lastReduction = std::max(lastReduction, order[top]);
  });
  SmallVector<double> held(idx + 2, 0.0), heldStaged(idx + 2, 0.0);
  auto holdRange = [&](SmallVector<double> &h, unsigned lo, unsigned hi, double w) {
    for (unsigned i = lo; i <= hi && i < h.size(); ++i)
      h[i] += w;
  };
  auto holdAt = [&](SmallVector<double> &h, ArrayRef<unsigned> at, double w) {
    for (unsigned i : llvm::SetVector<unsigned>(at.begin(), at.end()))
      h[i] += w;
  };
  for (BlockArgument a : func.getArguments()) {
    auto t = dyn_cast<RankedTensorType>(a.getType());
    if (!t) // a scalar argument (a runtime eps): nothing held across the row
      continue;
    bool isRow = (bool)rowTensor(t);
    if (!isRow && !rowVector(t))
      continue;
    SmallVector<unsigned> at = usePoints(a);
    if (at.empty())
      continue;
    unsigned first = *llvm::min_element(at), last = *llvm::max_element(at);
    double packed = std::min(1.0, storageBytes(t.getElementType()) / 4.0);
    holdRange(held, first, last, first > lastReduction ? packed : 1.0);
    if (isRow)
      holdAt(heldStaged, at, packed);
    else
      holdRange(heldStaged, first, last, packed);
  }
  int reductions = 0, stateWords = 1;
  for (Operation &op : body) {
    if (auto red = dyn_cast<rk::ReduceOp>(op)) {
      ++reductions;
      int words = (int)red.getInputs().size();
      if (red.getKind() && (*red.getKind() == rk::ReduceKind::argmax ||
                            *red.getKind() == rk::ReduceKind::argmin))
        words = 2;
      stateWords = std::max(stateWords, words);
    }
    for (Value r : op.getResults()) {
      if (!isFragment(r, p.rows, p.cols))
        continue;
      bool onlyReduced = llvm::all_of(r.getUsers(), [](Operation *u) {
        return isa<rk::ReduceOp>(u);
      });
      if (onlyReduced)
        continue;
      SmallVector<unsigned> at = usePoints(r);
      if (!at.empty())
        holdRange(held, order[&op] + 1, *llvm::max_element(at), 1.0);
      holdAt(heldStaged, at, 1.0);
    }
  }
  // Reduction depth: a value's depth is the most reductions chained on
  // the way to it (a reduction's result: one more than its inputs'); 0
  // for a program with no reduction (elementwise maps only).
  llvm::DenseMap<Value, int> depth;
  int deepest = 0;
  for (Operation &op : body) {
    int d = 0;
    op.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        d = std::max(d, depth.lookup(v));
    });
    if (isa<rk::ReduceOp>(op))
      deepest = std::max(deepest, ++d);
    for (Value r : op.getResults())
      depth[r] = d;
  }
  p.reductionDepth = deepest;
  // Math ops (exp, log, tanh, ...: many instructions and temporaries
  // each), but sqrt, rsqrt, abs and fma.
  auto isCostlyMath = [](Operation *inner) {
    return inner->getDialect() && inner->getDialect()->getNamespace() == "math" &&
           !isa<math::SqrtOp, math::RsqrtOp, math::AbsFOp, math::FmaOp>(inner);
  };
  func.walk([&](rk::MapOp map) {
    if (map->getNumResults() == 0 || !isFragment(map->getResult(0), p.rows, p.cols))
      return;
    map.getBody().walk([&](Operation *inner) {
      if (isCostlyMath(inner)) {
        ++p.rowMathOps;
        p.rowExpOps += isa<math::ExpOp>(inner);
      }
    });
  });
  func.walk([&](rk::ReduceOp red) {
    red->walk([&](Operation *inner) { p.combineMathOps += isCostlyMath(inner); });
  });
  p.liveFrags = std::max(1.0, *llvm::max_element(held));
  p.liveAtReductions =
      lastReduction == 0
          ? p.liveFrags
          : std::max(1.0, *std::max_element(held.begin(), held.begin() + lastReduction + 1));
  p.liveFragsStaged = std::max(1.0, *llvm::max_element(heldStaged));
  p.reductions = std::max(reductions, 1);
  p.stateWords = stateWords;
  return p;
}
