//===- RkOps.cpp - rk op verifiers, custom syntax and folders -------------===//
//
// Every rule a spec must follow is checked here with a message that names the
// operand and the rule; test/Dialect/rk/invalid.mlir holds one case per
// message.
//
//===----------------------------------------------------------------------===//

#include "rk/RkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::rk;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

namespace {
/// Small helpers that phrase the rules the same way in every op.
struct Checker {
  Operation *op;

  RankedTensorType tensor(Value v) { return cast<RankedTensorType>(v.getType()); }

  LogicalResult rank(Value v, int64_t r, StringRef what, StringRef shape) {
    auto t = tensor(v);
    if (t.getRank() != r)
      return op->emitOpError() << what << " must be a rank-" << r
                               << " tensor " << shape << ", got " << t;
    return success();
  }

  LogicalResult dataFloat(Value v, StringRef what) {
    Type e = tensor(v).getElementType();
    if (!isDataFloat(e))
      return op->emitOpError() << what
                               << " must have a float element type (f32, bf16, "
                                  "f16 or !rk.dtype), got "
                               << e;
    return success();
  }

  LogicalResult integer(Value v, StringRef what) {
    Type e = tensor(v).getElementType();
    if (!e.isSignlessInteger(32) && !e.isSignlessInteger(64))
      return op->emitOpError() << what
                               << " must have an integer element type (i32 or "
                                  "i64), got "
                               << e;
    return success();
  }

  /// dims `ai` of `a` and `bi` of `b` must agree when both are static.
  LogicalResult sameDim(Value a, int64_t ai, StringRef aWhat, Value b,
                        int64_t bi, StringRef bWhat) {
    int64_t da = tensor(a).getDimSize(ai), db = tensor(b).getDimSize(bi);
    if (!ShapedType::isDynamic(da) && !ShapedType::isDynamic(db) && da != db)
      return op->emitOpError() << aWhat << " (" << da << ") must equal " << bWhat
                               << " (" << db << ")";
    return success();
  }

  /// `b` must have the shape of `a` (dynamic dims are compatible).
  LogicalResult sameShape(Value a, StringRef aWhat, Value b, StringRef bWhat) {
    auto ta = tensor(a), tb = tensor(b);
    if (ta.getRank() != tb.getRank() ||
        failed(verifyCompatibleShape(ta.getShape(), tb.getShape())))
      return op->emitOpError() << bWhat << " shape " << shapeStr(tb)
                               << " must equal the " << aWhat << " shape "
                               << shapeStr(ta);
    return success();
  }

  static std::string shapeStr(RankedTensorType t) {
    std::string s = "[";
    llvm::raw_string_ostream os(s);
    llvm::interleave(
        t.getShape(), os,
        [&](int64_t d) {
          if (ShapedType::isDynamic(d))
            os << "?";
          else
            os << d;
        },
        ", ");
    os << "]";
    return s;
  }

  LogicalResult eps(float e) {
    if (!std::isfinite(e) || e < 0)
      return op->emitOpError() << "'eps' must be finite and non-negative, got "
                               << e;
    return success();
  }
};
} // namespace

/// Rules shared by the normalisations: x [M, N], weight [N], result like x.
static LogicalResult verifyNorm(Checker &c, Value x, Value w, Value bias,
                                Value y, float eps) {
  if (failed(c.rank(x, 2, "input", "[M, N]")) ||
      failed(c.dataFloat(x, "input")) ||
      failed(c.rank(w, 1, "weight", "[N]")) ||
      failed(c.dataFloat(w, "weight")) ||
      failed(c.sameDim(w, 0, "weight size", x, 1, "the row length N of the input")))
    return failure();
  if (bias && (failed(c.rank(bias, 1, "bias", "[N]")) ||
               failed(c.dataFloat(bias, "bias")) ||
               failed(c.sameDim(bias, 0, "bias size", x, 1,
                                "the row length N of the input"))))
    return failure();
  if (failed(c.sameShape(x, "input", y, "result")) ||
      failed(c.dataFloat(y, "result")))
    return failure();
  return c.eps(eps);
}

