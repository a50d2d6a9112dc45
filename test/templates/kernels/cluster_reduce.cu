// Cluster tier (sm_90a only): one row per cluster of CLUSTER CTAs x 256
// threads (8 warps). Each row is reduced twice, each with its own buf:
// an f32 sum (1-word st.async) and an online-softmax (m, l) state (2 words).
// CLUSTER = 4 gives 32 slots (one butterfly), CLUSTER = 8 gives 64 slots (the
// looped path of reduce_slots).
#include "common.cuh"

// Enumerators, not constexpr variables: NVRTC emits namespace-scope constexpr
// variables as .global symbols.
enum : int { kThreads = 256, kWarps = kThreads / 32, kW = 4, kVpt = 8 };

namespace {

/// Every CTA r of the cluster writes sum[row * CLUSTER + r] and
/// ml[row * CLUSTER + r] for the row x[row * ld .. row * ld + n).
template <int CLUSTER>
RKC_DEVICE void cluster_row(const float *x, float *sum, ML *ml, int n, int ld) {
  __shared__ float sum_buf[kWarps * CLUSTER];
  __shared__ ML ml_buf[kWarps * CLUSTER];
  rkc::cluster_arrive_relaxed();

  const int lane = rkc::lane_id();
  const int warp = rkc::warp_id();
  const int rank = static_cast<int>(rkc::cluster_ctarank());
  const int row = static_cast<int>(blockIdx.x) / CLUSTER;
  if (rkc::cluster_nctarank() != CLUSTER)
    __trap(); // launched with the wrong cluster size
  float frag[kVpt];
  rkc::load_frag<float, kVpt, kW>(
      x + static_cast<long long>(row) * ld,
      (rank * kThreads + static_cast<int>(threadIdx.x)) * kW,
      CLUSTER * kThreads * kW, n, frag, rkc::neg_inf());
  float s = 0.f;
  ML t{rkc::neg_inf(), 0.f};
#pragma unroll
  for (int v = 0; v < kVpt; ++v) {
    s += frag[v] == rkc::neg_inf() ? 0.f : frag[v];
    t = OnlineSoftmax()(t, ML{frag[v], frag[v] == rkc::neg_inf() ? 0.f : 1.f});
  }

  rkc::cluster_wait();
  s = rkc::warp_reduce<32>(s, Add());
  s = rkc::cluster_reduce<kWarps, CLUSTER>(s, Add(), sum_buf, warp,
                                           lane);
  t = rkc::warp_reduce<32>(t, OnlineSoftmax());
  t = rkc::cluster_reduce<kWarps, CLUSTER>(t, OnlineSoftmax(), ml_buf, warp,
                                           lane);
  if (threadIdx.x == 0) {
    sum[row * CLUSTER + rank] = s;
    ml[row * CLUSTER + rank] = t;
  }
}
} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
    cluster_row4(const float *__restrict__ x, float *__restrict__ sum,
                 ML *__restrict__ ml, int n, int ld) {
  cluster_row<4>(x, sum, ml, n, ld);
}

extern "C" __global__ void __launch_bounds__(kThreads)
    cluster_row8(const float *__restrict__ x, float *__restrict__ sum,
                 ML *__restrict__ ml, int n, int ld) {
  cluster_row<8>(x, sum, ml, n, ld);
}
