//===- Pipeline.h - the rkc compile pipeline, defined once --------*- C++ -*-===//
//
// rk spec -> rk-specialize-shapes -> rk-decompose -> rk-fuse-reductions
//         -> rk-plan-tiers -> rk-lower-to-tier   (then tier-emit-cuda, NVRTC)
//
// Used by rk-opt (as the `rkc-pipeline` pass pipeline), the rkc driver and
// the JIT library.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_PIPELINE_H
#define RKC_PIPELINE_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <optional>
#include <string>
#include <vector>

namespace rkc {

struct PipelineOptions {
  std::vector<std::string> shapes; ///< NAME=D0xD1...
  std::string dtype;               ///< f32 | bf16 | f16 ("" for non-generic specs)
  std::string arch = "sm_90a";
  /// SMs of the device planned for (0: the arch's largest part, e.g. 132
  /// for sm_90; the JIT fills it from the current device).
  int sms = 0;
  /// DRAM bandwidth of the device planned for, in GB/s (0: unknown; the
  /// JIT fills it from the current device, as `sms`).
  int dramGBs = 0;
  std::string schedule;            ///< plan override ("" = heuristic)
  std::string streaming = "auto";  ///< online combiners: auto | always | never
};

/// Where the pipeline stops: after the row program is formed (`Rk`), or
/// after lowering to the tier dialect (`Tier`, ready for tier-emit-cuda).
enum class Stage { Rk, Tier };

/// Adds the passes after stage `from` (nullopt: from the spec) up to and
/// including stage `until`.
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options,
                   Stage until = Stage::Tier,
                   std::optional<Stage> from = std::nullopt);

/// Every dialect a spec or a lowered kernel may use (rk-opt, lit).
void registerDialects(mlir::DialectRegistry &registry);

/// The dialects a spec may use (rk, func, arith, math): what user text is
/// parsed with. The tier dialect is left out: specs never contain it, and
/// its ops' generated parsers hold their region in a local that is freed
/// when a later part of the op fails to parse, after the region's block
/// arguments may have resolved an earlier forward reference: MLIR 22's
/// parser then writes into the freed arguments while it discards the
/// partial module (a heap use-after-free on malformed input, found by
/// pipeline_fuzzer; docs/robustness.md). The passes that create tier ops
/// load it themselves (their dependent dialects).
void registerSpecDialects(mlir::DialectRegistry &registry);

/// Registers the passes and the `rkc-pipeline` pipeline with MLIR's pass
/// registry (for rk-opt).
void registerPassesAndPipeline();

} // namespace rkc

#endif
