// rkc/quant.cuh - primitives of quantized (column) kernels: packed weight
// loads, int4 / int8 -> f32 conversion by bit tricks, quantization rounding
// and the K-split combine of partial sums across warps and a cluster.
//
// Packed formats (docs/quantization.md):
//   int4 k8:  word (kp, n) of a [K/8, N] u32 array holds q[8 kp + i, n] in
//             bits 4i..4i+3; byte j holds k = 2j (low nibble), 2j+1 (high).
//   int8:     [K, N] bytes, one value per byte (two's complement).
#pragma once

#include "rkc/base.cuh"
#include "rkc/cluster.cuh"
#include "rkc/convert.cuh"

namespace rkc {

/// Loads BYTES (4, 8 or 16) of read-once data (packed weights) bypassing
/// L1 allocation. Not volatile: the compiler may hoist and batch them.
template <int BYTES> struct WeightLoad;
template <> struct WeightLoad<16> {
  enum : int { WORDS = 4 };
  RKC_DEVICE static void load(const void *p, u32 (&w)[4]) {
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
        : "l"(p));
  }
};
template <> struct WeightLoad<8> {
  enum : int { WORDS = 2 };
  RKC_DEVICE static void load(const void *p, u32 (&w)[2]) {
    asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];"
        : "=r"(w[0]), "=r"(w[1])
        : "l"(p));
  }
};
template <> struct WeightLoad<4> {
  enum : int { WORDS = 1 };
  RKC_DEVICE static void load(const void *p, u32 (&w)[1]) {
    asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
  }
};

/// Stores COLS k8 / k4 words (one access for 1, 2 or 4 words; `p` aligned).
template <int COLS>
RKC_DEVICE void store_words(u32 *p, const u32 (&w)[COLS]) {
  if constexpr (COLS == 4) {
    *reinterpret_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  } else if constexpr (COLS == 2) {
    *reinterpret_cast<uint2 *>(p) = make_uint2(w[0], w[1]);
  } else {
#pragma unroll
    for (int i = 0; i < COLS; ++i)
      p[i] = w[i];
  }
}

/// The 8 unsigned nibbles u_i of `w` (k order) as v_i = 0.5 + u_i / 256,
/// exactly: one PRMT per value places the nibble's byte under the exponent
/// byte 0x3F (bit 23 clear), so no shift, mask or convert per value. A dot
/// product sum(a_i * v_i) = 0.5 * sum(a) + sum(a_i * u_i) / 256 keeps the
/// integer part recoverable (see fold_u4). Signed nibbles: XOR 0x88888888
/// first (offset binary, u = s + 8).
RKC_DEVICE void u4x8_half_plus(u32 w, float (&v)[8]) {
  const u32 lo = w & 0x0F0F0F0Fu;
  const u32 hi = (w >> 4) & 0x0F0F0F0Fu;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const u32 sel = 0x7044u | (static_cast<u32>(j) << 8);
    v[2 * j] = __uint_as_float(__byte_perm(lo, 0x3F000000u, sel));
    v[2 * j + 1] = __uint_as_float(__byte_perm(hi, 0x3F000000u, sel));
  }
}

/// sum(a_i * (u_i - zero)) from the accumulated sum(a_i * (0.5 + u_i/256))
/// and sum(a_i).
RKC_DEVICE float fold_u4(float acc, float asum, float zero) {
  return fmaf(256.0f, acc, -(128.0f + zero) * asum);
}

/// The 4 signed bytes of `w` as exact floats: XOR 0x80 makes them offset
/// binary, PRMT builds 2^23 + u, one FADD removes 2^23 + 128.
RKC_DEVICE void s8x4_to_f32(u32 w, float (&v)[4]) {
  const u32 u = w ^ 0x80808080u;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const u32 sel = 0x7440u | static_cast<u32>(j);
    v[j] = __uint_as_float(__byte_perm(u, 0x4B000000u, sel)) - 8388736.0f;
  }
}

/// The signed nibbles of `w` as exact floats (dequantization and tests).
RKC_DEVICE void s4x8_to_f32(u32 w, float (&v)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
    v[i] = static_cast<float>(static_cast<int>(w << (28 - 4 * i)) >> 28);
}

/// The unsigned nibbles of `w` as exact floats.
RKC_DEVICE void u4x8_to_f32(u32 w, float (&v)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
    v[i] = static_cast<float>((w >> (4 * i)) & 0xFu);
}

