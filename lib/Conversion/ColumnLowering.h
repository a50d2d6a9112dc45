//===- ColumnLowering.h - column programs to K-split tier ops ----*- C++ -*-===//
#ifndef RKC_CONVERSION_COLUMNLOWERING_H
#define RKC_CONVERSION_COLUMNLOWERING_H

#include "tier/TierDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace rkc {

/// Lowers the one quantized op of a planned column program (rk.gemv,
/// rk.quantize, rk.dequantize along K) to tier ops under `layout`; results
/// become destination arguments named out<i> (as for row kernels).
mlir::LogicalResult lowerColumnProgram(mlir::func::FuncOp func,
                                       mlir::tier::KSplitLayoutAttr layout);

} // namespace rkc

#endif
