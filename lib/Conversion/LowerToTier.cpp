//===- LowerToTier.cpp - row programs to per-thread tier ops --------------===//
//
// Obeys the plan (tier.layout / tier.schedule), never decides. Each rk value
// becomes what one thread holds of it:
//   [M, N] tensors and [N] row vectors -> a !tier.frag (the thread's values);
//   [M] per-row values               -> a scalar (same in all row threads);
//   scalars                          -> themselves.
// Broadcasts are views and vanish. Every reduction climbs the tiers in
// hardware order: thread -> warp -> block (or cluster). Results become
// destination arguments written by tier.store / tier.store_row_scalar (an
// [M, 1] result, the broadcast of an [M] value, is a per-row scalar too).
//
//===----------------------------------------------------------------------===//

#include "rkc/Transforms/Passes.h"
#include "ColumnLowering.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

#define DEBUG_TYPE "rk-lower-to-tier"

namespace rkc {
#define GEN_PASS_DEF_RKLOWERTOTIERPASS
#include "rkc/Transforms/Passes.h.inc"
} // namespace rkc

using namespace mlir;
using namespace mlir::rk;

namespace {

enum class Kind { Frag, RowScalar, Scalar };

class Lowering {
public:
  Lowering(func::FuncOp f, tier::TvLayoutAttr layout, tier::ScheduleAttr sched)
      : func(f), layout(layout), sched(sched), b(f.getContext()) {}

  LogicalResult run();

private:
  FailureOr<Kind> classify(Value v);
  FailureOr<Value> lookup(Value v, Operation *user);
  Value argValue(BlockArgument arg, Kind k);
  Type fragOf(Type scalar) {
    return tier::FragType::get(b.getContext(), layout.getValues(), scalar);
  }
  Value roundIfNarrow(Value v, Type declared, Value origin);
  Value roundMap(Value v, function_ref<Value(Value)> body);
  LogicalResult lowerMap(MapOp op);
  LogicalResult lowerReduce(ReduceOp op);
  LogicalResult lowerGather(GatherOp op);
  void cloneRegion(Region &from, Region &to, TypeRange argTypes);
  SmallVector<Value> climb(Operation *anchor, ValueRange state, Attribute kind,
                           Region *combiner);

  func::FuncOp func;
  tier::TvLayoutAttr layout;
  tier::ScheduleAttr sched;
  OpBuilder b;
  int64_t rows = 0, cols = 0;
  llvm::DenseMap<Value, Kind> kinds;
  llvm::DenseMap<Value, Value> values;
  llvm::DenseMap<Value, Value> argLoads;
};

/// Kind of a rank-1 value: per-row [M] or row vector [N], from its
/// producer, or for arguments from how they are used.
FailureOr<Kind> Lowering::classify(Value v) {
  auto it = kinds.find(v);
  if (it != kinds.end())
    return it->second;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  Kind k = Kind::Scalar;
  if (!t) {
    k = Kind::Scalar;
  } else if (t.getRank() == 2) {
    // [M, 1] beside [M, N] values: one value per row (per-token scales).
    k = t.getDimSize(1) == 1 && cols != 1 ? Kind::RowScalar : Kind::Frag;
  } else if (t.getRank() == 1) {
    if (Operation *def = v.getDefiningOp()) {
      if (isa<ReduceOp, GatherOp>(def)) {
        k = Kind::RowScalar;
      } else if (auto map = dyn_cast<MapOp>(def)) {
        k = Kind::RowScalar;
        for (Value o : map.getOperands_())
          if (isa<RankedTensorType>(o.getType())) {
            auto ok = classify(o);
            if (failed(ok))
              return failure();
            k = *ok;
            break;
          }
      } else {
        return def->emitError("unsupported producer of a rank-1 value in a row kernel");
      }
    } else {
      // An argument: decided by its uses, then by its size.
      std::optional<Kind> byUse;
      for (OpOperand &use : v.getUses()) {
        Operation *u = use.getOwner();
        if (auto bc = dyn_cast<BroadcastOp>(u))
          byUse = bc.getDims()[0] == 0 ? Kind::RowScalar : Kind::Frag;
        else if (isa<GatherOp>(u))
          byUse = Kind::RowScalar;
        if (byUse)
          break;
      }
      if (byUse)
        k = *byUse;
      else
        k = (t.getDimSize(0) == cols && cols != rows) ? Kind::Frag : Kind::RowScalar;
    }
  } else {
    return func.emitError() << "row kernels take tensors of rank 1 or 2, got " << t;
  }
  kinds[v] = k;
  return k;
}

/// The tier value of an argument: loaded once, where it is first used (so
/// a row vector needed only at the end does not hold registers before).
Value Lowering::argValue(BlockArgument arg, Kind k) {
  auto it = argLoads.find(arg);
  if (it != argLoads.end())
    return it->second;
  auto t = cast<RankedTensorType>(arg.getType());
  Type scalar = computeType(t);
  Value v;
  if (k == Kind::Frag)
    v = tier::LoadOp::create(b, arg.getLoc(), fragOf(scalar), arg,
                             cast<TypedAttr>(b.getZeroAttr(scalar)));
  else
    v = tier::LoadRowScalarOp::create(b, arg.getLoc(), scalar, arg);
  argLoads[arg] = v;
  return v;
}

FailureOr<Value> Lowering::lookup(Value v, Operation *user) {
  if (!isa<RankedTensorType>(v.getType()))
    return v; // scalars (constants) are used as they are
  if (auto bc = v.getDefiningOp<BroadcastOp>())
    return lookup(bc.getInput(), user);
  auto it = values.find(v);
  if (it != values.end())
    return it->second;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto k = classify(arg);
    if (failed(k))
      return failure();
    Value loaded = argValue(arg, *k);
    values[v] = loaded;
    return loaded;
  }
  return user->emitError("operand was not lowered (unsupported producer)");
}