LogicalResult RmsNormOp::verify() {
  Checker c{*this};
  if (failed(verifyNorm(c, getInput(), getWeight(), Value(), getResult(),
                        getEps().convertToFloat())))
    return failure();
  if (getResidual() && !getResidualOut())
    return emitOpError("with a 'residual' operand the op also returns the sum "
                       "input + residual as a second result");
  if (!getResidual() && getResidualOut())
    return emitOpError("a second result (the residual sum) needs the "
                       "'residual' operand");
  if (getResidual())
    if (failed(c.sameShape(getInput(), "input", getResidual(), "residual")) ||
        failed(c.dataFloat(getResidual(), "residual")) ||
        failed(c.sameShape(getInput(), "input", getResidualOut(),
                           "residual sum result")) ||
        failed(c.dataFloat(getResidualOut(), "residual sum result")))
      return failure();
  return success();
}

LogicalResult LayerNormOp::verify() {
  Checker c{*this};
  return verifyNorm(c, getInput(), getWeight(), getBias(), getResult(),
                    getEps().convertToFloat());
}

static LogicalResult verifyRowwise(Operation *op, Value x, Value y) {
  Checker c{op};
  if (failed(c.rank(x, 2, "input", "[M, N]")) || failed(c.dataFloat(x, "input")))
    return failure();
  if (failed(c.sameShape(x, "input", y, "result")))
    return failure();
  return c.dataFloat(y, "result");
}

LogicalResult SoftmaxOp::verify() {
  return verifyRowwise(*this, getInput(), getResult());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyRowwise(*this, getInput(), getResult());
}

