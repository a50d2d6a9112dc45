// Fused residual add + RMSNorm of transformer blocks, for any float dtype:
// h = x + residual; y = h * rsqrt(mean(h^2) + eps) * w. Returns y and h.
func.func @rms_norm_residual(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                             %w: tensor<?x!rk.dtype> {rk.name = "w"},
                             %r: tensor<?x?x!rk.dtype> {rk.name = "residual"})
    -> (tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype>) {
  %y, %h = rk.rms_norm %x, %w residual %r {eps = 1.0e-6 : f32}
      : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>, tensor<?x?x!rk.dtype>)
      -> (tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype>)
  return %y, %h : tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype>
}
