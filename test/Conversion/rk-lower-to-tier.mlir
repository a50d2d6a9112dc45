// RUN: rk-opt %s -split-input-file --rk-lower-to-tier | FileCheck %s --enable-var-scope
// RUN: rk-opt %s -split-input-file --rk-lower-to-tier | FileCheck %s --check-prefix=LOADS
// RUN: rk-opt %s -split-input-file --rk-lower-to-tier --mlir-print-op-generic | FileCheck %s --check-prefix=NO-RK
// RUN: rk-opt %S/Inputs/rk-lower-to-tier-errors.mlir -split-input-file --rk-lower-to-tier -verify-diagnostics -mlir-print-op-on-diagnostic=false

// The plans are given (tier.layout / tier.schedule); the lowering obeys them.
// Reductions climb the hardware tiers in order: thread_reduce (registers) ->
// warp_reduce (shuffles, width min(threads, 32)) -> block_reduce (threads >
// 32, no cluster) or cluster_reduce (cluster > 1, replacing the block tier)
// or grid_reduce (split > 1, replacing it too).
// Results become destination arguments appended to the signature, named
// out0, out1, ... and marked tier.output.

// NO-RK-NOT: "rk.

// 256 threads = 8 warps: thread -> warp (32) -> block (8 warps).
// CHECK-LABEL: func.func @rms_block
// CHECK-SAME:    (%[[X:.*]]: tensor<64x4096xbf16> {rk.name = "x"}, %[[W:.*]]: tensor<4096xbf16> {rk.name = "w"}, %[[OUT:.*]]: tensor<64x4096xbf16> {rk.name = "out0", tier.output})
// CHECK-NOT:     ->
// CHECK-SAME:    attributes
// CHECK:         %[[N:.*]] = arith.constant 4.096000e+03 : f32
// CHECK:         %[[XF:.*]] = tier.load %[[X]] {fill = 0.000000e+00 : f32} : tensor<64x4096xbf16> -> <16 x f32>
// CHECK:         %[[SQ:.*]] = tier.map %[[XF]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:      tier.yield %[[P]] : f32
// CHECK-NEXT:    } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
// CHECK-NEXT:    %[[T:.*]] = tier.thread_reduce %[[SQ]] {
// CHECK-NEXT:    } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<16 x f32> -> f32
// CHECK-NEXT:    %[[WR:.*]] = tier.warp_reduce %[[T]] {
// CHECK-NEXT:    } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
// CHECK-NEXT:    %[[BR:.*]] = tier.block_reduce %[[WR]] {
// CHECK-NEXT:    } {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
// CHECK-NEXT:    %[[INV:.*]] = tier.map %[[BR]], %[[N]] {
// CHECK:         } : f32, f32 -> f32
// CHECK:         %[[WF:.*]] = tier.load %[[W]] {fill = 0.000000e+00 : f32} : tensor<4096xbf16> -> <16 x f32>
// CHECK:         %[[Y:.*]] = tier.map %[[XF]], %[[INV]], %[[WF]] {
// CHECK:         } : !tier.frag<16 x f32>, f32, !tier.frag<16 x f32> -> !tier.frag<16 x f32>
// CHECK-NEXT:    tier.store %[[Y]], %[[OUT]] : <16 x f32>, tensor<64x4096xbf16>
// CHECK-NEXT:    return{{$}}
// CHECK-NOT:     tier.cluster_reduce
// x is used by two maps, w through a broadcast: each is loaded once
// (2 loads; the broadcasts are views and vanish).
// LOADS-LABEL: func.func @rms_block
// LOADS-COUNT-2: tier.load
// LOADS-NOT:     tier.load
// LOADS-NOT:     rk.broadcast
// LOADS:         return
func.func @rms_block(%x: tensor<64x4096xbf16> {rk.name = "x"}, %w: tensor<4096xbf16> {rk.name = "w"}) -> tensor<64x4096xbf16>
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 2, min_blocks = 0>} {
  %n = arith.constant 4096.0 : f32
  %sq = rk.map %x {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    rk.yield %p : f32
  } : tensor<64x4096xbf16> -> tensor<64x4096xf32>
  %s = rk.reduce add %sq : tensor<64x4096xf32> -> tensor<64xf32>
  %inv = rk.map %s, %n {
  ^bb0(%a: f32, %b: f32):
    %m = arith.divf %a, %b : f32
    %r = math.rsqrt %m : f32
    rk.yield %r : f32
  } : tensor<64xf32>, f32 -> tensor<64xf32>
  %ib = rk.broadcast %inv dims [0] : tensor<64xf32> -> tensor<64x4096xf32>
  %wb = rk.broadcast %w dims [1] : tensor<4096xbf16> -> tensor<64x4096xbf16>
  %y = rk.map %x, %ib, %wb {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %c : f32
    rk.yield %q : f32
  } : tensor<64x4096xbf16>, tensor<64x4096xf32>, tensor<64x4096xbf16> -> tensor<64x4096xbf16>
  return %y : tensor<64x4096xbf16>
}

