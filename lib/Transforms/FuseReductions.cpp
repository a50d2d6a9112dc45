//===- FuseReductions.cpp - one pass over the data per row ----------------===//
//
// 1. Sibling reductions (same row, neither feeding the other) are merged
//    into one rk.reduce whose state is the tuple of theirs: one climb of the
//    tiers, one barrier per tier, instead of one per reduction.
// 2. When the row is streamed (the schedule's `staging=stream`; when the
//    schedule names no staging, the planner's: a row too long for the chip,
//    or a read-once row, planned as it would be after this fusion),
//    `max` followed by a sum of `exp(x - max)`
//    becomes one online (m, l) reduction, so the statistics need one read of
//    the row instead of two; it is tagged rk.fold = "max_exp_sum" so that
//    the thread tier folds its values a group at a time (max, then sum of
//    exp) instead of one online combine per value.
// 3. When the row is streamed, `sum(x)` followed by the sum of squared
//    deviations from `sum(x) / N` (a variance) becomes one Welford
//    (count, mean, M2) reduction combined with Chan's formula: one read of
//    the row instead of two, without the cancellation of sum(x^2) - N mean^2.
//    The same when the row stays on chip but is split over a cluster of 4
//    or more CTAs: one cluster-wide barrier for the statistics, not two. Either way it
//    is tagged rk.fold = "mean_m2": a thread folds its values a group at a
//    time as two-pass statistics (count, mean, M2), one combine per group.
//
//===----------------------------------------------------------------------===//

#include "rkc/Transforms/Passes.h"
#include "rkc/Plan/ColumnAnalysis.h"
#include "rkc/Plan/RowAnalysis.h"
#include "rkc/Plan/RowPlan.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "rk-fuse-reductions"

namespace rkc {
#define GEN_PASS_DEF_RKFUSEREDUCTIONSPASS
#include "rkc/Transforms/Passes.h.inc"
} // namespace rkc

using namespace mlir;
using namespace mlir::rk;

namespace {

/// The identity of a builtin kind for a state component of type `t`.
static TypedAttr identityOf(ReduceKind kind, Type t, OpBuilder &b) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case ReduceKind::add: return b.getFloatAttr(t, 0.0);
    case ReduceKind::mul: return b.getFloatAttr(t, 1.0);
    case ReduceKind::max: return b.getFloatAttr(t, llvm::APFloat::getInf(sem, true));
    case ReduceKind::min: return b.getFloatAttr(t, llvm::APFloat::getInf(sem, false));
    default: return {};
    }
  }
  unsigned w = t.getIntOrFloatBitWidth();
  switch (kind) {
  case ReduceKind::add: return b.getIntegerAttr(t, 0);
  case ReduceKind::mul: return b.getIntegerAttr(t, 1);
  case ReduceKind::max: return b.getIntegerAttr(t, llvm::APInt::getSignedMinValue(w));
  case ReduceKind::min: return b.getIntegerAttr(t, llvm::APInt::getSignedMaxValue(w));
  default: return {};
  }
}

/// Combines two state components with a builtin kind.
static Value combineBuiltin(ReduceKind kind, Value a, Value b, OpBuilder &bd,
                            Location l) {
  bool f = isa<FloatType>(a.getType());
  switch (kind) {
  case ReduceKind::add:
    return f ? (Value)arith::AddFOp::create(bd, l, a, b) : arith::AddIOp::create(bd, l, a, b);
  case ReduceKind::mul:
    return f ? (Value)arith::MulFOp::create(bd, l, a, b) : arith::MulIOp::create(bd, l, a, b);
  case ReduceKind::max:
    return f ? (Value)arith::MaximumFOp::create(bd, l, a, b) : arith::MaxSIOp::create(bd, l, a, b);
  case ReduceKind::min:
    return f ? (Value)arith::MinimumFOp::create(bd, l, a, b) : arith::MinSIOp::create(bd, l, a, b);
  default:
    return {};
  }
}