/// A tier.map of `v` (f32 values) through `body`.
Value Lowering::roundMap(Value v, function_ref<Value(Value)> body) {
  Type scalar = b.getF32Type();
  auto map = tier::MapOp::create(b, v.getLoc(), TypeRange{v.getType()}, ValueRange{v});
  Block *blk = b.createBlock(&map.getBody(), {}, {scalar}, {v.getLoc()});
  tier::YieldOp::create(b, v.getLoc(), ValueRange{body(blk->getArgument(0))});
  b.setInsertionPointAfter(map);
  return map.getResult(0);
}

/// Values of a narrower declared float type, and the f32 values of a
/// quantized integer tensor, are rounded where they are used again (as the
/// store rounds them), so the kernel computes what the IR says.
Value Lowering::roundIfNarrow(Value v, Type declared, Value origin) {
  bool usedAgain = llvm::any_of(origin.getUsers(), [](Operation *u) {
    return !isa<func::ReturnOp>(u);
  });
  if (!usedAgain)
    return v;
  Location loc = v.getLoc();
  if (auto range = quantizedRange(declared)) {
    // Half to even, saturated to the integer type's range (maxnum takes NaN
    // to the lowest value, as the store does).
    return roundMap(v, [&](Value a) {
      auto c = [&](int64_t x) {
        return arith::ConstantOp::create(b, loc, b.getF32FloatAttr((float)x)).getResult();
      };
      Value r = math::RoundEvenOp::create(b, loc, a);
      Value lo = arith::MaxNumFOp::create(b, loc, r, c(range->first));
      return arith::MinNumFOp::create(b, loc, lo, c(range->second)).getResult();
    });
  }
  Type elem = cast<RankedTensorType>(declared).getElementType();
  if (!(elem.isBF16() || elem.isF16()))
    return v;
  return roundMap(v, [&](Value a) {
    Value t = arith::TruncFOp::create(b, loc, elem, a);
    return arith::ExtFOp::create(b, loc, b.getF32Type(), t).getResult();
  });
}

