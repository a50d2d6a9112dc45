//===- Pipeline.cpp - the one definition of the rkc pipeline --------------===//

#include "rkc/Pipeline.h"
#include "rkc/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void rkc::buildPipeline(OpPassManager &pm, const PipelineOptions &o, Stage until,
                        std::optional<Stage> from) {
  if (!from) {
    ::rkc::RkSpecializeShapesPassOptions spec;
    spec.shapes.assign(o.shapes.begin(), o.shapes.end());
    spec.dtype = o.dtype;
    pm.addPass(::rkc::createRkSpecializeShapesPass(spec));
    OpPassManager &fpm = pm.nest<func::FuncOp>();
    fpm.addPass(::rkc::createRkDecomposePass());
    fpm.addPass(createCSEPass());
    ::rkc::RkFuseReductionsPassOptions fuse;
    fuse.streaming = o.streaming;
    fuse.arch = o.arch;
    fuse.sms = o.sms;
    fuse.schedule = o.schedule;
    fpm.addPass(::rkc::createRkFuseReductionsPass(fuse));
  }
  if (until == Stage::Rk)
    return;
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  ::rkc::RkPlanTiersPassOptions plan;
  plan.arch = o.arch;
  plan.sms = o.sms;
  plan.dramGBs = o.dramGBs;
  plan.schedule = o.schedule;
  fpm.addPass(::rkc::createRkPlanTiersPass(plan));
  fpm.addPass(::rkc::createRkLowerToTierPass());
}

void rkc::registerSpecDialects(DialectRegistry &registry) {
  registry.insert<mlir::rk::RkDialect, func::FuncDialect, arith::ArithDialect, math::MathDialect>();
}

void rkc::registerDialects(DialectRegistry &registry) {
  registerSpecDialects(registry);
  registry.insert<mlir::tier::TierDialect>();
}

namespace {
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  ListOption<std::string> shapes{*this, "shapes", llvm::cl::desc("NAME=D0xD1...")};
  Option<std::string> dtype{*this, "dtype", llvm::cl::desc("f32, bf16 or f16")};
  Option<std::string> arch{*this, "arch", llvm::cl::desc("target arch"),
                           llvm::cl::init("sm_90a")};
  Option<int> sms{*this, "sms", llvm::cl::desc("SMs of the device (0: the arch's largest part)"),
                  llvm::cl::init(0)};
  Option<int> dramGBs{*this, "dram-gbs",
                      llvm::cl::desc("DRAM bandwidth of the device in GB/s (0: unknown)"),
                      llvm::cl::init(0)};
  Option<std::string> schedule{*this, "schedule", llvm::cl::desc("plan override")};
  Option<std::string> streaming{*this, "streaming", llvm::cl::desc("auto|always|never"),
                                llvm::cl::init("auto")};
};
} // namespace

void rkc::registerPassesAndPipeline() {
  ::rkc::registerRkcPasses();
  PassPipelineRegistration<PipelineCLOptions>(
      "rkc-pipeline", "The rkc pipeline from an rk spec to tier IR",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        PipelineOptions o;
        o.shapes.assign(cl.shapes.begin(), cl.shapes.end());
        o.dtype = cl.dtype;
        o.arch = cl.arch;
        o.sms = cl.sms;
        o.dramGBs = cl.dramGBs;
        o.schedule = cl.schedule;
        o.streaming = cl.streaming;
        buildPipeline(pm, o);
      });
}