// -----

// A cluster of 4 CTAs of 1024 threads: thread -> warp (32) -> cluster
// (32 warps x 4 CTAs), no block tier. argmax carries (value, column) with
// init (-inf, -1); the two results go to out0 and out1.
// CHECK-LABEL: func.func @cluster_argmax
// CHECK-SAME:    (%[[X:.*]]: tensor<8x131072xbf16>, %[[V:.*]]: tensor<8xf32> {rk.name = "out0", tier.output}, %[[I:.*]]: tensor<8xi64> {rk.name = "out1", tier.output})
// CHECK:         %[[XF:.*]] = tier.load %[[X]] {fill = 0.000000e+00 : f32} : tensor<8x131072xbf16> -> <32 x f32>
// CHECK-NEXT:    %[[T:.*]]:2 = tier.thread_reduce %[[XF]] {
// CHECK-NEXT:    } {init = [0xFF800000 : f32, -1], kind = #rk<reduce_kind argmax>} : !tier.frag<32 x f32> -> f32, i64
// CHECK-NEXT:    %[[W:.*]]:2 = tier.warp_reduce %[[T]]#0, %[[T]]#1 {
// CHECK-NEXT:    } {kind = #rk<reduce_kind argmax>, width = 32 : i64} : f32, i64 -> f32, i64
// CHECK-NEXT:    %[[C:.*]]:2 = tier.cluster_reduce %[[W]]#0, %[[W]]#1 {
// CHECK-NEXT:    } {cluster = 4 : i64, kind = #rk<reduce_kind argmax>, warps = 32 : i64} : f32, i64 -> f32, i64
// CHECK-NEXT:    tier.store_row_scalar %[[C]]#0, %[[V]] : f32, tensor<8xf32>
// CHECK-NEXT:    tier.store_row_scalar %[[C]]#1, %[[I]] : i64, tensor<8xi64>
// CHECK-NOT:     tier.block_reduce
func.func @cluster_argmax(%x: tensor<8x131072xbf16>) -> (tensor<8xf32>, tensor<8xi64>)
    attributes {tier.layout = #tier.tv_layout<threads = 1024, values = 32, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = registers, unroll = 4, min_blocks = 0>} {
  %v, %i = rk.reduce argmax %x : tensor<8x131072xbf16> -> tensor<8xf32>, tensor<8xi64>
  return %v, %i : tensor<8xf32>, tensor<8xi64>
}

// -----

