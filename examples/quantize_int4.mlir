// Symmetric INT4 quantization of a [K, N] weight in groups of 128 along K,
// eight 4-bit values per 32-bit word (k8 packing), f16 scales [K / 128, N].
func.func @quantize_int4(%w: tensor<?x?x!rk.dtype> {rk.name = "w"})
    -> (tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
        tensor<?x?xf16>) {
  %q, %s = rk.quantize %w : (tensor<?x?x!rk.dtype>)
      -> (tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
          tensor<?x?xf16>)
  return %q, %s : tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
                  tensor<?x?xf16>
}