LogicalResult CrossEntropyOp::verify() {
  Checker c{*this};
  if (failed(c.rank(getLogits(), 2, "logits", "[M, N]")) ||
      failed(c.dataFloat(getLogits(), "logits")) ||
      failed(c.rank(getTargets(), 1, "targets", "[M]")) ||
      failed(c.integer(getTargets(), "targets")) ||
      failed(c.sameDim(getTargets(), 0, "targets size", getLogits(), 0,
                       "the number of rows M of the logits")))
    return failure();
  for (auto [v, what] : {std::pair<Value, StringRef>(getLoss(), "loss"),
                         std::pair<Value, StringRef>(getLse(), "lse")}) {
    if (failed(c.rank(v, 1, what, "[M]")) || failed(c.dataFloat(v, what)) ||
        failed(c.sameDim(v, 0, (what + Twine(" size")).str(), getLogits(), 0,
                         "the number of rows M of the logits")))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Quantized ops
//===----------------------------------------------------------------------===//

/// Checks a quantized tensor against its #rk.quant and the scales / zeros
/// that go with it. `shapeRef` is the logical (dequantized) tensor.
static LogicalResult verifyQuantGroup(Operation *op, Value q, Value scales,
                                      Value zeros, StringRef qWhat,
                                      QuantAttr *out = nullptr) {
  Checker c{op};
  auto qt = c.tensor(q);
  auto quant = dyn_cast_or_null<QuantAttr>(qt.getEncoding());
  if (!quant)
    return op->emitOpError() << qWhat
                             << " must carry a #rk.quant encoding, got " << qt;
  if (out)
    *out = quant;
  if (!qt.getElementType().isSignlessInteger(quant.getBits()))
    return op->emitOpError() << "a " << quant.getBits()
                             << "-bit #rk.quant needs an i" << quant.getBits()
                             << " element type, got " << qt.getElementType();
  if (quant.getAxis() >= qt.getRank())
    return op->emitOpError() << "#rk.quant axis " << quant.getAxis()
                             << " is out of range for the rank-" << qt.getRank()
                             << " " << qWhat;
  int64_t axisDim = qt.getDimSize(quant.getAxis());
  int64_t group = quant.getGroupSize();
  if (group > 0 && !ShapedType::isDynamic(axisDim) && axisDim % group != 0)
    return op->emitOpError() << "group_size " << group
                             << " does not divide dimension #" << quant.getAxis()
                             << " (" << axisDim << ") of the " << qWhat;
  SmallVector<int64_t> expect(qt.getShape());
  if (group == 0)
    expect[quant.getAxis()] = 1;
  else if (!ShapedType::isDynamic(axisDim))
    expect[quant.getAxis()] = axisDim / group;
  auto checkScaleLike = [&](Value s, StringRef what) -> LogicalResult {
    auto st = c.tensor(s);
    if (st.getRank() != qt.getRank() ||
        failed(verifyCompatibleShape(st.getShape(), expect)))
      return op->emitOpError()
             << what << " shape " << Checker::shapeStr(st) << " must be "
             << Checker::shapeStr(RankedTensorType::get(expect, st.getElementType()))
             << " (the " << qWhat << " shape with dimension #" << quant.getAxis()
             << (group == 0 ? " reduced to 1 group)"
                            : " divided by group_size " + std::to_string(group) + ")");
    return success();
  };
  if (failed(checkScaleLike(scales, "scales")))
    return failure();
  if (c.tensor(scales).getElementType() != quant.getScaleType())
    return op->emitOpError() << "scales element type "
                             << c.tensor(scales).getElementType()
                             << " must equal the #rk.quant scale type "
                             << quant.getScaleType();
  if (!quant.getSymmetric() && !zeros)
    return op->emitOpError("an asymmetric #rk.quant needs zero points");
  if (quant.getSymmetric() && zeros)
    return op->emitOpError("a symmetric #rk.quant takes no zero points");
  if (zeros && failed(checkScaleLike(zeros, "zeros")))
    return failure();
  return success();
}

LogicalResult QuantizeOp::verify() {
  Checker c{*this};
  if (failed(c.dataFloat(getInput(), "input")) ||
      failed(c.sameShape(getInput(), "input", getQuantized(), "quantized result")))
    return failure();
  return verifyQuantGroup(*this, getQuantized(), getScales(), getZeros(),
                          "quantized result");
}

LogicalResult DequantizeOp::verify() {
  Checker c{*this};
  if (failed(verifyQuantGroup(*this, getQuantized(), getScales(), getZeros(),
                              "quantized operand")))
    return failure();
  if (failed(c.sameShape(getQuantized(), "quantized operand", getResult(),
                         "result")))
    return failure();
  return c.dataFloat(getResult(), "result");
}

LogicalResult GemvOp::verify() {
  Checker c{*this};
  QuantAttr quant;
  if (failed(c.rank(getAct(), 2, "activations", "[M, K]")) ||
      failed(c.dataFloat(getAct(), "activations")) ||
      failed(c.rank(getWeight(), 2, "weight", "[K, N]")) ||
      failed(verifyQuantGroup(*this, getWeight(), getScales(), getZeros(),
                              "weight", &quant)))
    return failure();
  if (quant.getAxis() != 0)
    return emitOpError() << "the weight must be quantized along K (axis = 0), "
                            "got axis = "
                         << quant.getAxis();
  if (failed(c.sameDim(getWeight(), 0, "weight rows K", getAct(), 1,
                       "the activation columns")))
    return failure();
  int64_t m = c.tensor(getAct()).getDimSize(0);
  if (!ShapedType::isDynamic(m) && m > 16)
    return emitOpError() << "rk.gemv is a decode GEMV: at most 16 activation "
                            "rows, got "
                         << m;
  if (getBias() && (failed(c.rank(getBias(), 1, "bias", "[N]")) ||
                    failed(c.dataFloat(getBias(), "bias")) ||
                    failed(c.sameDim(getBias(), 0, "bias size", getWeight(), 1,
                                     "the weight columns N"))))
    return failure();
  if (failed(c.rank(getResult(), 2, "result", "[M, N]")) ||
      failed(c.dataFloat(getResult(), "result")) ||
      failed(c.sameDim(getResult(), 0, "result rows", getAct(), 0,
                       "the activation rows M")) ||
      failed(c.sameDim(getResult(), 1, "result columns", getWeight(), 1,
                       "the weight columns N")))
    return failure();
  return success();
}

LogicalResult DecodeAttentionOp::verify() {
  Checker c{*this};
  Value q = getQuery(), k = getKeys(), v = getValues();
  if (failed(c.rank(q, 3, "query", "[B, H, D]")) ||
      failed(c.dataFloat(q, "query")) ||
      failed(c.rank(k, 4, "keys", "[B, H_kv, S, D]")) ||
      failed(c.rank(v, 4, "values", "[B, H_kv, S, D]")) ||
      failed(c.sameShape(k, "keys", v, "values")) ||
      failed(c.sameDim(k, 0, "keys batch", q, 0, "the query batch B")) ||
      failed(c.sameDim(k, 3, "keys head dim", q, 2, "the query head dim D")))
    return failure();
  int64_t ratio = getGqaRatio();
  if (ratio < 1)
    return emitOpError() << "gqa_ratio must be at least 1, got " << ratio;
  int64_t h = c.tensor(q).getDimSize(1), hkv = c.tensor(k).getDimSize(1);
  if (!ShapedType::isDynamic(h) && !ShapedType::isDynamic(hkv)) {
    if (h % hkv != 0)
      return emitOpError() << "query heads (" << h
                           << ") must be divisible by key/value heads (" << hkv
                           << ")";
    if (h != hkv * ratio)
      return emitOpError() << "query heads (" << h << ") must equal gqa_ratio ("
                           << ratio << ") x key/value heads (" << hkv << ")";
  }
  float scale = getScale().convertToFloat();
  if (!std::isfinite(scale) || scale <= 0)
    return emitOpError() << "'scale' must be finite and positive, got " << scale;
  bool quantized = isa_and_nonnull<QuantAttr>(c.tensor(k).getEncoding());
  if (quantized) {
    if (!getKeyScales())
      return emitOpError("a quantized KV cache needs key and value scales");
    QuantAttr kq;
    if (failed(verifyQuantGroup(*this, k, getKeyScales(), Value(), "keys", &kq)) ||
        failed(verifyQuantGroup(*this, v, getValueScales(), Value(), "values")))
      return failure();
  } else {
    if (failed(c.dataFloat(k, "keys")))
      return failure();
    if (getKeyScales())
      return emitOpError("a float KV cache takes no scales");
  }
  if (failed(c.sameShape(q, "query", getResult(), "result")))
    return failure();
  return c.dataFloat(getResult(), "result");
}

//===----------------------------------------------------------------------===//
// Generic ops
//===----------------------------------------------------------------------===//

/// Ops that may appear in map and combiner regions: arith, math and the
/// terminator. The CUDA emitter knows exactly these.
static LogicalResult verifyRegionOps(Operation *op, Region &region,
                                     StringRef what) {
  for (Operation &inner : region.getOps()) {
    if (isa<YieldOp>(inner))
      continue;
    StringRef ns = inner.getDialect() ? inner.getDialect()->getNamespace() : "";
    if (ns != "arith" && ns != "math")
      return op->emitOpError() << "'" << inner.getName()
                               << "' is not allowed in a " << what
                               << " region (only arith and math ops)";
    if (inner.getNumRegions() != 0)
      return op->emitOpError() << "'" << inner.getName() << "' in a " << what
                               << " region must not have regions";
  }
  return success();
}

/// Checks the block of a region against the expected argument and yield types.
static LogicalResult verifyBlockSignature(Operation *op, Region &region,
                                          TypeRange argTypes,
                                          TypeRange yieldTypes,
                                          StringRef what) {
  if (!region.hasOneBlock())
    return op->emitOpError() << "the " << what << " region must have one block";
  Block &block = region.front();
  if (block.getNumArguments() != argTypes.size())
    return op->emitOpError() << "the " << what << " region must have "
                             << argTypes.size() << " arguments, got "
                             << block.getNumArguments();
  for (auto [i, arg] : llvm::enumerate(block.getArguments()))
    if (arg.getType() != argTypes[i])
      return op->emitOpError() << what << " region argument #" << i
                               << " has type " << arg.getType() << ", expected "
                               << argTypes[i];
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "the " << what
                             << " region must end with rk.yield";
  if (yield.getValues().size() != yieldTypes.size())
    return op->emitOpError() << "the " << what << " region yields "
                             << yield.getValues().size() << " values, expected "
                             << yieldTypes.size();
  for (auto [i, v] : llvm::enumerate(yield.getValues()))
    if (v.getType() != yieldTypes[i])
      return op->emitOpError() << what << " yield #" << i << " has type "
                               << v.getType() << ", expected " << yieldTypes[i];
  return verifyRegionOps(op, region, what);
}

static bool isScalarType(Type t) {
  return isa<IntegerType, FloatType, IndexType>(t);
}

// --- rk.reduce ---------------------------------------------------------------

void ReduceOp::build(OpBuilder &b, OperationState &state, TypeRange resultTypes,
                     ValueRange inputs, ReduceKind kind) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  state.addAttribute(getKindAttrName(state.name),
                     ReduceKindAttr::get(b.getContext(), kind));
  state.addRegion();
}

void ReduceOp::build(OpBuilder &b, OperationState &state, TypeRange resultTypes,
                     ValueRange inputs, ArrayAttr init) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  state.addAttribute(getInitAttrName(state.name), init);
  state.addRegion();
}

