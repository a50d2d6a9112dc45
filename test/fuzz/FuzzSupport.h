//===- FuzzSupport.h - shared setup of the libFuzzer targets ----*- C++ -*-===//
//
// Both targets parse the input as an rk spec in a fresh single-threaded
// context with every rkc dialect registered and all diagnostics swallowed
// (an input may be anything; rkc must answer it with a diagnostic, never a
// crash, hang, leak or sanitizer report).
//
//===----------------------------------------------------------------------===//
#ifndef RKC_TEST_FUZZ_FUZZSUPPORT_H
#define RKC_TEST_FUZZ_FUZZSUPPORT_H

#include "rkc/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace rkc::fuzz {

inline const mlir::DialectRegistry &registry() {
  static const mlir::DialectRegistry r = [] {
    mlir::DialectRegistry reg;
    rkc::registerDialects(reg);
    return reg;
  }();
  return r;
}

/// A context for one input: single-threaded, every dialect loaded, quiet.
struct Context {
  mlir::MLIRContext ctx{registry(), mlir::MLIRContext::Threading::DISABLED};
  mlir::ScopedDiagnosticHandler quiet{&ctx, [](mlir::Diagnostic &) { return mlir::success(); }};
  Context() {
    ctx.loadAllAvailableDialects();
    ctx.printOpOnDiagnostic(false);
  }
};

/// Parses (and verifies) `size` bytes of `data` as a module.
inline mlir::OwningOpRef<mlir::ModuleOp> parse(Context &c, const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  return mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&c.ctx));
}

} // namespace rkc::fuzz

#endif // RKC_TEST_FUZZ_FUZZSUPPORT_H
