"""Custom rk specs used by the GPU suite (test_row_ops.py) and by the CPU
binding tests (test/python/test_binding_cpu.py)."""

# Row logsumexp through a custom (max, sum of exp) combiner: the online
# softmax state. The element state is (x, 1); the identity (-inf, 0). When
# both maxima are -inf (empty states, or a row of -inf) the sums add instead
# of being rescaled by exp(-inf - -inf) = NaN. `m - m` is NaN exactly when m
# is infinite, which avoids a constant inside the combiner.
ROW_LOGSUMEXP = """
func.func @row_logsumexp(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?xf32> {
  %one = rk.map %x {
  ^bb0(%a: f32):
    %c = arith.constant 1.0 : f32
    rk.yield %c : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %m, %l = rk.reduce %x, %one init [0xFF800000 : f32, 0.0 : f32] {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %z = arith.subf %m, %m : f32
    %empty = arith.cmpf uno, %z, %z : f32
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
"""

# Row L2 normalisation, as torch.nn.functional.normalize(x, dim=-1):
# y = x / max(||x||_2, 1e-12).
L2_NORMALIZE = """
func.func @l2_normalize(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %sq = rk.map %x {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    rk.yield %p : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %s = rk.reduce add %sq : tensor<?x?xf32> -> tensor<?xf32>
  %inv = rk.map %s {
  ^bb0(%a: f32):
    %n = math.sqrt %a : f32
    %eps = arith.constant 1.0e-12 : f32
    %d = arith.maximumf %n, %eps : f32
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %d : f32
    rk.yield %r : f32
  } : tensor<?xf32> -> tensor<?xf32>
  %b = rk.broadcast %inv dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %y = rk.map %x, %b {
  ^bb0(%a: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    rk.yield %p : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
"""

# A spec with a weight row vector and two results (a per-row sum and a scaled
# copy), to exercise argument order, [N] alignment and [M] results.
SCALE_AND_SUM = """
func.func @scale_and_sum(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                         %w: tensor<?x!rk.dtype> {rk.name = "w"})
    -> (tensor<?x?x!rk.dtype>, tensor<?xf32>) {
  %wb = rk.broadcast %w dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %y = rk.map %x, %wb {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    rk.yield %p : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %s = rk.reduce add %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  return %y, %s : tensor<?x?x!rk.dtype>, tensor<?xf32>
}
"""
