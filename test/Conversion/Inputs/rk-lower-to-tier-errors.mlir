// Errors of rk-lower-to-tier (RUN line in ../rk-lower-to-tier.mlir).

// expected-error@below {{the kernel has no plan: run rk-plan-tiers first}}
func.func @no_plan(%x: tensor<4x64xf32>) -> tensor<4xf32> {
  %s = rk.reduce add %x : tensor<4x64xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A quantized weight is an [M, N] argument of i4: the argument check comes
// before the op check, so a gemv kernel is refused for its argument.
// expected-error@below {{[M, N] arguments of a row kernel must be float (f32, bf16, f16) or int8, got 'tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>'}}
func.func @gemv(%a: tensor<1x256xf16>,
                %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
                %s: tensor<2x64xf16>) -> tensor<1x64xf16>
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 8, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %o = rk.gemv %a, %q, %s : (tensor<1x256xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

func.func @attention(%q: tensor<2x8x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) -> tensor<2x8x64xf16>
    attributes {tier.layout = #tier.tv_layout<threads = 32, values = 8, vector = 8, rows = 1>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  // expected-error@below {{'rk.decode_attention' is not supported by the row-kernel lowering (run rk-decompose first, or the op has no row lowering yet)}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @named_op(%x: tensor<4x64xf32>) -> tensor<4x64xf32>
    attributes {tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  // expected-error@below {{'rk.softmax' is not supported by the row-kernel lowering (run rk-decompose first, or the op has no row lowering yet)}}
  %y = rk.softmax %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// expected-error@below {{kernel arguments must be tensors, got 'f32'}}
func.func @scalar_arg(%x: tensor<4x64xf32>, %e: f32) -> tensor<4xf32>
    attributes {tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %s = rk.reduce add %x : tensor<4x64xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// expected-error@below {{[M, N] arguments of a row kernel must be float (f32, bf16, f16) or int8, got 'tensor<4x64xi32>'}}
func.func @int_rows(%x: tensor<4x64xi32>) -> tensor<4xi32>
    attributes {tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %s = rk.reduce add %x : tensor<4x64xi32> -> tensor<4xi32>
  return %s : tensor<4xi32>
}

// -----

func.func @gather_computed(%x: tensor<4x64xf32>, %t: tensor<4xi64>) -> tensor<4xf32>
    attributes {tier.layout = #tier.tv_layout<threads = 16, values = 4, vector = 4, rows = 2>,
                tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 1, min_blocks = 0>} {
  %e = rk.map %x {
  ^bb0(%a: f32):
    %b = math.exp %a : f32
    rk.yield %b : f32
  } : tensor<4x64xf32> -> tensor<4x64xf32>
  // expected-error@below {{rk.gather reads a kernel argument; gathering a computed value is not supported}}
  %g = rk.gather %e[%t] : tensor<4x64xf32>, tensor<4xi64> -> tensor<4xf32>
  return %g : tensor<4xf32>
}
