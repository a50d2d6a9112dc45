//===- RowAnalysis.h - what a row program asks of the planner ----*- C++ -*-===//
//
// Summarises a (decomposed, shape-specialised) row program as the
// rkc::plan::RowProblem the cost model takes: rows, row length, element
// sizes, register pressure. Shared by rk-fuse-reductions (which asks whether
// a row can stay on chip) and rk-plan-tiers.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_PLAN_ROWANALYSIS_H
#define RKC_PLAN_ROWANALYSIS_H

#include "rkc/Plan/RowPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace rkc {

/// Fails with a diagnostic on `func` when it is not a row program of one
/// [M, N] shape.
mlir::FailureOr<plan::RowProblem> analyzeRowProgram(mlir::func::FuncOp func);

/// True if `t` is an [M, 1] tensor beside the [M, N] rows of `rowType`
/// (N > 1): a per-row value stored with a row stride, like an [M] one.
bool isPerRowColumn(mlir::RankedTensorType t, mlir::RankedTensorType rowType);

/// Storage bytes of an element type (i4 counts as 1).
int storageBytes(mlir::Type t);

} // namespace rkc

#endif
