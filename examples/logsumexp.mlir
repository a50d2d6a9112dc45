// Row logsumexp written with generic ops only: one pass over the row with
// the online (m, l) state (running max, sum of exp(x - m)), combined as
//   m = max(m1, m2), l = l1 * exp(m1 - m) + l2 * exp(m2 - m),
// then lse = m + log(l). Each element enters as the state (x, 1).
func.func @logsumexp(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?xf32> {
  %ones = rk.map %x {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    rk.yield %one : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %m, %l = rk.reduce %x, %ones init [0xFF800000 : f32, 0.0 : f32] {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    // Two empty states (m = -inf) would give exp(-inf - -inf) = NaN.
    %ninf = arith.constant 0xFF800000 : f32
    %empty = arith.cmpf oeq, %m, %ninf : f32
    %d1 = arith.subf %m1, %m : f32
    %d2 = arith.subf %m2, %m : f32
    %e1 = math.exp %d1 : f32
    %e2 = math.exp %d2 : f32
    %a = arith.mulf %l1, %e1 : f32
    %b = arith.mulf %l2, %e2 : f32
    %s = arith.addf %a, %b : f32
    %both = arith.addf %l1, %l2 : f32
    %l = arith.select %empty, %both, %s : f32
    rk.yield %m, %l : f32, f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>
  %lse = rk.map %m, %l {
  ^bb0(%a: f32, %b: f32):
    %lg = math.log %b : f32
    %r = arith.addf %a, %lg : f32
    rk.yield %r : f32
  } : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %lse : tensor<?xf32>
}
