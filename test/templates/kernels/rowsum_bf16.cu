// Row sum of a bf16 matrix: 256 threads = 2 rows x 4 warps per CTA; each
// thread owns VPT = 16 values of its row (2 chunks of W = 8, 16-byte loads).
// Exercises load_frag (vector + tail), warp_reduce<32> and block_reduce<4>.
#include "common.cuh"

// Enumerators, not constexpr variables: NVRTC emits namespace-scope constexpr
// variables as .global symbols.
enum : int {
  kThreads = 256,
  kWarpsPerRow = 4,
  kRowsPerCta = kThreads / (32 * kWarpsPerRow),
  kThreadsPerRow = 32 * kWarpsPerRow,
  kW = 8,
  kVpt = 16,
};

/// out[r] = sum(x[r * ld + c] for c < n); ld is a multiple of 8.
extern "C" __global__ void __launch_bounds__(kThreads)
    rowsum_bf16(const rkc::bf16 *__restrict__ x, float *__restrict__ out,
                int rows, int n, int ld) {
  __shared__ float red[kRowsPerCta * kWarpsPerRow];
  const int lane = rkc::lane_id();
  const int warp = rkc::warp_id();
  const int row_in_cta = warp / kWarpsPerRow;
  const int warp_in_row = warp % kWarpsPerRow;
  const int tid_in_row = static_cast<int>(threadIdx.x) % kThreadsPerRow;
  const int row = static_cast<int>(blockIdx.x) * kRowsPerCta + row_in_cta;

  float frag[kVpt];
  // Rows past the end see an empty row (n = 0): every value is the fill.
  rkc::load_frag<rkc::bf16, kVpt, kW>(x + static_cast<long long>(row) * ld,
                                      tid_in_row * kW, kThreadsPerRow * kW,
                                      row < rows ? n : 0, frag, 0.f);
  float s = 0.f;
#pragma unroll
  for (int v = 0; v < kVpt; ++v)
    s += frag[v];
  s = rkc::warp_reduce<32>(s, Add());
  s = rkc::block_reduce<kWarpsPerRow>(s, Add(), red, row_in_cta, warp_in_row,
                                      lane);
  if (row < rows && tid_in_row == 0)
    out[row] = s;
}
