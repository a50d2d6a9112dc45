//===- EmitCudaPass.cpp - the tier-emit-cuda pass -------------------------===//

#include "rkc/Target/CudaEmitter.h"
#include "rkc/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "tier-emit-cuda"

namespace rkc {
#define GEN_PASS_DEF_TIEREMITCUDAPASS
#include "rkc/Transforms/Passes.h.inc"
} // namespace rkc

using namespace mlir;

namespace {
struct TierEmitCuda : public ::rkc::impl::TierEmitCudaPassBase<TierEmitCuda> {
  using Base::Base;
  void runOnOperation() override {
    std::string source;
    std::vector<::rkc::KernelInfo> kernels;
    if (failed(::rkc::emitCuda(getOperation(), source, kernels)))
      return signalPassFailure();
    getOperation()->setAttr("tier.cuda_source",
                            StringAttr::get(&getContext(), source));
    if (print)
      llvm::outs() << source;
  }
};
} // namespace
