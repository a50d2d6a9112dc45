// Errors of tier-emit-cuda (RUN line in ../tier-emit-cuda.mlir).

// expected-error@below {{the kernel is not planned (run rk-plan-tiers)}}
func.func @no_plan(%x: tensor<4x64xf32>, %y: tensor<4xf32>) {
  return
}

// -----

// tier.arch is part of the plan.
// expected-error@below {{the kernel is not planned (run rk-plan-tiers)}}
func.func @no_arch(%x: tensor<4x64xf32>, %y: tensor<4xf32>)
    attributes {tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  return
}

// -----

// expected-error@below {{the kernel still holds rk ops (run rk-lower-to-tier)}}
func.func @not_lowered(%x: tensor<4x64xf32>) -> tensor<4xf32>
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %s = rk.reduce add %x : tensor<4x64xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// An element type without a CUDA storage type.
// expected-error@below {{element type 'f64' has no CUDA storage type}}
func.func @f64(%x: tensor<4x64xf64>)
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  return
}

// -----

func.func @region_op(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>)
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<4x64xf32> -> !tier.frag<4 x f32>
  %r = tier.map %xf {
  ^bb0(%a: f32):
    // expected-error@below {{'math.cbrt' has no CUDA lowering in rkc}}
    %c = math.cbrt %a : f32
    tier.yield %c : f32
  } : !tier.frag<4 x f32> -> !tier.frag<4 x f32>
  tier.store %r, %y : !tier.frag<4 x f32>, tensor<4x64xf32>
  return
}

// -----

// Hand-written tier IR: an int4 weight whose K is not whole k8 words.
func.func @kdot_int4_k_not_8(%x: tensor<1x12xf16>, %q: tensor<12x64xi4, #rk.quant<bits = 4, group_size = 12, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<1x64xf16>, %o: tensor<1x64xf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 1, cluster = 1, unroll = 1>} {
  // expected-error@below {{'tier.kdot' op int4 weights need K a multiple of 8, got 12}}
  %0 = tier.kdot %x, %q, %s : tensor<1x12xf16>, tensor<12x64xi4, #rk.quant<bits = 4, group_size = 12, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<1x64xf16> -> <1 x f32>
  %1 = tier.ksplit_reduce %0 : <1 x f32> -> <1 x f32>
  tier.store_tile %1, %o : <1 x f32>, tensor<1x64xf16>
  return
}

// -----

// Hand-written tier IR: int8 weights one value per byte (column kernels
// read k4 words).
// expected-error@below {{column kernels read 8-bit values packed in 32-bit words along K (packing = k4), got packing = none}}
func.func @kdot_int8_unpacked(%x: tensor<1x256xf16>, %q: tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = none>>, %s: tensor<2x64xf16>, %o: tensor<1x64xf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 1, cluster = 1, unroll = 1>} {
  %0 = tier.kdot %x, %q, %s : tensor<1x256xf16>, tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = none>>, tensor<2x64xf16> -> <1 x f32>
  %1 = tier.ksplit_reduce %0 : <1 x f32> -> <1 x f32>
  tier.store_tile %1, %o : <1 x f32>, tensor<1x64xf16>
  return
}

// -----

// int8 on tensor cores with bf16 activations (the planner never picks it).
func.func @kdot_int8_mma_bf16(%x: tensor<4x256xbf16>, %q: tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<2x64xf16>, %o: tensor<4x64xbf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a", tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 4, cluster = 1, unroll = 2, mma = true>} {
  // expected-error@below {{'tier.kdot' op int8 weights on tensor cores need f16 activations (int8 + 128 is not exact in bf16)}}
  %0 = tier.kdot %x, %q, %s : tensor<4x256xbf16>, tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<2x64xf16> -> <16 x f32>
  %1 = tier.ksplit_reduce %0 : <16 x f32> -> <2 x f32>
  tier.store_tile %1, %o : <2 x f32>, tensor<4x64xbf16>
  return
}

// -----

// Hand-written tier IR: evict_last = 1 on copies of two rows (the planner
// refuses it: CUDA 13.0's ptxas faults on hinted copies of two).
// expected-error@below {{schedule evict_last = 1 with staged copies takes one [M, N] input, this kernel stages 2}}
func.func @evict_two_rows(%x: tensor<512x4096xbf16> {rk.name = "x"}, %r: tensor<512x4096xbf16> {rk.name = "r"},
               %y: tensor<512x4096xbf16> {rk.name = "out0", tier.output})
    attributes {tier.arch = "sm_90a",
                tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 2, min_blocks = 0, evict_last = 1>} {
  %xf = tier.load %x {fill = 0.0 : f32} : tensor<512x4096xbf16> -> !tier.frag<16 x f32>
  %rf = tier.load %r {fill = 0.0 : f32} : tensor<512x4096xbf16> -> !tier.frag<16 x f32>
  %yf = tier.map %xf, %rf {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tier.yield %s : f32
  } : !tier.frag<16 x f32>, !tier.frag<16 x f32> -> !tier.frag<16 x f32>
  tier.store %yf, %y : !tier.frag<16 x f32>, tensor<512x4096xbf16>
  return
}

// -----

// A row whose layout sweeps 2^31 columns or more (256 threads x 32 values
// x 128 CTAs over 2^31 - 1 columns): the kernels' column indices are ints.
// expected-error @+1 {{rows of 2147483647 elements are too long: the layout (threads=256,values=32,vector=4,rows=1,cluster=1,staging=stream,unroll=8,min_blocks=0,split=128) sweeps 2147483648 columns, and column indices must stay below 2^31}}
func.func @sweep_past_int(%arg0: tensor<1x2147483647xf32> {rk.name = "x"}, %arg1: tensor<1xf32> {rk.name = "out0", tier.output}) attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 8, min_blocks = 0, split = 128>} {
  %0 = tier.load %arg0 {fill = 0.000000e+00 : f32} : tensor<1x2147483647xf32> -> <32 x f32>
  %1 = tier.thread_reduce %0 {
  } {init = [0.000000e+00 : f32], kind = #rk<reduce_kind add>} : !tier.frag<32 x f32> -> f32
  %2 = tier.warp_reduce %1 {
  } {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
  %3 = tier.grid_reduce %2 {
  } {kind = #rk<reduce_kind add>, split = 128 : i64, warps = 8 : i64} : f32 -> f32
  tier.store_row_scalar %3, %arg1 : f32, tensor<1xf32>
  return
}
