//===- Decompose.cpp - named row ops into generic row programs ------------===//
//
// After this pass a kernel only holds rk.map, rk.reduce, rk.broadcast,
// rk.gather and constants, which is all the planner and the lowering know.
// Every intermediate is f32; only the op's results keep its element types.
//
// rk.quantize and rk.dequantize along the last axis (per token, one group
// per row) are row programs too and are decomposed here; rk.quantize and
// rk.dequantize along K (axis 0) and rk.gemv are column programs
// (rk-plan-tiers sends them to the K-split planner) and stay as they are.
//
//===----------------------------------------------------------------------===//

#include "rkc/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

#define DEBUG_TYPE "rk-decompose"

namespace rkc {
#define GEN_PASS_DEF_RKDECOMPOSEPASS
#include "rkc/Transforms/Passes.h.inc"
} // namespace rkc

using namespace mlir;
using namespace mlir::rk;

namespace {

using BodyFn = function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// Builds row programs with a fixed [M, N] shape.
class RowBuilder {
public:
  RowBuilder(PatternRewriter &r, Location loc, RankedTensorType rowType)
      : b(r), loc(loc), m(rowType.getDimSize(0)), n(rowType.getDimSize(1)) {}

  RankedTensorType rowT(Type e) { return RankedTensorType::get({m, n}, e); }
  RankedTensorType perRowT(Type e) { return RankedTensorType::get({m}, e); }
  Type f32() { return b.getF32Type(); }

  /// rk.map over `operands` producing `resultTypes`.
  SmallVector<Value> map(ValueRange operands, TypeRange resultTypes, BodyFn body) {
    auto op = MapOp::create(b, loc, resultTypes, operands);
    {
      OpBuilder::InsertionGuard g(b);
      Block *block = b.createBlock(&op.getBody());
      for (Value v : operands) {
        Type t = v.getType();
        if (isa<RankedTensorType>(t))
          t = computeType(t);
        block->addArgument(t, loc);
      }
      SmallVector<Value> ys = body(b, loc, block->getArguments());
      YieldOp::create(b, loc, ys);
    }
    return SmallVector<Value>(op.getResults());
  }
  Value map1(ValueRange operands, Type resultType, BodyFn body) {
    return map(operands, TypeRange{resultType}, body)[0];
  }

