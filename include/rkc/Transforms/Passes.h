//===- Passes.h - rkc pass declarations ---------------------------*- C++ -*-===//
#ifndef RKC_TRANSFORMS_PASSES_H
#define RKC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "rk/RkDialect.h"
#include "tier/TierDialect.h"

namespace rkc {
#define GEN_PASS_DECL
#include "rkc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rkc/Transforms/Passes.h.inc"
} // namespace rkc

#endif // RKC_TRANSFORMS_PASSES_H
