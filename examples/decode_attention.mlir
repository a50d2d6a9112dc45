// Single-token (decode) attention with grouped-query heads: 32 query heads
// share 8 key/value heads (gqa_ratio 4); head dim 128, scale 1/sqrt(128).
// q [B, 32, 128]; k, v [B, 8, S, 128] (the KV cache, S tokens).
func.func @decode_attention(%q: tensor<?x32x128x!rk.dtype> {rk.name = "q"},
                            %k: tensor<?x8x?x128x!rk.dtype> {rk.name = "k"},
                            %v: tensor<?x8x?x128x!rk.dtype> {rk.name = "v"})
    -> tensor<?x32x128x!rk.dtype> {
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 4 : i64, scale = 0.0883883476 : f32}
      : (tensor<?x32x128x!rk.dtype>, tensor<?x8x?x128x!rk.dtype>, tensor<?x8x?x128x!rk.dtype>)
      -> tensor<?x32x128x!rk.dtype>
  return %o : tensor<?x32x128x!rk.dtype>
}
