// int8 storage (signed char): f32 -> i8 narrowing (round half to even,
// saturation, NaN -> -128) without conversion instructions, exact widening,
// fragments of 16 int8 (one 16-byte access) stored from f32 or int values
// and loaded back, and 2-element (element-wise) accesses.
#include "rkc/rkc.cuh"

/// For i < n: q[i] = i8(x[i]) (scalar from_f32), back[i] = f32(q[i]).
extern "C" __global__ void __launch_bounds__(128)
    narrow_s8(const float *__restrict__ x, signed char *__restrict__ q,
              float *__restrict__ back, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n)
    return;
  const signed char v = rkc::from_f32<signed char>(rkc::load_scalar(x + i));
  q[i] = v;
  back[i] = rkc::to_f32(v);
}

/// One CTA of 128 threads per row of n (stride ld, a multiple of 16):
/// q[r, :n] = i8(x[r, :n]) through store_frag<signed char, 32, 16> from f32
/// values, then back[r, :n] = f32(q[r, :n]) through load_frag<signed char>
/// of the same columns (this thread's own stores).
extern "C" __global__ void __launch_bounds__(128)
    frag_s8(const float *__restrict__ x, signed char *__restrict__ q,
            float *__restrict__ back, int n, int ld) {
  constexpr int W = 16, V = 32, kThreads = 128;
  const long long base = static_cast<long long>(blockIdx.x) * ld;
  const int col0 = static_cast<int>(threadIdx.x) * W;
  float f[V];
  rkc::load_frag<float, V, W>(x + base, col0, kThreads * W, n, f, 0.f);
  rkc::store_frag<signed char, V, W>(q + base, col0, kThreads * W, n, f);
  float g[V];
  rkc::load_frag<signed char, V, W>(q + base, col0, kThreads * W, n, g, 0.f);
  rkc::store_frag<float, V, W>(back + base, col0, kThreads * W, n, g);
}

/// q[i] = (i % 251) - 125 as int values: store_frag<signed char, 16, 16>
/// from an int fragment (one 16-byte store per thread), then the same
/// through 2-element accesses (W = 2: element-wise) into q2.
extern "C" __global__ void __launch_bounds__(128)
    int_s8(signed char *__restrict__ q, signed char *__restrict__ q2) {
  const int col0 = static_cast<int>(threadIdx.x) * 16;
  int f[16];
#pragma unroll
  for (int v = 0; v < 16; ++v)
    f[v] = (col0 + v) % 251 - 125;
  rkc::store_frag<signed char, 16, 16>(q, col0, 128 * 16, 128 * 16, f);
  rkc::store_frag<signed char, 16, 2>(q2, static_cast<int>(threadIdx.x) * 2, 128 * 2,
                                      128 * 16, f);
}
