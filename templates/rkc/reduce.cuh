// rkc/reduce.cuh - warp and CTA tiers of a row reduction, for any combiner.
//
// Template parameters:
//   S              reduction state: any trivially copyable type whose size is a
//                  multiple of 4 bytes (float, int, struct {float m, l;},
//                  struct {float v; int idx;}, ...). It is moved between lanes
//                  32 bits at a time and kept in shared memory as-is.
//   Op             combiner functor: `RKC_DEVICE S operator()(const S& a,
//                  const S& b) const`, associative and commutative up to
//                  rounding (add, max, online-softmax (m, l) merges, arg-max
//                  with an index tie-break, ...). No identity element is
//                  needed. op(a, b) and op(b, a) need not be bitwise equal
//                  (FMA contraction often makes them differ): partners always
//                  combine in lane order, so every lane of a group, and every
//                  CTA of a cluster, ends with the bitwise-same result.
//   WIDTH          lanes of a warp_reduce group: a power of two in [1, 32].
//   WARPS_PER_ROW  warps that cooperate on one row in block_reduce: a power of
//                  two in [1, 32].
//
// Tiers: a row is first reduced in registers by each thread, then across the
// lanes of a warp (warp_reduce), then across the warps of the row inside the
// CTA (block_reduce, through shared memory), and in cluster mode across the
// CTAs of a cluster (cluster_reduce, rkc/cluster.cuh).
#pragma once

#include "rkc/base.cuh"
#include "rkc/ops.cuh"

