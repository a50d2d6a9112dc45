// Experiment tool (not product code): time hand-edited variants of an
// emitted row kernel (RMSNorm / LayerNorm ABI: x, [N] operands, y, one row
// stride per argument, M) as bench/bench.py times it: one launch after an L2
// flush (a 256 MB memset), the median of the repetitions, TB/s of x read and
// y written once. Each variant's output is compared with the first one's.
// Driver API only; kernels come as CUBINs (bench/experiments/nvrtc_cubin.cpp).
//
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/experiments/row_cubin_bench.cpp
//       -L/usr/local/cuda/lib64/stubs -lcuda -o row_cubin_bench
//   ./row_cubin_bench ELEM NVEC M N NAME=FILE.cubin:KERNEL:GRID:BLOCK:SMEM[:exact] ...
//
// ELEM: 2 (bf16) or 4 (f32); NVEC: the kernel's [N] operands (1 RMSNorm,
// 2 LayerNorm). A variant marked `exact` must match the first bit for bit.
// Environment: ROW_ABI=ce takes the cross-entropy ABI instead (logits,
// int64 targets [M] -> loss and lse, f32 [M]; NVEC ignored; x's bytes are
// counted, read only). ROW_READ_ONLY=1 counts x's bytes only (a kernel whose output
// is per row: logsumexp, cross-entropy); ROW_FLUSH=read flushes L2 by
// running the first variant over a separate 256 MB input instead of a
// memset (clean lines instead of dirty ones the timed kernel must write
// back). A device-to-device copy of x is timed too, under the same flush.
#include "cubin_harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static unsigned short f2bf(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return (unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
static float bf2f(unsigned short h) {
  unsigned u = (unsigned)h << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Variant {
  std::string name, file, kernel;
  unsigned grid = 0, block = 0, smem = 0;
  bool exact = false;
  CUfunction fn = nullptr;
};

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: %s ELEM NVEC M N NAME=FILE:KERNEL:GRID:BLOCK:SMEM[:exact] ...\n",
                 argv[0]);
    return 2;
  }
  const int elem = std::atoi(argv[1]), nvec = std::atoi(argv[2]);
  const long long M = std::atoll(argv[3]), N = std::atoll(argv[4]);
  std::vector<Variant> vs;
  for (int i = 5; i < argc; ++i) {
    Variant v;
    std::vector<std::string> f = variantFields(argv[i], v.name);
    v.file = f.at(0);
    v.kernel = f.at(1);
    const LaunchFields l = launchFields(f, 2);
    v.grid = l.grid, v.block = l.block, v.smem = l.smem, v.exact = l.exact;
    vs.push_back(v);
  }
  initPrimaryContext();
  for (auto &v : vs) {
    v.fn = loadKernel(v.file, v.kernel.c_str(), v.smem);
    int regs = 0;
    cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, v.fn);
    std::printf("  %s: %d registers\n", v.name.c_str(), regs);
  }
  const size_t xBytes = (size_t)M * N * elem, vBytes = (size_t)N * elem;
  unsigned long long st = 0x9E3779B97F4A7C15ull;
  auto rnd = [&] { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; };
  auto fill = [&](size_t count, float lo, float hi) {
    std::vector<unsigned char> h(count * elem);
    for (size_t i = 0; i < count; ++i) {
      const float f = lo + (hi - lo) * (float)(rnd() % 100000) / 100000.0f;
      if (elem == 2) {
        const unsigned short b = f2bf(f);
        std::memcpy(&h[i * 2], &b, 2);
      } else {
        std::memcpy(&h[i * 4], &f, 4);
      }
    }
    return h;
  };
  CUdeviceptr x, y, vec[2] = {0, 0}, flush;
  CK(cuMemAlloc(&x, xBytes));
  CK(cuMemAlloc(&y, xBytes));
  const size_t flushBytes = 256u << 20;
  CK(cuMemAlloc(&flush, flushBytes));
  {
    auto h = fill((size_t)M * N, -2.0f, 3.0f);
    CK(cuMemcpyHtoD(x, h.data(), xBytes));
  }
  for (int i = 0; i < nvec; ++i) {
    auto h = fill((size_t)N, i == 0 ? 0.5f : -0.5f, i == 0 ? 1.5f : 0.5f);
    CK(cuMemAlloc(&vec[i], vBytes));
    CK(cuMemcpyHtoD(vec[i], h.data(), vBytes));
  }
  CUstream stream;
  CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  long long sx = N, sv = 0, sy = N, s1 = 1;
  const bool ce = std::getenv("ROW_ABI") && std::string(std::getenv("ROW_ABI")) == "ce";
  CUdeviceptr tgt = 0, lse = 0;
  if (ce) {
    std::vector<long long> ht((size_t)M);
    for (auto &t : ht) t = (long long)(rnd() % (unsigned long long)N);
    CK(cuMemAlloc(&tgt, (size_t)M * 8));
    CK(cuMemcpyHtoD(tgt, ht.data(), (size_t)M * 8));
    CK(cuMemAlloc(&lse, (size_t)M * 4));
  }
  // The kernel's arguments over input `in` and output `out` of `rows` rows.
  auto argsFor = [&](CUdeviceptr &in, CUdeviceptr &out, const long long &rows) {
    std::vector<void *> args;
    args.push_back(&in);
    if (ce) {
      args.push_back(&tgt);
      args.push_back(&out);
      args.push_back(&lse);
      args.push_back(&sx);
      args.push_back(&s1);
      args.push_back(&s1);
      args.push_back(&s1);
    } else {
      for (int i = 0; i < nvec; ++i) args.push_back(&vec[i]);
      args.push_back(&out);
      args.push_back(&sx);
      for (int i = 0; i < nvec; ++i) args.push_back(&sv);
      args.push_back(&sy);
    }
    args.push_back((void *)&rows);
    return args;
  };
  auto launchOn = [&](const Variant &v, unsigned grid, std::vector<void *> args) {
    CUlaunchConfig cfg = {};
    cfg.gridDimX = grid;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = v.block;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = v.smem;
    cfg.hStream = stream;
    CK(cuLaunchKernelEx(&cfg, v.fn, args.data(), nullptr));
  };
  auto launch = [&](const Variant &v) { launchOn(v, v.grid, argsFor(x, y, M)); };
  const bool readOnly = ce || (std::getenv("ROW_READ_ONLY") && std::atoi(std::getenv("ROW_READ_ONLY")));
  const bool readFlush = std::getenv("ROW_FLUSH") && std::string(std::getenv("ROW_FLUSH")) == "read";
  const double bytes = (readOnly ? 1.0 : 2.0) * xBytes;
  // The read flush: the first variant over a 256 MB input of the same N.
  const long long fM = (long long)(flushBytes / ((size_t)N * elem));
  CUdeviceptr fy;
  CK(cuMemAlloc(&fy, flushBytes));
  auto doFlush = [&](int r) {
    if (!readFlush) {
      CK(cuMemsetD32Async(flush, (unsigned)r, flushBytes / 4, stream));
      return;
    }
    launchOn(vs[0], (unsigned)(vs[0].grid / M * fM), argsFor(flush, fy, fM));
  };
  // 60 runs of `run`, each after a flush, timed by events: sorted, in us.
  auto timeAfterFlush = [&](auto run) {
    CUevent a, b;
    CK(cuEventCreate(&a, 0));
    CK(cuEventCreate(&b, 0));
    std::vector<float> ts;
    for (int r = 0; r < 60; ++r) {
      doFlush(r);
      CK(cuEventRecord(a, stream));
      run();
      CK(cuEventRecord(b, stream));
      CK(cuEventSynchronize(b));
      float ms;
      CK(cuEventElapsedTime(&ms, a, b));
      ts.push_back(ms * 1000.0f);
    }
    std::sort(ts.begin(), ts.end());
    return ts;
  };
  std::vector<float> ref;
  std::printf("elem %d, %d [N] operands, M=%lld N=%lld: %.1f MB %s, L2 flushed (%s)\n", elem,
              nvec, M, N, bytes / 1e6, readOnly ? "read" : "read + written",
              readFlush ? "a read of 256 MB" : "a 256 MB memset");
  for (auto &v : vs) {
    CK(cuMemsetD8(y, 0xff, xBytes));
    launch(v);
    CK(cuStreamSynchronize(stream));
    std::vector<unsigned char> hy(xBytes);
    CK(cuMemcpyDtoH(hy.data(), y, xBytes));
    std::vector<float> o((size_t)(M * N));
    for (size_t i = 0; i < o.size(); ++i) {
      if (elem == 2) {
        unsigned short b;
        std::memcpy(&b, &hy[i * 2], 2);
        o[i] = bf2f(b);
      } else {
        std::memcpy(&o[i], &hy[i * 4], 4);
      }
    }
    const OutputDiff d = compareOutputs(ref, o);
    const double maxd = d.maxDiff, maxr = d.maxRef;
    const bool same = d.same;
    for (int i = 0; i < 5; ++i) launch(v);
    const std::vector<float> ts = timeAfterFlush([&] { launch(v); });
    const float us = ts[ts.size() / 2];
    std::printf("  %-28s %8.2f us  %5.3f TB/s  (min %.2f max %.2f)  max|diff| %.3g of max|ref| %.3g%s\n",
                v.name.c_str(), us, bytes / (us * 1e-6) / 1e12, ts.front(), ts.back(), maxd, maxr,
                v.exact ? (same ? "  exact: ok" : "  exact: MISMATCH") : "");
  }
  {
    const std::vector<float> ts = timeAfterFlush([&] { CK(cuMemcpyDtoDAsync(y, x, xBytes, stream)); });
    const float us = ts[ts.size() / 2];
    std::printf("  %-28s %8.2f us  %5.3f TB/s of x read + written\n", "copy of x", us,
                2.0 * xBytes / (us * 1e-6) / 1e12);
  }
  return 0;
}
