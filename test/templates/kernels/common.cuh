// Combiners shared by the template test kernels (included with a relative
// path; not part of the rkc headers).
#pragma once

#include "rkc/rkc.cuh"

/// f32 sum.
struct Add {
  RKC_DEVICE float operator()(const float &a, const float &b) const {
    return a + b;
  }
};

/// f32 max.
struct Max {
  RKC_DEVICE float operator()(const float &a, const float &b) const {
    return fmaxf(a, b);
  }
};

/// Online-softmax state: running max m and sum l of exp(x - m).
struct ML {
  float m, l;
};

/// Merges two online-softmax states. Written symmetrically (bitwise
/// commutative); a side whose max equals the merged max is scaled by exactly 1,
/// which also keeps two empty states (m = -inf, l = 0) from producing NaN.
struct OnlineSoftmax {
  RKC_DEVICE ML operator()(const ML &a, const ML &b) const {
    const float m = fmaxf(a.m, b.m);
    const float sa = a.m == m ? 1.f : rkc::fast_exp(a.m - m);
    const float sb = b.m == m ? 1.f : rkc::fast_exp(b.m - m);
    return ML{m, a.l * sa + b.l * sb};
  }
};

/// Arg-max state.
struct VI {
  float v;
  int i;
};

/// Arg-max with the smallest index winning ties (commutative).
struct ArgMax {
  RKC_DEVICE VI operator()(const VI &a, const VI &b) const {
    return (a.v > b.v || (a.v == b.v && a.i < b.i)) ? a : b;
  }
};