static bool mergeable(ReduceOp r) {
  return !r.getKind() || (*r.getKind() != ReduceKind::argmax &&
                          *r.getKind() != ReduceKind::argmin);
}

/// State component types of a reduction.
static SmallVector<Type> stateTypes(ReduceOp r) {
  SmallVector<Type> s;
  for (Value in : r.getInputs())
    s.push_back(computeType(in.getType()));
  return s;
}

/// Emits into `block` (whose arguments are a's state then b's state) the
/// combination of the state components [offset, offset + k) of `r`.
static SmallVector<Value> emitCombine(ReduceOp r, Block *block, unsigned offset,
                                      unsigned total, OpBuilder &b) {
  unsigned k = r.getInputs().size();
  Location l = r.getLoc();
  if (auto kind = r.getKind()) {
    return {combineBuiltin(*kind, block->getArgument(offset),
                           block->getArgument(total + offset), b, l)};
  }
  IRMapping map;
  Block &src = r.getCombiner().front();
  for (unsigned i = 0; i < k; ++i) {
    map.map(src.getArgument(i), block->getArgument(offset + i));
    map.map(src.getArgument(k + i), block->getArgument(total + offset + i));
  }
  for (Operation &op : src.without_terminator())
    b.clone(op, map);
  SmallVector<Value> out;
  for (Value v : src.getTerminator()->getOperands())
    out.push_back(map.lookupOrDefault(v));
  return out;
}

static SmallVector<Attribute> initOf(ReduceOp r, OpBuilder &b) {
  if (auto kind = r.getKind())
    return {identityOf(*kind, stateTypes(r)[0], b)};
  return SmallVector<Attribute>(r.getInit()->getValue());
}

/// Merges `first` into `second` (which comes later); returns the new op.
static ReduceOp mergeSiblings(ReduceOp first, ReduceOp second) {
  OpBuilder b(second);
  SmallVector<Value> inputs(first.getInputs());
  inputs.append(second.getInputs().begin(), second.getInputs().end());
  SmallVector<Type> results(first.getResultTypes());
  results.append(second.getResultTypes().begin(), second.getResultTypes().end());
  SmallVector<Attribute> init = initOf(first, b);
  llvm::append_range(init, initOf(second, b));
  auto merged = ReduceOp::create(b, second.getLoc(), results, inputs,
                                 b.getArrayAttr(init));
  SmallVector<Type> state = stateTypes(first);
  llvm::append_range(state, stateTypes(second));
  SmallVector<Type> args(state);
  args.append(state);
  Block *block = b.createBlock(&merged.getCombiner(), {}, args,
                               SmallVector<Location>(args.size(), second.getLoc()));
  unsigned total = state.size();
  SmallVector<Value> yields = emitCombine(first, block, 0, total, b);
  llvm::append_range(yields, emitCombine(second, block, first.getInputs().size(), total, b));
  YieldOp::create(b, second.getLoc(), yields);
  unsigned k1 = first.getNumResults();
  for (unsigned i = 0; i < k1; ++i)
    first.getResult(i).replaceAllUsesWith(merged.getResult(i));
  for (unsigned i = 0; i < second.getNumResults(); ++i)
    second.getResult(i).replaceAllUsesWith(merged.getResult(k1 + i));
  second.erase();
  first.erase();
  return merged;
}

/// True when every user of `r`'s results comes after `later`.
static bool usersAfter(ReduceOp r, Operation *later) {
  Block *block = later->getBlock();
  for (Operation *u : r->getUsers()) {
    Operation *top = block->findAncestorOpInBlock(*u);
    if (!top || !later->isBeforeInBlock(top))
      return false;
  }
  return true;
}

/// True when `later`'s inputs do not depend on `earlier`'s results.
static bool independent(ReduceOp earlier, ReduceOp later) {
  SetVector<Operation *> slice;
  BackwardSliceOptions opts;
  opts.inclusive = false;
  (void)getBackwardSlice(later.getOperation(), &slice, opts);
  return !slice.contains(earlier.getOperation());
}

