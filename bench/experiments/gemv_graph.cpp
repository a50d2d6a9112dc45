// Experiment tool (not product code): time hand-edited variants of an
// emitted GEMV kernel in the decode regime of bench/bench_quant.py (a CUDA
// graph of 48 launches over 48 distinct weight matrices, programmatic
// dependent launch), and check each variant's output against the first.
// Driver API only; kernels come as CUBINs (bench/experiments/nvrtc_cubin.cpp).
//
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/experiments/gemv_graph.cpp
//       -L/usr/local/cuda/lib64/stubs -lcuda -o gemv_graph
//   ./gemv_graph BITS M K N NAME=FILE.cubin:GRID:BLOCK:SMEM[:exact] ...
//
// Every kernel has the rk.gemv ABI (x, q, scales, out, 4 row strides, M),
// f16 activations, group 128, symmetric; it must be named rkc_gemv_w4a16 or
// rkc_gemv_w8a16. A variant marked `exact` must match the first bit for bit;
// the others are timed and their largest difference printed.
//
// With GEMV_TRACE=DIR, a variant whose module defines the timeline globals of
// bench/experiments/h200/gemv-trace/make_trace_variant.py (rkc_trace,
// rkc_trace_n) is replayed once more after timing and its per-CTA records are
// written to DIR/NAME.trace: one line a CTA, "launch cta smid t_entry t_wait
// t_first t_loop t_end" (launch: the index of the graph's GEMV, from the
// weight pointer the record carries; times: %globaltimer, ns).
#include "cubin_harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static float h2f(unsigned short h) {
  const unsigned s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? std::ldexp((float)m, -24) : std::ldexp((float)(m | 1024), (int)e - 25);
  return s ? -v : v;
}
static unsigned short f2h(float f) { // inputs here are normal and in range
  int e;
  float m = std::frexp(std::fabs(f), &e); // f = m 2^e, m in [0.5, 1)
  unsigned mant = (unsigned)std::lround(m * 2048.0f) - 1024; // 10 bits
  return (unsigned short)((f < 0 ? 0x8000 : 0) | ((e + 14) << 10) | (mant & 1023));
}

