// rkc/cluster.cuh - thread-block-cluster (sm_90+) primitives and the cluster
// tier of a row reduction, in inline PTX (no cooperative_groups).
//
// Everything here is compiled only for __CUDA_ARCH__ >= 900; on older targets
// the header declares nothing of its own (the code generator never calls these
// functions there).
//
// Template parameters (cluster_reduce, cluster_reduce_setup):
//   WARPS_PER_ROW  warps of one CTA working on the row: a power of two in [1,
//   32]. CLUSTER        CTAs in the cluster: a power of two in [1, 16]; the
//   kernel is
//                  launched with cluster dims (CLUSTER, 1, 1). One row per
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
/// (`barrier.cluster.arrive.relaxed.aligned`). Used after mbarrier inits, which
/// fence_mbarrier_init() orders.
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

// ---------------------------------------------------------------------------
// mbarrier (64-bit shared-memory transaction barrier).
// ---------------------------------------------------------------------------

/// Initialises the mbarrier at `bar` (8-byte aligned shared memory) for
/// `count` arrivals per phase; the current phase becomes 0.
RKC_DEVICE void mbarrier_init(u64 *bar, u32 count) {
  const u32 a = smem_addr(bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
               :
               : "r"(a), "r"(count)
               : "memory");
}

/// Makes this thread's prior mbarrier_init()s visible to the whole cluster
/// before a following cluster_arrive_relaxed() (`fence.mbarrier_init`).
RKC_DEVICE void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// One arrival on the local mbarrier that also raises the transaction count
/// of the current phase by `bytes`: the phase then completes once every
/// arrival has happened and `bytes` bytes of asynchronous stores
/// (st_async_u32, TMA) have landed (`mbarrier.arrive.expect_tx`).
RKC_DEVICE void mbarrier_arrive_expect_tx(u64 *bar, u32 bytes) {
  const u32 a = smem_addr(bar);
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :
               : "r"(a), "r"(bytes)
               : "memory");
}

/// Blocks until phase `phase` (0 or 1) of the local mbarrier has completed,
/// with acquire semantics at cluster scope, so data delivered to this CTA by
/// the phase's asynchronous stores is visible afterwards.
RKC_DEVICE void mbarrier_wait(u64 *bar, u32 phase) {
  const u32 a = smem_addr(bar);
  asm volatile("{\n\t"
               ".reg .pred done;\n\t"
               "RKC_MBARRIER_WAIT:\n\t"
               "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, "
               "[%0], %1;\n\t"
               "@!done bra RKC_MBARRIER_WAIT;\n\t"
               "}"
               :
               : "r"(a), "r"(phase)
               : "memory");
}

/// Asynchronously stores the 32-bit `value` at `remote_addr` (a shared::cluster
/// address from mapa) and, when the store is complete, counts 4 transaction
/// bytes on the mbarrier at `remote_mbar_addr` (a shared::cluster address in
/// the same CTA as remote_addr)
/// (`st.async.shared::cluster.mbarrier::complete_tx::bytes.u32`).
RKC_DEVICE void st_async_u32(u32 remote_addr, u32 value, u32 remote_mbar_addr) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 "
               "[%0], %1, [%2];"
               :
               : "r"(remote_addr), "r"(value), "r"(remote_mbar_addr)
               : "memory");
}

// ---------------------------------------------------------------------------
// Cluster tier of a row reduction (one row per cluster, as in QuACK).
//
// Setup contract, per cluster_reduce call site (each has its own `buf` and
// `mbar`, at the same shared-memory offsets in every CTA of the cluster):
//
//   1. every thread calls cluster_reduce_setup<WARPS_PER_ROW, CLUSTER, S>(mbar)
//      for each of the kernel's cluster reductions; in it thread 0 initialises
//      the mbarrier (1 arrival), fences the init for the cluster, and performs
//      that arrival while arming the phase with the
//      WARPS_PER_ROW * CLUSTER * sizeof(S) bytes the CTA will receive;
//   2. every thread then calls cluster_arrive_relaxed() once (after all the
//      setups) and cluster_wait() once before the first cluster_reduce. The
//      wait guarantees that every peer's mbarriers are initialised before any
//      remote st.async reaches them; loads independent of the reductions
//      (e.g. the row's global data) may be issued between the two.
//
// Setup does not fold the arrive/wait in, so that several reductions share one
// cluster barrier and its latency hides behind the kernel's global loads.
// Each mbarrier completes exactly one phase (phase 0). Before the kernel
// exits, every thread calls cluster_exit_sync().
// ---------------------------------------------------------------------------

/// Step 1 of the setup contract above; called by all threads of the CTA.
template <int WARPS_PER_ROW, int CLUSTER, class S>
RKC_DEVICE void cluster_reduce_setup(u64 *mbar) {
  if (threadIdx.x == 0) {
    mbarrier_init(mbar, 1);
    fence_mbarrier_init();
    mbarrier_arrive_expect_tx(
        mbar, static_cast<u32>(WARPS_PER_ROW * CLUSTER * sizeof(S)));
  }
}

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
///  mbar         this reduction's mbarrier, prepared as in the setup contract
///  warp_in_row  index of the calling warp in its CTA, in [0, WARPS_PER_ROW)
///  lane         lane_id()
///
/// Lane r < CLUSTER of each warp stores v into slot
/// (cluster_ctarank() * WARPS_PER_ROW + warp_in_row) of CTA r's buf with
/// st.async (one per 32-bit word), each completing its 4 bytes on CTA r's mbar.
/// Every slot of every CTA is written exactly once, so each CTA receives
/// exactly WARPS_PER_ROW * CLUSTER * sizeof(S) bytes, the amount its phase was
/// armed with. Lane 0 of every warp waits for phase 0 of the local mbar
/// (the warp follows through __syncwarp), then all threads reduce
/// the slots with detail::reduce_slots (exact, no identity needed; loops when
/// WARPS_PER_ROW * CLUSTER > 32). Every CTA computes the same slots in the
/// same order, so all CTAs get the same result.
///
/// All threads of the CTA must call it.
template <int WARPS_PER_ROW, int CLUSTER, class S, class Op>
RKC_DEVICE S cluster_reduce(S v, Op op, S *buf, u64 *mbar, int warp_in_row,
                            int lane) {
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
    const u32 dst_mbar = mapa(smem_addr(mbar), lane);
    u32 w[sizeof(S) / 4];
    memcpy(w, &v, sizeof(S));
#pragma unroll
    for (int i = 0; i < int(sizeof(S) / 4); ++i)
      st_async_u32(dst + 4 * i, w[i], dst_mbar);
  }
  // One lane per warp polls the mbarrier (acquire at cluster scope); the
  // warp barrier then orders the delivered slots for the other lanes.
  if (lane == 0)
    mbarrier_wait(mbar, 0);
  __syncwarp();
  return detail::reduce_slots<WARPS_PER_ROW * CLUSTER>(buf, op, lane);
}

/// Final cluster barrier (cluster_arrive() + cluster_wait()): called by every
/// thread at the end of a cluster kernel so that no CTA exits, releasing its
/// shared memory, while a peer may still access it.
RKC_DEVICE void cluster_exit_sync() { cluster_sync(); }

} // namespace rkc

#endif // __CUDA_ARCH__ >= 900
