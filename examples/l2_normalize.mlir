// Row L2 normalisation written with generic ops only:
// y = x / sqrt(sum_n x^2 + eps).
func.func @l2_normalize(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
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
    %r = math.sqrt %t : f32
    rk.yield %r : f32
  } : tensor<?xf32>, f32 -> tensor<?xf32>
  %nb = rk.broadcast %norm dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %y = rk.map %x, %nb {
  ^bb0(%a: f32, %n: f32):
    %q = arith.divf %a, %n : f32
    rk.yield %q : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