/// Round half to even and clamp to [lo, hi]: the integer a value quantizes
/// to, as a float.
RKC_DEVICE float quant_round(float x, float lo, float hi) {
  return fminf(fmaxf(rintf(x), lo), hi);
}

/// Packs 32 / BITS integers (k order) into a word, value i in bits
/// [BITS i, BITS (i + 1)): a k8 word of values in [-8, 15] (BITS 4) or a k4
/// word of values in [-128, 127] (BITS 8).
template <int BITS> RKC_DEVICE u32 pack_word(const float (&q)[32 / BITS]) {
  constexpr u32 MASK = (1u << BITS) - 1u;
  u32 w = 0;
#pragma unroll
  for (int i = 0; i < 32 / BITS; ++i)
    w |= (static_cast<u32>(static_cast<int>(q[i])) & MASK) << (BITS * i);
  return w;
}

/// Where tile element e (row e / TC, column e % TC; TC a multiple of 32) of
/// a K part lies in ksplit_reduce_mma's partial sums: the 4-column slots
/// of each 32 columns XOR-swizzled by the row, so that the 8 lanes of a
/// quarter warp storing 16 bytes each (rows g, columns 8t)
/// hit distinct banks; a row's 32 columns keep their 32 banks.
/// TC = 0: no swizzle (e itself; the callers' unswizzled layouts).
template <int TC> RKC_DEVICE int swizzled_partial(int e) {
  static_assert(TC % 32 == 0, "rkc::swizzled_partial: rows of whole 32-column groups");
  if constexpr (TC == 0)
    return e;
  else
    return e ^ (((e / TC) & 7) << 2);
}

/// Sums the K-split partials of a CTA's warps and, with CLUSTER > 1, of
/// the CTAs of its cluster. `buf` holds PARTS * TILE floats: part p's
/// partial of tile element e at buf[p * TILE + e] (written by the caller,
/// this function starts with the barrier; PARTS = WARPS when every warp
/// splits K). Thread `tid` of CTA `rank` gets
/// tile elements e = (j * CLUSTER + rank) * THREADS + tid in out[j] (0 past
/// the tile).
///   recv: CLUSTER * V * THREADS floats (CLUSTER > 1): each CTA pushes the
///         sums of the elements another CTA owns into that CTA's `recv`
///         through distributed shared memory, so one cluster barrier
///         (release / acquire) orders everything and no CTA reads another's
///         memory after it. The kernel must call cluster_arrive_relaxed()
///         at its start (the matching wait here makes sure every CTA of the
///         cluster runs before its shared memory is written).
///   ALIAS: `buf` and `recv` lie in memory the CTAs of the cluster read
///         until they reach this function (aliased activations): a full
///         cluster barrier here instead, and no cluster_arrive_relaxed()
///         at the kernel's start.
///   SWIZZLE_TC: 0, or the tile's row length (a multiple of 32) when
///         element e lies at swizzled_partial<SWIZZLE_TC>(e) of its part
///         (ksplit_reduce_mma's layout).
///   RECV_APART (CLUSTER > 1): `recv` holds (CLUSTER - 1) * V * THREADS
///         floats outside the memory `buf` aliases (the slot of source CTA
///         c is c, or c - 1 past this CTA's rank, which keeps its own sums
///         in registers), and the kernel calls cluster_arrive_relaxed() at
///         its start: with ALIAS the CTAs then meet once, after the pushes.
template <int TILE, int WARPS, int CLUSTER, int V, int PARTS = WARPS, bool ALIAS = false,
          int SWIZZLE_TC = 0, bool RECV_APART = false>
