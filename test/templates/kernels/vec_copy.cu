// Vector accesses: fragment copies of bf16 / f16 / f32 rows with W = 8 / 8 / 4
// (16-byte accesses) and a ragged tail, the streaming load variant, the
// cp.async -> shared -> register path, and scalar / index accesses.
#include "rkc/rkc.cuh"

namespace {
/// y[r, :n] = 2 * x[r, :n] with one CTA of 128 threads per row; rows have
/// stride ld (a multiple of W). STREAM selects load_frag_stream.
template <class T, int W, bool STREAM>
RKC_DEVICE void scale_rows(const T *x, T *y, int n, int ld) {
  constexpr int kThreads = 128; // function-local: not emitted as a symbol
  constexpr int kVpt = 2 * W;
  const long long base = static_cast<long long>(blockIdx.x) * ld;
  const int col0 = static_cast<int>(threadIdx.x) * W;
  float frag[kVpt];
  if constexpr (STREAM)
    rkc::load_frag_stream<T, kVpt, W>(x + base, col0, kThreads * W, n, frag,
                                      0.f);
  else
    rkc::load_frag<T, kVpt, W>(x + base, col0, kThreads * W, n, frag, 0.f);
#pragma unroll
  for (int v = 0; v < kVpt; ++v)
    frag[v] *= 2.f;
  rkc::store_frag<T, kVpt, W>(y + base, col0, kThreads * W, n, frag);
}
} // namespace

extern "C" __global__ void __launch_bounds__(128)
    scale_bf16(const rkc::bf16 *__restrict__ x, rkc::bf16 *__restrict__ y,
               int n, int ld) {
  scale_rows<rkc::bf16, 8, false>(x, y, n, ld);
}

extern "C" __global__ void __launch_bounds__(128)
    scale_f16(const rkc::f16 *__restrict__ x, rkc::f16 *__restrict__ y, int n,
              int ld) {
  scale_rows<rkc::f16, 8, true>(x, y, n, ld);
}

extern "C" __global__ void __launch_bounds__(128)
    scale_f32(const float *__restrict__ x, float *__restrict__ y, int n,
              int ld) {
  scale_rows<float, 4, false>(x, y, n, ld);
}

/// y[i] = x[i] + x[i ^ 8] (i < 128 * 8) staged through shared memory with
/// cp.async; each thread copies and reads one 16-byte vector of 8 bf16, then
/// stores it with load_vec/store_vec of the sum.
extern "C" __global__ void __launch_bounds__(128)
    stage_bf16(const rkc::bf16 *__restrict__ x, rkc::bf16 *__restrict__ y) {
  __shared__ rkc::Vec<rkc::bf16, 8> stage[128];
  const int t = static_cast<int>(threadIdx.x);
  rkc::cp_async_16(&stage[t], x + t * 8);
  rkc::cp_async_commit();
  rkc::cp_async_wait_all();
  __syncthreads();
  float a[8], b[8];
  rkc::load_vec_shared<rkc::bf16, 8>(stage[t].v, a);
  rkc::load_vec<rkc::bf16, 8>(x + (t ^ 1) * 8, b);
#pragma unroll
  for (int j = 0; j < 8; ++j)
    a[j] += b[j];
  rkc::store_vec<rkc::bf16, 8>(y + t * 8, a);
}

/// out[i] = f16(table[idx32[i]] + table[idx64[i]]) for i < m (scalar paths).
extern "C" __global__ void gather_f16(const rkc::f16 *__restrict__ table,
                                      const int *__restrict__ idx32,
                                      const long long *__restrict__ idx64,
                                      rkc::f16 *__restrict__ out, int m) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= m)
    return;
  const float s = rkc::load_scalar(table + rkc::load_index(idx32 + i)) +
                  rkc::load_scalar(table + rkc::load_index(idx64 + i));
  rkc::store_scalar(out + i, s);
}
