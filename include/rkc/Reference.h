//===- Reference.h - a double-precision interpreter of row programs -*- C++ -*-===//
//
// Evaluates the row program of a spec (the rk IR after rk-fuse-reductions:
// rk.map, rk.reduce, rk.broadcast, rk.gather, constants) on the host in
// double precision, rounding values whose declared type is bf16 or f16 as
// the kernel does. `rkc run` checks GPU results against it.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_REFERENCE_H
#define RKC_REFERENCE_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rkc {

struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<double> data; ///< row-major
};

/// Evaluates the single kernel of `rkIR` on `inputs` (in argument order);
/// returns its results in order. The inputs may hold fewer rows than the
/// IR's M (the first rows of each [M, N] and [M] argument): every value
/// takes its row count from its operands.
llvm::Expected<std::vector<HostTensor>>
evaluateRowProgram(const std::string &rkIR, const std::vector<HostTensor> &inputs);

/// `v` rounded to the nearest value of `dtype` (f32, bf16, f16; integers
/// are returned unchanged).
double roundTo(double v, const std::string &dtype);

} // namespace rkc

#endif
