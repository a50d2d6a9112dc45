// rkc/convert.cuh - 16-bit storage types and f32 conversions.
//
// bf16 and f16 are *storage* types: 2-byte structs holding the raw bits.
// All arithmetic happens in f32; values are widened with to_f32() on load and
// narrowed with from_f32<T>() (round-to-nearest-even) on store. No
// cuda_fp16.h / cuda_bf16.h is needed.
//
// signed char is the storage of int8 tensors (per-token quantization): it
// widens exactly, and narrows from f32 (the values of a quantized tensor are
// computed as f32) by rounding half to even and saturating to [-128, 127],
// without conversion instructions (see s8_bits); int values (the compute
// type of a plain i8 tensor) narrow by truncation (store_cast).
//
// Template parameters:
//   T  storage type: float, bf16, f16 or signed char (from_f32, WordCodec).
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

/// i8 -> f32 (exact).
RKC_DEVICE float to_f32(signed char x) { return static_cast<float>(x); }

/// i32 -> f32 (round to nearest even).
RKC_DEVICE float to_f32(int x) { return static_cast<float>(x); }

/// i64 -> f32 (round to nearest even).
RKC_DEVICE float to_f32(long long x) { return static_cast<float>(x); }

// ---------------------------------------------------------------------------
// Narrowing from f32 (round to nearest even, NaN stays NaN, overflow -> inf).
// ---------------------------------------------------------------------------

/// f32 -> T; specialised for float, bf16, f16 and signed char only.
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

/// s8_bits for x already in [-128, 127] and not NaN: the rounding alone.
RKC_DEVICE u32 s8_bits_in_range(float x) { return __float_as_uint(__fadd_rn(x, 12582912.0f)); }

/// f32 -> i8 in the low byte of the result: round half to even, saturate to
/// [-128, 127], NaN -> -128 (the clamp's fmaxf drops it; the low end, like
/// x86's integer indefinite), on the FMA pipe: after the clamp, adding
/// 1.5 * 2^23 rounds to an integer (to nearest even: the IEEE addition)
/// held in the low mantissa bits, two's complement in the low byte. A
/// conversion instruction (cvt.rni.s8.f32) would use the quarter-rate pipe
/// that IEEE division (MUFU.RCP) needs too, and mapping NaN to 0 costs two
/// instructions per value: measured on the H100, per-token quantization of
/// [2^20, 128] f16 took 149.5 us with cvt.rni + cvt.rzi, 150.5 us with
/// NaN -> 0, 143.3 us with this.
RKC_DEVICE u32 s8_bits(float x) { return s8_bits_in_range(fminf(fmaxf(x, -128.0f), 127.0f)); }

/// f32 already clamped into [-128, 127] (not NaN) -> its int8 value as an
/// int, round half to even: s8_bits without the clamp (the generated code
/// stores a quantizer's clamped values through it: two FMNMX a value less).
RKC_DEVICE int s8_in_range(float x) {
  return static_cast<int>(s8_bits_in_range(x) - 0x4B400000u);
}

/// f32 -> i8: round half to even, saturate to [-128, 127], NaN -> -128.
template <> RKC_DEVICE signed char from_f32<signed char>(float x) {
  return static_cast<signed char>(s8_bits(x) & 0xFFu);
}

/// A computed value (f32, or an integer of an integer tensor) -> storage T:
/// floats by from_f32 (rounding), integers by a conversion (in range: exact;
/// the generated code has clamped them).
template <class T> RKC_DEVICE T store_cast(float x) { return from_f32<T>(x); }
template <class T> RKC_DEVICE T store_cast(int x) { return static_cast<T>(x); }
template <class T> RKC_DEVICE T store_cast(long long x) { return static_cast<T>(x); }

// ---------------------------------------------------------------------------
// 32-bit word codecs, used by the vector accesses of rkc/vec.cuh.
//
// WordCodec<T> describes how one 32-bit word of memory holds ELEMS values of
// storage type T (element 0 in the low bits, i.e. at the lower address):
//   unpack(w, out)  widens the ELEMS values of word w to out[0..ELEMS)
//   pack(in)        narrows in[0..ELEMS) (round to nearest even) into a word
//                   (signed char also packs int values: pack(const int *))
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

/// Four i8 per word. Widening: XOR 0x80 makes each byte offset binary u,
/// PRMT places it under the exponent byte 0x4B (the float 2^23 + u), one
/// FADD removes 2^23 + 128. Narrowing: s8_bits (f32 values: round half to
/// even, saturate) or nothing (int values), then three PRMTs gather the
/// low bytes.
template <> struct WordCodec<signed char> {
  enum : int { ELEMS = 4 };
  RKC_DEVICE static void unpack(u32 w, float *out) {
    const u32 u = w ^ 0x80808080u;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      out[j] = __uint_as_float(__byte_perm(u, 0x4B000000u, 0x7440u | static_cast<u32>(j))) -
               8388736.0f;
  }
  /// The low bytes of four words, in order.
  RKC_DEVICE static u32 gather(u32 a, u32 b, u32 c, u32 d) {
    return __byte_perm(__byte_perm(a, b, 0x0040u), __byte_perm(c, d, 0x0040u), 0x5410u);
  }
  RKC_DEVICE static u32 pack(const int *in) {
    return gather(static_cast<u32>(in[0]), static_cast<u32>(in[1]),
                  static_cast<u32>(in[2]), static_cast<u32>(in[3]));
  }
  RKC_DEVICE static u32 pack(const float *in) {
    return gather(s8_bits(in[0]), s8_bits(in[1]), s8_bits(in[2]), s8_bits(in[3]));
  }
};

} // namespace rkc
