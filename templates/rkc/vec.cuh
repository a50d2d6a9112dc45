// rkc/vec.cuh - vectorised global / shared memory accesses and row fragments.
//
// Template parameters:
//   T    storage type of the tensor elements: float, bf16, f16 or signed
//        char (int8).
//   W    elements per vector access; sizeof(T) * W must be 4, 8 or 16 bytes
//        (one ld/st .u32, .v2.u32 or .v4.u32), a multiple of 16 bytes (that
//        many consecutive 16-byte accesses), W == 1 (scalar access), or
//        under 4 bytes (2 int8: element-wise accesses).
//   VPT  values per thread of a row fragment; a multiple of W.
//   S    type of the values stored (deduced): float (narrowed by from_f32,
//        which rounds and, for int8, saturates), or int for the integer
//        values of a plain int8 tensor (see store_cast).
//
// Alignment contract: for W > 1 the caller guarantees that every vector access
// is W-element aligned, i.e. `p` (load_vec/store_vec), or `row + col0` and
// `col_step` (load_frag/store_frag) are multiples of W elements. The code
// generator picks W so that this holds and falls back to W == 1 (scalar
// accesses) when it cannot prove it.
//
// Memory spaces: pointers are generic; the loads and stores are plain C++
// accesses of the builtin vector types, so the compiler emits ld.global /
// st.global when the pointer provably comes from a kernel parameter (and
// ld.global.nc for `const T* __restrict__` parameters), and keeps full
// freedom to schedule them. The *_stream loads and the cp.async / shared
// helpers use inline PTX with an explicit state space.
#pragma once

#include "rkc/base.cuh"
#include "rkc/convert.cuh"

namespace rkc {

/// The column that value slot `col` of a shifted row's layout holds: a slot
/// below 0 holds column col + wrap (see "Shifted rows", below).
RKC_DEVICE int wrap_col(int col, int wrap) { return col < 0 ? col + wrap : col; }

namespace detail {
/// Element j of a shifted row's chunk c, whose first slot is column `col`:
/// its offset from row + col (a slot below column 0, only ever in chunk 0,
/// holds the column WRAP further on). Offsets from one base keep the
/// element-wise accesses at immediate offsets of one address.
template <int WRAP> RKC_DEVICE int shifted_offset(int c, int col, int j) {
  return c == 0 && col + j < 0 ? j + WRAP : j;
}
} // namespace detail

/// W elements of storage type T with the alignment of one vector access; for
/// declaring buffers (e.g. shared staging) that the vector helpers access.
template <class T, int W> struct alignas(sizeof(T) * W) Vec { T v[W]; };

namespace detail {

/// One aligned access of BYTES bytes as WORDS 32-bit words, with a single
/// instruction: load (generic, C++), load_stream (ld.global.cs),
/// load_shared (ld.shared, 32-bit shared address), store (generic, C++) and,
/// for 16 bytes, store_stream (st.global.cs: data not read again).
template <int BYTES> struct Access;

template <> struct Access<4> {
  enum : int { WORDS = 1 };
  RKC_DEVICE static void load(const void *p, u32 (&w)[1]) {
    w[0] = *static_cast<const u32 *>(p);
  }
  RKC_DEVICE static void load_stream(const void *p, u32 (&w)[1]) {
    asm volatile("ld.global.cs.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
  }
  RKC_DEVICE static void load_keep(const void *p, u32 (&w)[1]) {
    asm volatile("{\n\t.reg .b64 pol;\n\tcreatepolicy.fractional.L2::evict_last.b64 pol, 1.0;\n\t"
                 "ld.global.nc.L2::cache_hint.u32 %0, [%1], pol;\n\t}"
                 : "=r"(w[0])
                 : "l"(p));
  }
  RKC_DEVICE static void load_shared(u32 a, u32 (&w)[1]) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w[0]) : "r"(a) : "memory");
  }
  RKC_DEVICE static void store(void *p, const u32 (&w)[1]) {
    *static_cast<u32 *>(p) = w[0];
  }
};