namespace rkc {

/// Thread tier of an online softmax reduction (the (max, sum of exp(x -
/// max)) state that rk-fuse-reductions forms), G values at a time: for
/// each group c of a thread's V values `x[i]` (i in [c G, c G + G), those
/// with `valid(i)`), m = max x[i] and s = sum exp(x[i] - m) in registers,
/// handed to `merge(c, m, s)`, which combines the state into the running
/// one with the generated combiner: one combine per group instead of one
/// per value (an exp, a max and a min, three selects). G = W (a vector)
/// folds each vector as soon as its load is in, as the per-value combine
/// did; G = V waits for the whole pass and spends the fewest instructions.
/// A group with no valid or no finite-max value gives (-inf, 0), which the
/// combiner treats as empty; NaN propagates. FAST: exp as
/// fast_exp2(x * log2 e - m * log2 e) (one FMA), else expf(x - m); where
/// m * log2 e would overflow (|m| > 1e38: bf16 holds up to 3.4e38) FAST
/// subtracts first, fast_exp2((x - m) * log2 e), so that exp(m - m) is 1
/// (the FMA form gave 0 there, and a softmax row of such values NaN).
template <int V, int G, bool FAST, class Frag, class Valid, class Merge>
RKC_DEVICE void fold_max_exp_sum(const Frag &x, Valid valid, Merge merge) {
  static_assert(V % G == 0, "groups must tile the values");
  // Groups of 16 or more values: four partial max / sum chains each (a
  // vector-sized group is short enough for one).
  constexpr int P = G >= 16 ? 4 : 1;
#pragma unroll
  for (int c = 0; c < V / G; ++c) {
    float mp[P];
#pragma unroll
    for (int k = 0; k < P; ++k) mp[k] = neg_inf();
#pragma unroll
    for (int j = 0; j < G; ++j)
      if (valid(c * G + j)) mp[j % P] = maximumf(mp[j % P], (float)x[c * G + j]);
    float m = mp[0];
#pragma unroll
    for (int k = 1; k < P; ++k) m = maximumf(m, mp[k]);
    const float shift = m == neg_inf() ? 0.0f : m;
    const float shift2 = shift * log2e();
    float sp[P];
#pragma unroll
    for (int k = 0; k < P; ++k) sp[k] = 0.0f;
    if (FAST && !(fabsf(shift) > 1e38f)) {
#pragma unroll
      for (int j = 0; j < G; ++j)
        if (valid(c * G + j))
          sp[j % P] += fast_exp2(fmaf((float)x[c * G + j], log2e(), -shift2));
    } else {
#pragma unroll
      for (int j = 0; j < G; ++j)
        if (valid(c * G + j))
          sp[j % P] += FAST ? fast_exp2(((float)x[c * G + j] - shift) * log2e())
                            : expf((float)x[c * G + j] - shift);
    }
    float s = sp[0];
#pragma unroll
    for (int k = 1; k < P; ++k) s += sp[k];
    merge(c, m, s);
  }
}

/// Thread tier of a Welford reduction (the (count, mean, M2) state that
/// rk-fuse-reductions forms for a variance), G values at a time: for each
/// group c of a thread's V values `x[i]` (i in [c G, c G + G), those with
/// `valid(i)`), n = their count, mean = their sum / n and m2 = the sum of
/// (x[i] - mean)^2, in registers (two passes over the group), handed to
/// `merge(c, n, mean, m2)`, which combines the state into the running one
/// with the generated (Chan) combiner: one combine per group instead of one
/// per value (a division each). Both passes are exact two-pass statistics
/// of the group, so nothing cancels. An empty group gives (0, 0, 0), which
/// the combiner treats as empty; inf / NaN propagate.
template <int V, int G, class Frag, class Valid, class Merge>
RKC_DEVICE void fold_mean_m2(const Frag &x, Valid valid, Merge merge) {
  static_assert(V % G == 0, "groups must tile the values");
  constexpr int P = G >= 16 ? 4 : 1; // partial sums per pass, as above
#pragma unroll
  for (int c = 0; c < V / G; ++c) {
    float sp[P];
    int n = 0;
#pragma unroll
    for (int k = 0; k < P; ++k) sp[k] = 0.0f;
#pragma unroll
    for (int j = 0; j < G; ++j)
      if (valid(c * G + j)) {
        sp[j % P] += (float)x[c * G + j];
        ++n;
      }
    float s = sp[0];
#pragma unroll
    for (int k = 1; k < P; ++k) s += sp[k];
    // A constant count (every value valid) makes this a multiplication.
    const float mean = n > 0 ? s / (float)n : 0.0f;
    float qp[P];
#pragma unroll
    for (int k = 0; k < P; ++k) qp[k] = 0.0f;
#pragma unroll
    for (int j = 0; j < G; ++j)
      if (valid(c * G + j)) {
        const float d = (float)x[c * G + j] - mean;
        qp[j % P] = fmaf(d, d, qp[j % P]);
      }
    float q = qp[0];
#pragma unroll
    for (int k = 1; k < P; ++k) q += qp[k];
    merge(c, (float)n, mean, q);
  }
}

/// Thread tier of an argmax (MAX) / argmin reduction, G values at a time:
/// for each group c of a thread's V values `x[i]` (those with `valid(i)`),
/// the extreme value m (max.NaN / min.NaN: NaN when a value is NaN, as
/// PyTorch's argmax counts it) and the lowest column holding it, handed to
/// `merge(c, m, col)`, which combines them into the running (value, index)
/// state with OpArgMax / OpArgMin once per group; col is -1, the identity,
/// for a group with no valid value. Two passes over the group in registers
/// (one min / max per value, then one compare and select) instead of a
/// generic combine per value (index compares, NaN tests and branches, ~20
/// instructions each). `col(i)` is value i's column. ASCENDING: the columns
/// grow with i, so the second pass runs backwards and keeps the last slot
/// that matches (the lowest column); else (a shifted row, whose first
/// slots may hold its last columns) it compares the columns. The emitter
/// folds whole passes (G = V: vectors of streamed f32 rows measured 3-7 %
/// slower, EmitCuda.cpp).
template <bool MAX, int V, int G, bool ASCENDING, class Frag, class Valid, class Col,
          class Merge>
RKC_DEVICE void fold_arg_extreme(const Frag &x, Valid valid, Col col, Merge merge) {
  static_assert(V % G == 0, "groups must tile the values");
  constexpr int P = G >= 16 ? 4 : 1; // partial extremes, as above
#pragma unroll
  for (int c = 0; c < V / G; ++c) {
    float mp[P];
#pragma unroll
    for (int k = 0; k < P; ++k) mp[k] = MAX ? neg_inf() : pos_inf();
#pragma unroll
    for (int j = 0; j < G; ++j)
      if (valid(c * G + j)) {
        const float v = (float)x[c * G + j];
        mp[j % P] = MAX ? maximumf(mp[j % P], v) : minimumf(mp[j % P], v);
      }
    float m = mp[0];
#pragma unroll
    for (int k = 1; k < P; ++k) m = MAX ? maximumf(m, mp[k]) : minimumf(m, mp[k]);
    // A value matches when it equals m, or is NaN (then m is NaN too: no
    // value equals it, and every NaN matches).
    int best = -1;
    if (ASCENDING) {
      int slot = -1;
#pragma unroll
      for (int j = G - 1; j >= 0; --j) {
        const float v = (float)x[c * G + j];
        if (valid(c * G + j) && (v == m || v != v)) slot = j;
      }
      best = slot < 0 ? -1 : col(c * G + slot);
    } else {
#pragma unroll
      for (int j = 0; j < G; ++j) {
        const float v = (float)x[c * G + j];
        const int k = col(c * G + j);
        if (valid(c * G + j) && (v == m || v != v) && (best < 0 || k < best)) best = k;
      }
    }
    merge(c, m, best);
  }
}

/// __shfl_xor_sync of an arbitrary state: each 32-bit word of `v` is exchanged
/// with lane (lane ^ lane_mask) of its `width`-lane segment (one
/// shfl.sync.bfly.b32 per word). All 32 lanes of the warp must call it.
template <class S> RKC_DEVICE S shfl_xor(const S &v, int lane_mask, int width) {
  static_assert(sizeof(S) % 4 == 0,
                "rkc::shfl_xor: sizeof(S) must be a multiple of 4");
  constexpr int N = sizeof(S) / 4;
  u32 w[N];
  memcpy(w, &v, sizeof(S));
#pragma unroll
  for (int i = 0; i < N; ++i)
    w[i] = __shfl_xor_sync(0xffffffffu, w[i], lane_mask, width);
  S r;
  memcpy(&r, w, sizeof(S));
  return r;
}

namespace detail {

/// c ? a : b for any state, selected word by word so that S stays in
/// registers (a conditional on whole objects selects their addresses and
/// forces them into local memory).
template <class S> RKC_DEVICE S select(bool c, const S &a, const S &b) {
  constexpr int N = sizeof(S) / 4;
  u32 wa[N], wb[N];
  memcpy(wa, &a, sizeof(S));
  memcpy(wb, &b, sizeof(S));
#pragma unroll
  for (int i = 0; i < N; ++i)
    wa[i] = c ? wa[i] : wb[i];
  S r;
  memcpy(&r, wa, sizeof(S));
  return r;
}

} // namespace detail

/// Butterfly reduction inside aligned groups of WIDTH lanes: lanes
/// [k*WIDTH, (k+1)*WIDTH) reduce their values independently and every lane of
/// a group ends with the group's result, bitwise identical in all its lanes:
/// at each step both partners evaluate op(lower lane's value, upper lane's
/// value). WIDTH == 1 returns `v`. All 32 lanes of the warp must call it.
template <int WIDTH, class S, class Op> RKC_DEVICE S warp_reduce(S v, Op op) {
  static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0,
                "rkc::warp_reduce: WIDTH must be a power of two in [1, 32]");
  const int lane = lane_id();
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2) {
    const S other = shfl_xor(v, offset, WIDTH);
    const bool upper = (lane & offset) != 0;
    v = op(detail::select(upper, other, v), detail::select(upper, v, other));
  }
  return v;
}

