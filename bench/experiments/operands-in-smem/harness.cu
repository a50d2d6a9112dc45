// Times one generated split-tier row kernel (a cubin, argv[2]; nvcc -cubin of
// the generated file, as NVRTC compiles it) at M x N
// the way the runtime launches it: persistent, cooperative, as many groups of
// HX_SPLIT CTAs as are resident (at most M), a zeroed workspace of HX_WSB bytes per
// group, HX_SMEM bytes of dynamic shared memory. L2 is flushed before every
// timed launch; prints the median and checks three rows against a float64
// reference (RMSNorm: HX_IS_LN 0, eps 1e-6; LayerNorm: HX_IS_LN 1, eps 1e-5).
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda.h>

#if HX_TBF16
typedef __nv_bfloat16 T;
static float tof(T v) { return __bfloat162float(v); }
#else
typedef float T;
static float tof(T v) { return v; }
#endif

#define CU(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { const char *m; cuGetErrorString(e, &m); printf("CU error %s at %s:%d\n", m, __FILE__, __LINE__); exit(1); } } while (0)
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

__device__ float hashu(unsigned long long i, unsigned s) {
  unsigned long long z = i * 0x9E3779B97F4A7C15ull + s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; z ^= z >> 31;
  return (float)(z >> 40) / (float)(1ull << 24) * 2.0f - 1.0f;
}
__global__ void fill(T *p, long long n, unsigned s, float a, float b) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    p[i] = (T)(a + b * hashu(i, s));
}

int main(int argc, char **argv) {
  const long long M = atoll(argv[1]), N = HX_NCOLS;
  int dev = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaFree(0));
  CUmodule mod; CUfunction kfn;
  CU(cuModuleLoad(&mod, argv[2]));
  CU(cuModuleGetFunction(&kfn, mod, HX_KNAME));
  CU(cuFuncSetAttribute(kfn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, HX_SMEM));
  int per_sm = 0, regs = 0;
  CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kfn, HX_THREADS, HX_SMEM));
  CU(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, kfn));
#if HX_CLUSTER
  CU(cuFuncSetAttribute(kfn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
  long long groups = M; // one row per cluster of HX_SPLIT CTAs, cluster dims compiled in
#else
  long long groups = std::min<long long>(M, (long long)per_sm * sms / HX_SPLIT);
  if (groups < 1) { printf("not resident: %d CTAs per SM\n", per_sm); return 1; }
#endif
  T *x, *w, *b, *y; unsigned char *ws, *flush;
  CK(cudaMalloc(&x, M * N * sizeof(T))); CK(cudaMalloc(&y, M * N * sizeof(T)));
  CK(cudaMalloc(&w, N * sizeof(T))); CK(cudaMalloc(&b, N * sizeof(T)));
  CK(cudaMalloc(&ws, groups * HX_WSB + 16)); CK(cudaMemset(ws, 0, groups * HX_WSB + 16));
  const size_t fl = 256ull << 20; CK(cudaMalloc(&flush, fl));
  fill<<<1024, 256>>>(x, M * N, 1, 0.5f, 1.0f);
  fill<<<1024, 256>>>(w, N, 2, 1.0f, 0.25f);
  fill<<<1024, 256>>>(b, N, 3, 0.0f, 0.25f);
  long long s = N;
#if HX_IS_LN
  void *args[] = {&x, &w, &b, &y, &s, &s, &s, (void *)&s, (void *)&M, &ws};
#else
  void *args[] = {&x, &w, &y, &s, &s, &s, (void *)&M, &ws};
#endif
  (void)ws; // the last argument: cluster kernels have no workspace and ignore it
  dim3 grid(groups * HX_SPLIT), block(HX_THREADS);
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int r = 0; r < 33; ++r) {
    CK(cudaMemsetAsync(flush, r & 0xff, fl));
    CK(cudaEventRecord(e0));
#if HX_CLUSTER
    CU(cuLaunchKernel(kfn, grid.x, 1, 1, block.x, 1, 1, HX_SMEM, 0, args, nullptr));
#else
    CU(cuLaunchCooperativeKernel(kfn, grid.x, 1, 1, block.x, 1, 1, HX_SMEM, 0, args));
#endif
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 3) t.push_back(ms * 1000.0f);
  }
  CK(cudaDeviceSynchronize());