static void mergeSiblingReductions(func::FuncOp func) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<ReduceOp> reds;
    for (auto r : func.getBody().front().getOps<ReduceOp>())
      reds.push_back(r);
    for (size_t i = 0; i < reds.size() && !changed; ++i)
      for (size_t j = i + 1; j < reds.size() && !changed; ++j) {
        ReduceOp a = reds[i], b = reds[j];
        if (!mergeable(a) || !mergeable(b) ||
            a.getInputs()[0].getType() != b.getInputs()[0].getType())
          continue;
        if (!independent(a, b) || !usersAfter(a, b))
          continue;
        mergeSiblings(a, b);
        changed = true;
      }
  }
}

/// `%e = rk.map %x, %mb { subf a0, a1; exp; yield }` ?
static bool isExpShift(MapOp map, Value x, Value shift) {
  if (map.getNumResults() != 1 || map.getOperands_().size() != 2 ||
      map.getOperands_()[0] != x || map.getOperands_()[1] != shift)
    return false;
  Block &b = map.getBody().front();
  auto ops = b.without_terminator();
  if (std::distance(ops.begin(), ops.end()) != 2)
    return false;
  auto sub = dyn_cast<arith::SubFOp>(&*ops.begin());
  auto ex = dyn_cast<math::ExpOp>(&*std::next(ops.begin()));
  return sub && ex && sub.getLhs() == b.getArgument(0) &&
         sub.getRhs() == b.getArgument(1) && ex.getOperand() == sub &&
         b.getTerminator()->getOperand(0) == ex;
}

/// A map of x with one f32 result whose body yields a constant.
static MapOp constantMap(OpBuilder &b, Location l, Value x, float value) {
  Type f32 = b.getF32Type();
  auto xt = cast<RankedTensorType>(x.getType());
  auto map = MapOp::create(b, l, TypeRange{RankedTensorType::get(xt.getShape(), f32)},
                           ValueRange{x});
  OpBuilder::InsertionGuard g(b);
  b.createBlock(&map.getBody(), {}, {f32}, {l});
  Value c = arith::ConstantOp::create(b, l, b.getF32FloatAttr(value));
  YieldOp::create(b, l, ValueRange{c});
  return map;
}

/// The float constant `v` is: an arith.constant, directly or through the
/// map operand bound to a block argument of `map`.
static std::optional<double> constantValue(MapOp map, Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (arg.getOwner() == &map.getBody().front())
      v = map.getOperands_()[arg.getArgNumber()];
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      return f.getValueAsDouble();
  return std::nullopt;
}

/// `mean` = rk.map of `sum` that divides it by N (or multiplies by 1 / N).
static bool isMeanOf(Value mean, Value sum, int64_t n) {
  auto map = mean.getDefiningOp<MapOp>();
  if (!map || map.getNumResults() != 1 || map.getOperands_().empty() ||
      map.getOperands_()[0] != sum)
    return false;
  Block &b = map.getBody().front();
  // One division (or multiplication) of the sum; anything else in the body
  // is a constant.
  Operation *op = b.getTerminator()->getOperand(0).getDefiningOp();
  if (!op || op->getBlock() != &b || op->getNumOperands() != 2 ||
      op->getOperand(0) != b.getArgument(0))
    return false;
  for (Operation &o : b.without_terminator())
    if (&o != op && !isa<arith::ConstantOp>(o))
      return false;
  std::optional<double> c = constantValue(map, op->getOperand(1));
  if (!c)
    return false;
  if (isa<arith::DivFOp>(op))
    return *c == (double)n;
  if (isa<arith::MulFOp>(op))
    return (float)*c == (float)(1.0 / (double)n);
  return false;
}

/// In block `b`, `v` is (arg(i) - arg(j))^2 (mulf of the difference by
/// itself).
static bool isSquaredDiff(Block &b, Value v, unsigned i, unsigned j) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul || mul.getLhs() != mul.getRhs())
    return false;
  auto sub = mul.getLhs().getDefiningOp<arith::SubFOp>();
  return sub && sub.getLhs() == b.getArgument(i) && sub.getRhs() == b.getArgument(j);
}

