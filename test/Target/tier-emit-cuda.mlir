// RUN: rk-opt %s -split-input-file --tier-emit-cuda=print=true -o /dev/null | FileCheck %s --enable-var-scope
// RUN: rk-opt %s -split-input-file --tier-emit-cuda=print=true -o /dev/null | FileCheck %s --check-prefix=NEG
// RUN: rk-opt %S/Inputs/tier-emit-cuda-errors.mlir -split-input-file --tier-emit-cuda -verify-diagnostics -mlir-print-op-on-diagnostic=false

// The CUDA C++ of planned, lowered kernels. Every kernel includes the device
// templates and is parameterised by constexprs from the plan: N (row length),
// V (values per thread), W (vector width), TPR (threads per row), ROWS (rows
// per CTA), C (CTAs per cluster).

// A block-tier kernel: 256 threads x 16 bf16 values, 8-wide vectors.
// CHECK:       #include "rkc/rkc.cuh"
// CHECK-LABEL: // kernel rkc_rms: threads=256,values=16,vector=8,rows=1,cluster=1,staging=registers,unroll=2,min_blocks=0
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(256)
// CHECK-NEXT:  rkc_rms(
// CHECK-NEXT:      const rkc::bf16 *__restrict__ a0,
// CHECK-NEXT:      const rkc::bf16 *__restrict__ a1,
// CHECK-NEXT:      rkc::bf16 *__restrict__ a2,
// CHECK-NEXT:      const long long s0,
// CHECK-NEXT:      const long long s1,
// CHECK-NEXT:      const long long s2,
// CHECK-NEXT:      const long long M) {
// CHECK-DAG:     constexpr int N = 4096;
// CHECK-DAG:     constexpr int V = 16;
// CHECK-DAG:     constexpr int W = 8;
// CHECK-DAG:     constexpr int TPR = 256;
// CHECK-DAG:     constexpr int ROWS = 1;
// CHECK-DAG:     constexpr int C = 1;
// CHECK-DAG:     constexpr bool FULL_ROW = true;
// CHECK:         const int rank = 0;
// CHECK:         const float [[N:c[0-9]+]] = 4096.0f;
// Registers staging widens at the load; the square is emitted where the
// reduction consumes it.
// CHECK:         float [[XF:f[0-9]+]][V];
// CHECK-NEXT:    rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, [[XF]], 0.0f);
// CHECK-NEXT:    float [[SQ:f[0-9]+]][V];
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int i = 0; i < V; ++i) {
// CHECK-NEXT:      const float [[A:v[0-9]+]] = [[XF]][i];
// CHECK-NEXT:      const float [[P:v[0-9]+]] = ([[A]] * [[A]]);
// CHECK-NEXT:      [[SQ]][i] = [[P]];
// CHECK-NEXT:    }
// CHECK-NEXT:    float [[T:r[0-9]+]] = 0.0f;
// CHECK:           if (FULL_ROW || col < N) [[T]] = rkc::OpAdd()([[T]], [[SQ]][i]);
// CHECK:         const float [[WR:r[0-9]+]] = rkc::warp_reduce<32>([[T]], rkc::OpAdd());
// CHECK-NEXT:    __shared__ float [[BUF:red[0-9]+]][ROWS * 8];
// CHECK-NEXT:    const float [[BR:r[0-9]+]] = rkc::block_reduce<8>([[WR]], rkc::OpAdd(), [[BUF]], row_in_cta, warp_in_row, lane);
// CHECK-NOT:     refresh
// CHECK:           const float [[B0:v[0-9]+]] = [[BR]];
// CHECK-NEXT:      const float [[B1:v[0-9]+]] = [[N]];
// CHECK-NEXT:      const float [[Q:v[0-9]+]] = ([[B0]] / [[B1]]);
// CHECK-NEXT:      const float {{v[0-9]+}} = rsqrtf([[Q]]);
// CHECK:         float [[WF:f[0-9]+]][V];
// CHECK-NEXT:    rkc::load_frag<rkc::bf16, V, W>(a1, col0, COL_STEP, N, [[WF]], 0.0f);
// CHECK-NEXT:    float [[Y:f[0-9]+]][V];
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int i = 0; i < V; ++i) {
// CHECK-NEXT:      const float {{v[0-9]+}} = [[XF]][i];
// CHECK:         if (row_ok) rkc::store_frag<rkc::bf16, V, W>(a2 + row * s2, col0, COL_STEP, N, [[Y]]);
// CHECK-NEXT:  }
// NEG-LABEL:   // kernel rkc_rms:
// NEG-NOT:     __cluster_dims__
// NEG-NOT:     cluster_reduce
// NEG-NOT:     cluster_wait
// NEG:         rkc::block_reduce<8>
// NEG-NOT:     cluster_
// NEG:         rkc::store_frag
func.func @rms(%x: tensor<64x4096xbf16> {rk.name = "x"}, %w: tensor<4096xbf16> {rk.name = "w"},
               %y: tensor<64x4096xbf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 2, min_blocks = 0>} {
  %n = arith.constant 4096.0 : f32
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<64x4096xbf16> -> !tier.frag<16 x f32>
  %sq = tier.map %xf {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    tier.yield %p : f32
  } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  %t = tier.thread_reduce %sq {} {init = [0.0 : f32], kind = #rk<reduce_kind add>} : !tier.frag<16 x f32> -> f32
  %wr = tier.warp_reduce %t {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %br = tier.block_reduce %wr {} {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
  %inv = tier.map %br, %n {
  ^bb0(%a: f32, %b: f32):
    %m = arith.divf %a, %b : f32
    %r = math.rsqrt %m : f32
    tier.yield %r : f32
  } : f32, f32 -> f32
  %wf = tier.load %w {fill = 0.0 : f32} : tensor<4096xbf16> -> !tier.frag<16 x f32>
  %yf = tier.map %xf, %inv, %wf {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %c : f32
    tier.yield %q : f32
  } : !tier.frag<16 x f32>, f32, !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  tier.store %yf, %y : !tier.frag<16 x f32>, tensor<64x4096xbf16>
  return
}

// -----

// The same kernel with N = 4095, not a multiple of W = 8 (shifted rows,
// templates/rkc/vec.cuh): row r starts (r * s0) % W elements past an
// aligned address and the thread columns start that far below 0, so x and
// y keep aligned 8-wide chunks; the slots below column 0 hold the columns
// from WRAP (the layout's coverage) up, so the layout covers N as an
// unshifted one does (256 x 16 values); chunks 1 .. SURE - 1 lie in the row
// in every thread (no element-wise path). The reduction's element column
// is wrapped in the first chunk; the weight, an [N] operand at the same
// (now unaligned) columns, is read as aligned vectors realigned by the
// row's head.
// CHECK-LABEL: // kernel rkc_rms_shifted: threads=256,values=16,vector=8,rows=1,cluster=1,staging=registers,unroll=2,min_blocks=0
// CHECK-DAG:     constexpr int N = 4095;
// CHECK-DAG:     constexpr bool FULL_ROW = false;
// CHECK:         const long long row = row_ok ? row_raw : M - 1;
// CHECK:         constexpr int WRAP = PASSES * PASS_COLS;
// CHECK:         constexpr int SURE = PASSES == 1 ? N / COL_STEP : 0;
// CHECK:         const int head = (int)((row * s0) % W);
// CHECK-NEXT:    const int col0_base = (rank * TPR + t) * W - head;
// CHECK-NEXT:    const int col0 = col0_base;
// CHECK:         rkc::load_frag<rkc::bf16, V, W, WRAP, SURE>(a0 + row * s0, col0, COL_STEP, N, [[XF:f[0-9]+]], 0.0f);
// CHECK:           const int col = (i < W ? rkc::wrap_col(col0 + i, WRAP) : col0 + (i / W) * COL_STEP + (i % W));
// CHECK-NEXT:      if (FULL_ROW || col < N) {{r[0-9]+}} = rkc::OpAdd()(
// CHECK:         rkc::load_frag_unaligned<rkc::bf16, V, W, WRAP, SURE>(a1, col0, COL_STEP, N, head, {{f[0-9]+}}, 0.0f);
// CHECK:         if (row_ok) rkc::store_frag<rkc::bf16, V, W, WRAP, SURE>(a2 + row * s2, col0, COL_STEP, N, {{f[0-9]+}});
func.func @rms_shifted(%x: tensor<64x4095xbf16> {rk.name = "x"}, %w: tensor<4095xbf16> {rk.name = "w"},
               %y: tensor<64x4095xbf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 2, min_blocks = 0>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<64x4095xbf16> -> !tier.frag<16 x f32>
  %sq = tier.map %xf {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    tier.yield %p : f32
  } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  %t = tier.thread_reduce %sq {} {init = [0.0 : f32], kind = #rk<reduce_kind add>} : !tier.frag<16 x f32> -> f32
  %wr = tier.warp_reduce %t {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %br = tier.block_reduce %wr {} {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
  %inv = tier.map %br {
  ^bb0(%a: f32):
    %r = math.rsqrt %a : f32
    tier.yield %r : f32
  } : f32 -> f32
  %wf = tier.load %w {fill = 0.0 : f32} : tensor<4095xbf16> -> !tier.frag<16 x f32>
  %yf = tier.map %xf, %inv, %wf {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %c : f32
    tier.yield %q : f32
  } : !tier.frag<16 x f32>, f32, !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  tier.store %yf, %y : !tier.frag<16 x f32>, tensor<64x4095xbf16>
  return
}

// -----

// The same kernel with staging = async and prefetch = 1: x (the [M, N]
// input) is copied into this thread's slots of the dynamic shared memory
// with cp.async before anything else; the weight's load (an [N] operand) is
// hoisted to the start, ahead of the first staged load, which waits for the
// copies. The staged values are read back from shared memory where they are
// used, again after the reduction; global memory is not read again. 16-bit
// data stays packed (two values per register, widened at each use), and the
// weight, held across the reduction, is refreshed after it (its widenings
// there are new computations, not f32 values held across the barrier).
// CHECK-LABEL: // kernel rkc_rms_async_prefetch: threads=256,values=16,vector=8,rows=1,cluster=1,staging=async,unroll=2,min_blocks=0,prefetch=1
// CHECK:         extern __shared__ __align__(16) unsigned char rkc_smem[];
// CHECK-NEXT:    rkc::bf16 *st0 = reinterpret_cast<rkc::bf16 *>(rkc_smem + 0) + row_in_cta * (V * TPR);
// CHECK-NEXT:    rkc::stage_frag<rkc::bf16, V, W, TPR>(st0, a0 + row * s0, col0_base, COL_STEP, N, t);
// CHECK-NEXT:    rkc::cp_async_commit();
// CHECK-NEXT:    rkc::PackedFrag<rkc::bf16, V> [[WF2:f[0-9]+]];
// CHECK-NEXT:    rkc::load_frag<rkc::bf16, V, W>(a1, col0, COL_STEP, N, [[WF2]], 0.0f);
// CHECK:         rkc::cp_async_wait_all();
// CHECK-NEXT:    rkc::PackedFrag<rkc::bf16, V> [[XF2:f[0-9]+]];
// CHECK-NEXT:    rkc::load_frag_staged<rkc::bf16, V, W, TPR>(st0, t, [[XF2]]);
// CHECK:         rkc::block_reduce<8>(
// CHECK-NEXT:    [[WF2]].refresh();
// CHECK:         rkc::PackedFrag<rkc::bf16, V> [[XF3:f[0-9]+]];
// CHECK-NEXT:    rkc::load_frag_staged<rkc::bf16, V, W, TPR>(st0, t, [[XF3]]);
// CHECK:         const float {{v[0-9]+}} = [[XF3]][i];
// CHECK-NEXT:    const float {{v[0-9]+}} = sv{{[0-9]+}};
// CHECK-NEXT:    const float {{v[0-9]+}} = [[WF2]][i];
// CHECK:         if (row_ok) rkc::store_frag<rkc::bf16, V, W>(a2 + row * s2,
// NEG-LABEL:   // kernel rkc_rms_async_prefetch:
// NEG-NOT:     rkc::load_frag<rkc::bf16, V, W>(a0
// NEG:         rkc::block_reduce<8>
// NEG-NOT:     rkc::load_frag<
// NEG:         rkc::store_frag
func.func @rms_async_prefetch(%x: tensor<64x4096xbf16> {rk.name = "x"}, %w: tensor<4096xbf16> {rk.name = "w"},
               %y: tensor<64x4096xbf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 2, min_blocks = 0, prefetch = 1>} {
  %n = arith.constant 4096.0 : f32
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<64x4096xbf16> -> !tier.frag<16 x f32>
  %sq = tier.map %xf {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    tier.yield %p : f32
  } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  %t = tier.thread_reduce %sq {} {init = [0.0 : f32], kind = #rk<reduce_kind add>} : !tier.frag<16 x f32> -> f32
  %wr = tier.warp_reduce %t {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %br = tier.block_reduce %wr {} {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
  %inv = tier.map %br, %n {
  ^bb0(%a: f32, %b: f32):
    %m = arith.divf %a, %b : f32
    %r = math.rsqrt %m : f32
    tier.yield %r : f32
  } : f32, f32 -> f32
  %wf = tier.load %w {fill = 0.0 : f32} : tensor<4096xbf16> -> !tier.frag<16 x f32>
  %yf = tier.map %xf, %inv, %wf {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %c : f32
    tier.yield %q : f32
  } : !tier.frag<16 x f32>, f32, !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  tier.store %yf, %y : !tier.frag<16 x f32>, tensor<64x4096xbf16>
  return
}

// -----

// Schedule evict_last = 1 (planner rule 8): the row's loads (registers) or
// its cp.async copies (async) carry an evict-last L2 policy
// (rkc::load_frag_keep, rkc::stage_frag_keep); the weight's loads keep
// their own (plain under 2 MiB of [N] operands).
// CHECK-LABEL: // kernel rkc_rms_evict_registers: threads=256,values=16,vector=8,rows=1,cluster=1,staging=registers,unroll=2,min_blocks=0,evict=last
// CHECK:         rkc::load_frag_keep<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N,
// CHECK:         rkc::load_frag<rkc::bf16, V, W>(a1, col0, COL_STEP, N,
func.func @rms_evict_registers(%x: tensor<512x4096xbf16> {rk.name = "x"}, %w: tensor<4096xbf16> {rk.name = "w"},
               %y: tensor<512x4096xbf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 2, min_blocks = 0, evict_last = 1>} {
  %n = arith.constant 4096.0 : f32
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<512x4096xbf16> -> !tier.frag<16 x f32>
  %sq = tier.map %xf {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    tier.yield %p : f32
  } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  %t = tier.thread_reduce %sq {} {init = [0.0 : f32], kind = #rk<reduce_kind add>} : !tier.frag<16 x f32> -> f32
  %wr = tier.warp_reduce %t {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %br = tier.block_reduce %wr {} {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
  %inv = tier.map %br, %n {
  ^bb0(%a: f32, %b: f32):
    %m = arith.divf %a, %b : f32
    %r = math.rsqrt %m : f32
    tier.yield %r : f32
  } : f32, f32 -> f32
  %wf = tier.load %w {fill = 0.0 : f32} : tensor<4096xbf16> -> !tier.frag<16 x f32>
  %yf = tier.map %xf, %inv, %wf {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %c : f32
    tier.yield %q : f32
  } : !tier.frag<16 x f32>, f32, !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  tier.store %yf, %y : !tier.frag<16 x f32>, tensor<512x4096xbf16>
  return
}

// -----

// CHECK-LABEL: // kernel rkc_rms_evict_async: threads=256,values=16,vector=8,rows=1,cluster=1,staging=async,unroll=2,min_blocks=0,evict=last
// CHECK:         rkc::stage_frag_keep<rkc::bf16, V, W, TPR>(st0, a0 + row * s0, col0_base, COL_STEP, N, t);
// CHECK:         rkc::load_frag<rkc::bf16, V, W>(a1, col0, COL_STEP, N,
func.func @rms_evict_async(%x: tensor<512x4096xbf16> {rk.name = "x"}, %w: tensor<4096xbf16> {rk.name = "w"},
               %y: tensor<512x4096xbf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 2, min_blocks = 0, evict_last = 1>} {
  %n = arith.constant 4096.0 : f32
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<512x4096xbf16> -> !tier.frag<16 x f32>
  %sq = tier.map %xf {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    tier.yield %p : f32
  } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  %t = tier.thread_reduce %sq {} {init = [0.0 : f32], kind = #rk<reduce_kind add>} : !tier.frag<16 x f32> -> f32
  %wr = tier.warp_reduce %t {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %br = tier.block_reduce %wr {} {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
  %inv = tier.map %br, %n {
  ^bb0(%a: f32, %b: f32):
    %m = arith.divf %a, %b : f32
    %r = math.rsqrt %m : f32
    tier.yield %r : f32
  } : f32, f32 -> f32
  %wf = tier.load %w {fill = 0.0 : f32} : tensor<4096xbf16> -> !tier.frag<16 x f32>
  %yf = tier.map %xf, %inv, %wf {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %c : f32
    tier.yield %q : f32
  } : !tier.frag<16 x f32>, f32, !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  tier.store %yf, %y : !tier.frag<16 x f32>, tensor<512x4096xbf16>
  return
}

// -----

// A cluster of 4 CTAs: __cluster_dims__, the DSMEM buffer (32 warps x 4
// CTAs = 128 states) declared and the kernel-start cluster arrival made
// before the row is loaded, its wait just before the cluster tier (which
// replaces the block tier), and no barrier after it: the reduction's own
// cluster barrier is the last cross-CTA step. Only CTA rank 0 of the
// cluster, thread 0 of the row, stores the result.
// CHECK-LABEL: // kernel rkc_cluster_max: threads=1024,values=32,vector=8,rows=1,cluster=4,staging=registers,unroll=4,min_blocks=0
// CHECK-NEXT:  extern "C" __global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(1024)
// CHECK-NEXT:  rkc_cluster_max(
// CHECK-NEXT:      const rkc::bf16 *__restrict__ a0,
// CHECK-NEXT:      float *__restrict__ a1,
// CHECK-DAG:     constexpr int C = 4;
// CHECK-DAG:     constexpr int TPR = 1024;
// CHECK:         const int rank = (int)rkc::cluster_ctarank();
// CHECK:         rkc::grid_dependency_wait(); // PDL: the previous kernel is done
// CHECK-NEXT:    rkc::grid_launch_dependents();
// CHECK-NEXT:    __shared__ float [[CBUF:cbuf[0-9]+]][128];
// CHECK-NEXT:    rkc::cluster_arrive_relaxed();
// CHECK:         rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, [[XF:f[0-9]+]], 0.0f);
// CHECK-NEXT:    float [[T:r[0-9]+]] = __int_as_float(0xff800000);
// CHECK:           if (FULL_ROW || col < N) [[T]] = rkc::OpMax()([[T]], [[XF]][i]);
// CHECK:         const float [[W:r[0-9]+]] = rkc::warp_reduce<32>([[T]], rkc::OpMax());
// CHECK-NEXT:    rkc::cluster_wait();
// CHECK-NEXT:    const float [[C:r[0-9]+]] = rkc::cluster_reduce<32, 4>([[W]], rkc::OpMax(), [[CBUF]], warp_in_row, lane);
// CHECK-NEXT:    if (row_ok && t == 0 && rank == 0) a1[row] = rkc::from_f32<float>([[C]]);
// CHECK-NEXT:  }
// NEG-LABEL:   // kernel rkc_cluster_max:
// NEG-NOT:     block_reduce
// NEG-NOT:     __syncthreads
// NEG-NOT:     mbar
// NEG-NOT:     cluster_sync
// NEG:         }
func.func @cluster_max(%x: tensor<8x131072xbf16>, %m: tensor<8xf32> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 1024, values = 32, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = registers, unroll = 4, min_blocks = 0>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<8x131072xbf16> -> !tier.frag<32 x f32>
  %t = tier.thread_reduce %xf {} {init = [0xFF800000 : f32], kind = #rk<reduce_kind max>} : !tier.frag<32 x f32> -> f32
  %w = tier.warp_reduce %t {} {kind = #rk<reduce_kind max>, width = 32 : i64} : f32 -> f32
  %c = tier.cluster_reduce %w {} {kind = #rk<reduce_kind max>, warps = 32 : i64, cluster = 4 : i64} : f32 -> f32
  tier.store_row_scalar %c, %m : f32, tensor<8xf32>
  return
}

// -----

// The grid tier (split = 8): no __cluster_dims__; a workspace parameter
// after M; CTA rank blockIdx.x % C; groups of C CTAs loop over the rows
// (a persistent grid), each with its workspace region (16 bytes of
// counters, then two sets of 8 slots of 8 bytes for the one reduction:
// 144 bytes, 256 with the 128-byte alignment); the reduction is
// grid_reduce with its own shared buffer (32 warps + 33); each row ends
// with a __syncthreads() (the next row reuses the buffer) and the kernel
// with grid_finish, which leaves the counters at zero for the next launch.
// The row's loads keep the default L2 policy (split rows are not read-once
// rows of one CTA).
// CHECK-LABEL: // kernel rkc_grid_max: threads=1024,values=32,vector=8,rows=1,cluster=1,staging=registers,unroll=4,min_blocks=0,split=8
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(1024)
// CHECK-NEXT:  rkc_grid_max(
// CHECK:           const long long M,
// CHECK-NEXT:      unsigned char *__restrict__ rkc_ws) {
// CHECK-DAG:     constexpr int C = 8;
// CHECK-DAG:     constexpr int COL_STEP = C * TPR * W;
// CHECK:         const int rank = (int)(blockIdx.x % C);
// CHECK-NEXT:    rkc::grid_dependency_wait(); // PDL: the previous kernel is done
// CHECK-NEXT:    rkc::grid_launch_dependents();
// CHECK-NEXT:    unsigned char *const rkc_gws = rkc_ws + (size_t)(blockIdx.x / C) * 256;
// CHECK-NEXT:    rkc::u32 rkc_epoch = 0;
// CHECK-NEXT:    for (long long rkc_group = blockIdx.x / C; rkc_group < M;
// CHECK-NEXT:         rkc_group += gridDim.x / C) {
// CHECK-NEXT:    const long long row_raw = rkc_group;
// CHECK:         const int col0_base = (rank * TPR + t) * W;
// CHECK:         rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, [[XF:f[0-9]+]], 0.0f);
// CHECK:         const float [[W:r[0-9]+]] = rkc::warp_reduce<32>({{r[0-9]+}}, rkc::OpMax());
// CHECK-NEXT:    __shared__ float [[GBUF:gbuf[0-9]+]][32 + 33];
// CHECK-NEXT:    const float [[G:r[0-9]+]] = rkc::grid_reduce<32, 8, 8>([[W]], rkc::OpMax(), [[GBUF]], rkc_gws, 16, rkc_epoch, rank, warp_in_row, lane);
// CHECK-NEXT:    if (row_ok && t == 0 && rank == 0) a1[row] = rkc::from_f32<float>([[G]]);
// CHECK-NEXT:    __syncthreads();
// CHECK-NEXT:    }
// CHECK-NEXT:    rkc::grid_finish<C>(rkc_gws, rkc_epoch);
// CHECK-NEXT:  }
// NEG-LABEL:   // kernel rkc_grid_max:
// NEG-NOT:     __cluster_dims__
// NEG-NOT:     cluster_
// NEG-NOT:     load_frag_stream
// NEG:         }
func.func @grid_max(%x: tensor<8x262144xbf16>, %m: tensor<8xf32> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 1024, values = 32, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = registers, unroll = 4, min_blocks = 0, split = 8>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<8x262144xbf16> -> !tier.frag<32 x f32>
  %t = tier.thread_reduce %xf {} {init = [0xFF800000 : f32], kind = #rk<reduce_kind max>} : !tier.frag<32 x f32> -> f32
  %w = tier.warp_reduce %t {} {kind = #rk<reduce_kind max>, width = 32 : i64} : f32 -> f32
  %g = tier.grid_reduce %w {} {kind = #rk<reduce_kind max>, warps = 32 : i64, split = 8 : i64} : f32 -> f32
  tier.store_row_scalar %g, %m : f32, tensor<8xf32>
  return
}

// -----

// The grid tier with a deferred wait (split = 128, one pass of the row a
// CTA, kept whole: plan::deferredGridWait): the constants and the wait's
// shared buffers at the kernel's scope; the row's sweep is a lambda that
// keeps its pass in buffer rkc_kb (32 KiB apart) and ends with
// grid_arrive; the first row is swept before the loop, each iteration
// sweeps the group's next row into the other buffer, then grid_wait and
// the epilogue from its own; four sets of 128 slots of 8 bytes (16 + 4096
// bytes, 4224 aligned); grid_finish zeroes both parities' counters.
// CHECK-LABEL: // kernel rkc_rms_norm: threads=256,values=32,vector=4,rows=1,cluster=1,staging=stream,unroll=8,min_blocks=0,keep=1,split=128
// CHECK:         unsigned char *const rkc_gws = rkc_ws + (size_t)(blockIdx.x / C) * 4224;
// CHECK-NEXT:    rkc::u32 rkc_epoch = 0;
// CHECK-NEXT:    extern __shared__ __align__(16) unsigned char rkc_smem[];
// CHECK-NEXT:    const float [[EPS:c[0-9]+]] = 9.99999997e-07f;
// CHECK-NEXT:    const float [[NC:c[0-9]+]] = 1048576.0f;
// CHECK-NEXT:    __shared__ float rkc_gabuf[2 * 8];
// CHECK-NEXT:    __shared__ float rkc_glanes[33];
// CHECK-NEXT:    rkc::u32 rkc_waited = 0;
// CHECK-NEXT:    int rkc_kbuf = 0;
// CHECK-NEXT:    auto rkc_sweep = [&](const long long rkc_group, const int rkc_kb) {
// CHECK-NEXT:    const long long row_raw = rkc_group;
// CHECK:         float *kp0 = reinterpret_cast<float *>(rkc_smem + 0 + rkc_kb * 32768);
// CHECK:         rkc::keep_frag<float, V, W, TPR>(kp0 + pass * V * TPR, t, f{{[0-9]+}});
// CHECK:         const float [[W:r[0-9]+]] = rkc::warp_reduce<32>({{r[0-9]+}}, rkc::OpAdd());
// CHECK-NEXT:    rkc::grid_arrive<8, 128, 8>([[W]], rkc::OpAdd(), rkc_gabuf, rkc_gws, 16, rkc_epoch, rank, warp_in_row, lane);
// CHECK-NEXT:    };
// CHECK-NEXT:    if ((long long)(blockIdx.x / C) < M)
// CHECK-NEXT:      rkc_sweep(blockIdx.x / C, 0);
// CHECK-NEXT:    for (long long rkc_group = blockIdx.x / C; rkc_group < M;
// CHECK-NEXT:         rkc_group += gridDim.x / C) {
// CHECK-NEXT:    if (rkc_group + gridDim.x / C < M)
// CHECK-NEXT:      rkc_sweep(rkc_group + gridDim.x / C, rkc_kbuf ^ 1);
// CHECK-NEXT:    const int rkc_kb = rkc_kbuf;
// CHECK-NEXT:    const long long row_raw = rkc_group;
// CHECK:         float *kp0 = reinterpret_cast<float *>(rkc_smem + 0 + rkc_kb * 32768);
// CHECK-NEXT:    const float [[G:r[0-9]+]] = rkc::grid_wait<128, 8>(rkc::OpAdd(), rkc_glanes, rkc_gws, 16, rkc_waited, warp_in_row, lane);
// CHECK:         = [[G]];
// CHECK:         = [[NC]];
// CHECK:         rkc::load_frag_staged<float, V, W, TPR>(kp0 + pass * V * TPR, t, f{{[0-9]+}});
// CHECK:         __syncthreads();
// CHECK-NEXT:    rkc_kbuf ^= 1;
// CHECK-NEXT:    }
// CHECK-NEXT:    rkc::grid_finish<C, true>(rkc_gws, rkc_epoch);
// CHECK-NEXT:  }
// NEG-LABEL:   // kernel rkc_rms_norm: threads=256,values=32,vector=4,rows=1,cluster=1,staging=stream,unroll=8,min_blocks=0,keep=1,split=128
// NEG-NOT:     rkc::grid_reduce<
// NEG:         rkc::grid_finish<C, true>
func.func @rms_norm(%arg0: tensor<8x1048576xf32> {rk.name = "x"}, %arg1: tensor<1048576xf32> {rk.name = "w"}, %arg2: tensor<8x1048576xf32> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 8, min_blocks = 0, keep = 1, split = 128>} {
  %cst = arith.constant 9.99999997E-7 : f32
  %cst_0 = arith.constant 0x49800000 : f32
  %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<8x1048576xf32> -> <32 x f32>
  %1 = tier.map %0 {
  ^bb0(%arg3: f32):
    %8 = arith.mulf %arg3, %arg3 : f32
    tier.yield %8 : f32
  } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  %2 = tier.thread_reduce %1 {
  } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<32 x f32> -> f32
  %3 = tier.warp_reduce %2 {
  } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %4 = tier.grid_reduce %3 {
  } {kind = #rk<reduce_kind add>, split = 128 : i64, warps = 8 : i64} : f32 -> f32
  %5 = tier.map %4, %cst_0, %cst {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %8 = arith.divf %arg3, %arg4 : f32
    %9 = arith.addf %8, %arg5 : f32
    %10 = math.rsqrt %9 : f32
    tier.yield %10 : f32
  } : f32, f32, f32 -> f32
  %6 = tier.load %arg1 {fill = 0.000000e+00 : f32} : tensor<1048576xf32> -> <32 x f32>
  %7 = tier.map %0, %5, %6 {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %8 = arith.mulf %arg3, %arg4 : f32
    %9 = arith.mulf %8, %arg5 : f32
    tier.yield %9 : f32
  } : !tier.frag<32 x f32>, f32, !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  tier.store %7, %arg2 : <32 x f32>, tensor<8x1048576xf32>
  return
}

// -----

// Read once: no [M, N] result, 16-bit rows, one row per CTA, no cluster: the
// row's loads are evict-first in L2 (ld.global.cs). The cluster kernel above,
// the same reduction over a cluster of 4, keeps the default policy.
// CHECK-LABEL: // kernel rkc_row_max_once: threads=256,values=16,vector=8,rows=1,cluster=1,staging=registers,unroll=2,min_blocks=2
// CHECK:         rkc::load_frag_stream<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, [[XF:f[0-9]+]], 0.0f);
// CHECK:           if (FULL_ROW || col < N) {{r[0-9]+}} = rkc::OpMax()({{r[0-9]+}}, [[XF]][i]);
func.func @row_max_once(%x: tensor<4096x4096xbf16>, %m: tensor<4096xf32> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 2, min_blocks = 2>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<4096x4096xbf16> -> !tier.frag<16 x f32>
  %t = tier.thread_reduce %xf {} {init = [0xFF800000 : f32], kind = #rk<reduce_kind max>} : !tier.frag<16 x f32> -> f32
  %w = tier.warp_reduce %t {} {kind = #rk<reduce_kind max>, width = 32 : i64} : f32 -> f32
  %b = tier.block_reduce %w {} {kind = #rk<reduce_kind max>, warps = 8 : i64} : f32 -> f32
  tier.store_row_scalar %b, %m : f32, tensor<4096xf32>
  return
}

// -----

// 8 threads per row, 16 rows per CTA, on sm_80 with min_blocks = 2: width-8
// warp tiers, no block or cluster tier, no shared memory. A custom (m, l)
// combiner becomes a state struct and a functor (one per tier); argmax uses
// the templates' (value, index) state: a thread folds its values (columns
// ascending) to their maximum and its lowest column, merged once.
// CHECK-LABEL: // kernel rkc_subwarp: threads=8,values=4,vector=4,rows=16,cluster=1,staging=registers,unroll=1,min_blocks=2
// CHECK-NEXT:  struct [[STATE:State[0-9]+]] { float c0; float c1; };
// CHECK-NEXT:  struct [[COMB:Combine[0-9]+]] {
// CHECK-NEXT:    RKC_DEVICE [[STATE]] operator()(const [[STATE]] &a, const [[STATE]] &b) const {
// CHECK-NEXT:      const float [[M1:v[0-9]+]] = a.c0;
// CHECK-NEXT:      const float [[M2:v[0-9]+]] = b.c0;
// CHECK-NEXT:      const float [[L1:v[0-9]+]] = a.c1;
// CHECK-NEXT:      const float [[L2:v[0-9]+]] = b.c1;
// CHECK-NEXT:      const float [[M:v[0-9]+]] = rkc::maximumf([[M1]], [[M2]]);
// CHECK-NEXT:      const float [[L:v[0-9]+]] = ([[L1]] + [[L2]]);
// CHECK-NEXT:      return [[STATE]]{[[M]], [[L]]};
// CHECK-NEXT:    }
// CHECK-NEXT:  };
// CHECK:       extern "C" __global__ void __launch_bounds__(128, 2)
// CHECK-NEXT:  rkc_subwarp(
// CHECK-NEXT:      const float *__restrict__ a0,
// CHECK-NEXT:      float *__restrict__ a1,
// CHECK-NEXT:      long long *__restrict__ a2,
// CHECK-DAG:     constexpr int TPR = 8;
// CHECK-DAG:     constexpr int ROWS = 16;
// CHECK:         rkc::load_frag<float, V, W>(a0 + row * s0, col0, COL_STEP, N, [[XF:f[0-9]+]], 0.0f);
// CHECK:         [[STATE]] [[T:r[0-9]+]] = [[STATE]]{__int_as_float(0xff800000), 0.0f};
// CHECK:           if (FULL_ROW || col < N) [[T]] = [[COMB]]()([[T]], [[STATE]]{[[XF]][i], [[ONE:f[0-9]+]][i]});
// CHECK:         const [[STATE]] [[W:r[0-9]+]] = rkc::warp_reduce<8>([[T]], [[COMB2:Combine[0-9]+]]());
// CHECK-NEXT:    const float {{sv[0-9]+}} = [[W]].c0;
// CHECK-NEXT:    const float [[L:sv[0-9]+]] = [[W]].c1;
// CHECK-NEXT:    rkc::ValIdx<float, long long> [[AT:r[0-9]+]] = rkc::ValIdx<float, long long>{__int_as_float(0xff800000), -1LL};
// CHECK-NEXT:    rkc::fold_arg_extreme<true, V, V, true>([[XF]], [&](int i) { const int col = col0 + (i / W) * COL_STEP + (i % W); return FULL_ROW || col < N; }, [&](int i) { return col0 + (i / W) * COL_STEP + (i % W); }, [&](int, float m, int col) { [[AT]] = rkc::OpArgMax()([[AT]], rkc::ValIdx<float, long long>{m, col}); });
// CHECK:         const rkc::ValIdx<float, long long> [[AW:r[0-9]+]] = rkc::warp_reduce<8>([[AT]], rkc::OpArgMax());
// CHECK-NEXT:    const float {{sv[0-9]+}} = [[AW]].v;
// CHECK-NEXT:    const long long [[I:sv[0-9]+]] = [[AW]].i;
// CHECK-NEXT:    if (row_ok && t == 0 && rank == 0) a1[row] = rkc::from_f32<float>([[L]]);
// CHECK-NEXT:    if (row_ok && t == 0 && rank == 0) a2[row] = (long long)[[I]];
// CHECK-NEXT:  }
// NEG-LABEL:   // kernel rkc_subwarp:
// NEG-NOT:     __shared__
// NEG-NOT:     block_reduce
// NEG-NOT:     __cluster_dims__
// NEG-NOT:     cluster_
// NEG:         a2[row] = (long long)
func.func @subwarp(%x: tensor<128x32xf32>, %s: tensor<128xf32> {rk.name = "out0", tier.output},
                   %i: tensor<128xi64> {rk.name = "out1", tier.output})
    attributes {tier.arch = "sm_80",
                tier.layout = #tier.tv_layout<threads = 8, values = 4, vector = 4, rows = 16>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 2>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<128x32xf32> -> !tier.frag<4 x f32>
  %one = tier.map %xf {
  ^bb0(%a: f32):
    %c1 = arith.constant 1.0 : f32
    tier.yield %c1 : f32
  } : !tier.frag<4 x f32> -> !tier.frag<4 x f32>
  %t:2 = tier.thread_reduce %xf, %one {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %l = arith.addf %l1, %l2 : f32
    tier.yield %m, %l : f32, f32
  } {init = [0xFF800000 : f32, 0.0 : f32]} : !tier.frag<4 x f32>, !tier.frag<4 x f32> -> f32, f32
  %w:2 = tier.warp_reduce %t#0, %t#1 {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %l = arith.addf %l1, %l2 : f32
    tier.yield %m, %l : f32, f32
  } {width = 8 : i64} : f32, f32 -> f32, f32
  %at:2 = tier.thread_reduce %xf {} {init = [0xFF800000 : f32, -1 : i64], kind = #rk<reduce_kind argmax>} : !tier.frag<4 x f32> -> f32, i64
  %aw:2 = tier.warp_reduce %at#0, %at#1 {} {kind = #rk<reduce_kind argmax>, width = 8 : i64} : f32, i64 -> f32, i64
  tier.store_row_scalar %w#1, %s : f32, tensor<128xf32>
  tier.store_row_scalar %aw#1, %i : i64, tensor<128xi64>
  return
}

// -----

// A column kernel (#tier.ksplit_layout): asymmetric int4 GEMV, 3 rows,
// bf16, bias, a cluster of 2. The body comes from the tier ops: weights
// loaded U packed rows at a time with their raw scales and zero points (two
// buffers), nibbles converted by PRMT (no XOR: unsigned with zero points),
// scale folding with the zero points, the K-split sum over warps and the
// cluster (the arrive at kernel start pairs with its wait), the bias map and
// the tile store.
// CHECK-LABEL: // kernel rkc_gemv_bias: cols=2,warps=4,cluster=2,unroll=8
// CHECK: extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
// CHECK: const rkc::u32 *__restrict__ a1
// CHECK: constexpr int MR = 3;
// CHECK: rkc::cluster_arrive_relaxed();
// CHECK: constexpr int NGI = 2;
// CHECK: rkc::RawCols<rkc::bf16, COLS> sc[NGI];
// CHECK: rkc::RawCols<rkc::bf16, COLS> zp[NGI];
// CHECK: rkc::WeightLoad<LOAD_BYTES>::load(a1 + (long long)(kw0 + u) * N + n0, blk.w[u]);
// PDL: the first two blocks of weights are loaded before the wait for the
// previous kernel, the activations after it.
// CHECK: if (it_begin < it_end) load_rows(it_begin, ba);
// CHECK-NEXT: if (it_begin + 1 < it_end) load_rows(it_begin + 1, bb);
// CHECK: rkc::grid_dependency_wait();
// CHECK-NEXT: rkc::grid_launch_dependents();
// CHECK: rkc::load_vec<rkc::bf16, SV>(a0 + (long long)m * s0 + kk, v[q]);
// CHECK: rowsum_s[m * CTA_ROWS + j] = ((v[q][0] + v[q][1]) + (v[q][2] + v[q][3])) + ((v[q][4] + v[q][5]) + (v[q][6] + v[q][7]));
// CHECK: __syncthreads();
// CHECK: rkc::u4x8_half_plus(blk.w[u][c], qv[c]);
// CHECK: asum[m] += rowsum_s[m * CTA_ROWS + (kw - kw_begin)];
// CHECK: rkc::fold_u4(p[m * COLS + c], asum[m], zp[c])
// CHECK: rkc::ksplit_reduce<MR * COLS, COLS, WARPS, C, V>(
// CHECK: rkc::to_f32(a4[n])
// CHECK: a5[(long long)(e / TILE_COLS) * s5 + n] = rkc::from_f32<rkc::bf16>(
module {
  func.func @gemv_bias(%arg0: tensor<3x256xbf16>, %arg1: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = bf16, symmetric = false, packing = k8>>, %arg2: tensor<8x64xbf16>, %arg3: tensor<8x64xbf16>, %arg4: tensor<64xbf16>, %arg5: tensor<3x64xbf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 3, cols = 2, warps = 4, cluster = 2, unroll = 8>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 zeros %arg3 : tensor<3x256xbf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = bf16, symmetric = false, packing = k8>>, tensor<8x64xbf16>, tensor<8x64xbf16> -> <6 x f32>
    %1 = tier.ksplit_reduce %0 : <6 x f32> -> <1 x f32>
    %2 = tier.load_tile %arg4 : tensor<64xbf16> -> <1 x f32>
    %3 = tier.map %1, %2 {
    ^bb0(%arg6: f32, %arg7: f32):
      %4 = arith.addf %arg6, %arg7 : f32
      tier.yield %4 : f32
    } : !tier.frag<1 x f32>, !tier.frag<1 x f32> -> !tier.frag<1 x f32>
    tier.store_tile %3, %arg5 : <1 x f32>, tensor<3x64xbf16>
    return
  }
}

// -----

// The tensor-core GEMV: 2 of the 8 warps split K, the other warps take
// further column groups of 2 x 32 (a CTA tile of 256 columns); the
// activations are staged by cp.async in k order and paired as fragments
// are read; every group's four m16n8 accumulators fold into the output.
// CHECK-LABEL: // kernel rkc_gemv_mma: cols=2,warps=8,cluster=2,unroll=2,mma=1,kwarps=2
// CHECK: constexpr int KWARPS = 2;
// CHECK-NEXT: constexpr int TILE_COLS = 32 * COLS * (WARPS / KWARPS);
// CHECK: constexpr int V = 8;
// CHECK: const int kwarp = warp % KWARPS;
// CHECK: const int wcol = tile * TILE_COLS + (warp / KWARPS) * 32 * COLS;
// CHECK-NEXT: constexpr int JS = 32;
// CHECK-NEXT: const int nb = wcol + 4 * g;
// CHECK-NEXT: const int ns = wcol + 8 * t;
// CHECK: float *recv_s = red_s + KWARPS * MR * TILE_COLS;
// CHECK: const int it_begin = kwarp * its / KWARPS, it_end = (kwarp + 1) * its / KWARPS;
// CHECK: rkc::u32 w[U][COLS][4];
// CHECK-NEXT: rkc::PackedCols<rkc::f16, 8> sc[NGI][COLS];
// CHECK: rkc::WeightLoad<16>::load(a1 + (long long)(kw_begin + RB * s + t) * N + nb + JS * j, blk.w[u][j]);
// CHECK: rkc::grid_dependency_wait();
// CHECK: rkc::stage_rows_async<MR, SPAN / 2>(act_s, a0 + kw_begin * KPR, s0, 0,
// CHECK-NEXT: (kw_end - kw_begin) * KPR / 8, tid, THREADS);
// CHECK-NEXT: rkc::cp_async_commit();
// CHECK-NEXT: rkc::cp_async_wait_all();
// CHECK-NEXT: __syncthreads();
// CHECK-NOT: stage_part
// CHECK: a0 = rkc::pair_k8(
// CHECK: for (int j = 0; j < COLS; ++j)
// CHECK: rkc::u4x8_to_pairs<false, true>(blk.w[u][j][c], off2, h);
// CHECK: rkc::mma_16816<false>(d, a0.x, a1.x, a0.y, a1.y, h[0], h[1]);
// CHECK-NEXT: rkc::mma_16816<false>(d, a0.z, a1.z, a0.w, a1.w, h[2], h[3]);
// Blocks of 2 x 4 packed rows, groups of 16: the fold is tested per block
// and clears the partial sums.
// CHECK: if ((kwb + RB) % GR == 0 || s + 1 == set_stop) {
// CHECK: for (int i = 0; i < 16 * COLS; ++i) cg[i] = 0.0f;
// CHECK: rkc::ksplit_reduce_mma<MR, COLS, WARPS, KWARPS, C, V>(
module {
  func.func @gemv_mma(%arg0: tensor<16x512xf16>, %arg1: tensor<512x256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %arg2: tensor<4x256xf16>, %arg3: tensor<16x256xf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 16, cols = 2, warps = 8, cluster = 2, unroll = 2, mma = true, kwarps = 2>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 : tensor<16x512xf16>, tensor<512x256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<4x256xf16> -> <32 x f32>
    %1 = tier.ksplit_reduce %0 : <32 x f32> -> <8 x f32>
    tier.store_tile %1, %arg3 : <8 x f32>, tensor<16x256xf16>
    return
  }
}

// -----

// The same with N = 100 (not a multiple of the 8 scales of a lane's D
// fragments): the scales are read one value at a time, guarded.
// CHECK-LABEL: // kernel rkc_gemv_mma_ragged: cols=2,warps=8,cluster=2,unroll=2,mma=1,kwarps=2
// CHECK: rkc::u32 w[U][COLS][4];
// CHECK-NEXT: rkc::RawCols<rkc::f16, 8> sc[NGI][COLS];
module {
  func.func @gemv_mma_ragged(%arg0: tensor<16x512xf16>, %arg1: tensor<512x100xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %arg2: tensor<4x100xf16>, %arg3: tensor<16x100xf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 16, cols = 2, warps = 8, cluster = 2, unroll = 2, mma = true, kwarps = 2>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 : tensor<16x512xf16>, tensor<512x100xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<4x100xf16> -> <32 x f32>
    %1 = tier.ksplit_reduce %0 : <32 x f32> -> <8 x f32>
    tier.store_tile %1, %arg3 : <8 x f32>, tensor<16x100xf16>
    return
  }
}

// -----

// M = 4, blocks of 4 x 4 packed rows = one group of 128. M <= 8: the
// weights are the A operand (columns 2q and 2q + 1 of the lane's four as
// rows g and g + 8), row g of M is B, and a lane's scales are its own four
// columns. Whole groups per block: the loop knows which block opens a
// group (its first product starts from zero, D = A B) and which closes it
// (the fold, untested, no clearing); the lane's activations come from one
// base pointer.
// CHECK-LABEL: // kernel rkc_gemv_mma_static: cols=1,warps=8,cluster=1,unroll=4,mma=1,kwarps=4
// CHECK: constexpr int JS = 4;
// CHECK-NEXT: const int nb = wcol + 4 * COLS * g;
// CHECK: rkc::RawCols<rkc::bf16, 4> sc[NGI][COLS];
// CHECK: blk.sc[gi][j].load_guarded(a2 + (long long)grp * N + nb + JS * j, N - nb - JS * j);
// CHECK: const rkc::u32 *act_g = act_s + g * (SPAN / 2) + 4 * t;
// CHECK: uint4 a0 = make_uint4(0u, 0u, 0u, 0u); // B: row g of M
// CHECK-NEXT: if (g < MR) a0 = rkc::pair_k8(*reinterpret_cast<const uint4 *>(act_g + 16 * s));
// CHECK-NOT: a1 =
// CHECK: for (int q = 0; q < 2; ++q) {
// CHECK: const int c = 2 * q + e;
// CHECK: rkc::u4x8_to_pairs<true, true>(blk.w[u][j][c], off2, h[e]);
// CHECK: float (&d)[4] = *reinterpret_cast<float(*)[4]>(cg + 8 * j + 4 * q);
// CHECK-NEXT: if ((u * RB) % GR == 0) rkc::mma_16816_first<true>(d, h[0][0], h[1][0], h[0][1], h[1][1], a0.x, a0.y);
// CHECK-NEXT: else rkc::mma_16816<true>(d, h[0][0], h[1][0], h[0][1], h[1][1], a0.x, a0.y);
// CHECK-NEXT: rkc::mma_16816<true>(d, h[0][2], h[1][2], h[0][3], h[1][3], a0.z, a0.w);
// CHECK: if (((u + 1) * RB) % GR == 0) { // the last block of a group
// CHECK: float sc[4];
// CHECK: acc[1] = fmaf(sc[2 * q], part[1], acc[1]);
// CHECK-NEXT: acc[2] = fmaf(sc[2 * q + 1], part[2], acc[2]);
// CHECK-NOT: cg[i] = 0.0f;
// CHECK: rkc::ksplit_reduce_mma<MR, COLS, WARPS, KWARPS, C, V, true>(
module {
  func.func @gemv_mma_static(%arg0: tensor<4x1024xbf16>, %arg1: tensor<1024x512xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = bf16, symmetric = true, packing = k8>>, %arg2: tensor<8x512xbf16>, %arg3: tensor<4x512xbf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 8, cluster = 1, unroll = 4, mma = true, kwarps = 4>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 : tensor<4x1024xbf16>, tensor<1024x512xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = bf16, symmetric = true, packing = k8>>, tensor<8x512xbf16> -> <16 x f32>
    %1 = tier.ksplit_reduce %0 : <16 x f32> -> <8 x f32>
    tier.store_tile %1, %arg3 : <8 x f32>, tensor<4x512xbf16>
    return
  }
}

// -----

// M = 16, K = 14336, one CTA of 16 warps per SM in clusters of 2: the
// staged activations (224 KiB) and the partial sums would not fit
// together, so the partial sums reuse the activations' memory; the
// cluster's receive buffer (the other CTA's 512 sums, 2 KiB) still fits
// beside them, so the CTAs meet once, after their pushes: a cluster arrive
// at the start, ksplit_reduce_mma<..., false, true, true>.
// The 224 KiB are staged in 4 parts of each K-split warp's range, copied
// by the two warps that share the range two parts ahead of their products;
// before a part's first block they wait for its copies and meet at their
// own barrier (1 + kwarp), and every copy has landed before the partial
// sums overwrite the activations.
// CHECK-LABEL: // kernel rkc_gemv_mma_aliased: cols=1,warps=16,cluster=2,unroll=4,mma=1,kwarps=8
// CHECK: rkc::cluster_arrive_relaxed();
// CHECK: float *red_s = reinterpret_cast<float *>(act_s);
// CHECK-NEXT: float *recv_s = reinterpret_cast<float *>(rkc_smem + 229376); // beside them
// CHECK: constexpr int PARTS = 4;
// CHECK-NEXT: constexpr int GT = 32 * (WARPS / KWARPS);
// CHECK-NEXT: const int gtid = (warp / KWARPS) * 32 + lane;
// CHECK-NEXT: const int pairs = (it_end - it_begin + 1) / 2;
// CHECK-NEXT: auto part_begin = [&](int c) { return min(it_end, it_begin + 2 * (c * pairs / PARTS)); };
// CHECK-NEXT: const rkc::f16 *act0 = a0 + kw_begin * KPR;
// CHECK: rkc::stage_rows_async<MR, SPAN / 2>(act_s, act0, s0, part_begin(c) * U * (RB * KPR / 8),
// CHECK-NEXT: min(part_begin(c + 1) * U, sets) * (RB * KPR / 8), gtid, GT);
// CHECK-NEXT: rkc::cp_async_commit();
// CHECK: stage_part(0);
// CHECK-NEXT: stage_part(1);
// CHECK-NOT: __syncthreads
// CHECK: for (int it = it_begin; it < it_end; it += 2) {
// CHECK-NEXT: while (part < PARTS && part_begin(part) <= it) {
// CHECK-NEXT: rkc::cp_async_wait<1>();
// CHECK-NEXT: rkc::named_barrier<GT>(1 + kwarp);
// CHECK-NEXT: stage_part(part + 2);
// CHECK-NEXT: ++part;
// CHECK-NEXT: }
// CHECK-NEXT: compute_rows(it, ba);
// CHECK: rkc::cp_async_wait_all();
// CHECK: rkc::ksplit_reduce_mma<MR, COLS, WARPS, KWARPS, C, V, false, true, true>(
module {
  func.func @gemv_mma_aliased(%arg0: tensor<16x14336xf16>, %arg1: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %arg2: tensor<112x4096xf16>, %arg3: tensor<16x4096xf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 16, cluster = 2, unroll = 4, mma = true, kwarps = 8>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 : tensor<16x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16> -> <16 x f32>
    %1 = tier.ksplit_reduce %0 : <16 x f32> -> <1 x f32>
    tier.store_tile %1, %arg3 : <1 x f32>, tensor<16x4096xf16>
    return
  }
}

// -----

// Two columns a lane at the same K split: each thread ends with 2 sums,
// and the receive buffer (4 KiB) no longer fits beside the 224 KiB of
// activations, so it lies among the partial sums too: no cluster arrive at
// the start, and the CTAs meet after every CTA's products as well
// (ksplit_reduce_mma<..., false, true>).
// CHECK-LABEL: // kernel rkc_gemv_mma_aliased_recv: cols=2,warps=16,cluster=2,unroll=4,mma=1,kwarps=8
// CHECK-NOT: cluster_arrive_relaxed
// CHECK: float *red_s = reinterpret_cast<float *>(act_s);
// CHECK-NEXT: float *recv_s = red_s + KWARPS * MR * TILE_COLS;
// CHECK: rkc::ksplit_reduce_mma<MR, COLS, WARPS, KWARPS, C, V, false, true>(
module {
  func.func @gemv_mma_aliased_recv(%arg0: tensor<16x14336xf16>, %arg1: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %arg2: tensor<112x4096xf16>, %arg3: tensor<16x4096xf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 16, cols = 2, warps = 16, cluster = 2, unroll = 4, mma = true, kwarps = 8>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 : tensor<16x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16> -> <32 x f32>
    %1 = tier.ksplit_reduce %0 : <32 x f32> -> <2 x f32>
    tier.store_tile %1, %arg3 : <2 x f32>, tensor<16x4096xf16>
    return
  }
}

// -----

// Activations read from global memory (global_acts): no staging, shared
// memory for the partial sums alone; each buffer's fragments (both rows g
// and g + 8 with the weights as B) loaded with its weights by load_acts,
// after the PDL wait, and the products read them from the buffer.
// CHECK-LABEL: // kernel rkc_gemv_mma_global_acts: cols=1,warps=8,cluster=1,unroll=4,mma=1,acts=global
// CHECK-NOT: stage_rows_async
// CHECK: float *red_s = reinterpret_cast<float *>(rkc_smem);
// CHECK: uint4 a[U], a8[U];
// CHECK: rkc::grid_dependency_wait();
// CHECK: const long long AW = s0 / 2;
// CHECK-NEXT: const rkc::u32 *act_g = reinterpret_cast<const rkc::u32 *>(a0 + kw_begin * KPR) +
// CHECK-NEXT: (g < MR ? g : 0) * AW + 4 * t;
// CHECK: auto load_acts = [&](int it, Block &blk) {
// CHECK: blk.a8[u] = g + 8 < MR && s < set_stop
// CHECK-NEXT: ? *reinterpret_cast<const uint4 *>(act_g + 8 * AW + 16 * s)
// CHECK: if (it_begin < it_end) load_acts(it_begin, ba);
// CHECK-NEXT: if (it_begin + 1 < it_end) load_acts(it_begin + 1, bb);
// CHECK: const uint4 a0 = rkc::pair_k8(blk.a[u]), a1 = rkc::pair_k8(blk.a8[u]);
// CHECK: if (it + 2 < it_end) { load_rows(it + 2, ba); load_acts(it + 2, ba); }
// CHECK: if (it + 3 < it_end) { load_rows(it + 3, bb); load_acts(it + 3, bb); }
module {
  func.func @gemv_mma_global_acts(%arg0: tensor<16x14336xf16>, %arg1: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %arg2: tensor<112x4096xf16>, %arg3: tensor<16x4096xf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_86", tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 8, cluster = 1, unroll = 4, mma = true, global_acts = true>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 : tensor<16x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16> -> <16 x f32>
    %1 = tier.ksplit_reduce %0 : <16 x f32> -> <1 x f32>
    tier.store_tile %1, %arg3 : <1 x f32>, tensor<16x4096xf16>
    return
  }
}

// -----

// The same for int8 with the weights as A (M <= 8): the pairs of row g.
// CHECK-LABEL: // kernel rkc_gemv_mma_int8_global_acts: cols=1,warps=16,cluster=1,unroll=4,mma=1,acts=global
// CHECK: rkc::u32 ag[U], bg[U];
// CHECK: const rkc::u32 *act_g = reinterpret_cast<const rkc::u32 *>(a0 + kw_begin * KPR) +
// CHECK-NEXT: (g < MR ? g : 0) * AW + 2 * t;
// CHECK: blk.ag[u] = ok ? act_g[8 * s] : 0u;
// CHECK-NEXT: blk.bg[u] = ok ? act_g[8 * s + 1] : 0u;
// CHECK: const rkc::u32 ag = blk.ag[u], bg = blk.bg[u]; // B: row g of M
module {
  func.func @gemv_mma_int8_global_acts(%arg0: tensor<1x4096xf16>, %arg1: tensor<4096x4096xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %arg2: tensor<32x4096xf16>, %arg3: tensor<1x4096xf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 16, cluster = 1, unroll = 4, mma = true, global_acts = true>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 : tensor<1x4096xf16>, tensor<4096x4096xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<32x4096xf16> -> <16 x f32>
    %1 = tier.ksplit_reduce %0 : <16 x f32> -> <1 x f32>
    tier.store_tile %1, %arg3 : <1 x f32>, tensor<1x4096xf16>
    return
  }
}

// -----

// int8 (k4 words), M = 1, two groups of 4 columns per lane with the
// weights as the A operand: each lane loads 16 bytes (4 columns x 4 values
// of K) of packed row t of a block per group, a warp's 8 lanes of a quad
// row 128 contiguous bytes per group; the words become f16 pairs (4t, 4t +
// 1), (4t + 2, 4t + 3) and the activations are read as the pairs 2t and 2t
// + 1 of the block; the partial sums map back through
// ksplit_reduce_mma<..., true>.
// CHECK-LABEL: // kernel rkc_gemv_mma_int8: cols=2,warps=16,cluster=2,unroll=2,mma=1
// CHECK: constexpr int KPR = 4; // values of K per packed row
// CHECK: constexpr int RB = 4;
// CHECK: constexpr int JS = 4;
// CHECK-NEXT: const int nb = wcol + 4 * COLS * g;
// CHECK: rkc::WeightLoad<16>::load(a1 + (long long)(kw_begin + RB * s + t) * N + nb + JS * j, blk.w[u][j]);
// CHECK: const rkc::u32 *act_g = act_s + g * (SPAN / 2) + 2 * t; // packed row t of block 0
// CHECK: rkc::u32 ag = 0u, bg = 0u; // B: row g of M
// CHECK-NEXT: if (g < MR) { ag = act_g[8 * s]; bg = act_g[8 * s + 1]; }
// CHECK: for (int c = 0; c < 4; ++c) rkc::s8x4_to_f16_pairs(blk.w[u][j][c], lo[c], hi[c]);
// CHECK: rkc::mma_16816<false>(d, lo[2 * q], lo[2 * q + 1], hi[2 * q], hi[2 * q + 1], ag, bg);
// CHECK: rkc::ksplit_reduce_mma<MR, COLS, WARPS, KWARPS, C, V, true>(
module {
  func.func @gemv_mma_int8(%arg0: tensor<1x2048xf16>, %arg1: tensor<2048x1024xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %arg2: tensor<16x1024xf16>, %arg3: tensor<1x1024xf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 1, cols = 2, warps = 16, cluster = 2, unroll = 2, mma = true>} {
    %0 = tier.kdot %arg0, %arg1, %arg2 : tensor<1x2048xf16>, tensor<2048x1024xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<16x1024xf16> -> <32 x f32>
    %1 = tier.ksplit_reduce %0 : <32 x f32> -> <2 x f32>
    tier.store_tile %1, %arg3 : <2 x f32>, tensor<1x1024xf16>
    return
  }
}

// -----

// Symmetric int4 quantization along K: absmax per column over the group,
// the scale rounded to f16 before dividing, round-half-even, clamp, pack.
// CHECK-LABEL: // kernel rkc_quantize: cols=4,warps=4,cluster=1,unroll=1
// CHECK: rkc::grid_dependency_wait();
// CHECK: hi[c] = fmaxf(hi[c], fabsf(x[c]));
// CHECK: sc[c] = rkc::to_f32(rkc::from_f32<rkc::f16>(hi[c] * 0.142857149f));
// CHECK: rkc::quant_round(rintf(x[c] / sc[c]) + zp[c], -7.0f, 7.0f)
// CHECK: words[c] = rkc::pack_word<4>(q[c]);
// CHECK: rkc::store_words<COLS>(
module {
  func.func @quantize(%arg0: tensor<4096x4096xf16>, %arg1: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>> {rk.name = "out0", tier.output}, %arg2: tensor<32x4096xf16> {rk.name = "out1", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 4, cluster = 1, unroll = 1>} {
    tier.quantize_tile %arg0, %arg1, %arg2 : tensor<4096x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>
    return
  }
}

// -----

// Per-token int8: the values of the quantized i8 result are an f32
// fragment (x / scale, clamped); store_frag into signed char rounds them half
// to even and saturates (16 per 16-byte store); x / scale is the IEEE
// division of CUDA's '/'; the [T, 1] scales are written one per row at
// row * s2 (their row stride).
// CHECK-LABEL: // kernel rkc_quantize_per_token: threads=8,values=16,vector=16,rows=16,cluster=1,staging=registers,unroll=1,min_blocks=0
// CHECK:         rkc_quantize_per_token(
// CHECK-NEXT:      const rkc::f16 *__restrict__ a0,
// CHECK-NEXT:      signed char *__restrict__ a1,
// CHECK-NEXT:      rkc::f16 *__restrict__ a2,
// CHECK:         rkc::load_frag<rkc::f16, V, W>(a0 + row * s0, col0, COL_STEP, N, [[XF:f[0-9]+]], 0.0f);
// CHECK:         const float [[M:r[0-9]+]] = rkc::warp_reduce<8>({{r[0-9]+}}, rkc::OpMax());
// CHECK:           const float {{v[0-9]+}} = rkc::round_f16({{v[0-9]+}});
// CHECK:         float [[QF:f[0-9]+]][V];
// CHECK:           const float [[D:v[0-9]+]] = ({{v[0-9]+}} / {{v[0-9]+}});
// CHECK:           const float [[S:v[0-9]+]] = ({{v[0-9]+}} ? {{v[0-9]+}} : [[D]]);
// CHECK-NEXT:      const float {{v[0-9]+}} = -127.0f;
// CHECK-NEXT:      const float {{v[0-9]+}} = fmaxf([[S]], {{v[0-9]+}});
// CHECK:           [[QF]][i] = {{v[0-9]+}};
// CHECK:         int [[QI:f[0-9]+]][V];
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int i = 0; i < V; ++i) [[QI]][i] = rkc::s8_in_range([[QF]][i]);
// CHECK-NEXT:    if (row_ok) rkc::store_frag<signed char, V, W>(a1 + row * s1, col0, COL_STEP, N, [[QI]]);
// CHECK-NEXT:    if (row_ok && t == 0 && rank == 0) a2[row * s2] = rkc::from_f32<rkc::f16>({{sv[0-9]+}});
// CHECK-NEXT:  }
module {
  func.func @quantize_per_token(%arg0: tensor<64x128xf16> {rk.name = "x"}, %arg1: tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>> {rk.name = "out0", tier.output}, %arg2: tensor<64x1xf16> {rk.name = "out1", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 8, values = 16, vector = 16, rows = 16>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
    %cst = arith.constant 0.00787401571 : f32
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<64x128xf16> -> <16 x f32>
    %1 = tier.map %0 {
    ^bb0(%arg3: f32):
      %7 = math.absf %arg3 : f32
      tier.yield %7 : f32
    } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
    %2 = tier.thread_reduce %1 {
    } {init = [0xFF800000 : f32], kind = #rk<reduce_kind max>} : !tier.frag<16 x f32> -> f32
    %3 = tier.warp_reduce %2 {
    } {kind = #rk<reduce_kind max>, width = 8 : i64} : f32 -> f32
    %4 = tier.map %3, %cst {
    ^bb0(%arg3: f32, %arg4: f32):
      %7 = arith.mulf %arg3, %arg4 : f32
      tier.yield %7 : f32
    } : f32, f32 -> f32
    %5 = tier.map %4 {
    ^bb0(%arg3: f32):
      %7 = arith.truncf %arg3 : f32 to f16
      %8 = arith.extf %7 : f16 to f32
      tier.yield %8 : f32
    } : f32 -> f32
    %6 = tier.map %0, %5 {
    ^bb0(%arg3: f32, %arg4: f32):
      %7 = arith.divf %arg3, %arg4 : f32
      %cst_2 = arith.constant 0.000000e+00 : f32
      %8 = arith.cmpf oeq, %arg4, %cst_2 : f32
      %9 = arith.select %8, %cst_2, %7 : f32
      %cst_0 = arith.constant -1.270000e+02 : f32
      %10 = arith.maxnumf %9, %cst_0 : f32
      %cst_1 = arith.constant 1.270000e+02 : f32
      %11 = arith.minnumf %10, %cst_1 : f32
      tier.yield %11 : f32
    } : !tier.frag<16 x f32>, f32 -> !tier.frag<16 x f32>
    tier.store %6, %arg1 : <16 x f32>, tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>
    tier.store_row_scalar %5, %arg2 : f32, tensor<64x1xf16>
    return
  }
}

// -----

// A per-row f32 value stored into a quantized i8 [M, 1] result narrows
// with from_f32 (round half to even, saturate); plain integer values of an
// [M] result are converted.
// CHECK-LABEL: // kernel rkc_row_scalars:
// CHECK-DAG:     a1[row * s1] = rkc::from_f32<signed char>({{r[0-9]+}});
// CHECK-DAG:     a2[row] = (long long){{sv[0-9]+}};
module {
  func.func @row_scalars(%arg0: tensor<4x64xf32>, %arg1: tensor<4x1xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>> {rk.name = "out0", tier.output}, %arg2: tensor<4xi64> {rk.name = "out1", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<4x64xf32> -> <4 x f32>
    %1 = tier.thread_reduce %0 {
    } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<4 x f32> -> f32
    %2 = tier.warp_reduce %1 {
    } {kind = #rk<reduce_kind add>, width = 16 : i64} : f32 -> f32
    %3 = tier.map %2 {
    ^bb0(%a: f32):
      %i = arith.fptosi %a : f32 to i64
      tier.yield %i : i64
    } : f32 -> i64
    tier.store_row_scalar %2, %arg1 : f32, tensor<4x1xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>>
    tier.store_row_scalar %3, %arg2 : i64, tensor<4xi64>
    return
  }
}

// -----

// A streamed row (staging = stream, N = 1M bf16, a cluster of 16): each
// reduction and the stores run in a sweep over PASSES passes; the second
// sweep runs backwards (it starts with the pass the first read last), reads
// the row for the last time evict-first and stores evict-first; the 2 MiB
// weight is loaded evict-last (>= 2 MiB of [N] operands). The sweep folds
// into four independent states (value i into state i % 4), declared before
// the sweep and combined pairwise after it.
// CHECK-LABEL: // kernel rkc_rms_stream: threads=512,values=32,vector=8,rows=1,cluster=16,staging=stream,unroll=4,min_blocks=2
// CHECK-NEXT:  extern "C" __global__ void __cluster_dims__(16, 1, 1) __launch_bounds__(512, 2)
// CHECK:         constexpr int PASSES = 4;
// CHECK:         float [[R:r[0-9]+]]_chain[4] = {0.0f, 0.0f, 0.0f, 0.0f};
// CHECK-NEXT:    for (int pass = 0; pass < PASSES; ++pass) {
// CHECK-NEXT:    const int col0 = col0_base + pass * PASS_COLS;
// CHECK-NEXT:    rkc::PackedFrag<rkc::bf16, V> [[X1:f[0-9]+]];
// CHECK-NEXT:    rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, [[X1]], 0.0f);
// CHECK:         if (FULL_ROW || col < N) [[R]]_chain[i % 4] = rkc::OpAdd()([[R]]_chain[i % 4], f{{[0-9]+}}[i]);
// CHECK-NEXT:    }
// CHECK-NEXT:    }
// CHECK-NEXT:    const float [[R]] = rkc::OpAdd()(rkc::OpAdd()([[R]]_chain[0], [[R]]_chain[1]), rkc::OpAdd()([[R]]_chain[2], [[R]]_chain[3]));
// CHECK:         rkc::cluster_reduce<16, 16>(
// CHECK:         for (int pass = PASSES - 1; pass >= 0; --pass) {
// CHECK-NEXT:    const int col0 = col0_base + pass * PASS_COLS;
// CHECK-NEXT:    rkc::PackedFrag<rkc::bf16, V> [[X2:f[0-9]+]];
// CHECK-NEXT:    rkc::load_frag_stream<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, [[X2]], 0.0f);
// CHECK-NEXT:    rkc::PackedFrag<rkc::bf16, V> [[WF:f[0-9]+]];
// CHECK-NEXT:    rkc::load_frag_keep<rkc::bf16, V, W>(a1, col0, COL_STEP, N, [[WF]], 0.0f);
// CHECK:         if (row_ok) rkc::store_frag_stream<rkc::bf16, V, W>(a2 + row * s2, col0, COL_STEP, N,
module {
  func.func @rms_stream(%arg0: tensor<2x1048576xbf16> {rk.name = "x"}, %arg1: tensor<1048576xbf16> {rk.name = "w"}, %arg2: tensor<2x1048576xbf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 2>} {
    %cst = arith.constant 9.99999997E-7 : f32
    %cst_0 = arith.constant 0x49800000 : f32
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<2x1048576xbf16> -> <32 x f32>
    %1 = tier.map %0 {
    ^bb0(%arg3: f32):
      %8 = arith.mulf %arg3, %arg3 : f32
      tier.yield %8 : f32
    } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
    %2 = tier.thread_reduce %1 {
    } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<32 x f32> -> f32
    %3 = tier.warp_reduce %2 {
    } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
    %4 = tier.cluster_reduce %3 {
    } {cluster = 16 : i64, kind = #rk<reduce_kind add>, warps = 16 : i64} : f32 -> f32
    %5 = tier.map %4, %cst_0, %cst {
    ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
      %8 = arith.divf %arg3, %arg4 : f32
      %9 = arith.addf %8, %arg5 : f32
      %10 = math.rsqrt %9 : f32
      tier.yield %10 : f32
    } : f32, f32, f32 -> f32
    %6 = tier.load %arg1 {fill = 0.000000e+00 : f32} : tensor<1048576xbf16> -> <32 x f32>
    %7 = tier.map %0, %5, %6 {
    ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
      %8 = arith.mulf %arg3, %arg4 : f32
      %9 = arith.mulf %8, %arg5 : f32
      tier.yield %9 : f32
    } : !tier.frag<32 x f32>, f32, !tier.frag<32 x f32> -> !tier.frag<32 x f32>
    tier.store %7, %arg2 : <32 x f32>, tensor<2x1048576xbf16>
    return
  }
}

// -----

// Streamed reductions that need nothing from each other share a sweep (a
// product and an argmin, which rk-fuse-reductions leaves apart): one read
// of the row for both, their states declared before it and unpacked after
// it. A reduction of values that use the argmin's result waits for its
// own sweep (backwards).
// CHECK-LABEL: // kernel rkc_mul_argmin_stream:
// CHECK:         float [[P:r[0-9]+]]_chain[4] = {1.0f, 1.0f, 1.0f, 1.0f};
// CHECK-NEXT:    rkc::ValIdx<float, long long> [[A:r[0-9]+]] = rkc::ValIdx<float, long long>{__int_as_float(0x7f800000), -1LL};
// CHECK-NEXT:    for (int pass = 0; pass < PASSES; ++pass) {
// CHECK-NEXT:    const int col0 = col0_base + pass * PASS_COLS;
// CHECK-NEXT:    rkc::PackedFrag<rkc::bf16, V> [[X:f[0-9]+]];
// CHECK-NEXT:    rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, [[X]], 0.0f);
// CHECK:         [[P]]_chain[i % 4] = rkc::OpMul()([[P]]_chain[i % 4], [[X]][i]);
// CHECK:         rkc::fold_arg_extreme<false, V, V, true>([[X]],
// CHECK-SAME:    [[A]] = rkc::OpArgMin()([[A]],
// CHECK-NEXT:    {{^  }$}}
// CHECK-NEXT:    const float [[P]] = rkc::OpMul()(
// CHECK:         rkc::cluster_reduce<8, 16>({{.*}}rkc::OpMul()
// CHECK:         rkc::cluster_reduce<8, 16>({{.*}}rkc::OpArgMin()
// CHECK:         for (int pass = PASSES - 1; pass >= 0; --pass) {
// CHECK:         rkc::load_frag_stream<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N,
// CHECK:         rkc::OpAdd()
// CHECK-NOT:     for (int pass
// CHECK:         a3[row] =
module {
  func.func @mul_argmin_stream(%arg0: tensor<2x1048576xbf16> {rk.name = "x"}, %arg1: tensor<2xf32> {rk.name = "out0", tier.output}, %arg2: tensor<2xi64> {rk.name = "out1", tier.output}, %arg3: tensor<2xf32> {rk.name = "out2", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 0>} {
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<2x1048576xbf16> -> <32 x f32>
    %1 = tier.thread_reduce %0 {
    } {init = [1.000000e+00 : f32], kind = #rk<reduce_kind mul>} : !tier.frag<32 x f32> -> f32
    %2 = tier.warp_reduce %1 {
    } {kind = #rk<reduce_kind mul>, width = 32 : i64} : f32 -> f32
    %3 = tier.cluster_reduce %2 {
    } {cluster = 16 : i64, kind = #rk<reduce_kind mul>, warps = 8 : i64} : f32 -> f32
    %4:2 = tier.thread_reduce %0 {
    } {init = [0x7F800000 : f32, -1], kind = #rk<reduce_kind argmin>} : !tier.frag<32 x f32> -> f32, i64
    %5:2 = tier.warp_reduce %4#0, %4#1 {
    } {kind = #rk<reduce_kind argmin>, width = 32 : i64} : f32, i64 -> f32, i64
    %6:2 = tier.cluster_reduce %5#0, %5#1 {
    } {cluster = 16 : i64, kind = #rk<reduce_kind argmin>, warps = 8 : i64} : f32, i64 -> f32, i64
    %7 = tier.map %0, %6#0 {
    ^bb0(%a: f32, %b: f32):
      %d = arith.subf %a, %b : f32
      tier.yield %d : f32
    } : !tier.frag<32 x f32>, f32 -> !tier.frag<32 x f32>
    %8 = tier.thread_reduce %7 {
    } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<32 x f32> -> f32
    %9 = tier.warp_reduce %8 {
    } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
    %10 = tier.cluster_reduce %9 {
    } {cluster = 16 : i64, kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
    tier.store_row_scalar %3, %arg1 : f32, tensor<2xf32>
    tier.store_row_scalar %6#1, %arg2 : i64, tensor<2xi64>
    tier.store_row_scalar %10, %arg3 : f32, tensor<2xf32>
    return
  }
}

// -----

// 16-bit data: a fragment divided by a per-row scalar multiplies by its
// reciprocal (computed once by ptxas); f32 data keep the IEEE division.
// CHECK-LABEL: // kernel rkc_div_by_row_sum_bf16:
// CHECK:           const float {{v[0-9]+}} = ({{v[0-9]+}} * (1.0f / {{v[0-9]+}}));
// CHECK-LABEL: // kernel rkc_div_by_row_sum_f32:
// CHECK:           const float {{v[0-9]+}} = ({{v[0-9]+}} / {{v[0-9]+}});
module {
  func.func @div_by_row_sum_bf16(%arg0: tensor<64x128xbf16> {rk.name = "x"}, %arg1: tensor<64x128xbf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 16, values = 8, vector = 8, rows = 8>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<64x128xbf16> -> <8 x f32>
    %1 = tier.thread_reduce %0 {
    } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<8 x f32> -> f32
    %2 = tier.warp_reduce %1 {
    } {kind = #rk<reduce_kind add>, width = 16 : i64} : f32 -> f32
    %3 = tier.map %0, %2 {
    ^bb0(%a: f32, %b: f32):
      %d = arith.divf %a, %b : f32
      tier.yield %d : f32
    } : !tier.frag<8 x f32>, f32 -> !tier.frag<8 x f32>
    tier.store %3, %arg1 : <8 x f32>, tensor<64x128xbf16>
    return
  }
  func.func @div_by_row_sum_f32(%arg0: tensor<64x128xf32> {rk.name = "x"}, %arg1: tensor<64x128xf32> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 32, values = 4, vector = 4, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<64x128xf32> -> <4 x f32>
    %1 = tier.thread_reduce %0 {
    } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<4 x f32> -> f32
    %2 = tier.warp_reduce %1 {
    } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
    %3 = tier.map %0, %2 {
    ^bb0(%a: f32, %b: f32):
      %d = arith.divf %a, %b : f32
      tier.yield %d : f32
    } : !tier.frag<4 x f32>, f32 -> !tier.frag<4 x f32>
    tier.store %3, %arg1 : <4 x f32>, tensor<64x128xf32>
    return
  }
}

// -----

// A streamed online softmax state tagged rk.fold = "max_exp_sum": each
// group of a pass's values becomes one (max, sum of exp) state in
// registers (rkc::fold_max_exp_sum), combined into one of four running
// states (group c into state c % 4), instead of one combine per value.
// Groups are vectors (W) for f32 rows, whole passes (V) for 16-bit ones.
// CHECK-LABEL: // kernel rkc_lse_stream: threads=512,values=32,vector=4,rows=1,cluster=1,staging=stream,unroll=8,min_blocks=0
// CHECK:         State1 [[R:r[0-9]+]]_chain[4] = {State1{__int_as_float(0xff800000), 0.0f}, State1{__int_as_float(0xff800000), 0.0f}, State1{__int_as_float(0xff800000), 0.0f}, State1{__int_as_float(0xff800000), 0.0f}};
// CHECK-NEXT:    for (int pass = 0; pass < PASSES; ++pass) {
// CHECK-NEXT:    const int col0 = col0_base + pass * PASS_COLS;
// CHECK-NEXT:    float [[X:f[0-9]+]][V];
// CHECK-NEXT:    rkc::load_frag<float, V, W>(a0 + row * s0, col0, COL_STEP, N, [[X]], 0.0f);
// CHECK:         rkc::fold_max_exp_sum<V, W, false>([[X]], [&](int i) { const int col = col0 + (i / W) * COL_STEP + (i % W); return FULL_ROW || col < N; }, [&](int c, float m, float s) { [[R]]_chain[c % 4] = [[C:Combine[0-9]+]]()([[R]]_chain[c % 4], State1{m, s}); });
// CHECK-NEXT:    }
// CHECK-NEXT:    const State1 [[R]] = [[C]]()([[C]]()([[R]]_chain[0], [[R]]_chain[1]), [[C]]()([[R]]_chain[2], [[R]]_chain[3]));
// CHECK-NEXT:    const float sv{{[0-9]+}} = [[R]].c0;
// CHECK:         rkc::warp_reduce<32>([[R]],
// NEG-NOT:       //<fold>
module {
  func.func @lse_stream(%arg0: tensor<4x65536xf32> {rk.name = "x"}, %arg1: tensor<4xf32> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 8, min_blocks = 0>} {
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<4x65536xf32> -> <32 x f32>
    %1 = tier.map %0 {
    ^bb0(%a: f32):
      %cst = arith.constant 1.000000e+00 : f32
      tier.yield %cst : f32
    } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
    %2:2 = tier.thread_reduce %0, %1 {
    ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %l1, %l2 : f32
      tier.yield %m, %s : f32, f32
    } {init = [0xFF800000 : f32, 0.000000e+00 : f32], rk.fold = "max_exp_sum"} : !tier.frag<32 x f32>, !tier.frag<32 x f32> -> f32, f32
    %3:2 = tier.warp_reduce %2#0, %2#1 {
    ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %l1, %l2 : f32
      tier.yield %m, %s : f32, f32
    } {width = 32 : i64} : f32, f32 -> f32, f32
    %4:2 = tier.block_reduce %3#0, %3#1 {
    ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %l1, %l2 : f32
      tier.yield %m, %s : f32, f32
    } {warps = 16 : i64} : f32, f32 -> f32, f32
    %5 = tier.map %4#0, %4#1 {
    ^bb0(%a: f32, %b: f32):
      %l = math.log %b : f32
      %r = arith.addf %a, %l : f32
      tier.yield %r : f32
    } : f32, f32 -> f32
    tier.store_row_scalar %5, %arg1 : f32, tensor<4xf32>
    return
  }
}

// -----

// The same over a bf16 row: one group per pass.
// CHECK-LABEL: // kernel rkc_lse_stream_bf16: threads=512,values=32,vector=8,rows=1,cluster=1,staging=stream,unroll=8,min_blocks=0
// CHECK:         rkc::fold_max_exp_sum<V, V, true>(f{{[0-9]+}}, [&](int i) {
module {
  func.func @lse_stream_bf16(%arg0: tensor<4x65536xbf16> {rk.name = "x"}, %arg1: tensor<4xf32> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 8, min_blocks = 0>} {
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<4x65536xbf16> -> <32 x f32>
    %1 = tier.map %0 {
    ^bb0(%a: f32):
      %cst = arith.constant 1.000000e+00 : f32
      tier.yield %cst : f32
    } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
    %2:2 = tier.thread_reduce %0, %1 {
    ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %l1, %l2 : f32
      tier.yield %m, %s : f32, f32
    } {init = [0xFF800000 : f32, 0.000000e+00 : f32], rk.fold = "max_exp_sum"} : !tier.frag<32 x f32>, !tier.frag<32 x f32> -> f32, f32
    %3:2 = tier.warp_reduce %2#0, %2#1 {
    ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %l1, %l2 : f32
      tier.yield %m, %s : f32, f32
    } {width = 32 : i64} : f32, f32 -> f32, f32
    %4:2 = tier.block_reduce %3#0, %3#1 {
    ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
      %m = arith.maximumf %m1, %m2 : f32
      %s = arith.addf %l1, %l2 : f32
      tier.yield %m, %s : f32, f32
    } {warps = 16 : i64} : f32, f32 -> f32, f32
    %5 = tier.map %4#0, %4#1 {
    ^bb0(%a: f32, %b: f32):
      %l = math.log %b : f32
      %r = arith.addf %a, %l : f32
      tier.yield %r : f32
    } : f32, f32 -> f32
    tier.store_row_scalar %5, %arg1 : f32, tensor<4xf32>
    return
  }
}

// -----

// A LayerNorm row split over a cluster (rk-fuse-reductions made its mean
// and variance one Welford state, tagged rk.fold = "mean_m2"): each group
// of 16 values (whole vectors) becomes one (count, mean, M2) state by two
// passes in registers (rkc::fold_mean_m2), one Chan combine per group; the
// combiner's fastmath<afn> division is __fdividef; one cluster reduction.
// CHECK-LABEL: // kernel rkc_ln_cluster_welford: threads=256,values=32,vector=4,rows=1,cluster=2,staging=registers,unroll=8,min_blocks=0,prefetch=1
// CHECK:         struct [[COMB:Combine[0-9]+]] {
// CHECK:           const float v{{[0-9]+}} = __fdividef(v{{[0-9]+}}, v{{[0-9]+}});
// CHECK:         State1 [[R:r[0-9]+]] = State1{0.0f, 0.0f, 0.0f};
// CHECK-NEXT:    rkc::fold_mean_m2<V, 16>(f{{[0-9]+}}, [&](int i) { const int col = col0 + (i / W) * COL_STEP + (i % W); return FULL_ROW || col < N; }, [&](int c, float n, float m, float q) { [[R]] = [[COMB]]()([[R]], State1{n, m, q}); });
// CHECK:         rkc::warp_reduce<32>([[R]],
// CHECK:         rkc::cluster_reduce<8, 2>(
// CHECK-NOT:     rkc::cluster_reduce
// CHECK:         rkc::store_frag<float, V, W>(
module {
  func.func @ln_cluster_welford(%arg0: tensor<4x16384xf32> {rk.name = "x"}, %arg1: tensor<16384xf32> {rk.name = "w"}, %arg2: tensor<16384xf32> {rk.name = "b"}, %arg3: tensor<4x16384xf32> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = registers, unroll = 8, min_blocks = 0, prefetch = 1>} {
    %cst = arith.constant 9.99999974E-6 : f32
    %cst_0 = arith.constant 1.638400e+04 : f32
    %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<4x16384xf32> -> <32 x f32>
    %1 = tier.map %0 {
    ^bb0(%arg4: f32):
      %cst_1 = arith.constant 1.000000e+00 : f32
      tier.yield %cst_1 : f32
    } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
    %2 = tier.map %0 {
    ^bb0(%arg4: f32):
      %cst_1 = arith.constant 0.000000e+00 : f32
      tier.yield %cst_1 : f32
    } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
    %3:3 = tier.thread_reduce %1, %0, %2 {
    ^bb0(%arg4: f32, %arg5: f32, %arg6: f32, %arg7: f32, %arg8: f32, %arg9: f32):
      %14 = arith.addf %arg4, %arg7 : f32
      %15 = arith.subf %arg8, %arg5 : f32
      %cst_1 = arith.constant 0.000000e+00 : f32
      %16 = arith.cmpf oeq, %14, %cst_1 : f32
      %17 = arith.divf %arg7, %14 fastmath<afn> : f32
      %18 = arith.select %16, %cst_1, %17 : f32
      %19 = arith.mulf %15, %18 : f32
      %20 = arith.addf %arg5, %19 : f32
      %21 = arith.mulf %arg4, %18 : f32
      %22 = arith.mulf %15, %21 : f32
      %23 = arith.mulf %15, %22 : f32
      %24 = arith.addf %arg6, %arg9 : f32
      %25 = arith.addf %24, %23 : f32
      tier.yield %14, %20, %25 : f32, f32, f32
    } {init = [0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32], rk.fold = "mean_m2"} : !tier.frag<32 x f32>, !tier.frag<32 x f32>, !tier.frag<32 x f32> -> f32, f32, f32
    %4:3 = tier.warp_reduce %3#0, %3#1, %3#2 {
    ^bb0(%arg4: f32, %arg5: f32, %arg6: f32, %arg7: f32, %arg8: f32, %arg9: f32):
      %14 = arith.addf %arg4, %arg7 : f32
      %15 = arith.subf %arg8, %arg5 : f32
      %cst_1 = arith.constant 0.000000e+00 : f32
      %16 = arith.cmpf oeq, %14, %cst_1 : f32
      %17 = arith.divf %arg7, %14 fastmath<afn> : f32
      %18 = arith.select %16, %cst_1, %17 : f32
      %19 = arith.mulf %15, %18 : f32
      %20 = arith.addf %arg5, %19 : f32
      %21 = arith.mulf %arg4, %18 : f32
      %22 = arith.mulf %15, %21 : f32
      %23 = arith.mulf %15, %22 : f32
      %24 = arith.addf %arg6, %arg9 : f32
      %25 = arith.addf %24, %23 : f32
      tier.yield %14, %20, %25 : f32, f32, f32
    } {width = 32 : i64} : f32, f32, f32 -> f32, f32, f32
    %5:3 = tier.cluster_reduce %4#0, %4#1, %4#2 {
    ^bb0(%arg4: f32, %arg5: f32, %arg6: f32, %arg7: f32, %arg8: f32, %arg9: f32):
      %14 = arith.addf %arg4, %arg7 : f32
      %15 = arith.subf %arg8, %arg5 : f32
      %cst_1 = arith.constant 0.000000e+00 : f32
      %16 = arith.cmpf oeq, %14, %cst_1 : f32
      %17 = arith.divf %arg7, %14 fastmath<afn> : f32
      %18 = arith.select %16, %cst_1, %17 : f32
      %19 = arith.mulf %15, %18 : f32
      %20 = arith.addf %arg5, %19 : f32
      %21 = arith.mulf %arg4, %18 : f32
      %22 = arith.mulf %15, %21 : f32
      %23 = arith.mulf %15, %22 : f32
      %24 = arith.addf %arg6, %arg9 : f32
      %25 = arith.addf %24, %23 : f32
      tier.yield %14, %20, %25 : f32, f32, f32
    } {cluster = 2 : i64, warps = 8 : i64} : f32, f32, f32 -> f32, f32, f32
    %6 = tier.map %5#0, %5#1 {
    ^bb0(%arg4: f32, %arg5: f32):
      %14 = arith.mulf %arg4, %arg5 : f32
      tier.yield %14 : f32
    } : f32, f32 -> f32
    %7 = tier.map %6, %cst_0 {
    ^bb0(%arg4: f32, %arg5: f32):
      %14 = arith.divf %arg4, %arg5 : f32
      tier.yield %14 : f32
    } : f32, f32 -> f32
    %8 = tier.map %0, %7 {
    ^bb0(%arg4: f32, %arg5: f32):
      %14 = arith.subf %arg4, %arg5 : f32
      tier.yield %14 : f32
    } : !tier.frag<32 x f32>, f32 -> !tier.frag<32 x f32>
    %9 = tier.map %8 {
    ^bb0(%arg4: f32):
      %14 = arith.mulf %arg4, %arg4 : f32
      tier.yield %14 : f32
    } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
    %10 = tier.map %5#2, %cst_0, %cst {
    ^bb0(%arg4: f32, %arg5: f32, %arg6: f32):
      %14 = arith.divf %arg4, %arg5 : f32
      %15 = arith.addf %14, %arg6 : f32
      %16 = math.rsqrt %15 : f32
      tier.yield %16 : f32
    } : f32, f32, f32 -> f32
    %11 = tier.load %arg1 {fill = 0.000000e+00 : f32} : tensor<16384xf32> -> <32 x f32>
    %12 = tier.load %arg2 {fill = 0.000000e+00 : f32} : tensor<16384xf32> -> <32 x f32>
    %13 = tier.map %8, %10, %11, %12 {
    ^bb0(%arg4: f32, %arg5: f32, %arg6: f32, %arg7: f32):
      %14 = arith.mulf %arg4, %arg5 : f32
      %15 = arith.mulf %14, %arg6 : f32
      %16 = arith.addf %15, %arg7 : f32
      tier.yield %16 : f32
    } : !tier.frag<32 x f32>, f32, !tier.frag<32 x f32>, !tier.frag<32 x f32> -> !tier.frag<32 x f32>
    tier.store %13, %arg3 : <32 x f32>, tensor<4x16384xf32>
    return
  }
}

// -----

// Rows read once (no [M, N] result) are staged with evict-first L2 hints
// (stage_frag_stream) only where a thread stages one row: with two, the
// hinted copies fault under CUDA 13.0's ptxas (docs/robustness.md), so
// both rows of this dot product take plain copies.
// CHECK-LABEL: // kernel rkc_dot_two_rows: threads=128,values=32,vector=8,rows=1,cluster=1,staging=async
// CHECK:         rkc::stage_frag<rkc::bf16, V, W, TPR>(st0, a0 + row * s0, col0_base, COL_STEP, N, t);
// CHECK:         rkc::stage_frag<rkc::bf16, V, W, TPR>(st1, a1 + row * s1, col0_base, COL_STEP, N, t);
// NEG-LABEL:   // kernel rkc_dot_two_rows:
// NEG-NOT:     _stream<
// NEG:         rkc::block_reduce<4>
// CHECK-LABEL: // kernel rkc_dot_one_row: threads=128,values=32,vector=8,rows=1,cluster=1,staging=async
// CHECK:         rkc::stage_frag_stream<rkc::bf16, V, W, TPR>(st0, a0 + row * s0, col0_base, COL_STEP, N, t);
func.func @dot_two_rows(%x: tensor<4x4096xbf16> {rk.name = "x"}, %r: tensor<4x4096xbf16> {rk.name = "r"},
               %o: tensor<4xf32> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<4x4096xbf16> -> !tier.frag<32 x f32>
  %rf = tier.load %r {fill = 0.0 : f32} : tensor<4x4096xbf16> -> !tier.frag<32 x f32>
  %p = tier.map %xf, %rf {
  ^bb0(%a: f32, %b: f32):
    %q = arith.mulf %a, %b : f32
    tier.yield %q : f32
  } : !tier.frag<32 x f32>, !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  %t = tier.thread_reduce %p {} {init = [0.0 : f32], kind = #rk<reduce_kind add>} : !tier.frag<32 x f32> -> f32
  %w = tier.warp_reduce %t {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %s = tier.block_reduce %w {} {kind = #rk<reduce_kind add>, warps = 4 : i64} : f32 -> f32
  tier.store_row_scalar %s, %o : f32, tensor<4xf32>
  return
}
func.func @dot_one_row(%x: tensor<4x4096xbf16> {rk.name = "x"},
               %o: tensor<4xf32> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<4x4096xbf16> -> !tier.frag<32 x f32>
  %p = tier.map %xf, %xf {
  ^bb0(%a: f32, %b: f32):
    %q = arith.mulf %a, %b : f32
    tier.yield %q : f32
  } : !tier.frag<32 x f32>, !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  %t = tier.thread_reduce %p {} {init = [0.0 : f32], kind = #rk<reduce_kind add>} : !tier.frag<32 x f32> -> f32
  %w = tier.warp_reduce %t {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %s = tier.block_reduce %w {} {kind = #rk<reduce_kind add>, warps = 4 : i64} : f32 -> f32
  tier.store_row_scalar %s, %o : f32, tensor<4xf32>
  return
}

// -----

// The async epilogue of 16-bit rows runs two 16-byte chunks at a time,
// one where the launch bounds leave few registers (min_blocks = 3 at 512
// threads: more than 1024 threads an SM; the planner's rule for whole rows
// on fast memory, docs/planner.md rule 3), and then without the ring of
// [N] loads issued ahead. A row of an odd chunk count (3) goes one chunk
// at a time with the ring, as before that rule.
// CHECK-LABEL: // kernel rkc_rms_bf16_three_ctas: threads=512,values=32,vector=8,rows=1,cluster=1,staging=async,unroll=4,min_blocks=3
// CHECK:         __launch_bounds__(512, 3)
// CHECK:         for (int chunk = 0; chunk < V / W; chunk += 1) {
// NEG-LABEL:   // kernel rkc_rms_bf16_three_ctas:
// NEG-NOT:       PF_D
// NEG:         // kernel rkc_rms_bf16_two_ctas:
// CHECK-LABEL: // kernel rkc_rms_bf16_two_ctas: threads=512,values=32,vector=8,rows=1,cluster=1,staging=async,unroll=4,min_blocks=2
// CHECK:         for (int chunk = 0; chunk < V / W; chunk += 2) {
// CHECK-LABEL: // kernel rkc_rms_bf16_odd_chunks: threads=512,values=24,vector=8,rows=1,cluster=1,staging=async,unroll=3,min_blocks=0
// CHECK:         constexpr int PF_D = 2, PF_G = 1, PF_CHUNKS = V / W;
// CHECK:         for (int chunk = 0; chunk < V / W; chunk += 1) {
func.func @rms_bf16_three_ctas(%arg0: tensor<4x16384xbf16> {rk.name = "x"}, %arg1: tensor<16384xbf16> {rk.name = "w"}, %arg2: tensor<4x16384xbf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 3>} {
  %cst = arith.constant 9.99999997E-7 : f32
  %cst_0 = arith.constant 1.638400e+04 : f32
  %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<4x16384xbf16> -> <32 x f32>
  %1 = tier.map %0 {
  ^bb0(%arg3: f32):
    %8 = arith.mulf %arg3, %arg3 : f32
    tier.yield %8 : f32
  } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  %2 = tier.thread_reduce %1 {
  } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<32 x f32> -> f32
  %3 = tier.warp_reduce %2 {
  } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %4 = tier.block_reduce %3 {
  } {kind = #rk<reduce_kind add>, warps = 16 : i64} : f32 -> f32
  %5 = tier.map %4, %cst_0, %cst {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %8 = arith.divf %arg3, %arg4 : f32
    %9 = arith.addf %8, %arg5 : f32
    %10 = math.rsqrt %9 : f32
    tier.yield %10 : f32
  } : f32, f32, f32 -> f32
  %6 = tier.load %arg1 {fill = 0.000000e+00 : f32} : tensor<16384xbf16> -> <32 x f32>
  %7 = tier.map %0, %5, %6 {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %8 = arith.mulf %arg3, %arg4 : f32
    %9 = arith.mulf %8, %arg5 : f32
    tier.yield %9 : f32
  } : !tier.frag<32 x f32>, f32, !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  tier.store %7, %arg2 : <32 x f32>, tensor<4x16384xbf16>
  return
}
func.func @rms_bf16_two_ctas(%arg0: tensor<4x16384xbf16> {rk.name = "x"}, %arg1: tensor<16384xbf16> {rk.name = "w"}, %arg2: tensor<4x16384xbf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 2>} {
  %cst = arith.constant 9.99999997E-7 : f32
  %cst_0 = arith.constant 1.638400e+04 : f32
  %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<4x16384xbf16> -> <32 x f32>
  %1 = tier.map %0 {
  ^bb0(%arg3: f32):
    %8 = arith.mulf %arg3, %arg3 : f32
    tier.yield %8 : f32
  } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  %2 = tier.thread_reduce %1 {
  } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<32 x f32> -> f32
  %3 = tier.warp_reduce %2 {
  } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %4 = tier.block_reduce %3 {
  } {kind = #rk<reduce_kind add>, warps = 16 : i64} : f32 -> f32
  %5 = tier.map %4, %cst_0, %cst {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %8 = arith.divf %arg3, %arg4 : f32
    %9 = arith.addf %8, %arg5 : f32
    %10 = math.rsqrt %9 : f32
    tier.yield %10 : f32
  } : f32, f32, f32 -> f32
  %6 = tier.load %arg1 {fill = 0.000000e+00 : f32} : tensor<16384xbf16> -> <32 x f32>
  %7 = tier.map %0, %5, %6 {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %8 = arith.mulf %arg3, %arg4 : f32
    %9 = arith.mulf %8, %arg5 : f32
    tier.yield %9 : f32
  } : !tier.frag<32 x f32>, f32, !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  tier.store %7, %arg2 : <32 x f32>, tensor<4x16384xbf16>
  return
}
func.func @rms_bf16_odd_chunks(%arg0: tensor<4x12288xbf16> {rk.name = "x"}, %arg1: tensor<12288xbf16> {rk.name = "w"}, %arg2: tensor<4x12288xbf16> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 512, values = 24, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 3, min_blocks = 0>} {
  %cst = arith.constant 9.99999997E-7 : f32
  %cst_0 = arith.constant 1.228800e+04 : f32
  %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<4x12288xbf16> -> <24 x f32>
  %1 = tier.map %0 {
  ^bb0(%arg3: f32):
    %8 = arith.mulf %arg3, %arg3 : f32
    tier.yield %8 : f32
  } : !tier.frag<24 x f32> -> !tier.frag<24 x f32>
  %2 = tier.thread_reduce %1 {
  } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<24 x f32> -> f32
  %3 = tier.warp_reduce %2 {
  } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %4 = tier.block_reduce %3 {
  } {kind = #rk<reduce_kind add>, warps = 16 : i64} : f32 -> f32
  %5 = tier.map %4, %cst_0, %cst {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %8 = arith.divf %arg3, %arg4 : f32
    %9 = arith.addf %8, %arg5 : f32
    %10 = math.rsqrt %9 : f32
    tier.yield %10 : f32
  } : f32, f32, f32 -> f32
  %6 = tier.load %arg1 {fill = 0.000000e+00 : f32} : tensor<12288xbf16> -> <24 x f32>
  %7 = tier.map %0, %5, %6 {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %8 = arith.mulf %arg3, %arg4 : f32
    %9 = arith.mulf %8, %arg5 : f32
    tier.yield %9 : f32
  } : !tier.frag<24 x f32>, f32, !tier.frag<24 x f32> -> !tier.frag<24 x f32>
  tier.store %7, %arg2 : <24 x f32>, tensor<4x12288xbf16>
  return
}
