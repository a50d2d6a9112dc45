//===- CudaEmitter.h - tier kernels to CUDA C++ ------------------*- C++ -*-===//
#ifndef RKC_TARGET_CUDAEMITTER_H
#define RKC_TARGET_CUDAEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rkc {

/// One kernel parameter buffer. Launch ABI (all 8-byte parameters, in this
/// order): a pointer per argument, then a row stride (elements) per
/// argument (ignored for non-[M, N] arguments), then the row count M (then,
/// for kernels with KernelInfo::split > 1, the workspace pointer).
struct KernelArg {
  std::string name;          ///< rk.name of the argument ("out<i>" for results)
  std::string dtype;         ///< f32, bf16, f16, i32, i64, ...
  std::vector<int64_t> shape;
  bool output = false;
  int elemBytes = 4;
  /// Column kernels: the pointer must be aligned to this many bytes (0: the
  /// row-kernel rule from `vector`), and the tensor must be contiguous
  /// (row stride = shape[1]) when `contiguous`.
  int alignBytes = 0;
  bool contiguous = false;
};

/// What the runtime needs to launch an emitted kernel.
struct KernelInfo {
  std::string name;          ///< extern "C" symbol
  int64_t ctaThreads = 0;    ///< blockDim.x
  int64_t rowsPerCta = 1;
  int64_t cluster = 1;       ///< CTAs per cluster (grid is a multiple)
  /// The grid tier: CTAs per row that combine through global memory (1:
  /// none). The kernel is persistent: the runtime launches groups of
  /// `split` CTAs cooperatively, no more than fit at once (each group loops
  /// over rows), and passes one more parameter after M, a workspace of
  /// `workspaceBytes` per group, zeroed before the launch.
  int64_t split = 1;
  int64_t workspaceBytes = 0;
  int64_t rows = 0, cols = 0;
  int64_t vector = 1;        ///< elements per access: pointers and row strides
                             ///< must be multiples of it, unless cols is not
                             ///< (shifted rows: [M, N] row strides agree
                             ///< modulo it)
  int64_t smemBytes = 0;     ///< dynamic shared memory per CTA (staging)
  int64_t gridCtas = 0;      ///< column kernels: the grid (fixed by the shape);
                             ///< 0: ceil(rows / rowsPerCta) * cluster
  std::string arch;
  std::string plan;          ///< human-readable schedule
  std::vector<KernelArg> args;
};

/// Emits CUDA C++ for every planned, lowered kernel of `module` into
/// `source` and describes each in `kernels`. Errors are emitted as
/// diagnostics at the offending op.
mlir::LogicalResult emitCuda(mlir::ModuleOp module, std::string &source,
                             std::vector<KernelInfo> &kernels);

} // namespace rkc

#endif