// Syntax:
//   rk.reduce <kind> %x attr-dict : type -> types
//   rk.reduce %a, %b init [attrs] { region } attr-dict : types -> types
ParseResult ReduceOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  SmallVector<Type> inputTypes, resultTypes;
  StringRef kindName;
  Region *region = result.addRegion();
  if (succeeded(parser.parseOptionalKeyword(&kindName))) {
    auto kind = symbolizeReduceKind(kindName);
    if (!kind)
      return parser.emitError(parser.getCurrentLocation(),
                              "unknown reduction kind '")
             << kindName
             << "' (expected add, mul, max, min, argmax or argmin)";
    result.addAttribute("kind",
                        ReduceKindAttr::get(parser.getContext(), *kind));
    if (parser.parseOperandList(inputs))
      return failure();
  } else {
    ArrayAttr init;
    if (parser.parseOperandList(inputs) || parser.parseKeyword("init") ||
        parser.parseAttribute(init))
      return failure();
    result.addAttribute("init", init);
    if (parser.parseRegion(*region, /*arguments=*/{}, /*enableNameShadowing=*/false))
      return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseTypeList(inputTypes) || parser.parseArrow() ||
      parser.parseTypeList(resultTypes))
    return failure();
  if (parser.resolveOperands(inputs, inputTypes, parser.getCurrentLocation(),
                             result.operands))
    return failure();
  result.addTypes(resultTypes);
  return success();
}

