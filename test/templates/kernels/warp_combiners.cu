// Struct states through the warp and CTA tiers: an online-softmax (m, l)
// reduction over a 256-thread row (warp_reduce<32> + block_reduce<8>) and
// arg-max over sub-warp groups of 16 lanes (warp_reduce<16>).
#include "common.cuh"

/// ml[t] = (max, sum exp(x - max)) over x[0..256), written by every thread t;
/// am[t] = (max, first index of it) over x[16 g .. 16 g + 16) for thread t of
/// group g = t / 16. The host checks that all lanes agree bitwise.
extern "C" __global__ void __launch_bounds__(256)
    warp_combiners(const float *__restrict__ x, ML *__restrict__ ml,
                   VI *__restrict__ am) {
  __shared__ ML red[8];
  const int lane = rkc::lane_id();
  const int warp = rkc::warp_id();
  const int t = static_cast<int>(threadIdx.x);
  const float v = rkc::load_scalar(x + t);

  ML s = rkc::warp_reduce<32>(ML{v, 1.f}, OnlineSoftmax());
  s = rkc::block_reduce<8>(s, OnlineSoftmax(), red, 0, warp, lane);
  ml[t] = s;

  am[t] = rkc::warp_reduce<16>(VI{v, t}, ArgMax());
}
