// Two kernels in one spec (rkc-errors.test): refused at the second.
func.func @softmax(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

// The second function.
func.func @copy(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  return %x : tensor<?x?x!rk.dtype>
}
