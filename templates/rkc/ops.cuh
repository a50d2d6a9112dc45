// rkc/ops.cuh - scalar helpers and reduction functors used by generated code.
//
// Generated kernels compute in f32; narrow float values (bf16, f16) are
// carried as floats holding a rounded value (round_bf16 / round_f16).
// The functors combine reduction states; each is associative and
// commutative (up to rounding) and has a known identity:
//   OpAdd 0, OpMul 1, OpMax -inf / INT_MIN, OpMin +inf / INT_MAX,
//   OpArgMax / OpArgMin (value, index): the extreme value, lowest index on
//   ties, NaN counts as the maximum (as in PyTorch); identity (+-inf, -1).
#pragma once

#include "rkc/base.cuh"
#include "rkc/convert.cuh"

namespace rkc {

/// max / min that propagate NaN (arith.maximumf / arith.minimumf). From
/// sm_80 one `max.NaN.f32` / `min.NaN.f32` (a single FMNMX.NAN); before it,
/// a NaN test and a select around fmaxf / fminf (three instructions, which
/// in a max over a 16-bit row was a fifth of the per-element work).
RKC_DEVICE float maximumf(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float y;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
#else
  return (a != a || b != b) ? __uint_as_float(0x7fc00000u) : fmaxf(a, b);
#endif
}
RKC_DEVICE float minimumf(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float y;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
#else
  return (a != a || b != b) ? __uint_as_float(0x7fc00000u) : fminf(a, b);
#endif
}

/// f32 rounded to the nearest bf16 / f16 value, kept as f32.
RKC_DEVICE float round_bf16(float x) { return to_f32(from_f32<bf16>(x)); }
RKC_DEVICE float round_f16(float x) { return to_f32(from_f32<f16>(x)); }

struct OpAdd {
  template <class S> RKC_DEVICE S operator()(const S &a, const S &b) const { return a + b; }
};
struct OpMul {
  template <class S> RKC_DEVICE S operator()(const S &a, const S &b) const { return a * b; }
};
struct OpMax {
  RKC_DEVICE float operator()(float a, float b) const { return maximumf(a, b); }
  template <class S> RKC_DEVICE S operator()(const S &a, const S &b) const { return a > b ? a : b; }
};
struct OpMin {
  RKC_DEVICE float operator()(float a, float b) const { return minimumf(a, b); }
  template <class S> RKC_DEVICE S operator()(const S &a, const S &b) const { return a < b ? a : b; }
};

/// An (extreme value, column index) state. V is float or an integer type,
/// I an integer type; sizeof is a multiple of 4 so it can be shuffled.
template <class V, class I> struct ValIdx {
  V v;
  I i;
};

/// True if (bv, bi) beats (av, ai) for argmax: larger, NaN first, then the
/// lowest index. Index -1 marks the identity and always loses.
template <class V, class I>
RKC_DEVICE bool argmax_better(V av, I ai, V bv, I bi) {
  if (ai < 0) return bi >= 0;
  if (bi < 0) return false;
  bool an = av != av, bn = bv != bv;
  if (an || bn) return bn && (!an || bi < ai);
  return bv > av || (bv == av && bi < ai);
}
template <class V, class I>
RKC_DEVICE bool argmin_better(V av, I ai, V bv, I bi) {
  if (ai < 0) return bi >= 0;
  if (bi < 0) return false;
  bool an = av != av, bn = bv != bv;
  if (an || bn) return bn && (!an || bi < ai);
  return bv < av || (bv == av && bi < ai);
}

struct OpArgMax {
  template <class V, class I>
  RKC_DEVICE ValIdx<V, I> operator()(const ValIdx<V, I> &a, const ValIdx<V, I> &b) const {
    return argmax_better(a.v, a.i, b.v, b.i) ? b : a;
  }
};
struct OpArgMin {
  template <class V, class I>
  RKC_DEVICE ValIdx<V, I> operator()(const ValIdx<V, I> &a, const ValIdx<V, I> &b) const {
    return argmin_better(a.v, a.i, b.v, b.i) ? b : a;
  }
};

} // namespace rkc