void ReduceOp::print(OpAsmPrinter &p) {
  if (auto kind = getKind()) {
    p << " " << stringifyReduceKind(*kind) << " ";
    p.printOperands(getInputs());
  } else {
    p << " ";
    p.printOperands(getInputs());
    p << " init ";
    p.printAttribute(*getInit());
    p << " ";
    p.printRegion(getCombiner(), /*printEntryBlockArgs=*/true);
  }
  p.printOptionalAttrDict((*this)->getAttrs(), {"kind", "init"});
  p << " : ";
  llvm::interleaveComma(getInputs().getTypes(), p);
  p << " -> ";
  llvm::interleaveComma(getResultTypes(), p);
}

LogicalResult ReduceOp::verify() {
  Checker c{*this};
  if (getInputs().empty())
    return emitOpError("expects at least one input");
  for (auto [i, in] : llvm::enumerate(getInputs())) {
    std::string what = "input #" + std::to_string(i);
    if (failed(c.rank(in, 2, what, "[M, N]")))
      return failure();
    if (i > 0 && failed(c.sameShape(getInputs()[0], "input #0", in, what)))
      return failure();
  }
  for (auto [i, r] : llvm::enumerate(getResults())) {
    std::string what = "result #" + std::to_string(i);
    if (failed(c.rank(r, 1, what, "[M]")) ||
        failed(c.sameDim(r, 0, what + " size", getInputs()[0], 0,
                         "the number of rows M")))
      return failure();
  }
  if (auto kind = getKind()) {
    StringRef name = stringifyReduceKind(*kind);
    if (getInputs().size() != 1)
      return emitOpError() << "builtin kind '" << name
                           << "' takes exactly one input, got "
                           << getInputs().size();
    if (!getCombiner().empty())
      return emitOpError("a builtin kind takes no combiner region");
    if (getInit())
      return emitOpError("a builtin kind takes no 'init' (its identity is known)");
    Type inElem = c.tensor(getInputs()[0]).getElementType();
    bool isArg = *kind == ReduceKind::argmax || *kind == ReduceKind::argmin;
    size_t expect = isArg ? 2 : 1;
    if (getNumResults() != expect)
      return emitOpError() << "builtin kind '" << name << "' has " << expect
                           << (isArg ? " results (value, index)" : " result")
                           << ", got " << getNumResults();
    Type valElem = c.tensor(getResult(0)).getElementType();
    // Float inputs (and quantized integers, computed as f32) reduce in f32.
    bool floatIn = isDataFloat(inElem) || quantizedRange(c.tensor(getInputs()[0]));
    if (floatIn ? !isDataFloat(valElem) : valElem != inElem)
      return emitOpError() << "result #0 element type " << valElem
                           << " does not fit input element type " << inElem
                           << " (float inputs give float results, integer "
                              "inputs the same integer type)";
    if (!isDataFloat(inElem) && !inElem.isSignlessInteger())
      return emitOpError() << "input element type " << inElem
                           << " cannot be reduced";
    if (isArg && failed(c.integer(getResult(1), "result #1 (the column index)")))
      return failure();
    return success();
  }
  auto init = getInit();
  if (!init)
    return emitOpError("a custom combiner needs 'init' (the identity state)");
  size_t k = getInputs().size();
  if (init->size() != k)
    return emitOpError() << "'init' has " << init->size()
                         << " values, expected one per input (" << k << ")";
  if (getNumResults() != k)
    return emitOpError() << "expects one result per input (" << k << "), got "
                         << getNumResults();
  for (size_t i = 0; i < k; ++i) {
    Type state = computeType(c.tensor(getInputs()[i]));
    auto typed = dyn_cast<TypedAttr>((*init)[i]);
    if (!typed || typed.getType() != state)
      return emitOpError() << "init value #" << i << " must be a " << state
                           << " attribute, got " << (*init)[i];
    Type res = c.tensor(getResult(i)).getElementType();
    if (state.isF32() ? !isDataFloat(res) : res != state)
      return emitOpError() << "result #" << i << " element type " << res
                           << " does not fit state component type " << state;
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  if (!hasCombiner())
    return success();
  SmallVector<Type> state;
  for (Value in : getInputs())
    state.push_back(
        computeType(in.getType()));
  SmallVector<Type> args(state);
  args.append(state);
  return verifyBlockSignature(*this, getCombiner(), args, state, "combiner");
}

// --- rk.map ------------------------------------------------------------------

// Syntax: rk.map %a, %b { region } attr-dict : types -> types
ParseResult MapOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> operandTypes, resultTypes;
  Region *body = result.addRegion();
  if (parser.parseOperandList(operands) ||
      parser.parseRegion(*body, /*arguments=*/{}, /*enableNameShadowing=*/false) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseTypeList(operandTypes) || parser.parseArrow() ||
      parser.parseTypeList(resultTypes) ||
      parser.resolveOperands(operands, operandTypes,
                             parser.getCurrentLocation(), result.operands))
    return failure();
  result.addTypes(resultTypes);
  return success();
}

void MapOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperands(getOperands_());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true);
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : ";
  llvm::interleaveComma(getOperands_().getTypes(), p);
  p << " -> ";
  llvm::interleaveComma(getResultTypes(), p);
}

LogicalResult MapOp::verify() {
  Checker c{*this};
  if (getNumResults() == 0)
    return emitOpError("expects at least one result");
  Value first = getResult(0);
  for (auto [i, r] : llvm::enumerate(getResults())) {
    std::string what = "result #" + std::to_string(i);
    Type e = c.tensor(r).getElementType();
    if (!isDataFloat(e) && !e.isSignlessInteger())
      return emitOpError() << what
                           << " must have a float (f32, bf16, f16, !rk.dtype) "
                              "or integer element type, got "
                           << e;
    if (i > 0 && failed(c.sameShape(first, "result #0", r, what)))
      return failure();
  }
  for (auto [i, v] : llvm::enumerate(getOperands_())) {
    if (isa<RankedTensorType>(v.getType())) {
      if (failed(c.sameShape(first, "result", v,
                             "operand #" + std::to_string(i))))
        return failure();
      continue;
    }
    if (!isScalarType(v.getType()))
      return emitOpError() << "operand #" << i
                           << " must be a tensor of the result shape or an "
                              "int, float or index scalar, got "
                           << v.getType();
  }
  return success();
}

