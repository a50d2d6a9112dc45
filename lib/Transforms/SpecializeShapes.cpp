//===- SpecializeShapes.cpp - bind dynamic dims and !rk.dtype -------------===//
//
// A compile request gives some argument shapes and a dtype. Every dynamic
// dimension of every tensor in the kernel is a variable; the ops tie
// variables together (equal, or one a fixed multiple of another), and the
// given shapes fix some of them. We propagate to a fixed point, report what
// is missing or inconsistent, then rewrite all types and fold rk.dim.
//
//===----------------------------------------------------------------------===//

#include "rkc/Transforms/Passes.h"

#include <numeric>

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "rk-specialize-shapes"

namespace rkc {
#define GEN_PASS_DEF_RKSPECIALIZESHAPESPASS
#include "rkc/Transforms/Passes.h.inc"
} // namespace rkc

using namespace mlir;
using namespace mlir::rk;

namespace {

/// `b.dim(bi) == a.dim(ai) * num / den`.
struct Relation {
  Value a;
  int64_t ai;
  Value b;
  int64_t bi;
  int64_t num = 1, den = 1;
};

static constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;

class ShapeSolver {
public:
  explicit ShapeSolver(func::FuncOp f) : func(f) {}

  /// Known sizes of value `v` (kDynamic = unknown).
  SmallVector<int64_t> &dims(Value v) {
    auto it = known.find(v);
    if (it != known.end())
      return it->second;
    auto t = cast<RankedTensorType>(v.getType());
    return known[v] = SmallVector<int64_t>(t.getShape());
  }

  void collect() {
    func.walk([&](Operation *op) { relationsOf(op); });
  }

  /// Propagates until nothing changes; returns failure on a conflict.
  LogicalResult solve() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Relation &r : rels) {
        int64_t &a = dims(r.a)[r.ai];
        int64_t &b = dims(r.b)[r.bi];
        auto isDyn = ShapedType::isDynamic;
        if (!isDyn(a)) {
          if ((a * r.num) % r.den != 0) {
            Operation *user = r.b.getDefiningOp() ? r.b.getDefiningOp() : func;
            if (r.a.getDefiningOp())
              user = r.a.getDefiningOp();
            for (OpOperand &use : r.a.getUses()) {
              user = use.getOwner();
              break;
            }
            return user->emitError()
                   << "dimension #" << r.ai << " (" << a
                   << ") must be a multiple of " << r.den / std::gcd(r.num, r.den)
                   << " (the group size of a tied tensor)";
          }
          int64_t want = a * r.num / r.den;
          if (isDyn(b)) {
            b = want;
            changed = true;
          } else if (b != want) {
            return emitConflict(r, a, b);
          }
        } else if (!isDyn(b)) {
          a = b * r.den / r.num;
          changed = true;
        }
      }
    }
    return success();
  }

  SmallVector<Relation> rels;

