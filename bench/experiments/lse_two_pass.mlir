// Cross-entropy without its target gather (experiment, session 10): the
// row's logsumexp as a max, then a sum of exp(x - max), one f32 per row.
func.func @lse_two_pass(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?xf32> {
  %m = rk.reduce max %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  %mb = rk.broadcast %m dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %e = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    rk.yield %r : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32> -> tensor<?x?xf32>
  %s = rk.reduce add %e : tensor<?x?xf32> -> tensor<?xf32>
  %lse = rk.map %m, %s {
  ^bb0(%a: f32, %b: f32):
    %l = math.log %b : f32
    %r = arith.addf %a, %l : f32
    rk.yield %r : f32
  } : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %lse : tensor<?xf32>
}