template <> struct Access<8> {
  enum : int { WORDS = 2 };
  RKC_DEVICE static void load(const void *p, u32 (&w)[2]) {
    const uint2 v = *static_cast<const uint2 *>(p);
    w[0] = v.x;
    w[1] = v.y;
  }
  RKC_DEVICE static void load_stream(const void *p, u32 (&w)[2]) {
    asm volatile("ld.global.cs.v2.u32 {%0, %1}, [%2];"
                 : "=r"(w[0]), "=r"(w[1])
                 : "l"(p));
  }
  RKC_DEVICE static void load_keep(const void *p, u32 (&w)[2]) {
    asm volatile("{\n\t.reg .b64 pol;\n\tcreatepolicy.fractional.L2::evict_last.b64 pol, 1.0;\n\t"
                 "ld.global.nc.L2::cache_hint.v2.u32 {%0, %1}, [%2], pol;\n\t}"
                 : "=r"(w[0]), "=r"(w[1])
                 : "l"(p));
  }
  RKC_DEVICE static void load_shared(u32 a, u32 (&w)[2]) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
                 : "=r"(w[0]), "=r"(w[1])
                 : "r"(a)
                 : "memory");
  }
  RKC_DEVICE static void store(void *p, const u32 (&w)[2]) {
    uint2 v;
    v.x = w[0];
    v.y = w[1];
    *static_cast<uint2 *>(p) = v;
  }
};

template <> struct Access<16> {
  enum : int { WORDS = 4 };
  RKC_DEVICE static void load(const void *p, u32 (&w)[4]) {
    const uint4 v = *static_cast<const uint4 *>(p);
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
  }
  RKC_DEVICE static void load_stream(const void *p, u32 (&w)[4]) {
    asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                 : "l"(p));
  }
  RKC_DEVICE static void load_keep(const void *p, u32 (&w)[4]) {
    asm volatile("{\n\t.reg .b64 pol;\n\tcreatepolicy.fractional.L2::evict_last.b64 pol, 1.0;\n\t"
                 "ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], pol;\n\t}"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                 : "l"(p));
  }
  RKC_DEVICE static void load_shared(u32 a, u32 (&w)[4]) {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                 : "r"(a)
                 : "memory");
  }
  RKC_DEVICE static void store(void *p, const u32 (&w)[4]) {
    uint4 v;
    v.x = w[0];
    v.y = w[1];
    v.z = w[2];
    v.w = w[3];
    *static_cast<uint4 *>(p) = v;
  }
  RKC_DEVICE static void store_stream(void *p, const u32 (&w)[4]) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};"
                 :
                 : "l"(p), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]));
  }
};

/// Checks the (T, W) pair of a vector access.
template <class T, int W> RKC_DEVICE constexpr bool valid_vec() {
  return W == 1 || sizeof(T) * W < 4 || sizeof(T) * W == 4 ||
         sizeof(T) * W == 8 || (sizeof(T) * W) % 16 == 0;
}

/// True when a W-element access is made element by element (no single
/// instruction moves fewer than 4 bytes of several elements here).
template <class T, int W> RKC_DEVICE constexpr bool elementwise() {
  return W == 1 || sizeof(T) * W < 4;
}

/// Widens the words of one vector access into W floats.
template <class T, int W, int WORDS>
RKC_DEVICE void unpack_words(const u32 (&w)[WORDS], float (&out)[W]) {
#pragma unroll
  for (int i = 0; i < WORDS; ++i)
    WordCodec<T>::unpack(w[i], out + i * WordCodec<T>::ELEMS);
}

/// L2 policy of a global vector load: the default, read-once data
/// (evict-first, ld.global.cs) or data every row reads again (evict-last).
enum LoadPolicy : int { kLoadNormal = 0, kLoadStream = 1, kLoadKeep = 2 };

/// One access A (Access<BYTES>) with the given LoadPolicy.
template <class A, int POLICY>
RKC_DEVICE void load_words(const void *p, u32 (&w)[A::WORDS]) {
  if constexpr (POLICY == kLoadStream)
    A::load_stream(p, w);
  else if constexpr (POLICY == kLoadKeep)
    A::load_keep(p, w);
  else
    A::load(p, w);
}

/// Vector load of W elements with the given LoadPolicy.
template <class T, int W, int POLICY>
RKC_DEVICE void load_vec_impl(const T *p, float (&out)[W]) {
  static_assert(valid_vec<T, W>(), "rkc::load_vec: bad (T, W)");
  if constexpr (elementwise<T, W>()) {
#pragma unroll
    for (int j = 0; j < W; ++j)
      out[j] = to_f32(p[j]);
  } else if constexpr (sizeof(T) * W > 16) {
    // Wider than one access (e.g. f32 weights under a bf16 layout of W = 8):
    // consecutive 16-byte accesses.
    constexpr int S = 16 / sizeof(T);
#pragma unroll
    for (int k = 0; k < W / S; ++k)
      load_vec_impl<T, S, POLICY>(p + k * S,
                                  *reinterpret_cast<float(*)[S]>(out + k * S));
  } else {
    typedef Access<sizeof(T) * W> A;
    u32 w[A::WORDS];
    load_words<A, POLICY>(p, w);
    unpack_words<T>(w, out);
  }
}

