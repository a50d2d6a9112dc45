// RMSNorm whose result is a sum of five [N] operands scaled by the row's
// norm: y = x * r * w0 + w1 + w2 + w3 + w4 (the epilogue's [N] loads, by
// their count: rkc-staging.test).
func.func @five_weights(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                        %w0: tensor<?x!rk.dtype> {rk.name = "w0"},
                        %w1: tensor<?x!rk.dtype> {rk.name = "w1"},
                        %w2: tensor<?x!rk.dtype> {rk.name = "w2"},
                        %w3: tensor<?x!rk.dtype> {rk.name = "w3"},
                        %w4: tensor<?x!rk.dtype> {rk.name = "w4"}) -> tensor<?x?x!rk.dtype> {
  %eps = arith.constant 1.0e-6 : f32
  %sq = rk.map %x {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    rk.yield %p : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %ss = rk.reduce add %sq : tensor<?x?xf32> -> tensor<?xf32>
  %r = rk.map %ss, %eps {
  ^bb0(%s: f32, %e: f32):
    %t = arith.addf %s, %e : f32
    %q = math.rsqrt %t : f32
    rk.yield %q : f32
  } : tensor<?xf32>, f32 -> tensor<?xf32>
  %rb = rk.broadcast %r dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %b0 = rk.broadcast %w0 dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %b1 = rk.broadcast %w1 dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %b2 = rk.broadcast %w2 dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %b3 = rk.broadcast %w3 dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %b4 = rk.broadcast %w4 dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %y = rk.map %x, %rb, %b0, %b1, %b2, %b3, %b4 {
  ^bb0(%a: f32, %n: f32, %c0: f32, %c1: f32, %c2: f32, %c3: f32, %c4: f32):
    %q = arith.mulf %a, %n : f32
    %z = arith.mulf %q, %c0 : f32
    %s1 = arith.addf %z, %c1 : f32
    %s2 = arith.addf %s1, %c2 : f32
    %s3 = arith.addf %s2, %c3 : f32
    %s4 = arith.addf %s3, %c4 : f32
    rk.yield %s4 : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32>, tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
