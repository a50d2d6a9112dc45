// Experiment (not product code): is a persistent, cp.async-pipelined cluster
// row kernel faster than rkc's one-row-per-cluster register kernel for long
// rows (N >= 65536)?  The hypothesis from ncu (docs/performance-notes.md,
// session 4): the long rows are short of bytes in flight per SM because a
// CTA loads, reduces through the cluster, then stores, with nothing
// overlapping the reduction and the store. Here each cluster loops over
// rows; while it reduces and stores row r, the loads of row r + stride (and
// further, STAGES - 1 rows ahead) are in flight as cp.async copies into
// thread-private shared-memory slots (no registers held, no barrier).
//
// Build (here, no GPU needed):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I templates \
//        -I bench/experiments bench/experiments/pipelined_rows.cu -o pipelined_rows
// Run on the H100: ./pipelined_rows  (prints TB/s per variant; checks every
// variant against rkc's kernel of the same op and shape).
#include "rkc/base.cuh"
#if !defined(__CUDA_ARCH__)
// nvcc's host pass parses device code too; the cluster primitives exist only
// for __CUDA_ARCH__ >= 900 (rkc is compiled by NVRTC, device-only).
namespace rkc {
__device__ u32 cluster_ctarank();
__device__ void cluster_arrive_relaxed();
__device__ void cluster_wait();
__device__ void cluster_sync();
template <int A, int B, class S, class Op> __device__ S cluster_reduce(S, Op, S *, int, int);
template <class T> __device__ const T *mapa_ptr(const T *, u32);
} // namespace rkc
#endif
#include "rkc/rkc.cuh"
#include "base_kernels.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__,     \
             __LINE__);                                                        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

template <int N> RKC_DEVICE void wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// OP 0: RMSNorm (y = x * rsqrt(mean(x^2) + eps) * w); OP 1: softmax.
template <class E, int N, int C, int T, int STAGES, int OP>
__global__ void __launch_bounds__(T)
pipe_kernel(const E *__restrict__ x, const E *__restrict__ w, E *__restrict__ y,
            long long M, int R) {
  constexpr int W = 16 / sizeof(E), PART = N / C, V = PART / T, CH = V / W;
  constexpr int COL_STEP = C * T * W, WARPS = T / 32;
  static_assert(V % W == 0 && V >= W, "values per thread");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  E *stage = reinterpret_cast<E *>(smem_raw);
  __shared__ float red[2][2][WARPS * C];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int rank = C > 1 ? (int)rkc::cluster_ctarank() : 0;
  // R > 0: this cluster's R consecutive rows (the hardware schedules the
  // clusters); R == 0: persistent, rows strided by the number of clusters.
  const long long cid = blockIdx.x / C;
  const long long ncl = R > 0 ? 1 : gridDim.x / C;
  const long long rbeg = R > 0 ? cid * R : cid;
  const long long rend = R > 0 ? (M < rbeg + R ? M : rbeg + R) : M;
  const int col0 = (rank * T + t) * W;
  auto issue = [&](int s, long long row) {
    const E *src = x + row * N + col0;
    E *dst = stage + s * PART + t * W;
#pragma unroll
    for (int c = 0; c < CH; ++c)
      rkc::cp_async_16(dst + c * T * W, src + c * COL_STEP);
  };
  if constexpr (C > 1) rkc::cluster_arrive_relaxed();
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    const long long r = rbeg + s * ncl;
    if (r < rend) issue(s, r);
    rkc::cp_async_commit();
  }
  if constexpr (C > 1) rkc::cluster_wait();
  int it = 0;
  for (long long r = rbeg; r < rend; r += ncl, ++it) {
    {
      const long long rn = r + (STAGES - 1) * ncl;
      if (rn < rend) issue((it + STAGES - 1) % STAGES, rn);
      rkc::cp_async_commit();
    }
    wait_group<STAGES - 1>();
    const E *mine = stage + (it % STAGES) * PART + t * W;
    float f[V];
#pragma unroll
    for (int c = 0; c < CH; ++c)
      rkc::load_vec_shared<E, W>(mine + c * T * W,
                                 *reinterpret_cast<float(*)[W]>(f + c * W));
    auto reduce = [&](float v, auto op, int k) {
      v = rkc::warp_reduce<32>(v, op);
      if constexpr (C > 1)
        return rkc::cluster_reduce<WARPS, C>(v, op, red[k][it & 1], warp, lane);
      else
        return rkc::block_reduce<WARPS>(v, op, red[k][it & 1], 0, warp, lane);
    };
    float o[V];
    if constexpr (OP == 0) {
      float s = 0.f;
#pragma unroll
      for (int i = 0; i < V; ++i) s += f[i] * f[i];
      s = reduce(s, rkc::OpAdd(), 0);
      const float rs = rsqrtf(s / float(N) + 1e-6f);
      float wv[V];
      rkc::load_frag<E, V, W>(w, col0, COL_STEP, N, wv, 0.0f);
#pragma unroll
      for (int i = 0; i < V; ++i) o[i] = f[i] * rs * wv[i];
    } else {
      float m = rkc::neg_inf();
#pragma unroll
      for (int i = 0; i < V; ++i) m = rkc::OpMax()(m, f[i]);
      m = reduce(m, rkc::OpMax(), 0);
      float s = 0.f;
#pragma unroll
      for (int i = 0; i < V; ++i) {
        o[i] = sizeof(E) == 2 ? rkc::fast_exp(f[i] - m) : expf(f[i] - m);
        s += o[i];
      }
      s = reduce(s, rkc::OpAdd(), 1);
      const float inv = 1.0f / s;
#pragma unroll
      for (int i = 0; i < V; ++i) o[i] *= inv;
    }
    rkc::store_frag<E, V, W>(y + r * N, col0, COL_STEP, N, o);
  }
}