/// The element-wise path of a shifted row's packed chunk c whose first
/// slot is column `col` (slots below 0 hold the columns WRAP further on):
/// the E 16-bit elements from slot j0, two per word into words[0, E / 2),
/// `f` (the fill's bits) at columns >= n.
template <class T, int E, int WRAP>
RKC_DEVICE void load_shifted_words(const T *row, int c, int col, int j0, int n, u16 f,
                                   u32 *words) {
  const T *p = row + col;
#pragma unroll
  for (int j = 0; j < E; j += 2) {
    const int o0 = shifted_offset<WRAP>(c, col, j0 + j);
    const int o1 = shifted_offset<WRAP>(c, col, j0 + j + 1);
    words[j / 2] = (u32)(col + o0 < n ? p[o0].bits : f) | ((u32)(col + o1 < n ? p[o1].bits : f) << 16);
  }
}

/// Fragment load shared by load_frag / load_frag_stream / load_frag_keep.
template <class T, int VPT, int W, int POLICY, int WRAP, int SURE>
RKC_DEVICE void load_frag_impl(const T *row, int col0, int col_step, int n,
                               float (&frag)[VPT], float fill) {
  static_assert(VPT % W == 0, "rkc::load_frag: VPT must be a multiple of W");
#pragma unroll
  for (int c = 0; c < VPT / W; ++c) {
    const int col = col0 + c * col_step;
    float(&chunk)[W] = *reinterpret_cast<float(*)[W]>(frag + c * W);
    if ((SURE > 0 && c > 0 && c < SURE) || ((WRAP == 0 || col >= 0) && col + W <= n)) {
      load_vec_impl<T, W, POLICY>(row + col, chunk);
    } else {
      if constexpr (WRAP == 0) {
#pragma unroll
        for (int j = 0; j < W; ++j)
          chunk[j] = col + j < n ? to_f32(row[col + j]) : fill;
      } else {
        const T *p = row + col;
#pragma unroll
        for (int j = 0; j < W; ++j) {
          const int o = shifted_offset<WRAP>(c, col, j);
          chunk[j] = col + o < n ? to_f32(p[o]) : fill;
        }
      }
    }
  }
}

} // namespace detail

// ---------------------------------------------------------------------------
// Scalars.
// ---------------------------------------------------------------------------

/// Loads one element and widens it to f32.
template <class T> RKC_DEVICE float load_scalar(const T *p) {
  return to_f32(*p);
}

/// Narrows `x` to T (round to nearest even) and stores it.
template <class T, class S> RKC_DEVICE void store_scalar(T *p, S x) {
  *p = store_cast<T>(x);
}

/// Loads a 32-bit index (e.g. a class label) as i64.
RKC_DEVICE long long load_index(const int *p) { return *p; }

/// Loads a 64-bit index (e.g. a class label).
RKC_DEVICE long long load_index(const long long *p) { return *p; }

// ---------------------------------------------------------------------------
// One vector access of W elements (a single ld/st of W * sizeof(T) bytes).
// ---------------------------------------------------------------------------

/// Loads p[0..W) with one access and widens it to f32. `p` is W-aligned.
template <class T, int W>
RKC_DEVICE void load_vec(const T *p, float (&out)[W]) {
  detail::load_vec_impl<T, W, detail::kLoadNormal>(p, out);
}

/// As load_vec, for global data read exactly once: `ld.global.cs` (cache
/// streaming, evict-first in L1 and L2). `p` must point to global memory that
/// this thread has not written earlier in the kernel (like CUDA's __ldcs, the
/// asm is not ordered after the thread's prior plain stores).
template <class T, int W>
RKC_DEVICE void load_vec_stream(const T *p, float (&out)[W]) {
  detail::load_vec_impl<T, W, detail::kLoadStream>(p, out);
}

