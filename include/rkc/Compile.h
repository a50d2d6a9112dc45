//===- Compile.h - spec text to CUDA, PTX and CUBIN ---------------*- C++ -*-===//
//
// The whole compile path of one request, shared by the rkc driver and the
// JIT library: parse + verify the spec, run the pipeline (Pipeline.h), emit
// CUDA (tier-emit-cuda), then NVRTC to PTX and CUBIN. Every failure comes
// back as a message with the spec location ("spec.mlir:3:8: error: ...").
//
//===----------------------------------------------------------------------===//
#ifndef RKC_COMPILE_H
#define RKC_COMPILE_H

#include "rkc/Pipeline.h"
#include "rkc/Plan/KSplitPlan.h"
#include "rkc/Plan/RowPlan.h"
#include "rkc/Target/CudaEmitter.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace rkc {

/// How far a compile goes.
enum class Emit { Rk, Tier, Cuda, Ptx, Cubin };

struct CompileRequest {
  std::string specText;
  std::string specName = "<spec>";  ///< file name used in diagnostics
  PipelineOptions options;
  Emit upTo = Emit::Cubin;
};

struct CompileResult {
  std::string rkIR;                 ///< the row program (after fusion)
  std::string tierIR;               ///< after rk-lower-to-tier
  std::string cuda;
  std::string ptx;
  std::vector<char> cubin;
  std::vector<KernelInfo> kernels;
  std::vector<std::string> remarks; ///< plan decisions
  std::vector<std::string> warnings; ///< "file:line:col: warning: ..." (a --dtype a spec ignores)
  std::optional<plan::RowProblem> problem; ///< what the planner saw (row program)
  std::optional<plan::KSplitProblem> columnProblem; ///< ... (column program)
  std::string nvrtcLog;
};

llvm::Expected<CompileResult> compile(const CompileRequest &request);

/// A 32-hex-digit hash of the spec's meaning rather than its text: the
/// module parsed and printed back (no comments, no locations, canonical
/// attribute spelling), so that two spellings of one spec (e.g.
/// `eps = 1.0e-6` and `eps = 1.0e-06`, or different comments) share tuning
/// database rows. A text that does not parse hashes as itself. Memoized and
/// thread-safe.
std::string specSignature(llvm::StringRef specText);

/// NVRTC's version as "major.minor", or an error if it cannot be loaded.
llvm::Expected<std::string> nvrtcVersion();

/// SHA-256 of the embedded device templates (part of every cache key).
const char *templateHash();

} // namespace rkc

#endif
