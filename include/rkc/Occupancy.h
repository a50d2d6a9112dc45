//===- Occupancy.h - a compiled kernel's resources and CTAs per SM -*- C++ -*-===//
//
// What ptxas gave a kernel (read from the CUBIN NVRTC built, no GPU needed)
// and how many of its CTAs an SM holds by each of the limits: the numbers
// behind the planner's occupancy rules (min_blocks, CTA sizes), printed by
// `rkc compile --emit cubin --print-plan`.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_OCCUPANCY_H
#define RKC_OCCUPANCY_H

#include "rkc/Plan/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace rkc {

/// A kernel's resources as ptxas allocated them.
struct KernelResources {
  int registers = 0;       ///< per thread (EIATTR_REGCOUNT)
  int frameBytes = 0;      ///< local memory per thread: spills and local arrays
                           ///< (EIATTR_FRAME_SIZE; 0 for a kernel that spills nothing)
  int staticSmemBytes = 0; ///< the `__shared__` variables (.nv.shared.<kernel>)
};

/// The resources of `kernel` in an sm_80+ CUBIN (ELF64). An error names
/// what is missing; nothing is assumed.
llvm::Expected<KernelResources> cubinResources(llvm::ArrayRef<char> cubin,
                                               llvm::StringRef kernel);

/// CTAs of one kernel an SM holds, by each limit and in all.
struct Occupancy {
  int64_t byRegisters = 0, bySharedMemory = 0, byThreads = 0, byCtaSlots = 0;
  int64_t ctasPerSm = 0; ///< the least of the four
  int64_t warpsPerSm = 0;
  int64_t maxWarpsPerSm = 0;
};

/// Occupancy of CTAs of `ctaThreads` threads with `r` and `dynamicSmem`
/// bytes of dynamic shared memory on `t`, by Target::ctaLimits (registers
/// allocated 256 a warp, shared memory as Target::ctasBySharedMemory
/// counts it).
Occupancy occupancy(const plan::Target &t, int64_t ctaThreads, const KernelResources &r,
                    int64_t dynamicSmem);

} // namespace rkc

#endif