namespace detail {
/// L2 policy of a global vector store: the default, or data this kernel
/// does not read again (evict-first, st.global.cs; 16-byte accesses).
enum StorePolicy : int { kStoreNormal = 0, kStoreStream = 1 };

template <class T, int W, int POLICY, class S>
RKC_DEVICE void store_vec_impl(T *p, const S (&in)[W]) {
  static_assert(valid_vec<T, W>(), "rkc::store_vec: bad (T, W)");
  if constexpr (elementwise<T, W>()) {
#pragma unroll
    for (int j = 0; j < W; ++j)
      p[j] = store_cast<T>(in[j]);
  } else if constexpr (sizeof(T) * W > 16) {
    constexpr int E = 16 / sizeof(T);
#pragma unroll
    for (int k = 0; k < W / E; ++k)
      store_vec_impl<T, E, POLICY>(p + k * E, *reinterpret_cast<const S(*)[E]>(in + k * E));
  } else {
    typedef Access<sizeof(T) * W> A;
    constexpr int E = WordCodec<T>::ELEMS;
    u32 w[A::WORDS];
#pragma unroll
    for (int i = 0; i < A::WORDS; ++i)
      w[i] = WordCodec<T>::pack(in + i * E);
    if constexpr (POLICY == kStoreStream && sizeof(T) * W == 16)
      A::store_stream(p, w);
    else
      A::store(p, w);
  }
}
} // namespace detail

/// Narrows in[0..W) to T and stores it to p[0..W) with one access.
template <class T, int W, class S>
RKC_DEVICE void store_vec(T *p, const S (&in)[W]) {
  detail::store_vec_impl<T, W, detail::kStoreNormal>(p, in);
}

/// As store_vec, with st.global.cs (evict-first) for 16-byte accesses: data
/// this kernel will not read again.
template <class T, int W, class S>
RKC_DEVICE void store_vec_stream(T *p, const S (&in)[W]) {
  detail::store_vec_impl<T, W, detail::kStoreStream>(p, in);
}

// ---------------------------------------------------------------------------
// Row fragments (the thread-value layout of the generated kernels).
//
// SURE (the accesses below): chunks 1 .. SURE - 1 are known to lie wholly
// in [0, n) (the caller's layout places them there), so they keep no
// element-wise path, nor its registers; 0: none known.
//
// The chunk bounds and the shifted element-wise loop of float fragments are
// spelled out in each access, not called: a helper call there reordered
// NVVM's output for kernels that are not shifted (whose PTX must not change
// with WRAP = 0), and for shifted ones it changed the PTX that was measured
// (streamed f32 rows, checked again in session 14). The packed loops share
// detail::load_shifted_words, which leaves the PTX as it was.
//
// A thread owns VPT = CHUNKS * W values of a row of n elements; value v lives
// at column  col0 + (v / W) * col_step + (v % W).  A chunk whose W columns are
// all < n is accessed with one vector access; a chunk that straddles n is
// accessed element-wise with predication; columns >= n are never touched.
//
// Shifted rows (WRAP > 0): when n is not a multiple of W, row r of a
// row-major tensor starts h = (r * stride) % W elements past a W-aligned
// address. The generated kernel then numbers its thread columns from -h
// (col0 = its unshifted first column - h), so that `row + col` is aligned
// for every chunk. Its layout covers WRAP >= n columns, [-h, WRAP - h); the
// h slots below column 0 (the first thread's first chunk) hold the columns
// [WRAP - h, WRAP) instead, those the layout would otherwise miss: a
// column c < 0 stands for c + WRAP (wrap_col). Chunks wholly in [0, n) are
// one vector access; the others (the first thread's first, the one
// straddling n) go element by element at the wrapped columns, and columns
// >= n are never touched. A [N] operand of such a row (a weight) is not
// shifted with it: load_frag_unaligned reads it, realigned, at the
// same (wrapped) columns.
// ---------------------------------------------------------------------------

/// Loads a fragment; values at columns >= n are set to `fill` (typically the
/// identity of the consuming reduction: 0 for sums, -inf for max).
template <class T, int VPT, int W, int WRAP = 0, int SURE = 0>
RKC_DEVICE void load_frag(const T *row, int col0, int col_step, int n,
                          float (&frag)[VPT], float fill) {
  detail::load_frag_impl<T, VPT, W, detail::kLoadNormal, WRAP, SURE>(row, col0, col_step, n, frag, fill);
}

/// As load_frag, with an evict-last L2 policy (`ld.global.nc.L2::cache_hint`):
/// for a [N] operand that every row of the grid reads again (a weight, a
/// bias), so the streamed rows evict each other first, and for a row read
/// once whose results the kernel writes (schedule evict_last), so L2 evicts
/// the written lines first. `row` is read-only for the whole kernel.
template <class T, int VPT, int W, int WRAP = 0, int SURE = 0>
RKC_DEVICE void load_frag_keep(const T *row, int col0, int col_step, int n,
                               float (&frag)[VPT], float fill) {
  detail::load_frag_impl<T, VPT, W, detail::kLoadKeep, WRAP, SURE>(row, col0, col_step, n, frag, fill);
}

