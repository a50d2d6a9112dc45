// Cross-entropy loss of each row of logits x against an integer target
// (ignore_index -100 gives a loss of 0); also returns the row logsumexp,
// which the backward pass needs. Losses are f32 for every logits dtype.
func.func @cross_entropy(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                         %t: tensor<?xi64> {rk.name = "targets"})
    -> (tensor<?xf32>, tensor<?xf32>) {
  %loss, %lse = rk.cross_entropy %x, %t {ignore_index = -100 : i64}
      : (tensor<?x?x!rk.dtype>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>)
  return %loss, %lse : tensor<?xf32>, tensor<?xf32>
}
