// LayerNorm over the last dim with a bias, for any float dtype:
// y = (x - mean) * rsqrt(var + eps) * w + b.
func.func @layer_norm(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                      %w: tensor<?x!rk.dtype> {rk.name = "w"},
                      %b: tensor<?x!rk.dtype> {rk.name = "b"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.layer_norm %x, %w, %b {eps = 1.0e-5 : f32}
      : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
