//===- TierOps.cpp - tier op verifiers ------------------------------------===//

#include "tier/TierDialect.h"
#include "rk/RkDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tier;

/// The layout of the function that holds `op`, if it has been planned.
static TvLayoutAttr layoutOf(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (auto l = p->getAttrOfType<TvLayoutAttr>(kLayoutAttr))
      return l;
  return {};
}

static LogicalResult checkFragSize(Operation *op, FragType frag) {
  if (auto layout = layoutOf(op))
    if (frag.getSize() != layout.getValues())
      return op->emitOpError() << "fragment size " << frag.getSize()
                               << " must equal the layout's values per thread ("
                               << layout.getValues() << ")";
  return success();
}

LogicalResult LoadOp::verify() {
  auto t = getSource().getType();
  if (t.getRank() != 1 && t.getRank() != 2)
    return emitOpError() << "loads a row of an [M, N] tensor or an [N] row "
                            "vector, got "
                         << t;
  return checkFragSize(*this, getResult().getType());
}

LogicalResult StoreOp::verify() {
  if (getDest().getType().getRank() != 2)
    return emitOpError() << "stores into an [M, N] tensor, got "
                         << getDest().getType();
  return checkFragSize(*this, getValue().getType());
}

LogicalResult MapOp::verify() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "region must have one argument per input ("
                         << getInputs().size() << ")";
  bool anyFrag = false;
  for (auto [arg, in] : llvm::zip(block.getArguments(), getInputs())) {
    Type scalar = in.getType();
    if (auto f = dyn_cast<FragType>(scalar)) {
      anyFrag = true;
      scalar = f.getElementType();
      if (failed(checkFragSize(*this, f)))
        return failure();
    }
    if (arg.getType() != scalar)
      return emitOpError() << "region argument type " << arg.getType()
                           << " does not match input element type " << scalar;
  }
  for (Type r : getResultTypes())
    if (isa<FragType>(r) != anyFrag)
      return emitOpError("results are fragments exactly when an input is");
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValues().size() != getNumResults())
    return emitOpError("region must yield one value per result");
  return success();
}

/// Shared by the four reduction tiers: a builtin kind or a combiner region
/// over two states.
static LogicalResult verifyCombiner(Operation *op, Attribute kind,
                                    Region &combiner, TypeRange state) {
  if (kind) {
    if (!isa<rk::ReduceKindAttr>(kind))
      return op->emitOpError("'kind' must be a #rk.reduce_kind");
    if (!combiner.empty())
      return op->emitOpError("takes a builtin kind or a combiner region, not both");
    return success();
  }
  if (combiner.empty() || combiner.front().getNumArguments() != 2 * state.size())
    return op->emitOpError() << "needs a builtin kind or a combiner region of "
                             << 2 * state.size() << " arguments";
  return success();
}

LogicalResult ThreadReduceOp::verify() {
  if (getInit().size() != getNumResults())
    return emitOpError("'init' needs one value per state component");
  for (Value in : getInputs())
    if (failed(checkFragSize(*this, cast<FragType>(in.getType()))))
      return failure();
  return verifyCombiner(*this, getKindAttr(), getCombiner(), getResultTypes());
}

static LogicalResult verifyWidth(Operation *op, int64_t width, StringRef what) {
  if (width < 1 || width > 32 || (width & (width - 1)))
    return op->emitOpError() << what << " must be a power of two in [1, 32], got "
                             << width;
  return success();
}

LogicalResult WarpReduceOp::verify() {
  if (failed(verifyWidth(*this, getWidth(), "width")))
    return failure();
  return verifyCombiner(*this, getKindAttr(), getCombiner(), getResultTypes());
}

LogicalResult BlockReduceOp::verify() {
  // One message (verifyWidth would add a second, with the wrong range).
  int64_t warps = getWarps();
  if (warps < 2 || warps > 32 || (warps & (warps - 1)))
    return emitOpError() << "warps per row must be a power of two in [2, 32], got "
                         << warps;
  return verifyCombiner(*this, getKindAttr(), getCombiner(), getResultTypes());
}

/// A reduction across the CTAs of a row: `ctas` of them (the attribute
/// `what`, a power of two in [2, maxCtas]) with `warps` warps each.
template <class ReduceOp>
static LogicalResult verifyAcrossCtas(ReduceOp op, int64_t ctas, int64_t maxCtas,
                                      StringRef what) {
  if (ctas < 2 || ctas > maxCtas || (ctas & (ctas - 1)))
    return op.emitOpError() << what << " must be a power of two in [2, " << maxCtas
                            << "], got " << ctas;
  int64_t w = op.getWarps();
  if (w < 1 || w > 32 || (w & (w - 1)))
    return op.emitOpError() << "warps per row must be a power of two in [1, 32], got " << w;
  return verifyCombiner(op, op.getKindAttr(), op.getCombiner(), op.getResultTypes());
}

LogicalResult ClusterReduceOp::verify() {
  return verifyAcrossCtas(*this, getCluster(), 16, "cluster");
}

LogicalResult GridReduceOp::verify() { return verifyAcrossCtas(*this, getSplit(), 1024, "split"); }

#define GET_OP_CLASSES
#include "tier/TierOps.cpp.inc"

LogicalResult KDotOp::verify() {
  if (getAct().getType().getRank() != 2 || getWeight().getType().getRank() != 2)
    return emitOpError() << "takes [M, K] activations and a [K, N] weight, got "
                         << getAct().getType() << " and " << getWeight().getType();
  if (!getWeight().getType().getEncoding())
    return emitOpError() << "the weight must carry a #rk.quant encoding, got "
                         << getWeight().getType();
  if (getAct().getType().getDimSize(1) != getWeight().getType().getDimSize(0))
    return emitOpError() << "activation columns (" << getAct().getType().getDimSize(1)
                         << ") differ from weight rows K ("
                         << getWeight().getType().getDimSize(0) << ")";
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  if (auto layout = func ? func->getAttrOfType<KSplitLayoutAttr>(kLayoutAttr)
                         : KSplitLayoutAttr())
    if (getResult().getType().getSize() != layout.getPartialSize())
      return emitOpError() << "fragment size " << getResult().getType().getSize()
                           << " must equal "
                           << (layout.getMma() ? "16 x cols (four m16n8 accumulators per "
                                                 "32 columns)"
                                               : "rows x cols of the layout")
                           << " (" << layout.getPartialSize() << ")";
  return success();
}
