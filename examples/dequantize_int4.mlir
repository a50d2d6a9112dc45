// The inverse of quantize_int4.mlir: w = scale[k / 128, n] * q[k, n].
func.func @dequantize_int4(
    %q: tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>> {rk.name = "q"},
    %s: tensor<?x?xf16> {rk.name = "scales"}) -> tensor<?x?x!rk.dtype> {
  %w = rk.dequantize %q, %s
      : (tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
         tensor<?x?xf16>) -> tensor<?x?x!rk.dtype>
  return %w : tensor<?x?x!rk.dtype>
}