RKC_DEVICE void ksplit_sum(const float *buf, float *recv, float (&out)[V]) {
  constexpr int THREADS = WARPS * 32;
  const int tid = static_cast<int>(threadIdx.x);
  __syncthreads();
  if constexpr (CLUSTER == 1) {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const int e = j * THREADS + tid;
      float s = 0.0f;
      if (e < TILE) {
        const int x = SWIZZLE_TC ? swizzled_partial<SWIZZLE_TC>(e) : e;
#pragma unroll
        for (int w = 0; w < PARTS; ++w)
          s += buf[w * TILE + x];
      }
      out[j] = s;
    }
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const int rank = static_cast<int>(cluster_ctarank());
    if constexpr (ALIAS && !RECV_APART)
      cluster_sync(); // every CTA of the cluster is done with its activations
    else
      cluster_wait(); // every CTA of the cluster has started
    float own[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
#pragma unroll
      for (int o = 0; o < CLUSTER; ++o) {
        const int e = (j * CLUSTER + o) * THREADS + tid;
        float s = 0.0f;
        if (e < TILE) {
          const int x = SWIZZLE_TC ? swizzled_partial<SWIZZLE_TC>(e) : e;
#pragma unroll
          for (int w = 0; w < PARTS; ++w)
            s += buf[w * TILE + x];
        }
        if (RECV_APART && o == rank) {
          own[j] = s;
        } else {
          const int slot = RECV_APART ? rank - (rank > o) : rank;
          float *dst = const_cast<float *>(mapa_ptr(recv, static_cast<u32>(o)));
          dst[(slot * V + j) * THREADS + tid] = s;
        }
      }
    }
    cluster_sync(); // release the pushes, acquire the ones into this CTA
#pragma unroll
    for (int j = 0; j < V; ++j) {
      float s = 0.0f;
#pragma unroll
      for (int c = 0; c < CLUSTER; ++c) {
        if (RECV_APART && c == rank)
          s += own[j];
        else
          s += recv[((RECV_APART ? c - (c > rank) : c) * V + j) * THREADS + tid];
      }
      out[j] = s;
    }
#else
    // rkc/cluster.cuh declares nothing below sm_90, where the planner
    // takes no clusters: this branch is never instantiated there.
    static_assert(CLUSTER == 1, "rkc::ksplit_sum: clusters need sm_90 or later");
#endif
  }
}

/// ksplit_sum for CUDA-core partials: value r of lane l of every warp is
/// tile element (r / COLS) * 32 * COLS + l * COLS + r % COLS.
template <int R, int COLS, int WARPS, int CLUSTER, int V>
RKC_DEVICE void ksplit_reduce(const float (&p)[R], float *buf, float *recv,
                              float (&out)[V]) {
  constexpr int TILE = R * 32;
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
#pragma unroll
  for (int r = 0; r < R; ++r)
    buf[warp * TILE + (r / COLS) * 32 * COLS + lane * COLS + r % COLS] = p[r];
  ksplit_sum<TILE, WARPS, CLUSTER, V>(buf, recv, out);
}

/// ksplit_sum for tensor-core partials (tier.kdot with mma): warp w splits
/// K as part w % KWARPS and covers column group w / KWARPS (32 x COLS
/// columns) of the CTA tile; rows >= MR are dropped. Lane (g = lane / 4,
/// t = lane % 4) holds, per group j of its COLS:
///  * the weights as B (WA false): value 16 j + 4 c + i is row g + 8 (i / 2),
///    column 32 j + 8 t + 4 (i % 2) + c;
///  * the weights as A (WA, M <= 8): value 8 j + 4 q + i is row 2t + (i % 2),
///    column 4 COLS g + 4 j + 2 q + (i / 2) (the D fragment of a product
///    over columns 2q and 2q + 1 of the lane's group j of four, its groups
///    contiguous; the rows of M as its 8 columns).
/// The weights as B store their partial sums swizzled (swizzled_partial),
/// 16 bytes at a time (measured 18.2 -> 17.4 us at M = 16 14336 x 4096,
/// session 19); as A they keep plain stores, whose 4-way conflicts the
/// swizzle did not pay for (M = 4 8192 x 8192 14.5 -> 17.7 us).
/// ALIAS: `buf` (and `recv`) reuse the staged activations' shared memory
/// (KSplitShape::aliased): a barrier before the partial sums are written,
/// and ksplit_sum's cluster barrier after every CTA's products (unless
/// RECV_APART: KSplitShape::recvApart, see ksplit_sum).
template <int MR, int COLS, int WARPS, int KWARPS, int CLUSTER, int V, bool WA = false,
          bool ALIAS = false, bool RECV_APART = false>
