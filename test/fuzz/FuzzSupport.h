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
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace rkc::fuzz {

/// With FUZZ_LAST_INPUTS=DIR, each input is written, before it runs, to
/// DIR/N for N = its number modulo 256, with system calls only: a run that
/// corrupts the heap can abort much later, inside libFuzzer's own crash
/// handler, before it saves anything (glibc's "malloc(): unaligned tcache
/// chunk detected" in a build without ASan); the last 256 inputs are still
/// in DIR, to replay one by one under valgrind or ASan.
inline void recordInput(const uint8_t *data, size_t size) {
  static const char *dir = std::getenv("FUZZ_LAST_INPUTS");
  static unsigned n = 0;
  if (!dir)
    return;
  char path[4096];
  if (std::snprintf(path, sizeof path, "%s/%03u", dir, n++ % 256) >= (int)sizeof path)
    return;
  int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return;
  while (size > 0) {
    ssize_t k = ::write(fd, data, size);
    if (k <= 0)
      break;
    data += k;
    size -= (size_t)k;
  }
  ::close(fd);
}

inline const mlir::DialectRegistry &registry() {
  static const mlir::DialectRegistry r = [] {
    mlir::DialectRegistry reg;
    rkc::registerSpecDialects(reg); // what user text is parsed with
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
  recordInput(data, size);
  std::string text(reinterpret_cast<const char *>(data), size);
  return mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&c.ctx));
}

} // namespace rkc::fuzz

#endif // RKC_TEST_FUZZ_FUZZSUPPORT_H
