//===- Target.cpp - GPU architectures the planner knows -------------------===//

#include "rkc/Plan/Target.h"

#include <algorithm>

namespace rkc::plan {

std::optional<Target> lookupTarget(llvm::StringRef arch, int sms, int dramGBs) {
  Target t;
  t.arch = arch.str();
  t.numSms = std::clamp(sms, 0, kMaxSms);
  t.dramGBs = std::clamp(dramGBs, 0, kMaxDramGBs);
  if (arch == "sm_80" || arch == "sm_86" || arch == "sm_89") {
    t.smVersion = 80;
    t.maxCluster = t.portableCluster = 1;
    // A100 (8.0): 164 KiB of shared memory an SM, 163 a CTA; the 8.6 / 8.9
    // parts (A10, A40, L4, L40, RTX 30 / 40): 100 KiB an SM, 99 a CTA (CUDA
    // C++ Programming Guide, compute capabilities table). Planned with
    // 163, their cluster-less rows of 64k 16-bit values asked for 128 KiB,
    // which the launch refuses.
    t.maxSmemPerCta = arch == "sm_80" ? 163 * 1024 : 99 * 1024;
    if (arch != "sm_80") {
      t.maxThreadsPerSm = 1536;
      t.maxCtasPerSm = arch == "sm_86" ? 16 : 24;
    }
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

bool Target::fastMemory() const {
  return dramGBs >= (int64_t)kFastMemoryGBsPerSm * planSms(); // 0 (unknown): false
}

int64_t Target::CtaLimits::least() const {
  return std::min({byRegisters, bySharedMemory, byThreads, byCtaSlots});
}

Target::CtaLimits Target::ctaLimits(int64_t ctaThreads, int64_t regsPerThread,
                                    int64_t smemBytes) const {
  int64_t warps = std::max<int64_t>((ctaThreads + 31) / 32, 1);
  int64_t regsPerWarp = (std::max<int64_t>(regsPerThread, 1) * 32 + 255) / 256 * 256;
  CtaLimits l;
  l.byRegisters = regsPerSm / (regsPerWarp * warps);
  l.bySharedMemory = ctasBySharedMemory(smemBytes);
  l.byThreads = maxThreadsPerSm / (warps * 32);
  l.byCtaSlots = maxCtasPerSm;
  return l;
}

int64_t Target::residentCtas(int64_t cluster, int64_t ctasPerSm) const {
  int64_t k = std::max<int64_t>(ctasPerSm, 1);
  int64_t sms = planSms();
  if (cluster <= 2)
    return sms * k;
  // Measured on the H100 (132 SMs): resident CTAs for 1..4 CTAs per SM.
  static const int64_t h100[3][4] = {{120, 248, 368, 496},   // clusters of 4
                                     {120, 240, 360, 496},   // 8
                                     {112, 224, 336, 448}};  // 16
  int row = cluster <= 4 ? 0 : cluster <= 8 ? 1 : 2;
  int64_t perK = k <= 4 ? h100[row][k - 1] : h100[row][3] * k / 4;
  // (At least one: the planners divide by it; a part with fewer SMs than
  // a cluster's CTAs, a small MIG slice, holds none, which the launch
  // reports.)
  return sms == 132 ? perK : std::max<int64_t>(1, perK * sms / 132);
}

std::string checkSms(int sms) {
  if (sms >= 0 && sms <= kMaxSms)
    return "";
  return "sms must be 0 (the arch's largest part) or 1.." + std::to_string(kMaxSms) +
         ", got " + std::to_string(sms);
}

std::string checkDramGBs(int gbs) {
  if (gbs >= 0 && gbs <= kMaxDramGBs)
    return "";
  return "dram-gbs must be 0 (unknown) or the device's DRAM bandwidth in GB/s, 1.." +
         std::to_string(kMaxDramGBs) + ", got " + std::to_string(gbs);
}

const char *supportedArchs() { return "sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a"; }

} // namespace rkc::plan