/// As load_frag, with load_vec_stream for the full chunks (data read once).
template <class T, int VPT, int W, int WRAP = 0, int SURE = 0>
RKC_DEVICE void load_frag_stream(const T *row, int col0, int col_step, int n,
                                 float (&frag)[VPT], float fill) {
  detail::load_frag_impl<T, VPT, W, detail::kLoadStream, WRAP, SURE>(row, col0, col_step, n, frag, fill);
}

// ---------------------------------------------------------------------------
// Packed fragments of 16-bit data (bf16, f16): two values per 32-bit
// register, widened to f32 at each use. A row fragment that stays live across
// a reduction then costs VPT / 2 registers instead of VPT. The compiler would
// merge the widenings of a use before a reduction and one after it into one
// f32 value held in between, undoing the saving: the generated code calls
// refresh() after each reduction, an empty asm that gives the words new
// values (no instruction), so the widenings after it are new computations.
// ---------------------------------------------------------------------------

namespace detail {
template <class T> RKC_DEVICE float widen_half(u32 w, int hi);
/// bf16: the bits become the upper half of the f32.
template <> RKC_DEVICE float widen_half<bf16>(u32 w, int hi) {
  return __uint_as_float(hi ? (w & 0xffff0000u) : (w << 16));
}
template <> RKC_DEVICE float widen_half<f16>(u32 w, int hi) {
  float f;
  if (hi)
    asm("{\n\t.reg .b16 lo, hi;\n\tmov.b32 {lo, hi}, %1;\n\tcvt.f32.f16 %0, hi;\n\t}"
        : "=f"(f) : "r"(w));
  else
    asm("{\n\t.reg .b16 lo, hi;\n\tmov.b32 {lo, hi}, %1;\n\tcvt.f32.f16 %0, lo;\n\t}"
        : "=f"(f) : "r"(w));
  return f;
}
} // namespace detail

/// VPT values of a 16-bit storage type T (bf16 or f16), value v in half
/// v % 2 of word v / 2 (memory order). frag[i] widens value i to f32.
template <class T, int VPT> struct PackedFrag {
  static_assert(sizeof(T) == 2 && VPT % 2 == 0, "rkc::PackedFrag: 16-bit T, even VPT");
  u32 w[VPT / 2];
  RKC_DEVICE float operator[](int i) const { return detail::widen_half<T>(w[i / 2], i % 2); }
  /// Ends the reuse of earlier widenings (see above); emits no instruction.
  RKC_DEVICE void refresh() {
#pragma unroll
    for (int k = 0; k < VPT / 2; ++k)
      asm volatile("" : "+r"(w[k]));
  }
};

namespace detail {
template <class T, int VPT, int W, int POLICY, int WRAP, int SURE>
RKC_DEVICE void load_packed_impl(const T *row, int col0, int col_step, int n,
                                 PackedFrag<T, VPT> &frag, float fill) {
  static_assert(VPT % W == 0 && W % 2 == 0, "rkc::load_frag: packed chunks of even W");
  constexpr int BYTES = sizeof(T) * W > 16 ? 16 : sizeof(T) * W;
  constexpr int E = BYTES / sizeof(T); // elements per access
  typedef detail::Access<BYTES> A;
#pragma unroll
  for (int c = 0; c < VPT / W; ++c) {
    const int col = col0 + c * col_step;
#pragma unroll
    for (int k = 0; k < W / E; ++k) {
      u32(&words)[A::WORDS] = *reinterpret_cast<u32(*)[A::WORDS]>(frag.w + (c * W + k * E) / 2);
      if ((SURE > 0 && c > 0 && c < SURE) || ((WRAP == 0 || col >= 0) && col + W <= n)) {
        load_words<A, POLICY>(row + col + k * E, words);
      } else {
        const u16 f = from_f32<T>(fill).bits;
        if constexpr (WRAP == 0) {
#pragma unroll
          for (int j = 0; j < E; j += 2) {
            const int at = col + k * E + j;
            const u16 lo = at < n ? row[at].bits : f;
            const u16 hi = at + 1 < n ? row[at + 1].bits : f;
            words[j / 2] = (u32)lo | ((u32)hi << 16);
          }
        } else {
          load_shifted_words<T, E, WRAP>(row, c, col, k * E, n, f, words);
        }
      }
    }
  }
}

} // namespace detail