  Value reduce(ReduceKind kind, Value x) {
    return ReduceOp::create(b, loc, TypeRange{perRowT(f32())}, ValueRange{x}, kind)
        .getResult(0);
  }
  /// A per-row [M] value over the row.
  Value overRow(Value perRow) {
    auto t = cast<RankedTensorType>(perRow.getType());
    return BroadcastOp::create(b, loc, rowT(t.getElementType()), perRow,
                               b.getDenseI64ArrayAttr({0}));
  }
  /// A row vector [N] over all rows.
  Value overRows(Value vec) {
    auto t = cast<RankedTensorType>(vec.getType());
    return BroadcastOp::create(b, loc, rowT(t.getElementType()), vec,
                               b.getDenseI64ArrayAttr({1}));
  }
  Value cst(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value rowLength() { return cst((float)n); }

  /// exp(x - max_row(x)) and its row sums: the body of softmax-like ops.
  std::pair<Value, Value> expShifted(Value x, Value &rowMax) {
    rowMax = reduce(ReduceKind::max, x);
    Value e = map1({x, overRow(rowMax)}, rowT(f32()),
                   [](OpBuilder &b, Location l, ValueRange a) {
                     Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                     return SmallVector<Value>{math::ExpOp::create(b, l, d)};
                   });
    return {e, reduce(ReduceKind::add, e)};
  }

  /// m + log(s), per row.
  Value logSumExp(Value rowMax, Value sum) {
    return map1({rowMax, sum}, perRowT(f32()),
                [](OpBuilder &b, Location l, ValueRange a) {
                  Value lg = math::LogOp::create(b, l, a[1]);
                  return SmallVector<Value>{arith::AddFOp::create(b, l, a[0], lg)};
                });
  }

  /// rsqrt(sum / N + eps), per row.
  Value invRms(Value sum, float eps) {
    Value nv = rowLength(), ev = cst(eps);
    return map1({sum, nv, ev}, perRowT(f32()),
                [](OpBuilder &b, Location l, ValueRange a) {
                  Value mean = arith::DivFOp::create(b, l, a[0], a[1]);
                  Value s = arith::AddFOp::create(b, l, mean, a[2]);
                  return SmallVector<Value>{math::RsqrtOp::create(b, l, s)};
                });
  }

  PatternRewriter &b;
  Location loc;
  int64_t m, n;
};

static LogicalResult requireStatic(PatternRewriter &r, Operation *op, Value x) {
  if (!cast<RankedTensorType>(x.getType()).hasStaticShape())
    return r.notifyMatchFailure(op, "needs static shapes (run rk-specialize-shapes)");
  return success();
}

struct DecomposeRmsNorm : OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RmsNormOp op, PatternRewriter &r) const override {
    if (failed(requireStatic(r, op, op.getInput())))
      return failure();
    RowBuilder rb(r, op.getLoc(), op.getInput().getType());
    Value h = op.getInput();
    SmallVector<Value> results;
    if (op.getResidual())
      h = rb.map1({op.getInput(), op.getResidual()}, rb.rowT(rb.f32()),
                  [](OpBuilder &b, Location l, ValueRange a) {
                    return SmallVector<Value>{arith::AddFOp::create(b, l, a[0], a[1])};
                  });
    Value sq = rb.map1({h}, rb.rowT(rb.f32()), [](OpBuilder &b, Location l, ValueRange a) {
      return SmallVector<Value>{arith::MulFOp::create(b, l, a[0], a[0])};
    });
    Value inv = rb.invRms(rb.reduce(ReduceKind::add, sq), op.getEps().convertToFloat());
    Value y = rb.map1({h, rb.overRow(inv), rb.overRows(op.getWeight())},
                      op.getResult().getType(),
                      [](OpBuilder &b, Location l, ValueRange a) {
                        Value p = arith::MulFOp::create(b, l, a[0], a[1]);
                        return SmallVector<Value>{arith::MulFOp::create(b, l, p, a[2])};
                      });
    results.push_back(y);
    if (op.getResidual())
      results.push_back(rb.map1({h}, op.getResidualOut().getType(),
                                [](OpBuilder &, Location, ValueRange a) {
                                  return SmallVector<Value>{a[0]};
                                }));
    r.replaceOp(op, results);
    return success();
  }
};

struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op, PatternRewriter &r) const override {
    if (failed(requireStatic(r, op, op.getInput())))
      return failure();
    RowBuilder rb(r, op.getLoc(), op.getInput().getType());
    Value x = op.getInput();
    Value mean = rb.map1({rb.reduce(ReduceKind::add, x), rb.rowLength()},
                         rb.perRowT(rb.f32()),
                         [](OpBuilder &b, Location l, ValueRange a) {
                           return SmallVector<Value>{arith::DivFOp::create(b, l, a[0], a[1])};
                         });
    Value d = rb.map1({x, rb.overRow(mean)}, rb.rowT(rb.f32()),
                      [](OpBuilder &b, Location l, ValueRange a) {
                        return SmallVector<Value>{arith::SubFOp::create(b, l, a[0], a[1])};
                      });
    Value sq = rb.map1({d}, rb.rowT(rb.f32()), [](OpBuilder &b, Location l, ValueRange a) {
      return SmallVector<Value>{arith::MulFOp::create(b, l, a[0], a[0])};
    });
    Value inv = rb.invRms(rb.reduce(ReduceKind::add, sq), op.getEps().convertToFloat());
    SmallVector<Value> operands{d, rb.overRow(inv), rb.overRows(op.getWeight())};
    bool hasBias = (bool)op.getBias();
    if (hasBias)
      operands.push_back(rb.overRows(op.getBias()));
    Value y = rb.map1(operands, op.getResult().getType(),
                      [&](OpBuilder &b, Location l, ValueRange a) {
                        Value p = arith::MulFOp::create(b, l, a[0], a[1]);
                        Value q = arith::MulFOp::create(b, l, p, a[2]);
                        if (hasBias)
                          q = arith::AddFOp::create(b, l, q, a[3]);
                        return SmallVector<Value>{q};
                      });
    r.replaceOp(op, y);
    return success();
  }
};