namespace detail {

/// The lowest of the ints `k` of a group of WIDTH lanes (redux.sync for
/// whole warps on sm_80 and later, else a shuffle butterfly).
template <int WIDTH> RKC_DEVICE int group_min(int k) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (WIDTH == 32)
    return __reduce_min_sync(0xffffffffu, k);
#endif
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2)
    k = min(k, __shfl_xor_sync(0xffffffffu, k, offset, WIDTH));
  return k;
}

/// warp_reduce of an argmax (MAX) / argmin state: the extreme value by a
/// butterfly of max.NaN / min.NaN (exact: every lane gets the same one),
/// then the lowest index among the lanes holding it (or a NaN, which is
/// then the extreme; never an identity lane, index < 0). Two shuffles'
/// worth of work a step instead of a generic (value, index) combine with
/// its NaN tests, 64-bit index compares and branches. Indices are columns
/// of a row (below 2^31); a group of identity states stays the identity.
/// The butterflies are plain, not warp_reduce's: it selects lower / upper
/// operands each step for order-sensitive combiners, which max, min and the
/// integer min are not (reusing it measured 20-200 more PTX instructions
/// per kernel).
template <int WIDTH, bool MAX, class I>
RKC_DEVICE ValIdx<float, I> warp_reduce_arg(const ValIdx<float, I> &s) {
  static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0,
                "rkc::warp_reduce: WIDTH must be a power of two in [1, 32]");
  float m = s.v;
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2) {
    const float o = __shfl_xor_sync(0xffffffffu, m, offset, WIDTH);
    m = MAX ? maximumf(m, o) : minimumf(m, o);
  }
  constexpr int kNone = 0x7fffffff;
  const bool holds = s.i >= 0 && (s.v == m || s.v != s.v);
  const int k = group_min<WIDTH>(holds ? (int)s.i : kNone);
  return ValIdx<float, I>{m, k == kNone ? (I)-1 : (I)k};
}

} // namespace detail