/// As load_frag, into a packed fragment. W is even: each vector access is
/// whole words (sizeof(T) * W >= 4). Values at columns >= n are `fill`
/// narrowed to T (the reduction identities 0 and -inf are exact).
template <class T, int VPT, int W, int WRAP = 0, int SURE = 0>
RKC_DEVICE void load_frag(const T *row, int col0, int col_step, int n,
                          PackedFrag<T, VPT> &frag, float fill) {
  detail::load_packed_impl<T, VPT, W, detail::kLoadNormal, WRAP, SURE>(row, col0, col_step, n, frag, fill);
}

/// As load_frag_stream (read for the last time: evict-first), into a packed
/// fragment.
template <class T, int VPT, int W, int WRAP = 0, int SURE = 0>
RKC_DEVICE void load_frag_stream(const T *row, int col0, int col_step, int n,
                                 PackedFrag<T, VPT> &frag, float fill) {
  detail::load_packed_impl<T, VPT, W, detail::kLoadStream, WRAP, SURE>(row, col0, col_step, n, frag, fill);
}

/// As load_frag_keep (a [N] operand kept in L2), into a packed fragment.
template <class T, int VPT, int W, int WRAP = 0, int SURE = 0>
RKC_DEVICE void load_frag_keep(const T *row, int col0, int col_step, int n,
                               PackedFrag<T, VPT> &frag, float fill) {
  detail::load_packed_impl<T, VPT, W, detail::kLoadKeep, WRAP, SURE>(row, col0, col_step, n, frag, fill);
}

namespace detail {
/// out[j] = (prev ++ cur)[s + j] for a shift s in [1, W], the same in every
/// thread of a row: a select network, no indexing of registers.
template <int W>
RKC_DEVICE void realign(const float (&prev)[W], const float (&cur)[W], int s, float (&out)[W]) {
#pragma unroll
  for (int j = 0; j < W; ++j) {
    float r = cur[j]; // s == W
#pragma unroll
    for (int k = 1; k < W; ++k)
      r = s == k ? (j + k < W ? prev[j + k] : cur[j + k - W]) : r;
    out[j] = r;
  }
}

/// The same on 16-bit values held two per word (N = W / 2 words a vector),
/// s in halves.
template <int N>
RKC_DEVICE void realign_halves(const u32 (&prev)[N], const u32 (&cur)[N], int s, u32 *out) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    u32 r = cur[i]; // s == 2N
#pragma unroll
    for (int k = 1; k < 2 * N; ++k) {
      const int h = 2 * i + k; // first half of this word in prev ++ cur
      auto word = [&](int q) { return q < N ? prev[q] : cur[q - N]; };
      const u32 v = h % 2 == 0 ? word(h / 2) : __funnelshift_r(word(h / 2), word(h / 2 + 1), 16);
      r = s == k ? v : r;
    }
    out[i] = r;
  }
}

/// load_frag_unaligned (below) of float fragments, with a LoadPolicy.
template <class T, int VPT, int W, int WRAP, int SURE, int POLICY>
RKC_DEVICE void load_unaligned_impl(const T *row, int col0, int col_step, int n, int head,
                                    float (&frag)[VPT], float fill) {
  static_assert(VPT % W == 0 && WRAP > 0, "rkc::load_frag_unaligned: VPT % W, a shifted row");
#pragma unroll
  for (int c = 0; c < VPT / W; ++c) {
    const int col = col0 + c * col_step;
    const int u = col + head; // the aligned column the row's slot col stands at
    float(&chunk)[W] = *reinterpret_cast<float(*)[W]>(frag + c * W);
    // 16-bit operands only: for f32 ones (4 elements a chunk) the element-
    // wise loads were faster (LayerNorm f32 N = 50257 2.27 vs 1.64 TB/s,
    // 1000003 1.10 vs 0.77: the realigned loads took registers), for bf16
    // (8) slower (RMSNorm bf16 4095 2.01 vs 2.55, LayerNorm bf16 1000003
    // 0.63 vs 0.96; docs/performance-notes.md, session 13).
    if (sizeof(T) < 4 &&
        ((SURE > 0 && c > 0 && c < SURE) || (u >= W && u + W <= n))) {
      float prev[W], cur[W];
      load_vec_impl<T, W, POLICY>(row + u - W, prev);
      load_vec_impl<T, W, POLICY>(row + u, cur);
      realign<W>(prev, cur, W - head, chunk);
    } else {
      const T *p = row + col;
#pragma unroll
      for (int j = 0; j < W; ++j) {
        const int o = shifted_offset<WRAP>(c, col, j);
        chunk[j] = col + o < n ? to_f32(p[o]) : fill;
      }
    }
  }
}

