//===- CudaDriver.cpp - libcuda.so.1 through dlopen -----------------------===//

#include "CudaDriver.h"
#include "rkc/Plan/Target.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace rkc::cuda;

namespace {
struct Loaded {
  Driver d{};
  std::string error;
};

const Loaded &load() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *name = std::getenv("RKC_CUDA_DRIVER_LIBRARY");
    void *h = dlopen(name ? name : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      l.error = "no CUDA driver: cannot load libcuda.so.1 (this machine has no "
                "NVIDIA driver; compiling to PTX/CUBIN still works)";
      return;
    }
    auto sym = [&](auto &fn, const char *s) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, s));
      if (!fn && l.error.empty())
        l.error = std::string("no CUDA driver: libcuda.so.1 lacks ") + s;
    };
    Driver &d = l.d;
    sym(d.init, "cuInit");
    sym(d.deviceGet, "cuDeviceGet");
    sym(d.deviceGetAttribute, "cuDeviceGetAttribute");
    sym(d.deviceGetName, "cuDeviceGetName");
    sym(d.driverGetVersion, "cuDriverGetVersion");
    sym(d.ctxGetCurrent, "cuCtxGetCurrent");
    sym(d.ctxSetCurrent, "cuCtxSetCurrent");
    sym(d.ctxGetDevice, "cuCtxGetDevice");
    sym(d.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(d.moduleLoadData, "cuModuleLoadData");
    sym(d.moduleUnload, "cuModuleUnload");
    sym(d.moduleGetFunction, "cuModuleGetFunction");
    sym(d.funcSetAttribute, "cuFuncSetAttribute");
    sym(d.launchKernel, "cuLaunchKernel");
    sym(d.getErrorString, "cuGetErrorString");
    sym(d.occupancyMaxActiveBlocksPerMultiprocessor,
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    sym(d.streamIsCapturing, "cuStreamIsCapturing");
    d.launchKernelEx = reinterpret_cast<decltype(d.launchKernelEx)>(
        dlsym(h, "cuLaunchKernelEx")); // optional
    sym(d.memAlloc, "cuMemAlloc_v2");
    sym(d.memFree, "cuMemFree_v2");
    sym(d.memcpyHtoD, "cuMemcpyHtoD_v2");
    sym(d.memcpyDtoH, "cuMemcpyDtoH_v2");
    sym(d.memsetD8, "cuMemsetD8_v2");
    sym(d.memcpyDtoD, "cuMemcpyDtoD_v2");
    sym(d.ctxSynchronize, "cuCtxSynchronize");
    sym(d.memGetInfo, "cuMemGetInfo_v2");
    sym(d.streamCreate, "cuStreamCreate");
    sym(d.streamDestroy, "cuStreamDestroy_v2");
    sym(d.eventCreate, "cuEventCreate");
    sym(d.eventDestroy, "cuEventDestroy_v2");
    sym(d.eventRecord, "cuEventRecord");
    sym(d.eventSynchronize, "cuEventSynchronize");
    sym(d.eventElapsedTime, "cuEventElapsedTime_v2");
    if (!l.error.empty())
      return;
    CUresult r = d.init(0);
    if (r != CUDA_SUCCESS)
      l.error = r == 34 /*CUDA_ERROR_STUB_LIBRARY*/
                    ? "no CUDA driver: libcuda.so.1 is the toolkit's stub library"
                    : "no CUDA driver: cuInit failed (" + describe(d, r, "cuInit") + ")";
  });
  return l;
}
} // namespace

llvm::Expected<const Driver *> rkc::cuda::driver() {
  const Loaded &l = load();
  if (!l.error.empty())
    return llvm::createStringError(l.error);
  return &l.d;
}

std::string rkc::cuda::describe(const Driver &d, CUresult r, const char *what) {
  const char *s = nullptr;
  if (d.getErrorString)
    d.getErrorString(r, &s);
  return std::string(what) + " failed: CUDA error " + std::to_string((int)r) +
         (s ? std::string(" (") + s + ")" : "");
}