#if HX_PHASES
  {
    // make_phases.py's stamps of the last launch: per CTA and row, the
    // row's start, before and after the first grid_reduce, its end (ns).
    CUdeviceptr dp; size_t sz;
    CU(cuModuleGetGlobal(&dp, &sz, mod, "rkc_phase"));
    std::vector<unsigned long long> h(sz / 8);
    CU(cuMemcpyDtoH(h.data(), dp, sz));
    const long long ctas = groups * HX_SPLIT;
    unsigned long long t0 = ~0ull, t1 = 0;
    double ph[3] = {0, 0, 0}; long long n = 0;
    for (long long c = 0; c < ctas; ++c)
      for (int r = 0; r < 64; ++r) {
        const unsigned long long *q = &h[(c * 64 + r) * 4];
        if (!q[0]) continue;
        t0 = std::min(t0, q[0]); t1 = std::max(t1, q[3]);
        for (int k = 0; k < 3; ++k) ph[k] += (double)(q[k + 1] - q[k]);
        ++n;
      }
    // Over the span, in 100 ns steps: the mean share of CTAs in each phase,
    // and the share of time in which >= 3/4 of them wait at the barrier.
    const int steps = (int)((t1 - t0) / 100) + 1;
    std::vector<int> inb(steps, 0), ins(steps, 0);
    for (long long c = 0; c < ctas; ++c)
      for (int r = 0; r < 64; ++r) {
        const unsigned long long *q = &h[(c * 64 + r) * 4];
        if (!q[0]) continue;
        for (unsigned long long x = q[1]; x < q[2]; x += 100) ++inb[(x - t0) / 100];
        for (unsigned long long x = q[0]; x < q[1]; x += 100) ++ins[(x - t0) / 100];
      }
    double mb = 0, ms = 0; int most = 0;
    for (int i = 0; i < steps; ++i) {
      mb += inb[i]; ms += ins[i];
      if (inb[i] * 4 >= ctas * 3) ++most;
    }
    printf("%-22s phases (last launch, thread 0 of each CTA): span %.1f us; per row: sweep+fold %.2f us, "
           "grid barrier %.2f us, epilogue %.2f us (%lld rows x CTAs); mean CTAs in sweep %.0f %%, in barrier "
           "%.0f %%; >= 3/4 of CTAs in barrier %.0f %% of the span\n",
           HX_VNAME, (t1 - t0) / 1e3, ph[0] / n / 1e3, ph[1] / n / 1e3, ph[2] / n / 1e3, n,
           100.0 * ms / steps / ctas, 100.0 * mb / steps / ctas, 100.0 * most / steps);
    const char *dir = getenv("PH_DIR");
    if (dir) {
      char path[512];
      snprintf(path, sizeof path, "%s/%s-M%lld.bin", dir, HX_VNAME, M);
      if (FILE *f = fopen(path, "wb")) {
        long long hdr[3] = {ctas, HX_SPLIT, M};
        fwrite(hdr, sizeof hdr, 1, f);
        fwrite(h.data(), 8, (size_t)ctas * 64 * 4, f);
        fclose(f);
      }
    }
  }
#endif
  std::sort(t.begin(), t.end());
  const double us = t[t.size() / 2];
  const double bytes = 2.0 * M * N * sizeof(T) + (HX_IS_LN ? 2 : 1) * N * sizeof(T);
  // check rows 0, M/2, M-1
  std::vector<T> hx(N), hy(N), hw(N), hb(N);
  CK(cudaMemcpy(hw.data(), w, N * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, N * sizeof(T), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (long long row : {0LL, M / 2, M - 1}) {
    CK(cudaMemcpy(hx.data(), x + row * N, N * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hy.data(), y + row * N, N * sizeof(T), cudaMemcpyDeviceToHost));
    double mean = 0, var = 0;
    for (long long i = 0; i < N; ++i) mean += tof(hx[i]);
    mean /= N;
    for (long long i = 0; i < N; ++i) { double d = tof(hx[i]) - (HX_IS_LN ? mean : 0); var += d * d; }
    const double r = 1.0 / std::sqrt(var / N + (HX_IS_LN ? 1e-5 : 1e-6));
    double num = 0, den = 0;
    for (long long i = 0; i < N; ++i) {
      const double ref = ((tof(hx[i]) - (HX_IS_LN ? mean : 0)) * r) * tof(hw[i]) + (HX_IS_LN ? tof(hb[i]) : 0);
      num += (tof(hy[i]) - ref) * (tof(hy[i]) - ref); den += ref * ref;
    }
    worst = std::max(worst, std::sqrt(num / den));
  }
  printf("%-22s M=%lld N=%lld  %d regs  %d CTAs/SM  grid %lld (%lld groups of %d)  smem %d  median %.1f us  (min %.1f)  %.3f TB/s  rel.L2 err %.2e %s\n",
         HX_VNAME, M, N, regs, per_sm, groups * HX_SPLIT, groups, HX_SPLIT, HX_SMEM, us, t[0], bytes / us / 1e6, worst,
         worst < (HX_TBF16 ? 1e-2 : 1e-4) ? "OK" : "WRONG");
  return 0;
}
