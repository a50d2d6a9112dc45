// Index of the largest element of each row (the lowest index wins ties),
// e.g. greedy decoding over the vocabulary; also returns the maximum.
func.func @argmax(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> (tensor<?xi64>, tensor<?xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>, tensor<?xi64>
  return %i, %v : tensor<?xi64>, tensor<?xf32>
}
