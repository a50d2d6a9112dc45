// y[m, n] = x[m, n] * w[n] / sum_n(x[m, n] * w[n]): the weight row enters the
// reduction, so its fragment is loaded before it and held across it.
func.func @weighted_share(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                          %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %wb = rk.broadcast %w dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %p = rk.map %x, %wb {
  ^bb0(%a: f32, %b: f32):
    %v = arith.mulf %a, %b : f32
    rk.yield %v : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %s = rk.reduce add %p : tensor<?x?xf32> -> tensor<?xf32>
  %sb = rk.broadcast %s dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %y = rk.map %p, %sb {
  ^bb0(%a: f32, %c: f32):
    %v = arith.divf %a, %c : f32
    rk.yield %v : f32
  } : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
