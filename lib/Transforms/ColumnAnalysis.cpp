//===- ColumnAnalysis.cpp - summarise a column program ---------------------===//

#include "rkc/Plan/ColumnAnalysis.h"
#include "rkc/Plan/RowAnalysis.h"

#include "rk/RkDialect.h"

using namespace mlir;

bool rkc::isColumnProgram(func::FuncOp func) {
  bool found = false;
  func.walk([&](Operation *op) {
    if (isa<rk::GemvOp, rk::QuantizeOp, rk::DequantizeOp>(op))
      found = true;
  });
  return found;
}

FailureOr<Operation *> rkc::columnOp(func::FuncOp func) {
  Operation *the = nullptr;
  for (Operation &op : func.getBody().front()) {
    // Constants are left by other ops' decompositions, hoisted without a
    // location: the op they came from is reported instead.
    if (isa<func::ReturnOp>(op) || op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (!isa<rk::GemvOp, rk::QuantizeOp, rk::DequantizeOp>(op))
      return op.emitError()
             << "'" << op.getName()
             << "' cannot share a kernel with a quantized op: a quantize, "
                "dequantize or gemv spec holds that one op";
    if (the)
      return op.emitError("a kernel holds one quantized op; split the spec "
                          "into one function per op");
    the = &op;
  }
  if (!the)
    return func.emitError("no quantized op in the function");
  for (Value r : the->getResults())
    for (OpOperand &use : r.getUses())
      if (!isa<func::ReturnOp>(use.getOwner()))
        return use.getOwner()->emitError(
            "the results of a quantized op can only be returned");
  // The kernel writes each result of the op once, in order: the function
  // returns exactly those (a result returned twice would get one output).
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (ret.getOperands() != ValueRange(the->getResults()))
    return ret.emitError() << "a spec with a quantized op returns that op's results once "
                              "each, in order (it has "
                           << the->getNumResults() << ", this returns " << ret.getNumOperands()
                           << " values)";
  return the;
}

static FailureOr<rk::QuantAttr> quantOf(Operation *op, Value q) {
  auto t = cast<RankedTensorType>(q.getType());
  auto quant = dyn_cast_or_null<rk::QuantAttr>(t.getEncoding());
  if (!quant)
    return op->emitError("the quantized tensor has no #rk.quant encoding");
  if (t.getRank() == 2 && quant.getAxis() == 1) {
    // Per token: rk-decompose turns the variant it knows into a row
    // program; what reaches the column path here is everything else.
    // (rk.gemv's verifier requires weights quantized along K.)
    const char *what = isa<rk::QuantizeOp>(op) ? "quantization" : "dequantization";
    if (quant.getBits() != 8 || !quant.getSymmetric() ||
        quant.getPacking() != rk::QuantPacking::none)
      return op->emitError() << "per-token " << what
                             << " (axis = 1) is int8 symmetric with packing = none; other "
                                "formats are not supported";
    int64_t d = t.getDimSize(1);
    int64_t g = quant.getGroupSize();
    if (g != 0 && g != d)
      return op->emitError()
             << "per-token " << what
             << " takes one group per row (group_size = 0 or D = " << d
             << "), got group_size = " << g << ": groups within a row are not supported yet";
    return op->emitError() << "per-token " << what
                           << " is a row program: run rk-decompose (with static shapes) first";
  }
  if (t.getRank() != 2 || quant.getAxis() != 0)
    return op->emitError()
           << "quantized ops are lowered for [K, N] tensors quantized along K "
              "(axis = 0); got a rank-"
           << t.getRank() << " tensor with axis = " << quant.getAxis();
  if (quant.getBits() == 4 && quant.getPacking() != rk::QuantPacking::k8)
    return op->emitError("4-bit tensors are lowered with packing = k8 (eight "
                         "values of K per 32-bit word)");
  if (quant.getBits() == 8 && quant.getPacking() != rk::QuantPacking::k4)
    return op->emitError("8-bit weights are lowered with packing = k4 (four "
                         "values of K per 32-bit word; docs/quantization.md)");
  if (quant.getBits() == 8 && !quant.getSymmetric())
    return op->emitError("8-bit quantization is symmetric only (asymmetric "
                         "zero points are supported for 4 bits)");
  int64_t k = t.getDimSize(0);
  int64_t kpr = quant.valuesPerWord();
  const char *packing = quant.getBits() == 4 ? "k8-packed 4-bit" : "k4-packed 8-bit";
  if (k % kpr != 0)
    return op->emitError() << "K = " << k << " must be a multiple of " << kpr << " for "
                           << packing << " values";
  int64_t g = quant.getGroupSize();
  if (g > 0 && g % kpr != 0)
    return op->emitError() << "group_size " << g << " must be a multiple of " << kpr
                           << " for " << packing << " values";
  if (g > 0 && k % g != 0)
    return op->emitError() << "group_size " << g << " does not divide K = " << k;
  return quant;
}

FailureOr<::rkc::plan::KSplitProblem> rkc::analyzeColumnProgram(func::FuncOp func) {
  auto op = columnOp(func);
  if (failed(op))
    return failure();
  ::rkc::plan::KSplitProblem p;
  Value q;
  Value floats; // the float [.., N] operand or result
  if (auto g = dyn_cast<rk::GemvOp>(*op)) {
    p.op = ::rkc::plan::ColumnOp::Gemv;
    q = g.getWeight();
    floats = g.getAct();
    p.rows = g.getAct().getType().getDimSize(0);
  } else if (auto d = dyn_cast<rk::DequantizeOp>(*op)) {
    p.op = ::rkc::plan::ColumnOp::Dequantize;
    q = d.getQuantized();
    floats = d.getResult();
  } else {
    auto qo = cast<rk::QuantizeOp>(*op);
    p.op = ::rkc::plan::ColumnOp::Quantize;
    q = qo.getQuantized();
    floats = qo.getInput();
  }
  auto quant = quantOf(*op, q);
  if (failed(quant))
    return failure();
  auto qt = cast<RankedTensorType>(q.getType());
  for (int64_t d : qt.getShape())
    if (ShapedType::isDynamic(d) || d < 1)
      return (*op)->emitError("the quantized tensor's shape must be known "
                              "(give --shape) and positive");
  p.k = qt.getDimSize(0);
  p.n = qt.getDimSize(1);
  p.bits = quant->getBits();
  p.group = quant->getGroupSize() == p.k ? 0 : quant->getGroupSize();
  p.symmetric = quant->getSymmetric();
  p.actBytes = storageBytes(cast<RankedTensorType>(floats.getType()).getElementType());
  p.bf16 = cast<RankedTensorType>(floats.getType()).getElementType().isBF16();
  if (p.rows < 1 || p.rows > 16)
    return (*op)->emitError() << "rk.gemv takes 1 to 16 activation rows, got " << p.rows;
  return p;
}