private:
  void equal(Value a, int64_t ai, Value b, int64_t bi) {
    rels.push_back({a, ai, b, bi});
  }
  void sameShape(Value a, Value b) {
    auto ta = cast<RankedTensorType>(a.getType());
    auto tb = cast<RankedTensorType>(b.getType());
    for (int64_t i = 0; i < std::min(ta.getRank(), tb.getRank()); ++i)
      equal(a, i, b, i);
  }
  void quantGroup(Value q, Value scales) {
    auto qt = cast<RankedTensorType>(q.getType());
    auto quant = dyn_cast_or_null<QuantAttr>(qt.getEncoding());
    if (!quant)
      return;
    for (int64_t i = 0; i < qt.getRank(); ++i) {
      if (i != (int64_t)quant.getAxis())
        equal(q, i, scales, i);
      else if (quant.getGroupSize() > 0)
        rels.push_back({q, i, scales, i, 1, quant.getGroupSize()});
      else if (ShapedType::isDynamic(dims(scales)[i]))
        dims(scales)[i] = 1; // one group over the whole axis
    }
  }

  void relationsOf(Operation *op) {
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](RmsNormOp o) {
          sameShape(o.getInput(), o.getResult());
          equal(o.getInput(), 1, o.getWeight(), 0);
          if (o.getResidual())
            sameShape(o.getInput(), o.getResidual());
          if (o.getResidualOut())
            sameShape(o.getInput(), o.getResidualOut());
        })
        .Case([&](LayerNormOp o) {
          sameShape(o.getInput(), o.getResult());
          equal(o.getInput(), 1, o.getWeight(), 0);
          if (o.getBias())
            equal(o.getInput(), 1, o.getBias(), 0);
        })
        .Case<SoftmaxOp, LogSoftmaxOp>([&](auto o) {
          sameShape(o.getInput(), o.getResult());
        })
        .Case([&](CrossEntropyOp o) {
          equal(o.getLogits(), 0, o.getTargets(), 0);
          equal(o.getLogits(), 0, o.getLoss(), 0);
          equal(o.getLogits(), 0, o.getLse(), 0);
        })
        .Case([&](ReduceOp o) {
          for (Value in : o.getInputs())
            sameShape(o.getInputs()[0], in);
          for (Value r : o.getResults())
            equal(o.getInputs()[0], 0, r, 0);
        })
        .Case([&](MapOp o) {
          Value first = o.getResult(0);
          for (Value r : o.getResults())
            sameShape(first, r);
          for (Value v : o.getOperands_())
            if (isa<RankedTensorType>(v.getType()))
              sameShape(first, v);
        })
        .Case([&](BroadcastOp o) {
          for (auto [i, d] : llvm::enumerate(o.getDims()))
            equal(o.getInput(), i, o.getResult(), d);
        })
        .Case([&](GatherOp o) {
          equal(o.getInput(), 0, o.getIndex(), 0);
          equal(o.getInput(), 0, o.getResult(), 0);
        })
        .Case([&](QuantizeOp o) {
          sameShape(o.getInput(), o.getQuantized());
          quantGroup(o.getQuantized(), o.getScales());
          if (o.getZeros())
            sameShape(o.getScales(), o.getZeros());
        })
        .Case([&](DequantizeOp o) {
          sameShape(o.getQuantized(), o.getResult());
          quantGroup(o.getQuantized(), o.getScales());
          if (o.getZeros())
            sameShape(o.getScales(), o.getZeros());
        })
        .Case([&](GemvOp o) {
          equal(o.getAct(), 1, o.getWeight(), 0);
          equal(o.getAct(), 0, o.getResult(), 0);
          equal(o.getWeight(), 1, o.getResult(), 1);
          quantGroup(o.getWeight(), o.getScales());
          if (o.getZeros())
            sameShape(o.getScales(), o.getZeros());
          if (o.getBias())
            equal(o.getWeight(), 1, o.getBias(), 0);
        })
        .Case([&](DecodeAttentionOp o) {
          sameShape(o.getKeys(), o.getValues());
          equal(o.getQuery(), 0, o.getKeys(), 0);
          equal(o.getQuery(), 2, o.getKeys(), 3);
          rels.push_back({o.getKeys(), 1, o.getQuery(), 1, (int64_t)o.getGqaRatio(), 1});
          sameShape(o.getQuery(), o.getResult());
        })
        .Case([&](func::ReturnOp o) {
          // Results are tied to the values returned; nothing else to do.
        });
  }

  LogicalResult emitConflict(const Relation &r, int64_t a, int64_t b) {
    Operation *user = r.b.getDefiningOp() ? r.b.getDefiningOp() : func;
    if (r.a.getDefiningOp() && !r.b.getDefiningOp())
      user = r.a.getDefiningOp();
    return user->emitError() << "the compile request gives inconsistent sizes: "
                                "dimension #"
                             << r.ai << " is " << a << " but dimension #" << r.bi
                             << " of a tied tensor is " << b;
  }

  func::FuncOp func;
  llvm::DenseMap<Value, SmallVector<int64_t>> known;
};

