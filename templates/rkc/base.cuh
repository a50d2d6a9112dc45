// rkc/base.cuh - fixed-width types, thread-index helpers and fast math.
//
// Part of the rkc device templates. These headers are embedded in the rkc
// library and compiled at run time by NVRTC with no include path and no CUDA
// headers, so they use only compiler builtins (threadIdx, __shfl_xor_sync,
// __float_as_uint, the builtin vector types uint2/uint4, ...) and inline PTX.
// They hold primitives only; kernel bodies are generated from IR.
//
// Conventions shared by every rkc header:
//  * CTAs are one-dimensional (blockDim = (N, 1, 1)); lane and warp ids are
//    derived from threadIdx.x.
//  * Values are computed in f32; storage types are converted on load/store
//    (rkc/convert.cuh).
//  * Everything is `__device__ __forceinline__` (RKC_DEVICE) and lives in
//    namespace rkc; implementation details live in namespace rkc::detail.
#pragma once

#define RKC_DEVICE __device__ __forceinline__

namespace rkc {

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef int i32;
typedef long long i64;

static_assert(sizeof(u16) == 2 && sizeof(u32) == 4 && sizeof(u64) == 8 &&
                  sizeof(i32) == 4 && sizeof(i64) == 8,
              "rkc: unexpected fundamental type sizes");

// ---------------------------------------------------------------------------
// Thread indices (1-D CTAs).
// ---------------------------------------------------------------------------

/// Lane of the calling thread inside its warp, in [0, 32).
RKC_DEVICE int lane_id() { return static_cast<int>(threadIdx.x & 31u); }

/// Warp of the calling thread inside its CTA, in [0, blockDim.x / 32).
RKC_DEVICE int warp_id() { return static_cast<int>(threadIdx.x >> 5); }

// ---------------------------------------------------------------------------
// Shared-memory addresses.
// ---------------------------------------------------------------------------

/// 32-bit shared-window address of a generic pointer to shared memory, as
/// taken by the `[addr]` operand of shared-memory PTX (cp.async, mbarrier,
/// mapa, ...). `p` must point into the CTA's shared memory.
RKC_DEVICE u32 smem_addr(const void *p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------------------
// Numeric helpers (f32).
// ---------------------------------------------------------------------------

/// -infinity.
RKC_DEVICE float neg_inf() { return __uint_as_float(0xff800000u); }

/// +infinity.
RKC_DEVICE float pos_inf() { return __uint_as_float(0x7f800000u); }

/// 2^x via `ex2.approx.ftz.f32`: max relative error 2^-22 (about 2 ulp);
/// subnormal results flush to 0, fast_exp2(-inf) == 0, NaN propagates.
RKC_DEVICE float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// log2(e), the factor that turns e^x into 2^(x log2 e) (a function: a
/// namespace-scope constant would be emitted as a PTX global).
RKC_DEVICE constexpr float log2e() { return 1.4426950408889634f; }

/// e^x as 2^(x * log2(e)). Relative error is about 2 ulp for |x| <= 1 and
/// grows like |x| * 2^-24 (the rounding of x * log2(e)) for larger |x|, the
/// same accuracy as CUDA's __expf. fast_exp(-inf) == 0.
RKC_DEVICE float fast_exp(float x) {
  return fast_exp2(x * log2e());
}

/// log(x) as lg2.approx.ftz(x) * ln(2): absolute error ~2^-22 in log2 units;
/// fast_log(0) == -inf, fast_log(x < 0) == NaN, subnormal x is flushed to 0.
RKC_DEVICE float fast_log(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y * 0.6931471805599453f;
}

/// 1/sqrt(x) (`rsqrt.approx.f32`, max relative error 2^-22.9).
RKC_DEVICE float rsqrt(float x) { return rsqrtf(x); }

/// a / b via `div.approx.f32` (about 2 ulp). Returns 0 when
/// 2^126 < |b| < 2^128, so only use it with a well-scaled divisor
/// (e.g. a softmax denominator >= 1).
RKC_DEVICE float div_approx(float a, float b) { return __fdividef(a, b); }


// ---------------------------------------------------------------------------
// Barriers of part of a CTA.
// ---------------------------------------------------------------------------

/// Barrier `id` (1-15; 0 is __syncthreads') of THREADS threads of the CTA,
/// whole warps, that all call it with the same id: they wait for each
/// other, and shared-memory writes before it are visible to all of them
/// after it. THREADS = 32: the calling warp alone (__syncwarp).
template <int THREADS> RKC_DEVICE void named_barrier(int id) {
  static_assert(THREADS % 32 == 0 && THREADS > 0, "rkc::named_barrier: whole warps");
  if constexpr (THREADS == 32)
    __syncwarp();
  else
    asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(THREADS) : "memory");
}

// ---------------------------------------------------------------------------
// Programmatic dependent launch (sm_90+).
// ---------------------------------------------------------------------------

/// Waits until the grids this one depends on (the previous kernel of the
/// stream, when this one was launched with programmatic stream
/// serialization) have completed and their writes are visible. Every rkc
/// kernel calls it before its first access to global memory that the
/// previous kernel may have written, so a PDL launch is as ordered as a
/// plain one. Returns at once for a kernel launched without PDL, and is a
/// no-op before sm_90.
RKC_DEVICE void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the next kernel of the stream, if launched with PDL, start its CTAs
/// (they run up to their own grid_dependency_wait) once every CTA of this
/// grid has called it or exited. A no-op otherwise.
RKC_DEVICE void grid_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

} // namespace rkc