/// The reduction input `sq` is the elementwise (x - bm)^2: one map of
/// (x, bm), or the square map of a (x - bm) map.
static bool isSquaredDeviation(Value sq, Value x, Value bm) {
  auto map = sq.getDefiningOp<MapOp>();
  if (!map || map.getNumResults() != 1)
    return false;
  Block &b = map.getBody().front();
  auto ops = b.without_terminator();
  Value yielded = b.getTerminator()->getOperand(0);
  auto operands = map.getOperands_();
  if (operands.size() == 2 && operands[0] == x && operands[1] == bm &&
      std::distance(ops.begin(), ops.end()) == 2)
    return isSquaredDiff(b, yielded, 0, 1);
  if (operands.size() != 1 || std::distance(ops.begin(), ops.end()) != 1)
    return false;
  auto mul = yielded.getDefiningOp<arith::MulFOp>();
  if (!mul || mul.getLhs() != b.getArgument(0) || mul.getRhs() != b.getArgument(0))
    return false;
  auto diff = operands[0].getDefiningOp<MapOp>();
  if (!diff || diff.getNumResults() != 1 || diff.getOperands_().size() != 2 ||
      diff.getOperands_()[0] != x || diff.getOperands_()[1] != bm)
    return false;
  Block &db = diff.getBody().front();
  auto sub = db.getTerminator()->getOperand(0).getDefiningOp<arith::SubFOp>();
  return std::distance(db.without_terminator().begin(), db.without_terminator().end()) == 1 &&
         sub && sub.getLhs() == db.getArgument(0) && sub.getRhs() == db.getArgument(1);
}

/// The add reduction of the squared deviations (x - bm)^2, if any.
static ReduceOp findVariance(func::FuncOp func, Value x, Value bm) {
  ReduceOp found;
  func.walk([&](ReduceOp r) {
    if (!found && r.getKind() == ReduceKind::add && r.getInputs().size() == 1 &&
        isSquaredDeviation(r.getInputs()[0], x, bm))
      found = r;
  });
  return found;
}

/// The Welford reduction of x: inputs (1, x, 0), state (count, mean, M2),
/// Chan's combiner:
///   n = n1 + n2, d = m2 - m1, t = n2 / n (0 when n = 0),
///   mean = m1 + d t, M2 = M2_1 + M2_2 + d^2 n1 t.
static ReduceOp buildWelford(OpBuilder &b, Location l, Value x, Type perRow) {
  Type f32 = b.getF32Type();
  MapOp ones = constantMap(b, l, x, 1.0f);
  MapOp zeros = constantMap(b, l, x, 0.0f);
  auto zero = b.getF32FloatAttr(0.0f);
  auto wel = ReduceOp::create(b, l, TypeRange{perRow, perRow, perRow},
                              ValueRange{ones.getResult(0), x, zeros.getResult(0)},
                              b.getArrayAttr({zero, zero, zero}));
  OpBuilder::InsertionGuard g(b);
  Block *blk = b.createBlock(&wel.getCombiner(), {}, SmallVector<Type>(6, f32),
                             SmallVector<Location>(6, l));
  Value n1 = blk->getArgument(0), m1 = blk->getArgument(1), q1 = blk->getArgument(2);
  Value n2 = blk->getArgument(3), m2 = blk->getArgument(4), q2 = blk->getArgument(5);
  Value nn = arith::AddFOp::create(b, l, n1, n2);
  Value d = arith::SubFOp::create(b, l, m2, m1);
  Value c0 = arith::ConstantOp::create(b, l, zero);
  Value empty = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, nn, c0);
  // t = n2 / n as an approximate division (fastmath<afn>, emitted as
  // __fdividef, 2 ulp): the IEEE one's range checks and slow path were 10
  // of the 360 instructions the Welford state added to LayerNorm f32's
  // cluster kernel; t only weighs the two means.
  auto div = arith::DivFOp::create(b, l, n2, nn);
  div.setFastmath(arith::FastMathFlags::afn);
  Value t = arith::SelectOp::create(b, l, empty, c0, div);
  Value m = arith::AddFOp::create(b, l, m1, arith::MulFOp::create(b, l, d, t));
  Value dn = arith::MulFOp::create(b, l, d, arith::MulFOp::create(b, l, n1, t));
  Value q = arith::AddFOp::create(b, l, arith::AddFOp::create(b, l, q1, q2),
                                  arith::MulFOp::create(b, l, d, dn));
  YieldOp::create(b, l, ValueRange{nn, m, q});
  return wel;
}

