//===- Target.h - what the planner knows about a GPU architecture -*- C++ -*-===//
#ifndef RKC_PLAN_TARGET_H
#define RKC_PLAN_TARGET_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace rkc::plan {

/// The resources of one GPU architecture that the cost model uses.
/// Values are per SM / per CTA limits from the CUDA programming guide.
struct Target {
  std::string arch;          ///< NVRTC name: sm_80, sm_90, sm_90a, sm_100a
  int smVersion = 0;         ///< 80, 90, 100
  int maxCluster = 1;        ///< CTAs per cluster (1: no clusters)
  int portableCluster = 1;   ///< largest cluster size without opt-in
  int maxThreadsPerCta = 1024;
  int maxSmemPerCta = 48 * 1024;   ///< bytes usable with opt-in
  int regsPerSm = 65536;
  int maxRegsPerThread = 255;
  int maxThreadsPerSm = 2048; ///< 1536 on sm_86 / sm_89
  int maxCtasPerSm = 32;      ///< 16 on sm_86, 24 on sm_89
  int numSms = 0;            ///< 0: unknown at plan time (compile-only)
  /// DRAM bandwidth of the device in GB/s (0: unknown, compile-only; the
  /// JIT reads it from the driver: memory clock x bus width).
  int dramGBs = 0;

  /// SMs the planners assume: numSms, else the arch's largest part (A100
  /// 108, H100 132, B200 148), so that "one wave" means the same to the
  /// row and the column planner.
  int64_t planSms() const {
    if (numSms > 0)
      return numSms;
    return smVersion >= 100 ? 148 : smVersion >= 90 ? 132 : 108;
  }

  bool hasClusters() const { return maxCluster > 1; }

  /// Whether DRAM delivers at least kFastMemoryGBsPerSm per SM (the H200:
  /// 4.9 TB/s over 132 SMs, 37 GB/s; the H100 SXM 3.35 TB/s, 25 GB/s):
  /// such parts need more bytes in flight per SM (Little's law), and some
  /// row layouts measured differently there (docs/planner.md, rule 3).
  /// False when the bandwidth is unknown: plans are the H100's.
  bool fastMemory() const;

  /// CTAs that can be resident at once in clusters of `cluster` CTAs when
  /// an SM holds `ctasPerSm` of them: a cluster's CTAs share one GPC, so
  /// clusters of 4 or more leave some SMs' slots unused. On the H100 SXM
  /// (132 SMs, cudaOccupancyMaxActiveClusters,
  /// bench/results/2026-11-25-h100-cluster-residency.txt) clusters of 4
  /// and 8 hold 120 CTAs at one per SM, 16 hold 112; other parts are
  /// scaled from it.
  int64_t residentCtas(int64_t cluster, int64_t ctasPerSm) const;

  /// CTAs an SM holds by shared memory when each takes `bytesPerCta`: an
  /// SM has maxSmemPerCta + 1 KiB, and the system reserves 1 KiB a CTA.
  int64_t ctasBySharedMemory(int64_t bytesPerCta) const {
    return (maxSmemPerCta + kReservedSmemPerCta) / (bytesPerCta + kReservedSmemPerCta);
  }
  static constexpr int64_t kReservedSmemPerCta = 1024;

  /// CTAs of one kernel an SM holds, by each limit.
  struct CtaLimits {
    int64_t byRegisters = 0, bySharedMemory = 0, byThreads = 0, byCtaSlots = 0;
    int64_t least() const;
  };
  /// The limits for CTAs of `ctaThreads` threads at `regsPerThread`
  /// registers (allocated 256 a warp) and `smemBytes` of shared memory a
  /// CTA (ctasBySharedMemory): the planner's estimates and the compiled
  /// kernel's occupancy (rkc/Occupancy.h) count alike.
  CtaLimits ctaLimits(int64_t ctaThreads, int64_t regsPerThread, int64_t smemBytes) const;
};

/// The most SMs a target may be given (a bound on user input, far above
/// any part).
constexpr int kMaxSms = 1024;

/// DRAM bandwidth per SM, in GB/s, from which Target::fastMemory holds.
constexpr int kFastMemoryGBsPerSm = 32;

/// The most DRAM bandwidth a target may be given, in GB/s (a bound on
/// user input).
constexpr int kMaxDramGBs = 1000000;

/// "" if `gbs` is a valid DRAM bandwidth to plan for (0: unknown, or
/// 1..kMaxDramGBs GB/s), else the error message (the passes' `dram-gbs`).
std::string checkDramGBs(int gbs);

/// "" if `sms` is a valid SM count to plan for (0: the arch's largest
/// part, or 1..kMaxSms), else the error message (the passes' `sms` option).
std::string checkSms(int sms);

/// The target for an architecture name planned for `sms` SMs (0: the arch's
/// largest part, Target::planSms), or nullopt if the arch is unsupported.
/// `sms` must be in [0, kMaxSms] (the passes check it); `dramGBs` is the
/// device's DRAM bandwidth (0: unknown), in [0, kMaxDramGBs].
std::optional<Target> lookupTarget(llvm::StringRef arch, int sms = 0, int dramGBs = 0);

/// Comma-separated list of supported architectures, for error messages.
const char *supportedArchs();

} // namespace rkc::plan

#endif // RKC_PLAN_TARGET_H
