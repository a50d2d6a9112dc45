//===- TierDialect.h - the tier dialect ---------------------------*- C++ -*-===//
//
// `tier` says how a row kernel runs on the GPU; see TierDialect.td.
//
//===----------------------------------------------------------------------===//
#ifndef TIER_TIERDIALECT_H
#define TIER_TIERDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "tier/TierDialect.h.inc"
#include "tier/TierEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tier/TierTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "tier/TierAttrs.h.inc"
#define GET_OP_CLASSES
#include "tier/TierOps.h.inc"

namespace mlir::tier {
/// Function attribute names carrying the plan of a kernel.
inline constexpr llvm::StringLiteral kLayoutAttr = "tier.layout";
inline constexpr llvm::StringLiteral kScheduleAttr = "tier.schedule";
inline constexpr llvm::StringLiteral kArchAttr = "tier.arch";
} // namespace mlir::tier

#endif // TIER_TIERDIALECT_H
