//===- RkDialect.cpp - rk dialect registration, types, attributes ---------===//

#include "rk/RkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rk;

#include "rk/RkDialect.cpp.inc"
#include "rk/RkEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "rk/RkTypes.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "rk/RkAttrs.cpp.inc"

void RkDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "rk/RkOps.cpp.inc"
      >();
}

void RkDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "rk/RkTypes.cpp.inc"
      >();
}

void RkDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "rk/RkAttrs.cpp.inc"
      >();
}

Operation *RkDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value))
    if (arith::ConstantOp::isBuildableWith(typed, type))
      return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}

static constexpr llvm::StringLiteral kNameAttr = "rk.name";

LogicalResult RkDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() == kFoldAttr) {
    // The thread-tier fold of a reduction (RkDialect.h): on rk.reduce or the
    // tier.thread_reduce it lowers to, with the state it names.
    StringRef name = op->getName().getStringRef();
    auto value = dyn_cast<StringAttr>(attr.getValue());
    bool onReduce = name == "rk.reduce" || name == "tier.thread_reduce";
    if (!value || (value.getValue() != kFoldMaxExpSum && value.getValue() != kFoldMeanM2))
      return op->emitError() << "'" << kFoldAttr << "' must be \"" << kFoldMaxExpSum
                             << "\" or \"" << kFoldMeanM2 << "\"";
    if (value.getValue() == kFoldMaxExpSum &&
        (!onReduce || op->getNumResults() != 2 || op->getNumOperands() != 2))
      return op->emitError() << "'" << kFoldAttr << "' = \"" << kFoldMaxExpSum
                             << "\" belongs on a two-input, two-result rk.reduce or "
                                "tier.thread_reduce (the online softmax state)";
    if (value.getValue() == kFoldMeanM2 &&
        (!onReduce || op->getNumResults() != 3 || op->getNumOperands() != 3))
      return op->emitError() << "'" << kFoldAttr << "' = \"" << kFoldMeanM2
                             << "\" belongs on a three-input, three-result rk.reduce or "
                                "tier.thread_reduce (the Welford state)";
    return success();
  }
  return op->emitError() << "'" << attr.getName().getValue()
                         << "' is not an rk operation attribute (rk.name "
                            "belongs on function arguments)";
}

LogicalResult RkDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  if (attr.getName() != kNameAttr)
    return op->emitError() << "unknown argument attribute '"
                           << attr.getName().getValue()
                           << "' (rk knows only 'rk.name')";
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'rk.name' of argument #" << argIndex
                           << " must be a non-empty string";
  // A name is what --shape addresses and what the kernel's argument list
  // (and the disk cache's record of it) holds: "a b" or "a=b" could never
  // be given a shape, and a space split the cached record into other fields.
  if (!llvm::all_of(name.getValue(), [](char c) {
        return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-';
      }))
    return op->emitError() << "argument #" << argIndex << " is named '" << name.getValue()
                           << "': an rk.name is letters, digits, '_', '.' and '-'";
  Region &region = op->getRegion(regionIndex);
  for (BlockArgument other : region.getArguments()) {
    if (other.getArgNumber() >= argIndex)
      break;
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      break;
    if (auto otherName =
            func.getArgAttrOfType<StringAttr>(other.getArgNumber(), kNameAttr))
      if (otherName == name)
        return op->emitError() << "arguments #" << other.getArgNumber()
                               << " and #" << argIndex
                               << " have the same rk.name \""
                               << name.getValue() << "\"";
  }
  return success();
}

int64_t QuantAttr::valuesPerWord() const {
  switch (getPacking()) {
  case QuantPacking::k8:
    return 8;
  case QuantPacking::k4:
    return 4;
  default:
    return 1;
  }
}

LogicalResult QuantAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned bits, int64_t groupSize, unsigned axis,
                                Type scaleType, bool symmetric,
                                QuantPacking packing) {
  if (bits != 4 && bits != 8)
    return emitError() << "#rk.quant bits must be 4 or 8, got " << bits;
  if (groupSize < 0)
    return emitError() << "#rk.quant group_size must be positive (or 0 for one "
                          "group over the whole axis), got "
                       << groupSize;
  if (!scaleType.isF16() && !scaleType.isBF16() && !scaleType.isF32())
    return emitError() << "#rk.quant scale type must be f16, bf16 or f32, got "
                       << scaleType;
  if (packing == QuantPacking::k8 && bits != 4)
    return emitError() << "#rk.quant packing 'k8' holds eight 4-bit values per "
                          "32-bit word and needs bits = 4";
  if (packing == QuantPacking::k4 && bits != 8)
    return emitError() << "#rk.quant packing 'k4' holds four 8-bit values per "
                          "32-bit word and needs bits = 8";
  (void)axis;
  (void)symmetric;
  return success();
}

bool mlir::rk::isDataFloat(Type t) {
  return t.isF32() || t.isBF16() || t.isF16() || isa<DTypeType>(t);
}

Type mlir::rk::computeType(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t)) {
    if (quantizedRange(r))
      return Float32Type::get(t.getContext());
    return computeType(r.getElementType());
  }
  if (isDataFloat(t))
    return Float32Type::get(t.getContext());
  return t;
}

std::optional<std::pair<int64_t, int64_t>> mlir::rk::quantizedRange(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  auto quant = r ? dyn_cast_or_null<QuantAttr>(r.getEncoding()) : QuantAttr();
  if (!quant || !r.getElementType().isSignlessInteger())
    return std::nullopt;
  // Symmetric formats hold two's-complement values, asymmetric ones
  // unsigned values (docs/quantization.md).
  unsigned w = quant.getBits();
  if (!quant.getSymmetric())
    return std::make_pair(int64_t(0), (int64_t(1) << w) - 1);
  return std::make_pair(-(int64_t(1) << (w - 1)), (int64_t(1) << (w - 1)) - 1);
}

std::string mlir::rk::argName(Operation *op, unsigned index) {
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    if (auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr))
      return name.str();
  return "arg" + std::to_string(index);
}
