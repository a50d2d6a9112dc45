//===- RkKernel.h - one kernel's rk IR, parsed for the host references -*- C++ -*-===//
//
// The host references (Reference.cpp for row programs, ColumnReference.cpp
// for column programs) read the rk IR that the compile result carries; this
// parses it in a context of its own and finds the kernel function.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_RUNTIME_RKKERNEL_H
#define RKC_RUNTIME_RKKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace rkc::detail {

struct RkKernel {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func; ///< the module's (first) kernel

  /// Parses `rkIR`; `what` names the program in the error ("row program").
  static llvm::Expected<std::unique_ptr<RkKernel>> parse(const std::string &rkIR,
                                                         llvm::StringRef what);
};

} // namespace rkc::detail

#endif