// ---------------------------------------------------------------------------
__global__ void fill_bf16(rkc::bf16 *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    float v = ((h & 0xffff) / 65536.0f - 0.5f) * 6.0f;
    p[i] = rkc::from_f32<rkc::bf16>(v);
  }
}
__global__ void fill_f32(float *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = ((h & 0xffff) / 65536.0f - 0.5f) * 6.0f;
  }
}
template <class E> void fill(E *p, size_t n, unsigned seed) {
  if constexpr (sizeof(E) == 2) fill_bf16<<<1024, 256>>>(p, n, seed);
  else fill_f32<<<1024, 256>>>(p, n, seed);
  CK(cudaGetLastError());
}

static void *g_flush = nullptr;
static const size_t kFlush = 256ull << 20;

template <class F> float time_ms(F launch, int reps = 30) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ts;
  for (int i = 0; i < 3; ++i) launch();
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < reps; ++i) {
    CK(cudaMemsetAsync(g_flush, i, kFlush));
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    ts.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

template <class E> float to_f(E v) {
  if constexpr (sizeof(E) == 2) { unsigned u = (unsigned)v.bits << 16; float f; memcpy(&f, &u, 4); return f; }
  else return v;
}

struct Ctx {
  double roof = 0;
};

// Runs the rkc baseline (already launched into yb) and one pipelined variant.
template <class E, int N, int C, int T, int STAGES, int OP>
void variant(const char *tag, E *x, E *w, E *y, E *yb, long long M, float base_ms,
             const Ctx &cx) {
  auto k = pipe_kernel<E, N, C, T, STAGES, OP>;
  constexpr int PART = N / C;
  size_t smem = (size_t)STAGES * PART * sizeof(E);
  if (smem > 227 * 1024) return;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  if (C > 8) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.blockDim = dim3(T);
  cfg.dynamicSmemBytes = smem;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  cfg.gridDim = dim3(C * 64);
  int maxc = 0;
  cudaError_t oe = cudaOccupancyMaxActiveClusters(&maxc, (void *)k, &cfg);
  if (oe != cudaSuccess || maxc <= 0) {
    printf("  %-34s occupancy query failed (%s, %d)\n", tag, cudaGetErrorString(oe), maxc);
    cudaGetLastError();
    return;
  }
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, (void *)k));
  for (int R : {0, 1, 2, 4, 8}) {
    if (R == 1 && STAGES != 2) continue;
    long long g = R == 0 ? std::min<long long>(M, (long long)maxc) : (M + R - 1) / R;
    cfg.gridDim = dim3((unsigned)(g * C));
    auto launch = [&] { CK(cudaLaunchKernelEx(&cfg, k, (const E *)x, (const E *)w, y, M, R)); };
    CK(cudaMemset(y, 0xff, (size_t)M * N * sizeof(E)));
    launch();
    CK(cudaDeviceSynchronize());
    std::vector<E> h1((size_t)M * N), h2((size_t)M * N);
    CK(cudaMemcpy(h1.data(), y, h1.size() * sizeof(E), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h2.data(), yb, h2.size() * sizeof(E), cudaMemcpyDeviceToHost));
    double maxerr = 0, maxref = 0;
    for (size_t i = 0; i < h1.size(); ++i) {
      double a = to_f(h1[i]), b = to_f(h2[i]);
      if (!(fabs(a - b) <= maxerr)) maxerr = fabs(a - b);
      maxref = std::max(maxref, fabs(b));
    }
    float ms = time_ms(launch);
    double tb = 2.0 * M * N * sizeof(E) / (ms * 1e-3) / 1e12;
    printf("  %-34s C=%-2d T=%-4d S=%d smem=%3zuK regs=%3d clusters=%3d R=%d: %8.1f us %5.2f TB/s %.3f roof, %.2fx base, relerr %.1e\n",
           tag, C, T, STAGES, smem / 1024, fa.numRegs, maxc, R, ms * 1e3, tb, tb / cx.roof,
           base_ms / ms, maxerr / maxref);
  }
}