struct SpecializeShapes
    : public ::rkc::impl::RkSpecializeShapesPassBase<SpecializeShapes> {
  using Base::Base;

  void runOnOperation() override {
    Type dt = parseDType();
    if (!dtype.empty() && !dt) {
      // At the first function (the module's own location is line 0).
      Operation *at = getOperation();
      for (auto func : getOperation().getOps<func::FuncOp>()) {
        at = func;
        break;
      }
      at->emitError() << "unsupported dtype '" << dtype << "' (expected f32, bf16 or f16)";
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(specialize(func, dt)))
        return signalPassFailure();
  }

  Type parseDType() {
    MLIRContext *ctx = &getContext();
    if (dtype == "f32") return Float32Type::get(ctx);
    if (dtype == "bf16") return BFloat16Type::get(ctx);
    if (dtype == "f16") return Float16Type::get(ctx);
    return {};
  }

  LogicalResult specialize(func::FuncOp func, Type dt) {
    if (func.isExternal())
      return success();
    if (func.getNumResults() == 0)
      return func.emitError("the function returns nothing: a kernel spec returns at least one "
                            "result");
    ShapeSolver solver(func);
    if (failed(bindRequest(func, solver)))
      return failure();
    solver.collect();
    if (failed(solver.solve()))
      return failure();

    // Every argument must now be fully known.
    for (BlockArgument arg : func.getArguments()) {
      auto t = dyn_cast<RankedTensorType>(arg.getType());
      if (!t)
        continue;
      SmallVector<int64_t> &d = solver.dims(arg);
      for (auto [i, s] : llvm::enumerate(d))
        if (ShapedType::isDynamic(s))
          return func.emitError()
                 << "cannot infer dimension #" << i << " of argument '"
                 << argName(func, arg.getArgNumber()) << "' (" << t
                 << "): give it with --shape "
                 << argName(func, arg.getArgNumber()) << "=...";
    }

    bool generic = false;
    auto retype = [&](Value v) -> LogicalResult {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return success();
      SmallVector<int64_t> &d = solver.dims(v);
      Type elem = t.getElementType();
      if (isa<DTypeType>(elem)) {
        generic = true;
        if (!dt)
          return func.emitError()
                 << "the spec is dtype-generic (!rk.dtype): give --dtype f32, "
                    "bf16 or f16";
        elem = dt;
      }
      for (auto [i, s] : llvm::enumerate(d))
        if (ShapedType::isDynamic(s))
          return (v.getDefiningOp() ? v.getDefiningOp() : func.getOperation())
                     ->emitError()
                 << "cannot infer dimension #" << i << " of " << t;
      v.setType(RankedTensorType::get(d, elem, t.getEncoding()));
      return success();
    };
    for (BlockArgument arg : func.getArguments())
      if (failed(retype(arg)))
        return failure();
    WalkResult wr = func.walk([&](Operation *op) {
      for (Value r : op->getResults())
        if (failed(retype(r)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (wr.wasInterrupted())
      return failure();
    if (dt && !generic)
      func.emitWarning() << "the spec has no !rk.dtype; --dtype " << dtype
                         << " is ignored";

    // The function type follows the arguments and the returned values.
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    func.setType(FunctionType::get(&getContext(), func.getBody().front().getArgumentTypes(),
                                   ret.getOperandTypes()));

    // rk.dim is now a constant.
    func.walk([&](DimOp dim) {
      OpBuilder b(dim);
      int64_t size = dim.getInput().getType().getDimSize(dim.getIndex());
      Type t = dim.getType();
      TypedAttr value = isa<FloatType>(t)
                            ? TypedAttr(b.getFloatAttr(t, (double)size))
                            : TypedAttr(b.getIntegerAttr(t, size));
      dim.replaceAllUsesWith(
          arith::ConstantOp::create(b, dim.getLoc(), t, value).getResult());
      dim.erase();
    });
    return mlir::verify(func);
  }

  /// Applies the --shape entries to the function's arguments.
  LogicalResult bindRequest(func::FuncOp func, ShapeSolver &solver) {
    llvm::StringMap<unsigned> byName;
    std::string names;
    for (BlockArgument arg : func.getArguments()) {
      std::string n = argName(func, arg.getArgNumber()); // checked by the rk verifier
      byName[n] = arg.getArgNumber();
      names += (names.empty() ? "" : ", ") + n;
    }
    llvm::StringSet<> given;
    for (const std::string &entry : shapes) {
      auto [untrimmed, dimsText] = StringRef(entry).split('=');
      StringRef name = untrimmed.trim(); // " x = 4 x 8" names x
      if (!given.insert(name).second)
        return func.emitError() << "--shape " << name << " is given twice";
      auto it = byName.find(name);
      if (it == byName.end())
        return func.emitError() << "unknown argument '" << name
                                << "' in --shape (arguments: " << names << ")";
      if (dimsText.empty())
        return func.emitError() << "--shape " << name
                                << "= needs dimensions, e.g. " << name
                                << "=128x4096";
      BlockArgument arg = func.getArgument(it->second);
      auto t = dyn_cast<RankedTensorType>(arg.getType());
      if (!t)
        return func.emitError() << "argument '" << name << "' is not a tensor";
      SmallVector<StringRef> parts;
      dimsText.split(parts, 'x');
      if ((int64_t)parts.size() != t.getRank())
        return func.emitError() << "--shape " << name << " has rank "
                                << parts.size() << ", but the argument is rank "
                                << t.getRank() << " (" << t << ")";
      SmallVector<int64_t> &d = solver.dims(arg);
      for (auto [i, p] : llvm::enumerate(parts)) {
        int64_t v;
        if (p.trim().getAsInteger(10, v))
          return func.emitError() << "dimension #" << i << " of '" << name
                                  << "' must be an integer, got '" << p << "'";
        if (v <= 0)
          return func.emitError() << "dimension #" << i << " of '" << name
                                  << "' must be positive, got " << v;
        if (v > kMaxDim)
          return func.emitError() << "dimension #" << i << " of '" << name
                                  << "' (" << v << ") exceeds 2^31 - 1";
        if (!ShapedType::isDynamic(t.getDimSize(i)) && t.getDimSize(i) != v)
          return func.emitError() << "--shape " << name << " gives dimension #"
                                  << i << " = " << v
                                  << ", but the spec fixes it to "
                                  << t.getDimSize(i);
        d[i] = v;
      }
    }
    return success();
  }
};

} // namespace
