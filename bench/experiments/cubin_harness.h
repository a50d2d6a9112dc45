// Experiment tools (not product code): what gemv_graph.cpp and
// row_cubin_bench.cpp share: the driver-API error check, the variant
// arguments NAME=FIELD:FIELD:... and loading a kernel of a CUBIN with
// rkc's launch attributes (librkc's Kernel::function).
#pragma once
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                    \
  do {                                                                           \
    CUresult r_ = (x);                                                           \
    if (r_ != CUDA_SUCCESS) {                                                    \
      const char *s_ = nullptr;                                                  \
      cuGetErrorString(r_, &s_);                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?"); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

/// "NAME=A:B:C" -> NAME and the fields {A, B, C}.
inline std::vector<std::string> variantFields(const std::string &arg, std::string &name) {
  size_t eq = arg.find('=');
  name = arg.substr(0, eq);
  std::vector<std::string> f;
  for (size_t p = eq + 1;;) {
    size_t c = arg.find(':', p);
    f.push_back(arg.substr(p, c - p));
    if (c == std::string::npos) break;
    p = c + 1;
  }
  return f;
}

/// GRID:BLOCK:SMEM[:exact] from fields[first ...] of a variant.
struct LaunchFields {
  unsigned grid = 0, block = 0, smem = 0;
  bool exact = false;
};
inline LaunchFields launchFields(const std::vector<std::string> &f, size_t first) {
  LaunchFields l;
  l.grid = (unsigned)std::stoul(f.at(first));
  l.block = (unsigned)std::stoul(f.at(first + 1));
  l.smem = (unsigned)std::stoul(f.at(first + 2));
  l.exact = f.size() > first + 3 && f[first + 3] == "exact";
  return l;
}

/// Device 0's primary context, made current.
inline void initPrimaryContext() {
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
}

/// Kernel `name` of the CUBIN at `path`, with `smem` bytes of dynamic shared
/// memory allowed and clusters of 16 permitted.
inline CUfunction loadKernel(const std::string &path, const char *name, unsigned smem) {
  CUmodule mod;
  CK(cuModuleLoad(&mod, path.c_str()));
  CUfunction fn;
  CK(cuModuleGetFunction(&fn, mod, name));
  CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem));
  cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
  return fn;
}

/// A variant's output against the first variant's (`ref`, set from `o`
/// when empty): the largest difference (NaN-aware), the largest |ref| and
/// whether every value is bit-for-bit the same.
struct OutputDiff {
  double maxDiff = 0, maxRef = 0;
  bool same = true;
};
inline OutputDiff compareOutputs(std::vector<float> &ref, const std::vector<float> &o) {
  OutputDiff d;
  if (ref.empty()) ref = o;
  for (size_t i = 0; i < o.size(); ++i) {
    if (!(std::fabs(o[i] - ref[i]) <= d.maxDiff)) d.maxDiff = std::fabs(o[i] - ref[i]);
    d.maxRef = std::max(d.maxRef, (double)std::fabs(ref[i]));
    d.same = d.same && o[i] == ref[i];
  }
  return d;
}
