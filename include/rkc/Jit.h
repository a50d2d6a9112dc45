//===- Jit.h - compile and launch rkc kernels at run time ---------*- C++ -*-===//
#ifndef RKC_JIT_H
#define RKC_JIT_H

#include "rkc/Compile.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <map>
#include <mutex>
#include <unordered_map>

namespace rkc {

/// Launch flag: programmatic dependent launch (sm_90+; ignored before).
/// The kernel may start while the previous kernel of the stream finishes:
/// it waits for that kernel before reading or writing anything it may
/// write, except a GEMV's quantized weights, scales and zero points, which
/// it starts loading at once (they must not be written by the previous
/// kernel). See docs/runtime.md.
constexpr unsigned kLaunchPdl = 1u;

/// Requests the in-process caches hold (Kernel::get's and getTuned's):
/// past it, the finished entries are dropped (kernels in use stay alive
/// through their handles; a dropped request is compiled again, or read
/// from the disk cache, when next asked). About 25 KiB a kernel.
constexpr size_t kMaxCachedKernels = 2048;

/// A compiled kernel: the compile result plus, per CUDA context, the loaded
/// module. Thread-safe; shared between all users of the same request.
class Kernel {
public:
  /// Compiles (or finds in the in-process cache) the request. An empty
  /// `options.arch` means: the current device's architecture, else sm_90a.
  static llvm::Expected<std::shared_ptr<Kernel>> get(CompileRequest request);

  const KernelInfo &info() const { return result_.kernels.front(); }
  const CompileResult &result() const { return result_; }

  /// Launches on `stream` (a CUstream; null = the legacy default stream).
  /// `ptrs` holds one device pointer per argument (inputs, then outputs);
  /// `strides` one row stride in elements per argument (null: contiguous);
  /// `rows` is M. `flags`: kLaunch* bits.
  llvm::Error launch(void *const *ptrs, const int64_t *strides, int64_t rows,
                     void *stream, unsigned flags = 0);

private:
  explicit Kernel(CompileResult r);

  /// The kernel loaded in one context (once, at its first launch there).
  struct Loaded {
    void *context = nullptr;  ///< CUcontext
    void *function = nullptr; ///< CUfunction
    /// The grid tier (KernelInfo::split > 1): whether the device launches
    /// cooperatively, and how many CTAs of the kernel are resident at once.
    bool cooperative = false;
    int64_t residentCtas = 0;
  };
  llvm::Expected<Loaded> function();

  /// The grid tier: the zeroed workspace of launches on `stream` in `l`'s
  /// context (one per context and stream, so that launches that may run at
  /// once never share one; kept for the process's lifetime), `bytes` long.
  llvm::Expected<void *> workspace(const Loaded &l, void *stream, size_t bytes);

  CompileResult result_;
  bool pdlCapable_ = false; ///< the kernel's arch has PDL (sm_90+)
  std::mutex mu_;
  std::unordered_map<void *, Loaded> functions_; // CUcontext -> the kernel there
  std::map<std::pair<void *, void *>, void *> workspaces_; // (CUcontext, CUstream) -> workspace
};

/// Fills an empty `request.options.arch` with the current GPU's
/// architecture; without a GPU, with `fallback` if given, else an error.
/// Then, when `options.sms` is 0 and a context is current in this thread on
/// a device of that architecture, sets it to the device's SM count (the
/// planners size grids, splits and waves by it); likewise a 0
/// `options.dramGBs` to the device's DRAM bandwidth (some row rules
/// depend on bandwidth per SM).
llvm::Error resolveArch(CompileRequest &request, const char *fallback = nullptr);

/// Cache key of a request: a hash of everything that changes the binary.
std::string cacheKey(const CompileRequest &request);

} // namespace rkc

#endif
