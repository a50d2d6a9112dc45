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

#include <optional>
#include <utility>

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
/// data floats, `t` itself otherwise. For a tensor type: the compute type of
/// its elements, except that the integers of a quantized tensor (a
/// `#rk.quant` encoding) are computed as f32 holding the integer value, and
/// storing one rounds it half to even and saturates it to the element type,
/// NaN to the lowest value (as storing a narrow float rounds it).
Type computeType(Type t);
/// The integer range [lo, hi] a value stored into a quantized tensor of
/// type `t` is saturated to (signed for symmetric formats, unsigned for
/// asymmetric ones); nullopt when `t` is not quantized.
std::optional<std::pair<int64_t, int64_t>> quantizedRange(Type t);
/// Name of the function argument `index` (`rk.name` or "arg<index>").
std::string argName(Operation *func, unsigned index);
/// A discardable attribute on rk.reduce (and the tier.thread_reduce it
/// lowers to) naming how a thread folds its values when the combiner has a
/// cheaper per-fragment form. kFoldMaxExpSum: inputs (x, 1), state (m, s),
/// the online softmax state that rk-fuse-reductions forms; a fragment's
/// state is (max x, sum exp(x - max x)). kFoldMeanM2: inputs (1, x, 0),
/// state (count, mean, M2), the Welford state that rk-fuse-reductions
/// forms; a fragment's state is its count, its mean and the sum of its
/// squared deviations from that mean (two passes over the fragment).
inline constexpr const char *kFoldAttr = "rk.fold";
inline constexpr const char *kFoldMaxExpSum = "max_exp_sum";
inline constexpr const char *kFoldMeanM2 = "mean_m2";
} // namespace mlir::rk

#endif // RK_RKDIALECT_H
