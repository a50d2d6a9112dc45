//===- CAPI.cpp - the C API over rkc::Kernel ------------------------------===//

#include "rkc-c/rkc.h"
#include "rkc/Jit.h"
#include "rkc/Tuning.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <mutex>
#include <string>

struct rkc_kernel_s {
  std::shared_ptr<rkc::Kernel> kernel; ///< shared by all handles of a request
  unsigned flags = 0;                  ///< this handle's RKC_LAUNCH_* flags
  std::once_flag remarksOnce;          ///< rkcKernelRemarks joins them once
  std::string remarks;                 ///< "plan: ..." lines (rkcKernelRemarks)
};

static_assert(RKC_LAUNCH_PDL == rkc::kLaunchPdl, "C and C++ launch flags differ");

namespace {
thread_local std::string lastError;

rkc_status fail(rkc_status s, std::string msg) {
  lastError = std::move(msg);
  return s;
}

bool valid(rkc_kernel k, int index = 0) {
  return k && k->kernel && index >= 0 &&
         index < (int)k->kernel->info().args.size();
}
} // namespace

extern "C" {

const char *rkcGetLastError(void) { return lastError.c_str(); }
const char *rkcVersion(void) { return RKC_VERSION; }

rkc_status rkcKernelCompile(const char *spec, const char *name, const char *shapes,
                            const char *dtype, const char *arch,
                            const char *schedule, rkc_kernel *out) {
  if (!out)
    return fail(RKC_ERROR_INVALID_ARGUMENT, "rkcKernelCompile: out is NULL");
  *out = nullptr;
  if (!spec)
    return fail(RKC_ERROR_INVALID_ARGUMENT, "rkcKernelCompile: spec_text is NULL");
  rkc::CompileRequest req;
  req.specText = spec;
  req.specName = name && *name ? name : "<spec>";
  if (shapes) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(shapes).split(parts, ';', -1, false);
    for (llvm::StringRef p : parts)
      req.options.shapes.push_back(p.trim().str());
  }
  req.options.dtype = dtype ? dtype : "";
  req.options.arch = arch ? arch : "";
  req.options.schedule = schedule ? schedule : "";
  auto k = rkc::getTuned(req);
  if (!k)
    return fail(RKC_ERROR_COMPILE, llvm::toString(k.takeError()));
  *out = new rkc_kernel_s{*k};
  lastError.clear();
  return RKC_OK;
}

void rkcKernelDestroy(rkc_kernel k) { delete k; }

int rkcKernelNumArgs(rkc_kernel k) {
  return k && k->kernel ? (int)k->kernel->info().args.size() : -1;
}
const char *rkcKernelArgName(rkc_kernel k, int i) {
  return valid(k, i) ? k->kernel->info().args[i].name.c_str() : nullptr;
}
const char *rkcKernelArgDtype(rkc_kernel k, int i) {
  return valid(k, i) ? k->kernel->info().args[i].dtype.c_str() : nullptr;
}
int rkcKernelArgRank(rkc_kernel k, int i) {
  return valid(k, i) ? (int)k->kernel->info().args[i].shape.size() : -1;
}
int64_t rkcKernelArgDim(rkc_kernel k, int i, int d) {
  if (!valid(k, i) || d < 0 || d >= (int)k->kernel->info().args[i].shape.size())
    return -1;
  return k->kernel->info().args[i].shape[d];
}
int rkcKernelArgIsOutput(rkc_kernel k, int i) {
  return valid(k, i) ? (int)k->kernel->info().args[i].output : -1;
}
const char *rkcKernelPlan(rkc_kernel k) {
  return k && k->kernel ? k->kernel->info().plan.c_str() : nullptr;
}
const char *rkcKernelRemarks(rkc_kernel k) {
  if (!k || !k->kernel)
    return nullptr;
  // Joined on first use: rkcKernelCompile's in-process hits stay lookups.
  std::call_once(k->remarksOnce, [k] {
    for (const std::string &r : k->kernel->result().remarks)
      k->remarks += (llvm::StringRef(r).starts_with("plan: ") ? "" : "plan: ") + r + "\n";
  });
  return k->remarks.c_str();
}
const char *rkcKernelCuda(rkc_kernel k) {
  return k && k->kernel ? k->kernel->result().cuda.c_str() : nullptr;
}
const char *rkcKernelPtx(rkc_kernel k) {
  return k && k->kernel ? k->kernel->result().ptx.c_str() : nullptr;
}
int rkcKernelVectorWidth(rkc_kernel k) {
  return k && k->kernel ? (int)k->kernel->info().vector : -1;
}

rkc_status rkcKernelSetLaunchFlags(rkc_kernel k, unsigned flags) {
  if (!k || !k->kernel)
    return fail(RKC_ERROR_INVALID_ARGUMENT, "rkcKernelSetLaunchFlags: invalid kernel handle");
  if (flags & ~(unsigned)RKC_LAUNCH_PDL)
    return fail(RKC_ERROR_INVALID_ARGUMENT,
                "rkcKernelSetLaunchFlags: unknown flags 0x" +
                    llvm::utohexstr(flags & ~(unsigned)RKC_LAUNCH_PDL) +
                    " (known: RKC_LAUNCH_PDL = 0x1)");
  k->flags = flags;
  return RKC_OK;
}

unsigned rkcKernelLaunchFlags(rkc_kernel k) { return k ? k->flags : 0u; }

rkc_status rkcKernelLaunch(rkc_kernel k, void *const *ptrs, const int64_t *strides,
                           int64_t rows, void *stream) {
  if (!k || !k->kernel)
    return fail(RKC_ERROR_INVALID_ARGUMENT, "rkcKernelLaunch: invalid kernel handle");
  if (!ptrs)
    return fail(RKC_ERROR_INVALID_ARGUMENT, "rkcKernelLaunch: ptrs is NULL");
  llvm::Error e = k->kernel->launch(ptrs, strides, rows, stream, k->flags);
  if (e) {
    std::string msg = llvm::toString(std::move(e));
    rkc_status s = msg.rfind("no CUDA driver", 0) == 0 ? RKC_ERROR_NO_DRIVER
                   : msg.find("CUDA error") != std::string::npos ? RKC_ERROR_CUDA
                                                                 : RKC_ERROR_INVALID_ARGUMENT;
    return fail(s, msg);
  }
  return RKC_OK;
}

} // extern "C"