// The grid tier (schedule split = 32, reduce = grid): thread -> warp (32)
// -> grid (16 warps in each of 32 CTAs), no block tier: grid_reduce
// combines the CTA's warps itself.
// CHECK-LABEL: func.func @grid_sum
// CHECK:         %[[T:.*]] = tier.thread_reduce
// CHECK:         %[[W:.*]] = tier.warp_reduce %[[T]] {
// CHECK-NEXT:    } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
// CHECK-NEXT:    %[[G:.*]] = tier.grid_reduce %[[W]] {
// CHECK-NEXT:    } {kind = #rk<reduce_kind add>, split = 32 : i64, warps = 16 : i64} : f32 -> f32
// CHECK-NEXT:    tier.store_row_scalar %[[G]], %{{.*}} : f32, tensor<8xf32>
// CHECK-NOT:     tier.block_reduce
// CHECK-NOT:     tier.cluster_reduce
func.func @grid_sum(%x: tensor<8x1048576xbf16>) -> tensor<8xf32>
    attributes {tier.layout = #tier.tv_layout<threads = 512, values = 64, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = registers, unroll = 8, min_blocks = 0, split = 32>} {
  %s = rk.reduce add %x : tensor<8x1048576xbf16> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// 16 threads per row (8 rows per CTA): a warp tier of width 16 and nothing
// above it. A custom combiner is copied into every tier, rk.yield becoming
// tier.yield.
// CHECK-LABEL: func.func @subwarp_custom
// CHECK:         %[[XF:.*]] = tier.load %{{.*}} : tensor<128x64xf32> -> <4 x f32>
// CHECK-NEXT:    %[[ONE:.*]] = tier.map %[[XF]] {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32):
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      tier.yield %[[C1]] : f32
// CHECK-NEXT:    } : !tier.frag<4 x f32> -> !tier.frag<4 x f32>
// CHECK-NEXT:    %[[T:.*]]:2 = tier.thread_reduce %[[XF]], %[[ONE]] {
// CHECK-NEXT:    ^bb0(%[[M1:.*]]: f32, %[[L1:.*]]: f32, %[[M2:.*]]: f32, %[[L2:.*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[M1]], %[[M2]] : f32
// CHECK-NEXT:      %[[L:.*]] = arith.addf %[[L1]], %[[L2]] : f32
// CHECK-NEXT:      tier.yield %[[M]], %[[L]] : f32, f32
// CHECK-NEXT:    } {init = [0xFF800000 : f32, 0.000000e+00 : f32]} : !tier.frag<4 x f32>, !tier.frag<4 x f32> -> f32, f32
// CHECK-NEXT:    %[[W:.*]]:2 = tier.warp_reduce %[[T]]#0, %[[T]]#1 {
// CHECK-NEXT:    ^bb0(%[[M1:.*]]: f32, %[[L1:.*]]: f32, %[[M2:.*]]: f32, %[[L2:.*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[M1]], %[[M2]] : f32
// CHECK-NEXT:      %[[L:.*]] = arith.addf %[[L1]], %[[L2]] : f32
// CHECK-NEXT:      tier.yield %[[M]], %[[L]] : f32, f32
// CHECK-NEXT:    } {width = 16 : i64} : f32, f32 -> f32, f32
// CHECK-NEXT:    tier.store_row_scalar %[[W]]#0, %{{.*}} : f32, tensor<128xf32>
// CHECK-NEXT:    tier.store_row_scalar %[[W]]#1, %{{.*}} : f32, tensor<128xf32>
// CHECK-NOT:     tier.block_reduce
// CHECK-NOT:     tier.cluster_reduce
func.func @subwarp_custom(%x: tensor<128x64xf32>) -> (tensor<128xf32>, tensor<128xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 8>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %one = rk.map %x {
  ^bb0(%a: f32):
    %c = arith.constant 1.0 : f32
    rk.yield %c : f32
  } : tensor<128x64xf32> -> tensor<128x64xf32>
  %m, %l = rk.reduce %x, %one init [0xFF800000 : f32, 0.0 : f32] {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %s = arith.addf %l1, %l2 : f32
    rk.yield %m, %s : f32, f32
  } : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128xf32>, tensor<128xf32>
  return %m, %l : tensor<128xf32>, tensor<128xf32>
}

// -----

// An rk.fold tag (the online softmax state of rk-fuse-reductions) goes with
// the thread tier, which folds a fragment by it; the tiers above combine
// states as before.
// CHECK-LABEL: func.func @fold_tag
// CHECK:         tier.thread_reduce
// CHECK:         } {init = [0xFF800000 : f32, 0.000000e+00 : f32], rk.fold = "max_exp_sum"} : !tier.frag<4 x f32>, !tier.frag<4 x f32> -> f32, f32
// CHECK-NEXT:    tier.warp_reduce
// CHECK:         } {width = 16 : i64} : f32, f32 -> f32, f32
func.func @fold_tag(%x: tensor<128x64xf32>) -> (tensor<128xf32>, tensor<128xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 8>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %one = rk.map %x {
  ^bb0(%a: f32):
    %c = arith.constant 1.0 : f32
    rk.yield %c : f32
  } : tensor<128x64xf32> -> tensor<128x64xf32>
  %m, %l = rk.reduce %x, %one init [0xFF800000 : f32, 0.0 : f32] {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %s = arith.addf %l1, %l2 : f32
    rk.yield %m, %s : f32, f32
  } {rk.fold = "max_exp_sum"} : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128xf32>, tensor<128xf32>
  return %m, %l : tensor<128xf32>, tensor<128xf32>
}

// -----

// One warp per row (32 threads, 4 rows per CTA): warp tier only. rk.gather
// reads one element per row at the index loaded from t; a bf16 per-row
// value that is used again is rounded to bf16 where it is defined.
// CHECK-LABEL: func.func @gather_warp
// CHECK-SAME:    (%[[X:.*]]: tensor<4x1000xbf16> {rk.name = "logits"}, %[[TA:.*]]: tensor<4xi64> {rk.name = "t"}, %[[O0:.*]]: tensor<4xf32> {rk.name = "out0", tier.output}, %[[O1:.*]]: tensor<4xbf16> {rk.name = "out1", tier.output})
// CHECK:         %[[TS:.*]] = tier.load_row_scalar %[[TA]] : tensor<4xi64> -> i64
// CHECK-NEXT:    %[[G:.*]] = tier.gather %[[X]][%[[TS]]] : tensor<4x1000xbf16>, i64 -> f32
// CHECK:         %[[XF:.*]] = tier.load %[[X]]
// CHECK-NEXT:    %[[T:.*]] = tier.thread_reduce %[[XF]] {
// CHECK-NEXT:    } {init = [0xFF800000 : f32], kind = #rk<reduce_kind max>} : !tier.frag<32 x f32> -> f32
// CHECK-NEXT:    %[[W:.*]] = tier.warp_reduce %[[T]] {
// CHECK-NEXT:    } {kind = #rk<reduce_kind max>, width = 32 : i64} : f32 -> f32
// CHECK-NEXT:    %[[R:.*]] = tier.map %[[W]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[TR:.*]] = arith.truncf %[[A]] : f32 to bf16
// CHECK-NEXT:      %[[EX:.*]] = arith.extf %[[TR]] : bf16 to f32
// CHECK-NEXT:      tier.yield %[[EX]] : f32
// CHECK-NEXT:    } : f32 -> f32
// CHECK-NEXT:    %[[D:.*]] = tier.map %[[R]], %[[G]] {
// CHECK:         } : f32, f32 -> f32
// CHECK-NEXT:    tier.store_row_scalar %[[D]], %[[O0]] : f32, tensor<4xf32>
// CHECK-NEXT:    tier.store_row_scalar %[[R]], %[[O1]] : f32, tensor<4xbf16>
// CHECK-NOT:     tier.block_reduce
func.func @gather_warp(%x: tensor<4x1000xbf16> {rk.name = "logits"}, %t: tensor<4xi64> {rk.name = "t"}) -> (tensor<4xf32>, tensor<4xbf16>)
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>} {
  %g = rk.gather %x[%t] : tensor<4x1000xbf16>, tensor<4xi64> -> tensor<4xbf16>
  %m = rk.reduce max %x : tensor<4x1000xbf16> -> tensor<4xbf16>
  %d = rk.map %m, %g {
  ^bb0(%a: f32, %b: f32):
    %s = arith.subf %a, %b : f32
    rk.yield %s : f32
  } : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xf32>
  return %d, %m : tensor<4xf32>, tensor<4xbf16>
}

