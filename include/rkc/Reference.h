//===- Reference.h - double-precision interpreters of rk programs --*- C++ -*-===//
//
// Evaluates the row program of a spec (the rk IR after rk-fuse-reductions:
// rk.map, rk.reduce, rk.broadcast, rk.gather, constants) on the host in
// double precision, rounding values whose declared type is bf16 or f16 as
// the kernel does; and the column programs (rk.gemv, rk.quantize,
// rk.dequantize along K). `rkc run` and the tuner check GPU results
// against them.
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

/// evaluateRowProgram over parts of the rows at once (a row program's rows
/// are independent): `rowIndexed[i]` says which inputs are indexed by row
/// ([M, N] and [M] ones, sliced per part; the others, [N], are given whole
/// to every part). `parts` = 0: one per hardware thread, at most one per
/// row. The results are evaluateRowProgram's, value for value; a program
/// whose results are not indexed by row is evaluated whole.
llvm::Expected<std::vector<HostTensor>>
evaluateRowProgramInParts(const std::string &rkIR, const std::vector<HostTensor> &inputs,
                          const std::vector<bool> &rowIndexed, unsigned parts = 0);

/// An argument of a column program (rk.gemv, or rk.quantize /
/// rk.dequantize along K of a [K, N] tensor; lib/Runtime/ColumnReference.cpp).
struct ColumnArgument {
  enum class Role {
    Float,       ///< quantize's input, dequantize's and gemv's result
    Activations, ///< gemv's x [M, K]
    Quantized,   ///< the [K, N] integers (logical values, not packed words)
    Scales,
    Zeros,
    Bias,
  };
  Role role = Role::Float;
  int bits = 0;          ///< Quantized: 4 or 8
  bool symmetric = true; ///< Quantized: two's complement; else [0, 2^bits)
};

/// The kernel arguments (inputs, then results) of a column program; empty
/// for a row program.
llvm::Expected<std::vector<ColumnArgument>> columnArguments(const std::string &rkIR);

/// Evaluates a column program in double precision (docs/quantization.md's
/// rules; quantized tensors hold their logical integer values [K, N]).
llvm::Expected<std::vector<HostTensor>>
evaluateColumnProgram(const std::string &rkIR, const std::vector<HostTensor> &inputs);

/// `v` rounded to the nearest value of `dtype` (f32, bf16, f16; integers
/// are returned unchanged).
double roundTo(double v, const std::string &dtype);

} // namespace rkc

#endif
