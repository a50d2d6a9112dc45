// rkc/convert.cuh - 16-bit storage types and f32 conversions.
//
// bf16 and f16 are *storage* types: 2-byte structs holding the raw bits.
// All arithmetic happens in f32; values are widened with to_f32() on load and
// narrowed with from_f32<T>() (round-to-nearest-even) on store. No
// cuda_fp16.h / cuda_bf16.h is needed.
//
// Template parameters:
//   T  storage type: float, bf16 or f16 (from_f32, WordCodec).
//
// Requires sm_80+ (cvt.rn.bf16.f32, cvt.rn.{bf16,f16}x2.f32).
#pragma once

#include "rkc/base.cuh"

namespace rkc {

/// bfloat16 storage: 1 sign, 8 exponent, 7 mantissa bits (upper half of f32).
struct alignas(2) bf16 {
  u16 bits;
};

/// IEEE binary16 storage: 1 sign, 5 exponent, 10 mantissa bits.
struct alignas(2) f16 {
  u16 bits;
};

static_assert(sizeof(bf16) == 2 && sizeof(f16) == 2,
              "rkc: 16-bit storage types must be 2 bytes");

// ---------------------------------------------------------------------------
// Widening to f32 (exact for every storage type except 64-bit integers).
// ---------------------------------------------------------------------------

/// Identity.
RKC_DEVICE float to_f32(float x) { return x; }

/// bf16 -> f32 (exact): the bits become the upper half of the f32.
RKC_DEVICE float to_f32(bf16 x) {
  return __uint_as_float(static_cast<u32>(x.bits) << 16);
}

/// f16 -> f32 (exact) via `cvt.f32.f16`.
RKC_DEVICE float to_f32(f16 x) {
  float y;
  asm("cvt.f32.f16 %0, %1;" : "=f"(y) : "h"(x.bits));
  return y;
}

/// i32 -> f32 (round to nearest even).
RKC_DEVICE float to_f32(int x) { return static_cast<float>(x); }

/// i64 -> f32 (round to nearest even).
RKC_DEVICE float to_f32(long long x) { return static_cast<float>(x); }

// ---------------------------------------------------------------------------
// Narrowing from f32 (round to nearest even, NaN stays NaN, overflow -> inf).
// ---------------------------------------------------------------------------

/// f32 -> T; specialised for float, bf16 and f16 only.
template <class T> RKC_DEVICE T from_f32(float x);

/// Identity.
template <> RKC_DEVICE float from_f32<float>(float x) { return x; }

/// f32 -> bf16 via `cvt.rn.bf16.f32` (NaN becomes the canonical bf16 NaN).
template <> RKC_DEVICE bf16 from_f32<bf16>(float x) {
  bf16 y;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(y.bits) : "f"(x));
  return y;
}

/// f32 -> f16 via `cvt.rn.f16.f32`.
template <> RKC_DEVICE f16 from_f32<f16>(float x) {
  f16 y;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(y.bits) : "f"(x));
  return y;
}

// ---------------------------------------------------------------------------
// 32-bit word codecs, used by the vector accesses of rkc/vec.cuh.
//
// WordCodec<T> describes how one 32-bit word of memory holds ELEMS values of
// storage type T (element 0 in the low bits, i.e. at the lower address):
//   unpack(w, out)  widens the ELEMS values of word w to out[0..ELEMS)
//   pack(in)        narrows in[0..ELEMS) (round to nearest even) into a word
// ---------------------------------------------------------------------------

template <class T> struct WordCodec;

/// One f32 per word.
template <> struct WordCodec<float> {
  enum : int { ELEMS = 1 };
  RKC_DEVICE static void unpack(u32 w, float *out) {
    out[0] = __uint_as_float(w);
  }
  RKC_DEVICE static u32 pack(const float *in) { return __float_as_uint(in[0]); }
};

/// Two bf16 per word: widening is two integer ops, narrowing one
/// `cvt.rn.bf16x2.f32`.
template <> struct WordCodec<bf16> {
  enum : int { ELEMS = 2 };
  RKC_DEVICE static void unpack(u32 w, float *out) {
    out[0] = __uint_as_float(w << 16);
    out[1] = __uint_as_float(w & 0xffff0000u);
  }
  RKC_DEVICE static u32 pack(const float *in) {
    u32 w; // cvt.rn.bf16x2.f32 d, a, b puts a in the high half, b in the low.
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(in[1]), "f"(in[0]));
    return w;
  }
};

/// Two f16 per word: two `cvt.f32.f16` / one `cvt.rn.f16x2.f32`.
template <> struct WordCodec<f16> {
  enum : int { ELEMS = 2 };
  RKC_DEVICE static void unpack(u32 w, float *out) {
    asm("{\n\t.reg .b16 lo, hi;\n\t"
        "mov.b32 {lo, hi}, %2;\n\t"
        "cvt.f32.f16 %0, lo;\n\t"
        "cvt.f32.f16 %1, hi;\n\t}"
        : "=f"(out[0]), "=f"(out[1])
        : "r"(w));
  }
  RKC_DEVICE static u32 pack(const float *in) {
    u32 w; // cvt.rn.f16x2.f32 d, a, b puts a in the high half, b in the low.
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(in[1]), "f"(in[0]));
    return w;
  }
};

} // namespace rkc
