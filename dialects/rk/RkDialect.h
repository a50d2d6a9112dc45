//===- RkDialect.h - the rk dialect -------------------------------*- C++ -*-===//
//
// `rk` says what a memory-bound kernel computes; see RkDialect.td.
//
//===----------------------------------------------------------------------===//
#ifndef RK_RKDIALECT_H
#define RK_RKDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "rk/RkDialect.h.inc"
#include "rk/RkEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "rk/RkTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "rk/RkAttrs.h.inc"
#define GET_OP_CLASSES
#include "rk/RkOps.h.inc"

namespace mlir::rk {
/// True for the float element types rk kernels accept as data: f32, bf16,
/// f16 and the dtype placeholder `!rk.dtype`.
bool isDataFloat(Type t);
/// The type a map/reduce region sees for an element of type `t`: f32 for
/// data floats, `t` itself otherwise.
Type computeType(Type t);
/// Name of the function argument `index` (`rk.name` or "arg<index>").
std::string argName(Operation *func, unsigned index);
} // namespace mlir::rk

#endif // RK_RKDIALECT_H