struct DecomposeSoftmax : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op, PatternRewriter &r) const override {
    if (failed(requireStatic(r, op, op.getInput())))
      return failure();
    RowBuilder rb(r, op.getLoc(), op.getInput().getType());
    Value rowMax;
    auto [e, sum] = rb.expShifted(op.getInput(), rowMax);
    Value inv = rb.map1({sum}, rb.perRowT(rb.f32()), [](OpBuilder &b, Location l, ValueRange a) {
      Value one = arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f));
      return SmallVector<Value>{arith::DivFOp::create(b, l, one, a[0])};
    });
    Value y = rb.map1({e, rb.overRow(inv)}, op.getResult().getType(),
                      [](OpBuilder &b, Location l, ValueRange a) {
                        return SmallVector<Value>{arith::MulFOp::create(b, l, a[0], a[1])};
                      });
    r.replaceOp(op, y);
    return success();
  }
};

struct DecomposeLogSoftmax : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSoftmaxOp op, PatternRewriter &r) const override {
    if (failed(requireStatic(r, op, op.getInput())))
      return failure();
    RowBuilder rb(r, op.getLoc(), op.getInput().getType());
    Value rowMax;
    auto [e, sum] = rb.expShifted(op.getInput(), rowMax);
    (void)e;
    Value lse = rb.logSumExp(rowMax, sum);
    Value y = rb.map1({op.getInput(), rb.overRow(lse)}, op.getResult().getType(),
                      [](OpBuilder &b, Location l, ValueRange a) {
                        return SmallVector<Value>{arith::SubFOp::create(b, l, a[0], a[1])};
                      });
    r.replaceOp(op, y);
    return success();
  }
};

struct DecomposeCrossEntropy : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op, PatternRewriter &r) const override {
    if (failed(requireStatic(r, op, op.getLogits())))
      return failure();
    RowBuilder rb(r, op.getLoc(), op.getLogits().getType());
    Value rowMax;
    Value x = op.getLogits();
    auto [e, sum] = rb.expShifted(x, rowMax);
    (void)e;
    Value lseF = rb.logSumExp(rowMax, sum);
    auto xType = cast<RankedTensorType>(x.getType());
    Value picked = GatherOp::create(r, op.getLoc(), rb.perRowT(xType.getElementType()),
                                    x, op.getTargets());
    Type tElem = cast<RankedTensorType>(op.getTargets().getType()).getElementType();
    int64_t ignore = op.getIgnoreIndex();
    Value loss = rb.map1({lseF, picked, op.getTargets()}, op.getLoss().getType(),
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           Value ign = arith::ConstantOp::create(
                               b, l, b.getIntegerAttr(tElem, ignore));
                           Value isIgnored = arith::CmpIOp::create(
                               b, l, arith::CmpIPredicate::eq, a[2], ign);
                           Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0f));
                           Value diff = arith::SubFOp::create(b, l, a[0], a[1]);
                           return SmallVector<Value>{
                               arith::SelectOp::create(b, l, isIgnored, zero, diff)};
                         });
    Value lse = lseF;
    if (op.getLse().getType() != lseF.getType())
      lse = rb.map1({lseF}, op.getLse().getType(), [](OpBuilder &, Location, ValueRange a) {
        return SmallVector<Value>{a[0]};
      });
    r.replaceOp(op, {loss, lse});
    return success();
  }
};

/// The per-token form the row path takes: `data` (the float input of
/// rk.quantize or the quantized operand of rk.dequantize) [T, D] with static
/// shapes, q int8 symmetric along the last axis without zero points, one
/// group per row, scales [T, 1]. Anything else stays for the column path,
/// which reports what it does not lower.
static LogicalResult matchPerTokenInt8(PatternRewriter &r, Operation *op, Value data,
                                       RankedTensorType qt, RankedTensorType st, bool zeros) {
  auto dt = cast<RankedTensorType>(data.getType());
  auto quant = dyn_cast_or_null<QuantAttr>(qt.getEncoding());
  if (!quant || dt.getRank() != 2 || quant.getAxis() != 1)
    return r.notifyMatchFailure(op, "not per token (the last axis)");
  if (failed(requireStatic(r, op, data)))
    return failure();
  if (quant.getBits() != 8 || !quant.getSymmetric() || zeros ||
      quant.getPacking() != QuantPacking::none || !qt.getElementType().isInteger(8))
    return r.notifyMatchFailure(op, "per token is int8 symmetric");
  if (quant.getGroupSize() != 0 && quant.getGroupSize() != dt.getDimSize(1))
    return r.notifyMatchFailure(op, "per token takes one group per row");
  if (!st.hasStaticShape() || st.getRank() != 2 || st.getDimSize(1) != 1 ||
      st.getDimSize(0) != dt.getDimSize(0))
    return r.notifyMatchFailure(op, "the scales must be [T, 1]");
  return success();
}

