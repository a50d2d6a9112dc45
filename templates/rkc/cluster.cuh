// rkc/cluster.cuh - thread-block-cluster (sm_90+) primitives and the cluster
// tier of a row reduction, in inline PTX (no cooperative_groups).
//
// Everything here is compiled only for __CUDA_ARCH__ >= 900; on older targets
// the header declares nothing of its own (the code generator never calls these
// functions there).
//
// Template parameters (cluster_reduce):
//   WARPS_PER_ROW  warps of one CTA working on the row: a power of two in
//                  [1, 32].
//   CLUSTER        CTAs in the cluster: a power of two in [1, 16]; the kernel
//                  is launched with cluster dims (CLUSTER, 1, 1). One row per
//                  cluster (rows_per_cta == 1).
//   S, Op          reduction state and combiner, as in rkc/reduce.cuh.
//
// Barrier ops use the `.aligned` forms: every thread of the CTA must execute
// the same call, in warp-uniform control flow.
#pragma once

#include "rkc/base.cuh"
#include "rkc/reduce.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

namespace rkc {

// ---------------------------------------------------------------------------
// Cluster geometry and barrier.
// ---------------------------------------------------------------------------

/// Rank of this CTA in its cluster, in [0, cluster_nctarank()).
RKC_DEVICE u32 cluster_ctarank() {
  u32 r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// Number of CTAs in the cluster.
RKC_DEVICE u32 cluster_nctarank() {
  u32 n;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

/// Arrives on the cluster barrier without memory ordering
/// (`barrier.cluster.arrive.relaxed.aligned`): the kernel-start arrival whose
/// matching cluster_wait() only has to prove that every CTA runs.
RKC_DEVICE void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

/// Arrives on the cluster barrier with release semantics: this thread's prior
/// writes are visible to cluster threads after their matching cluster_wait().
RKC_DEVICE void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

/// Waits until all non-exited threads of the cluster have arrived (acquire).
RKC_DEVICE void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/// Full cluster barrier: cluster_arrive() then cluster_wait().
RKC_DEVICE void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

/// Address in CTA `cta_rank`'s shared memory of the variable that lives at
/// shared address `addr` (from smem_addr) in this CTA
/// (`mapa.shared::cluster.u32`). The result is a shared::cluster address.
RKC_DEVICE u32 mapa(u32 addr, u32 cta_rank) {
  u32 r;
  asm("mapa.shared::cluster.u32 %0, %1, %2;"
      : "=r"(r)
      : "r"(addr), "r"(cta_rank));
  return r;
}

/// Generic pointer to the variable at `p` (this CTA's shared memory) in CTA
/// `cta_rank`'s shared memory (`mapa.u64`): plain loads through it read
/// distributed shared memory and are ordered by the cluster barriers like
/// any other memory access.
template <class T> RKC_DEVICE const T *mapa_ptr(const T *p, u32 cta_rank) {
  u64 r;
  asm("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(reinterpret_cast<u64>(p)), "r"(cta_rank));
  return reinterpret_cast<const T *>(r);
}

/// Stores the 32-bit `value` at `remote_addr`, a shared::cluster address from
/// mapa() (`st.shared::cluster.u32`). The store is ordered for the target
/// CTA by the next cluster barrier (cluster_arrive() / cluster_wait()).
RKC_DEVICE void st_cluster_u32(u32 remote_addr, u32 value) {
  asm volatile("st.shared::cluster.u32 [%0], %1;"
               :
               : "r"(remote_addr), "r"(value)
               : "memory");
}

// ---------------------------------------------------------------------------
// Cluster tier of a row reduction (one row per cluster, as in QuACK).
//
// Contract, per kernel:
//
//   1. every thread calls cluster_arrive_relaxed() once near the start of
//      the kernel and cluster_wait() once before the first cluster_reduce:
//      the wait guarantees that every CTA of the cluster runs before any
//      thread writes into its shared memory; loads independent of the
//      reductions (e.g. the row's global data) go between the two, so the
//      barrier's latency hides behind them;
//   2. each cluster_reduce call site has its own `buf`, at the same
//      shared-memory offset in every CTA of the cluster (a static
//      __shared__ array), never reused by another reduction.
//
// A reduction is one push of this warp's value into every CTA's `buf`
// through distributed shared memory and one full cluster barrier (release /
// acquire): after it, every slot of every CTA is written and visible, and no
// CTA touches another CTA's shared memory again, so the kernel needs no
// barrier before it exits. (An earlier version used st.async with an
// mbarrier per reduction, as QuACK does; compute-sanitizer's racecheck does
// not model the asynchronous stores' completion and reported hazards on
// every cluster kernel. The barrier form costs the same one cluster-wide
// wait and is checked clean.)
// ---------------------------------------------------------------------------

/// Reduces a row across the WARPS_PER_ROW warps of each of the CLUSTER CTAs of
/// the cluster; every thread of every CTA returns the row's result.
///
/// It replaces the block tier: pass the warp_reduce<32> result, NOT a
/// block_reduce result (a CTA-wide value would be counted WARPS_PER_ROW times
/// by a non-idempotent combiner such as add).
///
///  v            this warp's warp-reduced value (identical in all its lanes)
///  buf          shared buffer of WARPS_PER_ROW * CLUSTER elements, same offset
///               in every CTA, used by this reduction only
///  warp_in_row  index of the calling warp in its CTA, in [0, WARPS_PER_ROW)
///  lane         lane_id()
///
/// Lane r < CLUSTER of each warp stores v into slot
/// (cluster_ctarank() * WARPS_PER_ROW + warp_in_row) of CTA r's buf (one
/// st.shared::cluster per 32-bit word); then every thread of the cluster
/// passes one cluster barrier and reduces the slots with
/// detail::reduce_slots (exact, no identity needed; loops when
/// WARPS_PER_ROW * CLUSTER > 32). Every CTA computes the same slots in the
/// same order, so all CTAs get the same result.
///
/// All threads of the CTA must call it, in warp-uniform control flow.
template <int WARPS_PER_ROW, int CLUSTER, class S, class Op>
RKC_DEVICE S cluster_reduce(S v, Op op, S *buf, int warp_in_row, int lane) {
  static_assert(
      WARPS_PER_ROW >= 1 && WARPS_PER_ROW <= 32 &&
          (WARPS_PER_ROW & (WARPS_PER_ROW - 1)) == 0,
      "rkc::cluster_reduce: WARPS_PER_ROW must be a power of two in [1, 32]");
  static_assert(
      CLUSTER >= 1 && CLUSTER <= 16 && (CLUSTER & (CLUSTER - 1)) == 0,
      "rkc::cluster_reduce: CLUSTER must be a power of two in [1, 16]");
  static_assert(sizeof(S) % 4 == 0,
                "rkc::cluster_reduce: sizeof(S) must be a multiple of 4");
  if (lane < CLUSTER) {
    const u32 slot = cluster_ctarank() * WARPS_PER_ROW + warp_in_row;
    const u32 dst = mapa(smem_addr(buf + slot), lane);
    u32 w[sizeof(S) / 4];
    memcpy(w, &v, sizeof(S));
#pragma unroll
    for (int i = 0; i < int(sizeof(S) / 4); ++i)
      st_cluster_u32(dst + 4 * i, w[i]);
  }
  cluster_sync(); // release the pushes, acquire the ones into this CTA
  return detail::reduce_slots<WARPS_PER_ROW * CLUSTER>(buf, op, lane);
}

} // namespace rkc

#endif // __CUDA_ARCH__ >= 900
