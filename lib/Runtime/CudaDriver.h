//===- CudaDriver.h - the CUDA driver API loaded at run time ------*- C++ -*-===//
#ifndef RKC_LIB_RUNTIME_CUDADRIVER_H
#define RKC_LIB_RUNTIME_CUDADRIVER_H

#include <cuda.h> // types and enums only; nothing is linked

#include "llvm/Support/Error.h"

#include <string>

namespace rkc::cuda {

/// Driver entry points, resolved with dlopen("libcuda.so.1").
struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*deviceGetName)(char *, int, CUdevice);
  CUresult (*driverGetVersion)(int *);
  CUresult (*ctxGetCurrent)(CUcontext *);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*ctxGetDevice)(CUdevice *);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*funcSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **, void **);
  /// cuLaunchKernelEx (cluster launches); null on drivers without it, then
  /// clusters launch through cuLaunchKernel and the kernel's
  /// __cluster_dims__.
  CUresult (*launchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
  CUresult (*getErrorString)(CUresult, const char **);
  /// cuOccupancyMaxActiveBlocksPerMultiprocessor: how many CTAs of a split
  /// kernel (the grid tier) are resident at once.
  CUresult (*occupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
  /// cuStreamIsCapturing: a split kernel's first launch on a stream
  /// allocates its workspace, which a CUDA graph capture cannot hold.
  CUresult (*streamIsCapturing)(CUstream, CUstreamCaptureStatus *);
  // Memory, events and synchronisation (rkc run, the tuner).
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*memsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*memcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*ctxSynchronize)();
  CUresult (*memGetInfo)(size_t *, size_t *);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamDestroy)(CUstream);
  CUresult (*eventCreate)(CUevent *, unsigned);
  CUresult (*eventDestroy)(CUevent);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*eventSynchronize)(CUevent);
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent);
};

/// The driver, initialised once; an error says why there is none ("no CUDA
/// driver", a stub library, no device).
llvm::Expected<const Driver *> driver();

/// "CUDA error N (name): what" for a failed call.
std::string describe(const Driver &d, CUresult r, const char *what);

/// Makes sure a context is current (the caller's, else device 0's primary
/// context) and returns it.
llvm::Expected<CUcontext> currentContext();

/// "GPU name|SM count|memory clock|driver version" of the current device,
/// or "no-gpu": part of every cache key.
std::string deviceSignature();

/// "sm_90a" etc. for the current device (of the current context, else of
/// device 0's primary context, made current).
llvm::Expected<std::string> currentArch();

/// What the planner and the launches need of the device of the context
/// current in this thread: its SM count, compute capability and whether it
/// launches cooperatively (all 0 when no context is current or there is no
/// driver; never creates a context; memoised per device).
struct CurrentDevice {
  int sms = 0;
  int major = 0, minor = 0;
  int cooperative = 0; ///< CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH
  /// DRAM bandwidth in GB/s: 2 transfers a memory clock x the bus width
  /// (H100 SXM 3352, H200 4917); 0 when the driver does not report them.
  int dramGBs = 0;
};
CurrentDevice currentDevice();

} // namespace rkc::cuda

#endif