/// Copies a region's ops into `to` (one block of `argTypes`), turning
/// rk.yield into tier.yield.
void Lowering::cloneRegion(Region &from, Region &to, TypeRange argTypes) {
  OpBuilder::InsertionGuard g(b);
  Block &src = from.front();
  Block *dst = b.createBlock(&to, {}, argTypes,
                             SmallVector<Location>(argTypes.size(), func.getLoc()));
  IRMapping map;
  for (auto [s, d] : llvm::zip(src.getArguments(), dst->getArguments()))
    map.map(s, d);
  // Constants defined above the region (rewrite drivers hoist the constants
  // of map and combiner regions to the function) are copied in: a combiner
  // becomes a functor of its own in the CUDA source and sees nothing else.
  auto copyOuterConstants = [&](Operation &op) {
    for (Value v : op.getOperands())
      if (!map.contains(v) && !from.isAncestor(v.getParentRegion()))
        if (auto c = v.getDefiningOp<arith::ConstantOp>())
          map.map(v, b.clone(*c)->getResult(0));
  };
  for (Operation &op : src.without_terminator()) {
    copyOuterConstants(op);
    b.clone(op, map);
  }
  copyOuterConstants(*src.getTerminator());
  SmallVector<Value> ys;
  for (Value y : src.getTerminator()->getOperands())
    ys.push_back(map.lookupOrDefault(y));
  tier::YieldOp::create(b, src.getTerminator()->getLoc(), ys);
}

LogicalResult Lowering::lowerMap(MapOp op) {
  SmallVector<Value> ins;
  bool anyFrag = false;
  for (Value o : op.getOperands_()) {
    auto v = lookup(o, op);
    if (failed(v))
      return failure();
    anyFrag |= isa<tier::FragType>(v->getType());
    ins.push_back(*v);
  }
  SmallVector<Type> argTypes, resTypes;
  for (Value v : ins)
    argTypes.push_back(isa<tier::FragType>(v.getType())
                           ? cast<tier::FragType>(v.getType()).getElementType()
                           : v.getType());
  for (Type r : op.getResultTypes()) {
    Type s = computeType(r);
    resTypes.push_back(anyFrag ? fragOf(s) : s);
  }
  auto map = tier::MapOp::create(b, op.getLoc(), resTypes, ins);
  cloneRegion(op.getBody(), map.getBody(), argTypes);
  b.setInsertionPointAfter(map);
  for (auto [i, r] : llvm::enumerate(op.getResults()))
    values[r] = roundIfNarrow(map.getResult(i), r.getType(), r);
  return success();
}

/// thread -> warp -> block | cluster | grid, as the schedule says.
SmallVector<Value> Lowering::climb(Operation *anchor, ValueRange state,
                                   Attribute kind, Region *combiner) {
  int64_t threads = layout.getThreads();
  int64_t warps = threads >= 32 ? threads / 32 : 1;
  int64_t cluster = sched.getCluster();
  int64_t split = sched.getSplit();
  SmallVector<Value> cur(state);
  TypeRange types = state.getTypes();
  SmallVector<Type> stateTypes(types);
  SmallVector<Type> args(stateTypes);
  args.append(stateTypes);
  auto finish = [&](Operation *op) {
    if (combiner)
      cloneRegion(*combiner, op->getRegion(0), args);
    b.setInsertionPointAfter(op);
    cur.assign(op->result_begin(), op->result_end());
  };
  Location loc = anchor->getLoc();
  if (threads > 1) {
    auto w = tier::WarpReduceOp::create(b, loc, stateTypes, cur, kind,
                                        b.getI64IntegerAttr(std::min<int64_t>(threads, 32)));
    finish(w);
  }
  if (split > 1) {
    auto g = tier::GridReduceOp::create(b, loc, stateTypes, cur, kind,
                                        b.getI64IntegerAttr(warps),
                                        b.getI64IntegerAttr(split));
    finish(g);
  } else if (cluster > 1) {
    auto c = tier::ClusterReduceOp::create(b, loc, stateTypes, cur, kind,
                                           b.getI64IntegerAttr(warps),
                                           b.getI64IntegerAttr(cluster));
    finish(c);
  } else if (warps > 1) {
    auto bl = tier::BlockReduceOp::create(b, loc, stateTypes, cur, kind,
                                          b.getI64IntegerAttr(warps));
    finish(bl);
  }
  return cur;
}

