// RMSNorm over the last dim, for any float dtype (--dtype f32|bf16|f16).
// rkc.rms_norm substitutes eps.
func.func @rms_norm(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                    %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.rms_norm %x, %w {eps = 1.0e-6 : f32}
      : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