// -----

// An [M, 1] argument beside [M, N] values is one value per row (per-token
// scales): loaded by tier.load_row_scalar, and the reduction of its row of
// one element is that value (no tier reduction). An int8 [M, N] argument
// with #rk.quant is loaded as f32 values.
// CHECK-LABEL: func.func @per_row_column
// CHECK-SAME:    (%[[Q:.*]]: tensor<8x256xi8, {{.*}}>, %[[S:.*]]: tensor<8x1xf16>
// CHECK:         %[[SV:.*]] = tier.load_row_scalar %[[S]] : tensor<8x1xf16> -> f32
// CHECK-NEXT:    %[[QF:.*]] = tier.load %[[Q]] {{.*}} -> <8 x f32>
// CHECK-NEXT:    %[[Y:.*]] = tier.map %[[QF]], %[[SV]] {
// CHECK:         tier.store %[[Y]]
// CHECK-NOT:     tier.thread_reduce
// CHECK-NOT:     tier.warp_reduce
func.func @per_row_column(%q: tensor<8x256xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, %s: tensor<8x1xf16>) -> tensor<8x256xf16>
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 8, vector = 8, rows = 4>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %sr = rk.reduce max %s : tensor<8x1xf16> -> tensor<8xf32>
  %sb = rk.broadcast %sr dims [0] : tensor<8xf32> -> tensor<8x256xf32>
  %y = rk.map %q, %sb {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %b, %a : f32
    rk.yield %p : f32
  } : tensor<8x256xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<8x256xf32> -> tensor<8x256xf16>
  return %y : tensor<8x256xf16>
}