LogicalResult Lowering::lowerReduce(ReduceOp op) {
  // A reduction of an [M, 1] per-row column (a row of one element) is its
  // element: how a row program reads an [M, 1] argument as a per-row value.
  if (op.getInputs().size() == 1 && op.getKind() &&
      llvm::is_contained({ReduceKind::add, ReduceKind::mul, ReduceKind::max, ReduceKind::min},
                         *op.getKind())) {
    auto k = classify(op.getInputs()[0]);
    if (failed(k))
      return failure();
    if (*k == Kind::RowScalar) {
      auto v = lookup(op.getInputs()[0], op);
      if (failed(v))
        return failure();
      values[op.getResult(0)] = *v;
      return success();
    }
  }
  SmallVector<Value> ins;
  for (Value in : op.getInputs()) {
    auto v = lookup(in, op);
    if (failed(v))
      return failure();
    if (!isa<tier::FragType>(v->getType()))
      return op.emitError("reduces a row: its inputs must be [M, N] values");
    ins.push_back(*v);
  }
  SmallVector<Type> state;
  SmallVector<Attribute> init;
  Attribute kindAttr;
  Region *combiner = nullptr;
  if (auto kind = op.getKind()) {
    kindAttr = op.getKindAttr();
    Type s = cast<tier::FragType>(ins[0].getType()).getElementType();
    state.push_back(s);
    bool isF = isa<FloatType>(s);
    auto &sem = isF ? cast<FloatType>(s).getFloatSemantics() : llvm::APFloat::IEEEsingle();
    switch (*kind) {
    case ReduceKind::add:
      init.push_back(b.getZeroAttr(s));
      break;
    case ReduceKind::mul:
      init.push_back(isF ? (Attribute)b.getFloatAttr(s, 1.0) : b.getIntegerAttr(s, 1));
      break;
    case ReduceKind::max:
    case ReduceKind::argmax:
      init.push_back(isF ? (Attribute)b.getFloatAttr(s, llvm::APFloat::getInf(sem, true))
                         : b.getIntegerAttr(s, llvm::APInt::getSignedMinValue(
                                                   s.getIntOrFloatBitWidth())));
      break;
    case ReduceKind::min:
    case ReduceKind::argmin:
      init.push_back(isF ? (Attribute)b.getFloatAttr(s, llvm::APFloat::getInf(sem, false))
                         : b.getIntegerAttr(s, llvm::APInt::getSignedMaxValue(
                                                   s.getIntOrFloatBitWidth())));
      break;
    }
    if (*kind == ReduceKind::argmax || *kind == ReduceKind::argmin) {
      Type idx = cast<RankedTensorType>(op.getResult(1).getType()).getElementType();
      state.push_back(idx);
      init.push_back(b.getIntegerAttr(idx, -1));
    }
  } else {
    for (Value v : ins)
      state.push_back(cast<tier::FragType>(v.getType()).getElementType());
    init.assign(op.getInit()->begin(), op.getInit()->end());
    combiner = &op.getCombiner();
  }
  auto tr = tier::ThreadReduceOp::create(b, op.getLoc(), state, ins, kindAttr,
                                         b.getArrayAttr(init));
  if (Attribute fold = op->getAttr(kFoldAttr))
    tr->setAttr(kFoldAttr, fold);
  SmallVector<Type> args(state);
  args.append(state);
  if (combiner)
    cloneRegion(*combiner, tr.getCombiner(), args);
  b.setInsertionPointAfter(tr);
  SmallVector<Value> out = climb(op, tr.getResults(), kindAttr, combiner);
  for (auto [i, r] : llvm::enumerate(op.getResults()))
    values[r] = roundIfNarrow(out[i], r.getType(), r);
  return success();
}

LogicalResult Lowering::lowerGather(GatherOp op) {
  auto arg = dyn_cast<BlockArgument>(op.getInput());
  if (!arg)
    return op.emitError("rk.gather reads a kernel argument; gathering a "
                        "computed value is not supported");
  // A gather by an argument's index does not depend on the row's
  // reductions: issue it (and the index load) at the kernel's start, so its
  // memory latency overlaps the row loads instead of following them.
  OpBuilder::InsertionGuard guard(b);
  if (isa<BlockArgument>(op.getIndex()))
    b.setInsertionPointToStart(&func.getBody().front());
  auto idx = lookup(op.getIndex(), op);
  if (failed(idx))
    return failure();
  values[op.getResult()] =
      tier::GatherOp::create(b, op.getLoc(), b.getF32Type(), arg, *idx);
  return success();
}