/// The same into a packed fragment of 16-bit values.
template <class T, int VPT, int W, int WRAP, int SURE, int POLICY>
RKC_DEVICE void load_unaligned_impl(const T *row, int col0, int col_step, int n, int head,
                                    PackedFrag<T, VPT> &frag, float fill) {
  static_assert(VPT % W == 0 && W % 2 == 0 && WRAP > 0 && sizeof(T) * W <= 16,
                "rkc::load_frag_unaligned: packed chunks of even W up to 16 bytes, a shifted row");
  typedef Access<sizeof(T) * W> A;
  const u16 f = from_f32<T>(fill).bits;
#pragma unroll
  for (int c = 0; c < VPT / W; ++c) {
    const int col = col0 + c * col_step;
    const int u = col + head;
    if ((SURE > 0 && c > 0 && c < SURE) || (u >= W && u + W <= n)) {
      u32 prev[A::WORDS], cur[A::WORDS];
      load_words<A, POLICY>(row + u - W, prev);
      load_words<A, POLICY>(row + u, cur);
      realign_halves<A::WORDS>(prev, cur, W - head, frag.w + c * W / 2);
    } else {
      load_shifted_words<T, W, WRAP>(row, c, col, 0, n, f, frag.w + c * W / 2);
    }
  }
}
} // namespace detail

/// The [N] operand (a weight, a bias) of a shifted row whose head (the
/// row's misalignment, elements) is `head`: the same (wrapped) columns as
/// load_frag<..., WRAP>, which are not W-aligned in the operand. A chunk
/// whose aligned neighbourhood lies in the operand is read as the two
/// aligned vectors around it and realigned in registers (the shift is the
/// row's, the same in every thread), for 16-bit operands; 32-bit ones, and
/// the chunks at the row's ends, element by element. `row` is aligned for
/// W-element vectors.
template <class T, int VPT, int W, int WRAP, int SURE = 0, class F>
RKC_DEVICE void load_frag_unaligned(const T *row, int col0, int col_step, int n, int head,
                                    F &frag, float fill) {
  detail::load_unaligned_impl<T, VPT, W, WRAP, SURE, detail::kLoadNormal>(row, col0, col_step, n,
                                                                          head, frag, fill);
}

/// As load_frag_unaligned, with the evict-last L2 policy of load_frag_keep.
template <class T, int VPT, int W, int WRAP, int SURE = 0, class F>
RKC_DEVICE void load_frag_unaligned_keep(const T *row, int col0, int col_step, int n, int head,
                                         F &frag, float fill) {
  detail::load_unaligned_impl<T, VPT, W, WRAP, SURE, detail::kLoadKeep>(row, col0, col_step, n,
                                                                        head, frag, fill);
}

namespace detail {
template <class T, int VPT, int W, int POLICY, int WRAP, int SURE, class S>
RKC_DEVICE void store_frag_impl(T *row, int col0, int col_step, int n, const S (&frag)[VPT]) {
  static_assert(VPT % W == 0, "rkc::store_frag: VPT must be a multiple of W");
#pragma unroll
  for (int c = 0; c < VPT / W; ++c) {
    const int col = col0 + c * col_step;
    const S(&chunk)[W] = *reinterpret_cast<const S(*)[W]>(frag + c * W);
    if ((SURE > 0 && c > 0 && c < SURE) || ((WRAP == 0 || col >= 0) && col + W <= n)) {
      store_vec_impl<T, W, POLICY>(row + col, chunk);
    } else {
      if constexpr (WRAP == 0) {
#pragma unroll
        for (int j = 0; j < W; ++j)
          if (col + j < n)
            row[col + j] = store_cast<T>(chunk[j]);
      } else {
        T *p = row + col;
#pragma unroll
        for (int j = 0; j < W; ++j) {
          const int o = shifted_offset<WRAP>(c, col, j);
          if (col + o < n)
            p[o] = store_cast<T>(chunk[j]);
        }
      }
    }
  }
}
} // namespace detail

/// Stores a fragment; never writes columns >= n. S: float values, or the
/// int values of an int8 tensor.
template <class T, int VPT, int W, int WRAP = 0, int SURE = 0, class S>
RKC_DEVICE void store_frag(T *row, int col0, int col_step, int n,
                           const S (&frag)[VPT]) {
  detail::store_frag_impl<T, VPT, W, detail::kStoreNormal, WRAP, SURE>(row, col0, col_step, n, frag);
}

