// Log-softmax over the last dim, for any float dtype.
func.func @log_softmax(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.log_softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