/// sum(x), mean = sum / N, sum((x - mean)^2) -> one Welford reduction of
/// x (buildWelford). The sum's uses get count x mean, the variance sum's
/// uses get M2.
/// The first sum(x) whose mean `sum / N` has a variance sum((x - mean)^2)
/// reducing the same row, and that variance; null ops when there is none.
static std::pair<ReduceOp, ReduceOp> findMeanAndVariance(func::FuncOp func) {
  SmallVector<ReduceOp> sums;
  func.walk([&](ReduceOp r) {
    if (r.getKind() == ReduceKind::add && r.getInputs().size() == 1)
      sums.push_back(r);
  });
  for (ReduceOp sumOp : sums) {
    Value x = sumOp.getInputs()[0];
    auto xt = cast<RankedTensorType>(x.getType());
    if (xt.getRank() != 2 || xt.isDynamicDim(1) || !isa<FloatType>(computeType(xt)))
      continue;
    Value sum = sumOp.getResult(0);
    for (Operation *mu : sum.getUsers()) {
      if (!isa<MapOp>(mu) || !isMeanOf(mu->getResult(0), sum, xt.getDimSize(1)))
        continue;
      for (Operation *bu : mu->getResult(0).getUsers())
        if (auto bc = dyn_cast<BroadcastOp>(bu); bc && bc.getDims() == ArrayRef<int64_t>{0})
          if (ReduceOp varOp = findVariance(func, x, bc.getResult()))
            return {sumOp, varOp};
    }
  }
  return {};
}

static void formWelford(func::FuncOp func) {
  while (true) {
    auto [sumOp, varOp] = findMeanAndVariance(func);
    if (!sumOp)
      return;
    Value x = sumOp.getInputs()[0];
    Value sum = sumOp.getResult(0);
    OpBuilder b(sumOp);
    Location l = sumOp.getLoc();
    Type f32 = b.getF32Type();
    ReduceOp wel = buildWelford(b, l, x, sum.getType());
    auto total = MapOp::create(b, l, TypeRange{sum.getType()},
                               ValueRange{wel.getResult(0), wel.getResult(1)});
    {
      OpBuilder::InsertionGuard g(b);
      Block *blk = b.createBlock(&total.getBody(), {}, {f32, f32}, {l, l});
      YieldOp::create(b, l, ValueRange{arith::MulFOp::create(b, l, blk->getArgument(0),
                                                               blk->getArgument(1))});
    }
    // The thread tier folds its values a group at a time as two-pass
    // statistics (count, mean, M2), not one Chan combine per value.
    wel->setAttr(kFoldAttr, b.getStringAttr(kFoldMeanM2));
    sum.replaceAllUsesWith(total.getResult(0));
    varOp.getResult(0).replaceAllUsesWith(wel.getResult(2));
    varOp.erase();
    sumOp.erase();
  }
}

