// The dot product of two rows (read once, two [M, N] inputs): the
// read-once test's kernel that stages two rows per thread.
func.func @dot_rows(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                    %r: tensor<?x?x!rk.dtype> {rk.name = "r"}) -> tensor<?xf32> {
  %p = rk.map %x, %r {
  ^bb0(%a: f32, %b: f32):
    %q = arith.mulf %a, %b : f32
    rk.yield %q : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %s = rk.reduce add %p : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
