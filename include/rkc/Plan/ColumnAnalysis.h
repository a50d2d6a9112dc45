//===- ColumnAnalysis.h - what a column program asks of the planner -*- C++ -*-===//
//
// Column programs reduce (or transform) a [K, N] quantized tensor along K
// for every column: rk.gemv, and rk.quantize / rk.dequantize along axis 0.
// They are planned by KSplitPlan and lowered to the K-split tier ops; row
// programs take the RowPlan path.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_PLAN_COLUMNANALYSIS_H
#define RKC_PLAN_COLUMNANALYSIS_H

#include "rkc/Plan/KSplitPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace rkc {

/// True if `func` holds a quantized op (rk.gemv, rk.quantize, rk.dequantize).
bool isColumnProgram(mlir::func::FuncOp func);

/// The one quantized op of a column program; fails with a diagnostic when
/// the function holds anything the column lowering cannot take.
mlir::FailureOr<mlir::Operation *> columnOp(mlir::func::FuncOp func);

/// Summary for the planner (fails with a diagnostic on unsupported forms).
mlir::FailureOr<plan::KSplitProblem> analyzeColumnProgram(mlir::func::FuncOp func);

} // namespace rkc

#endif
