// Conversions and fast math: f32 -> bf16 / f16 (round to nearest even, NaN,
// overflow) and back, fast_exp, fast_log, rsqrt, div_approx.
#include "rkc/rkc.cuh"

/// For i < n: b[i] = bf16(x[i]), h[i] = f16(x[i]), back[2i] / back[2i+1] =
/// f32(b[i]) / f32(h[i]); math[4i..4i+4) = fast_exp(x), fast_log(|x|),
/// rsqrt(|x|), div_approx(x, 3) (+inf for |x| == 0 via pos_inf()).
extern "C" __global__ void convert(const float *__restrict__ x,
                                   rkc::bf16 *__restrict__ b,
                                   rkc::f16 *__restrict__ h,
                                   float *__restrict__ back,
                                   float *__restrict__ math, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n)
    return;
  const float v = rkc::load_scalar(x + i);
  const rkc::bf16 vb = rkc::from_f32<rkc::bf16>(v);
  const rkc::f16 vh = rkc::from_f32<rkc::f16>(v);
  b[i] = vb;
  h[i] = vh;
  back[2 * i] = rkc::to_f32(vb);
  back[2 * i + 1] = rkc::to_f32(vh);
  const float a = fabsf(v);
  math[4 * i] = rkc::fast_exp(v);
  math[4 * i + 1] = rkc::fast_log(a);
  math[4 * i + 2] = a == 0.f ? rkc::pos_inf() : rkc::rsqrt(a);
  math[4 * i + 3] = rkc::div_approx(v, 3.f);
}