// -----

// One thread per row: the thread tier alone.
// CHECK-LABEL: func.func @single_thread
// CHECK:         %[[XF:.*]] = tier.load %{{.*}} : tensor<256x4xf32> -> <4 x f32>
// CHECK-NEXT:    %[[T:.*]] = tier.thread_reduce %[[XF]] {
// CHECK-NEXT:    } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<4 x f32> -> f32
// CHECK-NEXT:    tier.store_row_scalar %[[T]], %{{.*}} : f32, tensor<256xf32>
// CHECK-NOT:     tier.warp_reduce
func.func @single_thread(%x: tensor<256x4xf32>) -> tensor<256xf32>
    attributes {tier.layout = #tier.tv_layout<threads = 1, values = 4, vector = 4, rows = 128>,
                tier.schedule = #tier.schedule<reduce = thread, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %s = rk.reduce add %x : tensor<256x4xf32> -> tensor<256xf32>
  return %s : tensor<256xf32>
}

// -----

// A combiner may use a constant defined above it (rk-decompose's rewrite
// driver hoists region constants to the function): each tier's region gets
// its own copy, since the CUDA emitter turns a combiner into a functor that
// sees nothing of the kernel.
// CHECK-LABEL: func.func @outer_constant
// CHECK:         tier.thread_reduce
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[CAP:.*]] = arith.constant 1.000000e+02 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.minimumf %[[S]], %[[CAP]] : f32
// CHECK-NEXT:      tier.yield %[[M]] : f32
// CHECK:         tier.warp_reduce
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[CAP:.*]] = arith.constant 1.000000e+02 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.minimumf %[[S]], %[[CAP]] : f32
// CHECK:         tier.map
// CHECK-NEXT:    ^bb0(%{{.*}}: f32):
// CHECK-NEXT:      %[[CAP:.*]] = arith.constant 1.000000e+02 : f32
// CHECK-NEXT:      tier.yield %[[CAP]] : f32
func.func @outer_constant(%x: tensor<64x32xf32>) -> (tensor<64xf32>, tensor<64x32xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 8, values = 4, vector = 4, rows = 16>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  // A sum of non-negative values saturating at 100.
  %cap = arith.constant 100.0 : f32
  %r = rk.reduce %x init [0.0 : f32] {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.minimumf %s, %cap : f32
    rk.yield %m : f32
  } : tensor<64x32xf32> -> tensor<64xf32>
  %y = rk.map %x {
  ^bb0(%a: f32):
    rk.yield %cap : f32
  } : tensor<64x32xf32> -> tensor<64x32xf32>
  return %r, %y : tensor<64xf32>, tensor<64x32xf32>
}

