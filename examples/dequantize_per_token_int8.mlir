// Per-token INT8 dequantization of q [T, D] (e.g. a KV cache quantized by
// quantize_per_token_int8.mlir): y = scale[t] * q[t, d] in f32, rounded to
// the compile request's dtype. rk-decompose turns it into a row program
// (the [T, 1] scales read as one value per row, the values scaled): q read
// once, y written once.
func.func @dequantize_per_token_int8(
    %q: tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>> {rk.name = "q"},
    %s: tensor<?x?xf16> {rk.name = "scales"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.dequantize %q, %s
      : (tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>,
         tensor<?x?xf16>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
