// RUN: rk-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the tier dialect (TierDialect.cpp:
// #tier.tv_layout and #tier.schedule; TierOps.cpp: the ops), full text.

//===----------------------------------------------------------------------===//
// #tier.tv_layout
//===----------------------------------------------------------------------===//

// expected-error @+1 {{tv_layout threads must be a power of two in [1, 1024], got 48}}
func.func private @threads_pow2() attributes {l = #tier.tv_layout<threads = 48, values = 8, vector = 8, rows = 1>}

// -----

// expected-error @+1 {{tv_layout threads must be a power of two in [1, 1024], got 2048}}
func.func private @threads_max() attributes {l = #tier.tv_layout<threads = 2048, values = 8, vector = 8, rows = 1>}

// -----

// expected-error @+1 {{tv_layout vector must be a power of two in [1, 16], got 3}}
func.func private @vector_pow2() attributes {l = #tier.tv_layout<threads = 32, values = 6, vector = 3, rows = 1>}

// -----

// expected-error @+1 {{tv_layout values (12) must be a positive multiple of vector (8)}}
func.func private @values_multiple() attributes {l = #tier.tv_layout<threads = 32, values = 12, vector = 8, rows = 1>}

// -----

// expected-error @+1 {{tv_layout values (0) must be a positive multiple of vector (1)}}
func.func private @values_zero() attributes {l = #tier.tv_layout<threads = 32, values = 0, vector = 1, rows = 1>}

// -----

// expected-error @+1 {{tv_layout needs rows >= 1 and threads x rows <= 1024 threads per CTA, got 512 x 4}}
func.func private @rows_cta() attributes {l = #tier.tv_layout<threads = 512, values = 8, vector = 8, rows = 4>}

// -----

// expected-error @+1 {{tv_layout needs rows >= 1 and threads x rows <= 1024 threads per CTA, got 32 x 0}}
func.func private @rows_zero() attributes {l = #tier.tv_layout<threads = 32, values = 8, vector = 8, rows = 0>}

// -----

// expected-error @+1 {{tv_layout threads x rows (16) must fill whole warps (a multiple of 32)}}
func.func private @whole_warps() attributes {l = #tier.tv_layout<threads = 8, values = 4, vector = 4, rows = 2>}

// -----

//===----------------------------------------------------------------------===//
// #tier.schedule
//===----------------------------------------------------------------------===//

// expected-error @+1 {{schedule cluster must be a power of two in [1, 16], got 32}}
func.func private @cluster_range() attributes {s = #tier.schedule<reduce = cluster, cluster = 32, staging = registers, unroll = 1, min_blocks = 0>}

// -----

// expected-error @+1 {{schedule reduce = cluster goes with cluster > 1 (got reduce = block, cluster = 4)}}
func.func private @cluster_level() attributes {s = #tier.schedule<reduce = block, cluster = 4, staging = registers, unroll = 1, min_blocks = 0>}

// -----

// expected-error @+1 {{schedule reduce = cluster goes with cluster > 1 (got reduce = cluster, cluster = 1)}}
func.func private @cluster_one() attributes {s = #tier.schedule<reduce = cluster, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>}

// -----

// expected-error @+1 {{schedule unroll must be at least 1, got 0}}
func.func private @unroll() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 0, min_blocks = 0>}

// -----

// expected-error @+1 {{schedule min_blocks must be non-negative, got -1}}
func.func private @min_blocks() attributes {s = #tier.schedule<reduce = warp, cluster = 1, staging = smem, unroll = 1, min_blocks = -1>}

// -----

// expected-error @+1 {{schedule prefetch must be 0 or 1, got 2}}
func.func private @prefetch_value() attributes {s = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0, prefetch = 2>}

// -----

// expected-error @+1 {{schedule prefetch = 1 needs a row held in registers (staging = registers or async), got staging = stream}}
func.func private @prefetch_stream() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 1, min_blocks = 0, prefetch = 1>}

// -----

// expected-error @+1 {{schedule keep > 0 needs a streamed row (staging = stream), got staging = async}}
func.func private @keep_async() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 1, min_blocks = 0, keep = 2>}

// -----

// expected-error @+1 {{schedule: unknown staging 'nowhere'}}
func.func private @staging_name() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = nowhere, unroll = 1, min_blocks = 0>}

// -----

// expected-error @+1 {{schedule: unknown reduce tier 'bogus'}}
func.func private @reduce_name() attributes {s = #tier.schedule<reduce = bogus, cluster = 1, staging = stream, unroll = 1, min_blocks = 0>}

// -----

// expected-error @+1 {{expected integer value}}
func.func private @keep_not_integer() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 1, min_blocks = 0, keep = x>}

// -----

// expected-error @+1 {{unknown schedule field 'keeps' (optional fields: prefetch, keep, split, evict_last)}}
func.func private @keep_typo() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 1, min_blocks = 0, keeps = 2>}

// -----

// expected-error @+1 {{duplicate schedule field 'keep' (optional fields: prefetch, keep, split, evict_last)}}
func.func private @keep_twice() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 1, min_blocks = 0, keep = 1, keep = 2>}

// -----

// expected-error @+1 {{schedule evict_last must be 0 or 1, got 2}}
func.func private @evict_last_value() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 1, min_blocks = 0, evict_last = 2>}

// -----

// expected-error @+1 {{schedule evict_last = 1 is for rows read in one sweep (staging = registers, async or smem), got staging = stream}}
func.func private @evict_last_stream() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 1, min_blocks = 0, evict_last = 1>}

// -----

// expected-error @+1 {{duplicate schedule field 'evict_last' (optional fields: prefetch, keep, split, evict_last)}}
func.func private @evict_last_twice() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 1, min_blocks = 0, evict_last = 1, evict_last = 1>}

// -----

// expected-error @+1 {{schedule split must be a power of two in [1, 1024], got 6}}
func.func private @split_pow2() attributes {s = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 1, min_blocks = 0, split = 6>}

// -----

// expected-error @+1 {{schedule split > 1 takes cluster = 1 (the CTAs of a row are a cluster or a split), got cluster = 4, split = 8}}
func.func private @split_and_cluster() attributes {s = #tier.schedule<reduce = grid, cluster = 4, staging = stream, unroll = 1, min_blocks = 0, split = 8>}

// -----

// expected-error @+1 {{schedule reduce = grid goes with split > 1 (got reduce = block, split = 16)}}
func.func private @split_reduce_level() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 1, min_blocks = 0, split = 16>}

// -----

// expected-error @+1 {{schedule reduce = grid goes with split > 1 (got reduce = grid, split = 1)}}
func.func private @grid_without_split() attributes {s = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 1, min_blocks = 0>}

// -----

// expected-error @+1 {{schedule keep must be non-negative, got -1}}
func.func private @keep_negative() attributes {s = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 1, min_blocks = 0, keep = -1>}

// -----

//===----------------------------------------------------------------------===//
// tier.load / tier.store and the fragment size of the plan
//===----------------------------------------------------------------------===//

func.func @load_rank(%x: tensor<2x4x8xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 8, vector = 4, rows = 1>} {
  // expected-error @+1 {{'tier.load' op loads a row of an [M, N] tensor or an [N] row vector, got 'tensor<2x4x8xf32>'}}
  %f = tier.load %x {fill = 0.0 : f32} : tensor<2x4x8xf32> -> !tier.frag<8 x f32>
  return
}

// -----

func.func @load_frag_size(%x: tensor<4x256xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 8, vector = 4, rows = 1>} {
  // expected-error @+1 {{'tier.load' op fragment size 4 must equal the layout's values per thread (8)}}
  %f = tier.load %x {fill = 0.0 : f32} : tensor<4x256xf32> -> !tier.frag<4 x f32>
  return
}

// -----

func.func @store_rank(%x: tensor<4x256xf32>, %y: tensor<256xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 8, vector = 4, rows = 1>} {
  %f = tier.load %x {fill = 0.0 : f32} : tensor<4x256xf32> -> !tier.frag<8 x f32>
  // expected-error @+1 {{'tier.store' op stores into an [M, N] tensor, got 'tensor<256xf32>'}}
  tier.store %f, %y : !tier.frag<8 x f32>, tensor<256xf32>
  return
}

// -----

func.func @store_frag_size(%f: !tier.frag<16 x f32>, %y: tensor<4x256xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 8, vector = 4, rows = 1>} {
  // expected-error @+1 {{'tier.store' op fragment size 16 must equal the layout's values per thread (8)}}
  tier.store %f, %y : !tier.frag<16 x f32>, tensor<4x256xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tier.map
//===----------------------------------------------------------------------===//

func.func @map_arg_count(%f: !tier.frag<8 x f32>, %s: f32) {
  // expected-error @+1 {{'tier.map' op region must have one argument per input (2)}}
  %r = tier.map %f, %s {
  ^bb0(%a: f32):
    tier.yield %a : f32
  } : !tier.frag<8 x f32>, f32 -> !tier.frag<8 x f32>
  return
}

// -----

func.func @map_frag_size(%f: !tier.frag<8 x f32>)
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 16, vector = 4, rows = 1>} {
  // expected-error @+1 {{'tier.map' op fragment size 8 must equal the layout's values per thread (16)}}
  %r = tier.map %f {
  ^bb0(%a: f32):
    tier.yield %a : f32
  } : !tier.frag<8 x f32> -> !tier.frag<8 x f32>
  return
}

// -----

func.func @map_arg_type(%f: !tier.frag<8 x f32>, %i: i64) {
  // expected-error @+1 {{'tier.map' op region argument type 'i32' does not match input element type 'i64'}}
  %r = tier.map %f, %i {
  ^bb0(%a: f32, %b: i32):
    tier.yield %a : f32
  } : !tier.frag<8 x f32>, i64 -> !tier.frag<8 x f32>
  return
}

// -----

func.func @map_frag_results(%s: f32) {
  // expected-error @+1 {{'tier.map' op results are fragments exactly when an input is}}
  %r = tier.map %s {
  ^bb0(%a: f32):
    tier.yield %a : f32
  } : f32 -> !tier.frag<8 x f32>
  return
}

// -----

func.func @map_scalar_results(%f: !tier.frag<8 x f32>) {
  // expected-error @+1 {{'tier.map' op results are fragments exactly when an input is}}
  %r = tier.map %f {
  ^bb0(%a: f32):
    tier.yield %a : f32
  } : !tier.frag<8 x f32> -> f32
  return
}

// -----

func.func @map_yield_count(%f: !tier.frag<8 x f32>) {
  // expected-error @+1 {{'tier.map' op region must yield one value per result}}
  %r:2 = tier.map %f {
  ^bb0(%a: f32):
    tier.yield %a : f32
  } : !tier.frag<8 x f32> -> !tier.frag<8 x f32>, !tier.frag<8 x f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions (all four tiers share the combiner rules)
//===----------------------------------------------------------------------===//

func.func @thread_init(%f: !tier.frag<8 x f32>) {
  // expected-error @+1 {{'tier.thread_reduce' op 'init' needs one value per state component}}
  %r = tier.thread_reduce %f {} {kind = #rk<reduce_kind add>, init = [0.0 : f32, 0.0 : f32]} : !tier.frag<8 x f32> -> f32
  return
}

// -----

func.func @thread_frag_size(%f: !tier.frag<8 x f32>)
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 4, vector = 4, rows = 1>} {
  // expected-error @+1 {{'tier.thread_reduce' op fragment size 8 must equal the layout's values per thread (4)}}
  %r = tier.thread_reduce %f {} {kind = #rk<reduce_kind add>, init = [0.0 : f32]} : !tier.frag<8 x f32> -> f32
  return
}

// -----

func.func @thread_kind(%f: !tier.frag<8 x f32>) {
  // expected-error @+1 {{'tier.thread_reduce' op 'kind' must be a #rk.reduce_kind}}
  %r = tier.thread_reduce %f {} {kind = "add", init = [0.0 : f32]} : !tier.frag<8 x f32> -> f32
  return
}

// -----

func.func @warp_both(%s: f32) {
  // expected-error @+1 {{'tier.warp_reduce' op takes a builtin kind or a combiner region, not both}}
  %r = tier.warp_reduce %s {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tier.yield %c : f32
  } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  return
}

// -----

func.func @warp_neither(%s: f32) {
  // expected-error @+1 {{'tier.warp_reduce' op needs a builtin kind or a combiner region of 2 arguments}}
  %r = tier.warp_reduce %s {} {width = 32 : i64} : f32 -> f32
  return
}

// -----

func.func @block_combiner_args(%s: f32, %t: f32) {
  // A two-component state needs a combiner of 2 x 2 arguments.
  // expected-error @+1 {{'tier.block_reduce' op needs a builtin kind or a combiner region of 4 arguments}}
  %r:2 = tier.block_reduce %s, %t {
  ^bb0(%a: f32, %b: f32):
    tier.yield %a, %b : f32, f32
  } {warps = 8 : i64} : f32, f32 -> f32, f32
  return
}

// -----

func.func @warp_width(%s: f32) {
  // expected-error @+1 {{'tier.warp_reduce' op width must be a power of two in [1, 32], got 64}}
  %r = tier.warp_reduce %s {} {kind = #rk<reduce_kind max>, width = 64 : i64} : f32 -> f32
  return
}

// -----

func.func @warp_width_pow2(%s: f32) {
  // expected-error @+1 {{'tier.warp_reduce' op width must be a power of two in [1, 32], got 12}}
  %r = tier.warp_reduce %s {} {kind = #rk<reduce_kind max>, width = 12 : i64} : f32 -> f32
  return
}

// -----

func.func @block_warps_one(%s: f32) {
  // expected-error @+1 {{'tier.block_reduce' op warps per row must be a power of two in [2, 32], got 1}}
  %r = tier.block_reduce %s {} {kind = #rk<reduce_kind add>, warps = 1 : i64} : f32 -> f32
  return
}

// -----

func.func @block_warps_pow2(%s: f32) {
  // expected-error @+1 {{'tier.block_reduce' op warps per row must be a power of two in [2, 32], got 6}}
  %r = tier.block_reduce %s {} {kind = #rk<reduce_kind add>, warps = 6 : i64} : f32 -> f32
  return
}

// -----

func.func @cluster_size(%s: f32) {
  // expected-error @+1 {{'tier.cluster_reduce' op cluster must be a power of two in [2, 16], got 1}}
  %r = tier.cluster_reduce %s {} {kind = #rk<reduce_kind add>, warps = 8 : i64, cluster = 1 : i64} : f32 -> f32
  return
}

// -----

func.func @grid_split(%s: f32) {
  // expected-error @+1 {{'tier.grid_reduce' op split must be a power of two in [2, 1024], got 2048}}
  %r = tier.grid_reduce %s {} {kind = #rk<reduce_kind add>, warps = 8 : i64, split = 2048 : i64} : f32 -> f32
  return
}

// -----

func.func @grid_warps(%s: f32) {
  // expected-error @+1 {{'tier.grid_reduce' op warps per row must be a power of two in [1, 32], got 3}}
  %r = tier.grid_reduce %s {} {kind = #rk<reduce_kind add>, warps = 3 : i64, split = 16 : i64} : f32 -> f32
  return
}

// -----

func.func @cluster_states(%s: f32) {
  // expected-error @+1 {{'tier.cluster_reduce' op warps per row must be a power of two in [1, 32], got 128}}
  %r = tier.cluster_reduce %s {} {kind = #rk<reduce_kind add>, warps = 128 : i64, cluster = 16 : i64} : f32 -> f32
  return
}

// -----

func.func @yield_parent() {
  // expected-error @+1 {{'tier.yield' op expects parent op to be one of 'tier.map, tier.thread_reduce, tier.warp_reduce, tier.block_reduce, tier.cluster_reduce, tier.grid_reduce'}}
  tier.yield
}

// -----

// expected-error@below {{ksplit_layout rows must be in [1, 16], got 17}}
func.func @ksplit_rows() attributes {tier.layout = #tier.ksplit_layout<rows = 17, cols = 4, warps = 4, cluster = 1, unroll = 8>} {
  return
}

// -----

// expected-error@below {{ksplit_layout cols must be a power of two in [1, 16], got 3}}
func.func @ksplit_cols() attributes {tier.layout = #tier.ksplit_layout<rows = 1, cols = 3, warps = 4, cluster = 1, unroll = 8>} {
  return
}

// -----

// expected-error@below {{ksplit_layout warps must be in [1, 32], got 0}}
func.func @ksplit_warps() attributes {tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 0, cluster = 1, unroll = 8>} {
  return
}

// -----

// expected-error@below {{ksplit_layout cluster must be a power of two in [1, 16], got 3}}
func.func @ksplit_cluster() attributes {tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 4, cluster = 3, unroll = 8>} {
  return
}

// -----

// expected-error@below {{ksplit_layout unroll must be in [1, 64], got 0}}
func.func @ksplit_unroll() attributes {tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 4, cluster = 1, unroll = 0>} {
  return
}

// -----

func.func @kdot_size(%x: tensor<2x256xf16>, %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, %s: tensor<8x64xf16>)
    attributes {tier.layout = #tier.ksplit_layout<rows = 2, cols = 4, warps = 4, cluster = 1, unroll = 8>} {
  // expected-error@below {{'tier.kdot' op fragment size 4 must equal rows x cols of the layout (8)}}
  %p = tier.kdot %x, %q, %s : tensor<2x256xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16> -> !tier.frag<4 x f32>
  return
}

// -----

func.func @kdot_k(%x: tensor<2x128xf16>, %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, %s: tensor<8x64xf16>) {
  // expected-error@below {{'tier.kdot' op activation columns (128) differ from weight rows K (256)}}
  %p = tier.kdot %x, %q, %s : tensor<2x128xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16> -> !tier.frag<8 x f32>
  return
}

// -----

func.func @kdot_plain(%x: tensor<2x256xf16>, %q: tensor<256x64xi8>, %s: tensor<8x64xf16>) {
  // expected-error@below {{'tier.kdot' op the weight must carry a #rk.quant encoding, got 'tensor<256x64xi8>'}}
  %p = tier.kdot %x, %q, %s : tensor<2x256xf16>, tensor<256x64xi8>, tensor<8x64xf16> -> !tier.frag<8 x f32>
  return
}

// -----

// expected-error@below {{ksplit_layout with mma = true takes cols = 1, 2 or 4 (groups of 32 columns per warp), got 8}}
func.func @ksplit_mma_cols() attributes {tier.layout = #tier.ksplit_layout<rows = 4, cols = 8, warps = 4, cluster = 1, unroll = 8, mma = true>} {
  return
}

// -----

// expected-error@below {{ksplit_layout kwarps must divide warps (8), got 3}}
func.func @ksplit_kwarps_divides() attributes {tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 8, cluster = 1, unroll = 4, mma = true, kwarps = 3>} {
  return
}

// -----

// expected-error@below {{ksplit_layout global_acts = true (activations read from global memory) needs mma = true}}
func.func @ksplit_global_acts_mma() attributes {tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 8, cluster = 1, unroll = 4, global_acts = true>} {
  return
}

// -----

// expected-error@below {{ksplit_layout kwarps < warps (warps taking more columns) needs mma = true}}
func.func @ksplit_kwarps_cuda_cores() attributes {tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 8, cluster = 1, unroll = 4, kwarps = 2>} {
  return
}

// -----

func.func @kdot_rank(%x: tensor<256xf16>, %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, %s: tensor<8x64xf16>) {
  // expected-error@below {{'tier.kdot' op takes [M, K] activations and a [K, N] weight, got 'tensor<256xf16>' and 'tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>'}}
  %p = tier.kdot %x, %q, %s : tensor<256xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16> -> !tier.frag<8 x f32>
  return
}

// -----

func.func @kdot_mma_size(%x: tensor<2x256xf16>, %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, %s: tensor<8x64xf16>)
    attributes {tier.layout = #tier.ksplit_layout<rows = 2, cols = 1, warps = 4, cluster = 1, unroll = 8, mma = true>} {
  // expected-error@below {{'tier.kdot' op fragment size 2 must equal 16 x cols (four m16n8 accumulators per 32 columns) (16)}}
  %p = tier.kdot %x, %q, %s : tensor<2x256xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>, tensor<8x64xf16> -> !tier.frag<2 x f32>
  return
}
