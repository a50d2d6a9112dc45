//===- Target.cpp - GPU architectures the planner knows -------------------===//

#include "rkc/Plan/Target.h"

namespace rkc::plan {

std::optional<Target> lookupTarget(llvm::StringRef arch) {
  Target t;
  t.arch = arch.str();
  if (arch == "sm_80" || arch == "sm_86" || arch == "sm_89") {
    t.smVersion = 80;
    t.maxCluster = t.portableCluster = 1;
    t.maxSmemPerCta = 163 * 1024;
    return t;
  }
  if (arch == "sm_90" || arch == "sm_90a") {
    t.smVersion = 90;
    t.maxCluster = 16; // non-portable sizes above 8 need an opt-in attribute
    t.portableCluster = 8;
    t.maxSmemPerCta = 227 * 1024;
    return t;
  }
  if (arch == "sm_100a") {
    t.smVersion = 100;
    t.maxCluster = 16;
    t.portableCluster = 8;
    t.maxSmemPerCta = 227 * 1024;
    return t;
  }
  return std::nullopt;
}

const char *supportedArchs() { return "sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a"; }

} // namespace rkc::plan
