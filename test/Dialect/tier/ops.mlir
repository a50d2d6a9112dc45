// RUN: rk-opt %s -split-input-file | rk-opt -split-input-file | FileCheck %s --enable-var-scope
// RUN: rk-opt %s -split-input-file --mlir-print-op-generic | rk-opt -split-input-file | FileCheck %s --enable-var-scope

// Round trip of #tier.tv_layout, #tier.schedule, !tier.frag and every tier op,
// inside planned functions (tier.layout fixes the fragment size).
// Reductions with a builtin kind carry an empty combiner region, written
// `{}` (printed as `{` newline `}`). A fragment type is `!tier.frag<16 x f32>`:
// `16xf32` does not parse (the format has a separate `x` keyword). A builtin
// kind is `#rk<reduce_kind add>` (`#rk.reduce_kind<add>` does not parse).
// Where the type is known to be a fragment (tier.load / tier.store) the
// printer drops the dialect prefix: `-> <16 x f32>`.

// A block-tier kernel: 256 threads per row, 16 values per thread.
// CHECK-LABEL: func.func @block_kernel
// CHECK-SAME:    (%[[X:.*]]: tensor<64x4096xbf16>, %[[W:.*]]: tensor<4096xbf16>, %[[T:.*]]: tensor<64xi64>, %[[Y:.*]]: tensor<64x4096xbf16>, %[[S:.*]]: tensor<64xf32>)
// CHECK-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 2, min_blocks = 0>}
// CHECK:         %[[XF:.*]] = tier.load %[[X]] {fill = 0.000000e+00 : f32} : tensor<64x4096xbf16> -> <16 x f32>
// CHECK:         %[[WF:.*]] = tier.load %[[W]] {fill = 0.000000e+00 : f32} : tensor<4096xbf16> -> <16 x f32>
// CHECK:         %[[TS:.*]] = tier.load_row_scalar %[[T]] : tensor<64xi64> -> i64
// CHECK:         %[[G:.*]] = tier.gather %[[X]][%[[TS]]] : tensor<64x4096xbf16>, i64 -> f32
// CHECK:         %[[SQ:.*]] = tier.map %[[XF]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:      tier.yield %[[P]] : f32
// CHECK-NEXT:    } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
// CHECK:         %[[TR:.*]] = tier.thread_reduce %[[SQ]] {
// CHECK-NEXT:    } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<16 x f32> -> f32
// CHECK:         %[[WR:.*]] = tier.warp_reduce %[[TR]] {
// CHECK-NEXT:    } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
// CHECK:         %[[BR:.*]] = tier.block_reduce %[[WR]] {
// CHECK-NEXT:    } {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
// CHECK:         %[[INV:.*]] = tier.map %[[BR]], %[[G]] {
// CHECK-NEXT:    ^bb0(%[[B0:.*]]: f32, %[[B1:.*]]: f32):
// CHECK-NEXT:      %[[R:.*]] = math.rsqrt %[[B0]] : f32
// CHECK-NEXT:      %[[RG:.*]] = arith.addf %[[R]], %[[B1]] : f32
// CHECK-NEXT:      tier.yield %[[RG]] : f32
// CHECK-NEXT:    } : f32, f32 -> f32
// CHECK:         %[[YF:.*]] = tier.map %[[XF]], %[[WF]], %[[INV]] {
// CHECK:         } : !tier.frag<16 x f32>, !tier.frag<16 x f32>, f32 -> !tier.frag<16 x f32>
// CHECK:         tier.store %[[YF]], %[[Y]] : <16 x f32>, tensor<64x4096xbf16>
// CHECK:         tier.store_row_scalar %[[BR]], %[[S]] : f32, tensor<64xf32>
// CHECK:         return
func.func @block_kernel(%x: tensor<64x4096xbf16>, %w: tensor<4096xbf16>, %t: tensor<64xi64>,
                        %y: tensor<64x4096xbf16>, %s: tensor<64xf32>)
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 2, min_blocks = 0>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<64x4096xbf16> -> !tier.frag<16 x f32>
  %wf = tier.load %w {fill = 0.0 : f32} : tensor<4096xbf16> -> !tier.frag<16 x f32>
  %ts = tier.load_row_scalar %t : tensor<64xi64> -> i64
  %g = tier.gather %x[%ts] : tensor<64x4096xbf16>, i64 -> f32
  %sq = tier.map %xf {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    tier.yield %p : f32
  } : !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  %tr = tier.thread_reduce %sq {} {kind = #rk<reduce_kind add>, init = [0.0 : f32]} : !tier.frag<16 x f32> -> f32
  %wr = tier.warp_reduce %tr {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %br = tier.block_reduce %wr {} {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
  %inv = tier.map %br, %g {
  ^bb0(%b0: f32, %b1: f32):
    %r = math.rsqrt %b0 : f32
    %rg = arith.addf %r, %b1 : f32
    tier.yield %rg : f32
  } : f32, f32 -> f32
  %yf = tier.map %xf, %wf, %inv {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.mulf %p, %b : f32
    tier.yield %q : f32
  } : !tier.frag<16 x f32>, !tier.frag<16 x f32>, f32 -> !tier.frag<16 x f32>
  tier.store %yf, %y : !tier.frag<16 x f32>, tensor<64x4096xbf16>
  tier.store_row_scalar %br, %s : f32, tensor<64xf32>
  return
}

// -----

// A cluster kernel with a custom (m, l) combiner at every tier, and an
// argmax (value, index) state with a builtin kind.
// CHECK-LABEL: func.func @cluster_kernel
// CHECK-SAME:    attributes {tier.layout = #tier.tv_layout<threads = 1024, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = registers, unroll = 4, min_blocks = 1>}
// CHECK:         %[[XF:.*]] = tier.load %{{.*}} {fill = 0.000000e+00 : f32} : tensor<8x131072xbf16> -> <32 x f32>
// CHECK:         %[[ONE:.*]] = tier.map %[[XF]] {
// CHECK:         %[[T:.*]]:2 = tier.thread_reduce %[[XF]], %[[ONE]] {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK:           tier.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK-NEXT:    } {init = [0xFF800000 : f32, 0.000000e+00 : f32]} : !tier.frag<32 x f32>, !tier.frag<32 x f32> -> f32, f32
// CHECK:         %[[W:.*]]:2 = tier.warp_reduce %[[T]]#0, %[[T]]#1 {
// CHECK:         } {width = 32 : i64} : f32, f32 -> f32, f32
// CHECK:         %[[C:.*]]:2 = tier.cluster_reduce %[[W]]#0, %[[W]]#1 {
// CHECK:         } {cluster = 4 : i64, warps = 32 : i64} : f32, f32 -> f32, f32
// CHECK:         %[[AT:.*]]:2 = tier.thread_reduce %[[XF]] {
// CHECK-NEXT:    } {init = [0xFF800000 : f32, -1], kind = #rk<reduce_kind argmax>} : !tier.frag<32 x f32> -> f32, i64
// CHECK:         %[[AW:.*]]:2 = tier.warp_reduce %[[AT]]#0, %[[AT]]#1 {
// CHECK-NEXT:    } {kind = #rk<reduce_kind argmax>, width = 32 : i64} : f32, i64 -> f32, i64
// CHECK:         %[[AC:.*]]:2 = tier.cluster_reduce %[[AW]]#0, %[[AW]]#1 {
// CHECK-NEXT:    } {cluster = 4 : i64, kind = #rk<reduce_kind argmax>, warps = 32 : i64} : f32, i64 -> f32, i64
// CHECK:         tier.store_row_scalar %[[C]]#1, %{{.*}} : f32, tensor<8xf32>
// CHECK:         tier.store_row_scalar %[[AC]]#1, %{{.*}} : i64, tensor<8xi64>
func.func @cluster_kernel(%x: tensor<8x131072xbf16>, %l: tensor<8xf32>, %i: tensor<8xi64>)
    attributes {tier.layout = #tier.tv_layout<threads = 1024, values = 32, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = registers, unroll = 4, min_blocks = 1>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<8x131072xbf16> -> !tier.frag<32 x f32>
  %one = tier.map %xf {
  ^bb0(%a: f32):
    %c1 = arith.constant 1.0 : f32
    tier.yield %c1 : f32
  } : !tier.frag<32 x f32> -> !tier.frag<32 x f32>
  %t:2 = tier.thread_reduce %xf, %one {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %d1 = arith.subf %m1, %m : f32
    %d2 = arith.subf %m2, %m : f32
    %e1 = math.exp %d1 : f32
    %e2 = math.exp %d2 : f32
    %a = arith.mulf %l1, %e1 : f32
    %b = arith.mulf %l2, %e2 : f32
    %s = arith.addf %a, %b : f32
    tier.yield %m, %s : f32, f32
  } {init = [0xFF800000 : f32, 0.0 : f32]} : !tier.frag<32 x f32>, !tier.frag<32 x f32> -> f32, f32
  %w:2 = tier.warp_reduce %t#0, %t#1 {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %s = arith.addf %l1, %l2 : f32
    tier.yield %m, %s : f32, f32
  } {width = 32 : i64} : f32, f32 -> f32, f32
  %c:2 = tier.cluster_reduce %w#0, %w#1 {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %s = arith.addf %l1, %l2 : f32
    tier.yield %m, %s : f32, f32
  } {warps = 32 : i64, cluster = 4 : i64} : f32, f32 -> f32, f32
  %at:2 = tier.thread_reduce %xf {} {kind = #rk<reduce_kind argmax>, init = [0xFF800000 : f32, -1 : i64]} : !tier.frag<32 x f32> -> f32, i64
  %aw:2 = tier.warp_reduce %at#0, %at#1 {} {kind = #rk<reduce_kind argmax>, width = 32 : i64} : f32, i64 -> f32, i64
  %ac:2 = tier.cluster_reduce %aw#0, %aw#1 {} {kind = #rk<reduce_kind argmax>, warps = 32 : i64, cluster = 4 : i64} : f32, i64 -> f32, i64
  tier.store_row_scalar %c#1, %l : f32, tensor<8xf32>
  tier.store_row_scalar %ac#1, %i : i64, tensor<8xi64>
  return
}

// -----

// The grid tier: a row split over 64 CTAs of a persistent grid (schedule
// split), its (max, sum) state combined through global memory.
// CHECK-LABEL: func.func @grid_kernel
// CHECK-SAME:    tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 4, min_blocks = 2, keep = 1, split = 64>}
// CHECK:         %[[G:.*]]:2 = tier.grid_reduce %{{.*}}, %{{.*}} {
// CHECK:         } {split = 64 : i64, warps = 16 : i64} : f32, f32 -> f32, f32
// CHECK:         %[[A:.*]]:2 = tier.grid_reduce %{{.*}}, %{{.*}} {
// CHECK-NEXT:    } {kind = #rk<reduce_kind argmax>, split = 64 : i64, warps = 16 : i64} : f32, i64 -> f32, i64
func.func @grid_kernel(%w0: f32, %w1: f32, %v: f32, %i: i64)
    attributes {tier.layout = #tier.tv_layout<threads = 512, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 4, min_blocks = 2, split = 64, keep = 1>} {
  %g:2 = tier.grid_reduce %w0, %w1 {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %s = arith.addf %l1, %l2 : f32
    tier.yield %m, %s : f32, f32
  } {warps = 16 : i64, split = 64 : i64} : f32, f32 -> f32, f32
  %a:2 = tier.grid_reduce %v, %i {} {kind = #rk<reduce_kind argmax>, warps = 16 : i64, split = 64 : i64} : f32, i64 -> f32, i64
  return
}

// -----

// A sub-warp kernel: 8 threads per row, 16 rows per CTA; the warp tier
// works on groups of 8 lanes and there is no block tier. Block reductions
// also take a combiner region.
// CHECK-LABEL: func.func @subwarp_kernel
// CHECK-SAME:    tier.layout = #tier.tv_layout<threads = 8, values = 4, vector = 4, rows = 16>
// CHECK-SAME:    tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = smem, unroll = 1, min_blocks = 2>
// CHECK:         tier.warp_reduce %{{.*}} {
// CHECK-NEXT:    } {kind = #rk<reduce_kind max>, width = 8 : i64} : f32 -> f32
// CHECK:         tier.block_reduce %{{.*}} {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32):
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT:      tier.yield %[[S]] : i32
// CHECK-NEXT:    } {warps = 2 : i64} : i32 -> i32
func.func @subwarp_kernel(%x: tensor<128x32xf32>, %y: tensor<128xf32>, %n: tensor<128xi32>)
    attributes {tier.layout = #tier.tv_layout<threads = 8, values = 4, vector = 4, rows = 16>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = smem, unroll = 1, min_blocks = 2>} {
  %xf = tier.load %x {fill = 0xFF800000 : f32} : tensor<128x32xf32> -> !tier.frag<4 x f32>
  %t = tier.thread_reduce %xf {
  } {kind = #rk<reduce_kind max>, init = [0xFF800000 : f32]} : !tier.frag<4 x f32> -> f32
  %w = tier.warp_reduce %t {} {kind = #rk<reduce_kind max>, width = 8 : i64} : f32 -> f32
  %ni = tier.load_row_scalar %n : tensor<128xi32> -> i32
  %b = tier.block_reduce %ni {
  ^bb0(%a: i32, %c: i32):
    %s = arith.addi %a, %c : i32
    tier.yield %s : i32
  } {warps = 2 : i64} : i32 -> i32
  tier.store_row_scalar %w, %y : f32, tensor<128xf32>
  return
}

// -----

// The attributes and the type on their own (no function plan needed).
// CHECK-LABEL: func.func private @decl
// CHECK-SAME:    (!tier.frag<8 x f32>, !tier.frag<1 x i64>) -> !tier.frag<4 x f32>
// CHECK-SAME:    attributes {layout = #tier.tv_layout<threads = 1024, values = 16, vector = 16, rows = 1>, level = #tier<level cluster>, schedule = #tier.schedule<reduce = thread, cluster = 1, staging = stream, unroll = 8, min_blocks = 0>, staging = #tier<staging smem>}
func.func private @decl(!tier.frag<8 x f32>, !tier.frag<1 x i64>) -> !tier.frag<4 x f32>
    attributes {layout = #tier.tv_layout<threads = 1024, values = 16, vector = 16, rows = 1>,
                schedule = #tier.schedule<reduce = thread, cluster = 1, staging = stream, unroll = 8, min_blocks = 0>,
                level = #tier<level cluster>, staging = #tier<staging smem>}

// -----

// The optional prefetch field round-trips; 0 (the default) is not printed.
// CHECK-LABEL: func.func private @prefetch
// CHECK-SAME:    a = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0, prefetch = 1>
// CHECK-SAME:    b = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}
func.func private @prefetch()
    attributes {a = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0, prefetch = 1>,
                b = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0, prefetch = 0>}

// -----

// So does keep (passes of a streamed row kept in shared memory).
// CHECK-LABEL: func.func private @keep
// CHECK-SAME:    a = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 2, keep = 3>
// CHECK-SAME:    b = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 2>}
func.func private @keep()
    attributes {a = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 2, keep = 3>,
                b = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 2, keep = 0>}

// -----

// So does evict_last (the one sweep's loads evict-last in L2), in any
// order with the other optional fields.
// CHECK-LABEL: func.func private @evict_last
// CHECK-SAME:    a = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 3, prefetch = 1, evict_last = 1>
// CHECK-SAME:    b = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}
func.func private @evict_last()
    attributes {a = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 3, evict_last = 1, prefetch = 1>,
                b = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0, evict_last = 0>}

// -----

// Column (K-split) ops under #tier.ksplit_layout.
// CHECK-LABEL: func.func @column_ops
// CHECK-SAME:    tier.layout = #tier.ksplit_layout<rows = 2, cols = 4, warps = 4, cluster = 2, unroll = 8>
// CHECK:         %[[P:.*]] = tier.kdot %{{.*}}, %{{.*}}, %{{.*}} zeros %{{.*}} : tensor<2x256xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16>, tensor<8x64xf16> -> <8 x f32>
// CHECK:         %[[R:.*]] = tier.ksplit_reduce %[[P]] : <8 x f32> -> <1 x f32>
// CHECK:         %[[B:.*]] = tier.load_tile %{{.*}} : tensor<64xf16> -> <1 x f32>
// CHECK:         tier.store_tile %[[R]], %{{.*}} : <1 x f32>, tensor<2x64xf16>
// CHECK:         tier.dequantize_tile %{{.*}}, %{{.*}} zeros %{{.*}}, %{{.*}} : tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<256x64xf16>
// CHECK:         tier.quantize_tile %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<256x64xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16>, tensor<8x64xf16>
func.func @column_ops(%x: tensor<2x256xf16>, %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, %s: tensor<8x64xf16>, %z: tensor<8x64xf16>, %b: tensor<64xf16>, %o: tensor<2x64xf16>, %w: tensor<256x64xf16>)
    attributes {tier.layout = #tier.ksplit_layout<rows = 2, cols = 4, warps = 4, cluster = 2, unroll = 8>} {
  %p = tier.kdot %x, %q, %s zeros %z : tensor<2x256xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16>, tensor<8x64xf16> -> !tier.frag<8 x f32>
  %r = tier.ksplit_reduce %p : !tier.frag<8 x f32> -> !tier.frag<1 x f32>
  %bv = tier.load_tile %b : tensor<64xf16> -> !tier.frag<1 x f32>
  tier.store_tile %r, %o : !tier.frag<1 x f32>, tensor<2x64xf16>
  tier.dequantize_tile %q, %s zeros %z, %w : tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16>, tensor<8x64xf16>, tensor<256x64xf16>
  tier.quantize_tile %w, %q, %s, %z : tensor<256x64xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16>, tensor<8x64xf16>
  return
}