struct Variant {
  std::string name, file;
  unsigned grid = 0, block = 0, smem = 0;
  bool exact = false;
  CUfunction fn = nullptr;
};

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s BITS M K N NAME=FILE:GRID:BLOCK:SMEM[:exact] ...\n", argv[0]);
    return 2;
  }
  const int bits = std::atoi(argv[1]);
  const long long M = std::atoll(argv[2]), K = std::atoll(argv[3]), N = std::atoll(argv[4]);
  std::vector<Variant> vs;
  for (int i = 5; i < argc; ++i) {
    Variant v;
    std::vector<std::string> f = variantFields(argv[i], v.name);
    v.file = f.at(0);
    const LaunchFields l = launchFields(f, 1);
    v.grid = l.grid, v.block = l.block, v.smem = l.smem, v.exact = l.exact;
    vs.push_back(v);
  }
  initPrimaryContext();
  const char *kname = bits == 4 ? "rkc_gemv_w4a16" : "rkc_gemv_w8a16";
  for (auto &v : vs)
    v.fn = loadKernel(v.file, std::getenv("GEMV_KERNEL") ? std::getenv("GEMV_KERNEL") : kname, v.smem);
  const int COUNT = 48;
  const size_t qBytes = bits == 4 ? (size_t)K * N / 2 : (size_t)K * N;
  const size_t sBytes = (size_t)(K / 128) * N * 2;
  std::vector<unsigned char> hq(qBytes);
  std::vector<unsigned short> hs((size_t)(K / 128) * N), hx((size_t)(M * K));
  unsigned long long st = 0x9E3779B97F4A7C15ull;
  auto rnd = [&] { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; };
  for (auto &b : hq) {
    b = (unsigned char)rnd();
    if (bits == 8 && b == 0x80) b = 0x81; // the quantizer never writes -128
  }
  for (auto &s : hs) s = f2h(0.004f + 0.004f * (float)(rnd() % 1000) / 1000.0f);
  for (auto &x : hx) x = f2h(((float)(rnd() % 2000) - 1000.0f) / 1000.0f + 1e-3f);
  std::vector<CUdeviceptr> q(COUNT), s(COUNT);
  CUdeviceptr x, out;
  CK(cuMemAlloc(&x, hx.size() * 2));
  CK(cuMemAlloc(&out, (size_t)M * N * 2));
  CK(cuMemcpyHtoD(x, hx.data(), hx.size() * 2));
  for (int i = 0; i < COUNT; ++i) {
    CK(cuMemAlloc(&q[i], qBytes));
    CK(cuMemAlloc(&s[i], sBytes));
    if (i == 0) {
      CK(cuMemcpyHtoD(q[0], hq.data(), qBytes));
      CK(cuMemcpyHtoD(s[0], hs.data(), sBytes));
    } else {
      CK(cuMemcpyDtoD(q[i], q[0], qBytes));
      CK(cuMemcpyDtoD(s[i], s[0], sBytes));
    }
  }
  CUstream stream;
  CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  long long s0 = K, s1 = N, s2 = N, s3 = N;
  auto launch = [&](const Variant &v, int i) {
    void *args[] = {&x, &q[i], &s[i], &out, &s0, &s1, &s2, &s3, (void *)&M};
    CUlaunchConfig cfg = {};
    cfg.gridDimX = v.grid;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = v.block;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = v.smem;
    cfg.hStream = stream;
    CUlaunchAttribute at[1];
    at[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    at[0].value.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    CK(cuLaunchKernelEx(&cfg, v.fn, args, nullptr));
  };
  // The bytes of one GEMV (weights, scales, activations, output).
  const double bytes = (double)qBytes + sBytes + M * K * 2.0 + M * N * 2.0;
  std::vector<float> ref;
  std::printf("W%dA16 M=%lld K=%lld N=%lld: %.2f MB per GEMV, graph of %d, PDL\n", bits, M, K,
              N, bytes / 1e6, COUNT);
  for (auto &v : vs) {
    CK(cuMemsetD8Async(out, 0xff, (size_t)M * N * 2, stream)); // on the stream: the plain memset need not finish before a non-blocking stream's launch
    launch(v, 0);
    CK(cuStreamSynchronize(stream));
    std::vector<unsigned short> ho((size_t)(M * N));
    CK(cuMemcpyDtoH(ho.data(), out, ho.size() * 2));
    std::vector<float> o(ho.size());
    for (size_t i = 0; i < o.size(); ++i) o[i] = h2f(ho[i]);
    const OutputDiff d = compareOutputs(ref, o);
    const double maxd = d.maxDiff, maxr = d.maxRef;
    const bool same = d.same;
    CUgraph g;
    CK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
    for (int i = 0; i < COUNT; ++i) launch(v, i);
    CK(cuStreamEndCapture(stream, &g));
    CUgraphExec ge;
    CK(cuGraphInstantiate(&ge, g, 0));
    for (int i = 0; i < 3; ++i) CK(cuGraphLaunch(ge, stream));
    CUevent a, b;
    CK(cuEventCreate(&a, 0));
    CK(cuEventCreate(&b, 0));
    std::vector<float> ts;
    for (int r = 0; r < 30; ++r) {
      CK(cuEventRecord(a, stream));
      CK(cuGraphLaunch(ge, stream));
      CK(cuEventRecord(b, stream));
      CK(cuEventSynchronize(b));
      float ms;
      CK(cuEventElapsedTime(&ms, a, b));
      ts.push_back(ms * 1000.0f / COUNT);
    }
    std::sort(ts.begin(), ts.end());
    const float us = ts[ts.size() / 2];
    std::printf("  %-28s %7.2f us  %5.2f TB/s  (min %.2f max %.2f)  max|diff| %.3g of max|ref| %.3g%s\n",
                v.name.c_str(), us, bytes / (us * 1e-6) / 1e12, ts.front(), ts.back(), maxd, maxr,
                v.exact ? (same ? "  exact: ok" : "  exact: MISMATCH") : "");
    if (const char *dir = std::getenv("GEMV_TRACE")) {
      CUmodule mod;
      CK(cuFuncGetModule(&mod, v.fn));
      CUdeviceptr tr, trn;
      size_t trBytes, nBytes;
      if (cuModuleGetGlobal(&tr, &trBytes, mod, "rkc_trace") == CUDA_SUCCESS &&
          cuModuleGetGlobal(&trn, &nBytes, mod, "rkc_trace_n") == CUDA_SUCCESS) {
        CK(cuMemsetD8(trn, 0, nBytes));
        CK(cuGraphLaunch(ge, stream));
        CK(cuStreamSynchronize(stream));
        unsigned n = 0;
        CK(cuMemcpyDtoH(&n, trn, sizeof n));
        const size_t cap = trBytes / 64;
        std::vector<unsigned long long> rec(cap * 8);
        CK(cuMemcpyDtoH(rec.data(), tr, trBytes));
        const std::string path = std::string(dir) + "/" + v.name + ".trace";
        FILE *f = std::fopen(path.c_str(), "w");
        for (size_t r = 0; r < std::min<size_t>(n, cap); ++r) {
          const unsigned long long *e = &rec[r * 8];
          int launchIndex = -1;
          for (int i = 0; i < COUNT; ++i)
            if ((unsigned long long)q[i] == e[0]) launchIndex = i;
          std::fprintf(f, "%d %llu %llu %llu %llu %llu %llu %llu\n", launchIndex, e[1] & 0xffffffffull,
                       e[1] >> 32, e[2], e[3], e[4], e[5], e[6]);
        }
        std::fclose(f);
        std::printf("  %-28s %u CTA records (capacity %zu) -> %s\n", v.name.c_str(), n, cap, path.c_str());
      }
    }
    CK(cuGraphExecDestroy(ge));
    CK(cuGraphDestroy(g));
  }
  return 0;
}