template <class E, int N, int OP, class BaseK>
void run_case(const char *name, BaseK basek, int baseC, const Ctx &cx) {
  const long long M = (1ll << 27) / N;
  E *x, *w, *y, *yb;
  CK(cudaMalloc(&x, (size_t)M * N * sizeof(E)));
  CK(cudaMalloc(&w, (size_t)N * sizeof(E)));
  CK(cudaMalloc(&y, (size_t)M * N * sizeof(E)));
  CK(cudaMalloc(&yb, (size_t)M * N * sizeof(E)));
  fill(x, (size_t)M * N, 1);
  fill(w, N, 2);
  if (baseC > 8) CK(cudaFuncSetAttribute(basek, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  auto base = [&] {
    if constexpr (OP == 0)
      basek<<<(unsigned)(M * baseC), 256>>>(x, w, yb, N, 0, N, M);
    else
      basek<<<(unsigned)(M * baseC), 256>>>(x, yb, N, N, M);
    CK(cudaGetLastError());
  };
  float bms = time_ms(base);
  double btb = 2.0 * M * N * sizeof(E) / (bms * 1e-3) / 1e12;
  printf("%s [%lld x %d]: rkc base %.1f us %.2f TB/s %.3f roof\n", name, M, N, bms * 1e3, btb,
         btb / cx.roof);
  constexpr bool big = N * sizeof(E) >= 1024 * 1024;  // 262144 bf16 / f32
  if constexpr (N * sizeof(E) <= 256 * 1024) {        // 65536 f32 / bf16 / 131072 bf16
    variant<E, N, 8, 256, 2, OP>(name, x, w, y, yb, M, bms, cx);
    variant<E, N, 4, 256, 2, OP>(name, x, w, y, yb, M, bms, cx);
    variant<E, N, 8, 256, 3, OP>(name, x, w, y, yb, M, bms, cx);
    variant<E, N, 16, 128, 3, OP>(name, x, w, y, yb, M, bms, cx);
  }
  if constexpr (N * sizeof(E) >= 512 * 1024) {
    variant<E, N, 16, 256, 2, OP>(name, x, w, y, yb, M, bms, cx);
    variant<E, N, 16, 512, 2, OP>(name, x, w, y, yb, M, bms, cx);
    variant<E, N, 8, 512, 2, OP>(name, x, w, y, yb, M, bms, cx);
  }
  CK(cudaFree(x)); CK(cudaFree(w)); CK(cudaFree(y)); CK(cudaFree(yb));
}

int main() {
  CK(cudaMalloc(&g_flush, kFlush));
  Ctx cx;
  {
    size_t n = 1ull << 30;
    void *a, *b;
    CK(cudaMalloc(&a, n));
    CK(cudaMalloc(&b, n));
    CK(cudaMemset(a, 1, n));
    float ms = time_ms([&] { CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice)); }, 10);
    cx.roof = 2.0 * n / (ms * 1e-3) / 1e12;
    printf("copy roofline %.2f TB/s\n", cx.roof);
    CK(cudaFree(a)); CK(cudaFree(b));
  }
  using rkc::bf16;
  run_case<bf16, 65536, 0>("rms_norm bf16", base_rms_norm_bf16_65536, 8, cx);
  run_case<bf16, 262144, 0>("rms_norm bf16", base_rms_norm_bf16_262144, 16, cx);
  run_case<bf16, 65536, 1>("softmax bf16", base_softmax_bf16_65536, 8, cx);
  run_case<bf16, 262144, 1>("softmax bf16", base_softmax_bf16_262144, 16, cx);
  run_case<float, 65536, 0>("rms_norm f32", base_rms_norm_f32_65536, 8, cx);
  run_case<float, 262144, 0>("rms_norm f32", base_rms_norm_f32_262144, 16, cx);
  run_case<float, 65536, 1>("softmax f32", base_softmax_f32_65536, 8, cx);
  run_case<float, 262144, 1>("softmax f32", base_softmax_f32_262144, 16, cx);
  return 0;
}