// -----

// Column kernels (#tier.ksplit_layout): rk.gemv becomes the thread partials
// over the thread's part of K (tier.kdot, rows x cols values), their sum
// over the warps and the cluster (tier.ksplit_reduce, the thread's share of
// the output tile: ceil(rows * 32 * cols / (32 * warps * cluster)) values),
// the bias added by a tier.map and a tier.store_tile.
// CHECK-LABEL: func.func @gemv_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<3x256xbf16>, %[[Q:.*]]: tensor<256x64xi4, {{.*}}>, %[[S:.*]]: tensor<8x64xbf16>, %[[Z:.*]]: tensor<8x64xbf16>, %[[B:.*]]: tensor<64xbf16>, %[[OUT:.*]]: tensor<3x64xbf16> {rk.name = "out0", tier.output})
// CHECK:         %[[P:.*]] = tier.kdot %[[X]], %[[Q]], %[[S]] zeros %[[Z]] : {{.*}} -> <6 x f32>
// CHECK-NEXT:    %[[R:.*]] = tier.ksplit_reduce %[[P]] : <6 x f32> -> <1 x f32>
// CHECK-NEXT:    %[[BV:.*]] = tier.load_tile %[[B]] : tensor<64xbf16> -> <1 x f32>
// CHECK-NEXT:    %[[Y:.*]] = tier.map %[[R]], %[[BV]] {
// CHECK:           arith.addf
// CHECK:         tier.store_tile %[[Y]], %[[OUT]] : <1 x f32>, tensor<3x64xbf16>
// CHECK-NEXT:    return
func.func @gemv_bias(%x: tensor<3x256xbf16>, %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = bf16, symmetric = false, packing = k8>>, %s: tensor<8x64xbf16>, %z: tensor<8x64xbf16>, %b: tensor<64xbf16>) -> tensor<3x64xbf16>
    attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 3, cols = 2, warps = 4, cluster = 2, unroll = 8>} {
  %o = rk.gemv %x, %q, %s zeros %z bias %b : (tensor<3x256xbf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = bf16, symmetric = false, packing = k8>>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<64xbf16>) -> tensor<3x64xbf16>
  return %o : tensor<3x64xbf16>
}

// -----

// On tensor cores the thread's partials are four m16n8 accumulators (16
// values) per group of 32 columns (cols = 2: 32), whatever the rows; with
// kwarps = 2 of 8 warps the CTA tile is 2 x 32 x 4 = 256 columns, so the
// thread's share of the 16 x 256 tile over a cluster of 2 is 8 values.
// CHECK-LABEL: func.func @gemv_mma
// CHECK:         %[[P:.*]] = tier.kdot {{.*}} -> <32 x f32>
// CHECK-NEXT:    %[[R:.*]] = tier.ksplit_reduce %[[P]] : <32 x f32> -> <8 x f32>
// CHECK-NEXT:    tier.store_tile %[[R]], {{.*}} : <8 x f32>, tensor<16x256xf16>
func.func @gemv_mma(%x: tensor<16x512xf16>, %q: tensor<512x256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<4x256xf16>) -> tensor<16x256xf16>
    attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 16, cols = 2, warps = 8, cluster = 2, unroll = 2, mma = true, kwarps = 2>} {
  %o = rk.gemv %x, %q, %s : (tensor<16x512xf16>, tensor<512x256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<4x256xf16>) -> tensor<16x256xf16>
  return %o : tensor<16x256xf16>
}

