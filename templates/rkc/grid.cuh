// rkc/grid.cuh - the grid tier of a row reduction: the CTAs of a row that
// are not a thread-block cluster (schedule `split`) combine their states
// through global memory, in inline PTX (no cooperative_groups).
//
// The kernel runs as a persistent grid whose CTAs are all resident at once
// (the runtime launches it cooperatively, at most as many CTAs as fit): the
// CTAs `g * SPLIT .. g * SPLIT + SPLIT - 1` form group g, which loops over
// rows g, g + groups, ... Each group owns a region of the launch's workspace
// (zeroed when allocated; every launch leaves it zeroed again, see
// grid_finish):
//
//   [0, 4)                      the group's arrival counter (u32)
//   [4, 8)                      its departure counter (grid_finish)
//   [8, 12)                     deferred waits: the arrival counter of odd
//                               epochs (grid_arrive)
//   [offset, offset + 2 * SPLIT * SLOT_BYTES)
//                               one call site's slots, two sets used in
//                               turn (a CTA may publish its next state
//                               while a slower one still reads this one);
//                               four sets with deferred waits
//
// Deferred waits (grid_arrive / grid_wait, a kernel with one reduction per
// row whose CTAs keep their whole part of a row on chip): a CTA publishes
// its state for row r, sweeps row r + groups into its other buffer and
// publishes that state too, and only then waits for row r's group, so the
// wait overlaps a sweep instead of idling the CTA. Two epochs are then in
// flight per CTA: each parity counts its own arrivals (an epoch's target
// cannot be met by early arrivals of the next), and a set of slots is
// reused four epochs later, which a CTA reaches only after its wait for
// epoch e + 2, i.e. after every CTA of the group arrived at e + 2 and so
// had finished reading epoch e's slots.
//
// Template parameters (grid_reduce):
//   WARPS_PER_ROW  warps of one CTA working on the row: a power of two in
//                  [1, 32].
//   SPLIT          CTAs of a group: a power of two in [1, 1024].
//   SLOT_BYTES     bytes of one slot, a multiple of 4, at least sizeof(S).
//   S, Op          reduction state and combiner, as in rkc/reduce.cuh.
#pragma once

#include "rkc/base.cuh"
#include "rkc/reduce.cuh"