LogicalResult Lowering::run() {
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<Type> all(func.getArgumentTypes());
  llvm::append_range(all, func.getResultTypes());
  // The row shape: an [M, 1] tensor beside [M, N] ones is a per-row value.
  for (bool wide : {true, false}) {
    for (Type t : all)
      if (auto r = dyn_cast<RankedTensorType>(t);
          r && r.getRank() == 2 && !(wide && r.getDimSize(1) == 1)) {
        rows = r.getDimSize(0);
        cols = r.getDimSize(1);
        break;
      }
    if (cols)
      break;
  }
  // With staging = stream or smem the same per-thread program describes
  // one pass over a part of the row; tier-emit-cuda sweeps it over the row
  // (elementwise work is redone in each phase that needs it; loads come
  // from global memory (stream) or from the shared-memory copy (smem)).
  for (BlockArgument a : func.getArguments()) {
    auto t = dyn_cast<RankedTensorType>(a.getType());
    if (!t)
      return func.emitError() << "kernel arguments must be tensors, got "
                              << a.getType();
    if (t.getRank() == 2 && !isDataFloat(t.getElementType()) && !t.getElementType().isInteger(8))
      return func.emitError() << "[M, N] arguments of a row kernel must be float (f32, bf16, "
                                 "f16) or int8, got "
                              << t;
  }

  SmallVector<Operation *> old;
  for (Operation &op : body)
    if (&op != ret.getOperation())
      old.push_back(&op);
  for (Operation *op : old) {
    b.setInsertionPoint(ret);
    LogicalResult r = success();
    if (isa<arith::ConstantOp>(op))
      continue;
    if (isa<BroadcastOp>(op))
      continue;
    if (auto m = dyn_cast<MapOp>(op))
      r = lowerMap(m);
    else if (auto red = dyn_cast<ReduceOp>(op))
      r = lowerReduce(red);
    else if (auto g = dyn_cast<GatherOp>(op))
      r = lowerGather(g);
    else
      return op->emitError() << "'" << op->getName()
                             << "' is not supported by the row-kernel lowering "
                                "(run rk-decompose first, or the op has no row "
                                "lowering yet)";
    if (failed(r))
      return failure();
  }

  // Results become destination arguments.
  b.setInsertionPoint(ret);
  unsigned numIn = func.getNumArguments();
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return ret.emitError("kernel results must be tensors");
    BlockArgument dest = body.addArgument(t, v.getLoc());
    auto tv = lookup(v, ret);
    if (failed(tv))
      return failure();
    if (isa<tier::FragType>(tv->getType())) {
      if (t.getRank() != 2)
        return ret.emitError("a row-vector result is not supported; results are [M, N] or [M]");
      tier::StoreOp::create(b, v.getLoc(), *tv, dest);
    } else if (t.getRank() == 1 || (t.getRank() == 2 && t.getDimSize(1) == 1)) {
      // [M] or [M, 1]: one value per row.
      tier::StoreRowScalarOp::create(b, v.getLoc(), *tv, dest);
    } else {
      return ret.emitError("an [M, N] result must be computed per element");
    }
  }
  unsigned numOut = ret.getNumOperands();
  OpBuilder rb(ret);
  func::ReturnOp::create(rb, ret.getLoc());
  ret.erase();
  for (Operation *op : llvm::reverse(old)) {
    if (isa<arith::ConstantOp>(op) && !op->use_empty())
      continue; // scalars the tier ops still use
    op->dropAllUses();
    op->erase();
  }
  SmallVector<Type> argTypes(body.getArgumentTypes());
  func.setType(FunctionType::get(func.getContext(), argTypes, {}));
  for (unsigned i = 0; i < numOut; ++i) {
    func.setArgAttr(numIn + i, "rk.name",
                    b.getStringAttr("out" + std::to_string(i)));
    func.setArgAttr(numIn + i, "tier.output", b.getUnitAttr());
  }
  return success();
}

struct LowerToTier : public ::rkc::impl::RkLowerToTierPassBase<LowerToTier> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (auto ks = func->getAttrOfType<tier::KSplitLayoutAttr>(tier::kLayoutAttr)) {
      if (failed(::rkc::lowerColumnProgram(func, ks)))
        signalPassFailure();
      return;
    }
    auto layout = func->getAttrOfType<tier::TvLayoutAttr>(tier::kLayoutAttr);
    auto sched = func->getAttrOfType<tier::ScheduleAttr>(tier::kScheduleAttr);
    if (!layout || !sched) {
      func.emitError("the kernel has no plan: run rk-plan-tiers first");
      return signalPassFailure();
    }
    Lowering l(func, layout, sched);
    if (failed(l.run()))
      signalPassFailure();
  }
};

} // namespace
