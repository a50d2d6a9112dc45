//===- PlanTiers.cpp - attach the planner's decisions to a kernel ---------===//
//
// The decisions themselves live in lib/Plan (RowPlan.cpp); this pass only
// summarises the program, asks the planner, reports each decision as a
// remark and records it as tier.layout / tier.schedule attributes.
//
//===----------------------------------------------------------------------===//

#include "rkc/Transforms/Passes.h"
#include "rkc/Plan/ColumnAnalysis.h"
#include "rkc/Plan/RowAnalysis.h"

#define DEBUG_TYPE "rk-plan-tiers"

namespace rkc {
#define GEN_PASS_DEF_RKPLANTIERSPASS
#include "rkc/Transforms/Passes.h.inc"
} // namespace rkc

using namespace mlir;

namespace {

static tier::Level toLevel(::rkc::plan::Level l) {
  switch (l) {
  case ::rkc::plan::Level::Thread: return tier::Level::thread;
  case ::rkc::plan::Level::Warp: return tier::Level::warp;
  case ::rkc::plan::Level::Block: return tier::Level::block;
  case ::rkc::plan::Level::Cluster: return tier::Level::cluster;
  case ::rkc::plan::Level::Grid: return tier::Level::grid;
  }
  return tier::Level::thread;
}

static tier::Staging toStaging(::rkc::plan::Staging s) {
  switch (s) {
  case ::rkc::plan::Staging::Registers: return tier::Staging::registers;
  case ::rkc::plan::Staging::Smem: return tier::Staging::smem;
  case ::rkc::plan::Staging::Stream: return tier::Staging::stream;
  case ::rkc::plan::Staging::Async: return tier::Staging::async;
  }
  return tier::Staging::registers;
}

struct PlanTiers : public ::rkc::impl::RkPlanTiersPassBase<PlanTiers> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (std::string bad = ::rkc::plan::checkSms(sms); !bad.empty()) {
      func.emitError() << bad;
      return signalPassFailure();
    }
    if (std::string bad = ::rkc::plan::checkDramGBs(dramGBs); !bad.empty()) {
      func.emitError() << bad;
      return signalPassFailure();
    }
    auto target = ::rkc::plan::lookupTarget(arch, sms, dramGBs);
    if (!target) {
      func.emitError() << "unsupported arch '" << arch << "' (supported: "
                       << ::rkc::plan::supportedArchs() << ")";
      return signalPassFailure();
    }
    auto ovr = ::rkc::plan::parseOverride(schedule);
    if (!ovr) {
      func.emitError() << llvm::toString(ovr.takeError());
      return signalPassFailure();
    }
    if (::rkc::isColumnProgram(func))
      return planColumns(func, *target, *ovr);
    auto problem = ::rkc::analyzeRowProgram(func);
    if (failed(problem))
      return signalPassFailure();
    SmallVector<std::string> remarks;
    auto planned = ::rkc::plan::planRow(*problem, *target, *ovr, &remarks);
    auto plan = report(func, *target, std::move(planned), remarks);
    if (!plan)
      return;
    MLIRContext *ctx = &getContext();
    func->setAttr(tier::kLayoutAttr,
                  tier::TvLayoutAttr::get(ctx, plan->threads, plan->values,
                                          plan->vector, plan->rows));
    func->setAttr(tier::kScheduleAttr,
                  tier::ScheduleAttr::get(ctx, toLevel(plan->reduceLevel()),
                                          plan->cluster, toStaging(plan->staging),
                                          plan->unroll, plan->minBlocks,
                                          plan->prefetch, plan->keep, plan->split,
                                          plan->evictLast));
  }

  /// Reports a planner's remarks (or its error, failing the pass) on `func`
  /// and records the arch; nullopt when planning failed.
  template <class Plan>
  std::optional<Plan> report(func::FuncOp func, const ::rkc::plan::Target &target,
                             llvm::Expected<Plan> plan,
                             ArrayRef<std::string> remarks) {
    if (!plan) {
      func.emitError() << llvm::toString(plan.takeError());
      signalPassFailure();
      return std::nullopt;
    }
    if (sms > 0)
      func.emitRemark() << "plan: for a device of " << (int)sms << " SMs";
    if (dramGBs > 0)
      func.emitRemark() << "plan: for a device of " << (int)dramGBs << " GB/s"
                        << (target.fastMemory() ? " (fast memory per SM)" : "");
    for (const std::string &r : remarks)
      func.emitRemark() << "plan: " << r;
    func->setAttr(tier::kArchAttr, StringAttr::get(&getContext(), arch));
    return std::move(*plan);
  }

  /// Column (K-split) kernels: rk.gemv, rk.quantize / rk.dequantize along K.
  void planColumns(func::FuncOp func, const ::rkc::plan::Target &target,
                   const ::rkc::plan::PlanOverride &ovr) {
    auto problem = ::rkc::analyzeColumnProgram(func);
    if (failed(problem))
      return signalPassFailure();
    SmallVector<std::string> remarks;
    auto planned = ::rkc::plan::planKSplit(*problem, target, ovr, &remarks);
    auto plan = report(func, target, std::move(planned), remarks);
    if (!plan)
      return;
    MLIRContext *ctx = &getContext();
    func->setAttr(tier::kLayoutAttr,
                  tier::KSplitLayoutAttr::get(ctx, problem->rows, plan->cols,
                                              plan->warps, plan->cluster,
                                              plan->unroll, plan->mma,
                                              plan->kWarps() != plan->warps ? plan->kwarps
                                                                            : 0,
                                              plan->globalActs));
  }
};

} // namespace
