// rkc/stage.cuh - staging a thread's row fragments in shared memory.
//
// For rows too long for registers but short enough for shared memory
// (staging = smem): every thread copies the values it will use into its
// own slots of a shared buffer with cp.async, once; the sweeps over the row
// then read them back with shared vector loads instead of global memory.
// Slots are thread-private, so only cp.async.wait_group is needed, no
// barrier. Slot of chunk c of thread t: smem + (c * TPR + t) * W (16 bytes,
// consecutive threads consecutive: conflict-free vector accesses).
//
// Template parameters: T storage type, VPT values per thread per pass, W
// elements per vector (sizeof(T) * W == 16), TPR threads per row in the CTA.
#pragma once

#include "rkc/base.cuh"
#include "rkc/convert.cuh"
#include "rkc/vec.cuh"

namespace rkc {

namespace detail {
/// stage_frag / stage_frag_stream / stage_frag_keep: POLICY (a LoadPolicy
/// of rkc/vec.cuh) picks the copy's L2 policy.
template <class T, int VPT, int W, int TPR, int WRAP, int SURE, int POLICY>
RKC_DEVICE void stage_frag_impl(T *smem, const T *row, int col0, int col_step, int n, int t) {
  static_assert(sizeof(T) * W == 16, "rkc::stage_frag: 16-byte chunks");
#pragma unroll
  for (int c = 0; c < VPT / W; ++c) {
    const int col = col0 + c * col_step;
    T *dst = smem + (c * TPR + t) * W;
    if ((SURE > 0 && c > 0 && c < SURE) || ((WRAP == 0 || col >= 0) && col + W <= n)) {
      if constexpr (POLICY == kLoadStream)
        cp_async_16_stream(dst, row + col);
      else if constexpr (POLICY == kLoadKeep)
        cp_async_16_keep(dst, row + col);
      else
        cp_async_16(dst, row + col);
    } else {
      if constexpr (WRAP == 0) {
#pragma unroll
        for (int j = 0; j < W; ++j)
          dst[j] = col + j < n ? row[col + j] : from_f32<T>(0.0f);
      } else {
        const T *p = row + col;
#pragma unroll
        for (int j = 0; j < W; ++j) {
          const int o = detail::shifted_offset<WRAP>(c, col, j);
          dst[j] = col + o < n ? p[o] : from_f32<T>(0.0f);
        }
      }
    }
  }
}
} // namespace detail

/// Starts copying this thread's VPT values (columns col0 + c * col_step +
/// [0, W)) of `row` into its slots of `smem`; columns >= n become zeros
/// (a shifted row's slots below column 0 hold wrapped columns: rkc/vec.cuh).
/// Call cp_async_commit() and cp_async_wait_all() before reading.
template <class T, int VPT, int W, int TPR, int WRAP = 0, int SURE = 0>
RKC_DEVICE void stage_frag(T *smem, const T *row, int col0, int col_step, int n, int t) {
  detail::stage_frag_impl<T, VPT, W, TPR, WRAP, SURE, detail::kLoadNormal>(smem, row, col0, col_step,
                                                                           n, t);
}

/// As stage_frag, for rows the kernel reads once and writes nothing of (a
/// per-row result only: cross-entropy, logsumexp): the copies allocate
/// evict-first in L2 (cp_async_16_stream).
template <class T, int VPT, int W, int TPR, int WRAP = 0, int SURE = 0>
RKC_DEVICE void stage_frag_stream(T *smem, const T *row, int col0, int col_step, int n, int t) {
  detail::stage_frag_impl<T, VPT, W, TPR, WRAP, SURE, detail::kLoadStream>(smem, row, col0, col_step,
                                                                           n, t);
}

/// As stage_frag, for a row the kernel writes results behind (schedule
/// evict_last): the copies allocate evict-last in L2 (cp_async_16_keep).
template <class T, int VPT, int W, int TPR, int WRAP = 0, int SURE = 0>
RKC_DEVICE void stage_frag_keep(T *smem, const T *row, int col0, int col_step, int n, int t) {
  detail::stage_frag_impl<T, VPT, W, TPR, WRAP, SURE, detail::kLoadKeep>(smem, row, col0, col_step,
                                                                         n, t);
}

/// Reads back the fragment that stage_frag staged for thread `t`.
template <class T, int VPT, int W, int TPR>
RKC_DEVICE void load_frag_staged(const T *smem, int t, float (&frag)[VPT]) {
#pragma unroll
  for (int c = 0; c < VPT / W; ++c)
    load_vec_shared<T, W>(smem + (c * TPR + t) * W,
                          *reinterpret_cast<float(*)[W]>(frag + c * W));
}

/// Keeps a fragment this thread loaded from global memory (a pass of a
/// streamed row, schedule `keep`) in its slots of `smem`, in stage_frag's
/// layout, for later sweeps to read back with load_frag_staged instead of
/// global memory. The slots are thread-private: no barrier. (The fragment
/// is taken by non-const reference, as in load_frag_staged, so that a float
/// fragment never tries the PackedFrag overload's conversion.)
template <class T, int VPT, int W, int TPR>
RKC_DEVICE void keep_frag(T *smem, int t, PackedFrag<T, VPT> &frag) {
  static_assert(sizeof(T) * W == 16, "rkc::keep_frag: 16-byte chunks");
#pragma unroll
  for (int c = 0; c < VPT / W; ++c)
    *reinterpret_cast<uint4 *>(smem + (c * TPR + t) * W) =
        make_uint4(frag.w[c * W / 2], frag.w[c * W / 2 + 1], frag.w[c * W / 2 + 2],
                   frag.w[c * W / 2 + 3]);
}

/// As above, for a fragment widened to float (narrowed back exactly: its
/// values came from T).
template <class T, int VPT, int W, int TPR>
RKC_DEVICE void keep_frag(T *smem, int t, float (&frag)[VPT]) {
  static_assert(sizeof(T) * W == 16, "rkc::keep_frag: 16-byte chunks");
#pragma unroll
  for (int c = 0; c < VPT / W; ++c) {
    alignas(16) T v[W];
#pragma unroll
    for (int j = 0; j < W; ++j) v[j] = from_f32<T>(frag[c * W + j]);
    *reinterpret_cast<uint4 *>(smem + (c * TPR + t) * W) = *reinterpret_cast<const uint4 *>(v);
  }
}

/// As load_frag_staged, into a packed fragment (16-byte slots, raw words).
template <class T, int VPT, int W, int TPR>
RKC_DEVICE void load_frag_staged(const T *smem, int t, PackedFrag<T, VPT> &frag) {
  typedef detail::Access<16> A;
#pragma unroll
  for (int c = 0; c < VPT / W; ++c)
    A::load_shared(smem_addr(smem + (c * TPR + t) * W),
                   *reinterpret_cast<u32(*)[A::WORDS]>(frag.w + c * W / 2));
}

/// Starts copying 16-byte units [u0, u1) of ROWS rows into shared memory
/// with cp.async, thread `t` of `nt` taking units t, t + nt, ...: row m's
/// unit j from src + m * stride + 8 j (T 16-bit) to dst + m * ROW_WORDS +
/// 4 j (32-bit words). One address computation per unit, the rows
/// unrolled: no division per copy. Call cp_async_commit() and a wait (and a
/// barrier of the threads that read them) before reading.
template <int ROWS, int ROW_WORDS, class T>
RKC_DEVICE void stage_rows_async(u32 *dst, const T *src, long long stride, int u0, int u1, int t,
                                 int nt) {
  static_assert(sizeof(T) == 2, "rkc::stage_rows_async: 16-bit values, 8 per unit");
  for (int j = u0 + t; j < u1; j += nt) {
#pragma unroll
    for (int m = 0; m < ROWS; ++m)
      cp_async_16(dst + m * ROW_WORDS + 4 * j, src + m * stride + 8 * j);
  }
}

} // namespace rkc