/// Per-token int8: `rk.quantize` of x [T, D] along its last axis with one
/// group per row (group_size 0 or D), symmetric, one value per byte. By the
/// rules of docs/quantization.md:
///   absmax = max_row |x|                                      (f32)
///   scale  = to_scale(absmax * fl32(1 / 127))                 [T] in the scale type
///   q      = round_half_even(clamp(scale == 0 ? 0 : x / scale, -127, 127))
/// where x / scale is the IEEE f32 division by the rounded scale (the map's
/// result type rounds it; the lowering rounds a narrow value that is used
/// again). The division is by the row's reciprocal with one correction
/// (Markstein: y = 1 / s once per row, q = x * y, r = fma(-q, s, x) exact,
/// q' = fma(r, y, q) = RN(x / s)), 3 instructions a value where the IEEE
/// division takes ~9 (reciprocal, Newton steps, a range check and its
/// branch) and made the kernel issue-bound on the H200
/// (docs/performance-notes.md, session 33). y = s = 0 where s is 0 or inf,
/// so q' = 0 for finite x: the select of scale 0 and x / inf, without a
/// select per value (non-finite x only occur with an inf or NaN scale,
/// where both forms give NaN). An f16 scale is otherwise in [2^-24, 65504],
/// so y is a normal f32; a bf16 or f32 scale below 2^-24 (the least f16
/// scale; subnormal ones included) divides x 2^64 by s 2^64 instead, both
/// exact, a multiply a value more. For every x a row with its scale can
/// hold (|x| <= absmax), q' is the IEEE quotient wherever it and |x k| are
/// at least 2^-100 (below, the remainder or the quotient can underflow),
/// and it rounds to the same integer everywhere: checked exhaustively for
/// f16 and bf16 x against every f16 and bf16 scale, and on random f32 rows
/// (test/unit/quantize_division_test.cpp).
struct DecomposePerTokenQuantize : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op, PatternRewriter &r) const override {
    auto xt = cast<RankedTensorType>(op.getInput().getType());
    auto qt = cast<RankedTensorType>(op.getQuantized().getType());
    auto st = cast<RankedTensorType>(op.getScales().getType());
    if (failed(matchPerTokenInt8(r, op, op.getInput(), qt, st, (bool)op.getZeros())))
      return failure();
    constexpr int qmax = 127;
    RowBuilder rb(r, op.getLoc(), xt);
    Value abs = rb.map1({op.getInput()}, rb.rowT(rb.f32()),
                        [](OpBuilder &b, Location l, ValueRange a) {
                          return SmallVector<Value>{math::AbsFOp::create(b, l, a[0])};
                        });
    Value absmax = rb.reduce(ReduceKind::max, abs);
    // The range times the f32 reciprocal of qmax (what PyTorch's CUDA
    // division by a scalar computes), rounded once to the scale type.
    Value recip = rb.cst(1.0f / (float)qmax);
    Value scale = rb.map1({absmax, recip}, rb.perRowT(st.getElementType()),
                          [](OpBuilder &b, Location l, ValueRange a) {
                            return SmallVector<Value>{arith::MulFOp::create(b, l, a[0], a[1])};
                          });
    auto cst = [](OpBuilder &b, Location l, float f) {
      return arith::ConstantOp::create(b, l, b.getF32FloatAttr(f)).getResult();
    };
    // bf16 and f32 scales can be tiny (subnormal in f32), where 1 / s
    // overflows, or a subnormal x leaves the remainder inexact: those rows
    // (s < 2^-24, so |x| < 2^-17) divide x k by s k with k = 2^64, both
    // exact. An f16 scale is 0 or at least 2^-24.
    Value k;
    if (!st.getElementType().isF16())
      k = rb.map1({scale}, rb.perRowT(rb.f32()), [&](OpBuilder &b, Location l, ValueRange a) {
        Value tiny = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, a[0],
                                           cst(b, l, 0x1p-24f));
        return SmallVector<Value>{
            arith::SelectOp::create(b, l, tiny, cst(b, l, 0x1p64f), cst(b, l, 1.0f))};
      });
    // Per row: s k and y = 1 / (s k), both 0 where s is 0 or inf.
    auto perRow = [&](bool recip) {
      SmallVector<Value> ins{scale};
      if (k)
        ins.push_back(k);
      return rb.map1(ins, rb.perRowT(rb.f32()), [&](OpBuilder &b, Location l, ValueRange a) {
        Value zero = cst(b, l, 0.0f);
        Value isZero = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0], zero);
        Value isInf = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0],
                                            cst(b, l, std::numeric_limits<float>::infinity()));
        Value odd = arith::OrIOp::create(b, l, isZero, isInf);
        Value sk = k ? arith::MulFOp::create(b, l, a[0], a[1]).getResult() : a[0];
        Value v = recip ? arith::DivFOp::create(b, l, cst(b, l, 1.0f), sk).getResult() : sk;
        return SmallVector<Value>{arith::SelectOp::create(b, l, odd, zero, v)};
      });
    };
    Value recipS = perRow(true), scaled = perRow(false);
    SmallVector<Value> ins{op.getInput(), rb.overRow(recipS), rb.overRow(scaled)};
    if (k)
      ins.push_back(rb.overRow(k));
    Value q = rb.map1(ins, qt, [&](OpBuilder &b, Location l, ValueRange a) {
      Value x = k ? arith::MulFOp::create(b, l, a[0], a[3]).getResult() : a[0];
      Value q0 = arith::MulFOp::create(b, l, x, a[1]);
      Value negQ0 = arith::NegFOp::create(b, l, q0);
      Value rem = math::FmaOp::create(b, l, negQ0, a[2], x);
      Value ratio = math::FmaOp::create(b, l, rem, a[1], q0);
      Value lo = arith::MaxNumFOp::create(b, l, ratio, cst(b, l, -(float)qmax));
      return SmallVector<Value>{arith::MinNumFOp::create(b, l, lo, cst(b, l, (float)qmax))};
    });
    Value scales = BroadcastOp::create(r, op.getLoc(), st, scale,
                                       r.getDenseI64ArrayAttr({0}));
    r.replaceOp(op, {q, scales});
    return success();
  }
};