/// warp_reduce of argmax / argmin states (the result OpArgMax / OpArgMin
/// would give, in every lane; see detail::warp_reduce_arg).
template <int WIDTH, class I>
RKC_DEVICE ValIdx<float, I> warp_reduce(ValIdx<float, I> v, OpArgMax) {
  return detail::warp_reduce_arg<WIDTH, true>(v);
}
template <int WIDTH, class I>
RKC_DEVICE ValIdx<float, I> warp_reduce(ValIdx<float, I> v, OpArgMin) {
  return detail::warp_reduce_arg<WIDTH, false>(v);
}

namespace detail {

/// Reduces the N slots slots[0..N) (N a power of two) and returns the result
/// in every lane of the warp, without an identity element.
///
/// With G = min(N, 32), lane l accumulates the slots congruent to l mod G
/// (slot l % G, then l % G + G, ...), so each aligned group of G consecutive
/// lanes holds exactly one partial for every residue class, i.e. it covers
/// every slot exactly once. warp_reduce<G> then combines the G partials of the
/// group: each slot enters the result exactly once, as required by
/// non-idempotent combiners such as add. Every group holds the same values in
/// the same positions and combines them in the same order, so all 32 lanes
/// (and every CTA reducing the same slots) end with the bitwise-same result.
template <int N, class S, class Op>
RKC_DEVICE S reduce_slots(const S *slots, Op op, int lane) {
  static_assert(N >= 1 && (N & (N - 1)) == 0,
                "rkc: number of reduction slots must be a power of two");
  constexpr int G = N < 32 ? N : 32;
  const int r = lane & (G - 1);
  S acc = slots[r];
#pragma unroll
  for (int k = 1; k < N / G; ++k)
    acc = op(acc, slots[k * G + r]);
  return warp_reduce<G>(acc, op);
}

} // namespace detail

/// Reduces across the WARPS_PER_ROW warps that share a row inside the CTA.
///
///  v            this warp's warp-reduced value (identical in all its lanes)
///  smem         shared buffer of rows_per_cta * WARPS_PER_ROW elements used by
///               this reduction only (never reused: the single barrier below
///               does not protect a later overwrite against slow readers)
///  row_in_cta   row of the calling warp inside the CTA
///  warp_in_row  index of the calling warp among the warps of its row
///  lane         lane_id()
///
/// Lane 0 of each warp publishes v in smem[row_in_cta * WARPS_PER_ROW +
/// warp_in_row]; after one __syncthreads() every warp combines the
/// WARPS_PER_ROW entries of its row with detail::reduce_slots (exact, see
/// there). Returns the row's result in every thread of the row.
///
/// Contains a __syncthreads(): every thread of the CTA must call it, in
/// uniform control flow. WARPS_PER_ROW == 1 returns v (no barrier, no smem).
template <int WARPS_PER_ROW, class S, class Op>
RKC_DEVICE S block_reduce(S v, Op op, S *smem, int row_in_cta, int warp_in_row,
                          int lane) {
  static_assert(
      WARPS_PER_ROW >= 1 && WARPS_PER_ROW <= 32 &&
          (WARPS_PER_ROW & (WARPS_PER_ROW - 1)) == 0,
      "rkc::block_reduce: WARPS_PER_ROW must be a power of two in [1, 32]");
  if constexpr (WARPS_PER_ROW == 1) {
    return v;
  } else {
    S *row_slots = smem + row_in_cta * WARPS_PER_ROW;
    if (lane == 0)
      row_slots[warp_in_row] = v;
    __syncthreads();
    return detail::reduce_slots<WARPS_PER_ROW>(row_slots, op, lane);
  }
}

} // namespace rkc