/// max(x) then sum(exp(x - max)) -> one online (m, l) reduction.
static void formOnlineSoftmax(func::FuncOp func) {
  SmallVector<ReduceOp> maxes;
  func.walk([&](ReduceOp r) {
    if (r.getKind() == ReduceKind::max)
      maxes.push_back(r);
  });
  for (ReduceOp maxOp : maxes) {
    Value x = maxOp.getInputs()[0];
    for (Operation *u : maxOp.getResult(0).getUsers()) {
      auto bc = dyn_cast<BroadcastOp>(u);
      if (!bc || bc.getDims() != ArrayRef<int64_t>{0})
        continue;
      for (Operation *mu : bc.getResult().getUsers()) {
        auto map = dyn_cast<MapOp>(mu);
        if (!map || !isExpShift(map, x, bc.getResult()))
          continue;
        ReduceOp sumOp;
        for (Operation *eu : map.getResult(0).getUsers())
          if (auto s = dyn_cast<ReduceOp>(eu); s && s.getKind() == ReduceKind::add)
            sumOp = s;
        if (!sumOp)
          continue;
        OpBuilder b(maxOp);
        Location l = maxOp.getLoc();
        Type f32 = b.getF32Type();
        MapOp ones = constantMap(b, l, x, 1.0f);
        Type perRow = maxOp.getResult(0).getType();
        auto online = ReduceOp::create(
            b, l, TypeRange{perRow, sumOp.getResult(0).getType()},
            ValueRange{x, ones.getResult(0)},
            b.getArrayAttr({identityOf(ReduceKind::max, f32, b),
                            identityOf(ReduceKind::add, f32, b)}));
        Block *blk = b.createBlock(&online.getCombiner(), {}, {f32, f32, f32, f32},
                                   SmallVector<Location>(4, l));
        Value m1 = blk->getArgument(0), l1 = blk->getArgument(1);
        Value m2 = blk->getArgument(2), l2 = blk->getArgument(3);
        Value m = arith::MaximumFOp::create(b, l, m1, m2);
        Value ninf = arith::ConstantOp::create(
            b, l, cast<TypedAttr>(identityOf(ReduceKind::max, f32, b)));
        Value empty = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, m, ninf);
        // One exp per combine: the state with the larger max keeps its sum,
        // the other's is scaled by exp(min - max). (Scaling both, as in
        // l1 exp(m1 - m) + l2 exp(m2 - m), spends an exp on exp(0) = 1;
        // in the thread fold, where one side is a single element, that is
        // half of the fold's MUFU work.)
        Value mn = arith::MinimumFOp::create(b, l, m1, m2);
        Value e = math::ExpOp::create(b, l, arith::SubFOp::create(b, l, mn, m));
        Value firstBig = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, m1, m2);
        Value big = arith::SelectOp::create(b, l, firstBig, l1, l2);
        Value small = arith::SelectOp::create(b, l, firstBig, l2, l1);
        Value s = arith::AddFOp::create(b, l, big, arith::MulFOp::create(b, l, small, e));
        Value both = arith::AddFOp::create(b, l, l1, l2);
        Value lsum = arith::SelectOp::create(b, l, empty, both, s);
        YieldOp::create(b, l, ValueRange{m, lsum});
        // The thread tier folds its values a group at a time as max, then
        // sum of exp(x - max), not one online combine per value.
        online->setAttr(kFoldAttr, b.getStringAttr(kFoldMaxExpSum));
        maxOp.getResult(0).replaceAllUsesWith(online.getResult(0));
        sumOp.getResult(0).replaceAllUsesWith(online.getResult(1));
        sumOp.erase();
        maxOp.erase();
        return formOnlineSoftmax(func); // the walk list is stale; start again
      }
    }
  }
}

/// The plan of `func` once `form` has rewritten a copy of it, planned with
/// the schedule's fields `o`; nullopt when it does not plan.
static std::optional<::rkc::plan::RowPlan>
planWhenFused(func::FuncOp func, const ::rkc::plan::Target &t,
              const ::rkc::plan::PlanOverride &o, llvm::function_ref<void(func::FuncOp)> form) {
  func::FuncOp trial = func.clone();
  form(trial);
  std::optional<::rkc::plan::RowPlan> plan;
  if (auto p = ::rkc::analyzeRowProgram(trial); succeeded(p)) {
    if (auto pl = ::rkc::plan::planRow(*p, t, o, nullptr))
      plan = *pl;
    else
      llvm::consumeError(pl.takeError());
  }
  trial.erase();
  return plan;
}