RKC_DEVICE void ksplit_reduce_mma(const float (&p)[16 * COLS], float *buf, float *recv,
                                  float (&out)[V]) {
  constexpr int TC = 32 * COLS * (WARPS / KWARPS);
  constexpr int TILE = MR * TC;
  if constexpr (ALIAS)
    __syncthreads(); // every warp of the CTA is done with the activations
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  if constexpr (WA) {
    float *part = buf + (warp % KWARPS) * TILE + (warp / KWARPS) * 32 * COLS;
#pragma unroll
    for (int j = 0; j < COLS; ++j)
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const int i = e & 3;
        const int row = 2 * t + (i & 1);
        const int col = 4 * COLS * g + 4 * j + 2 * (e >> 2) + (i >> 1);
        if (row < MR)
          part[row * TC + col] = p[8 * j + e];
      }
  } else {
    // 16 bytes per store: columns 32 j + 8 t + 4 (i % 2) + (0..3) of row
    // g + 8 (i / 2), values 16 j + 4 c + i, at their swizzled place
    // (swizzled_partial): one wavefront per quarter warp where plain
    // 4-byte stores took 8 (the lanes of a t share a bank).
    float *part = buf + (warp % KWARPS) * TILE;
    const int c0 = (warp / KWARPS) * 32 * COLS; // the warp's columns in the tile
#pragma unroll
    for (int j = 0; j < COLS; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int row = g + 8 * (i >> 1);
        if (row < MR)
          *reinterpret_cast<float4 *>(part + swizzled_partial<TC>(row * TC + c0 + 32 * j + 8 * t + 4 * (i & 1))) =
              make_float4(p[16 * j + i], p[16 * j + 4 + i], p[16 * j + 8 + i], p[16 * j + 12 + i]);
      }
  }
  ksplit_sum<TILE, WARPS, CLUSTER, V, KWARPS, ALIAS, WA ? 0 : TC, RECV_APART>(buf, recv, out);
}

// ---------------------------------------------------------------------------
// Tensor-core primitives (sm_80+): 16-bit pairs and m16n8k16.
// ---------------------------------------------------------------------------

/// (a & b) ^ c in one LOP3 (ptxas does not always merge a mask and an
/// or/xor of constants).
template <u32 B, u32 C> RKC_DEVICE u32 and_xor(u32 a) {
  u32 d;
  asm("lop3.b32 %0, %1, %2, %3, 0x6a;" : "=r"(d) : "r"(a), "n"(B), "n"(C));
  return d;
}

/// Dequantizes the 8 nibbles of a k8 word to four 16-bit pairs
/// h[j] = (u_j - z, u_{j+4} - z), exactly, where u is the nibble (XOR 8
/// when SIGNED: two's complement nibbles as offset binary, u = q + 8) and
/// `off2` is offset_pair(z) (magic + z in both halves). One LOP3 per pair
/// masks two nibbles, flips their sign bit and ORs in the exponent of the
/// magic (1024 for f16, 128 for bf16; the bits are disjoint, so OR = XOR);
/// one fused multiply-add subtracts magic + z. f16 takes nibbles 1, 3, 5, 7
/// in place, 16 u under the exponent of 1024 (10 mantissa bits), and scales
/// by 1/16 in the same FMA (64 + u - (64 + z)), so a word costs one shift,
/// four LOP3 and four FMA; bf16 (7 mantissa bits) shifts each nibble down.
template <bool BF16, bool SIGNED = false>
RKC_DEVICE void u4x8_to_pairs(u32 w, u32 off2, u32 (&h)[4]) {
  constexpr u32 FL = SIGNED ? 0x00080008u : 0u;
  const u32 neg = off2 ^ 0x80008000u; // -(magic + z)
  if constexpr (BF16) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const u32 x = and_xor<0x000F000Fu, 0x43004300u ^ FL>(w >> (4 * j));
      asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(h[j]) : "r"(x), "r"(0x3F803F80u), "r"(neg));
    }
  } else {
    // -(64 + z): 64 is 0x5400 and its unit in the last place is 1/16.
    const u32 neg16 = (0x54005400u + ((off2 & 0x000F000Fu) << 4)) ^ 0x80008000u;
    const u32 w8 = w >> 8;
    const u32 x[4] = {and_xor<0x000F000Fu, 0x64006400u ^ FL>(w),
                      and_xor<0x00F000F0u, 0x64006400u ^ (FL << 4)>(w),
                      and_xor<0x000F000Fu, 0x64006400u ^ FL>(w8),
                      and_xor<0x00F000F0u, 0x64006400u ^ (FL << 4)>(w8)};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (j & 1)
        asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(h[j]) : "r"(x[j]), "r"(0x2C002C00u), "r"(neg16));
      else
        asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(h[j]) : "r"(x[j]), "r"(0x3C003C00u), "r"(neg));
    }
  }
}

/// The 4 signed int8 values of a k4 word (values k..k + 3 of K of one
/// column, byte i = value k + i) as f16 pairs lo = (q0, q1), hi = (q2, q3),
/// exactly: XOR 0x80 makes the bytes offset binary u = q + 128, PRMT puts
/// each byte under the exponent byte 0x64 (f16 1024 + u), one f16x2
/// subtract of 1152 leaves q. (Not for bf16: 128 + u needs 9 bits.)
RKC_DEVICE void s8x4_to_f16_pairs(u32 w, u32 &lo, u32 &hi) {
  const u32 u = w ^ 0x80808080u;
  const u32 x0 = __byte_perm(u, 0x64646464u, 0x4140); // u0 64 u1 64
  const u32 x1 = __byte_perm(u, 0x64646464u, 0x4342); // u2 64 u3 64
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(lo) : "r"(x0), "r"(0x64806480u));
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(hi) : "r"(x1), "r"(0x64806480u));
}