// -----

// rk.quantize / rk.dequantize along K: one tile op each, writing the
// destination arguments (quantized values, then scales).
// CHECK-LABEL: func.func @quantize
// CHECK-SAME:    (%[[W:.*]]: tensor<4096x4096xf16>, %[[QO:.*]]: tensor<4096x4096xi4, {{.*}}> {rk.name = "out0", tier.output}, %[[SO:.*]]: tensor<32x4096xf16> {rk.name = "out1", tier.output})
// CHECK:         tier.quantize_tile %[[W]], %[[QO]], %[[SO]] :
// CHECK-NEXT:    return
func.func @quantize(%w: tensor<4096x4096xf16>) -> (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>)
    attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 4, cluster = 1, unroll = 1>} {
  %q, %s = rk.quantize %w : (tensor<4096x4096xf16>) -> (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>)
  return %q, %s : tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>
}

// -----

// CHECK-LABEL: func.func @dequantize
// CHECK:         tier.dequantize_tile %{{.*}}, %{{.*}}, %{{.*}} : tensor<4096x4096xi4, {{.*}}>, tensor<32x4096xf16>, tensor<4096x4096xbf16>
func.func @dequantize(%q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> tensor<4096x4096xbf16>
    attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 8, cluster = 1, unroll = 4>} {
  %w = rk.dequantize %q, %s : (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<4096x4096xbf16>
  return %w : tensor<4096x4096xbf16>
}

// -----

// Per-token int8 (what rk-decompose makes of rk.quantize along the last
// axis): the values of the quantized i8 result are an f32 fragment (its
// compute type) stored with tier.store, which rounds and saturates them;
// the [T, 1] scales, a per-row value broadcast over a row of one element,
// are stored with tier.store_row_scalar like an [M] result. The f16 scale
// is rounded before it divides (it is used again).
// CHECK-LABEL: func.func @quantize_per_token
// CHECK-SAME:    (%[[X:.*]]: tensor<64x128xf16> {rk.name = "x"}, %[[Q:.*]]: tensor<64x128xi8, #rk.quant<{{.*}}>> {rk.name = "out0", tier.output}, %[[S:.*]]: tensor<64x1xf16> {rk.name = "out1", tier.output})
// CHECK:         %[[XF:.*]] = tier.load %[[X]] {fill = 0.000000e+00 : f32} : tensor<64x128xf16> -> <16 x f32>
// CHECK:         tier.thread_reduce %{{.*}} {
// CHECK:         } {init = [0xFF800000 : f32], kind = #rk<reduce_kind max>} : !tier.frag<16 x f32> -> f32
// CHECK-NEXT:    %[[M:.*]] = tier.warp_reduce %{{.*}} {
// CHECK-NEXT:    } {kind = #rk<reduce_kind max>, width = 8 : i64} : f32 -> f32
// CHECK-NEXT:    %[[SC:.*]] = tier.map %[[M]], %{{.*}} {
// CHECK:         } : f32, f32 -> f32
// CHECK-NEXT:    %[[SR:.*]] = tier.map %[[SC]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[A]] : f32 to f16
// CHECK-NEXT:      %[[E:.*]] = arith.extf %[[T]] : f16 to f32
// CHECK-NEXT:      tier.yield %[[E]] : f32
// CHECK-NEXT:    } : f32 -> f32
// CHECK-NEXT:    %[[QV:.*]] = tier.map %[[XF]], %[[SR]] {
// CHECK:           arith.divf
// CHECK:           arith.select
// CHECK:           %[[V:.*]] = arith.minnumf
// CHECK-NEXT:      tier.yield %[[V]] : f32
// CHECK-NEXT:    } : !tier.frag<16 x f32>, f32 -> !tier.frag<16 x f32>
// CHECK-NEXT:    tier.store %[[QV]], %[[Q]] : <16 x f32>, tensor<64x128xi8, #rk.quant<{{.*}}>>
// CHECK-NEXT:    tier.store_row_scalar %[[SR]], %[[S]] : f32, tensor<64x1xf16>
// CHECK-NEXT:    return{{$}}
// LOADS-LABEL: func.func @quantize_per_token
// LOADS-COUNT-1: tier.load
// LOADS-NOT:     tier.load
// LOADS:         return
func.func @quantize_per_token(%x: tensor<64x128xf16> {rk.name = "x"})
    -> (tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x1xf16>)
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 8, values = 16, vector = 16, rows = 16>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %hi = arith.constant 127.0 : f32
  %lo = arith.constant -127.0 : f32
  %zero = arith.constant 0.0 : f32
  %r = arith.constant 0.00787401571 : f32
  %abs = rk.map %x {
  ^bb0(%a: f32):
    %b = math.absf %a : f32
    rk.yield %b : f32
  } : tensor<64x128xf16> -> tensor<64x128xf32>
  %m = rk.reduce max %abs : tensor<64x128xf32> -> tensor<64xf32>
  %s = rk.map %m, %r {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    rk.yield %p : f32
  } : tensor<64xf32>, f32 -> tensor<64xf16>
  %sb = rk.broadcast %s dims [0] : tensor<64xf16> -> tensor<64x128xf16>
  %q = rk.map %x, %sb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.divf %a, %b : f32
    %z = arith.cmpf oeq, %b, %zero : f32
    %v = arith.select %z, %zero, %d : f32
    %c1 = arith.maxnumf %v, %lo : f32
    %c2 = arith.minnumf %c1, %hi : f32
    rk.yield %c2 : f32
  } : tensor<64x128xf16>, tensor<64x128xf16> -> tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>
  %so = rk.broadcast %s dims [0] : tensor<64xf16> -> tensor<64x1xf16>
  return %q, %so : tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x1xf16>
}

