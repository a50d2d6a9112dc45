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

# Softmax of x / 2 written with generic ops: two reductions, the second over
# values that depend on the first (max, then the sum of exp(x / 2 - max)).
TEMPERATURE_SOFTMAX = """
func.func @temperature_softmax(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %s = rk.map %x {
  ^bb0(%a: f32):
    %t = arith.constant 0.5 : f32
    %r = arith.mulf %a, %t : f32
    rk.yield %r : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %m = rk.reduce max %s : tensor<?x?xf32> -> tensor<?xf32>
  %mb = rk.broadcast %m dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %e = rk.map %s, %mb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    rk.yield %r : f32
  } : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %z = rk.reduce add %e : tensor<?x?xf32> -> tensor<?xf32>
  %zb = rk.broadcast %z dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %y = rk.map %e, %zb {
  ^bb0(%a: f32, %b: f32):
    %r = arith.divf %a, %b : f32
    rk.yield %r : f32
  } : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
"""

# Two dependent reductions with two [M] results: the row sum s, then the sum
# of (x - s)^2 (a reduction over values that need the first reduction).
ROW_MEAN_VARIANCE = """
func.func @row_mean_variance(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> (tensor<?xf32>, tensor<?xf32>) {
  %s = rk.reduce add %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  %mb = rk.broadcast %s dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %d = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %r = arith.subf %a, %b : f32
    %q = arith.mulf %r, %r : f32
    rk.yield %q : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32> -> tensor<?x?xf32>
  %v = rk.reduce add %d : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %v : tensor<?xf32>, tensor<?xf32>
}
"""

# Two independent reductions of the same row, two [M] results.
ROW_MAX_MIN = """
func.func @row_max_min(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> (tensor<?xf32>, tensor<?xf32>) {
  %a = rk.reduce max %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  %b = rk.reduce min %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}
"""

# An elementwise map alone (no reduction): GELU, tanh approximation.
GELU_TANH = """
func.func @gelu_tanh(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %h = arith.constant 0.5 : f32
    %c = arith.constant 0.7978845608 : f32
    %k = arith.constant 0.044715 : f32
    %one = arith.constant 1.0 : f32
    %a3 = arith.mulf %a, %a : f32
    %a4 = arith.mulf %a3, %a : f32
    %t1 = arith.mulf %a4, %k : f32
    %t2 = arith.addf %a, %t1 : f32
    %t3 = arith.mulf %t2, %c : f32
    %t4 = math.tanh %t3 : f32
    %t5 = arith.addf %t4, %one : f32
    %t6 = arith.mulf %a, %t5 : f32
    %t7 = arith.mulf %t6, %h : f32
    rk.yield %t7 : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
"""

# A row sum of |x| returned in f16: with `rkc run`'s inputs (2 * N(0, 1))
# rows of more than ~40k values overflow to inf in the kernel and in the
# reference alike.
ABS_SUM_F16 = """
func.func @abs_sum_f16(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?xf16> {
  %a = rk.map %x {
  ^bb0(%v: f32):
    %r = math.absf %v : f32
    rk.yield %r : f32
  } : tensor<?x?x!rk.dtype> -> tensor<?x?xf32>
  %s = rk.reduce add %a : tensor<?x?xf32> -> tensor<?xf16>
  return %s : tensor<?xf16>
}
"""


# A product and an argmin of the same row: rk-fuse-reductions does not merge
# an arg reduction with another, so a streamed row gets both folds in one
# sweep from the emitter (one read of the row, not two).
PRODUCT_ARGMIN = """
func.func @product_argmin(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xi64>) {
  %p = rk.reduce mul %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  %v, %i = rk.reduce argmin %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>, tensor<?xi64>
  return %p, %v, %i : tensor<?xf32>, tensor<?xf32>, tensor<?xi64>
}
"""


# argmax, argmin and a sum of the same row (one streamed sweep), then a sum
# of values that need the argmax's result (a second sweep).
ARG_EXTREMES_AND_SPREAD = """
func.func @arg_extremes_and_spread(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>) {
  %a, %ai = rk.reduce argmax %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>, tensor<?xi64>
  %b, %bi = rk.reduce argmin %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>, tensor<?xi64>
  %s = rk.reduce add %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  %ab = rk.broadcast %a dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %d = rk.map %x, %ab {
  ^bb0(%u: f32, %v: f32):
    %r = arith.subf %v, %u : f32
    rk.yield %r : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32> -> tensor<?x?xf32>
  %t = rk.reduce add %d : tensor<?x?xf32> -> tensor<?xf32>
  return %ai, %bi, %s, %t : tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>
}
"""

# An elementwise map with an [N] operand and a division by a constant.
SCALE_BIAS = """
func.func @scale_bias(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}, %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %wb = rk.broadcast %w dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  %y = rk.map %x, %wb {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 3.0 : f32
    %q = arith.divf %a, %c : f32
    %r = arith.addf %q, %b : f32
    rk.yield %r : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}
"""

# The dot product of two rows read once: a thread stages two rows. With
# L2-hinted copies for both, ptxas of CUDA 13.0 made the kernel fault
# ("illegal instruction", bf16 / f16 at 4k); found by random program 87 of
# test/gpu/random_specs.py, kept here whatever the generator draws.
DOT_ROWS = """
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
"""
