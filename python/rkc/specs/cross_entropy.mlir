// Per-row cross-entropy of logits [M, N] (any float dtype) against int64
// targets [M]: loss[m] = lse[m] - logits[m, target[m]] (0 where target[m] ==
// ignore_index) and lse[m] = logsumexp(logits[m, :]), both f32.
// rkc.cross_entropy substitutes ignore_index.
func.func @cross_entropy(%logits: tensor<?x?x!rk.dtype> {rk.name = "logits"},
                         %t: tensor<?xi64> {rk.name = "target"})
    -> (tensor<?xf32>, tensor<?xf32>) {
  %loss, %lse = rk.cross_entropy %logits, %t {ignore_index = -100 : i64}
      : (tensor<?x?x!rk.dtype>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>)
  return %loss, %lse : tensor<?xf32>, tensor<?xf32>
}