/// As store_frag, with store_vec_stream for the full chunks: a streamed
/// row's results, not read again by the kernel.
template <class T, int VPT, int W, int WRAP = 0, int SURE = 0, class S>
RKC_DEVICE void store_frag_stream(T *row, int col0, int col_step, int n,
                                  const S (&frag)[VPT]) {
  detail::store_frag_impl<T, VPT, W, detail::kStoreStream, WRAP, SURE>(row, col0, col_step, n, frag);
}

// ---------------------------------------------------------------------------
// Asynchronous global -> shared copies (cp.async, sm_80+) and shared loads.
// ---------------------------------------------------------------------------

/// Starts a 16-byte asynchronous copy global -> shared, bypassing L1
/// (`cp.async.cg.shared.global`). `smem` points to shared memory, `gmem` to
/// global memory (a generic pointer, whose value is its global address); both
/// are 16-byte aligned.
RKC_DEVICE void cp_async_16(void *smem, const void *gmem) {
  const u32 a = smem_addr(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
               :
               : "r"(a), "l"(gmem)
               : "memory");
}

namespace detail {
/// The asm text of a 16-byte cp.async that allocates its L2 line with the
/// policy EVICT ("evict_first", "evict_last"), made in place
/// (`createpolicy.fractional`, fraction 1.0): inline asm takes a literal.
#define RKC_CP_ASYNC_16_HINTED(EVICT)                                           \
  "{\n\t.reg .b64 pol;\n\tcreatepolicy.fractional.L2::" EVICT ".b64 pol, 1.0;\n\t" \
  "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, pol;\n\t}"
/// cp_async_16_stream (EVICT_LAST false) / cp_async_16_keep (true).
template <bool EVICT_LAST> RKC_DEVICE void cp_async_16_hinted(void *smem, const void *gmem) {
  const u32 a = smem_addr(smem);
  if constexpr (EVICT_LAST)
    asm volatile(RKC_CP_ASYNC_16_HINTED("evict_last") : : "r"(a), "l"(gmem) : "memory");
  else
    asm volatile(RKC_CP_ASYNC_16_HINTED("evict_first") : : "r"(a), "l"(gmem) : "memory");
}
#undef RKC_CP_ASYNC_16_HINTED
} // namespace detail

/// As cp_async_16, for data the kernel reads once and nothing reads after
/// it: the line is allocated in L2 with an evict-first policy
/// (`createpolicy.fractional.L2::evict_first`, `cp.async ... .L2::cache_hint`),
/// so the stream replaces its own lines instead of lines other data holds in
/// L2 (dirty lines, whose eviction costs a write-back in the middle of the
/// kernel).
RKC_DEVICE void cp_async_16_stream(void *smem, const void *gmem) {
  detail::cp_async_16_hinted<false>(smem, gmem);
}

/// As cp_async_16, for a row this kernel reads once and writes results
/// behind: the line is allocated in L2 with an evict-last policy
/// (`createpolicy.fractional.L2::evict_last`), so that L2 picks the
/// written result lines as victims first (schedule evict_last).
RKC_DEVICE void cp_async_16_keep(void *smem, const void *gmem) {
  detail::cp_async_16_hinted<true>(smem, gmem);
}

/// Closes the current group of cp.async operations of this thread.
RKC_DEVICE void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/// Waits until at most PENDING of this thread's committed cp.async groups
/// are still in flight (the older ones have landed). Other threads' copies
/// are visible only after a subsequent barrier of the threads involved.
template <int PENDING> RKC_DEVICE void cp_async_wait() {
  static_assert(PENDING >= 0 && PENDING <= 7, "rkc::cp_async_wait: 0..7 groups");
  asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
}

/// Waits until every committed cp.async group of this thread has landed.
RKC_DEVICE void cp_async_wait_all() { cp_async_wait<0>(); }

/// Loads W elements from shared memory with one `ld.shared` access (16 bytes:
/// ld.shared.v4.u32) and widens them. `smem_p` is W-aligned shared memory.
template <class T, int W>
RKC_DEVICE void load_vec_shared(const T *smem_p, float (&out)[W]) {
  static_assert(detail::valid_vec<T, W>(), "rkc::load_vec_shared: bad (T, W)");
  const u32 a = smem_addr(smem_p);
  if constexpr (sizeof(T) * W == 2) {
    T x;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(x.bits) : "r"(a) : "memory");
    out[0] = to_f32(x);
  } else {
    typedef detail::Access<sizeof(T) * W> A;
    u32 w[A::WORDS];
    A::load_shared(a, w);
    detail::unpack_words<T>(w, out);
  }
}

} // namespace rkc