llvm::Expected<CUcontext> rkc::cuda::currentContext() {
  auto d = driver();
  if (!d)
    return d.takeError();
  CUcontext ctx = nullptr;
  (*d)->ctxGetCurrent(&ctx);
  if (ctx)
    return ctx;
  CUdevice dev;
  CUresult r = (*d)->deviceGet(&dev, 0);
  if (r != CUDA_SUCCESS)
    return llvm::createStringError(describe(**d, r, "cuDeviceGet (no GPU?)"));
  r = (*d)->primaryCtxRetain(&ctx, dev);
  if (r == CUDA_SUCCESS)
    r = (*d)->ctxSetCurrent(ctx);
  if (r != CUDA_SUCCESS)
    return llvm::createStringError(describe(**d, r, "creating a context"));
  return ctx;
}

llvm::Expected<std::string> rkc::cuda::currentArch() {
  auto ctx = currentContext();
  if (!ctx)
    return ctx.takeError();
  CurrentDevice dev = currentDevice();
  int major = dev.major, minor = dev.minor;
  if (major == 9 && minor == 0)
    return std::string("sm_90a");
  if (major == 10 && minor == 0)
    return std::string("sm_100a");
  if (major == 8)
    return "sm_8" + std::to_string(minor);
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

rkc::cuda::CurrentDevice rkc::cuda::currentDevice() {
  static std::mutex mu;
  static std::map<int, CurrentDevice> memo;
  auto d = driver();
  if (!d) {
    llvm::consumeError(d.takeError());
    return {};
  }
  CUcontext ctx = nullptr;
  CUdevice dev = 0;
  if ((*d)->ctxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx ||
      (*d)->ctxGetDevice(&dev) != CUDA_SUCCESS)
    return {};
  std::lock_guard<std::mutex> lock(mu);
  auto it = memo.find((int)dev);
  if (it != memo.end())
    return it->second;
  CurrentDevice c;
  if ((*d)->deviceGetAttribute(&c.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) !=
          CUDA_SUCCESS ||
      (*d)->deviceGetAttribute(&c.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
          CUDA_SUCCESS ||
      (*d)->deviceGetAttribute(&c.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) !=
          CUDA_SUCCESS ||
      (*d)->deviceGetAttribute(&c.cooperative, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev) !=
          CUDA_SUCCESS)
    c = CurrentDevice{};
  int memKHz = 0, busBits = 0;
  if (c.sms > 0 &&
      (*d)->deviceGetAttribute(&memKHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev) ==
          CUDA_SUCCESS &&
      (*d)->deviceGetAttribute(&busBits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev) ==
          CUDA_SUCCESS &&
      memKHz > 0 && busBits > 0)
    c.dramGBs = (int)std::min<int64_t>((int64_t)memKHz * busBits / 4000000, plan::kMaxDramGBs);
  return memo[(int)dev] = c;
}

std::string rkc::cuda::deviceSignature() {
  // The device of the current context (device 0 without one), memoised per
  // device: it does not change while the process runs.
  static std::mutex mu;
  static std::map<int, std::string> memo;
  auto d = driver();
  if (!d) {
    llvm::consumeError(d.takeError());
    return "no-gpu";
  }
  CUcontext ctx = nullptr;
  (*d)->ctxGetCurrent(&ctx);
  CUdevice dev = 0;
  if (!ctx || (*d)->ctxGetDevice(&dev) != CUDA_SUCCESS)
    if ((*d)->deviceGet(&dev, 0) != CUDA_SUCCESS)
      return "no-gpu";
  std::lock_guard<std::mutex> lock(mu);
  auto it = memo.find((int)dev);
  if (it != memo.end())
    return it->second;
  char name[256] = {0};
  (*d)->deviceGetName(name, sizeof(name) - 1, dev);
  int sms = 0, clock = 0, version = 0;
  (*d)->deviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  (*d)->deviceGetAttribute(&clock, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev);
  (*d)->driverGetVersion(&version);
  return memo[(int)dev] = std::string(name) + "|" + std::to_string(sms) + "|" +
                          std::to_string(clock) + "|" + std::to_string(version);
}
