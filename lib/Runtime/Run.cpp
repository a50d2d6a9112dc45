//===- Run.cpp - run a kernel on the GPU against the reference ------------===//

#include "rkc/Run.h"
#include "rkc/Jit.h"
#include "rkc/Reference.h"

#include "CudaDriver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace rkc;

namespace {

/// Host values -> storage bytes of `dtype`.
std::vector<char> encode(const std::vector<double> &v, const std::string &dtype) {
  std::vector<char> out;
  auto put = [&](const void *p, size_t n) {
    out.insert(out.end(), (const char *)p, (const char *)p + n);
  };
  for (double x : v) {
    if (dtype == "f32") {
      float f = (float)x;
      put(&f, 4);
    } else if (dtype == "bf16") {
      float f = (float)roundTo(x, "bf16");
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t h = bits >> 16;
      put(&h, 2);
    } else if (dtype == "f16") {
      _Float16 h = (_Float16)(float)x;
      put(&h, 2);
    } else if (dtype == "i64") {
      int64_t i = (int64_t)x;
      put(&i, 8);
    } else if (dtype == "i32") {
      int32_t i = (int32_t)x;
      put(&i, 4);
    }
  }
  return out;
}

std::vector<double> decode(const std::vector<char> &b, const std::string &dtype, size_t n) {
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (dtype == "f32") {
      float f;
      std::memcpy(&f, &b[i * 4], 4);
      out[i] = f;
    } else if (dtype == "bf16") {
      uint16_t h;
      std::memcpy(&h, &b[i * 2], 2);
      uint32_t bits = (uint32_t)h << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      out[i] = f;
    } else if (dtype == "f16") {
      _Float16 h;
      std::memcpy(&h, &b[i * 2], 2);
      out[i] = (double)h;
    } else if (dtype == "i64") {
      int64_t v;
      std::memcpy(&v, &b[i * 8], 8);
      out[i] = (double)v;
    } else if (dtype == "i32") {
      int32_t v;
      std::memcpy(&v, &b[i * 4], 4);
      out[i] = v;
    }
  }
  return out;
}

int64_t numel(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Device buffers freed on scope exit.
struct Buffers {
  const cuda::Driver &d;
  std::vector<CUdeviceptr> ptrs;
  ~Buffers() {
    for (CUdeviceptr p : ptrs)
      d.memFree(p);
  }
};

} // namespace

llvm::Expected<RunReport> rkc::runOnDevice(CompileRequest req, const RunOptions &opt) {
  auto drv = cuda::driver();
  if (!drv)
    return drv.takeError();
  auto ctx = cuda::currentContext();
  if (!ctx)
    return ctx.takeError();
  const cuda::Driver &d = **drv;
  if (req.options.arch.empty()) {
    auto arch = cuda::currentArch();
    if (!arch)
      return arch.takeError();
    req.options.arch = *arch;
  }
  req.upTo = Emit::Cubin;
  auto kernel = Kernel::get(req);
  if (!kernel)
    return kernel.takeError();
  const KernelInfo &info = (*kernel)->info();
  RunReport rep;
  rep.plan = info.plan;

  std::mt19937_64 rng(opt.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<HostTensor> inputs;
  Buffers bufs{d, {}};
  std::vector<void *> ptrs;
  std::string dataType = "f32";
  for (const KernelArg &a : info.args) {
    size_t n = (size_t)numel(a.shape);
    CUdeviceptr p;
    CUresult r = d.memAlloc(&p, std::max<size_t>(n * a.elemBytes, 16));
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "cuMemAlloc"));
    bufs.ptrs.push_back(p);
    ptrs.push_back((void *)p);
    if (a.output) {
      d.memsetD8(p, 0xff, n * a.elemBytes); // NaN for floats: unwritten shows
      continue;
    }
    HostTensor t{a.shape, std::vector<double>(n)};
    bool isInt = a.dtype[0] == 'i';
    for (size_t i = 0; i < n; ++i)
      t.data[i] = isInt ? ((i % 8 == 7) ? -100.0 : (double)(rng() % info.cols))
                        : roundTo(2.0 * normal(rng), a.dtype);
    if (!isInt && a.shape.size() == 2)
      dataType = a.dtype;
    std::vector<char> bytes = encode(t.data, a.dtype);
    r = d.memcpyHtoD(p, bytes.data(), bytes.size());
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "cuMemcpyHtoD"));
    inputs.push_back(std::move(t));
    rep.bytes += (double)bytes.size();
  }
  for (const KernelArg &a : info.args)
    if (a.output)
      rep.bytes += (double)numel(a.shape) * a.elemBytes;

  if (llvm::Error e = (*kernel)->launch(ptrs.data(), nullptr, info.rows, nullptr))
    return std::move(e);
  CUresult r = d.ctxSynchronize();
  if (r != CUDA_SUCCESS)
    return llvm::createStringError(cuda::describe(d, r, "the kernel"));

  if (opt.check) {
    auto ref = evaluateRowProgram((*kernel)->result().rkIR, inputs);
    if (!ref)
      return ref.takeError();
    rep.tolerance = dataType == "f32" ? 1e-5 : 8e-3;
    size_t k = 0;
    for (size_t i = 0; i < info.args.size(); ++i) {
      const KernelArg &a = info.args[i];
      if (!a.output)
        continue;
      size_t n = (size_t)numel(a.shape);
      std::vector<char> bytes(n * a.elemBytes);
      d.memcpyDtoH(bytes.data(), (CUdeviceptr)ptrs[i], bytes.size());
      std::vector<double> got = decode(bytes, a.dtype, n);
      const std::vector<double> &want = (*ref)[k++].data;
      double num = 0, den = 0;
      int64_t nanBad = 0;
      for (size_t j = 0; j < n; ++j) {
        bool gn = std::isnan(got[j]), wn = std::isnan(want[j]);
        if (gn || wn) {
          nanBad += gn != wn;
          continue;
        }
        num += (got[j] - want[j]) * (got[j] - want[j]);
        den += want[j] * want[j];
      }
      double err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
      rep.relErrors.push_back(err);
      rep.nanMismatch.push_back(nanBad);
      if (!(err <= rep.tolerance) || nanBad)
        rep.passed = false;
    }
  }

  // Timing: events around each launch, L2 flushed in between.
  size_t flushBytes = 256u << 20;
  CUdeviceptr flush;
  if (d.memAlloc(&flush, flushBytes) != CUDA_SUCCESS)
    return llvm::createStringError("cannot allocate the L2 flush buffer");
  bufs.ptrs.push_back(flush);
  CUevent start, stop;
  d.eventCreate(&start, 0);
  d.eventCreate(&stop, 0);
  std::vector<float> times;
  for (int i = 0; i < std::max(opt.reps, 1); ++i) {
    d.memsetD8(flush, (unsigned char)i, flushBytes);
    d.eventRecord(start, nullptr);
    if (llvm::Error e = (*kernel)->launch(ptrs.data(), nullptr, info.rows, nullptr))
      return std::move(e);
    d.eventRecord(stop, nullptr);
    d.eventSynchronize(stop);
    float ms = 0;
    d.eventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  d.eventDestroy(start);
  d.eventDestroy(stop);
  std::sort(times.begin(), times.end());
  rep.medianMs = times[times.size() / 2];
  rep.tbps = rep.bytes / (rep.medianMs * 1e-3) / 1e12;
  return rep;
}
