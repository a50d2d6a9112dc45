func.func @rms_w(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}, %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %eps = arith.constant 1.0e-12 : f32
  %sq = rk.map %x {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    rk.yield %p : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %ss = rk.reduce add %sq : tensor<?x?xf32> -> tensor<?xf32>
  %norm = rk.map %ss, %eps {
  ^bb0(%s: f32, %e: f32):
    %t = arith.addf %s, %e : f32
    %r = math.rsqrt %t : f32
    rk.yield %r : f32
  } : tensor<?xf32>, f32 -> tensor<?xf32>
  %nb = rk.broadcast %norm dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %wb = rk.broadcast %w dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %y = rk.map %x, %nb, %wb {
  ^bb0(%a: f32, %n: f32, %c: f32):
    %q = arith.mulf %a, %n : f32
    %z = arith.mulf %q, %c : f32
    rk.yield %z : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32>, tensor<?x?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