namespace rkc {

// ---------------------------------------------------------------------------
// Global-memory accesses with GPU-scope ordering (PTX memory model).
// ---------------------------------------------------------------------------

/// Adds `v` to `*p` with release semantics at GPU scope: this thread's
/// earlier writes are visible to a thread whose acquire load reads the sum.
RKC_DEVICE void red_add_release_gpu(u32 *p, u32 v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/// Loads `*p` with acquire semantics at GPU scope.
RKC_DEVICE u32 ld_acquire_gpu(const u32 *p) {
  u32 v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/// Relaxed GPU-scope load and store (through L2, never a stale L1 line).
RKC_DEVICE u32 ld_relaxed_gpu(const u32 *p) {
  u32 v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
RKC_DEVICE void st_relaxed_gpu(u32 *p, u32 v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/// Adds `v` to `*p` (acquire and release at GPU scope); returns the old value.
RKC_DEVICE u32 atom_add_acq_rel_gpu(u32 *p, u32 v) {
  u32 old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;"
               : "=r"(old)
               : "l"(p), "r"(v)
               : "memory");
  return old;
}

namespace detail {
/// The state in slot `slot` of `base` (SLOT_BYTES apart), read word by word.
template <int SLOT_BYTES, class S>
RKC_DEVICE S load_grid_slot(const unsigned char *base, int slot) {
  const u32 *p = reinterpret_cast<const u32 *>(base + (size_t)slot * SLOT_BYTES);
  u32 w[sizeof(S) / 4];
#pragma unroll
  for (int i = 0; i < int(sizeof(S) / 4); ++i)
    w[i] = ld_relaxed_gpu(p + i);
  S s;
  memcpy(&s, w, sizeof(S));
  return s;
}

/// Lane `lane`'s share of the slots: slots lane, lane + G, ... (K of them),
/// combined in that order. The loads are issued in batches of up to
/// BATCH before any is combined, so a batch costs one L2 round trip, not
/// one per slot (each CTA of a group waits for these after the group's
/// last arrival: at SPLIT = 128, four round trips in series took 3-4 us a
/// row on the H100, docs/performance-notes.md, session 30).
template <int K, int G, int SLOT_BYTES, class S, class Op>
RKC_DEVICE S combine_grid_slots(const unsigned char *slots, int lane, Op op) {
  constexpr int BATCH = K < 8 ? K : 8;
  static_assert(K % BATCH == 0, "rkc::grid_reduce: slots per lane in whole batches");
  S part[BATCH];
#pragma unroll
  for (int j = 0; j < BATCH; ++j)
    part[j] = load_grid_slot<SLOT_BYTES, S>(slots, j * G + lane);
  S acc = part[0];
#pragma unroll
  for (int j = 1; j < BATCH; ++j)
    acc = op(acc, part[j]);
#pragma unroll 1
  for (int k0 = BATCH; k0 < K; k0 += BATCH) {
#pragma unroll
    for (int j = 0; j < BATCH; ++j)
      part[j] = load_grid_slot<SLOT_BYTES, S>(slots, (k0 + j) * G + lane);
#pragma unroll
    for (int j = 0; j < BATCH; ++j)
      acc = op(acc, part[j]);
  }
  return acc;
}

/// Lane 0 of warp 0: stores the CTA's state in its slot and adds one to
/// the group's arrival counter (release: the slot is visible to whoever
/// acquires the sum).
template <class S> RKC_DEVICE void publish_slot(unsigned char *slot, u32 *counter, const S &mine) {
  u32 w[sizeof(S) / 4];
  memcpy(w, &mine, sizeof(S));
  u32 *p = reinterpret_cast<u32 *>(slot);
#pragma unroll
  for (int i = 0; i < int(sizeof(S) / 4); ++i)
    st_relaxed_gpu(p + i, w[i]);
  red_add_release_gpu(counter, 1);
}

/// Warp 0: waits until `*counter` reaches `target` (acquire), then combines
/// the SPLIT slots in order (combine_grid_slots, then the lanes) into
/// lanes[G], G = min(SPLIT, 32).
template <int SPLIT, int SLOT_BYTES, class S, class Op>
RKC_DEVICE void combine_group(const u32 *counter, u32 target, const unsigned char *slots, S *lanes,
                              Op op, int lane) {
  constexpr int G = SPLIT < 32 ? SPLIT : 32;
  while (ld_acquire_gpu(counter) < target)
    __nanosleep(32);
  if (lane < G)
    lanes[lane] = combine_grid_slots<SPLIT / G, G, SLOT_BYTES, S>(slots, lane, op);
  __syncwarp();
  const S r = reduce_slots<G>(lanes, op, lane); // reads lanes[0, G) only
  if (lane == 0)
    lanes[G] = r;
}
} // namespace detail

/// Reduces a row across the WARPS_PER_ROW warps of each of the SPLIT CTAs
/// of this CTA's group; every thread of every CTA of the group returns the
/// row's result (bitwise the same in all of them).
///
/// It replaces the block tier: pass the warp_reduce<32> result.
///
///  v         this warp's warp-reduced value (identical in all its lanes)
///  buf       shared buffer of WARPS_PER_ROW + 33 states, this call site's
///            only (reused by the next row: the kernel ends each row with
///            a __syncthreads())
///  ws        the group's workspace region (see above)
///  offset    this call site's slots in it (bytes, a multiple of 16)
///  epoch     reductions this CTA has done in this launch: every CTA of a
///            group does the same ones in the same order; incremented here
///  rank      this CTA's index in its group, in [0, SPLIT)
///
/// Warp 0 combines the warps' states; its lane 0 stores the CTA's state in
/// slot `rank` and adds one to the group counter (release). Warp 0 then
/// waits until the counter reaches SPLIT * epoch (acquire), its lane L
/// combines slots L, L + 32, ... in order (detail::combine_grid_slots,
/// loads in flight together), and detail::reduce_slots
/// combines the lanes. Two __syncthreads(): all threads of the CTA must
/// call it, in uniform control flow.
template <int WARPS_PER_ROW, int SPLIT, int SLOT_BYTES, class S, class Op>
RKC_DEVICE S grid_reduce(S v, Op op, S *buf, unsigned char *ws, int offset, u32 &epoch,
                         int rank, int warp_in_row, int lane) {
  static_assert(
      WARPS_PER_ROW >= 1 && WARPS_PER_ROW <= 32 &&
          (WARPS_PER_ROW & (WARPS_PER_ROW - 1)) == 0,
      "rkc::grid_reduce: WARPS_PER_ROW must be a power of two in [1, 32]");
  static_assert(SPLIT >= 1 && SPLIT <= 1024 && (SPLIT & (SPLIT - 1)) == 0,
                "rkc::grid_reduce: SPLIT must be a power of two in [1, 1024]");
  static_assert(sizeof(S) % 4 == 0 && SLOT_BYTES % 4 == 0 && SLOT_BYTES >= (int)sizeof(S),
                "rkc::grid_reduce: a slot holds the state in 32-bit words");
  constexpr int G = SPLIT < 32 ? SPLIT : 32;
  S *lanes = buf + WARPS_PER_ROW; // G states, then the result
  ++epoch;
  if (lane == 0)
    buf[warp_in_row] = v;
  __syncthreads();
  if (warp_in_row == 0) {
    u32 *counter = reinterpret_cast<u32 *>(ws);
    unsigned char *slots = ws + offset + (epoch & 1) * (SPLIT * SLOT_BYTES);
    const S mine = detail::reduce_slots<WARPS_PER_ROW>(buf, op, lane);
    if (lane == 0)
      detail::publish_slot(slots + rank * SLOT_BYTES, counter, mine);
    detail::combine_group<SPLIT, SLOT_BYTES>(counter, (u32)SPLIT * epoch, slots, lanes, op, lane);
  }
  __syncthreads();
  return lanes[G];
}

/// The first half of a deferred grid reduction (see the header): combines
/// the CTA's warps and publishes the CTA's state for epoch `arrived` + 1.
///
///  v         this warp's warp-reduced value (identical in all its lanes)
///  buf       shared buffer of 2 * WARPS_PER_ROW states, used in turn by
///            consecutive epochs (warp 0 reads one while the other warps may
///            already sweep the next row; a grid_wait's barrier separates
///            the reads of an epoch from the writes of the one two later)
///  arrived   epochs this CTA has published in this launch; incremented
///
/// One __syncthreads(): all threads of the CTA must call it, in uniform
/// control flow. Pair each grid_arrive with one grid_wait, in order.
template <int WARPS_PER_ROW, int SPLIT, int SLOT_BYTES, class S, class Op>
RKC_DEVICE void grid_arrive(S v, Op op, S *buf, unsigned char *ws, int offset, u32 &arrived,
                            int rank, int warp_in_row, int lane) {
  static_assert(SPLIT >= 1 && SPLIT <= 1024 && (SPLIT & (SPLIT - 1)) == 0,
                "rkc::grid_arrive: SPLIT must be a power of two in [1, 1024]");
  static_assert(sizeof(S) % 4 == 0 && SLOT_BYTES % 4 == 0 && SLOT_BYTES >= (int)sizeof(S),
                "rkc::grid_arrive: a slot holds the state in 32-bit words");
  ++arrived;
  S *mineBuf = buf + (arrived & 1) * WARPS_PER_ROW;
  if (lane == 0)
    mineBuf[warp_in_row] = v;
  __syncthreads();
  if (warp_in_row == 0) {
    const S mine = detail::reduce_slots<WARPS_PER_ROW>(mineBuf, op, lane);
    if (lane == 0)
      detail::publish_slot(ws + offset + (arrived & 3) * (SPLIT * SLOT_BYTES) + rank * SLOT_BYTES,
                           reinterpret_cast<u32 *>(ws) + ((arrived & 1) ? 2 : 0), mine);
  }
}

/// The second half: waits until every CTA of the group published epoch
/// `waited` + 1 and returns the group's result (bitwise the same in every
/// thread of every CTA of the group, as grid_reduce's).
///
///  lanes     shared buffer of 33 states, this call site's only
///  waited    epochs this CTA has waited for; incremented
///
/// One __syncthreads(): all threads of the CTA must call it, in uniform
/// control flow; the kernel ends each row with a __syncthreads() before
/// the next grid_wait writes `lanes` again.
template <int SPLIT, int SLOT_BYTES, class S, class Op>
RKC_DEVICE S grid_wait(Op op, S *lanes, const unsigned char *ws, int offset, u32 &waited,
                       int warp_in_row, int lane) {
  constexpr int G = SPLIT < 32 ? SPLIT : 32;
  ++waited;
  if (warp_in_row == 0) // target: the epochs of this parity so far
    detail::combine_group<SPLIT, SLOT_BYTES>(
        reinterpret_cast<const u32 *>(ws) + ((waited & 1) ? 2 : 0), (u32)SPLIT * ((waited + 1) / 2),
        ws + offset + (waited & 3) * (SPLIT * SLOT_BYTES), lanes, op, lane);
  __syncthreads();
  return lanes[G];
}

/// Ends a split kernel, after its last row (every thread of the CTA, after
/// a __syncthreads()): leaves the group's counters at zero for the next
/// launch. Thread 0 of each CTA that reduced anything adds one to the
/// departure counter; the last of the group's SPLIT CTAs, which every other
/// CTA's final wait on the arrival counter happened before (acq_rel on the
/// departure counter), zeroes both.
/// DEFERRED: the kernel used grid_arrive / grid_wait (epoch: its arrivals),
/// whose odd epochs' counter is zeroed too.
template <int SPLIT, bool DEFERRED = false>
RKC_DEVICE void grid_finish(unsigned char *ws, u32 epoch) {
  if (epoch == 0 || threadIdx.x != 0)
    return;
  u32 *counter = reinterpret_cast<u32 *>(ws);
  if (atom_add_acq_rel_gpu(counter + 1, 1) == (u32)SPLIT - 1) {
    st_relaxed_gpu(counter, 0);
    st_relaxed_gpu(counter + 1, 0);
    if (DEFERRED)
      st_relaxed_gpu(counter + 2, 0);
  }
}

} // namespace rkc