// -----

// A quantized value used again in the kernel is rounded half to even and
// saturated to i8 first (what its store would do), as narrow floats are.
// CHECK-LABEL: func.func @quantized_used_again
// CHECK:         %[[Q:.*]] = tier.map %{{.*}} {
// CHECK:         } : !tier.frag<4 x f32> -> !tier.frag<4 x f32>
// CHECK-NEXT:    %[[R:.*]] = tier.map %[[Q]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[E:.*]] = math.roundeven %[[A]] : f32
// CHECK-NEXT:      %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK-NEXT:      %[[C1:.*]] = arith.maxnumf %[[E]], %[[LO]] : f32
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.minnumf %[[C1]], %[[HI]] : f32
// CHECK-NEXT:      tier.yield %[[C2]] : f32
// CHECK-NEXT:    } : !tier.frag<4 x f32> -> !tier.frag<4 x f32>
// CHECK:         tier.thread_reduce %[[R]]
func.func @quantized_used_again(%x: tensor<4x64xf32>)
    -> (tensor<4x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>>, tensor<4xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %q = rk.map %x {
  ^bb0(%a: f32):
    rk.yield %a : f32
  } : tensor<4x64xf32> -> tensor<4x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>>
  %s = rk.reduce add %q : tensor<4x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>> -> tensor<4xf32>
  return %q, %s : tensor<4x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>>, tensor<4xf32>
}
