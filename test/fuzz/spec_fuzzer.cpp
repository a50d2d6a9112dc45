// libFuzzer target: spec text -> parse + verify with every rkc dialect
// registered, then (for inputs that verify) the rkc pipeline with a shape
// request derived from the input, up to the tier dialect and CUDA text (no
// NVRTC). Any crash, hang or sanitizer report is a bug: rkc must turn every
// input into a diagnostic.
#include "rkc/Pipeline.h"
#include "rkc/Target/CudaEmitter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry registry = [] {
    mlir::DialectRegistry r;
    rkc::registerDialects(r);
    return r;
  }();
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  // The last byte picks the shape request for the pipeline stage.
  uint8_t knob = size ? data[size - 1] : 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&ctx));
  if (!module)
    return 0;
  rkc::PipelineOptions o;
  static const char *dtypes[] = {"f32", "bf16", "f16", ""};
  static const int64_t ns[] = {1, 3, 33, 256, 1000, 4096, 65536, 262144};
  o.dtype = dtypes[knob & 3];
  o.shapes = {"x=" + std::to_string(1 + (knob >> 5)) + "x" + std::to_string(ns[(knob >> 2) & 7])};
  o.arch = (knob & 0x80) ? "sm_80" : "sm_90a";
  mlir::PassManager pm(&ctx);
  rkc::buildPipeline(pm, o);
  if (mlir::failed(pm.run(*module)))
    return 0;
  std::string cuda;
  std::vector<rkc::KernelInfo> kernels;
  (void)rkc::emitCuda(*module, cuda, kernels);
  return 0;
}
