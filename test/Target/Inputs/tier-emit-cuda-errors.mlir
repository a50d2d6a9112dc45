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
