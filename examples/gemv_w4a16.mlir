// Decode GEMV with INT4 weights and 16-bit activations (W4A16):
// out[m, n] = sum_k x[m, k] * scale[k / 128, n] * q[k, n], fp32 accumulation,
// for M = 1..16 rows of f16 or bf16 activations.
func.func @gemv_w4a16(
    %x: tensor<?x?x!rk.dtype> {rk.name = "x"},
    %q: tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>> {rk.name = "q"},
    %s: tensor<?x?xf16> {rk.name = "scales"}) -> tensor<?x?x!rk.dtype> {
  %o = rk.gemv %x, %q, %s
      : (tensor<?x?x!rk.dtype>,
         tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
         tensor<?x?xf16>) -> tensor<?x?x!rk.dtype>
  return %o : tensor<?x?x!rk.dtype>
}