/// The 16-bit pair pattern of `magic + z` in both halves (z a small
/// non-negative integer, exact).
template <bool BF16> RKC_DEVICE u32 offset_pair(float z) {
  const u32 v = (BF16 ? 0x4300u : 0x6400u) + static_cast<u32>(static_cast<int>(z));
  return v | (v << 16);
}

/// D = A * B + D for one m16n8k16 with f32 accumulation (row.col).
template <bool BF16>
RKC_DEVICE void mma_16816(float (&d)[4], u32 a0, u32 a1, u32 a2, u32 a3, u32 b0,
                          u32 b1) {
  if constexpr (BF16)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/// D = A * B for one m16n8k16 (the first product of a group: its partial
/// sums need no clearing; ptxas takes the zero accumulators as RZ).
template <bool BF16>
RKC_DEVICE void mma_16816_first(float (&d)[4], u32 a0, u32 a1, u32 a2, u32 a3, u32 b0,
                                u32 b1) {
  d[0] = d[1] = d[2] = d[3] = 0.0f;
  mma_16816<BF16>(d, a0, a1, a2, a3, b0, b1);
}

/// Reorders 8 consecutive 16-bit activations (k0..k7 in 4 words) into the
/// pairs the k8 dequantization produces: (k0,k4), (k1,k5), (k2,k6), (k3,k7).
RKC_DEVICE uint4 pair_k8(uint4 v) {
  return make_uint4(__byte_perm(v.x, v.z, 0x5410), __byte_perm(v.x, v.z, 0x7632),
                    __byte_perm(v.y, v.w, 0x5410), __byte_perm(v.y, v.w, 0x7632));
}

/// COLS raw values of a scale (or zero-point) row, loaded without waiting
/// for them (converted when used): scales of the next block of rows are
/// fetched together with its packed weights.
template <class T, int COLS> struct RawCols {
  T v[COLS];
  RKC_DEVICE void load(const T *p) {
#pragma unroll
    for (int c = 0; c < COLS; ++c)
      v[c] = p[c];
  }
  /// As load, for the first `valid` values only (the rest read as 0).
  RKC_DEVICE void load_guarded(const T *p, int valid) {
#pragma unroll
    for (int c = 0; c < COLS; ++c)
      v[c] = c < valid ? p[c] : from_f32<T>(0.0f);
  }
  RKC_DEVICE float get(int c) const { return to_f32(v[c]); }
};

/// RawCols held as packed words: COLS values of 2 or 4 bytes in COLS *
/// size / 4 registers (RawCols keeps one register a value), read in one
/// access (4, 8 or 16 bytes). For N a multiple of COLS and pointers aligned
/// to COLS values: a lane's COLS are then all valid (valid >= COLS) or none
/// (read as 0). The tensor-core GEMV's 8 scales a column group as B.
template <class T, int COLS> struct PackedCols {
  static constexpr int BYTES = COLS * static_cast<int>(sizeof(T));
  static constexpr int WORDS = BYTES / 4;
  static_assert(sizeof(T) >= 2 && (BYTES == 4 || BYTES == 8 || BYTES == 16), "one access");
  u32 w[WORDS];
  RKC_DEVICE void load_guarded(const T *p, int valid) {
    if (valid >= COLS) {
      if constexpr (BYTES == 16) {
        const uint4 v = __ldg(reinterpret_cast<const uint4 *>(p));
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
      } else if constexpr (BYTES == 8) {
        const uint2 v = __ldg(reinterpret_cast<const uint2 *>(p));
        w[0] = v.x, w[1] = v.y;
      } else {
        w[0] = __ldg(reinterpret_cast<const unsigned int *>(p));
      }
    } else {
#pragma unroll
      for (int i = 0; i < WORDS; ++i)
        w[i] = 0u;
    }
  }
  RKC_DEVICE float get(int c) const {
    const u32 bits = w[c * sizeof(T) / 4] >> (8 * (c * sizeof(T) % 4));
    T v;
    memcpy(&v, &bits, sizeof(T)); // little-endian: the low bytes
    return to_f32(v);
  }
};

} // namespace rkc
