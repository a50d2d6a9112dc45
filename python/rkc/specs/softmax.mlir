// Softmax over the last dim, for any float dtype.
func.func @softmax(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
