// LayerNorm over the last dim with a weight and no bias, for any float dtype.
// rkc.layer_norm(..., bias=None) substitutes eps.
func.func @layer_norm_nobias(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                             %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.layer_norm %x, %w {eps = 1.0e-5 : f32}
      : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
