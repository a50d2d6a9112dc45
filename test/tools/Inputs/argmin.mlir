// argmin of each row (the lowest index wins ties; NaN counts as the minimum).
func.func @argmin(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> (tensor<?xi64>, tensor<?xf32>) {
  %v, %i = rk.reduce argmin %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>, tensor<?xi64>
  return %i, %v : tensor<?xi64>, tensor<?xf32>
}
