// A softmax whose types are fixed (f32, no !rk.dtype): --dtype does not
// apply to it (rkc-errors.test).
func.func @softmax_f32(%x: tensor<?x?xf32> {rk.name = "x"}) -> tensor<?x?xf32> {
  %y = rk.softmax %x : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