/// Per-token dequantization (int8, symmetric, one group per row, scales
/// [T, 1]) as a row program: y = scale * q in f32, rounded to the result
/// type where it is stored. The [T, 1] scales are read as a per-row value:
/// the reduction of a one-element row, which the lowering takes as that
/// element. Groups within a row are left to the column path, which reports
/// them.
struct DecomposePerTokenDequantize : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op, PatternRewriter &r) const override {
    auto qt = cast<RankedTensorType>(op.getQuantized().getType());
    auto st = cast<RankedTensorType>(op.getScales().getType());
    if (failed(matchPerTokenInt8(r, op, op.getQuantized(), qt, st, (bool)op.getZeros())))
      return failure();
    RowBuilder rb(r, op.getLoc(), qt);
    Value scale = rb.reduce(ReduceKind::max, op.getScales());
    Value y = rb.map1({op.getQuantized(), rb.overRow(scale)}, op.getResult().getType(),
                      [](OpBuilder &b, Location l, ValueRange a) {
                        return SmallVector<Value>{arith::MulFOp::create(b, l, a[1], a[0])};
                      });
    r.replaceOp(op, y);
    return success();
  }
};

struct Decompose : public ::rkc::impl::RkDecomposePassBase<Decompose> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeRmsNorm, DecomposeLayerNorm, DecomposeSoftmax,
                 DecomposeLogSoftmax, DecomposeCrossEntropy,
                 DecomposePerTokenQuantize, DecomposePerTokenDequantize>(&getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