LogicalResult MapOp::verifyRegions() {
  SmallVector<Type> args, yields;
  for (Value v : getOperands_()) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      args.push_back(computeType(t));
    else
      args.push_back(v.getType());
  }
  for (Value r : getResults())
    yields.push_back(computeType(r.getType()));
  return verifyBlockSignature(*this, getBody(), args, yields, "map");
}

// --- rk.broadcast ------------------------------------------------------------

LogicalResult BroadcastOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  ArrayRef<int64_t> dims = getDims();
  if ((int64_t)dims.size() != in.getRank())
    return emitOpError() << "'dims' has " << dims.size()
                         << " entries, expected one per input dimension ("
                         << in.getRank() << ")";
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank() || (i > 0 && d <= dims[i - 1]))
      return emitOpError() << "'dims' must be strictly increasing result "
                              "dimensions below the result rank "
                           << out.getRank();
    int64_t a = in.getDimSize(i), b = out.getDimSize(d);
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return emitOpError() << "input dimension #" << i << " (" << a
                           << ") does not match result dimension #" << d << " ("
                           << b << ")";
  }
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "result element type " << out.getElementType()
                         << " must equal the input element type "
                         << in.getElementType();
  return success();
}

// --- rk.gather ---------------------------------------------------------------

LogicalResult GatherOp::verify() {
  Checker c{*this};
  if (failed(c.rank(getInput(), 2, "input", "[M, N]")) ||
      failed(c.rank(getIndex(), 1, "index", "[M]")) ||
      failed(c.integer(getIndex(), "index")) ||
      failed(c.sameDim(getIndex(), 0, "index size", getInput(), 0,
                       "the number of rows M")) ||
      failed(c.rank(getResult(), 1, "result", "[M]")) ||
      failed(c.sameDim(getResult(), 0, "result size", getInput(), 0,
                       "the number of rows M")))
    return failure();
  if (getResult().getType().getElementType() !=
      getInput().getType().getElementType())
    return emitOpError("result element type must equal the input element type");
  return success();
}

// --- rk.dim ------------------------------------------------------------------

LogicalResult DimOp::verify() {
  int64_t rank = getInput().getType().getRank();
  // getIndex() is unsigned (I64Attr): read the attribute as signed so that a
  // negative index is caught and printed as written.
  int64_t index = getIndexAttr().getInt();
  if (index < 0 || index >= rank)
    return emitOpError() << "dimension index " << index
                         << " is out of range for a rank-" << rank << " tensor";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  int64_t size = getInput().getType().getDimSize(getIndex());
  if (ShapedType::isDynamic(size))
    return {};
  Type t = getType();
  if (auto f = dyn_cast<FloatType>(t))
    return FloatAttr::get(f, (double)size);
  return IntegerAttr::get(t, size);
}

#define GET_OP_CLASSES
#include "rk/RkOps.cpp.inc"