/// Whether the planner streams `func` once its online combiners are formed
/// (a read-once row: one reduction deep only after the fusion).
static bool plansStreamWhenFused(func::FuncOp func, const ::rkc::plan::Target &t,
                                 const ::rkc::plan::PlanOverride &o) {
  auto plan = planWhenFused(func, t, o, [](func::FuncOp f) {
    formOnlineSoftmax(f);
    formWelford(f);
  });
  return plan && plan->staging == ::rkc::plan::Staging::Stream;
}

/// The smallest cluster whose rows held on chip take their variance as a
/// Welford state: each reduction is a cluster-wide barrier, and the Welford
/// state needs one where the mean and then the variance need two, but
/// spends more instructions climbing the tiers (a Chan combine per level).
/// Measured on the H100 (LayerNorm, M x N = 2^27, docs/performance-notes.md,
/// session 14): clusters of 4-16 (N = 64k-256k) +3-5 % for bf16 and f32,
/// clusters of 2 (N = 32k) +0.6 % bf16, -2.2 % f32.
constexpr int64_t kWelfordMinCluster = 4;

/// Whether the planner splits the rows of `func` over a cluster (or a split) of at least
/// kWelfordMinCluster CTAs, on chip, once its variances are Welford
/// reductions.
static bool plansClusterWhenFused(func::FuncOp func, const ::rkc::plan::Target &t,
                                  const ::rkc::plan::PlanOverride &o) {
  if (!findMeanAndVariance(func).first)
    return false; // nothing to fuse: no trial plan
  auto plan = planWhenFused(func, t, o, formWelford);
  return plan && plan->ctasPerRow() >= kWelfordMinCluster &&
         plan->staging != ::rkc::plan::Staging::Stream;
}

struct FuseReductions
    : public ::rkc::impl::RkFuseReductionsPassBase<FuseReductions> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (::rkc::isColumnProgram(func))
      return; // no row reductions to fuse
    if (streaming != "auto" && streaming != "always" && streaming != "never") {
      func.emitError() << "streaming must be auto, always or never, got '"
                       << streaming << "'";
      return signalPassFailure();
    }
    bool stream = streaming == "always";
    if (std::string bad = ::rkc::plan::checkSms(sms); !bad.empty()) {
      func.emitError() << bad;
      return signalPassFailure();
    }
    auto target = ::rkc::plan::lookupTarget(arch, sms);
    if (!target && streaming != "always") {
      func.emitError() << "unsupported arch '" << arch << "' (supported: "
                       << ::rkc::plan::supportedArchs() << ")";
      return signalPassFailure();
    }
    // A schedule that names its staging decides (a forced `staging=stream`
    // below the capacity limit must read the row once too, or the tuner
    // and A/Bs would compare a two-sweep streamed kernel); a malformed one
    // is left to rk-plan-tiers, which reports it.
    std::optional<int> staged;
    ::rkc::plan::PlanOverride fields;
    if (auto o = ::rkc::plan::parseOverride(schedule)) {
      fields = *o;
      if (o->staging >= 0)
        staged = o->staging;
    } else {
      llvm::consumeError(o.takeError());
    }
    if (streaming == "auto" && staged) {
      stream = *staged == (int)::rkc::plan::Staging::Stream;
    } else if (streaming == "auto") {
      auto problem = ::rkc::analyzeRowProgram(func);
      if (failed(problem))
        return signalPassFailure();
      // Streamed: a row too long for the chip, or one the planner streams
      // because it is read once after the fusion (cross-entropy).
      stream = ::rkc::plan::needsStreaming(*problem, *target) ||
               (problem->outputRowBytes == 0 && plansStreamWhenFused(func, *target, fields));
    }
    if (stream) {
      formOnlineSoftmax(func);
      formWelford(func);
    } else if (plansClusterWhenFused(func, *target, fields)) {
      formWelford(func);
    }
    mergeSiblingReductions(func);
  }
};

} // namespace
