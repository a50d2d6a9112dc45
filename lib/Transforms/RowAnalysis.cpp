//===- RowAnalysis.cpp - summarise a row program for the planner ----------===//

#include "rkc/Plan/RowAnalysis.h"

#include "rk/RkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/DenseMap.h"

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
    }
    p.rowVectorInputs += rowVector(t);
  }
  for (Type t : func.getResultTypes())
    if (auto rt = rowTensor(t))
      p.outputRowBytes += storageBytes(rt.getElementType());
  p.elemBytes = maxB;
  p.minElemBytes = minB;

  // Register pressure: the most fragments live at one point of the
  // (single-block) program; a fragment lives from its definition (arguments
  // are loaded at their first use) to its last use. A fragment consumed only
  // by reductions is folded into them element by element and never held.
  Block &body = func.getBody().front();
  llvm::DenseMap<Operation *, unsigned> order;
  unsigned idx = 0;
  for (Operation &op : body)
    order[&op] = ++idx;
  auto useRange = [&](Value v) {
    unsigned first = ~0u, last = 0;
    for (Operation *u : v.getUsers()) {
      // Uses through a broadcast count where the broadcast is used.
      SmallVector<Operation *> tops;
      if (auto bc = dyn_cast<rk::BroadcastOp>(u))
        for (Operation *bu : bc->getUsers())
          tops.push_back(body.findAncestorOpInBlock(*bu));
      else
        tops.push_back(body.findAncestorOpInBlock(*u));
      for (Operation *top : tops)
        if (top) {
          first = std::min(first, order[top]);
          last = std::max(last, order[top]);
        }
    }
    return std::make_pair(first, last);
  };
  // Where the last reduction of the row is (its top-level op).
  unsigned lastReduction = 0;
  func.walk([&](rk::ReduceOp red) {
    if (Operation *top = body.findAncestorOpInBlock(*red))
      lastReduction = std::max(lastReduction, order[top]);
  });
  struct Range {
    unsigned first, last;
    double weight; ///< fp32 registers per row value
  };
  SmallVector<Range> ranges;
  for (BlockArgument a : func.getArguments()) {
    auto t = dyn_cast<RankedTensorType>(a.getType());
    if (rowTensor(t) || rowVector(t)) {
      auto [first, last] = useRange(a);
      // An input first used after the last reduction is loaded there and
      // consumed element by element: its values wait in their storage type
      // (two bf16/f16 per register), not converted to fp32 (measured on
      // the H100: bf16 RMSNorm at N = 32768 runs 1024 threads x 32 values
      // in one CTA without spills, docs/tuning.md).
      double weight = first > lastReduction
                          ? std::min(1.0, storageBytes(t.getElementType()) / 4.0)
                          : 1.0;
      ranges.push_back({first, last, weight});
    }
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
      // Held from just after its definition (an elementwise result may
      // take the registers of an operand that dies there).
      if (!onlyReduced)
        ranges.push_back({order[&op] + 1, useRange(r).second, 1.0});
    }
  }
  double live = 1;
  for (unsigned at = 0; at <= idx; ++at) {
    double n = 0;
    for (const Range &r : ranges)
      n += (r.first <= at && at <= r.last) ? r.weight : 0.0;
    live = std::max(live, n);
  }
  p.liveFrags = live;
  p.reductions = std::max(reductions, 1);
  p.stateWords = stateWords;
  return p;
}
