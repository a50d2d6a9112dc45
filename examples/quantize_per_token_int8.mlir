// Per-token symmetric INT8 quantization of x [T, D] (e.g. a KV cache, one
// row per token): one f16 scale per row, scale = f16(max|x| * fl32(1/127)),
// q = scale == 0 ? 0 : clamp(round_half_even(x / scale), -127, 127).
// rk-decompose turns it into a row program (|x|, a row max, the scale, the
// values): one read of x, q and the scales [T, 1] written once.
func.func @quantize_per_token_int8(%x: tensor<?x?x!rk.dtype> {rk.name = "x"})
    -> (tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>,
        tensor<?x?xf16>) {
  %q, %s = rk.quantize %x : (tensor<?x?x!rk.dtype>)
      -> (tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>,
          tensor<?x?xf16>)
  return %q, %s : tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>,
                  tensor<?x?xf16>
}
